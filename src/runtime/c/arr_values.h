/* Value input and output of the host-common runtime (arr_values.c), for
 * `main` (arr_runtime.c): internal to those two files. Both follow section
 * 7 of the language contract and are kept byte-for-byte in step with the
 * Rust side in `src/runtime/value/`: same grammar, same messages, same float
 * spelling. */
#ifndef ARR_VALUES_H
#define ARR_VALUES_H

#include "arr_runtime.h"

#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__)
#define ARR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ARR_NORETURN __attribute__((noreturn))
#else
#define ARR_PRINTF(f, a)
#define ARR_NORETURN
#endif

/* The number of `arr_prim`s. */
#define ARR_NUM_PRIMS 12

/* The arguments on standard input, read one after the other. */
typedef struct {
    const unsigned char *buf;
    size_t len, pos;
    int arg; /* 1-based, for messages */
    arr_prim prim;
    int rank;
    /* text arrays: dimensions seen so far (-1: not yet known) */
    int64_t shape[ARR_MAX_RANK];
    unsigned char *data;
    size_t used, cap;
} arr_reader;

/* Reads argument `r->arg` of type (`prim`, `rank`) into `out`, text or
 * binary; bad input is an `Error: argument N: ...` line and exit 2. */
void arr_read_value(arr_reader *r, arr_prim prim, int rank, arr_value *out);
/* Skips whitespace and `--` comments. */
void arr_skip_space(arr_reader *r);
void arr_expect_fail(const arr_reader *r, size_t at, const char *what) ARR_NORETURN;

/* A result in the text or the binary value format (without the newline). */
/* The bytes of the elements of array `v` of type `t`. */
int64_t arr_value_bytes(const arr_type *t, const arr_value *v);
void arr_print_text(FILE *f, const arr_type *t, const arr_value *v);
void arr_print_binary(FILE *f, const arr_type *t, const arr_value *v);

/* Bad usage or bad input: `Error: ...` on stderr, exit 2 (arr_runtime.c). */
void arr_usage_fail(const char *fmt, ...) ARR_PRINTF(1, 2) ARR_NORETURN;

#endif
