/* One Lloyd step: the first k points are the centroids; each thread sums
 * its points per nearest centroid (f64), then the sums are merged. */
#include "common.h"
static int64_t k, d[2];
static float *p, *out;
static void setup(void) {
    k = read_i64();
    p = read_value(" f32", 2, d);
    out = malloc(k * d[1] * sizeof(float));
}
static void kernel(void) {
    int64_t n = d[0], D = d[1];
    const float *cs = p;
    double *sums = calloc(k * D, sizeof(double));
    int64_t *counts = calloc(k, sizeof(int64_t));
#pragma omp parallel
    {
        double *ls = calloc(k * D, sizeof(double));
        int64_t *lc = calloc(k, sizeof(int64_t));
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < n; i++) {
            const float *pi = p + i * D;
            int64_t best = 0;
            float bd = __builtin_inff();
            for (int64_t c = 0; c < k; c++) {
                float dist = 0;
                for (int64_t j = 0; j < D; j++) {
                    float t = pi[j] - cs[c * D + j];
                    dist += t * t;
                }
                if (dist < bd) { bd = dist; best = c; }
            }
            lc[best]++;
            for (int64_t j = 0; j < D; j++) ls[best * D + j] += pi[j];
        }
#pragma omp critical
        {
            for (int64_t c = 0; c < k; c++) {
                counts[c] += lc[c];
                for (int64_t j = 0; j < D; j++) sums[c * D + j] += ls[c * D + j];
            }
        }
        free(ls);
        free(lc);
    }
    for (int64_t c = 0; c < k; c++)
        for (int64_t j = 0; j < D; j++)
            out[c * D + j] = counts[c] ? (float)(sums[c * D + j] / (double)counts[c]) : cs[c * D + j];
    free(sums);
    free(counts);
}
static void report(void) { print_f32s(out, k * d[1]); }
