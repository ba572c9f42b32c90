/* Sums of Black-Scholes call and put prices in f64 (the C baseline's
 * formula, IEEE expf/logf/sqrtf): a thread an option, block sums, one
 * atomic add a block and sum. */
#include "common.cuh"

__device__ float cnd(float d) {
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float poly = k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f +
                 k * (-1.821255978f + k * 1.330274429f))));
    float w = 1.0f - 0.39894228f * expf(-0.5f * d * d) * poly;
    return d < 0.0f ? 1.0f - w : w;
}

__global__ void blackscholes(int64_t n, const float *us, const float *uk, const float *ut,
                             const float *uv, double *out) {
    double c = 0, p = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float s = 10.0f + 100.0f * us[i], k = 10.0f + 100.0f * uk[i];
        float t = 0.25f + 2.0f * ut[i], v = 0.1f + 0.5f * uv[i], r = 0.02f;
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / k) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
        float d2 = d1 - v * sqrt_t;
        float disc = k * expf(-r * t);
        c += (double)(s * cnd(d1) - disc * cnd(d2));
        p += (double)(disc * cnd(-d2) - s * cnd(-d1));
    }
    c = block_sum(c);
    __syncthreads(); /* block_sum's shared cells again */
    p = block_sum(p);
    if (threadIdx.x == 0) {
        atomicAdd(&out[0], c);
        atomicAdd(&out[1], p);
    }
}

#ifndef __CUDACC_RTC__
static int64_t n;
static float *us, *uk, *ut, *uv;
static double *out;
static void setup(void) {
    us = to_device((float *)read_value(" f32", 1, &n), n);
    uk = to_device((float *)read_value(" f32", 1, &n), n);
    ut = to_device((float *)read_value(" f32", 1, &n), n);
    uv = to_device((float *)read_value(" f32", 1, &n), n);
    out = dev_alloc<double>(2);
}
static void kernel(void) {
    CK(cudaMemsetAsync(out, 0, 2 * sizeof(double)));
    blackscholes<<<grid_for(n), BLOCK>>>(n, us, uk, ut, uv, out);
    finish();
}
static void report(void) {
    double *h = to_host(out, 2);
    printf("%.17g %.17g", h[0], h[1]);
}
#endif
