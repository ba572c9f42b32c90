/* Baseline of filtsum.arr: the sum of x*z+y over the triples with x < y. */
#include "common.h"
static int64_t n;
static float *xs, *ys, *zs, total;
static void setup(void) {
    xs = read_value(" f32", 1, &n);
    ys = read_value(" f32", 1, NULL);
    zs = read_value(" f32", 1, NULL);
}
static void kernel(void) {
    float s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (xs[i] < ys[i]) s += xs[i] * zs[i] + ys[i];
    total = s;
}
static void report(void) { printf("%.9g ", total); }
