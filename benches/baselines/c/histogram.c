#include "common.h"
static int64_t n;
static int32_t *x, h[256];
static void setup(void) { x = read_value(" i32", 1, &n); }
static void kernel(void) {
    memset(h, 0, sizeof h);
#pragma omp parallel
    {
        int32_t local[256] = {0};
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < n; i++) local[x[i] & 255]++;
#pragma omp critical
        for (int b = 0; b < 256; b++) h[b] += local[b];
    }
}
static void report(void) { print_i32s(h, 256); }
