/* What this machine lets a read-only stream do, next to the STREAM triad,
 * under the conditions of arrc's executables: arrays in memory placed as
 * arr_alloc places it (2 MiB aligned, MADV_HUGEPAGE, data 64 bytes in),
 * first touched by the main thread, a pool like arr_parallel.c's (the
 * worker spins 200,000 loads, then sleeps on a condition variable; 4
 * chunks per thread claimed from a counter), a warm-up and RUNS timed runs
 * per process. The loops are arrc's shapes written with intrinsics (AVX-512):
 *
 *   sumsq  sum of squares of f32 in f64, each chunk read as S streams side
 *          by side, 32 floats per stream per step, 4 accumulators each;
 *   dot    the same for the products of two f32 arrays;
 *   triad  b = b + s * c in place, b restored from a copy before each run
 *          (arrc's entry writes over its dead argument; the copy is untimed).
 *
 * Usage: readbw sumsq|dot|triad N RUNS TIMES_FILE, with the environment:
 *   S       streams per chunk, 1, 2, 4 or 8 (2)
 *   PF      prefetch distance in bytes per line read, 0 for none (4096)
 *   HINT    0 prefetcht0, 1 prefetcht1, 2 prefetcht2 (0)
 *   FLUSH   1: clflushopt the arrays before each timed run (no run finds
 *           any of its input in a cache)
 *   THREADS threads, the caller included (2)
 * Writes each timed run's microseconds to TIMES_FILE, the result to stdout.
 * Built and run by benches/membw/run.py. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { SUMSQ, DOT, TRIAD };
static int kind, streams = 2, pf = 4096, hint, threads = 2;
static float *xs, *ys, *saved, scale = 3.0f;
static int64_t n;

static void *arr_like(size_t bytes) {
    const size_t huge = (size_t)2 << 20;
    void *p;
    if (posix_memalign(&p, huge, bytes + 64) != 0) {
        exit(3);
    }
    madvise(p, (bytes + 64) / huge * huge, MADV_HUGEPAGE);
    return (char *)p + 64;
}

static inline void prefetch(const float *p) {
    const char *a = (const char *)p + pf;
    if (pf == 0) {
        return;
    }
    if (hint == 0) {
        _mm_prefetch(a, _MM_HINT_T0);
    } else if (hint == 1) {
        _mm_prefetch(a, _MM_HINT_T1);
    } else {
        _mm_prefetch(a, _MM_HINT_T2);
    }
}

/* One chunk [a, b) as NS streams of `part` elements each, then the rest. */
#define READ_LOOP(NAME, NS, STEP, TAIL)                                                  \
    static double NAME##_##NS(int64_t a, int64_t b) {                                    \
        int64_t part = ((b - a) / NS) & ~(int64_t)31;                                    \
        __m512d acc[NS][4];                                                              \
        double r = 0;                                                                    \
        for (int s = 0; s < NS; s++)                                                     \
            for (int k = 0; k < 4; k++) acc[s][k] = _mm512_setzero_pd();                 \
        for (int64_t i = a; i < a + part; i += 32) {                                     \
            _Pragma("GCC unroll 8") for (int s = 0; s < NS; s++) {                       \
                int64_t j = i + s * part;                                                \
                STEP                                                                     \
            }                                                                            \
        }                                                                                \
        for (int s = 0; s < NS; s++)                                                     \
            r += _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(acc[s][0], acc[s][1]), \
                                                    _mm512_add_pd(acc[s][2], acc[s][3]))); \
        for (int64_t j = a + NS * part; j < b; j++) r += TAIL;                           \
        return r;                                                                        \
    }

#define SUMSQ_STEP                                                      \
    prefetch(xs + j);                                                   \
    prefetch(xs + j + 16);                                              \
    _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {               \
        __m512d v = _mm512_cvtps_pd(_mm256_loadu_ps(xs + j + 8 * k));   \
        acc[s][k] = _mm512_fmadd_pd(v, v, acc[s][k]);                   \
    }
#define DOT_STEP                                                                           \
    prefetch(xs + j);                                                                      \
    prefetch(xs + j + 16);                                                                 \
    prefetch(ys + j);                                                                      \
    prefetch(ys + j + 16);                                                                 \
    _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {                                  \
        __m256 p = _mm256_mul_ps(_mm256_loadu_ps(xs + j + 8 * k), _mm256_loadu_ps(ys + j + 8 * k)); \
        acc[s][k] = _mm512_add_pd(acc[s][k], _mm512_cvtps_pd(p));                          \
    }

READ_LOOP(sumsq, 1, SUMSQ_STEP, (double)xs[j] * xs[j])
READ_LOOP(sumsq, 2, SUMSQ_STEP, (double)xs[j] * xs[j])
READ_LOOP(sumsq, 4, SUMSQ_STEP, (double)xs[j] * xs[j])
READ_LOOP(sumsq, 8, SUMSQ_STEP, (double)xs[j] * xs[j])
READ_LOOP(dot, 1, DOT_STEP, (double)(xs[j] * ys[j]))
READ_LOOP(dot, 2, DOT_STEP, (double)(xs[j] * ys[j]))
READ_LOOP(dot, 4, DOT_STEP, (double)(xs[j] * ys[j]))
READ_LOOP(dot, 8, DOT_STEP, (double)(xs[j] * ys[j]))

