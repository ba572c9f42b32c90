/* 256 bins of x & 255: private bins per block in shared memory, then one
 * atomic add a bin and block. */
#include "common.cuh"

__global__ void histogram(int64_t n, const int32_t *x, int32_t *bins) {
    __shared__ int32_t local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        atomicAdd(&local[x[i] & 255], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

#ifndef __CUDACC_RTC__
static int64_t n;
static int32_t *x, *bins;
static void setup(void) {
    x = to_device((int32_t *)read_value(" i32", 1, &n), n);
    bins = dev_alloc<int32_t>(256);
}
static void kernel(void) {
    CK(cudaMemsetAsync(bins, 0, 256 * sizeof(int32_t)));
    histogram<<<grid_for(n), BLOCK>>>(n, x, bins);
    finish();
}
static void report(void) { print_i32s(to_host(bins, 256), 256); }
#endif
