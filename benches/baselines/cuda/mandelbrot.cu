/* Escape counts of an n x m grid, summed: a thread a point (grid-stride),
 * block sums, one atomic add a block. */
#include "common.cuh"

__global__ void mandelbrot(int64_t n, int64_t m, int32_t limit, int32_t *out) {
    int32_t t = 0;
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n * m;
         p += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = p / m, j = p % m;
        float ci = -1.5f + 3.0f * (float)i / (float)n;
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
    t = block_sum(t);
    if (threadIdx.x == 0) atomicAdd(out, t);
}

#ifndef __CUDACC_RTC__
static int64_t n, m;
static int32_t limit, *out;
static void setup(void) {
    n = read_i64();
    m = read_i64();
    limit = read_i32();
    out = dev_alloc<int32_t>(1);
}
static void kernel(void) {
    CK(cudaMemsetAsync(out, 0, sizeof(int32_t)));
    mandelbrot<<<grid_for(n * m), BLOCK>>>(n, m, limit, out);
    finish();
}
static void report(void) { printf("%d", *to_host(out, 1)); }
#endif
