/* sum (x * y) in f64: each thread folds a grid-stride slice, a block sum,
 * then one atomic add a block. */
#include "common.cuh"

__global__ void dotprod(int64_t n, const float *x, const float *y, double *out) {
    double s = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        s += (double)(x[i] * y[i]);
    s = block_sum(s);
    if (threadIdx.x == 0) atomicAdd(out, s);
}

#ifndef __CUDACC_RTC__
static int64_t n;
static float *x, *y;
static double *out;
static void setup(void) {
    x = to_device((float *)read_value(" f32", 1, &n), n);
    y = to_device((float *)read_value(" f32", 1, &n), n);
    out = dev_alloc<double>(1);
}
static void kernel(void) {
    CK(cudaMemsetAsync(out, 0, sizeof(double)));
    dotprod<<<grid_for(n), BLOCK>>>(n, x, y, out);
    finish();
}
static void report(void) { printf("%.17g", *to_host(out, 1)); }
#endif
