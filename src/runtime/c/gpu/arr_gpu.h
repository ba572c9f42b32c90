/* The host side of a GPU program (`--target nvptx` and `--target
 * nvptx-emu`): what the generated host code calls to move data to and from
 * the device, launch kernels and collect their run-time errors. Two
 * implementations serve it: arr_gpu_cuda.c (the CUDA driver, opened with
 * dlopen at run time) and arr_gpu_emu.c (the GPU emulator, which runs the
 * kernels compiled for x86-64). Both link with arr_gpu_common.c and
 * arr_gpu_pool.c, and with the CPU runtime (arr_runtime.c: `main`, value
 * input and output, `arr_fail_*`).
 *
 * Kernel ABI (both targets). Every kernel's first two parameters are
 *   arr_gpu_error *err   the device's error record (global memory)
 *   uint64_t seq         the launch's sequence number (1, 2, ...)
 * which `arr_gpu_launch` supplies; the generated code passes only the
 * parameters after them. On nvptx a kernel is an LLVM function named in
 * `nvvm.annotations` with those parameters; on the emulator it is a C-ABI
 * function `void NAME(void **params)`, where params[i] points to parameter
 * i (params[0] to the error pointer, params[1] to seq), exactly the array
 * cuLaunchKernel takes. The device-side calls are in arr_gpu_device.h. */
#ifndef ARR_GPU_H
#define ARR_GPU_H

#include "arr_runtime.h"

#include <stdint.h>

/* A device address: CUdeviceptr on nvptx, a host address on the emulator. */
typedef uint64_t arr_dptr;

/* ---------------------------------------------------------------- errors
 * A run-time error inside a kernel is recorded here, in device memory, by
 * `arr_gpu_fail` (nvptx, arr_gpu_device.ll) or `arr_emu_fail` (emulator):
 * under the lock, the record keeps the error with the smallest (seq, key),
 * where `key` is the failing iteration's position in sequential order (the
 * generator numbers iterations as a sequential run meets them). So the
 * error printed is the one a sequential run, and the CPU binary, meets
 * first. A thread that fails skips the rest of its work but still reaches
 * its block's barriers. A kernel may return at once when `err->seq` is not
 * 0 (an earlier launch failed; its results will never be used). */
typedef struct {
    uint32_t lock;    /* 0 free, 1 held (a spin lock on the device) */
    int32_t kind;     /* ARR_GPU_ERR_* */
    int32_t loc;      /* index into arr_gpu_program.locations */
    uint32_t unused;
    uint64_t seq;     /* 0: no error */
    uint64_t key;
    int64_t args[4];
} arr_gpu_error;

_Static_assert(sizeof(arr_gpu_error) == 64, "the device code relies on this layout");

/* The CPU runtime's error functions, with the arguments they take from
 * `args` in order. */
enum {
    ARR_GPU_ERR_BOUNDS = 1,          /* arr_fail_bounds(index, length) */
    ARR_GPU_ERR_SLICE = 2,           /* arr_fail_slice(start, end, stride, length) */
    ARR_GPU_ERR_SIZE_MISMATCH = 3,   /* arr_fail_size_mismatch(expected, found) */
    ARR_GPU_ERR_DIVISION_BY_ZERO = 4,/* arr_fail_division_by_zero() */
    ARR_GPU_ERR_ASSERT = 5,          /* arr_fail_assert() */
    ARR_GPU_ERR_NEGATIVE_SIZE = 6,   /* arr_fail_negative_size(size) */
    /* A kernel's scratch array not allocated (device heap full): args[0]
     * the bytes asked for; `loc` unused. */
    ARR_GPU_ERR_HEAP = 7,
    ARR_GPU_ERR_RANGE = 8,           /* arr_fail_range(start, second, end, form) */
    ARR_GPU_ERR_NEGATIVE_EXPONENT = 9, /* arr_fail_negative_exponent() */
    /* arr_fail_assert_condition(locations[condition]) */
    ARR_GPU_ERR_ASSERT_CONDITION = 10
};

/* ---------------------------------------------------------------- program */

/* An emulated kernel: see the kernel ABI above. */
typedef void (*arr_emu_kernel_fn)(void **params);

/* CUDA passes at most 4 KiB of kernel parameters; each of ours takes at
 * most 8 bytes, and `err` and `seq` come first. A kernel with many free
 * variables (sizes of unoptimised code) can exceed any smaller limit. */