static double triad(int64_t a, int64_t b) {
    __m512 s = _mm512_set1_ps(scale);
    int64_t i = a;
    for (; i + 16 <= b; i += 16) {
        prefetch(xs + i);
        prefetch(ys + i);
        _mm512_storeu_ps(xs + i, _mm512_fmadd_ps(s, _mm512_loadu_ps(ys + i), _mm512_loadu_ps(xs + i)));
    }
    for (; i < b; i++) {
        xs[i] = xs[i] + scale * ys[i];
    }
    return 0;
}

static double run_chunk(int64_t a, int64_t b) {
    if (kind == TRIAD) {
        return triad(a, b);
    }
    if (kind == DOT) {
        return streams == 1 ? dot_1(a, b) : streams == 2 ? dot_2(a, b) : streams == 4 ? dot_4(a, b) : dot_8(a, b);
    }
    return streams == 1 ? sumsq_1(a, b) : streams == 2 ? sumsq_2(a, b) : streams == 4 ? sumsq_4(a, b) : sumsq_8(a, b);
}

/* ------------------------------------------------ the pool (arr_parallel.c's scheme) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static atomic_ulong generation;
static atomic_long next_chunk;
static atomic_int busy;
static int64_t num_chunks, chunk_size;
static double partial[1024];

static void claim_chunks(void) {
    long c;
    while ((c = atomic_fetch_add(&next_chunk, 1)) < num_chunks) {
        int64_t a = c * chunk_size, b = a + chunk_size < n ? a + chunk_size : n;
        partial[c] = run_chunk(a, b);
    }
}

static void *worker(void *arg) {
    unsigned long seen = 0;
    (void)arg;
    for (;;) {
        unsigned long g = atomic_load(&generation);
        long spins = 200000;
        while (g == seen && spins-- > 0) {
            g = atomic_load(&generation);
        }
        if (g == seen) {
            pthread_mutex_lock(&lock);
            while ((g = atomic_load(&generation)) == seen) {
                pthread_cond_wait(&wake, &lock);
            }
            pthread_mutex_unlock(&lock);
        }
        seen = g;
        claim_chunks();
        atomic_fetch_sub(&busy, 1);
    }
    return NULL;
}

static double kernel(void) {
    double r = 0;
    long spins = 0;
    num_chunks = 4 * threads;
    chunk_size = ((n + num_chunks - 1) / num_chunks + 15) / 16 * 16;
    num_chunks = (n + chunk_size - 1) / chunk_size;
    atomic_store(&next_chunk, 0);
    atomic_store(&busy, threads - 1);
    pthread_mutex_lock(&lock);
    atomic_fetch_add(&generation, 1);
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    claim_chunks();
    while (atomic_load(&busy) > 0) {
        if (++spins > 20000) {
            sched_yield();
        }
    }
    for (int64_t c = 0; c < num_chunks; c++) {
        r += partial[c];
    }
    return kind == TRIAD ? xs[n / 2] : r;
}

static void flush(float *p) {
    for (int64_t i = 0; p != NULL && i < n; i += 16) {
        _mm_clflushopt(p + i);
    }
}

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? atoi(v) : dflt;
}

static int64_t now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int main(int argc, char **argv) {
    int runs, do_flush;
    double r;
    FILE *tf;
    if (argc != 5) {
        fprintf(stderr, "usage: readbw sumsq|dot|triad N RUNS TIMES_FILE\n");
        return 2;
    }
    kind = strcmp(argv[1], "dot") == 0 ? DOT : strcmp(argv[1], "triad") == 0 ? TRIAD : SUMSQ;
    n = atoll(argv[2]);
    runs = atoi(argv[3]);
    streams = env_int("S", 2);
    pf = env_int("PF", 4096);
    hint = env_int("HINT", 0);
    do_flush = env_int("FLUSH", 0);
    threads = env_int("THREADS", 2);
    if (n < 1 || runs < 1 || threads < 1 || threads > 256 ||
        (streams != 1 && streams != 2 && streams != 4 && streams != 8)) {
        fprintf(stderr, "readbw: bad arguments\n");
        return 2;
    }
    xs = arr_like((size_t)n * 4);
    ys = kind == SUMSQ ? NULL : arr_like((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) {
        xs[i] = (float)((uint64_t)i * 2654435761u % 1000) * 1e-3f;
        if (ys != NULL) {
            ys[i] = (float)(i % 7) * 0.25f;
        }
    }
    if (kind == TRIAD) {
        saved = malloc((size_t)n * 4);
        if (saved == NULL) {
            return 3;
        }
        memcpy(saved, xs, (size_t)n * 4);
    }
    for (int i = 1; i < threads; i++) {
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
    }
    tf = fopen(argv[4], "w");
    if (tf == NULL) {
        return 3;
    }
    r = kernel(); /* warm-up */
    for (int i = 0; i < runs; i++) {
        int64_t t0;
        if (kind == TRIAD) {
            memcpy(xs, saved, (size_t)n * 4);
        }
        if (do_flush) {
            flush(xs);
            flush(ys);
            flush(saved);
            _mm_sfence();
        }
        t0 = now_us();
        r = kernel();
        fprintf(tf, "%lld\n", (long long)(now_us() - t0));
    }
    fclose(tf);
    printf("%.17g\n", r);
    return 0;
}
