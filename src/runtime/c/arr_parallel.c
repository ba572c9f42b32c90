/* The multicore scheduler: a thread pool per context (started on first use,
 * stopped when the context is freed) and the
 * strategies that run a compiled loop nest on it (`arr_run_nest`, see
 * arr_parallel.h for the contract with compiled code). A translation unit
 * of its own beside the host-common arr_runtime.c, which it reaches through
 * the hooks it sets when the pool starts.
 *
 * Work is cut into chunks of consecutive iterations that threads claim from
 * a shared counter, so uneven iterations (mandelbrot) balance themselves.
 * Chunk boundaries depend only on the width and the thread count, and
 * partial results are combined in chunk order, so a run is repeatable and a
 * non-commutative operator keeps its order.
 *
 * A run-time error inside a chunk does not exit at once: the chunk records
 * it and jumps back here, later chunks are skipped, and after the job the
 * error of the earliest chunk is reported (unwinding to the call's
 * boundary, arr_runtime.c), the one a sequential run meets first. Nothing
 * here is global: two contexts, or two libraries, have pools of their own. */
#include "arr_parallel.h"

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- pool */

typedef void (*chunk_fn)(void *ctx, int64_t chunk);

typedef struct {
    chunk_fn run;
    void *ctx;
    int64_t num_chunks;
    atomic_int_fast64_t next_chunk;
    /* Workers still busy with this job. */
    atomic_int busy;
} job;

typedef struct pool {
    arr_ctx *ctx;
    int size;                /* threads, the caller included */
    int spin;                /* spin before sleeping (not oversubscribed) */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_uint_fast64_t generation;
    job *job;
    pthread_t *workers;
    /* Set (with a new generation) to make the workers return. */
    atomic_int quit;
    /* `ARRC_GRAIN` overrides every nest's grain: with 1, tests drive even
     * tiny nests through the parallel strategies. */
    int64_t grain_override;
    /* The error of the earliest failing chunk of the current job. */
    pthread_mutex_t error_lock;
    atomic_int_fast64_t error_chunk_start;
    char error_message[512];
} pool;

/* Set while the current thread runs a chunk: nested nests run inline. */
static _Thread_local int in_parallel;
/* Where a failing chunk jumps to, that chunk's first iteration, and its
 * pool. */
static _Thread_local jmp_buf *chunk_exit;
static _Thread_local int64_t chunk_start;
static _Thread_local pool *chunk_pool;

static void run_chunks(job *j);

/* One step of a wait for another thread. Spinning is fine while every
 * thread has a core, but only for a while: under real-time scheduling
 * (`chrt`, benchmarks) a spinning thread never gives its core to the
 * thread it waits for if that one was moved to the same core, and the
 * wait would never end. */
static void wait_pause(const pool *p, long *spins) {
    if (!p->spin || ++*spins > 20000) {
        sched_yield();
    }
}

static void *worker_main(void *arg) {
    pool *p = arg;
    uint_fast64_t seen = 0;
    /* What chunks allocate belongs to the pool's context. */
    arr_ctx_set_current(p->ctx);
    for (;;) {
        uint_fast64_t gen = atomic_load_explicit(&p->generation, memory_order_acquire);
        long spins = p->spin ? 200000 : 0;
        while (gen == seen && spins-- > 0) {
            gen = atomic_load_explicit(&p->generation, memory_order_acquire);
        }
        if (gen == seen) {
            pthread_mutex_lock(&p->lock);
            while ((gen = atomic_load(&p->generation)) == seen) {
                pthread_cond_wait(&p->wake, &p->lock);
            }
            pthread_mutex_unlock(&p->lock);
        }
        seen = gen;
        if (atomic_load(&p->quit)) {
            return NULL;
        }
        job *j = p->job;
        run_chunks(j);
        atomic_fetch_sub_explicit(&j->busy, 1, memory_order_release);
    }
    return NULL;
}

static int default_threads(void) {
    const char *env = getenv("ARRC_THREADS");
    if (env != NULL && *env != '\0') {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end == '\0' && n >= 1 && n <= 1024) {
            return (int)n;
        }
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores >= 1 ? (int)cores : 1;
}

