/* The host-common interface between an Arr program's generated code and
 * the runtime linked into every binary (arr_runtime.c): the value ABI of
 * entry points, run-time errors, memory, and the traffic counters. The
 * compiler generates, per program, one C file (the glue) that defines
 * `arr_entries`; the runtime defines `main` and the functions compiled code
 * calls. What runs loop nests is a backend's own runtime: the multicore
 * scheduler (arr_parallel.h) for the CPU. */
#ifndef ARR_RUNTIME_H
#define ARR_RUNTIME_H

#include <stdint.h>
#include <stddef.h>

/* The highest rank of an entry point's parameter or result: the binary
 * value format stores the rank in one byte. */
#define ARR_MAX_RANK 255

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
    /* The same entry unfused and sequential in its errors (NULL when the
     * build has none): after a run-time error the runtime re-runs the
     * arguments here and reports this run's first error, the one a
     * sequential reading of the program meets. */
    arr_entry_fn exact;
    /* Per parameter, 1 where the entry overwrites the argument's array
     * (its caller gives it up: an executable's; loopy::donate); NULL: none.
     * A result may then be that array. */
    const unsigned char *overwritten;
} arr_entry;

/* Defined by the generated glue. */
extern const arr_entry arr_entries[];
extern const int arr_num_entries;

/* ---------------------------------------------------------------- contexts
 * A context owns what one user of the compiled code holds: its threads (the
 * backend's, e.g. the multicore pool), its memory, and the last run-time
 * error. Entry points run through `arr_call`, the boundary: a run-time
 * error anywhere below it (inside parallel chunks too) unwinds to it
 * (`longjmp`), the memory the failed call allocated is freed, and the
 * context stays usable for the next call. The executable's `main` and the
 * library's entry functions both call through it. */
typedef struct arr_ctx arr_ctx;

/* A context whose backend uses `threads` threads (0: `ARRC_THREADS`, else
 * one per core); NULL without memory. */
arr_ctx *arr_ctx_new(int threads);
void arr_ctx_free(arr_ctx *ctx);
int arr_ctx_threads(const arr_ctx *ctx);
/* A number no other context of the process has had (1, 2, ...). */
uint64_t arr_ctx_serial(const arr_ctx *ctx);
/* The context the calling thread works for (NULL: none), and setting it
 * (a backend's worker threads set their context's). */
arr_ctx *arr_ctx_current(void);
void arr_ctx_set_current(arr_ctx *ctx);
/* A backend's state in the context (the thread pool), freed with it by
 * `free_state`; `reset` restores the calling thread's state after a failed
 * call. */
void *arr_ctx_backend(const arr_ctx *ctx);
void arr_ctx_set_backend(arr_ctx *ctx, void *state, void (*free_state)(void *),
                         void (*reset)(void));
/* Runs entry `e` on `args` into `results` through the boundary; 0, or 1
 * after a run-time error, whose whole `Error: ...` line `arr_ctx_error`
 * then gives (the results hold no arrays). Calls on one context are
 * serialised. */
int arr_call(arr_ctx *ctx, const arr_entry *e, const arr_value *args, arr_value *results);
/* Where the arguments of the exact-errors fallback come from when the
 * entry's arrays are not in host memory (a GPU library's live on the
 * device): NULL, or a function that returns host copies of `args` made
 * with `arr_alloc` (freed with the call). It runs under the call's
 * boundary, after the failed run, so it may raise. */
extern const arr_value *(*arr_exact_inputs)(const arr_entry *e, const arr_value *args);
/* The last error's message ("" when there is none). */
const char *arr_ctx_error(const arr_ctx *ctx);
void arr_ctx_set_error(arr_ctx *ctx, const char *message);
void arr_ctx_clear_error(arr_ctx *ctx);
/* Unwinds to the boundary of the current call with `message` (a whole
 * `Error: ...` line); without one it prints the message and exits 1. */
void arr_raise(const char *message) __attribute__((noreturn));
/* Checks the arguments' sizes against the entry's size parameters: 0, or
 * 1 with the message (without `Error: ` and newline) in `msg`. */
int arr_check_sizes(const arr_entry *e, const arr_value *args, char *msg, size_t len);
/* Memory of `ctx` outside any call (the library's arrays): NULL when there
 * is none, never an error. */
void *arr_alloc_in(arr_ctx *ctx, int64_t bytes);

/* Called by compiled code. Each reports one `Error: ...` line naming the
 * source location `loc` ("FILE:LINE:COL"): it unwinds to the boundary of
 * the call (`arr_raise`). */
void arr_fail_bounds(int64_t index, int64_t length, const char *loc);
/* A slice `start:end:stride` (after defaults are filled in) that is not valid
 * on a dimension of `length`: "index 2:9:1 out of bounds for array of
 * length 5", as the interpreter says. */
void arr_fail_slice(int64_t start, int64_t end, int64_t stride, int64_t length,
                    const char *loc);
void arr_fail_size_mismatch(int64_t expected, int64_t found, const char *loc);
void arr_fail_division_by_zero(const char *loc);
void arr_fail_negative_exponent(const char *loc);
void arr_fail_assert(const char *loc);
void arr_fail_assert_condition(const char *cond, const char *loc);
void arr_fail_negative_size(int64_t size, const char *loc);
void arr_fail_range(int64_t start, int64_t second, int64_t end, int64_t form, const char *loc);

/* Memory for arrays, of the current context (tracked, so that a failed
 * call frees what it allocated): never returns NULL (running out of memory
 * is a run-time error); `bytes` may be 0. */
void *arr_alloc(int64_t bytes);
void arr_free(void *ptr);

/* `--threads N` of an executable (0 when not given: the runtime chooses). */
extern int arr_num_threads;

/* Memory traffic of a binary built with `--count-traffic`: array elements
 * loaded and stored by compiled code (atomic adds, as threads share them).
 * `main` resets them before each run and, when the glue has set
 * `arr_traffic_enabled`, prints the last run's counts on stderr after the
 * results. */
extern int64_t arr_traffic_reads;
extern int64_t arr_traffic_writes;
extern int arr_traffic_enabled;

/* Microseconds of the current run that `-t` leaves out: a GPU executable's
 * copies of the entry's arguments to the device and of its results back
 * (as Futhark's GPU backends and JAX's timings leave them out). `main`
 * resets it before each timed run; 0 on the CPU. */
extern int64_t arr_untimed_us;

/* ------------------------------------------------------------ backend hook
 * Set by a backend's runtime that runs compiled code on threads of its own
 * (the multicore scheduler sets it when a pool starts); NULL when there is
 * none. Called with the whole `Error: ...` line of a run-time error before
 * it unwinds: inside a parallel chunk it records the error and leaves the
 * chunk, never returning; elsewhere it returns. */
extern int (*arr_error_hook)(const char *message);

#endif