#define ARR_GPU_MAX_PARAMS (4096 / 8 - 2)

typedef struct {
    const char *name;
    /* Parameters after `err` and `seq`. */
    int num_params;
    /* The emulator's compiled kernel; NULL in an nvptx binary. */
    arr_emu_kernel_fn emu;
} arr_gpu_kernel_def;

typedef struct {
    /* nvptx: the device module's PTX text (NUL-terminated); the emulator
     * ignores it. */
    const char *ptx;
    int num_kernels;
    const arr_gpu_kernel_def *kernels;
    /* "FILE:LINE:COL" of every run-time check in device code. */
    int num_locations;
    const char *const *locations;
} arr_gpu_program;

/* Opens the device and loads the program's kernels (nvptx: the PTX, JIT-
 * compiled by the driver). With no driver, no device, a driver too old for
 * the PTX or a GPU too old for its target it prints one line naming what is
 * missing and exits 3. Later calls do nothing. Everything is released at
 * exit. */
void arr_gpu_init(const arr_gpu_program *program);

/* ---------------------------------------------------------------- memory
 * From a pool of freed blocks bucketed by size (arr_gpu_pool.h), so a loop
 * that allocates per iteration does not reach the driver each time. Running
 * out of device memory is a run-time error (exit 1). */
arr_dptr arr_gpu_alloc(int64_t bytes);
void arr_gpu_free(arr_dptr ptr);
void arr_gpu_copy_in(arr_dptr dst, const void *src, int64_t bytes);
/* Waits for the kernels before it; reports their error first, if any. */
void arr_gpu_copy_out(void *dst, arr_dptr src, int64_t bytes);
void arr_gpu_copy_within(arr_dptr dst, arr_dptr src, int64_t bytes);
/* Sets `count` 32-bit words at `dst` to `value` (look-back flags, bins). */
void arr_gpu_fill32(arr_dptr dst, uint32_t value, int64_t count);

/* What generated entry code calls for an array argument, an array result
 * and at its end for each argument. In an executable an argument is
 * copied to fresh device memory and freed at the end, a result copied out
 * to `arr_alloc` memory (its device memory freed). In a library
 * (`arr_gpu_resident` set for the call, arr_gpu_library.c) arrays live on
 * the device: arguments and results are device addresses, unchanged. */
extern _Thread_local int arr_gpu_resident;
arr_dptr arr_gpu_entry_in(const void *data, int64_t bytes);
void *arr_gpu_entry_out(arr_dptr src, int64_t bytes);
void arr_gpu_entry_release(arr_dptr arg);
/* Clears the device's error record after a library's call failed, so that
 * the next call's kernels run (an executable stops at the first error). */
void arr_gpu_reset_error(void);
/* Device memory without the exit of `arr_gpu_alloc`: 0, or 1 when there
 * is none (or the GPU is not initialised). */
int arr_gpu_try_alloc(int64_t bytes, arr_dptr *out);

/* An entry's array argument copied to fresh device memory (rank >= 1). */
arr_dptr arr_gpu_arg_in(const arr_value *arg);
/* An entry's array result copied from device memory `src` into
 * `result->data` (allocated with arr_alloc), given its type and shape;
 * `src` stays the caller's. */
void arr_gpu_result_out(arr_value *result, arr_dptr src);

/* ---------------------------------------------------------------- kernels */

typedef struct {
    uint32_t x, y, z;
} arr_gpu_dim3;

typedef struct {
    arr_gpu_dim3 grid, block;
    /* Dynamic shared memory per block, in bytes. */
    uint32_t shared_bytes;
} arr_gpu_config;

/* The shared memory a block may use (bytes), as on every GPU since sm_70
 * without opting in. */
#define ARR_GPU_SHARED_LIMIT 49152

/* A one-dimensional launch for `work` independent items of `kernel`: the
 * block size that maximises occupancy (a power of two, a multiple of the
 * warp size, at most 1024), grid-stride loops over no more blocks than are
 * resident at once. Shared memory per block: `shared_per_block +
 * shared_per_thread * block`. `ARRC_GPU_SHRINK=1` in the environment makes
 * blocks of 64 threads and at most 3 blocks, so that tiny inputs take the
 * multi-block, look-back and atomic paths. */
arr_gpu_config arr_gpu_plan(int kernel, int64_t work, uint32_t shared_per_block,
                            uint32_t shared_per_thread);
