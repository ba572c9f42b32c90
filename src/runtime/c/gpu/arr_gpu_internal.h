/* What the two GPU runtimes (arr_gpu_cuda.c, arr_gpu_emu.c) share with
 * arr_gpu_common.c: each backend defines the `arr_gpu_be_*` functions, the
 * common part owns the memory pool, launch planning and error reports. */
#ifndef ARR_GPU_INTERNAL_H
#define ARR_GPU_INTERNAL_H

#include "arr_gpu.h"
#include "arr_gpu_pool.h"

#if defined(__GNUC__)
#define ARR_GPU_NORETURN __attribute__((noreturn))
#define ARR_GPU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ARR_GPU_NORETURN
#define ARR_GPU_PRINTF(f, a)
#endif

/* The program given to arr_gpu_init (NULL before). */
extern const arr_gpu_program *arr_gpu_prog;
/* The device memory pool, set up by the backend's init. */
extern arr_pool arr_gpu_mem;
/* Sequence number of the last launch (0: none yet). */
extern uint64_t arr_gpu_seq;

/* Backend: device memory for the pool (0 on success). */
int arr_gpu_be_alloc(void *ctx, uint64_t bytes, uint64_t *out);
void arr_gpu_be_free(void *ctx, uint64_t ptr);
/* Backend: the block size that maximises occupancy for `kernel` with that
 * shared memory, and how many such blocks the device holds at once. */
void arr_gpu_be_occupancy(int kernel, uint32_t shared_per_block, uint32_t shared_per_thread,
                          int *block, int *max_blocks);

/* Set by a GPU library (arr_gpu_library.c): takes the whole "Error: ..."
 * line of what would end an executable (below) and never returns. */
extern void (*arr_gpu_fatal_hook)(const char *message);
/* Prints "Error: MESSAGE" and exits 3 (no usable GPU or driver). */
void arr_gpu_exit_no_device(const char *fmt, ...) ARR_GPU_PRINTF(1, 2) ARR_GPU_NORETURN;
/* Prints "internal compiler error: MESSAGE" and exits 70 (in a library
 * both go to `arr_gpu_fatal_hook` instead): the generated
 * code broke a rule of the device ABI (a bug in arrc, not in the program). */
void arr_gpu_exit_internal(const char *fmt, ...) ARR_GPU_PRINTF(1, 2) ARR_GPU_NORETURN;
/* Reports the error in `rec` (seq != 0) as the CPU binary would, exit 1. */
void arr_gpu_report(const arr_gpu_error *rec) ARR_GPU_NORETURN;
/* With ARRC_GPU_COUNT set, prints `gpu: launches=L copies=C` on stderr
 * at exit (arr_gpu_init calls it once). */
void arr_gpu_trace_counts(void);
/* Whether ARRC_GPU_SHRINK asks for tiny launches. */
int arr_gpu_shrink(void);
/* The bytes of `v`'s elements (its scalar's for rank 0). */
int64_t arr_gpu_value_bytes(const arr_value *v);
/* The kernel at `index`, checked. */
const arr_gpu_kernel_def *arr_gpu_kernel(int index);

#endif
