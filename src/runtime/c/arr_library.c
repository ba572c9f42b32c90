/* The C API of a library built with `arrc build --library` (see
 * arr_library.h and docs/library.md): configs, contexts, errors, and the
 * generic array and entry functions behind the glue's typed ones. Every
 * run-time error comes back as a non-zero result with its message in the
 * context (`arrc_context_get_error`); nothing here exits the process. */
#define _POSIX_C_SOURCE 200809L
#include "arr_library.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const arr_lib_device_ops *arr_lib_device = NULL;

struct arrc_context_config {
    int threads;
};

ARRC_API struct arrc_context_config *arrc_context_config_new(void) {
    return calloc(1, sizeof(struct arrc_context_config));
}

ARRC_API void arrc_context_config_free(struct arrc_context_config *cfg) { free(cfg); }

/* 0 (the default): `ARRC_THREADS`, else one thread per core. */
ARRC_API void arrc_context_config_set_threads(struct arrc_context_config *cfg, int n) {
    cfg->threads = n > 0 ? n : 0;
}

/* Futhark's name for the same setting. */
ARRC_API void arrc_context_config_set_num_threads(struct arrc_context_config *cfg, int n) {
    arrc_context_config_set_threads(cfg, n);
}

/* NULL without memory. A GPU library opens the device here: when that
 * fails (no driver, no GPU), the context is returned with the error set,
 * as Futhark's is, and every call on it fails with that message. */
ARRC_API struct arrc_context *arrc_context_new(const struct arrc_context_config *cfg) {
    arr_ctx *ctx = arr_ctx_new(cfg == NULL ? 0 : cfg->threads);
    if (ctx != NULL && arr_lib_device != NULL) {
        (void)arr_lib_device->open((struct arrc_context *)ctx);
    }
    return (struct arrc_context *)ctx;
}

/* Frees the context's memory: the arrays its user did not free, on the
 * host and on the device. */
ARRC_API void arrc_context_free(struct arrc_context *ctx) {
    if (ctx != NULL && arr_lib_device != NULL) {
        arr_lib_device->close(arr_ctx_serial((arr_ctx *)ctx));
    }
    arr_ctx_free((arr_ctx *)ctx);
}

/* Entry points return when their work is done (a GPU entry waits for its
 * kernels): nothing is left to wait for. */
ARRC_API int arrc_context_sync(struct arrc_context *ctx) {
    (void)ctx;
    return 0;
}

/* The last error's message (malloc'd: the caller frees it), clearing it;
 * NULL when there is none. */
ARRC_API char *arrc_context_get_error(struct arrc_context *ctx) {
    const char *message = arr_ctx_error((arr_ctx *)ctx);
    char *copy;
    if (message[0] == '\0') {
        return NULL;
    }
    copy = strdup(message);
    arr_ctx_clear_error((arr_ctx *)ctx);
    return copy;
}

static size_t prim_size(arr_prim prim) {
    switch (prim) {
    case ARR_I8: case ARR_U8: case ARR_BOOL: return 1;
    case ARR_I16: case ARR_U16: case ARR_F16: return 2;
    case ARR_I32: case ARR_U32: case ARR_F32: return 4;
    default: return 8;
    }
}

static void set_error(struct arrc_context *ctx, const char *message) {
    arr_ctx_set_error((arr_ctx *)ctx, message);
}

/* The number of bytes of `rank` dimensions `dims` of `prim`; -1 when a
 * dimension is negative or the total does not fit. */
static int64_t array_bytes(arr_prim prim, int rank, const int64_t *dims) {
    int64_t n = (int64_t)prim_size(prim);
    int i, empty = 0;
    for (i = 0; i < rank; i++) {
        if (dims[i] < 0) {
            return -1;
        }
        empty |= dims[i] == 0;
    }
    if (empty) {
        return 0;
    }
    for (i = 0; i < rank; i++) {
        if (n > INT64_MAX / dims[i]) {
            return -1;
        }
        n *= dims[i];
    }
    return n;
}

