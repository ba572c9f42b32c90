/* Value input and output (see arr_values.h): the reader of the arguments on
 * standard input, in text or binary per argument, and the printer of the
 * results, with the canonical float spelling. */
#define _POSIX_C_SOURCE 200809L
#include "arr_values.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- types */

static const char *const prim_names[ARR_NUM_PRIMS] = {"i8",  "i16", "i32", "i64",
                                                  "u8",  "u16", "u32", "u64",
                                                  "f32", "f64", "bool", "f16"};
static const char *const prim_binary_names[ARR_NUM_PRIMS] = {
    "  i8", " i16", " i32", " i64", "  u8", " u16",
    " u32", " u64", " f32", " f64", "bool", " f16"};
static const int prim_sizes[ARR_NUM_PRIMS] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 1, 2};

static int prim_is_signed(arr_prim p) { return p <= ARR_I64; }
static int prim_is_unsigned(arr_prim p) { return p >= ARR_U8 && p <= ARR_U64; }
static int prim_is_float(arr_prim p) { return p == ARR_F16 || p == ARR_F32 || p == ARR_F64; }
static int prim_bits(arr_prim p) { return prim_sizes[p] * 8; }

int64_t arr_value_bytes(const arr_type *t, const arr_value *v) {
    int64_t bytes = prim_sizes[t->prim];
    int d;
    for (d = 0; d < t->rank; d++) {
        bytes *= v->shape[d];
    }
    return bytes;
}

/* `[][]f32` */
static void type_string(char *out, size_t n, arr_prim prim, int rank) {
    size_t k = 0;
    int i;
    out[0] = '\0';
    for (i = 0; i < rank && k + 3 < n; i++) {
        out[k++] = '[';
        out[k++] = ']';
    }
    out[k] = '\0';
    snprintf(out + k, n - k, "%s", prim_names[prim]);
}

/* ---------------------------------------------------------------- floats */

/* f16 as its bits (IEEE binary16): the nearest half to a double, ties to
 * even, and its exact value; the same conversions as `types::half` in the
 * compiler, so that the interpreter and binaries read and print alike. */
static uint16_t f16_from_double(double x) {
    uint64_t b, man, sig, kept, rest, half;
    uint16_t sign;
    int64_t exp, e;
    unsigned drop;
    memcpy(&b, &x, 8);
    sign = (uint16_t)((b >> 48) & 0x8000);
    exp = (int64_t)((b >> 52) & 0x7ff);
    man = b & ((UINT64_C(1) << 52) - 1);
    if (exp == 0x7ff) {
        return (uint16_t)(sign | 0x7c00 | (man ? (0x200 | ((man >> 42) & 0x3ff)) : 0));
    }
    if (exp == 0) {
        return sign;
    }
    e = exp - 1023;
    sig = (UINT64_C(1) << 52) | man;
    drop = (unsigned)(e >= -14 ? 42 : 42 + (-14 - e));
    if (drop >= 64) {
        return sign;
    }
    kept = sig >> drop;
    rest = sig & ((UINT64_C(1) << drop) - 1);
    half = UINT64_C(1) << (drop - 1);
    kept += rest > half || (rest == half && (kept & 1));
    if (e < -14) {
        return (uint16_t)(sign | kept);
    }
    if (kept == (UINT64_C(1) << 11)) {
        kept >>= 1;
        e++;
    }
    if (e + 15 >= 31) {
        return (uint16_t)(sign | 0x7c00);
    }
    return (uint16_t)(sign | ((uint16_t)(e + 15) << 10) | (kept & 0x3ff));
}

static double f16_to_double(uint16_t h) {
    int exp = (h >> 10) & 0x1f;
    double man = h & 0x3ff, v;
    if (exp == 0) {
        v = ldexp(man, -24);
    } else if (exp == 31) {
        v = man != 0 ? NAN : INFINITY;
    } else {
        v = ldexp(1024 + man, exp - 25);
    }
    return (h & 0x8000) ? -v : v;
}

