/* One softened all-pairs step: a thread a body, the other bodies in tiles
 * of BLOCK staged in shared memory. */
#include "common.cuh"

__global__ void nbody(int64_t n, const float *x, const float *y, const float *z, const float *ms,
                      float *nx, float *ny, float *nz) {
    __shared__ float4 tile[BLOCK];
    const float dt = 0.01f, eps = 0.0001f;
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    float xi = i < n ? x[i] : 0, yi = i < n ? y[i] : 0, zi = i < n ? z[i] : 0;
    float ax = 0, ay = 0, az = 0;
    for (int64_t j0 = 0; j0 < n; j0 += BLOCK) {
        int64_t j = j0 + threadIdx.x;
        tile[threadIdx.x] = j < n ? make_float4(x[j], y[j], z[j], ms[j]) : make_float4(0, 0, 0, 0);
        __syncthreads();
        int64_t count = n - j0 < BLOCK ? n - j0 : BLOCK;
        for (int q = 0; q < count; q++) {
            float4 o = tile[q];
            float dx = o.x - xi, dy = o.y - yi, dz = o.z - zi;
            float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps);
            float s = o.w * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    if (i < n) {
        nx[i] = xi + dt * dt * ax;
        ny[i] = yi + dt * dt * ay;
        nz[i] = zi + dt * dt * az;
    }
}

#ifndef __CUDACC_RTC__
static int64_t n;
static float *x, *y, *z, *ms, *nx, *ny, *nz;
static void setup(void) {
    x = to_device((float *)read_value(" f32", 1, &n), n);
    y = to_device((float *)read_value(" f32", 1, &n), n);
    z = to_device((float *)read_value(" f32", 1, &n), n);
    ms = to_device((float *)read_value(" f32", 1, &n), n);
    nx = dev_alloc<float>(n);
    ny = dev_alloc<float>(n);
    nz = dev_alloc<float>(n);
}
static void kernel(void) {
    if (n > 0) nbody<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK>>>(n, x, y, z, ms, nx, ny, nz);
    finish();
}
static void report(void) {
    float *hx = to_host(nx, n), *hy = to_host(ny, n), *hz = to_host(nz, n);
    double a = 0, b = 0, c = 0;
    for (int64_t i = 0; i < n; i++) { a += hx[i]; b += hy[i]; c += hz[i]; }
    printf("%.17g %.17g %.17g", a, b, c);
}
#endif
