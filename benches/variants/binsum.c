/* Baseline of binsum.arr: sums into m bins, one private copy of the bins
 * per thread, added up at the end. */
#include "common.h"
static int64_t n, m;
static int32_t *is;
static float *vs, *bins, *priv;
static void setup(void) {
    m = read_i64();
    is = read_value(" i32", 1, &n);
    vs = read_value(" f32", 1, NULL);
    bins = malloc(sizeof(float) * (m ? m : 1));
    priv = malloc(sizeof(float) * (m ? m : 1) * omp_get_max_threads());
}
static void kernel(void) {
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        float *mine = priv + m * t;
        memset(mine, 0, sizeof(float) * m);
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++) mine[(int64_t)(is[i] & 0x7fffffff) % m] += vs[i];
#pragma omp for schedule(static)
        for (int64_t b = 0; b < m; b++) {
            float s = 0;
            for (int u = 0; u < T; u++) s += priv[m * u + b];
            bins[b] = s;
        }
    }
}
static void report(void) { print_f32s(bins, m); }
