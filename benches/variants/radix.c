/* Baseline of radix.arr: a stable partition by one bit, in two parallel
 * passes (count the zeros per thread's chunk, then scatter). */
#include "common.h"
static int64_t n;
static int32_t bit;
static uint32_t *xs, *out;
static void setup(void) {
    bit = read_i32();
    xs = read_value(" u32", 1, &n);
    out = malloc(sizeof(uint32_t) * (n ? n : 1));
}
static void kernel(void) {
    int64_t zeros[257];
#pragma omp parallel
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = n * t / T, hi = n * (t + 1) / T, z = 0;
        for (int64_t i = lo; i < hi; i++) z += ((xs[i] >> bit) & 1) == 0;
        zeros[t + 1] = z;
#pragma omp barrier
#pragma omp single
        {
            zeros[0] = 0;
            for (int u = 1; u <= T; u++) zeros[u] += zeros[u - 1];
        }
        int64_t zi = zeros[t], oi = zeros[T] + (lo - zeros[t]);
        for (int64_t i = lo; i < hi; i++) {
            uint32_t x = xs[i];
            if (((x >> bit) & 1) == 0) out[zi++] = x; else out[oi++] = x;
        }
    }
}
static void report(void) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += out[i];
    printf("%lld %.17g ", (long long)n, s);
}
