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

ARRC_API struct arrc_context *arrc_context_new(const struct arrc_context_config *cfg) {
    return (struct arrc_context *)arr_ctx_new(cfg == NULL ? 0 : cfg->threads);
}

ARRC_API void arrc_context_free(struct arrc_context *ctx) { arr_ctx_free((arr_ctx *)ctx); }

/* Entry points return when their work is done: nothing is left to wait for. */
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
    a = malloc(sizeof *a + (size_t)rank * sizeof(int64_t));
    if (a == NULL) {
        set_error(ctx, "Error: out of memory\n");
        return NULL;
    }
    a->rank = rank;
    memcpy(a->shape, dims, (size_t)rank * sizeof(int64_t));
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
    if (bytes > 0) {
        memcpy(out, a->data, (size_t)bytes);
    }
    return 0;
}

const int64_t *arr_lib_shape(struct arrc_context *ctx, const arr_lib_array *a) {
    (void)ctx;
    return a == NULL ? NULL : a->shape;
}

int arr_lib_free(struct arrc_context *ctx, arr_lib_array *a) {
    (void)ctx;
    if (a != NULL) {
        if (a->owned) {
            arr_free(a->data);
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
    if (shared) {
        return arr_lib_new(ctx, t->prim, t->rank, v->shape, v->data, 1);
    }
    arr_lib_array *a = arr_lib_new(ctx, t->prim, t->rank, v->shape, v->data, 0);
    if (a != NULL) {
        a->owned = 1;
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
    if (arr_call((arr_ctx *)ctx, e, args, results)) {
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
                    arr_free(wrapped[j]->data);
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
                arr_free(results[j].data);
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
