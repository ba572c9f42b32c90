/* Baseline of distmat.arr: the n by n distance matrix, rows in parallel. */
#include "common.h"
#include <math.h>
static int64_t n;
static float *xs, *ys, *d;
static void setup(void) {
    xs = read_value(" f32", 1, &n);
    ys = read_value(" f32", 1, NULL);
    d = malloc(sizeof(float) * (n ? n * n : 1));
}
static void kernel(void) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            float dx = xs[i] - xs[j], dy = ys[i] - ys[j];
            d[i * n + j] = sqrtf(dx * dx + dy * dy);
        }
}
static void report(void) { print_f32s(d, n * n); }
