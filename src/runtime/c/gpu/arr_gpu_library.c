/* A GPU library's device (`arrc build --library --target nvptx` or
 * `nvptx-emu`; docs/library.md): sets the library's `arr_lib_device` so that
 * its arrays live in device memory and stay there between calls, and runs
 * entries with `arr_gpu_resident` set, so that the compiled code takes and
 * gives device arrays without copies. The GPU runtime is the process's:
 * one lock serialises calls and data movement of every context.
 *
 * Nothing here ends the process. What would end an executable (no driver,
 * no GPU, a failed driver call: `arr_gpu_exit_*`) comes to `fatal`, which
 * unwinds to the operation that was running: to its guard, set below
 * around every operation, or inside an entry's call to the call's boundary
 * (`arr_raise`). A failed initialisation is remembered, and every later
 * operation fails with its message. */
#include "arr_gpu_internal.h"
#include "arr_library.h"

#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The program descriptor of the glue (codegen::gpu::DESCRIPTOR). */
extern const arr_gpu_program arr_gpu_desc;

static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;
/* The message of a failed initialisation ("" while none failed). */
static char init_error[1024];
/* Contexts open (under the lock): the last one's close trims the pool. */
static int64_t open_contexts;
/* Calls so far: the tag of a running call's device memory. */
static uint64_t calls;

/* Where `fatal` unwinds to on this thread (NULL: the call's boundary). */
static _Thread_local jmp_buf *guard;
static _Thread_local char guard_error[1024];

static void fatal(const char *message) __attribute__((noreturn));
static void fatal(const char *message) {
    if (arr_gpu_prog == NULL && init_error[0] == '\0') {
        snprintf(init_error, sizeof init_error, "%s", message);
    }
    if (guard != NULL) {
        snprintf(guard_error, sizeof guard_error, "%s", message);
        longjmp(*guard, 1);
    }
    arr_raise(message);
}

/* Runs `stmt` with the device locked and initialised, under a guard: `rc`
 * is 0, or 1 with the error in `ctx`. (A macro: setjmp must be called in
 * the frame it returns to.) Nothing `stmt` changes is read after a
 * failure. */
#define GUARDED(ctx, rc, stmt)                                                                   \
    do {                                                                                         \
        jmp_buf here_;                                                                           \
        pthread_mutex_lock(&device_lock);                                                        \
        guard = &here_;                                                                          \
        if (setjmp(here_) == 0) {                                                                \
            if (init_error[0] != '\0') {                                                         \
                fatal(init_error);                                                               \
            }                                                                                    \
            arr_gpu_init(&arr_gpu_desc);                                                         \
            arr_gpu_mem.owner = arr_ctx_serial((arr_ctx *)(ctx));                                \
            stmt;                                                                                \
            arr_gpu_mem.owner = 0;                                                               \
            (rc) = 0;                                                                            \
        } else {                                                                                 \
            arr_gpu_mem.owner = 0;                                                               \
            arr_ctx_set_error((arr_ctx *)(ctx), guard_error);                                    \
            (rc) = 1;                                                                            \
        }                                                                                        \
        guard = NULL;                                                                            \
        pthread_mutex_unlock(&device_lock);                                                      \
    } while (0)

static int open_device(struct arrc_context *ctx) {
    int rc;
    GUARDED(ctx, rc, open_contexts++);
    return rc;
}

static void close_device(uint64_t owner) {
    pthread_mutex_lock(&device_lock);
    if (arr_gpu_prog != NULL) {
        arr_pool_free_owner(&arr_gpu_mem, owner);
        if (--open_contexts == 0) {
            arr_pool_trim(&arr_gpu_mem);
        }
    }
    pthread_mutex_unlock(&device_lock);
}

/* Locks the device for a call of `ctx` (left locked on success): its
 * allocations are tagged with the context and the call. */
static int enter(struct arrc_context *ctx) {
    int rc;
    GUARDED(ctx, rc, (void)0);
    if (rc == 0) {
        pthread_mutex_lock(&device_lock);
        arr_gpu_resident = 1;
        arr_gpu_mem.owner = arr_ctx_serial((arr_ctx *)ctx);
        arr_gpu_mem.call = ++calls;
    }
    return rc;
}

/* After a failed call: frees what it allocated and clears the device's
 * error record (an executable stops at the first error; a library goes
 * on). A failure of the driver here is reported too, over the call's. */