static long online_cores(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores >= 1 ? cores : 1;
}

static void pool_free(void *state);
static void reset_thread(void);

/* The pool of the current context, started on first use (calls on a
 * context are serialised, so only one thread starts it); NULL outside any
 * context or without memory. */
static pool *current_pool(void) {
    arr_ctx *ctx = arr_ctx_current();
    pool *p;
    int i;
    const char *grain;
    if (ctx == NULL) {
        return NULL;
    }
    p = arr_ctx_backend(ctx);
    if (p != NULL) {
        return p;
    }
    p = calloc(1, sizeof *p);
    if (p == NULL) {
        return NULL;
    }
    p->ctx = ctx;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_mutex_init(&p->error_lock, NULL);
    atomic_init(&p->generation, 0);
    atomic_init(&p->quit, 0);
    atomic_init(&p->error_chunk_start, INT64_MAX);
    grain = getenv("ARRC_GRAIN");
    if (grain != NULL && *grain != '\0') {
        char *end;
        long long g = strtoll(grain, &end, 10);
        if (*end == '\0' && g >= 1) {
            p->grain_override = g;
        }
    }
    arr_error_hook = arr_fail_in_chunk;
    p->size = arr_ctx_threads(ctx) > 0 ? arr_ctx_threads(ctx) : default_threads();
    /* Spinning only pays when every thread has a core of its own. */
    p->spin = p->size <= online_cores();
    p->workers = calloc((size_t)p->size, sizeof *p->workers);
    if (p->workers == NULL) {
        p->size = 1;
    }
    for (i = 1; i < p->size; i++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        /* Deep sequential code can run in a chunk: as much stack as main. */
        pthread_attr_setstacksize(&attr, (size_t)64 << 20);
        if (pthread_create(&p->workers[i], &attr, worker_main, p) != 0) {
            p->size = i;
            pthread_attr_destroy(&attr);
            break;
        }
        pthread_attr_destroy(&attr);
    }
    arr_ctx_set_backend(ctx, p, pool_free, reset_thread);
    return p;
}

/* Stops and joins the pool's threads (when its context is freed). */
static void pool_free(void *state) {
    pool *p = state;
    int i;
    if (p == NULL) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->quit, 1);
    atomic_fetch_add(&p->generation, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (i = 1; i < p->size; i++) {
        pthread_join(p->workers[i], NULL);
    }
    free(p->workers);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->error_lock);
    free(p);
}

/* After a failed call, the calling thread is outside every chunk again. */
static void reset_thread(void) {
    in_parallel = 0;
    chunk_exit = NULL;
    chunk_pool = NULL;
}

int arr_threads(void) {
    pool *p = current_pool();
    return p == NULL ? 1 : p->size;
}

/* Claims and runs chunks until none are left. */
static void run_chunks(job *j) {
    int64_t c;
    while ((c = atomic_fetch_add_explicit(&j->next_chunk, 1, memory_order_relaxed)) <
           j->num_chunks) {
        j->run(j->ctx, c);
    }
}

/* Runs `run(ctx, c)` for every chunk c in [0, num_chunks) on the pool and
 * returns when all have finished. */
static void parallel_chunks(pool *p, int64_t num_chunks, chunk_fn run, void *ctx) {
    job j;
    j.run = run;
    j.ctx = ctx;
    j.num_chunks = num_chunks;
    atomic_init(&j.next_chunk, 0);
    atomic_init(&j.busy, p->size - 1);
    pthread_mutex_lock(&p->lock);
    p->job = &j;
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    run_chunks(&j);
    long spins = 0;
    while (atomic_load_explicit(&j.busy, memory_order_acquire) > 0) {
        wait_pause(p, &spins);
    }
}

/* ---------------------------------------------------------------- errors */

int arr_fail_in_chunk(const char *message) {
    int64_t start = chunk_start;
    pool *p = chunk_pool;
    if (chunk_exit == NULL || p == NULL) {
        return 0;
    }
    pthread_mutex_lock(&p->error_lock);
    if (start < atomic_load(&p->error_chunk_start)) {
        atomic_store(&p->error_chunk_start, start);
        snprintf(p->error_message, sizeof p->error_message, "%s", message);
    }
    pthread_mutex_unlock(&p->error_lock);
    longjmp(*chunk_exit, 1);
}

