/* The interface between an Arr program's generated code and the runtime
 * linked into every binary. The compiler generates, per program, one C file
 * (the glue) that defines `arr_entries`; the runtime defines `main` and the
 * functions compiled code calls. */
#ifndef ARR_RUNTIME_H
#define ARR_RUNTIME_H

#include <stdint.h>
#include <stddef.h>

#define ARR_MAX_RANK 8

typedef enum {
    ARR_I8, ARR_I16, ARR_I32, ARR_I64,
    ARR_U8, ARR_U16, ARR_U32, ARR_U64,
    ARR_F32, ARR_F64, ARR_BOOL,
    /* Last, so that the others keep their numbers. */
    ARR_F16
} arr_prim;

/* An entry point's parameter or result: a scalar (rank 0) or an array of
 * scalars (a tuple is several of these). */
typedef struct {
    arr_prim prim;
    int rank;
} arr_type;

/* A value passed to or returned from an entry point. Rank 0: the scalar is in
 * `scalar` (as the C type of `prim`; bool as one byte) and `data` is unused.
 * Rank >= 1: `data` points to the row-major elements, allocated by
 * `arr_alloc`, and `shape[0..rank)` holds the sizes. */
typedef struct {
    arr_type type;
    int64_t shape[ARR_MAX_RANK];
    void *data;
    union {
        int8_t i8; int16_t i16; int32_t i32; int64_t i64;
        uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
        float f32; double f64; uint8_t b;
        uint16_t f16; /* the bits of an IEEE binary16 */
    } scalar;
} arr_value;

/* Dimension `dim_a` of parameter `param_a` must equal dimension `dim_b` of
 * parameter `param_b` (both written with the same size parameter), or,
 * when `fixed` is not negative, `fixed` (a constant size in the type). */
typedef struct {
    int param_a, dim_a, param_b, dim_b;
    int64_t fixed;
} arr_size_constraint;

/* Runs the entry point: reads `args`, fills `results` (types and shapes set,
 * arrays allocated with `arr_alloc`; the caller frees them with `arr_free`). */
typedef void (*arr_entry_fn)(const arr_value *args, arr_value *results);

typedef struct {
    const char *name;
    int num_params;
    const arr_type *params;
    int num_results;
    const arr_type *results;
    int num_size_constraints;
    const arr_size_constraint *size_constraints;
    arr_entry_fn run;
} arr_entry;

/* Defined by the generated glue. */
extern const arr_entry arr_entries[];
extern const int arr_num_entries;

/* Called by compiled code. Each prints one `Error: ...` line naming the
 * source location `loc` ("FILE:LINE:COL") to stderr and exits with code 1. */
void arr_fail_bounds(int64_t index, int64_t length, const char *loc);
/* A slice `start:end:stride` (after defaults are filled in) that is not valid
 * on a dimension of `length`: "index 2:9:1 out of bounds for array of
 * length 5", as the interpreter says. */
void arr_fail_slice(int64_t start, int64_t end, int64_t stride, int64_t length,
                    const char *loc);
void arr_fail_size_mismatch(int64_t expected, int64_t found, const char *loc);
void arr_fail_division_by_zero(const char *loc);
void arr_fail_assert(const char *loc);
void arr_fail_negative_size(int64_t size, const char *loc);

/* Memory for arrays: never returns NULL (running out of memory is an error
 * exit); `bytes` may be 0. */
void *arr_alloc(int64_t bytes);
void arr_free(void *ptr);

/* `--threads N` (0 when not given: the runtime chooses). */
extern int arr_num_threads;

/* Memory traffic of a binary built with `--count-traffic`: array elements
 * loaded and stored by compiled code (atomic adds, as threads share them).
 * `main` resets them before each run and, when the glue has set
 * `arr_traffic_enabled`, prints the last run's counts on stderr after the
 * results. */
extern int64_t arr_traffic_reads;
extern int64_t arr_traffic_writes;
extern int arr_traffic_enabled;

/* ------------------------------------------------------------ parallel
 * Compiled code outlines every loop nest into a function over the
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
/* Stops and joins the pool's threads (at the end of `main`). */
void arr_pool_stop(void);
/* Whether the calling thread runs a chunk of a parallel nest (a nest
 * inside it then runs inline). */
int arr_in_parallel(void);
/* The pool's size (starting it on first use): `--threads`, else
 * `ARRC_THREADS`, else the number of cores. */
int arr_threads(void);
/* Inside a parallel chunk: records `message` (a whole `Error: ...` line)
 * and leaves the chunk, never returning. Outside: returns 0. */
int arr_fail_in_chunk(const char *message);

#endif
