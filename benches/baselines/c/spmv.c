#include "common.h"
static int64_t n1, nnz, m;
static int64_t *offs;
static int32_t *cols;
static float *vals, *x, *y;
static void setup(void) {
    offs = read_value(" i64", 1, &n1);
    cols = read_value(" i32", 1, &nnz);
    vals = read_value(" f32", 1, &nnz);
    x = read_value(" f32", 1, &m);
    y = malloc(n1 * sizeof(float));
}
static void kernel(void) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n1 - 1; i++) {
        float acc = 0;
        for (int64_t k = offs[i]; k < offs[i + 1]; k++) acc += vals[k] * x[cols[k]];
        y[i] = acc;
    }
}
static void report(void) { print_f32s(y, n1 - 1); }