/* After a job: reports the earliest chunk's error, if any, unwinding to
 * the call's boundary (the caller has freed what it allocated). */
static void report_chunk_error(pool *p) {
    if (atomic_load(&p->error_chunk_start) != INT64_MAX) {
        atomic_store(&p->error_chunk_start, INT64_MAX);
        arr_raise(p->error_message);
    }
}

static int chunk_failed(const pool *p) {
    return atomic_load(&p->error_chunk_start) != INT64_MAX;
}

/* ---------------------------------------------------------------- nests */

typedef struct {
    pool *pool;
    const arr_nest *nest;
    void *env;
    int64_t width;
    int64_t chunk_size;
    /* num_chunks carry structs, one per chunk (NULL when nothing is carried). */
    unsigned char *carries;
    void *shared_carry;
} nest_job;

/* A hist nest's atomic body uses the caller's carry (the real bins). */
static void *carry_of(const nest_job *nj, int64_t chunk, void *shared) {
    return nj->carries == NULL ? shared : nj->carries + chunk * nj->nest->carry_size;
}

/* Runs `body` over [start, end) into `carry`, which holds the neutral
 * values on entry; a reduction nest's in blocks of `reduce_block`
 * iterations folded from the neutral carry, each combined into the running
 * total: a float sum then adds values of similar size instead of every
 * element to one large total (one sequential f32 sum over 10M elements near
 * 1.5 ends 15% low). The compiler asks for blocks only where a carried
 * float is narrower than f64: each block restarts the body's streams (a
 * split loop's two halves, its prefetches), which cost a sum of squares 5%
 * of its bandwidth in blocks of 16,384. */
static void run_body(const arr_nest *nest, void *env, int64_t start, int64_t end, void *carry) {
    size_t cs = (size_t)nest->carry_size;
    int64_t s, blk = nest->reduce_block;
    /* On the stack: a failing body leaves by longjmp, which would leak a
     * heap copy. Carries are a few scalars; a bigger one runs unblocked. */
    _Alignas(64) unsigned char neutral[1024];
    if (nest->kind != ARR_NEST_REDUCE || cs == 0 || blk <= 0 || end - start <= blk ||
        2 * cs > sizeof neutral) {
        nest->body(env, start, end, carry);
        return;
    }
    memcpy(neutral, carry, cs);
    nest->body(env, start, start + blk, carry);
    for (s = start + blk; s < end; s += blk) {
        unsigned char *block = neutral + cs;
        memcpy(block, neutral, cs);
        nest->body(env, s, end - s < blk ? end : s + blk, block);
        nest->combine(env, carry, block);
    }
}

static void nest_chunk(void *ctx, int64_t chunk) {
    nest_job *nj = ctx;
    int64_t start = chunk * nj->chunk_size;
    int64_t end = start + nj->chunk_size < nj->width ? start + nj->chunk_size : nj->width;
    jmp_buf exit_here;
    /* A chunk after one that failed cannot change the reported error. */
    if (start > atomic_load_explicit(&nj->pool->error_chunk_start, memory_order_relaxed)) {
        return;
    }
    in_parallel = 1;
    chunk_start = start;
    chunk_exit = &exit_here;
    chunk_pool = nj->pool;
    if (setjmp(exit_here) == 0) {
        run_body(nj->nest, nj->env, start, end, carry_of(nj, chunk, nj->shared_carry));
    }
    chunk_exit = NULL;
    in_parallel = 0;
}

/* In the calling thread. A hist nest's private body updates the bins the
 * carry points to without atomics; with one thread, nests inside run
 * inline too (there is no pool to hand them to). */
static void run_sequential(const arr_nest *nest, void *env, int64_t width, void *carry,
                           int threads) {
    int was_parallel = in_parallel;
    if (threads <= 1) {
        in_parallel = 1;
    }
    if (nest->kind == ARR_NEST_HIST && nest->private_body != NULL) {
        nest->private_body(env, 0, width, carry);
    } else {
        run_body(nest, env, 0, width, carry);
    }
    in_parallel = was_parallel;
}

