/* The GPU emulator's host side (`--target nvptx-emu`): the arr_gpu.h
 * interface served with host memory, and the grid scheduler that runs a
 * launch's blocks on worker threads and each block's threads as fibers
 * (see arr_gpu_emu.h). Launches are synchronous. */
#define _DEFAULT_SOURCE
#include "arr_gpu_emu.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define EMU_VALGRIND 1
#endif
#endif

/* A fiber's stack and the guard page below it. */
#define EMU_STACK ((size_t)256 << 10)
#define EMU_GUARD ((size_t)4 << 10)

static _Thread_local emu_worker *tls_worker;

static arr_gpu_error *emu_error_record;
static int emu_num_workers;
static emu_worker *emu_workers;
static pthread_t *emu_threads;
static pthread_mutex_t emu_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t emu_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t emu_done = PTHREAD_COND_INITIALIZER;
static uint64_t emu_generation;
static int emu_busy, emu_quit;
static emu_job *emu_current;

emu_worker *emu_self(void) {
    if (tls_worker == NULL || tls_worker->job == NULL) {
        arr_gpu_exit_internal("GPU emulator: a device function was called outside a kernel");
    }
    return tls_worker;
}

/* Switching fibers: saves the callee-saved registers of the x86-64 System V
 * ABI on the running stack, stores its pointer in *save and continues on
 * the stack `load` (saved the same way, or made by `emu_fiber_stack`).
 * Hundreds of thousands of switches a second (every thread of a block at
 * every barrier): swapcontext costs two system calls each, for the signal
 * mask, which no fiber changes. The x87 and SSE control words are not
 * saved: no fiber changes them either. */
void arr_emu_switch(void **save, void *load);
__asm__(".text\n"
        ".p2align 4\n"
        ".globl arr_emu_switch\n"
        ".hidden arr_emu_switch\n"
        ".type arr_emu_switch, @function\n"
        "arr_emu_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size arr_emu_switch, .-arr_emu_switch\n");

void emu_suspend(emu_worker *w) {
    emu_fiber *f = &w->fibers[w->current];
    arr_emu_switch(&f->sp, w->sched_sp);
}

static void emu_vfail(emu_worker *w, const char *fmt, va_list ap) {
    int n = snprintf(w->message, sizeof w->message, "GPU emulator: kernel %s, block (%" PRIu32
                     ",%" PRIu32 ",%" PRIu32 "): ", w->job->name, w->block[0], w->block[1],
                     w->block[2]);
    vsnprintf(w->message + n, sizeof w->message - (size_t)n, fmt, ap);
    w->failed = 1;
}

/* In the scheduler: the block stops with an emulator error. */
static void emu_fail_block(emu_worker *w, const char *fmt, ...) ARR_GPU_PRINTF(2, 3);
static void emu_fail_block(emu_worker *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emu_vfail(w, fmt, ap);
    va_end(ap);
}

void emu_block_error(emu_worker *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emu_vfail(w, fmt, ap);
    va_end(ap);
    /* The block is abandoned: the fiber is never resumed. */
    emu_suspend(w);
    abort();
}

/* ---------------------------------------------------------------- workers */

