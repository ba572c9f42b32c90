/* a = b + s c (STREAM triad), a grid-stride loop. */
#include "common.cuh"

__global__ void triad(int64_t n, float s, const float *b, const float *c, float *a) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
}

#ifndef __CUDACC_RTC__
static int64_t n;
static float s, *b, *c, *a;
static void setup(void) {
    s = read_f32();
    b = to_device((float *)read_value(" f32", 1, &n), n);
    c = to_device((float *)read_value(" f32", 1, &n), n);
    a = dev_alloc<float>(n);
}
static void kernel(void) {
    triad<<<grid_for(n), BLOCK>>>(n, s, b, c, a);
    finish();
}
static void report(void) { print_f32s(to_host(a, n), n); }
#endif