typedef struct {
    pool *pool;
    const arr_nest *nest;
    void *env;
    int64_t width;
    int64_t chunk_size;
    unsigned char *carries;
} hist_job;

static void hist_chunk(void *ctx, int64_t chunk) {
    hist_job *hj = ctx;
    int64_t start = chunk * hj->chunk_size;
    int64_t end = start + hj->chunk_size < hj->width ? start + hj->chunk_size : hj->width;
    jmp_buf exit_here;
    void *bins = hj->carries + chunk * hj->nest->carry_size;
    if (start > atomic_load_explicit(&hj->pool->error_chunk_start, memory_order_relaxed)) {
        return;
    }
    in_parallel = 1;
    chunk_start = start;
    chunk_exit = &exit_here;
    chunk_pool = hj->pool;
    if (setjmp(exit_here) == 0) {
        hj->nest->private_body(hj->env, start, end, bins);
    }
    chunk_exit = NULL;
    in_parallel = 0;
}

/* Chunks of a private histogram per thread, where its bins are very few
 * next to the work, so that a thread that finishes first takes another
 * chunk rather than wait. Measured on k-means (16 bins) under `chrt`, it
 * changed nothing beyond noise: the wait seen in an earlier profile taken
 * without real-time priority was not there. */
#define HIST_CHUNKS_PER_THREAD 4
#define HIST_ITERATIONS_PER_BIN 64

/* Private copies of the bins, one per chunk, merged into the real ones in
 * chunk order afterwards (so a float histogram's result depends only on the
 * width and the thread count): no atomics, but each copy costs a fill and a
 * merge, so only when the bins are few next to the work, and more chunks
 * than threads only when they are very few. */
static int run_private_hist(pool *p, const arr_nest *nest, void *env, int64_t width,
                            void *carry, int threads) {
    hist_job hj;
    int64_t c, num_chunks = (int64_t)threads * HIST_CHUNKS_PER_THREAD;
    int failed;
    while (num_chunks > threads &&
           nest->bins * num_chunks > width / HIST_ITERATIONS_PER_BIN) {
        num_chunks -= threads;
    }
    hj.pool = p;
    hj.nest = nest;
    hj.env = env;
    hj.width = width;
    hj.chunk_size = (width + num_chunks - 1) / num_chunks;
    if (num_chunks > threads) {
        /* As arr_run_nest's chunks: whole cache lines of what it writes. */
        hj.chunk_size = (hj.chunk_size + 15) / 16 * 16;
        num_chunks = (width + hj.chunk_size - 1) / hj.chunk_size;
    }
    hj.carries = malloc((size_t)(num_chunks * nest->carry_size));
    if (hj.carries == NULL) {
        return 0;
    }
    for (c = 0; c < num_chunks; c++) {
        nest->hist(env, ARR_HIST_ALLOC, hj.carries + c * nest->carry_size, NULL);
    }
    parallel_chunks(p, num_chunks, hist_chunk, &hj);
    failed = chunk_failed(p);
    for (c = 0; c < num_chunks; c++) {
        if (!failed) {
            nest->hist(env, ARR_HIST_MERGE, carry, hj.carries + c * nest->carry_size);
        }
        nest->hist(env, ARR_HIST_FREE, hj.carries + c * nest->carry_size, NULL);
    }
    free(hj.carries);
    report_chunk_error(p);
    return 1;
}

/* ---------------------------------------------------------------- scans
 * Single-pass scans and compactions by decoupled look-back: a chunk computes
 * its totals (the `totals` function), publishes them, walks back over its
 * predecessors' published totals until one has published its inclusive
 * prefix, publishes its own, and runs the body from its carry-in while its
 * input is still in the cache. Chunks are claimed in increasing order, so a
 * predecessor is always running or done, and waiting cannot deadlock. */

#define SCAN_CHUNK 16384

enum { LB_NONE = 0, LB_TOTALS = 1, LB_PREFIX = 2, LB_ABANDONED = 3 };

