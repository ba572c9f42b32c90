#include "common.h"
static int64_t n;
static float *x, *y;
static double result;
static void setup(void) {
    x = read_value(" f32", 1, &n);
    y = read_value(" f32", 1, &n);
}
static void kernel(void) {
    double s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (int64_t i = 0; i < n; i++) s += (double)(x[i] * y[i]);
    result = s;
}
static void report(void) { printf("%.17g", result); }
