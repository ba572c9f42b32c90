/* Baseline of stencil.arr: a periodic 5-point stencil, rows in parallel,
 * two buffers swapped between steps. */
#include "common.h"
static int64_t d[2];
static int32_t steps;
static float *g0, *a, *b, *res;
static void setup(void) {
    steps = read_i32();
    g0 = read_value(" f32", 2, d);
    a = malloc(sizeof(float) * d[0] * d[1]);
    b = malloc(sizeof(float) * d[0] * d[1]);
}
static void kernel(void) {
    int64_t n = d[0], m = d[1];
    const float *src = g0;
    float *dst = a;
    for (int32_t s = 0; s < steps; s++) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            const float *c = src + i * m;
            const float *u = src + ((i + n - 1) % n) * m;
            const float *dn = src + ((i + 1) % n) * m;
            float *o = dst + i * m;
            o[0] = 0.2f * (c[0] + u[0] + dn[0] + c[m - 1] + c[m > 1 ? 1 : 0]);
            for (int64_t j = 1; j < m - 1; j++)
                o[j] = 0.2f * (c[j] + u[j] + dn[j] + c[j - 1] + c[j + 1]);
            if (m > 1) o[m - 1] = 0.2f * (c[m - 1] + u[m - 1] + dn[m - 1] + c[m - 2] + c[0]);
        }
        src = dst;
        dst = dst == a ? b : a;
    }
    res = (float *)src;
}
static void report(void) { print_f32s(res, d[0] * d[1]); }
