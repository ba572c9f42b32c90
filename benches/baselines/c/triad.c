#include "common.h"
static int64_t n;
static float s, *b, *c, *a;
static void setup(void) {
    s = read_f32();
    b = read_value(" f32", 1, &n);
    c = read_value(" f32", 1, &n);
    a = malloc(n * sizeof(float));
}
static void kernel(void) {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
static void report(void) { print_f32s(a, n); }
