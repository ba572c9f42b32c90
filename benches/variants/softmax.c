/* Baseline of softmax.arr: softmax of every row, rows in parallel. */
#include "common.h"
#include <math.h>
static int64_t d[2];
static float *x, *y;
static void setup(void) {
    x = read_value(" f32", 2, d);
    y = malloc(sizeof(float) * d[0] * d[1]);
}
static void kernel(void) {
    int64_t n = d[0], m = d[1];
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const float *row = x + i * m;
        float *out = y + i * m;
        float mx = -INFINITY;
        for (int64_t j = 0; j < m; j++) mx = fmaxf(mx, row[j]);
        float s = 0;
        for (int64_t j = 0; j < m; j++) {
            out[j] = expf(row[j] - mx);
            s += out[j];
        }
        for (int64_t j = 0; j < m; j++) out[j] /= s;
    }
}
static void report(void) { print_f32s(y, d[0] * d[1]); }
