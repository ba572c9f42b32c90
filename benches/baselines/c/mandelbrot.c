/* Rows are handed out dynamically: points inside the set take all the
 * iterations, so rows cost unevenly. */
#include "common.h"
static int64_t n, m;
static int32_t limit, total;
static void setup(void) {
    n = read_i64();
    m = read_i64();
    limit = read_i32();
}
static void kernel(void) {
    int32_t t = 0;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : t)
    for (int64_t i = 0; i < n; i++) {
        float ci = -1.5f + 3.0f * (float)i / (float)n;
        for (int64_t j = 0; j < m; j++) {
            float cr = -2.25f + 3.0f * (float)j / (float)m;
            float zr = 0, zi = 0;
            int32_t k = 0;
            while (k < limit && zr * zr + zi * zi < 4.0f) {
                float nzr = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = nzr;
                k++;
            }
            t += k;
        }
    }
    total = t;
}
static void report(void) { printf("%d", total); }
