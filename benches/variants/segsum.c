/* Baseline of segsum.arr: a segmented inclusive sum in two parallel passes
 * (each thread scans its chunk, then adds the carry of the chunks before
 * it up to its first segment start). */
#include "common.h"
static int64_t n;
static unsigned char *flags;
static float *vals, *out;
static void setup(void) {
    flags = read_value("bool", 1, &n);
    vals = read_value(" f32", 1, NULL);
    out = malloc(sizeof(float) * (n ? n : 1));
}
static void kernel(void) {
    int nt = omp_get_max_threads();
    float carry_sum[256];
    unsigned char carry_flag[256];
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = n * t / T, hi = n * (t + 1) / T;
        float s = 0;
        unsigned char f = 0;
        for (int64_t i = lo; i < hi; i++) {
            if (flags[i]) { s = vals[i]; f = 1; } else s += vals[i];
            out[i] = s;
        }
        carry_sum[t] = s;
        carry_flag[t] = f;
#pragma omp barrier
        float c = 0;
        for (int u = 0; u < t; u++) c = carry_flag[u] ? carry_sum[u] : c + carry_sum[u];
        if (t > 0 && c != 0)
            for (int64_t i = lo; i < hi && !flags[i]; i++) out[i] += c;
    }
}
static void report(void) { print_f32s(out, n); }
