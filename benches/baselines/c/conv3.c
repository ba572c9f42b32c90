/* 3 x 3 convolution with indices clamped at the border: the interior
 * columns of a row in a vectorisable loop, the two border columns apart. */
#include "common.h"
static int64_t d[2], kd[2];
static float *img, *ker, *out;
static void setup(void) {
    img = read_value(" f32", 2, d);
    ker = read_value(" f32", 2, kd);
    out = malloc(d[0] * d[1] * sizeof(float));
}
static inline int64_t clamp(int64_t v, int64_t hi) { return v < 0 ? 0 : v > hi ? hi : v; }
static float pixel(int64_t n, int64_t m, int64_t i, int64_t j) {
    float s = 0;
    for (int di = 0; di < 3; di++)
        for (int dj = 0; dj < 3; dj++)
            s += img[clamp(i + di - 1, n - 1) * m + clamp(j + dj - 1, m - 1)] * ker[di * 3 + dj];
    return s;
}
static void kernel(void) {
    int64_t n = d[0], m = d[1];
    float k[9];
    memcpy(k, ker, sizeof k);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const float *r0 = img + clamp(i - 1, n - 1) * m, *r1 = img + i * m,
                    *r2 = img + clamp(i + 1, n - 1) * m;
        float *o = out + i * m;
        o[0] = pixel(n, m, i, 0);
#pragma omp simd
        for (int64_t j = 1; j < m - 1; j++)
            o[j] = r0[j - 1] * k[0] + r0[j] * k[1] + r0[j + 1] * k[2] +
                   r1[j - 1] * k[3] + r1[j] * k[4] + r1[j + 1] * k[5] +
                   r2[j - 1] * k[6] + r2[j] * k[7] + r2[j + 1] * k[8];
        if (m > 1) o[m - 1] = pixel(n, m, i, m - 1);
    }
}
static void report(void) { print_f32s(out, d[0] * d[1]); }