static int leave(struct arrc_context *ctx, int failed) {
    jmp_buf here;
    int rc = 0;
    uint64_t call = arr_gpu_mem.call;
    arr_gpu_resident = 0;
    arr_gpu_mem.owner = 0;
    arr_gpu_mem.call = 0;
    guard = &here;
    if (setjmp(here) == 0) {
        if (failed) {
            arr_pool_free_call(&arr_gpu_mem, call);
            arr_gpu_reset_error();
        }
    } else {
        arr_ctx_set_error((arr_ctx *)ctx, guard_error);
        rc = 1;
    }
    guard = NULL;
    pthread_mutex_unlock(&device_lock);
    return rc;
}

static int alloc(struct arrc_context *ctx, int64_t bytes, void **out) {
    arr_dptr d = 0;
    int rc, none = 0;
    GUARDED(ctx, rc, none = arr_gpu_try_alloc(bytes, &d));
    if (rc == 0 && none) {
        char message[128];
        snprintf(message, sizeof message,
                 "Error: out of GPU memory (allocating %" PRId64 " bytes)\n", bytes);
        arr_ctx_set_error((arr_ctx *)ctx, message);
        rc = 1;
    }
    *out = (void *)(uintptr_t)d;
    return rc;
}

/* A block the pool does not hold for `owner` (its context was freed, and
 * the block with it) is left alone. */
static void release(uint64_t owner, void *p) {
    pthread_mutex_lock(&device_lock);
    if (arr_gpu_prog != NULL) {
        (void)arr_pool_free_owned(&arr_gpu_mem, (arr_dptr)(uintptr_t)p, owner);
    }
    pthread_mutex_unlock(&device_lock);
}

static int copy_in(struct arrc_context *ctx, void *dst, const void *src, int64_t bytes) {
    int rc;
    GUARDED(ctx, rc, arr_gpu_copy_in((arr_dptr)(uintptr_t)dst, src, bytes));
    return rc;
}

static int copy_out(struct arrc_context *ctx, void *dst, const void *src, int64_t bytes) {
    int rc;
    GUARDED(ctx, rc, arr_gpu_copy_out(dst, (arr_dptr)(uintptr_t)src, bytes));
    return rc;
}

static int copy_within(struct arrc_context *ctx, void *dst, const void *src, int64_t bytes) {
    int rc;
    GUARDED(ctx, rc,
            arr_gpu_copy_within((arr_dptr)(uintptr_t)dst, (arr_dptr)(uintptr_t)src, bytes));
    return rc;
}

/* The exact-errors fallback's arguments (docs/runtime.md): a failed call's
 * array arguments are device memory, which the fallback, CPU code, cannot
 * read; it runs on host copies. The failed run's error record is cleared
 * first (a copy waits for the device and would report it again). */
static const arr_value *host_inputs(const arr_entry *e, const arr_value *args) {
    arr_value *host = arr_alloc((int64_t)sizeof(arr_value) * (e->num_params > 0 ? e->num_params : 1));
    int i;
    arr_gpu_reset_error();
    for (i = 0; i < e->num_params; i++) {
        host[i] = args[i];
        if (args[i].type.rank > 0) {
            int64_t bytes = arr_gpu_value_bytes(&args[i]);
            host[i].data = arr_alloc(bytes);
            arr_gpu_copy_out(host[i].data, (arr_dptr)(uintptr_t)args[i].data, bytes);
        }
    }
    return host;
}

static const arr_lib_device_ops ops = {open_device, close_device, enter,  leave,
                                       alloc,       release,      copy_in, copy_out,
                                       copy_within};

/* Device memory in bytes: what the library's contexts hold (`held` 0) or
 * what it holds from the driver, cached blocks included (`held` 1). Not in
 * the header: for tests that check nothing leaks (tests/library_types.rs). */
__attribute__((visibility("default"))) int64_t arrc_gpu_device_bytes(int held) {
    int64_t n;
    pthread_mutex_lock(&device_lock);
    n = (int64_t)(held ? arr_gpu_mem.driver_bytes : arr_gpu_mem.live_bytes);
    pthread_mutex_unlock(&device_lock);
    return n;
}

__attribute__((constructor)) static void arr_gpu_library_init(void) {
    arr_lib_device = &ops;
    arr_exact_inputs = host_inputs;
    arr_gpu_fatal_hook = fatal;
}
