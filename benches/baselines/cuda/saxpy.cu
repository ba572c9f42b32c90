/* z = a x + y, a grid-stride loop. */
#include "common.cuh"

__global__ void saxpy(int64_t n, float a, const float *x, const float *y, float *z) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        z[i] = a * x[i] + y[i];
}

#ifndef __CUDACC_RTC__
static int64_t n;
static float a, *x, *y, *z;
static void setup(void) {
    a = read_f32();
    x = to_device((float *)read_value(" f32", 1, &n), n);
    y = to_device((float *)read_value(" f32", 1, &n), n);
    z = dev_alloc<float>(n);
}
static void kernel(void) {
    saxpy<<<grid_for(n), BLOCK>>>(n, a, x, y, z);
    finish();
}
static void report(void) { print_f32s(to_host(z, n), n); }
#endif
