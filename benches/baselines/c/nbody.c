/* One softened all-pairs step; the inner sums may be vectorised (omp simd
 * reduction: reassociated, as a parallel reduce may be). */
#include <math.h>
#include "common.h"
static int64_t n;
static float *x, *y, *z, *ms, *nx, *ny, *nz;
static void setup(void) {
    x = read_value(" f32", 1, &n);
    y = read_value(" f32", 1, &n);
    z = read_value(" f32", 1, &n);
    ms = read_value(" f32", 1, &n);
    nx = malloc(n * sizeof(float));
    ny = malloc(n * sizeof(float));
    nz = malloc(n * sizeof(float));
}
static void kernel(void) {
    const float dt = 0.01f, eps = 0.0001f;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        float xi = x[i], yi = y[i], zi = z[i], ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
        for (int64_t j = 0; j < n; j++) {
            float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            float d2 = dx * dx + dy * dy + dz * dz + eps;
            float inv = 1.0f / sqrtf(d2);
            float s = ms[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        nx[i] = xi + dt * dt * ax;
        ny[i] = yi + dt * dt * ay;
        nz[i] = zi + dt * dt * az;
    }
}
static void report(void) {
    double a = 0, b = 0, c = 0;
    for (int64_t i = 0; i < n; i++) { a += nx[i]; b += ny[i]; c += nz[i]; }
    printf("%.17g %.17g %.17g", a, b, c);
}
