/* The streaming yardstick: cudaMemcpy of n f32 from one device array to
 * another (device to device); its bandwidth counts the bytes read and
 * written. Not a benchmark program: benches/gpu/compare_gpu.py runs it on
 * saxpy's `x`. */
#include "common.cuh"

#ifndef __CUDACC_RTC__
static int64_t n;
static float *x, *y;
static void setup(void) {
    x = to_device((float *)read_value(" f32", 1, &n), n);
    y = dev_alloc<float>(n);
}
static void kernel(void) {
    CK(cudaMemcpy(y, x, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice));
    finish();
}
static void report(void) { print_f32s(to_host(y, n), n); }
#endif
