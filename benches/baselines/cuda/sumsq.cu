/* sum (x * x) in f64, as dotprod. */
#include "common.cuh"

__global__ void sumsq(int64_t n, const float *x, double *out) {
    double s = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double v = x[i];
        s += v * v;
    }
    s = block_sum(s);
    if (threadIdx.x == 0) atomicAdd(out, s);
}

#ifndef __CUDACC_RTC__
static int64_t n;
static float *x;
static double *out;
static void setup(void) {
    x = to_device((float *)read_value(" f32", 1, &n), n);
    out = dev_alloc<double>(1);
}
static void kernel(void) {
    CK(cudaMemsetAsync(out, 0, sizeof(double)));
    sumsq<<<grid_for(n), BLOCK>>>(n, x, out);
    finish();
}
static void report(void) { printf("%.17g", *to_host(out, 1)); }
#endif
