/* Jacobi sweeps between two grids; the border is copied once into both. */
#include "common.h"
static int64_t d[2];
static int32_t sweeps;
static float *g0, *g, *h, *res;
static void setup(void) {
    sweeps = read_i32();
    g0 = read_value(" f32", 2, d);
    g = malloc(d[0] * d[1] * sizeof(float));
    h = malloc(d[0] * d[1] * sizeof(float));
}
static void kernel(void) {
    int64_t n = d[0], m = d[1];
    memcpy(g, g0, n * m * sizeof(float));
    memcpy(h, g0, n * m * sizeof(float));
    float *src = g, *dst = h;
    for (int s = 0; s < sweeps; s++) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 1; i < n - 1; i++) {
#pragma omp simd
            for (int64_t j = 1; j < m - 1; j++)
                dst[i * m + j] = 0.25f * (src[(i - 1) * m + j] + src[(i + 1) * m + j] +
                                          src[i * m + j - 1] + src[i * m + j + 1]);
        }
        float *t = src; src = dst; dst = t;
    }
    res = src;
}
static void report(void) { print_f32s(res, d[0] * d[1]); }
