/* The host-common runtime linked into every compiled Arr program and
 * library (see arr_runtime.h): contexts and the boundary entry points run
 * through (`arr_call`), the run-time errors compiled code reports, and the
 * memory of arrays. `main` is in arr_main.c (executables only), the C API
 * of a library in arr_library.c; arr_values.c reads and prints values.
 * Nothing here runs loop nests: a backend's runtime does (arr_parallel.c on
 * the CPU), with its state in the context. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include "arr_values.h"

#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int arr_num_threads = 0;
int64_t arr_traffic_reads = 0;
int64_t arr_traffic_writes = 0;
int arr_traffic_enabled = 0;
int64_t arr_untimed_us = 0;
int (*arr_error_hook)(const char *message) = NULL;

/* ---------------------------------------------------------------- memory
 * Every block has a 64-byte header: its usable size, the context that owns
 * it and its links in that context's list of live blocks, and the call that
 * allocated it, so that a failed call can free what it allocated. A freed
 * big block is kept and handed out again: fresh memory from the kernel
 * costs a page fault per 4 KiB on first touch, which for a program that
 * allocates and frees the same big intermediates every run (or every
 * iteration of a loop) costs as much as computing them. Small blocks go
 * straight back to malloc, which recycles them well.
 *
 * A block of at least HUGE_MIN_BYTES is aligned to 2 MiB and asks the
 * kernel for transparent huge pages (Linux's default mode, `madvise`, gives
 * them only to memory that asks): a 200 MB array then takes 100 page
 * faults on first touch instead of 50,000, and a pass over it 100 TLB
 * entries instead of 50,000 (the streams of the memory-bound programs, the
 * gathers of spmv). Without them (another kernel setting, another system)
 * nothing changes. */
#define ARR_HEADER 64
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN_BYTES ((size_t)4 << 20)
#define CACHE_MIN_BYTES ((size_t)1 << 16)
#define CACHE_SLOTS 32
#define CACHE_MAX_BYTES ((size_t)1 << 30)

#ifdef ARR_EXACT_ALLOC
/* A checking build (`arrc build --sanitize`): each block's data is exactly
 * its size, at the end of the C library's allocation, and is never kept
 * for reuse, so that AddressSanitizer's red zone (or valgrind's) starts
 * right after its last byte and freed memory stays poisoned. */
#define ARR_CACHING 0
#ifdef __SANITIZE_THREAD__
/* LLVM's ThreadSanitizer pass turns the generated code's memset and memcpy
 * into these, which older libtsan (GCC 12's) lacks; the C library calls
 * they make are intercepted and checked by libtsan. */
__attribute__((weak)) void *__tsan_memset(void *p, int c, size_t n) { return memset(p, c, n); }
__attribute__((weak)) void *__tsan_memcpy(void *d, const void *s, size_t n) {
    return memcpy(d, s, n);
}
__attribute__((weak)) void *__tsan_memmove(void *d, const void *s, size_t n) {
    return memmove(d, s, n);
}
#endif
#else
#define ARR_CACHING 1
#endif

typedef struct arr_block {
    size_t size;
    arr_ctx *owner; /* NULL: allocated outside any context, not tracked */
    struct arr_block *prev, *next;
    uint64_t call;  /* the call that allocated it; 0: outside calls */
} arr_block;

_Static_assert(sizeof(arr_block) <= ARR_HEADER, "block header too big");

struct arr_ctx {
    /* One call at a time. */
    pthread_mutex_t call_lock;
    int threads;
    uint64_t serial;
    void *backend;
    void (*backend_free)(void *);
    void (*backend_reset)(void);
    /* Where a run-time error of the running call jumps to. */
    jmp_buf *boundary;
    /* The running call's number (0 between calls), and the last one's. */
    uint64_t call, calls;
    char error[512];
    /* Live blocks (a circular list through `live`) and the cache. */
    pthread_mutex_t mem_lock;
    arr_block live;
    struct {
        unsigned char *base;
        size_t size;
    } cache[CACHE_SLOTS];
    int cache_count;
    size_t cache_bytes;
};

static _Thread_local arr_ctx *current;

arr_ctx *arr_ctx_current(void) { return current; }

void arr_ctx_set_current(arr_ctx *ctx) { current = ctx; }

/* A cached block of at least `n` bytes and at most a quarter more (the
 * caller holds `mem_lock`). */
