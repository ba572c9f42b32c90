/* Shared part of the hand-written CUDA baselines (benches/gpu/README.md).
 *
 * The harness is the C baselines' (../c/common.h: read the inputs, one
 * warm-up, RUNS timed runs with omp_get_wtime, the result's signature):
 * setup() copies the inputs to the device and report() copies the results
 * back, neither timed, and kernel() launches the kernels and waits for them,
 * so a run's time is the GPU's work and the launches, as arrc's `-t` times a
 * GPU executable. Built with `nvcc -O3 -Xcompiler -fopenmp`.
 *
 * benches/gpu/check_cuda.py compiles the kernels alone with NVRTC (which
 * defines __CUDACC_RTC__) and assembles them with ptxas: the host code is
 * left out there. */
#pragma once

#ifdef __CUDACC_RTC__
/* NVRTC has no C library headers. */
typedef long long int64_t;
typedef int int32_t;
typedef unsigned uint32_t;
#endif

/* A block reduction's size: 256 threads, 8 warps. */
#define BLOCK 256

/* Warp then block sum of one value a thread; thread 0 gets the block's. */
template <typename T>
__device__ T block_sum(T v) {
    __shared__ T warps[BLOCK / 32];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / 32 ? warps[lane] : T(0);
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

#ifndef __CUDACC_RTC__
#include "../c/common.h"

static inline void cuda_check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "Error: %s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}
#define CK(call) cuda_check((call), #call)

template <typename T>
static T *dev_alloc(int64_t n) {
    void *p = NULL;
    CK(cudaMalloc(&p, (size_t)(n > 0 ? n : 1) * sizeof(T)));
    return (T *)p;
}

/* A host array of n elements copied to fresh device memory (the host copy
 * is freed). */
template <typename T>
static T *to_device(T *host, int64_t n) {
    T *d = dev_alloc<T>(n);
    CK(cudaMemcpy(d, host, (size_t)n * sizeof(T), cudaMemcpyHostToDevice));
    free(host);
    return d;
}

template <typename T>
static T *to_host(const T *dev, int64_t n) {
    T *h = (T *)malloc((size_t)(n > 0 ? n : 1) * sizeof(T));
    if (!h) die("out of memory");
    CK(cudaMemcpy(h, dev, (size_t)n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

/* Blocks for a grid-stride loop over n items: enough to fill the GPU
 * (8 blocks of BLOCK threads a multiprocessor), no more than the items. */
static inline int grid_for(int64_t n) {
    static int sms = 0;
    if (sms == 0) CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int64_t want = (n + BLOCK - 1) / BLOCK, most = (int64_t)sms * 8;
    return (int)(want < 1 ? 1 : want < most ? want : most);
}

/* Ends kernel(): the launches' errors, then the wait. */
static inline void finish(void) {
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
}
#endif