static int emu_worker_setup(emu_worker *w) {
    size_t i, slot = EMU_STACK + EMU_GUARD;
    memset(w, 0, sizeof *w);
    w->stacks_bytes = slot * EMU_MAX_THREADS;
    w->stacks = mmap(NULL, w->stacks_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (w->stacks == MAP_FAILED) {
        w->stacks = NULL;
        return -1;
    }
    for (i = 0; i < EMU_MAX_THREADS; i++) {
        /* A stack overflow hits the guard page instead of the next stack. */
        mprotect(w->stacks + i * slot, EMU_GUARD, PROT_NONE);
#ifdef EMU_VALGRIND
        w->stack_ids[i] = VALGRIND_STACK_REGISTER(w->stacks + i * slot + EMU_GUARD,
                                                  w->stacks + (i + 1) * slot);
#endif
    }
    w->fibers = calloc(EMU_MAX_THREADS, sizeof *w->fibers);
    w->shared = malloc(ARR_GPU_SHARED_LIMIT);
    w->shadow = calloc(ARR_GPU_SHARED_LIMIT, sizeof *w->shadow);
    w->warp_logs = calloc(EMU_MAX_THREADS / 32, sizeof *w->warp_logs);
    return w->fibers != NULL && w->shared != NULL && w->shadow != NULL && w->warp_logs != NULL
               ? 0
               : -1;
}

static void emu_worker_release(emu_worker *w) {
#ifdef EMU_VALGRIND
    size_t i;
    for (i = 0; w->stacks != NULL && i < EMU_MAX_THREADS; i++) {
        VALGRIND_STACK_DEREGISTER(w->stack_ids[i]);
    }
#endif
    if (w->stacks != NULL) {
        munmap(w->stacks, w->stacks_bytes);
    }
    free(w->fibers);
    free(w->shared);
    free(w->shadow);
    free(w->warp_logs);
    memset(w, 0, sizeof *w);
}

/* A fiber's whole life: the kernel, then back to the scheduler for good
 * (it never returns: there is nothing to return to). */
static void fiber_main(void) {
    emu_worker *w = tls_worker;
    w->job->fn(w->job->params);
    w->fibers[w->current].state = EMU_DONE;
    emu_suspend(w);
    abort();
}

/* The stack pointer that starts `fiber_main` on the stack ending at `top`
 * when `arr_emu_switch` loads it: six zero registers to pop, then
 * `fiber_main`'s address to return to, above which a zero return address
 * of its own leaves the stack as a call would (8 bytes past a multiple
 * of 16). */
static void *emu_fiber_stack(unsigned char *top) {
    uintptr_t *sp = (uintptr_t *)((uintptr_t)top & ~(uintptr_t)15);
    int i;
    *--sp = 0;
    *--sp = (uintptr_t)fiber_main;
    for (i = 0; i < 6; i++) {
        *--sp = 0;
    }
    return sp;
}

static void emu_new_epoch(emu_worker *w) {
    uint32_t i;
    if (++w->epoch == 0) {
        memset(w->shadow, 0, ARR_GPU_SHARED_LIMIT * sizeof *w->shadow);
        w->epoch = 1;
    }
    for (i = 0; i < (w->num_threads + 31) / 32; i++) {
        w->warp_logs[i].count = 0;
    }
}

/* Finds and completes the warp operations whose lanes have all arrived;
 * reports one that can never complete. Returns whether any completed. */
static int emu_resolve_warps(emu_worker *w) {
    uint32_t t, n = w->num_threads;
    int progress = 0;
    for (t = 0; t < n; t++) {
        emu_fiber *f = &w->fibers[t];
        uint32_t base = t & ~31u, lane = t & 31u, m;
        int ready = 1;
        if (f->state != EMU_WARP) {
            continue;
        }
        if (!(f->wmask >> lane & 1)) {
            emu_fail_block(w, "thread %" PRIu32 " calls a warp operation whose mask 0x%08" PRIx32
                           " leaves it out", t, f->wmask);
            return 0;
        }
        for (m = 0; m < 32 && ready; m++) {
            emu_fiber *g;
            if (!(f->wmask >> m & 1)) {
                continue;
            }
            if (base + m >= n) {
                emu_fail_block(w, "thread %" PRIu32 ": warp operation mask 0x%08" PRIx32
                                " names lane %" PRIu32 ", beyond the block's %" PRIu32 " threads",
                                t, f->wmask, m, n);
                return 0;
            }
            g = &w->fibers[base + m];
            switch (g->state) {
            case EMU_WARP:
                if (g->wop != f->wop || g->wmask != f->wmask) {
                    emu_fail_block(w, "threads %" PRIu32 " and %" PRIu32
                                    " of one warp wait at different warp operations (masks 0x%08"
                                    PRIx32 " and 0x%08" PRIx32 ")", t, base + m, f->wmask,
                                    g->wmask);
                    return 0;
                }
                break;
            case EMU_BARRIER:
                emu_fail_block(w, "thread %" PRIu32 " waits at a barrier while thread %" PRIu32
                                " waits for it at a warp operation", base + m, t);
                return 0;
            case EMU_DONE:
                emu_fail_block(w, "thread %" PRIu32 " waits at a warp operation for thread %"
                                PRIu32 ", which has finished", t, base + m);
                return 0;
            default:
                ready = 0;
            }
        }
        if (ready) {
            emu_complete_warp_op(w, t);
            progress = 1;
        }
    }
    return progress;
}

/* Completes the barrier every live thread waits at; reports a barrier that
 * only part of the block reached. Returns 1 when it completed one, 0 when
 * no thread waits at one, -1 when others wait elsewhere. */
static int emu_resolve_barrier(emu_worker *w) {
    uint32_t t, n = w->num_threads, at = n, done = n, count = 0;
    int32_t popc = 0, all = 1, any = 0;
    int other = 0;
    for (t = 0; t < n; t++) {
        emu_fiber *f = &w->fibers[t];
        if (f->state == EMU_BARRIER) {
            if (at == n) {
                at = t;
            } else if (f->bar_kind != w->fibers[at].bar_kind) {
                emu_fail_block(w, "threads %" PRIu32 " and %" PRIu32
                                " wait at different kinds of barrier", at, t);
                return 0;
            }
            count++;
            popc += f->bar_pred != 0;
            all &= f->bar_pred != 0;
            any |= f->bar_pred != 0;
        } else if (f->state == EMU_DONE) {
            done = done == n ? t : done;
        } else {
            other = 1;
        }
    }
    if (count == 0 || other) {
        return count == 0 ? 0 : -1;
    }
    if (done != n) {
        emu_fail_block(w, "barrier reached by only part of the block: thread %" PRIu32
                        " waits at it, thread %" PRIu32 " has finished without reaching it",
                        at, done);
        return 0;
    }
    emu_new_epoch(w);
    for (t = 0; t < n; t++) {
        emu_fiber *f = &w->fibers[t];
        switch (f->bar_kind) {
        case EMU_BAR_POPC:
            f->bar_result = popc;
            break;
        case EMU_BAR_AND:
            f->bar_result = all;
            break;
        case EMU_BAR_OR:
            f->bar_result = any;
            break;
        default:
            f->bar_result = 0;
        }
        f->state = EMU_READY;
    }
    return 1;
}

static void emu_run_block(emu_worker *w, emu_job *job, int64_t linear) {
    uint32_t t, n = job->block.x * job->block.y * job->block.z;
    size_t slot = EMU_STACK + EMU_GUARD;
    w->job = job;
    w->block[0] = (uint32_t)(linear % job->grid.x);
    w->block[1] = (uint32_t)(linear / job->grid.x % job->grid.y);
    w->block[2] = (uint32_t)(linear / ((int64_t)job->grid.x * job->grid.y));
    w->num_threads = n;
    w->failed = 0;
    emu_new_epoch(w);
    /* Shared memory starts as garbage on a GPU: all ones here (NaN, -1). */
    memset(w->shared, 0xff, job->shared_bytes);
    for (t = 0; t < n; t++) {
        emu_fiber *f = &w->fibers[t];
        f->sp = emu_fiber_stack(w->stacks + (t + 1) * slot);
        f->state = EMU_READY;
    }
    for (;;) {
        int ran = 0, yielded = 0, live = 0, barrier;
        for (t = 0; t < n; t++) {
            if (w->fibers[t].state == EMU_READY) {
                w->current = t;
                arr_emu_switch(&w->sched_sp, w->fibers[t].sp);
                if (w->failed) {
                    return;
                }
                ran = 1;
            }
        }
        for (t = 0; t < n; t++) {
            live += w->fibers[t].state != EMU_DONE;
        }
        if (live == 0) {
            return;
        }
        if (emu_resolve_warps(w)) {
            continue;
        }
        if (w->failed) {
            return;
        }
        for (t = 0; t < n; t++) {
            if (w->fibers[t].state == EMU_YIELD) {
                w->fibers[t].state = EMU_READY;
                yielded = 1;
            }
        }
        if (yielded) {
            /* Spinning on another block: give up when the launch failed
             * (that block may never finish), else let the CPU go. */
            if (atomic_load(&job->error_block) != INT64_MAX) {
                snprintf(w->message, sizeof w->message, "abandoned");
                w->failed = 2;
                return;
            }
            if (!ran) {
                sched_yield();
            }
            continue;
        }
        barrier = emu_resolve_barrier(w);
        if (barrier <= 0 && !w->failed) {
            emu_fail_block(w, "its threads wait for each other at warp operations and a "
                              "barrier that cannot complete");
        }
        if (w->failed) {
            return;
        }
    }
}

static void emu_run_blocks(emu_worker *w, emu_job *job) {
    int64_t b;
    tls_worker = w;
    while ((b = atomic_fetch_add(&job->next_block, 1)) < job->num_blocks) {
        if (b > atomic_load(&job->error_block)) {
            break;
        }
        emu_run_block(w, job, b);
        if (w->failed == 1) {
            pthread_mutex_lock(&emu_lock);
            if (b < atomic_load(&job->error_block)) {
                atomic_store(&job->error_block, b);
                memcpy(job->error_message, w->message, sizeof job->error_message);
            }
            pthread_mutex_unlock(&emu_lock);
        }
    }
    w->job = NULL;
}

static void *emu_worker_main(void *arg) {
    emu_worker *w = arg;
    uint64_t seen = 0;
    for (;;) {
        emu_job *job;
        pthread_mutex_lock(&emu_lock);
        while (emu_generation == seen && !emu_quit) {
            pthread_cond_wait(&emu_wake, &emu_lock);
        }
        if (emu_quit) {
            pthread_mutex_unlock(&emu_lock);
            return NULL;
        }
        seen = emu_generation;
        job = emu_current;
        pthread_mutex_unlock(&emu_lock);
        emu_run_blocks(w, job);
        pthread_mutex_lock(&emu_lock);
        if (--emu_busy == 0) {
            pthread_cond_signal(&emu_done);
        }
        pthread_mutex_unlock(&emu_lock);
    }
}

static int emu_default_workers(void) {
    const char *env = getenv("ARRC_THREADS");
    long cores;
    if (arr_num_threads > 0) {
        return arr_num_threads;
    }
    if (env != NULL && *env != '\0') {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end == '\0' && n >= 1 && n <= 1024) {
            return (int)n;
        }
    }
    cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores >= 1 ? (int)cores : 1;
}

