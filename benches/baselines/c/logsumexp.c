/* Stable log-sum-exp of f64 values: a parallel maximum, then a parallel
 * sum of exp (x - max) with glibc's exp (its vector variants in libmvec
 * are declared to GCC only under -ffast-math). */
#include <math.h>
#include "common.h"
static int64_t n;
static double *x, result;
static void setup(void) { x = read_value(" f64", 1, &n); }
static void kernel(void) {
    double m = -__builtin_inf();
#pragma omp parallel for simd reduction(max : m) schedule(static)
    for (int64_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    double s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (int64_t i = 0; i < n; i++) s += exp(x[i] - m);
    result = m + log(s);
}
static void report(void) { printf("%.17g", result); }
