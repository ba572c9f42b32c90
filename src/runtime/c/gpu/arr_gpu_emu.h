/* The GPU emulator's state, shared by its scheduler (arr_gpu_emu.c) and
 * the device functions that kernels call (arr_gpu_emu_device.c).
 *
 * A launch's blocks are claimed in increasing order by worker threads (the
 * host thread is worker 0). A worker runs one block at a time, each thread
 * of the block a fiber on a small stack of its own. A fiber runs
 * until it ends or calls something that needs the other threads: a barrier,
 * a warp operation, or a pause in a spin loop. When no fiber can run, the
 * scheduler completes the warp operations whose lanes have all arrived,
 * then the barrier when every thread has arrived, and reports what can
 * never complete (a barrier some threads skip, a warp operation a lane
 * misses) as an emulator error. */
#ifndef ARR_GPU_EMU_H
#define ARR_GPU_EMU_H

#include "arr_gpu_device.h"
#include "arr_gpu_internal.h"

#include <stdatomic.h>
#include <stdint.h>

enum { EMU_READY, EMU_BARRIER, EMU_WARP, EMU_YIELD, EMU_DONE };
enum { EMU_BAR_PLAIN, EMU_BAR_POPC, EMU_BAR_AND, EMU_BAR_OR };
enum {
    EMU_SHFL_DOWN, EMU_SHFL_UP, EMU_SHFL_BFLY, EMU_SHFL_IDX,
    EMU_VOTE_ALL, EMU_VOTE_ANY, EMU_VOTE_UNI, EMU_VOTE_BALLOT,
    EMU_WARP_SYNC
};

typedef struct {
    /* The stack pointer a suspended fiber resumes at (`arr_emu_switch`). */
    void *sp;
    int state;
    /* At a barrier: its kind and this thread's predicate; the result. */
    int bar_kind;
    int32_t bar_pred, bar_result;
    /* At a warp operation: which, the mask, this lane's operands; the
     * result. */
    int wop;
    uint32_t wmask, wval, wresult;
    int32_t wb, wc;
    /* A shuffle's source lane + 1 when it was outside the mask. */
    uint32_t wbad;
} emu_fiber;

/* Per byte of shared memory: who accessed it since the last barrier
 * (thread index + 1, 0: nobody), each with the length of its warp's sync
 * log at the time (see emu_warp_log). Entries of an older epoch are empty. */
typedef struct {
    uint32_t epoch;
    uint16_t writer, writer_w;
    uint16_t reader_a, reader_a_w;
    uint16_t reader_b, reader_b_w;
    uint16_t atomic, atomic_w;
} emu_shadow;

/* The masks of a warp's arr_emu_warp_sync calls since the last barrier. */
#define EMU_WARP_LOG 64
typedef struct {
    uint32_t masks[EMU_WARP_LOG];
    /* Past EMU_WARP_LOG: overflowed, every pair of the warp counts as
     * ordered (no false reports). */
    int count;
} emu_warp_log;

typedef struct emu_job {
    arr_emu_kernel_fn fn;
    void **params;
    const char *name;
    arr_gpu_dim3 grid, block;
    uint32_t shared_bytes;
    int64_t num_blocks;
    atomic_int_fast64_t next_block;
    /* The lowest block that hit an emulator error, and its message. */
    atomic_int_fast64_t error_block;
    char error_message[600];
} emu_job;

#define EMU_MAX_THREADS 1024

/* Set by the first scratch allocation (arr_emu_malloc): the heap's size is
 * fixed from then on. */
extern atomic_int emu_heap_touched;

typedef struct {
    /* The scheduler's stack pointer while a fiber runs. */
    void *sched_sp;
    emu_fiber *fibers;
    unsigned char *stacks;
    size_t stacks_bytes;
    /* Valgrind's names for the stacks (when built with its header). */
    unsigned stack_ids[EMU_MAX_THREADS];
    unsigned char *shared;
    emu_shadow *shadow;
    emu_warp_log *warp_logs;
    uint32_t epoch;
    /* The block running now. */
    const emu_job *job;
    uint32_t block[3];
    uint32_t num_threads;
    uint32_t current;
    int failed;
    char message[600];
} emu_worker;

/* The worker whose fiber calls (an emulator error outside a kernel). */
emu_worker *emu_self(void);
/* Suspends the calling fiber until the scheduler resumes it. */
void emu_suspend(emu_worker *w);
/* Stops the block with an emulator error (never returns to the fiber). */
void emu_block_error(emu_worker *w, const char *fmt, ...) ARR_GPU_PRINTF(2, 3) ARR_GPU_NORETURN;
/* Completes the warp operation of the lanes in `first`'s group. */
void emu_complete_warp_op(emu_worker *w, uint32_t first);

#endif