/* The canonical spelling of a finite float. The digits: print the value
 * once with 40 correctly rounded significant digits, then binary-search the
 * fewest leading digits, at most 17 (f32: 9, which always read back), that,
 * rounded half up from those 40, still read back to the same value (strtod
 * or strtof); rounding from 17 (9) digits would round twice. The layout: positional when the decimal exponent is in [-5, 16],
 * scientific otherwise, always with a `.`: `1.0`, `0.001`, `1.5e-7`,
 * `1.0e20`. `value.rs` implements exactly the same algorithm. */
static int round_digits(const char *all, int n, int p, char *out, int *exp10) {
    int i, carry;
    memcpy(out, all, (size_t)p);
    carry = p < n && all[p] >= '5';
    for (i = p - 1; i >= 0 && carry; i--) {
        if (out[i] == '9') {
            out[i] = '0';
        } else {
            out[i]++;
            carry = 0;
        }
    }
    if (carry) {
        /* 99.. rounded up to 100..: one digit more in front. */
        out[0] = '1';
        for (i = 1; i < p; i++) {
            out[i] = '0';
        }
        (*exp10)++;
    }
    out[p] = '\0';
    return p;
}

/* `bits`: 16, 32 or 64, the float type the digits must read back as. */
static int float_round_trips(const char *digits, int nd, int exp10, double v, int bits) {
    char buf[64];
    int k = 0, i;
    unsigned e = exp10 < 0 ? 0u - (unsigned)exp10 : (unsigned)exp10;
    char rev[12];
    int nr = 0;
    /* Built by hand: snprintf would dominate the cost of printing floats. */
    buf[k++] = digits[0];
    buf[k++] = '.';
    for (i = 1; i < nd; i++) {
        buf[k++] = digits[i];
    }
    if (nd == 1) {
        buf[k++] = '0';
    }
    buf[k++] = 'e';
    if (exp10 < 0) {
        buf[k++] = '-';
    }
    do {
        rev[nr++] = (char)('0' + e % 10);
        e /= 10;
    } while (e > 0 && nr < 11);
    while (nr > 0) {
        buf[k++] = rev[--nr];
    }
    buf[k] = '\0';
    if (bits == 16) {
        return f16_from_double(strtod(buf, NULL)) == f16_from_double(v);
    }
    return bits == 32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v;
}