/* A new array header of `rank` and `dims`, without data; NULL with the
 * error set without memory. */
static arr_lib_array *header(struct arrc_context *ctx, int rank, const int64_t *dims) {
    arr_lib_array *a = malloc(sizeof *a + (size_t)rank * sizeof(int64_t));
    if (a == NULL) {
        set_error(ctx, "Error: out of memory\n");
        return NULL;
    }
    a->rank = rank;
    a->refs = 1;
    a->owned = 1;
    a->owner = arr_ctx_serial((arr_ctx *)ctx);
    a->data = NULL;
    memcpy(a->shape, dims, (size_t)rank * sizeof(int64_t));
    return a;
}

/* A new array of `bytes` in device memory. */
static arr_lib_array *device_array(struct arrc_context *ctx, int rank, const int64_t *dims,
                                   int64_t bytes) {
    arr_lib_array *a = header(ctx, rank, dims);
    if (a != NULL && arr_lib_device->alloc(ctx, bytes, &a->data) != 0) {
        free(a);
        return NULL;
    }
    return a;
}

arr_lib_array *arr_lib_new(struct arrc_context *ctx, arr_prim prim, int rank,
                           const int64_t *dims, const void *data, int copy) {
    int64_t bytes = array_bytes(prim, rank, dims);
    arr_lib_array *a;
    if (bytes < 0) {
        set_error(ctx, "Error: invalid array shape (a negative dimension, or too many elements)\n");
        return NULL;
    }
    if (bytes > 0 && data == NULL) {
        set_error(ctx, "Error: no data for a non-empty array\n");
        return NULL;
    }
    if (arr_lib_device != NULL) {
        /* On the device: `data` is copied there (new_raw too). */
        a = device_array(ctx, rank, dims, bytes);
        if (a != NULL && bytes > 0 && arr_lib_device->copy_in(ctx, a->data, data, bytes) != 0) {
            arr_lib_free(ctx, a);
            return NULL;
        }
        return a;
    }
    a = header(ctx, rank, dims);
    if (a == NULL) {
        return NULL;
    }
    a->owned = copy;
    if (!copy) {
        a->data = (void *)data;
        return a;
    }
    a->data = arr_alloc_in((arr_ctx *)ctx, bytes);
    if (a->data == NULL) {
        char message[128];
        snprintf(message, sizeof message,
                 "Error: out of memory (allocating %" PRId64 " bytes)\n", bytes);
        set_error(ctx, message);
        free(a);
        return NULL;
    }
    if (bytes > 0) {
        memcpy(a->data, data, (size_t)bytes);
    }
    return a;
}

int arr_lib_values(struct arrc_context *ctx, const arr_lib_array *a, arr_prim prim, void *out) {
    int64_t bytes;
    if (a == NULL) {
        set_error(ctx, "Error: no array (NULL)\n");
        return 1;
    }
    bytes = array_bytes(prim, a->rank, a->shape);
    if (bytes > 0 && arr_lib_device != NULL) {
        return arr_lib_device->copy_out(ctx, out, a->data, bytes);
    } else if (bytes > 0) {
        memcpy(out, a->data, (size_t)bytes);
    }
    return 0;
}

const int64_t *arr_lib_shape(struct arrc_context *ctx, const arr_lib_array *a) {
    (void)ctx;
    return a == NULL ? NULL : a->shape;
}

/* NULL for an array on the device, which host code cannot read. */
void *arr_lib_values_raw(struct arrc_context *ctx, const arr_lib_array *a) {
    (void)ctx;
    return a == NULL || arr_lib_device != NULL ? NULL : a->data;
}

/* Frees memory of context `owner` (host or device). */
static void free_data(uint64_t owner, void *data) {
    if (arr_lib_device != NULL) {
        arr_lib_device->free(owner, data);
    } else {
        arr_free(data);
    }
}

