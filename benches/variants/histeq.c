/* Baseline of histeq.arr: the histogram (private per thread), its
 * cumulative sum, and the lookup per pixel. */
#include "common.h"
static int64_t n;
static uint8_t *img, *out;
static int64_t h[256], cdf[256];
static void setup(void) {
    img = read_value("  u8", 1, &n);
    out = malloc(n ? n : 1);
}
static void kernel(void) {
    memset(h, 0, sizeof h);
#pragma omp parallel
    {
        int64_t local[256] = {0};
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < n; i++) local[img[i]]++;
#pragma omp critical
        for (int b = 0; b < 256; b++) h[b] += local[b];
    }
    int64_t c = 0, cmin = INT64_MAX;
    for (int b = 0; b < 256; b++) {
        c += h[b];
        cdf[b] = c;
        if (c > 0 && c < cmin) cmin = c;
    }
    int64_t den = n - cmin > 1 ? n - cmin : 1;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) out[i] = (uint8_t)((cdf[img[i]] - cmin) * 255 / den);
}
static void report(void) {
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++) s += out[i];
    printf("%lld %lld ", (long long)n, (long long)s);
}
