/* c = a b, row by row in i-k-j order so the inner loop streams a row of b
 * and a row of c (vectorised). */
#include "common.h"
static int64_t d[2], e[2];
static float *a, *b, *c;
static void setup(void) {
    a = read_value(" f32", 2, d);
    b = read_value(" f32", 2, e);
    c = malloc(d[0] * e[1] * sizeof(float));
}
static void kernel(void) {
    int64_t n = d[0], K = d[1], m = e[1];
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        float *ci = c + i * m;
        for (int64_t j = 0; j < m; j++) ci[j] = 0;
        for (int64_t k = 0; k < K; k++) {
            float aik = a[i * K + k];
            const float *bk = b + k * m;
#pragma omp simd
            for (int64_t j = 0; j < m; j++) ci[j] += aik * bk[j];
        }
    }
}
static void report(void) { print_f32s(c, d[0] * e[1]); }
