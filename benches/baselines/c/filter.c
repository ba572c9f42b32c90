/* Order-keeping filter in two passes over one block per thread: count the
 * kept elements, then copy them to the block's offset. */
#include "common.h"
static int64_t n, kept;
static float *x, *out;
static void setup(void) {
    x = read_value(" f32", 1, &n);
    out = malloc((n ? n : 1) * sizeof(float));
}
static void kernel(void) {
    int64_t cnt[257] = {0};
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = n * t / T, hi = n * (t + 1) / T, c = 0;
        for (int64_t i = lo; i < hi; i++) c += x[i] > 0.5f;
        cnt[t + 1] = c;
#pragma omp barrier
        int64_t off = 0;
        for (int u = 0; u <= t; u++) off += cnt[u];
        for (int64_t i = lo; i < hi; i++)
            if (x[i] > 0.5f) out[off++] = x[i];
#pragma omp barrier
#pragma omp single
        {
            kept = 0;
            for (int u = 0; u <= T; u++) kept += cnt[u];
        }
    }
}
static void report(void) { print_f32s(out, kept); }
