/* A stand-in for libcuda.so.1, for testing the nvptx host runtime
 * (arr_gpu_cuda.c) on machines without a GPU: loaded through
 * ARRC_CUDA_LIBRARY. FAKE_CUDA in the environment picks a failure:
 * `nodevice` (cuInit finds no GPU), `olddriver` (CUDA 11.2), `oldgpu`
 * (compute capability 6.0), `badptx` (the JIT rejects the module); anything
 * else works. Device memory is host memory. Launches of the kernels named
 * `map` and `gather` (tests/gpu/kernels.c) are carried out on the host with
 * their parameters as the runtime passes them, so the test sees the
 * parameter layout, the error record and the pool at work; other kernels do
 * nothing. Built with -DFAKE_CUDA_OLD it lacks cuOccupancyMaxPotentialBlockSize,
 * like a driver from before CUDA 6.5. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static const char *mode(void) {
    const char *m = getenv("FAKE_CUDA");
    return m != NULL ? m : "";
}

CUresult cuInit(unsigned flags) {
    (void)flags;
    return strcmp(mode(), "nodevice") == 0 ? 100 : 0;
}

CUresult cuDriverGetVersion(int *v) {
    *v = strcmp(mode(), "olddriver") == 0 ? 11020 : 12090;
    return 0;
}

CUresult cuDeviceGetCount(int *n) {
    *n = 1;
    return 0;
}

CUresult cuDeviceGet(int *d, int i) {
    *d = i;
    return 0;
}

CUresult cuDeviceGetName(char *name, int len, int d) {
    (void)d;
    strncpy(name, "Fake GPU", (size_t)len);
    return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
    int old = strcmp(mode(), "oldgpu") == 0;
    (void)d;
    *v = attr == 75 ? (old ? 6 : 9) : 0;
    return attr == 75 || attr == 76 ? 0 : 1;
}

static int context;
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) {
    (void)d;
    *ctx = &context;
    return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int d) {
    (void)d;
    return 0;
}
CUresult cuCtxSetCurrent(void *ctx) { return ctx == &context ? 0 : 1; }
CUresult cuCtxSynchronize(void) { return 0; }

static int module;
CUresult cuModuleLoadDataEx(void **m, const void *ptx, unsigned n, int *options, void **values) {
    (void)ptx;
    if (strcmp(mode(), "badptx") == 0) {
        if (n == 2 && options[0] == 5 && options[1] == 6 && (uintptr_t)values[1] > 40) {
            strcpy(values[0], "ptxas fatal   : bad PTX, line 3\nmore");
        }
        return 218;
    }
    *m = &module;
    return 0;
}
CUresult cuModuleUnload(void *m) { return m == &module ? 0 : 1; }

static char names[64][64];
static int num_names;
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
    if (m != &module || num_names == 64) {
        return 1;
    }
    strncpy(names[num_names], name, 63);
    *f = names[num_names++];
    return 0;
}

#define PTR(T, i) ((T *)(uintptr_t) * (const CUdeviceptr *)params[i])
#define I64(i) (*(const int64_t *)params[i])

/* The error record's layout (arr_gpu_error in arr_gpu.h). */
typedef struct {
    uint32_t lock;
    int32_t kind, loc;
    uint32_t unused;
    uint64_t seq, key;
    int64_t args[4];
} record;

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
    record *err = PTR(record, 0);
    uint64_t seq = *(const uint64_t *)params[1];
    int64_t i;
    (void)shared;
    if (gx == 0 || gy != 1 || gz != 1 || bx == 0 || by != 1 || bz != 1 || stream != NULL ||
        extra != NULL || err == NULL || seq == 0) {
        return 1;
    }
    if (strcmp(f, "map") == 0) {
        const float *xs = PTR(const float, 2);
        float *ys = PTR(float, 3);
        for (i = 0; i < I64(4); i++) {
            ys[i] = xs[i] * 2.0f + 1.0f;
        }
    } else if (strcmp(f, "gather") == 0) {
        const int32_t *xs = PTR(const int32_t, 2);
        const int64_t *is = PTR(const int64_t, 3);
        int32_t *ys = PTR(int32_t, 4);
        for (i = 0; i < I64(5); i++) {
            int64_t j = is[i];
            if (j < 0 || j >= I64(6)) {
                if (err->seq == 0) {
                    err->seq = seq;
                    err->key = (uint64_t)i;
                    err->kind = 1;
                    err->loc = 0;
                    err->args[0] = j;
                    err->args[1] = I64(6);
                }
                continue;
            }
            ys[i] = xs[j];
        }
    }
    return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    void *m = malloc(n);
    if (m == NULL) {
        return 2;
    }
    *p = (CUdeviceptr)(uintptr_t)m;
    return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
    free((void *)(uintptr_t)p);
    return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) {
    memcpy((void *)(uintptr_t)d, s, n);
    return 0;
}
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) {
    memcpy(d, (const void *)(uintptr_t)s, n);
    return 0;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) {
    memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
    return 0;
}
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n) {
    uint32_t *p = (uint32_t *)(uintptr_t)d;
    size_t i;
    for (i = 0; i < n; i++) {
        p[i] = v;
    }
    return 0;
}
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
    *free_bytes = *total = (size_t)1 << 30;
    return 0;
}

CUresult cuGetErrorName(CUresult r, const char **s) {
    *s = r == 100 ? "CUDA_ERROR_NO_DEVICE" : r == 218 ? "CUDA_ERROR_INVALID_PTX" : "CUDA_ERROR_X";
    return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
    *s = r == 100 ? "no CUDA-capable device is detected" : "fake error";
    return 0;
}

#ifndef FAKE_CUDA_OLD
CUresult cuOccupancyMaxPotentialBlockSize(int *grid, int *block, void *f, size_t (*shared)(int),
                                          size_t bytes, int limit) {
    (void)f;
    (void)shared;
    (void)bytes;
    *grid = 4;
    *block = limit < 256 ? limit : 256;
    return 0;
}
#endif