typedef struct {
    nest_job *nj;
    void *init;
    /* Per chunk: status, totals, inclusive prefix. */
    atomic_int *status;
    unsigned char *totals;
    unsigned char *prefixes;
    /* Set when a chunk stopped before publishing its prefix with an error
     * of its own: the totals run only part of the body, so that error need
     * not be the one a sequential run meets first. */
    atomic_int totals_failed;
} look_back;


static void look_back_chunk(void *ctx, int64_t chunk) {
    look_back *lb = ctx;
    nest_job *nj = lb->nj;
    const arr_nest *nest = nj->nest;
    size_t cs = (size_t)nest->carry_size;
    int64_t start = chunk * nj->chunk_size;
    int64_t end = start + nj->chunk_size < nj->width ? start + nj->chunk_size : nj->width;
    unsigned char *mine = lb->totals + chunk * cs;
    unsigned char *prefix = lb->prefixes + chunk * cs;
    unsigned char *carry_in = carry_of(nj, chunk, NULL);
    jmp_buf exit_here;
    if (start > atomic_load_explicit(&nj->pool->error_chunk_start, memory_order_relaxed)) {
        atomic_store_explicit(&lb->status[chunk], LB_ABANDONED, memory_order_release);
        return;
    }
    in_parallel = 1;
    chunk_start = start;
    chunk_exit = &exit_here;
    chunk_pool = nj->pool;
    if (setjmp(exit_here) == 0) {
        int64_t k;
        int abandoned = 0;
        memcpy(mine, lb->init, cs);
        nest->totals(nj->env, start, end, mine);
        atomic_store_explicit(&lb->status[chunk], LB_TOTALS, memory_order_release);
        /* carry_in accumulates the exclusive prefix, right to left. */
        memcpy(carry_in, lb->init, cs);
        for (k = chunk - 1; k >= 0; k--) {
            int st;
            long spins = 0;
            while ((st = atomic_load_explicit(&lb->status[k], memory_order_acquire)) == LB_NONE) {
                wait_pause(nj->pool, &spins);
            }
            if (st == LB_ABANDONED) {
                abandoned = 1;
                break;
            }
            memcpy(prefix, st == LB_PREFIX ? lb->prefixes + k * cs : lb->totals + k * cs, cs);
            nest->combine_prefix(nj->env, prefix, carry_in);
            memcpy(carry_in, prefix, cs);
            if (st == LB_PREFIX) {
                break;
            }
        }
        if (abandoned) {
            atomic_store_explicit(&lb->status[chunk], LB_ABANDONED, memory_order_release);
        } else {
            memcpy(prefix, carry_in, cs);
            nest->combine_prefix(nj->env, prefix, mine);
            atomic_store_explicit(&lb->status[chunk], LB_PREFIX, memory_order_release);
            nest->body(nj->env, start, end, carry_in);
        }
    } else if (atomic_load(&lb->status[chunk]) != LB_PREFIX) {
        atomic_store(&lb->totals_failed, 1);
        atomic_store_explicit(&lb->status[chunk], LB_ABANDONED, memory_order_release);
    }
    chunk_exit = NULL;
    in_parallel = 0;
}

/* Runs a two-phase nest in one pass; 0 when it must run sequentially
 * instead (no memory, or an error in the totals). */
static int run_look_back(nest_job *nj, int64_t num_chunks, void *init) {
    size_t cs = (size_t)nj->nest->carry_size;
    look_back lb;
    int64_t c;
    int ok;
    lb.nj = nj;
    lb.init = init;
    lb.status = malloc((size_t)num_chunks * sizeof *lb.status);
    lb.totals = malloc((size_t)num_chunks * cs);
    lb.prefixes = malloc((size_t)num_chunks * cs);
    atomic_init(&lb.totals_failed, 0);
    ok = lb.status != NULL && lb.totals != NULL && lb.prefixes != NULL;
    if (ok) {
        for (c = 0; c < num_chunks; c++) {
            atomic_init(&lb.status[c], LB_NONE);
        }
        parallel_chunks(nj->pool, num_chunks, look_back_chunk, &lb);
        if (atomic_load(&lb.totals_failed)) {
            atomic_store(&nj->pool->error_chunk_start, INT64_MAX);
            ok = 0;
        }
    }
    free(lb.status);
    free(lb.totals);
    free(lb.prefixes);
    return ok;
}

