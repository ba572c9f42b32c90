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

/* ------------------------------------------------------------ backend hooks
 * Set by a backend's runtime that runs compiled code on threads of its own
 * (the multicore scheduler sets them when it starts its pool); NULL when
 * there is none. */
/* Called with the whole `Error: ...` line of a run-time error before it is
 * printed: inside a parallel chunk it records the error and leaves the
 * chunk, never returning; elsewhere it returns and the error is printed. */
extern int (*arr_error_hook)(const char *message);
/* Called at the end of `main`, after the results are printed. */
extern void (*arr_exit_hook)(void);

#endif