static unsigned char *cache_take(arr_ctx *ctx, size_t n) {
    int i, best = -1;
    unsigned char *base = NULL;
    for (i = 0; i < ctx->cache_count; i++) {
        if (ctx->cache[i].size >= n && ctx->cache[i].size - n <= n / 4 &&
            (best < 0 || ctx->cache[i].size < ctx->cache[best].size)) {
            best = i;
        }
    }
    if (best >= 0) {
        base = ctx->cache[best].base;
        ctx->cache_bytes -= ctx->cache[best].size;
        ctx->cache[best] = ctx->cache[--ctx->cache_count];
    }
    return base;
}

/* A block of `bytes` owned by `ctx` (or by none), NULL without memory. */
static void *alloc_block(arr_ctx *ctx, int64_t bytes) {
    unsigned char *base = NULL;
    arr_block *b;
    size_t n;
    if (bytes < 0 || (uint64_t)bytes > (uint64_t)SIZE_MAX - 2 * ARR_HEADER) {
        return NULL;
    }
#ifdef ARR_EXACT_ALLOC
    n = (size_t)bytes;
#else
    /* 64-byte alignment lets compiled loops use aligned vector accesses. */
    n = bytes == 0 ? 64 : ((size_t)bytes + 63) / 64 * 64;
#endif
    if (ARR_CACHING && ctx != NULL && n >= CACHE_MIN_BYTES) {
        pthread_mutex_lock(&ctx->mem_lock);
        base = cache_take(ctx, n);
        pthread_mutex_unlock(&ctx->mem_lock);
    }
    if (base == NULL) {
        void *p = NULL;
        int huge = ARR_CACHING && n >= HUGE_MIN_BYTES;
        if (posix_memalign(&p, huge ? HUGE_PAGE : 64, n + ARR_HEADER) != 0 || p == NULL) {
            return NULL;
        }
#ifdef MADV_HUGEPAGE
        if (huge) {
            /* Before the first touch (the header), or the first 2 MiB get
             * small pages. Advice only: a kernel without huge pages refuses,
             * harmlessly. */
            (void)madvise(p, (n + ARR_HEADER) / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
        }
#endif
        base = p;
        ((arr_block *)base)->size = n;
    }
    b = (arr_block *)base;
    b->owner = ctx;
    if (ctx != NULL) {
        pthread_mutex_lock(&ctx->mem_lock);
        b->call = ctx->call;
        b->next = ctx->live.next;
        b->prev = &ctx->live;
        ctx->live.next->prev = b;
        ctx->live.next = b;
        pthread_mutex_unlock(&ctx->mem_lock);
    }
    return base + ARR_HEADER;
}

static void fail(const char *fmt, ...) ARR_PRINTF(1, 2) ARR_NORETURN;

void *arr_alloc(int64_t bytes) {
    void *p = alloc_block(current, bytes);
    if (p == NULL) {
        fail("Error: out of memory (allocating %" PRId64 " bytes)\n", bytes);
    }
    return p;
}

void *arr_alloc_in(arr_ctx *ctx, int64_t bytes) { return alloc_block(ctx, bytes); }

/* Unlinks `b` from its context and keeps or frees it (the caller holds
 * `mem_lock`). */
static void release_block(arr_ctx *ctx, arr_block *b) {
    b->prev->next = b->next;
    b->next->prev = b->prev;
    if (ARR_CACHING && b->size >= CACHE_MIN_BYTES && ctx->cache_count < CACHE_SLOTS &&
        ctx->cache_bytes + b->size <= CACHE_MAX_BYTES) {
        ctx->cache[ctx->cache_count].base = (unsigned char *)b;
        ctx->cache[ctx->cache_count].size = b->size;
        ctx->cache_count++;
        ctx->cache_bytes += b->size;
        return;
    }
    free(b);
}

void arr_free(void *ptr) {
    arr_block *b;
    arr_ctx *ctx;
    if (ptr == NULL) {
        return;
    }
    b = (arr_block *)((unsigned char *)ptr - ARR_HEADER);
    ctx = b->owner;
    if (ctx == NULL) {
        free(b);
        return;
    }
    pthread_mutex_lock(&ctx->mem_lock);
    release_block(ctx, b);
    pthread_mutex_unlock(&ctx->mem_lock);
}

/* Frees every block the failed call `call` allocated and did not free. */
static void free_call_blocks(arr_ctx *ctx, uint64_t call) {
    arr_block *b, *next;
    pthread_mutex_lock(&ctx->mem_lock);
    for (b = ctx->live.next; b != &ctx->live; b = next) {
        next = b->next;
        if (b->call == call) {
            release_block(ctx, b);
        }
    }
    pthread_mutex_unlock(&ctx->mem_lock);
}

/* ---------------------------------------------------------------- contexts */

static uint64_t serials;

arr_ctx *arr_ctx_new(int threads) {
    arr_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL) {
        return NULL;
    }
    pthread_mutex_init(&ctx->call_lock, NULL);
    pthread_mutex_init(&ctx->mem_lock, NULL);
    ctx->threads = threads > 0 ? threads : 0;
    ctx->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
    ctx->live.next = ctx->live.prev = &ctx->live;
    return ctx;
}