arr_lib_array *arr_lib_ref(arr_lib_array *a) {
    __atomic_add_fetch(&a->refs, 1, __ATOMIC_RELAXED);
    return a;
}

int arr_lib_free(struct arrc_context *ctx, arr_lib_array *a) {
    (void)ctx;
    if (a != NULL && __atomic_sub_fetch(&a->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        if (a->owned) {
            free_data(a->owner, a->data);
        }
        free(a);
    }
    return 0;
}

/* Wraps result `j`'s array; a copy when the compiled code handed back an
 * argument's or an earlier result's memory, so that every array owns its
 * own. NULL without memory. */
static arr_lib_array *wrap_result(struct arrc_context *ctx, const arr_entry *e,
                                  const arr_value *args, const arr_value *results, int j) {
    const arr_type *t = &e->results[j];
    const arr_value *v = &results[j];
    int i, shared = 0;
    for (i = 0; i < e->num_params; i++) {
        shared |= e->params[i].rank > 0 && args[i].data == v->data;
    }
    for (i = 0; i < j; i++) {
        shared |= e->results[i].rank > 0 && results[i].data == v->data;
    }
    if (shared && arr_lib_device != NULL) {
        int64_t bytes = array_bytes(t->prim, t->rank, v->shape);
        arr_lib_array *a = device_array(ctx, t->rank, v->shape, bytes);
        if (a != NULL && bytes > 0 &&
            arr_lib_device->copy_within(ctx, a->data, v->data, bytes) != 0) {
            arr_lib_free(ctx, a);
            return NULL;
        }
        return a;
    }
    if (shared) {
        return arr_lib_new(ctx, t->prim, t->rank, v->shape, v->data, 1);
    }
    /* The block the compiled code wrote becomes the array's: no copy. */
    arr_lib_array *a = header(ctx, t->rank, v->shape);
    if (a != NULL) {
        a->data = v->data;
    }
    return a;
}

int arr_lib_entry(struct arrc_context *ctx, const arr_entry *e, const void *const *in,
                  void *const *out) {
    arr_value *args = calloc((size_t)e->num_params + 1, sizeof *args);
    arr_value *results = calloc((size_t)e->num_results + 1, sizeof *results);
    arr_lib_array **wrapped = calloc((size_t)e->num_results + 1, sizeof *wrapped);
    char message[600];
    int i, j, rc = 1;
    if (args == NULL || results == NULL || wrapped == NULL) {
        set_error(ctx, "Error: out of memory\n");
        goto done;
    }
    for (i = 0; i < e->num_params; i++) {
        args[i].type = e->params[i];
        if (e->params[i].rank == 0) {
            memcpy(&args[i].scalar, in[i], prim_size(e->params[i].prim));
        } else {
            const arr_lib_array *a = in[i];
            if (a == NULL || a->rank != e->params[i].rank) {
                snprintf(message, sizeof message, "Error: argument %d: no array of rank %d\n",
                         i + 1, e->params[i].rank);
                set_error(ctx, message);
                goto done;
            }
            args[i].data = a->data;
            memcpy(args[i].shape, a->shape, (size_t)a->rank * sizeof(int64_t));
        }
    }
    if (arr_check_sizes(e, args, message, 512)) {
        char line[620];
        snprintf(line, sizeof line, "Error: %s\n", message);
        set_error(ctx, line);
        goto done;
    }
    if (arr_lib_device != NULL && arr_lib_device->enter(ctx) != 0) {
        goto done;
    }
    rc = arr_call((arr_ctx *)ctx, e, args, results);
    if (arr_lib_device != NULL && arr_lib_device->leave(ctx, rc != 0) != 0) {
        rc = 1;
    }
    if (rc != 0) {
        goto done;
    }
    rc = 0;
    for (j = 0; j < e->num_results && rc == 0; j++) {
        if (e->results[j].rank > 0 && (wrapped[j] = wrap_result(ctx, e, args, results, j)) == NULL) {
            rc = 1;
        }
    }
    if (rc != 0) {
        /* Out of memory while wrapping: nothing is handed out. Copies go
         * with their wrappers; the call's own arrays once each. */
        for (j = 0; j < e->num_results; j++) {
            if (wrapped[j] != NULL) {
                if (wrapped[j]->data != results[j].data) {
                    free_data(wrapped[j]->owner, wrapped[j]->data);
                }
                free(wrapped[j]);
            }
        }
        for (j = 0; j < e->num_results; j++) {
            int k, shared = 0;
            for (k = 0; k < e->num_params; k++) {
                shared |= e->params[k].rank > 0 && args[k].data == results[j].data;
            }
            for (k = 0; k < j; k++) {
                shared |= e->results[k].rank > 0 && results[k].data == results[j].data;
            }
            if (e->results[j].rank > 0 && !shared) {
                free_data(arr_ctx_serial((arr_ctx *)ctx), results[j].data);
            }
        }
        goto done;
    }
    for (j = 0; j < e->num_results; j++) {
        if (e->results[j].rank == 0) {
            memcpy(out[j], &results[j].scalar, prim_size(e->results[j].prim));
        } else {
            *(arr_lib_array **)out[j] = wrapped[j];
        }
    }
done:
    free(args);
    free(results);
    free(wrapped);
    return rc;
}

/* ------------------------------------------------------------ opaque values */

arr_lib_opaque *arr_lib_opaque_alloc(struct arrc_context *ctx, int n, const arr_type *types,
                                     int rank) {
    arr_lib_opaque *o = calloc(1, sizeof *o + (size_t)n * sizeof(arr_lib_leaf));
    int i;
    if (o == NULL) {
        set_error(ctx, "Error: out of memory\n");
        return NULL;
    }
    o->num_leaves = n;
    o->rank = rank;
    for (i = 0; i < n; i++) {
        o->leaves[i].type = types[i];
    }
    return o;
}

int arr_lib_opaque_free(struct arrc_context *ctx, arr_lib_opaque *o) {
    int i;
    if (o != NULL) {
        for (i = 0; i < o->num_leaves; i++) {
            arr_lib_free(ctx, o->leaves[i].array);
        }
        free(o);
    }
    return 0;
}

int arr_lib_opaque_in(struct arrc_context *ctx, const arr_lib_opaque *o, int n, const char *what,
                      const void **in) {
    int i;
    if (o == NULL || o->num_leaves != n) {
        char message[256];
        snprintf(message, sizeof message, "Error: %s: no opaque value of its type\n", what);
        set_error(ctx, message);
        return 1;
    }
    for (i = 0; i < n; i++) {
        in[i] = o->leaves[i].type.rank == 0 ? (const void *)&o->leaves[i].scalar
                                            : (const void *)o->leaves[i].array;
    }
    return 0;
}

void arr_lib_opaque_out(arr_lib_opaque *o, void **out) {
    int i;
    for (i = 0; i < o->num_leaves; i++) {
        out[i] = o->leaves[i].type.rank == 0 ? (void *)&o->leaves[i].scalar
                                             : (void *)&o->leaves[i].array;
    }
}

void arr_lib_opaque_discard(arr_lib_opaque *o) { free(o); }

int arr_lib_opaque_new(struct arrc_context *ctx, arr_lib_opaque **out, int n,
                       const arr_type *types, int rank, const void *const *in) {
    arr_lib_opaque *o;
    const arr_lib_array *first = NULL;
    int i, d;
    char message[256];
    for (i = 0; i < n; i++) {
        const arr_lib_array *a = in[i];
        if (types[i].rank == 0 || a == NULL) {
            continue;
        }
        if (a->rank != types[i].rank) {
            snprintf(message, sizeof message, "Error: field %d: no array of rank %d\n", i + 1,
                     types[i].rank);
            set_error(ctx, message);
            return 1;
        }
        for (d = 0; first != NULL && d < rank; d++) {
            if (a->shape[d] != first->shape[d]) {
                snprintf(message, sizeof message,
                         "Error: size mismatch: dimension %d of the arrays is %" PRId64
                         " and %" PRId64 "\n",
                         d + 1, first->shape[d], a->shape[d]);
                set_error(ctx, message);
                return 1;
            }
        }
        if (first == NULL) {
            first = a;
        }
    }
    o = arr_lib_opaque_alloc(ctx, n, types, rank);
    if (o == NULL) {
        return 1;
    }
    for (i = 0; i < n; i++) {
        arr_lib_leaf *l = &o->leaves[i];
        if (types[i].rank == 0) {
            if (in[i] != NULL) {
                memcpy(&l->scalar, in[i], prim_size(types[i].prim));
            }
        } else if (in[i] != NULL) {
            l->array = arr_lib_ref((arr_lib_array *)in[i]);
        } else {
            int64_t zeros[ARR_MAX_RANK] = {0};
            l->array = arr_lib_new(ctx, types[i].prim, types[i].rank, zeros, NULL, 1);
            if (l->array == NULL) {
                arr_lib_opaque_free(ctx, o);
                return 1;
            }
        }
    }
    *out = o;
    return 0;
}

int arr_lib_null(struct arrc_context *ctx, const char *what) {
    char message[256];
    snprintf(message, sizeof message, "Error: %s: no array (NULL)\n", what);
    set_error(ctx, message);
    return 1;
}

int arr_lib_not_variant(struct arrc_context *ctx, const char *ctor) {
    char message[256];
    snprintf(message, sizeof message, "Error: the value is not #%s\n", ctor);
    set_error(ctx, message);
    return 1;
}

static int no_opaque(struct arrc_context *ctx) {
    set_error(ctx, "Error: no opaque value (NULL)\n");
    return 1;
}

int arr_lib_opaque_get(struct arrc_context *ctx, const arr_lib_opaque *o, int first, int n,
                       void *const *out) {
    int i;
    if (o == NULL || first + n > o->num_leaves) {
        return no_opaque(ctx);
    }
    for (i = 0; i < n; i++) {
        const arr_lib_leaf *l = &o->leaves[first + i];
        if (l->type.rank == 0) {
            memcpy(out[i], &l->scalar, prim_size(l->type.prim));
        } else {
            *(arr_lib_array **)out[i] = arr_lib_ref(l->array);
        }
    }
    return 0;
}

int arr_lib_opaque_part(struct arrc_context *ctx, arr_lib_opaque **out, const arr_lib_opaque *o,
                        int first, int n, int rank) {
    arr_lib_opaque *part;
    int i;
    if (o == NULL || first + n > o->num_leaves) {
        return no_opaque(ctx);
    }
    part = calloc(1, sizeof *part + (size_t)n * sizeof(arr_lib_leaf));
    if (part == NULL) {
        set_error(ctx, "Error: out of memory\n");
        return 1;
    }
    part->num_leaves = n;
    part->rank = rank;
    for (i = 0; i < n; i++) {
        part->leaves[i] = o->leaves[first + i];
        if (part->leaves[i].array != NULL) {
            arr_lib_ref(part->leaves[i].array);
        }
    }
    *out = part;
    return 0;
}

const int64_t *arr_lib_opaque_shape(struct arrc_context *ctx, const arr_lib_opaque *o) {
    int i;
    (void)ctx;
    for (i = 0; o != NULL && i < o->num_leaves; i++) {
        if (o->leaves[i].array != NULL) {
            return o->leaves[i].array->shape;
        }
    }
    return NULL;
}

int arr_lib_opaque_variant(struct arrc_context *ctx, const arr_lib_opaque *o) {
    if (o == NULL || o->num_leaves == 0) {
        no_opaque(ctx);
        return -1;
    }
    return o->leaves[0].scalar.bytes[0];
}

/* ------------------------------------------------ arrays of opaque values */

/* A new array of `prim`, `rank` and `dims` whose data is not set yet (in
 * device memory in a GPU library); NULL with the error set. */
static arr_lib_array *fresh_array(struct arrc_context *ctx, arr_prim prim, int rank,
                                  const int64_t *dims) {
    int64_t bytes = array_bytes(prim, rank, dims);
    arr_lib_array *a;
    if (bytes < 0) {
        set_error(ctx, "Error: invalid array shape (a negative dimension, or too many elements)\n");
        return NULL;
    }
    if (arr_lib_device != NULL) {
        return device_array(ctx, rank, dims, bytes);
    }
    a = header(ctx, rank, dims);
    if (a != NULL && (a->data = arr_alloc_in((arr_ctx *)ctx, bytes)) == NULL) {
        set_error(ctx, "Error: out of memory\n");
        free(a);
        return NULL;
    }
    return a;
}

/* Copies `bytes` from `src` (host memory) or, with `within`, from the
 * library's memory, to the library's memory at `dst`; 0, or 1 with the
 * error set. */
static int put(struct arrc_context *ctx, void *dst, const void *src, int64_t bytes, int within) {
    if (bytes <= 0) {
        return 0;
    }
    if (arr_lib_device == NULL) {
        memcpy(dst, src, (size_t)bytes);
        return 0;
    }
    return within ? arr_lib_device->copy_within(ctx, dst, src, bytes)
                  : arr_lib_device->copy_in(ctx, dst, src, bytes);
}

/* The elements of `a` past its first `outer` dimensions, in bytes. */
static int64_t inner_bytes(const arr_lib_array *a, arr_prim prim, int outer) {
    return array_bytes(prim, a->rank - outer, a->shape + outer);
}

int arr_lib_opaque_index(struct arrc_context *ctx, arr_lib_opaque **out, const arr_lib_opaque *o,
                         int n, const arr_type *types, const int64_t *index) {
    arr_lib_opaque *e;
    const int64_t *shape = arr_lib_opaque_shape(ctx, o);
    int64_t flat = 0;
    int i, d;
    if (o == NULL || o->num_leaves != n || o->rank == 0 || shape == NULL) {
        return no_opaque(ctx);
    }
    for (d = 0; d < o->rank; d++) {
        if (index[d] < 0 || index[d] >= shape[d]) {
            char message[160];
            snprintf(message, sizeof message,
                     "Error: index %" PRId64 " out of bounds for array of length %" PRId64 "\n",
                     index[d], shape[d]);
            set_error(ctx, message);
            return 1;
        }
        flat = flat * shape[d] + index[d];
    }
    if ((e = arr_lib_opaque_alloc(ctx, n, types, 0)) == NULL) {
        return 1;
    }
    for (i = 0; i < n; i++) {
        const arr_lib_array *a = o->leaves[i].array;
        arr_prim prim = types[i].prim;
        int64_t bytes = inner_bytes(a, prim, o->rank);
        const char *from = (const char *)a->data + flat * bytes;
        int failed;
        if (types[i].rank == 0) {
            failed = arr_lib_device != NULL
                         ? arr_lib_device->copy_out(ctx, &e->leaves[i].scalar, from, bytes)
                         : (memcpy(&e->leaves[i].scalar, from, (size_t)bytes), 0);
        } else {
            e->leaves[i].array = fresh_array(ctx, prim, types[i].rank, a->shape + o->rank);
            failed = e->leaves[i].array == NULL ||
                     put(ctx, e->leaves[i].array->data, from, bytes, 1) != 0;
        }
        if (failed) {
            arr_lib_opaque_free(ctx, e);
            return 1;
        }
    }
    *out = e;
    return 0;
}

/* Leaf `i` of the array made of `count` elements `elems` (its type
 * `type`, `rank` outer dimensions `dims`): the elements' scalars, or
 * their arrays one after another. An element's array with no elements (a
 * sum value's payload of a constructor it does not hold) is zeros. */
static arr_lib_array *stack_leaf(struct arrc_context *ctx, int i, arr_type type, int rank,
                                 const int64_t *dims, int64_t count,
                                 const arr_lib_opaque *const *elems) {
    int64_t full[ARR_MAX_RANK];
    const arr_lib_array *like = NULL;
    arr_lib_array *a;
    int64_t k, bytes;
    char *zeros = NULL;
    int d, inner = type.rank - rank, failed = 0;
    size_t size = prim_size(type.prim);
    memcpy(full, dims, (size_t)rank * sizeof(int64_t));
    for (k = 0; inner > 0 && k < count; k++) {
        const arr_lib_array *x = elems[k]->leaves[i].array;
        if (like == NULL || inner_bytes(like, type.prim, 0) == 0) {
            like = x;
        } else if (inner_bytes(x, type.prim, 0) != 0 &&
                   memcmp(x->shape, like->shape, (size_t)inner * sizeof(int64_t)) != 0) {
            char message[200];
            snprintf(message, sizeof message,
                     "Error: element %" PRId64 " holds an array of another shape than the "
                     "elements before it (an array's elements must be regular)\n",
                     k);
            set_error(ctx, message);
            return NULL;
        }
    }
    for (d = 0; d < inner; d++) {
        full[rank + d] = like != NULL ? like->shape[d] : 0;
    }
    if ((a = fresh_array(ctx, type.prim, type.rank, full)) == NULL) {
        return NULL;
    }
    bytes = inner > 0 ? array_bytes(type.prim, inner, full + rank) : (int64_t)size;
    if (bytes > 0 && (zeros = calloc(1, (size_t)bytes)) == NULL) {
        set_error(ctx, "Error: out of memory\n");
        arr_lib_free(ctx, a);
        return NULL;
    }
    for (k = 0; k < count && !failed; k++) {
        const arr_lib_leaf *l = &elems[k]->leaves[i];
        char *to = (char *)a->data + k * bytes;
        if (inner == 0) {
            failed = put(ctx, to, &l->scalar, bytes, 0);
        } else if (inner_bytes(l->array, type.prim, 0) == 0) {
            failed = put(ctx, to, zeros, bytes, 0);
        } else {
            failed = put(ctx, to, l->array->data, bytes, 1);
        }
    }
    free(zeros);
    if (failed) {
        arr_lib_free(ctx, a);
        return NULL;
    }
    return a;
}

int arr_lib_opaque_stack(struct arrc_context *ctx, arr_lib_opaque **out, int n,
                         const arr_type *types, int rank, const int64_t *dims,
                         const void *const *elems) {
    const arr_lib_opaque *const *es = (const arr_lib_opaque *const *)elems;
    arr_lib_opaque *o;
    int64_t count = array_bytes(ARR_I8, rank, dims), k;
    int i;
    if (count < 0) {
        set_error(ctx, "Error: invalid array shape (a negative dimension, or too many elements)\n");
        return 1;
    }
    if (count > 0 && elems == NULL) {
        return arr_lib_null(ctx, "elems");
    }
    for (k = 0; k < count; k++) {
        if (es[k] == NULL || es[k]->num_leaves != n || es[k]->rank != 0) {
            char message[128];
            snprintf(message, sizeof message,
                     "Error: element %" PRId64 ": no opaque value of its type\n", k);
            set_error(ctx, message);
            return 1;
        }
    }
    if ((o = arr_lib_opaque_alloc(ctx, n, types, rank)) == NULL) {
        return 1;
    }
    for (i = 0; i < n; i++) {
        if ((o->leaves[i].array = stack_leaf(ctx, i, types[i], rank, dims, count, es)) == NULL) {
            arr_lib_opaque_free(ctx, o);
            return 1;
        }
    }
    *out = o;
    return 0;
}
