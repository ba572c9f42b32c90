/* The C API of a library built with `arrc build --library` (arr_library.c):
 * the generic half behind the per-program functions the generated glue
 * defines (`arrc_new_f32_1d`, `arrc_entry_NAME`, ...; docs/library.md). The
 * context, config and error functions are here whole; the glue's typed
 * functions are one-line calls of the `arr_lib_*` ones. */
#ifndef ARR_LIBRARY_H
#define ARR_LIBRARY_H

#include "arr_runtime.h"

/* The one symbol visibility the shared library exports (a version script
 * keeps everything else local as well). */
#define ARRC_API __attribute__((visibility("default")))

struct arrc_context;

/* An array handed to or by the user: every `struct arrc_T_Nd` is one of
 * these. `owned`: the data is the context's memory, freed with the array
 * (else the user's, from `arrc_new_raw_*`). */
typedef struct {
    void *data;
    int owned;
    int rank;
    int64_t shape[];
} arr_lib_array;

/* A new array of `prim`, `rank` and `dims` holding a copy of `data`
 * (`copy`) or `data` itself; NULL with the context's error set on a
 * negative size or no memory. */
arr_lib_array *arr_lib_new(struct arrc_context *ctx, arr_prim prim, int rank,
                           const int64_t *dims, const void *data, int copy);
/* Copies the elements of `a` to `out`; 0, or 1 with the error set. */
int arr_lib_values(struct arrc_context *ctx, const arr_lib_array *a, arr_prim prim, void *out);
const int64_t *arr_lib_shape(struct arrc_context *ctx, const arr_lib_array *a);
int arr_lib_free(struct arrc_context *ctx, arr_lib_array *a);
/* Runs `e`: `in[i]` points to parameter i's scalar or is its
 * `arr_lib_array *`; `out[j]` is where result j's scalar or
 * `arr_lib_array *` goes. 0, or non-zero with the error set. */
int arr_lib_entry(struct arrc_context *ctx, const arr_entry *e, const void *const *in,
                  void *const *out);

#endif