/* Starts the workers (at the first launch): worker 0 is the host thread. */
static void emu_start_workers(void) {
    int i, n = emu_default_workers();
    emu_workers = calloc((size_t)n, sizeof *emu_workers);
    emu_threads = calloc((size_t)n, sizeof *emu_threads);
    if (emu_workers == NULL || emu_threads == NULL || emu_worker_setup(&emu_workers[0]) != 0) {
        arr_gpu_exit_no_device("GPU emulator: out of memory for its threads");
    }
    emu_num_workers = 1;
    for (i = 1; i < n; i++) {
        if (emu_worker_setup(&emu_workers[i]) != 0 ||
            pthread_create(&emu_threads[i], NULL, emu_worker_main, &emu_workers[i]) != 0) {
            emu_worker_release(&emu_workers[i]);
            break;
        }
        emu_num_workers++;
    }
}

/* ---------------------------------------------------------------- host API */

int arr_gpu_be_alloc(void *ctx, uint64_t bytes, uint64_t *out) {
    void *p = NULL;
    (void)ctx;
    /* cuMemAlloc aligns to 256 bytes. */
    if (bytes > SIZE_MAX || posix_memalign(&p, 256, (size_t)bytes) != 0 || p == NULL) {
        return -1;
    }
    *out = (uint64_t)(uintptr_t)p;
    return 0;
}