void arr_run_nest(const arr_nest *nest, void *env, int64_t width, void *carry) {
    int threads;
    int64_t num_chunks, chunk_size, grain, c;
    nest_job nj;
    pool *p = in_parallel ? NULL : current_pool();
    threads = p == NULL ? 1 : p->size;
    grain = p != NULL && p->grain_override > 0 ? p->grain_override
            : nest->grain > 0                  ? nest->grain
                                               : 1;
    if (in_parallel || width < 2 * grain || nest->kind == ARR_NEST_SEQUENTIAL ||
        (nest->has_inner_nests && width < threads) ||
        (nest->kind == ARR_NEST_TWO_PHASE && nest->totals == NULL) || threads <= 1) {
        /* Too small, nested in a parallel chunk, or not parallelisable: run
         * here. A small outer nest thereby leaves the cores to the nests
         * inside it. */
        run_sequential(nest, env, width, carry, threads);
        return;
    }
    atomic_store(&p->error_chunk_start, INT64_MAX);
    if (nest->kind == ARR_NEST_HIST && nest->private_body != NULL &&
        nest->bins * threads <= width / 4 &&
        run_private_hist(p, nest, env, width, carry, threads)) {
        return;
    }
    if (nest->kind == ARR_NEST_HIST && nest->body == NULL) {
        /* Bins updated without atomics (several arrays per histogram that
         * must change together): one thread. */
        run_sequential(nest, env, width, carry, threads);
        return;
    }
    /* A few chunks per thread balance uneven iterations; none smaller than
     * the grain, and multiples of 16 iterations so that neighbouring chunks
     * rarely write the same cache line. */
    num_chunks = nest->kind == ARR_NEST_MAP ? (int64_t)threads * 8 : (int64_t)threads * 4;
    if (nest->kind == ARR_NEST_TWO_PHASE && num_chunks < width / SCAN_CHUNK) {
        /* A scan's chunk is read twice (totals, then the body): small
         * enough that the second read comes from the cache. */
        num_chunks = width / SCAN_CHUNK;
    }
    if (num_chunks > width / grain) {
        num_chunks = width / grain;
    }
    if (num_chunks < 2) {
        num_chunks = 2;
    }
    chunk_size = (width + num_chunks - 1) / num_chunks;
    if (chunk_size > 64) {
        chunk_size = (chunk_size + 15) / 16 * 16;
    }
    num_chunks = (width + chunk_size - 1) / chunk_size;
    nj.pool = p;
    nj.nest = nest;
    nj.env = env;
    nj.width = width;
    nj.chunk_size = chunk_size;
    nj.carries = NULL;
    nj.shared_carry = carry;
    if (nest->carry_size > 0 && nest->kind != ARR_NEST_HIST) {
        nj.carries = malloc((size_t)(num_chunks * nest->carry_size));
        if (nj.carries == NULL) {
            run_sequential(nest, env, width, carry, threads);
            return;
        }
        for (c = 0; c < num_chunks; c++) {
            memcpy(carry_of(&nj, c, NULL), carry, (size_t)nest->carry_size);
        }
    }
    if (nest->kind == ARR_NEST_TWO_PHASE) {
        if (!run_look_back(&nj, num_chunks, carry)) {
            free(nj.carries);
            run_sequential(nest, env, width, carry, threads);
            return;
        }
    } else {
        parallel_chunks(p, num_chunks, nest_chunk, &nj);
    }
    if (chunk_failed(p)) {
        free(nj.carries);
        report_chunk_error(p);
    }
    if (nj.carries != NULL) {
        /* Partial reductions in chunk order; scans and compactions end with
         * the last chunk's values. */
        for (c = 1; c < num_chunks; c++) {
            nest->combine(env, carry_of(&nj, 0, NULL), carry_of(&nj, c, NULL));
        }
        memcpy(carry, carry_of(&nj, 0, NULL), (size_t)nest->carry_size);
        free(nj.carries);
    }
}


int arr_in_parallel(void) { return in_parallel; }
