/* Inclusive scan with wrap-around (unsigned arithmetic), in two passes over
 * one block per thread: block totals, then each block's scan from its
 * offset. */
#include "common.h"
static int64_t n;
static int32_t *x, *y;
static void setup(void) {
    x = read_value(" i32", 1, &n);
    y = malloc(n * sizeof(int32_t));
}
static void kernel(void) {
    uint32_t tot[257] = {0};
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = n * t / T, hi = n * (t + 1) / T;
        const uint32_t *xs = (const uint32_t *)x;
        uint32_t *ys = (uint32_t *)y;
        uint32_t s = 0;
        for (int64_t i = lo; i < hi; i++) s += xs[i];
        tot[t + 1] = s;
#pragma omp barrier
        uint32_t off = 0;
        for (int u = 0; u <= t; u++) off += tot[u];
        for (int64_t i = lo; i < hi; i++) {
            off += xs[i];
            ys[i] = off;
        }
    }
}
static void report(void) { print_i32s(y, n); }