void arr_gpu_be_free(void *ctx, uint64_t ptr) {
    (void)ctx;
    free((void *)(uintptr_t)ptr);
}

void arr_gpu_be_occupancy(int kernel, uint32_t shared_per_block, uint32_t shared_per_thread,
                          int *block, int *max_blocks) {
    (void)kernel;
    (void)shared_per_block;
    *block = 128;
    while (*block > 32 && shared_per_block + shared_per_thread * (uint32_t)*block >
                              ARR_GPU_SHARED_LIMIT) {
        *block /= 2;
    }
    *max_blocks = 2 * (emu_num_workers > 0 ? emu_num_workers : emu_default_workers());
}

static void emu_shutdown(void) {
    int i;
    if (emu_workers != NULL) {
        pthread_mutex_lock(&emu_lock);
        emu_quit = 1;
        pthread_cond_broadcast(&emu_wake);
        pthread_mutex_unlock(&emu_lock);
        for (i = 1; i < emu_num_workers; i++) {
            pthread_join(emu_threads[i], NULL);
        }
        for (i = 0; i < emu_num_workers; i++) {
            emu_worker_release(&emu_workers[i]);
        }
        free(emu_workers);
        free(emu_threads);
        emu_workers = NULL;
    }
    arr_pool_destroy(&arr_gpu_mem);
    free(emu_error_record);
    emu_error_record = NULL;
}

void arr_gpu_init(const arr_gpu_program *program) {
    int i;
    if (arr_gpu_prog != NULL) {
        return;
    }
    for (i = 0; i < program->num_kernels; i++) {
        if (program->kernels[i].emu == NULL) {
            arr_gpu_exit_internal("GPU emulator: kernel %s has no emulator code",
                                  program->kernels[i].name);
        }
    }
    arr_gpu_trace_counts();
    emu_error_record = calloc(1, sizeof *emu_error_record);
    if (emu_error_record == NULL) {
        arr_gpu_exit_no_device("GPU emulator: out of memory");
    }
    arr_pool_init(&arr_gpu_mem, arr_gpu_be_alloc, arr_gpu_be_free, NULL, (uint64_t)1 << 30);
    arr_gpu_prog = program;
    atexit(emu_shutdown);
}