void arr_ctx_free(arr_ctx *ctx) {
    arr_block *b, *next;
    if (ctx == NULL) {
        return;
    }
    if (ctx->backend_free != NULL) {
        ctx->backend_free(ctx->backend);
    }
    /* Arrays the user did not free go with the context. */
    for (b = ctx->live.next; b != &ctx->live; b = next) {
        next = b->next;
        free(b);
    }
    while (ctx->cache_count > 0) {
        free(ctx->cache[--ctx->cache_count].base);
    }
    pthread_mutex_destroy(&ctx->call_lock);
    pthread_mutex_destroy(&ctx->mem_lock);
    if (current == ctx) {
        current = NULL;
    }
    free(ctx);
}

int arr_ctx_threads(const arr_ctx *ctx) { return ctx->threads; }

uint64_t arr_ctx_serial(const arr_ctx *ctx) { return ctx->serial; }

void *arr_ctx_backend(const arr_ctx *ctx) { return ctx->backend; }

void arr_ctx_set_backend(arr_ctx *ctx, void *state, void (*free_state)(void *),
                         void (*reset)(void)) {
    ctx->backend = state;
    ctx->backend_free = free_state;
    ctx->backend_reset = reset;
}

const char *arr_ctx_error(const arr_ctx *ctx) { return ctx->error; }

void arr_ctx_set_error(arr_ctx *ctx, const char *message) {
    snprintf(ctx->error, sizeof ctx->error, "%s", message);
}

void arr_ctx_clear_error(arr_ctx *ctx) { ctx->error[0] = '\0'; }

void arr_raise(const char *message) {
    arr_ctx *ctx = current;
    if (ctx == NULL || ctx->boundary == NULL) {
        fflush(stdout);
        fputs(message, stderr);
        exit(1);
    }
    arr_ctx_set_error(ctx, message);
    longjmp(*ctx->boundary, 1);
}

const arr_value *(*arr_exact_inputs)(const arr_entry *e, const arr_value *args) = NULL;

/* Runs `e`'s entry (`exact`: its fallback) under the boundary: 0, or 1
 * after a run-time error, with what the call allocated freed and the
 * backend reset. */
static int run_guarded(arr_ctx *ctx, const arr_entry *e, int exact, const arr_value *args,
                       arr_value *results) {
    jmp_buf here;
    ctx->boundary = &here;
    if (setjmp(here) == 0) {
        if (!exact) {
            e->run(args, results);
        } else {
            e->exact(arr_exact_inputs != NULL ? arr_exact_inputs(e, args) : args, results);
        }
        return 0;
    }
    free_call_blocks(ctx, ctx->call);
    if (ctx->backend_reset != NULL) {
        ctx->backend_reset();
    }
    return 1;
}

/* `ARRC_NO_EXACT_ERRORS=1`, a testing aid: no re-run after an error, so a
 * test sees the fused code's own first error (a GPU kernel's record). */
static int exact_errors_skipped(void) {
    const char *s = getenv("ARRC_NO_EXACT_ERRORS");
    return s != NULL && strcmp(s, "1") == 0;
}

