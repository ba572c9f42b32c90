/* Baseline of collatz.arr: Collatz step counts of 1..n. */
#include "common.h"
static int64_t n;
static int32_t *out;
static void setup(void) {
    n = read_i64();
    out = malloc(sizeof(int32_t) * (n ? n : 1));
}
static void kernel(void) {
#pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t x = 0; x < n; x++) {
        int64_t y = x + 1;
        int32_t s = 0;
        while (y != 1) {
            y = y % 2 == 0 ? y / 2 : 3 * y + 1;
            s++;
        }
        out[x] = s;
    }
}
static void report(void) { print_i32s(out, n); }