void arr_gpu_reserve_heap(int64_t bytes) {
    /* As the driver: only before the first kernel that allocates. */
    if (bytes > arr_gpu_heap_bytes && !atomic_load(&emu_heap_touched)) {
        arr_gpu_heap_bytes = bytes;
    }
}

void arr_gpu_copy_in(arr_dptr dst, const void *src, int64_t bytes) {
    arr_gpu_copies++;
    if (bytes > 0) {
        memcpy((void *)(uintptr_t)dst, src, (size_t)bytes);
    }
}

void arr_gpu_copy_out(void *dst, arr_dptr src, int64_t bytes) {
    arr_gpu_copies++;
    arr_gpu_sync();
    if (bytes > 0) {
        memcpy(dst, (const void *)(uintptr_t)src, (size_t)bytes);
    }
}

void arr_gpu_copy_within(arr_dptr dst, arr_dptr src, int64_t bytes) {
    arr_gpu_copies++;
    if (bytes > 0) {
        memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, (size_t)bytes);
    }
}

void arr_gpu_fill32(arr_dptr dst, uint32_t value, int64_t count) {
    uint32_t *p = (uint32_t *)(uintptr_t)dst;
    int64_t i;
    for (i = 0; i < count; i++) {
        p[i] = value;
    }
}

void arr_gpu_launch(int kernel, const arr_gpu_config *config, void **args) {
    const arr_gpu_kernel_def *k = arr_gpu_kernel(kernel);
    void *params[ARR_GPU_MAX_PARAMS + 2];
    arr_dptr err = (arr_dptr)(uintptr_t)emu_error_record;
    uint64_t threads = (uint64_t)config->block.x * config->block.y * config->block.z;
    emu_job job;
    int i;
    if (threads == 0 || threads > EMU_MAX_THREADS || config->grid.x == 0 ||
        config->grid.y == 0 || config->grid.z == 0 || config->grid.y > 65535 ||
        config->grid.z > 65535 || config->block.z > 64) {
        arr_gpu_exit_internal("GPU emulator: kernel %s launched with grid (%" PRIu32 ",%" PRIu32
                              ",%" PRIu32 ") and blocks (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")",
                              k->name, config->grid.x, config->grid.y, config->grid.z,
                              config->block.x, config->block.y, config->block.z);
    }
    if (config->shared_bytes > ARR_GPU_SHARED_LIMIT) {
        arr_gpu_exit_internal("GPU emulator: kernel %s asks for %" PRIu32
                              " bytes of shared memory per block", k->name, config->shared_bytes);
    }
    if (k->num_params < 0 || k->num_params > ARR_GPU_MAX_PARAMS) {
        arr_gpu_exit_internal("GPU emulator: kernel %s has %d parameters", k->name,
                              k->num_params);
    }
    arr_gpu_seq++;
    arr_gpu_launches++;
    params[0] = &err;
    params[1] = &arr_gpu_seq;
    for (i = 0; i < k->num_params; i++) {
        params[i + 2] = args[i];
    }
    job.fn = k->emu;
    job.params = params;
    job.name = k->name;
    job.grid = config->grid;
    job.block = config->block;
    job.shared_bytes = config->shared_bytes;
    job.num_blocks = (int64_t)config->grid.x * config->grid.y * config->grid.z;
    atomic_init(&job.next_block, 0);
    atomic_init(&job.error_block, INT64_MAX);
    job.error_message[0] = '\0';
    if (emu_workers == NULL) {
        emu_start_workers();
    }
    pthread_mutex_lock(&emu_lock);
    emu_current = &job;
    emu_busy = emu_num_workers - 1;
    emu_generation++;
    pthread_cond_broadcast(&emu_wake);
    pthread_mutex_unlock(&emu_lock);
    emu_run_blocks(&emu_workers[0], &job);
    pthread_mutex_lock(&emu_lock);
    while (emu_busy > 0) {
        pthread_cond_wait(&emu_done, &emu_lock);
    }
    pthread_mutex_unlock(&emu_lock);
    if (atomic_load(&job.error_block) != INT64_MAX) {
        arr_gpu_exit_internal("%s", job.error_message);
    }
}

void arr_gpu_sync(void) {
    if (emu_error_record != NULL && emu_error_record->seq != 0) {
        arr_gpu_report(emu_error_record);
    }
}

void arr_gpu_reset_error(void) {
    if (emu_error_record != NULL) {
        memset(emu_error_record, 0, sizeof *emu_error_record);
    }
}
