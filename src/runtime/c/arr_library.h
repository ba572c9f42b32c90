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

/* Where a library's arrays live when not in host memory: a GPU library's
 * device (arr_gpu_library.c sets `arr_lib_device` before `main`; NULL in a
 * CPU library). Every operation returns 0, or 1 with the context's error
 * set: a failure of the driver or a missing GPU is such an error, never an
 * exit. Device memory is tagged with its context's serial number (`owner`),
 * so that freeing the context frees what it still holds. `enter` and
 * `leave` bracket an entry's call (the device is the process's: calls
 * through it take its lock); `leave` frees what a failed call allocated. */
typedef struct {
    /* Opens the device for a new context (the first one initialises it). */
    int (*open)(struct arrc_context *ctx);
    /* Frees the device memory of the context `owner` (and, when no context
     * is left, the pool's cache). */
    void (*close)(uint64_t owner);
    int (*enter)(struct arrc_context *ctx);
    /* `failed`: the call ended with a run-time error; 1 when the device
     * failed too (its message replaces the call's). */
    int (*leave)(struct arrc_context *ctx, int failed);
    int (*alloc)(struct arrc_context *ctx, int64_t bytes, void **out);
    /* Memory of `owner` (a block the pool no longer holds for `owner`, as
     * after its context was freed, is left alone). */
    void (*free)(uint64_t owner, void *p);
    int (*copy_in)(struct arrc_context *ctx, void *dst, const void *src, int64_t bytes);
    int (*copy_out)(struct arrc_context *ctx, void *dst, const void *src, int64_t bytes);
    int (*copy_within)(struct arrc_context *ctx, void *dst, const void *src, int64_t bytes);
} arr_lib_device_ops;

extern const arr_lib_device_ops *arr_lib_device;

/* An array handed to or by the user: every `struct arrc_T_Nd` is one of
 * these. `owned`: the data is the context's memory, freed with the array
 * (else the user's, from `arrc_new_raw_*`). Arrays are immutable, so one
 * is shared rather than copied (a projection out of an opaque value, a
 * field given to `arrc_new_opaque_*`): `refs` counts its holders, and
 * `arrc_free_*` frees it when the last lets go. */
typedef struct {
    void *data;
    int owned;
    int rank;
    int refs;
    /* The serial number of the context whose memory `data` is. */
    uint64_t owner;
    int64_t shape[];
} arr_lib_array;

/* One leaf of an opaque value: a scalar of `type` or an array. */
typedef struct {
    arr_type type;
    union {
        uint64_t bits;
        unsigned char bytes[8];
    } scalar;
    arr_lib_array *array;
} arr_lib_leaf;

/* A record, tuple, sum-type value or array of those (`struct
 * arrc_opaque_NAME`), as the leaves the entry points take it as; `rank`
 * outer dimensions are shared by every leaf (an array of records). */
typedef struct {
    int num_leaves;
    int rank;
    arr_lib_leaf leaves[];
} arr_lib_opaque;

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
/* The array's data, for reading in place (`arrc_values_raw_*`). */
void *arr_lib_values_raw(struct arrc_context *ctx, const arr_lib_array *a);
/* Another holder of `a` (`arr_lib_free` lets go of it). */
arr_lib_array *arr_lib_ref(arr_lib_array *a);

/* An opaque value with `n` leaves of `types`, scalars zero and no arrays
 * yet; NULL with the error set without memory. */
arr_lib_opaque *arr_lib_opaque_alloc(struct arrc_context *ctx, int n, const arr_type *types,
                                     int rank);
/* Frees `o` and lets go of its arrays. */
int arr_lib_opaque_free(struct arrc_context *ctx, arr_lib_opaque *o);
/* Points `in[0..n)` at the leaves of `o` (which has `n`) as `arr_lib_entry`
 * takes them; 1 with the error set when `o` is NULL or not of `n` leaves
 * (`what` names the value in the message). */
int arr_lib_opaque_in(struct arrc_context *ctx, const arr_lib_opaque *o, int n, const char *what,
                      const void **in);
/* Points `out[0..)` at the leaves of `o` for `arr_lib_entry` to fill. */
void arr_lib_opaque_out(arr_lib_opaque *o, void **out);
/* Frees an opaque value that `arr_lib_entry` failed to fill. */
void arr_lib_opaque_discard(arr_lib_opaque *o);
/* A new opaque value of `n` leaves of `types` from `in[0..n)` (pointers to
 * scalars, or arrays, which it shares); a NULL leaf is a zero or an empty
 * array. Checks that the arrays agree on the `rank` outer dimensions;
 * 0, or 1 with the error set. */
int arr_lib_opaque_new(struct arrc_context *ctx, arr_lib_opaque **out, int n,
                       const arr_type *types, int rank, const void *const *in);
/* Copies the scalars of leaves `first..first+n` of `o` to `out[i]` and
 * shares its arrays (`*(arr_lib_array **)out[i]`); 1 with the error set
 * when `o` is NULL. */
int arr_lib_opaque_get(struct arrc_context *ctx, const arr_lib_opaque *o, int first, int n,
                       void *const *out);
/* Leaves `first..first+n` of `o` as a new opaque value of outer rank
 * `rank`, sharing its arrays; 0, or 1 with the error set. */
int arr_lib_opaque_part(struct arrc_context *ctx, arr_lib_opaque **out, const arr_lib_opaque *o,
                        int first, int n, int rank);
/* The shared outer dimensions of `o` (NULL when it has no array leaf). */
const int64_t *arr_lib_opaque_shape(struct arrc_context *ctx, const arr_lib_opaque *o);
/* Element `index[0..o->rank)` of the array of opaque values `o` (of `n`
 * leaves) as a new opaque value whose leaves have `types` (the array's
 * less its outer dimensions): scalars read, arrays copied; 0, or 1 with the
 * error set (an index out of bounds). */
int arr_lib_opaque_index(struct arrc_context *ctx, arr_lib_opaque **out, const arr_lib_opaque *o,
                         int n, const arr_type *types, const int64_t *index);
/* A new array of opaque values of `n` leaves of `types` and `rank` outer
 * dimensions `dims` from the opaque values `elems` (row-major, one per
 * element), which must agree on the shapes of their arrays (an array with
 * no elements, a sum value's payload of another constructor, is zeros);
 * 0, or 1 with the error set. */
int arr_lib_opaque_stack(struct arrc_context *ctx, arr_lib_opaque **out, int n,
                         const arr_type *types, int rank, const int64_t *dims,
                         const void *const *elems);
/* Sets the error for a NULL array where `what` needs one; 1. */
int arr_lib_null(struct arrc_context *ctx, const char *what);
/* Sets the error for destructing a sum-type value as a constructor it
 * does not hold; 1. */
int arr_lib_not_variant(struct arrc_context *ctx, const char *ctor);
/* The tag of a sum-type value (its leaf 0): the constructor's index. */
int arr_lib_opaque_variant(struct arrc_context *ctx, const arr_lib_opaque *o);

#endif
