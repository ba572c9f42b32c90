#include <math.h>
#include "common.h"
static int64_t n;
static float *us, *uk, *ut, *uv;
static double calls, puts_;
static inline float cnd(float d) {
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float poly = k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f +
                 k * (-1.821255978f + k * 1.330274429f))));
    float w = 1.0f - 0.39894228f * expf(-0.5f * d * d) * poly;
    return d < 0.0f ? 1.0f - w : w;
}
static void setup(void) {
    us = read_value(" f32", 1, &n);
    uk = read_value(" f32", 1, &n);
    ut = read_value(" f32", 1, &n);
    uv = read_value(" f32", 1, &n);
}
static void kernel(void) {
    double c = 0, p = 0;
#pragma omp parallel for reduction(+ : c, p) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        float s = 10.0f + 100.0f * us[i], k = 10.0f + 100.0f * uk[i];
        float t = 0.25f + 2.0f * ut[i], v = 0.1f + 0.5f * uv[i], r = 0.02f;
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / k) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
        float d2 = d1 - v * sqrt_t;
        float disc = k * expf(-r * t);
        c += (double)(s * cnd(d1) - disc * cnd(d2));
        p += (double)(disc * cnd(-d2) - s * cnd(-d1));
    }
    calls = c;
    puts_ = p;
}
static void report(void) { printf("%.17g %.17g", calls, puts_); }
