/* Baseline of vecmat.arr: v times A, row by row into the result (the
 * inner loop over columns vectorises), columns split between threads. */
#include "common.h"
static int64_t d[2];
static float *a, *v, *y;
static void setup(void) {
    a = read_value(" f32", 2, d);
    v = read_value(" f32", 1, NULL);
    y = malloc(sizeof(float) * d[1]);
}
static void kernel(void) {
    int64_t n = d[0], m = d[1];
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = m * t / T, hi = m * (t + 1) / T;
        for (int64_t j = lo; j < hi; j++) y[j] = 0;
        for (int64_t i = 0; i < n; i++) {
            const float *row = a + i * m;
            float vi = v[i];
            for (int64_t j = lo; j < hi; j++) y[j] += row[j] * vi;
        }
    }
}
static void report(void) { print_f32s(y, d[1]); }
