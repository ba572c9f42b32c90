/* The multicore scheduler (arr_parallel.c): a thread pool per context and the
 * strategies that run a compiled loop nest on it. The CPU code generator
 * fills an `arr_nest` descriptor per nest and calls `arr_run_nest`; the
 * descriptor's layout is the code generator's too, which the glue checks
 * with `_Static_assert`s (codegen::cpu::nest). */
#ifndef ARR_PARALLEL_H
#define ARR_PARALLEL_H

#include "arr_runtime.h"

/* Compiled code outlines every loop nest into a function over the
 * iterations [start, end): `env` holds what the nest reads, `carry` its
 * carried values (initial values in, final values out). */
typedef void (*arr_loop_fn)(void *env, int64_t start, int64_t end, void *carry);
/* Combines the carried values of a later chunk (`other`) into `acc`. */
typedef void (*arr_combine_fn)(void *env, void *acc, const void *other);
/* Private histogram bins held in a carry struct: ARR_HIST_ALLOC points
 * `a`'s bins at fresh arrays filled with the neutral element, ARR_HIST_MERGE
 * combines `b`'s bins into `a`'s with the operator, ARR_HIST_FREE frees
 * `a`'s. */
typedef void (*arr_hist_fn)(void *env, int32_t op, void *a, const void *b);
enum { ARR_HIST_ALLOC = 0, ARR_HIST_MERGE = 1, ARR_HIST_FREE = 2 };

typedef enum {
    /* Independent iterations (maps, scatters). */
    ARR_NEST_MAP = 0,
    /* Per-chunk partial reductions, combined in chunk order. */
    ARR_NEST_REDUCE = 1,
    /* Scans and compactions: per-chunk totals (`totals`), combined by
     * look-back into each chunk's carry-in, then the body on the chunk. */
    ARR_NEST_TWO_PHASE = 2,
    /* Histograms: atomic updates (`body`) or per-thread private bins
     * (`private_body`, `hist`), chosen by the number of bins. */
    ARR_NEST_HIST = 3,
    /* Must run in order (a carried array, an unsafe scan). */
    ARR_NEST_SEQUENTIAL = 4
} arr_nest_kind;

typedef struct {
    /* NULL for a histogram whose bins only private copies or one thread
     * may update (no atomic update of them exists). */
    arr_loop_fn body;
    /* ARR_NEST_TWO_PHASE: runs only what the scans' and compactions'
     * carried values need (no writes); NULL: run sequentially. */
    arr_loop_fn totals;
    /* Reductions: acc = acc op other; scans and compactions: acc = other. */
    arr_combine_fn combine;
    /* Scans and compactions: acc = acc op other; reductions untouched. */
    arr_combine_fn combine_prefix;
    arr_loop_fn private_body;
    arr_hist_fn hist;
    int64_t carry_size;
    /* Iterations worth one parallel task: fewer than two grains run here. */
    int64_t grain;
    /* ARR_NEST_REDUCE: iterations folded from the neutral carry before they
     * join the running total (a float sum narrower than f64 stays
     * accurate); 0: the whole chunk at once. */
    int64_t reduce_block;
    /* ARR_NEST_HIST: the number of bins of all its histograms. */
    int64_t bins;
    int32_t kind;
    /* Whether the body holds loop nests of its own: fewer iterations than
     * threads then run here, leaving the cores to the inner nests. */
    int32_t has_inner_nests;
} arr_nest;

/* Runs a nest over [0, width) on the thread pool (or inline when it is
 * small or already inside a parallel nest). */
void arr_run_nest(const arr_nest *nest, void *env, int64_t width, void *carry);
/* Whether the calling thread runs a chunk of a parallel nest (a nest
 * inside it then runs inline). */
int arr_in_parallel(void);
/* The size of the current context's pool (starting it on first use): the
 * context's threads, else `ARRC_THREADS`, else the number of cores; 1
 * outside any context. The pool stops when its context is freed. */
int arr_threads(void);
/* The error hook. Inside a parallel chunk: records `message` (a whole `Error: ...` line)
 * and leaves the chunk, never returning. Outside: returns 0. */
int arr_fail_in_chunk(const char *message);

#endif
