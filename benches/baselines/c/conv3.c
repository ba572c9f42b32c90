/* 3 x 3 convolution of the interior; the border keeps its values. */
#include "common.h"
static int64_t d[2], kd[2];
static float *img, *ker, *out;
static void setup(void) {
    img = read_value(" f32", 2, d);
    ker = read_value(" f32", 2, kd);
    out = malloc(d[0] * d[1] * sizeof(float));
}
static void kernel(void) {
    int64_t n = d[0], m = d[1];
    float k[9];
    memcpy(k, ker, sizeof k);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        float *o = out + i * m;
        const float *r1 = img + i * m;
        if (i == 0 || i == n - 1) {
            memcpy(o, r1, m * sizeof(float));
            continue;
        }
        const float *r0 = r1 - m, *r2 = r1 + m;
        o[0] = r1[0];
#pragma omp simd
        for (int64_t j = 1; j < m - 1; j++)
            o[j] = r0[j - 1] * k[0] + r0[j] * k[1] + r0[j + 1] * k[2] +
                   r1[j - 1] * k[3] + r1[j] * k[4] + r1[j + 1] * k[5] +
                   r2[j - 1] * k[6] + r2[j] * k[7] + r2[j + 1] * k[8];
        if (m > 1) o[m - 1] = r1[m - 1];
    }
}
static void report(void) { print_f32s(out, d[0] * d[1]); }
