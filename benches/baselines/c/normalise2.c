/* sum1 = sum x; sum2 = sum of the inclusive prefix sums; ys1 = x / sum1,
 * ys2 = x / sum2 (in f64, narrowed to f32). The first pass gives each
 * thread a block: its sum and the sum of its local prefix sums; the prefix
 * sums of the whole array are never stored. */
#include "common.h"
static int64_t n;
static float *x, *ys1, *ys2;
static void setup(void) {
    x = read_value(" f32", 1, &n);
    ys1 = malloc(n * sizeof(float));
    ys2 = malloc(n * sizeof(float));
}
static void kernel(void) {
    double sum1 = 0, sum2 = 0;
    int nt = omp_get_max_threads();
    double bsum[256], bpre[256];
    int64_t blen[256];
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = n * t / T, hi = n * (t + 1) / T;
        double s = 0, p = 0;
        for (int64_t i = lo; i < hi; i++) {
            s += (double)x[i];
            p += s;
        }
        bsum[t] = s;
        bpre[t] = p;
        blen[t] = hi - lo;
    }
    double carry = 0;
    for (int t = 0; t < nt; t++) {
        sum2 += bpre[t] + carry * (double)blen[t];
        carry += bsum[t];
    }
    sum1 = carry;
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; i++) {
        double v = (double)x[i];
        ys1[i] = (float)(v / sum1);
        ys2[i] = (float)(v / sum2);
    }
}
static void report(void) { print_f32s(ys1, n); print_f32s(ys2, n); }
