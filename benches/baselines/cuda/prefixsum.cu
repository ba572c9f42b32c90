/* Inclusive scan of i32 with wrap-around: CUB's single-pass device scan
 * (decoupled look-back, part of the CUDA toolkit) on the bits as u32. No
 * kernel of its own, so check_cuda.py has nothing to compile here. */
#include "common.cuh"

#ifndef __CUDACC_RTC__
#include <cub/device/device_scan.cuh>
static int64_t n;
static uint32_t *x, *y;
static void *temp;
static size_t temp_bytes;
static void setup(void) {
    x = to_device((uint32_t *)read_value(" i32", 1, &n), n);
    y = dev_alloc<uint32_t>(n);
    CK(cub::DeviceScan::InclusiveSum(NULL, temp_bytes, x, y, n));
    CK(cudaMalloc(&temp, temp_bytes > 0 ? temp_bytes : 1));
}
static void kernel(void) {
    CK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, x, y, n));
    finish();
}
static void report(void) { print_i32s((int32_t *)to_host(y, n), n); }
#endif
