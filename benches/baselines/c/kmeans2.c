/* k-means step on 2-D points (structure of arrays): each thread labels its
 * points and sums them per centroid, then the sums are merged. */
#include "common.h"
static int64_t n, k;
static float *xs, *ys, *cxs, *cys, *ox, *oy;
static void setup(void) {
    xs = read_value(" f32", 1, &n);
    ys = read_value(" f32", 1, NULL);
    cxs = read_value(" f32", 1, &k);
    cys = read_value(" f32", 1, NULL);
    ox = malloc(k * sizeof(float));
    oy = malloc(k * sizeof(float));
}
static void kernel(void) {
    float *sx = calloc(k, sizeof(float)), *sy = calloc(k, sizeof(float));
    int64_t *cnt = calloc(k, sizeof(int64_t));
#pragma omp parallel
    {
        float *lx = calloc(k, sizeof(float)), *ly = calloc(k, sizeof(float));
        int64_t *lc = calloc(k, sizeof(int64_t));
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < n; i++) {
            float x = xs[i], y = ys[i], bd = __builtin_inff();
            int64_t best = 0;
            for (int64_t c = 0; c < k; c++) {
                float dx = x - cxs[c], dy = y - cys[c];
                float dist = dx * dx + dy * dy;
                if (dist < bd) { bd = dist; best = c; }
            }
            lc[best]++;
            lx[best] += x;
            ly[best] += y;
        }
#pragma omp critical
        for (int64_t c = 0; c < k; c++) { cnt[c] += lc[c]; sx[c] += lx[c]; sy[c] += ly[c]; }
        free(lx); free(ly); free(lc);
    }
    for (int64_t c = 0; c < k; c++) {
        ox[c] = cnt[c] ? sx[c] / (float)cnt[c] : cxs[c];
        oy[c] = cnt[c] ? sy[c] / (float)cnt[c] : cys[c];
    }
    free(sx); free(sy); free(cnt);
}
static void report(void) {
    print_f32s(ox, k);
    print_f32s(oy, k);
}