int arr_call(arr_ctx *ctx, const arr_entry *e, const arr_value *args, arr_value *results) {
    arr_ctx *outer = current;
    int failed, i;
    pthread_mutex_lock(&ctx->call_lock);
    current = ctx;
    pthread_mutex_lock(&ctx->mem_lock);
    ctx->call = ++ctx->calls;
    pthread_mutex_unlock(&ctx->mem_lock);
    ctx->error[0] = '\0';
    failed = run_guarded(ctx, e, 0, args, results);
    if (failed && e->exact != NULL && !exact_errors_skipped()) {
        /* Fusion may have run a later statement's failing check first: the
         * unfused fallback meets the errors in sequential order, and its
         * first is the one to report. Should it finish (it cannot, on the
         * same arguments), the fused run's error stands. */
        char fused_error[sizeof ctx->error];
        memcpy(fused_error, ctx->error, sizeof fused_error);
        if (!run_guarded(ctx, e, 1, args, results)) {
            free_call_blocks(ctx, ctx->call);
            memcpy(ctx->error, fused_error, sizeof fused_error);
        }
    }
    if (failed) {
        for (i = 0; i < e->num_results; i++) {
            results[i].data = NULL;
        }
    }
    pthread_mutex_lock(&ctx->mem_lock);
    ctx->call = 0;
    pthread_mutex_unlock(&ctx->mem_lock);
    ctx->boundary = NULL;
    current = outer;
    pthread_mutex_unlock(&ctx->call_lock);
    return failed;
}

int arr_check_sizes(const arr_entry *e, const arr_value *args, char *msg, size_t len) {
    int i;
    for (i = 0; i < e->num_size_constraints; i++) {
        const arr_size_constraint *c = &e->size_constraints[i];
        int64_t a = args[c->param_a].shape[c->dim_a], b = args[c->param_b].shape[c->dim_b];
        if (c->fixed >= 0 && a != c->fixed) {
            snprintf(msg, len,
                     "argument %d: size mismatch: dimension %d is %" PRId64
                     ", but the entry point's type says %" PRId64,
                     c->param_a + 1, c->dim_a + 1, a, c->fixed);
            return 1;
        }
        if (a != b) {
            snprintf(msg, len,
                     "argument %d: size mismatch: dimension %d is %" PRId64
                     ", but dimension %d of argument %d is %" PRId64,
                     c->param_b + 1, c->dim_b + 1, b, c->dim_a + 1, c->param_a + 1, a);
            return 1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- errors */

/* Reports a run-time error: inside a parallel chunk after the chunks that
 * run before it in sequential order (the error hook), else at once, by
 * unwinding to the call's boundary. */
static void fail(const char *fmt, ...) {
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (arr_error_hook != NULL) {
        arr_error_hook(message);
    }
    arr_raise(message);
}

void arr_fail_bounds(int64_t index, int64_t length, const char *loc) {
    fail("Error: index %" PRId64 " out of bounds for array of length %" PRId64 " at %s\n",
         index, length, loc);
}

void arr_fail_slice(int64_t start, int64_t end, int64_t stride, int64_t length,
                    const char *loc) {
    fail("Error: index %" PRId64 ":%" PRId64 ":%" PRId64
         " out of bounds for array of length %" PRId64 " at %s\n",
         start, end, stride, length, loc);
}

void arr_fail_size_mismatch(int64_t expected, int64_t found, const char *loc) {
    fail("Error: size mismatch: %" PRId64 " and %" PRId64 " at %s\n", expected, found, loc);
}

void arr_fail_division_by_zero(const char *loc) {
    fail("Error: division by zero at %s\n", loc);
}

void arr_fail_negative_exponent(const char *loc) {
    fail("Error: negative exponent at %s\n", loc);
}

void arr_fail_assert(const char *loc) { fail("Error: assertion failed at %s\n", loc); }

/* core::ir::assert_message: the condition as written (at most 200 bytes). */
void arr_fail_assert_condition(const char *cond, const char *loc) {
    fail("Error: assertion failed at %s: Assertion is false: %s\n", loc, cond);
}

void arr_fail_negative_size(int64_t size, const char *loc) {
    fail("Error: negative size %" PRId64 " at %s\n", size, loc);
}

/* Futhark's message for an invalid range; `form` as core::ir::range_form:
 * 0 `..<`, 1 `..>`, 2 `...`, plus 4 when the second element is written. */
void arr_fail_range(int64_t start, int64_t second, int64_t end, int64_t form, const char *loc) {
    const char *op = (form & 3) == 0 ? "..<" : (form & 3) == 1 ? "..>" : "...";
    if (form & 4) {
        fail("Error: Range %" PRId64 "..%" PRId64 "%s%" PRId64 " is invalid at %s\n", start,
             second, op, end, loc);
    }
    fail("Error: Range %" PRId64 "%s%" PRId64 " is invalid at %s\n", start, op, end, loc);
}
