/* c = a b (row-major, n x K times K x m): blocks of 16 x 16 threads, each
 * a 64 x 64 tile of c, 4 x 4 outputs a thread in registers; k in steps of
 * 16 with both operands' slices staged in shared memory. */
#include "common.cuh"

#define S 16
#define T (4 * S)

__global__ void matmul(int64_t n, int64_t K, int64_t m, const float *a, const float *b, float *c) {
    __shared__ float as[S][T + 1]; /* as[k][i]: a's T rows, S values of k */
    __shared__ float bs[S][T + 1]; /* bs[k][j] */
    int tx = threadIdx.x, ty = threadIdx.y, t = ty * S + tx;
    int64_t i0 = blockIdx.y * (int64_t)T, j0 = blockIdx.x * (int64_t)T;
    float acc[4][4] = {};
    for (int64_t k0 = 0; k0 < K; k0 += S) {
        /* T * S elements of each operand, 256 threads: 4 each, coalesced
         * along k for a (rows of a) and along j for b. */
        for (int e = t; e < T * S; e += S * S) {
            int r = e / S, kk = e % S;
            int64_t i = i0 + r, k = k0 + kk;
            as[kk][r] = i < n && k < K ? a[i * K + k] : 0.0f;
            int kb = e / T, col = e % T;
            int64_t kb_ = k0 + kb, j = j0 + col;
            bs[kb][col] = kb_ < K && j < m ? b[kb_ * m + j] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < S; kk++) {
            float av[4], bv[4];
#pragma unroll
            for (int r = 0; r < 4; r++) av[r] = as[kk][ty + S * r];
#pragma unroll
            for (int q = 0; q < 4; q++) bv[q] = bs[kk][tx + S * q];
#pragma unroll
            for (int r = 0; r < 4; r++)
#pragma unroll
                for (int q = 0; q < 4; q++) acc[r][q] += av[r] * bv[q];
        }
        __syncthreads();
    }
    for (int r = 0; r < 4; r++)
        for (int q = 0; q < 4; q++) {
            int64_t i = i0 + ty + S * r, j = j0 + tx + S * q;
            if (i < n && j < m) c[i * m + j] = acc[r][q];
        }
}

#ifndef __CUDACC_RTC__
static int64_t d[2], e[2];
static float *a, *b, *c;
static void setup(void) {
    a = (float *)read_value(" f32", 2, d);
    b = (float *)read_value(" f32", 2, e);
    if (d[1] != e[0]) die("inner sizes differ");
    a = to_device(a, d[0] * d[1]);
    b = to_device(b, e[0] * e[1]);
    c = dev_alloc<float>(d[0] * e[1]);
}
static void kernel(void) {
    dim3 grid((unsigned)((e[1] + T - 1) / T), (unsigned)((d[0] + T - 1) / T)), block(S, S);
    if (d[0] > 0 && e[1] > 0) matmul<<<grid, block>>>(d[0], d[1], e[1], a, b, c);
    finish();
}
static void report(void) { print_f32s(to_host(c, d[0] * e[1]), d[0] * e[1]); }
#endif