static void format_float(char *out, size_t n, double v, int bits) {
    char buf[80], all[48], digits[48];
    int maxd = bits == 16 ? 5 : bits == 32 ? 9 : 17, na = 0, nd, exp10, all_exp, neg, lo, hi;
    size_t k = 0;
    const char *s;
    snprintf(buf, sizeof buf, "%.*e", 39, v);
    s = buf;
    neg = *s == '-';
    if (neg) {
        s++;
    }
    while (*s && *s != 'e') {
        if (*s >= '0' && *s <= '9' && na < 47) {
            all[na++] = *s;
        }
        s++;
    }
    all[na] = '\0';
    all_exp = *s == 'e' ? atoi(s + 1) : 0;
    lo = 1;
    hi = na < maxd ? na : maxd;
    while (lo < hi) {
        int mid = (lo + hi) / 2, e = all_exp;
        round_digits(all, na, mid, digits, &e);
        /* The digits carry no sign: compare magnitudes. */
        if (float_round_trips(digits, mid, e, fabs(v), bits)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    exp10 = all_exp;
    nd = round_digits(all, na, hi, digits, &exp10);
    /* Trailing zeros carry no information. */
    while (nd > 1 && digits[nd - 1] == '0') {
        nd--;
    }
    digits[nd] = '\0';

#define PUT(c)                                                                 \
    do {                                                                       \
        if (k + 1 < n) {                                                       \
            out[k++] = (c);                                                    \
        }                                                                      \
    } while (0)
    if (neg) {
        PUT('-');
    }
    if (exp10 < -5 || exp10 > 16) {
        int i;
        char e[16];
        PUT(digits[0]);
        PUT('.');
        if (nd == 1) {
            PUT('0');
        }
        for (i = 1; i < nd; i++) {
            PUT(digits[i]);
        }
        snprintf(e, sizeof e, "e%d", exp10);
        for (i = 0; e[i]; i++) {
            PUT(e[i]);
        }
    } else if (exp10 >= 0) {
        int i;
        for (i = 0; i <= exp10; i++) {
            PUT(i < nd ? digits[i] : '0');
        }
        PUT('.');
        if (nd <= exp10 + 1) {
            PUT('0');
        }
        for (i = exp10 + 1; i < nd; i++) {
            PUT(digits[i]);
        }
    } else {
        int i;
        PUT('0');
        PUT('.');
        for (i = 0; i < -exp10 - 1; i++) {
            PUT('0');
        }
        for (i = 0; i < nd; i++) {
            PUT(digits[i]);
        }
    }
#undef PUT
    out[k] = '\0';
}

/* ---------------------------------------------------------------- input */


static void input_fail(const arr_reader *r, size_t at, const char *fmt, ...)
    ARR_PRINTF(3, 4) ARR_NORETURN;
static void input_fail(const arr_reader *r, size_t at, const char *fmt, ...) {
    va_list ap;
    long line = 1;
    size_t i, line_start = 0;
    for (i = 0; i < at && i < r->len; i++) {
        if (r->buf[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    }
    fflush(stdout);
    fprintf(stderr, "Error: argument %d: ", r->arg);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " at line %ld, column %ld\n", line, (long)(at - line_start + 1));
    exit(2);
}

static int is_word_char(unsigned char c) { return isalnum(c) || c == '_' || c == '.'; }

/* What the input holds at `at`, for "found ..." in messages. */
static void describe(const arr_reader *r, size_t at, char *out, size_t n) {
    unsigned char c;
    if (at >= r->len) {
        snprintf(out, n, "end of input");
        return;
    }
    c = r->buf[at];
    if (is_word_char(c) || c == '-' || c == '+') {
        size_t end = at, k = 0;
        char tok[40];
        while (end < r->len && k < 32 &&
               (is_word_char(r->buf[end]) || r->buf[end] == '-' || r->buf[end] == '+')) {
            tok[k++] = (char)r->buf[end++];
        }
        tok[k] = '\0';
        snprintf(out, n, "'%s%s'", tok,
                 end < r->len && k == 32 &&
                         (is_word_char(r->buf[end]) || r->buf[end] == '-' ||
                          r->buf[end] == '+')
                     ? "..."
                     : "");
    } else if (c >= 0x21 && c <= 0x7e) {
        snprintf(out, n, "'%c'", c);
    } else {
        snprintf(out, n, "byte 0x%02x", c);
    }
}

void arr_skip_space(arr_reader *r) {
    while (r->pos < r->len) {
        unsigned char c = r->buf[r->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            r->pos++;
        } else if (c == '-' && r->pos + 1 < r->len && r->buf[r->pos + 1] == '-') {
            while (r->pos < r->len && r->buf[r->pos] != '\n') {
                r->pos++;
            }
        } else {
            break;
        }
    }
}

void arr_expect_fail(const arr_reader *r, size_t at, const char *what) {
    char found[64];
    describe(r, at, found, sizeof found);
    input_fail(r, at, "expected %s, found %s", what, found);
}

static void expect_char(arr_reader *r, char c) {
    char what[8];
    arr_skip_space(r);
    if (r->pos < r->len && r->buf[r->pos] == (unsigned char)c) {
        r->pos++;
        return;
    }
    snprintf(what, sizeof what, "'%c'", c);
    arr_expect_fail(r, r->pos, what);
}

/* A scalar token: an optional `-`, then letters, digits, `_` and `.`, and a
 * sign right after the exponent marker of a decimal number. */
static size_t scan_word(const arr_reader *r, size_t at) {
    size_t p = at;
    int hex;
    if (p < r->len && r->buf[p] == '-') {
        p++;
    }
    hex = p + 1 < r->len && r->buf[p] == '0' && (r->buf[p + 1] == 'x' || r->buf[p + 1] == 'X');
    while (p < r->len) {
        unsigned char c = r->buf[p];
        if (is_word_char(c)) {
            p++;
        } else if ((c == '+' || c == '-') && !hex && p > at &&
                   (r->buf[p - 1] == 'e' || r->buf[p - 1] == 'E')) {
            p++;
        } else {
            break;
        }
    }
    return p;
}

static int word_is(const unsigned char *w, size_t n, const char *s) {
    return strlen(s) == n && memcmp(w, s, n) == 0;
}

static int digit_value(unsigned char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return 99;
}

typedef union {
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    float f32; double f64; uint8_t b;
} scalar_bits;

enum { SCALAR_OK, SCALAR_MISMATCH, SCALAR_RANGE };

/* Reads the literal `w[0..n)` as a value of `prim`. */
static int parse_scalar(arr_prim prim, const unsigned char *w, size_t n, scalar_bits *out) {
    int neg = n > 0 && w[0] == '-';
    const unsigned char *b = w + neg;
    size_t bn = n - (size_t)neg, i = 0, digits_end;
    int base = 10, is_float_form = 0, ndigits = 0;
    uint64_t mag = 0;
    int overflow = 0;
    if (word_is(b, bn, "true") || word_is(b, bn, "false")) {
        if (prim != ARR_BOOL || neg) {
            return SCALAR_MISMATCH;
        }
        out->b = b[0] == 't';
        return SCALAR_OK;
    }
    if (bn == 7 &&
        (memcmp(b, "f16.", 4) == 0 || memcmp(b, "f32.", 4) == 0 || memcmp(b, "f64.", 4) == 0) &&
        (memcmp(b + 4, "inf", 3) == 0 || memcmp(b + 4, "nan", 3) == 0)) {
        arr_prim t = b[1] == '1' ? ARR_F16 : b[1] == '3' ? ARR_F32 : ARR_F64;
        double v = b[4] == 'i' ? (neg ? -INFINITY : INFINITY) : NAN;
        if (t != prim) {
            return SCALAR_MISMATCH;
        }
        if (t == ARR_F16) {
            out->u16 = f16_from_double(v);
        } else if (t == ARR_F32) {
            out->f32 = (float)v;
        } else {
            out->f64 = v;
        }
        return SCALAR_OK;
    }
    if (prim == ARR_BOOL || bn == 0 || !(b[0] >= '0' && b[0] <= '9')) {
        return SCALAR_MISMATCH;
    }
    if (bn >= 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X' || b[1] == 'b' || b[1] == 'B')) {
        base = (b[1] == 'x' || b[1] == 'X') ? 16 : 2;
        i = 2;
    }
    while (i < bn && (b[i] == '_' || digit_value(b[i]) < base)) {
        if (b[i] != '_') {
            uint64_t d = (uint64_t)digit_value(b[i]);
            if (mag > (UINT64_MAX - d) / (uint64_t)base) {
                overflow = 1;
            } else {
                mag = mag * (uint64_t)base + d;
            }
            ndigits++;
        }
        i++;
    }
    if (ndigits == 0) {
        return SCALAR_MISMATCH;
    }
    if (base == 10) {
        if (i < bn && b[i] == '.') {
            size_t s = ++i;
            while (i < bn && ((b[i] >= '0' && b[i] <= '9') || b[i] == '_')) {
                i++;
            }
            if (i == s || b[s] == '_') {
                return SCALAR_MISMATCH;
            }
            is_float_form = 1;
        }
        if (i < bn && (b[i] == 'e' || b[i] == 'E')) {
            size_t s;
            i++;
            if (i < bn && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            s = i;
            while (i < bn && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == s) {
                return SCALAR_MISMATCH;
            }
            is_float_form = 1;
        }
    }
    digits_end = i;
    if (i < bn) {
        /* A suffix: it must name exactly the expected type. */
        const char *name = prim_names[prim];
        if (prim == ARR_BOOL || !word_is(b + i, bn - i, name)) {
            return SCALAR_MISMATCH;
        }
    }
    if (prim_is_float(prim)) {
        /* strtod/strtof round correctly; they need the text without `_`. */
        char text[128], *t = digits_end + 2 > sizeof text ? malloc(digits_end + 2) : text;
        size_t k = 0, j;
        if (base != 10 || t == NULL) {
            if (t != text) {
                free(t);
            }
            return SCALAR_MISMATCH;
        }
        if (neg) {
            t[k++] = '-';
        }
        for (j = 0; j < digits_end; j++) {
            if (b[j] != '_') {
                t[k++] = (char)b[j];
            }
        }
        t[k] = '\0';
        if (prim == ARR_F16) {
            /* Through double, as the compiler's reader does. */
            out->u16 = f16_from_double(strtod(t, NULL));
        } else if (prim == ARR_F32) {
            out->f32 = strtof(t, NULL);
        } else {
            out->f64 = strtod(t, NULL);
        }
        if (t != text) {
            free(t);
        }
        return SCALAR_OK;
    }
    if (is_float_form) {
        return SCALAR_MISMATCH;
    }
    if (overflow) {
        return SCALAR_RANGE;
    }
    {
        int bits = prim_bits(prim);
        /* With a suffix the value wraps to the width (`255i8` is -1), as
         * Futhark's reader does; value.rs does the same. */
        if (digits_end < bn) {
            /* No range check. */
        } else if (prim_is_signed(prim)) {
            uint64_t limit = (uint64_t)1 << (bits - 1);
            if (neg ? mag > limit : mag > limit - 1) {
                return SCALAR_RANGE;
            }
        } else if (prim_is_unsigned(prim)) {
            uint64_t limit = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
            if (neg ? mag != 0 : mag > limit) {
                return SCALAR_RANGE;
            }
        }
        {
            uint64_t u = neg ? (uint64_t)0 - mag : mag;
            switch (prim) {
            case ARR_I8: out->i8 = (int8_t)u; break;
            case ARR_I16: out->i16 = (int16_t)u; break;
            case ARR_I32: out->i32 = (int32_t)u; break;
            case ARR_I64: out->i64 = (int64_t)u; break;
            case ARR_U8: out->u8 = (uint8_t)u; break;
            case ARR_U16: out->u16 = (uint16_t)u; break;
            case ARR_U32: out->u32 = (uint32_t)u; break;
            case ARR_U64: out->u64 = u; break;
            default: return SCALAR_MISMATCH;
            }
        }
    }
    return SCALAR_OK;
}

/* Reads one scalar of the arr_reader's element type at the current position. */
static void read_scalar(arr_reader *r, scalar_bits *out) {
    size_t at, end;
    int res;
    arr_skip_space(r);
    at = r->pos;
    end = scan_word(r, at);
    res = parse_scalar(r->prim, r->buf + at, end - at, out);
    if (res == SCALAR_RANGE) {
        input_fail(r, at, "'%.*s' is out of range for %s", (int)(end - at),
                   (const char *)r->buf + at, prim_names[r->prim]);
    }
    if (res != SCALAR_OK || end == at) {
        arr_expect_fail(r, at, prim_names[r->prim]);
    }
    r->pos = end;
}

static void push_bytes(arr_reader *r, const void *src, size_t n) {
    if (r->used + n > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        unsigned char *d;
        while (cap < r->used + n) {
            cap *= 2;
        }
        d = realloc(r->data, cap);
        if (d == NULL) {
            arr_usage_fail("out of memory while reading argument %d", r->arg);
        }
        r->data = d;
        r->cap = cap;
    }
    memcpy(r->data + r->used, src, n);
    r->used += n;
}

static void note_dim(arr_reader *r, int depth, int64_t n, size_t at) {
    if (r->shape[depth] < 0) {
        r->shape[depth] = n;
    } else if (r->shape[depth] != n) {
        input_fail(r, at, "irregular array: %" PRId64 " elements where %" PRId64 " were expected",
                   n, r->shape[depth]);
    }
}

/* `empty([2][0]i32)`, at any depth of an array literal. */
static void read_empty(arr_reader *r, int depth, size_t at) {
    int64_t dims[ARR_MAX_RANK + 1];
    int k = 0, i, any_zero = 0, found_prim = -1;
    size_t wstart, wend;
    char want[64], found[256];
    size_t fk;
    expect_char(r, '(');
    for (;;) {
        arr_skip_space(r);
        if (r->pos >= r->len || r->buf[r->pos] != '[') {
            break;
        }
        r->pos++;
        arr_skip_space(r);
        {
            size_t s = r->pos;
            uint64_t v = 0;
            int nd = 0;
            while (r->pos < r->len &&
                   ((r->buf[r->pos] >= '0' && r->buf[r->pos] <= '9') || r->buf[r->pos] == '_')) {
                if (r->buf[r->pos] != '_') {
                    uint64_t d = (uint64_t)(r->buf[r->pos] - '0');
                    if (v > ((uint64_t)INT64_MAX - d) / 10) {
                        input_fail(r, s, "size is too large");
                    }
                    v = v * 10 + d;
                    nd++;
                }
                r->pos++;
            }
            if (nd == 0 || r->buf[s] == '_') {
                arr_expect_fail(r, s, "a size");
            }
            if (k > ARR_MAX_RANK) {
                input_fail(r, at, "too many dimensions");
            }
            dims[k++] = (int64_t)v;
            any_zero |= v == 0;
        }
        expect_char(r, ']');
    }
    arr_skip_space(r);
    wstart = r->pos;
    wend = wstart;
    while (wend < r->len && isalnum(r->buf[wend])) {
        wend++;
    }
    for (i = 0; i < ARR_NUM_PRIMS; i++) {
        if (word_is(r->buf + wstart, wend - wstart, prim_names[i])) {
            found_prim = i;
        }
    }
    if (found_prim < 0) {
        arr_expect_fail(r, wstart, "an element type");
    }
    r->pos = wend;
    expect_char(r, ')');
    fk = 0;
    for (i = 0; i < k && fk + 24 < sizeof found; i++) {
        fk += (size_t)snprintf(found + fk, sizeof found - fk, "[%" PRId64 "]", dims[i]);
    }
    snprintf(found + fk, sizeof found - fk, "%s", prim_names[found_prim]);
    if (k != r->rank - depth || found_prim != (int)r->prim) {
        type_string(want, sizeof want, r->prim, r->rank - depth);
        input_fail(r, at, "expected %s, found empty array of type %s", want, found);
    }
    if (!any_zero) {
        input_fail(r, at, "empty array of type %s has elements", found);
    }
    for (i = 0; i < k; i++) {
        note_dim(r, depth + i, dims[i], at);
    }
}

/* A string literal at `at`, as Futhark's values allow it for a `[]u8`: its
 * UTF-8 bytes, with the escapes of the language's string literals. */
static void read_string(arr_reader *r, int depth, size_t at) {
    int64_t count = 0;
    size_t p = at + 1;
    for (;;) {
        unsigned char c;
        if (p >= r->len) {
            input_fail(r, at, "unterminated string literal");
        }
        c = r->buf[p++];
        if (c == '"') {
            break;
        }
        if (c == '\\') {
            unsigned char e = p < r->len ? r->buf[p] : 0;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case '0': c = 0; break;
            case '\\': case '\'': case '"': c = e; break;
            default: input_fail(r, p - 1, "unknown escape in string literal");
            }
            p++;
        }
        push_bytes(r, &c, 1);
        count++;
    }
    r->pos = p;
    note_dim(r, depth, count, at);
}

/* An element of an array literal at `depth` (rank - depth dimensions left). */
static void read_text_elem(arr_reader *r, int depth) {
    size_t at;
    arr_skip_space(r);
    at = r->pos;
    if (depth == r->rank) {
        scalar_bits v;
        read_scalar(r, &v);
        push_bytes(r, &v, (size_t)prim_sizes[r->prim]);
        return;
    }
    if (at < r->len && r->buf[at] == '"' && depth + 1 == r->rank && r->prim == ARR_U8) {
        read_string(r, depth, at);
        return;
    }
    if (at < r->len && r->buf[at] == '[') {
        int64_t count = 0;
        r->pos++;
        arr_skip_space(r);
        if (r->pos < r->len && r->buf[r->pos] == ']') {
            r->pos++;
            note_dim(r, depth, 0, at);
            return;
        }
        for (;;) {
            read_text_elem(r, depth + 1);
            count++;
            arr_skip_space(r);
            if (r->pos < r->len && r->buf[r->pos] == ',') {
                r->pos++;
            } else if (r->pos < r->len && r->buf[r->pos] == ']') {
                r->pos++;
                break;
            } else {
                arr_expect_fail(r, r->pos, "',' or ']'");
            }
        }
        note_dim(r, depth, count, at);
        return;
    }
    {
        size_t end = scan_word(r, at);
        char want[64];
        if (word_is(r->buf + at, end - at, "empty")) {
            r->pos = end;
            read_empty(r, depth, at);
            return;
        }
        type_string(want, sizeof want, r->prim, r->rank - depth);
        arr_expect_fail(r, at, want);
    }
}

static int64_t read_i64_le(const unsigned char *p) {
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) {
        v = (v << 8) | p[i];
    }
    return (int64_t)v;
}

static void read_binary(arr_reader *r, arr_value *out) {
    size_t at = r->pos, p = at + 1, esize = (size_t)prim_sizes[r->prim];
    int rank, i, prim = -1;
    uint64_t count = 1;
    char want[64], found[64];
    if (p >= r->len) {
        input_fail(r, at, "unexpected end of input in binary value");
    }
    if (r->buf[p] != 2) {
        input_fail(r, at, "unsupported binary format version %d", r->buf[p]);
    }
    p++;
    if (p + 5 > r->len) {
        input_fail(r, at, "unexpected end of input in binary value");
    }
    rank = r->buf[p++];
    for (i = 0; i < ARR_NUM_PRIMS; i++) {
        if (memcmp(r->buf + p, prim_binary_names[i], 4) == 0) {
            prim = i;
        }
    }
    if (prim < 0) {
        char name[5];
        for (i = 0; i < 4; i++) {
            unsigned char c = r->buf[p + (size_t)i];
            name[i] = c >= 0x20 && c <= 0x7e ? (char)c : '?';
        }
        name[4] = '\0';
        input_fail(r, at, "unknown element type '%s' in binary value", name);
    }
    p += 4;
    if (rank != r->rank || prim != (int)r->prim) {
        type_string(want, sizeof want, r->prim, r->rank);
        type_string(found, sizeof found, (arr_prim)prim, rank);
        input_fail(r, at, "expected %s, found binary value of type %s", want, found);
    }
    if ((size_t)rank * 8 > r->len - p) {
        input_fail(r, at, "unexpected end of input in binary value");
    }
    for (i = 0; i < rank; i++) {
        int64_t d = read_i64_le(r->buf + p);
        p += 8;
        if (d < 0) {
            input_fail(r, at, "negative size in binary value");
        }
        out->shape[i] = d;
        if (count != 0 && d != 0 && (uint64_t)d > (UINT64_MAX / 16) / count) {
            input_fail(r, at, "binary value is too large");
        }
        count *= (uint64_t)d;
    }
    if (count > (r->len - p) / esize) {
        input_fail(r, at, "unexpected end of input in binary value");
    }
    if (rank == 0) {
        memcpy(&out->scalar, r->buf + p, esize);
        if (r->prim == ARR_BOOL) {
            out->scalar.b = out->scalar.b != 0;
        }
    } else {
        unsigned char *d = arr_alloc((int64_t)(count * esize));
        memcpy(d, r->buf + p, count * esize);
        if (r->prim == ARR_BOOL) {
            uint64_t j;
            for (j = 0; j < count; j++) {
                d[j] = d[j] != 0;
            }
        }
        out->data = d;
    }
    r->pos = p + count * esize;
}

/* Reads argument `r->arg` of type (`prim`, `rank`) into `out`. */
void arr_read_value(arr_reader *r, arr_prim prim, int rank, arr_value *out) {
    char want[64];
    int i;
    memset(out, 0, sizeof *out);
    out->type.prim = prim;
    out->type.rank = rank;
    r->prim = prim;
    r->rank = rank;
    arr_skip_space(r);
    if (r->pos >= r->len) {
        type_string(want, sizeof want, prim, rank);
        input_fail(r, r->pos, "missing argument of type %s", want);
    }
    if (r->buf[r->pos] == 'b') {
        read_binary(r, out);
        return;
    }
    if (rank == 0) {
        scalar_bits v;
        read_scalar(r, &v);
        memcpy(&out->scalar, &v, sizeof v);
        return;
    }
    for (i = 0; i < ARR_MAX_RANK; i++) {
        r->shape[i] = -1;
    }
    r->data = NULL;
    r->used = r->cap = 0;
    read_text_elem(r, 0);
    for (i = 0; i < rank; i++) {
        out->shape[i] = r->shape[i] < 0 ? 0 : r->shape[i];
    }
    out->data = arr_alloc((int64_t)r->used);
    if (r->used > 0) {
        memcpy(out->data, r->data, r->used);
    }
    free(r->data);
    r->data = NULL;
}

/* ---------------------------------------------------------------- output */

static void print_scalar(FILE *f, arr_prim prim, const void *p) {
    char buf[64];
    switch (prim) {
    case ARR_I8: { int8_t v; memcpy(&v, p, 1); fprintf(f, "%di8", v); break; }
    case ARR_I16: { int16_t v; memcpy(&v, p, 2); fprintf(f, "%di16", v); break; }
    case ARR_I32: { int32_t v; memcpy(&v, p, 4); fprintf(f, "%" PRId32 "i32", v); break; }
    case ARR_I64: { int64_t v; memcpy(&v, p, 8); fprintf(f, "%" PRId64 "i64", v); break; }
    case ARR_U8: { uint8_t v; memcpy(&v, p, 1); fprintf(f, "%uu8", v); break; }
    case ARR_U16: { uint16_t v; memcpy(&v, p, 2); fprintf(f, "%uu16", v); break; }
    case ARR_U32: { uint32_t v; memcpy(&v, p, 4); fprintf(f, "%" PRIu32 "u32", v); break; }
    case ARR_U64: { uint64_t v; memcpy(&v, p, 8); fprintf(f, "%" PRIu64 "u64", v); break; }
    case ARR_F16:
    case ARR_F32:
    case ARR_F64: {
        double v;
        const char *t = prim == ARR_F16 ? "f16" : prim == ARR_F32 ? "f32" : "f64";
        if (prim == ARR_F16) {
            uint16_t h;
            memcpy(&h, p, 2);
            v = f16_to_double(h);
        } else if (prim == ARR_F32) {
            float x;
            memcpy(&x, p, 4);
            v = x;
        } else {
            memcpy(&v, p, 8);
        }
        if (isnan(v)) {
            fprintf(f, "%s.nan", t);
        } else if (isinf(v)) {
            fprintf(f, "%s%s.inf", v < 0 ? "-" : "", t);
        } else {
            format_float(buf, sizeof buf, v, prim_bits(prim));
            fputs(buf, f);
            fputs(t, f);
        }
        break;
    }
    case ARR_BOOL: fputs(*(const uint8_t *)p ? "true" : "false", f); break;
    }
}

static const unsigned char *print_rows(FILE *f, arr_prim prim, const int64_t *shape, int rank,
                                       const unsigned char *p) {
    int64_t i;
    fputc('[', f);
    for (i = 0; i < shape[0]; i++) {
        if (i > 0) {
            fputs(", ", f);
        }
        if (rank == 1) {
            print_scalar(f, prim, p);
            p += prim_sizes[prim];
        } else {
            p = print_rows(f, prim, shape + 1, rank - 1, p);
        }
    }
    fputc(']', f);
    return p;
}

void arr_print_text(FILE *f, const arr_type *t, const arr_value *v) {
    int i, empty = 0;
    if (t->rank == 0) {
        print_scalar(f, t->prim, &v->scalar);
        return;
    }
    for (i = 0; i < t->rank; i++) {
        empty |= v->shape[i] == 0;
    }
    if (empty) {
        fputs("empty(", f);
        for (i = 0; i < t->rank; i++) {
            fprintf(f, "[%" PRId64 "]", v->shape[i]);
        }
        fprintf(f, "%s)", prim_names[t->prim]);
        return;
    }
    print_rows(f, t->prim, v->shape, t->rank, v->data);
}

void arr_print_binary(FILE *f, const arr_type *t, const arr_value *v) {
    int i;
    uint64_t count = 1;
    fputc('b', f);
    fputc(2, f);
    fputc(t->rank, f);
    fwrite(prim_binary_names[t->prim], 1, 4, f);
    for (i = 0; i < t->rank; i++) {
        unsigned char le[8];
        uint64_t d = (uint64_t)v->shape[i];
        int j;
        for (j = 0; j < 8; j++) {
            le[j] = (unsigned char)(d >> (8 * j));
        }
        fwrite(le, 1, 8, f);
        count *= d;
    }
    if (t->rank == 0) {
        fwrite(&v->scalar, 1, (size_t)prim_sizes[t->prim], f);
    } else if (count > 0) {
        fwrite(v->data, (size_t)prim_sizes[t->prim], count, f);
    }
}
