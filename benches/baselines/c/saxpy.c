#include "common.h"
static int64_t n;
static float a, *x, *y, *z;
static void setup(void) {
    a = read_f32();
    x = read_value(" f32", 1, &n);
    y = read_value(" f32", 1, &n);
    z = malloc(n * sizeof(float));
}
static void kernel(void) {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; i++) z[i] = a * x[i] + y[i];
}
static void report(void) { print_f32s(z, n); }