/* Launches kernel `kernel` (index into the program's kernels) with its
 * parameters after `err` and `seq` (`args[i]` points to parameter i).
 * Asynchronous on a GPU: errors appear at the next copy out or sync. */
void arr_gpu_launch(int kernel, const arr_gpu_config *config, void **args);
/* For generated host code, which passes only integers and pointers:
 * the number of threads (grid times block) arr_gpu_plan(kernel, work, 0, 0)
 * gives, a launch with that plan, and a launch of one thread. */
int64_t arr_gpu_threads(int kernel, int64_t work);
void arr_gpu_launch_work(int kernel, int64_t work, void **args);
void arr_gpu_launch_one(int kernel, void **args);
/* A launch with `per_thread` bytes of shared memory a thread (a block
 * reduction's tree), and its number of blocks. */
int64_t arr_gpu_blocks_shared(int kernel, int64_t work, int64_t per_thread);
void arr_gpu_launch_shared(int kernel, int64_t work, int64_t per_thread, void **args);
/* A single-pass scan by decoupled look-back, `shared` bytes of shared
 * memory a block plus `per_thread` a thread (its staged input tiles): its
 * threads take tiles of `block * per` consecutive items, per = ceil(work /
 * threads) between 1 and `items`; the number of tiles, and of threads'
 * chunks that hold items (ceil(work / per); 1 with no work, the chunk that
 * holds the reductions' neutral elements). */
int64_t arr_gpu_lookback_tiles(int kernel, int64_t work, int64_t shared, int64_t per_thread,
                               int64_t items);
int64_t arr_gpu_lookback_chunks(int kernel, int64_t work, int64_t shared, int64_t per_thread,
                                int64_t items);
/* A launch with `shared` bytes of shared memory a block plus `per_thread`
 * a thread (a look-back scan, private histogram bins). */
void arr_gpu_launch_shared_block(int kernel, int64_t work, int64_t shared, int64_t per_thread,
                                 void **args);
/* Tiled kernels (matmul-like nests): the side S of their square blocks
 * of S x S threads (16; 4 under `ARRC_GPU_SHRINK=1`, so that tiny inputs
 * take several tiles), and a launch of `tiles` tiles of work on blocks of
 * `side` x `side` threads with `shared` bytes of shared memory, the
 * kernel looping over the tiles when the grid has fewer blocks. */
int64_t arr_gpu_tile_side(void);
/* Chunked reductions of arrays: the partial rows a thread of a combining
 * level combines (64; 4 under `ARRC_GPU_SHRINK=1`, so that tiny inputs
 * take three levels or more). */
int64_t arr_gpu_fan_in(void);
void arr_gpu_launch_tiles(int kernel, int64_t tiles, int64_t side, int64_t shared, void **args);
/* Waits for every launch; prints the first error in sequential order and
 * exits 1 if one failed. Host code calls it before reporting an error of
 * its own (a kernel launched before it may have failed first) and at the
 * end of an entry point. */
void arr_gpu_sync(void);

/* Raises the device heap that kernels' scratch arrays come from
 * (`malloc`; 8 MiB unless raised) to at least `bytes`, at most a quarter of
 * the device's memory. The driver allows it only before the first kernel
 * that allocates; a raise it refuses is ignored, and a kernel whose
 * allocation fails reports it (ARR_GPU_ERR_HEAP). The emulator enforces
 * the same limit on its scratch arrays. */
void arr_gpu_reserve_heap(int64_t bytes);
/* Per-nest scratch from the pool: every later launch of `kernel` (until
 * the next call) gets a device buffer of `per_thread` bytes for each of
 * its threads (grid times block) in its fourth parameter (after width,
 * out and partials), taken from the pool before the launch and returned
 * after it; the kernel cuts it by its global thread id. 0: none (null). */
void arr_gpu_scratch(int kernel, int64_t per_thread);
/* The device heap's size in bytes. */
extern int64_t arr_gpu_heap_bytes;

/* Launches so far (tests: data stay on the device between kernels). */
extern int64_t arr_gpu_launches;
/* Device allocations that reached the driver (tests: the pool works). */
extern int64_t arr_gpu_driver_allocs;
/* Copies between host and device memory or within the device (each
 * `arr_gpu_copy_*` call; tests: host-only arrays stay in host memory). */
extern int64_t arr_gpu_copies;

#endif
