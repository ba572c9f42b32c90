/* The host-common runtime linked into every compiled Arr program (see
 * arr_runtime.h). The generated glue supplies `arr_entries`; this file
 * supplies `main` (options, reading the arguments from stdin, checking size
 * parameters, timing, printing the results) and the functions compiled code
 * calls (run-time errors, memory); arr_values.c reads and prints the
 * values. Nothing here runs loop nests: a backend's runtime does
 * (arr_parallel.c on the CPU), reached through the hooks. */
#define _POSIX_C_SOURCE 200809L
#include "arr_values.h"

#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int arr_num_threads = 0;
int64_t arr_traffic_reads = 0;
int64_t arr_traffic_writes = 0;
int arr_traffic_enabled = 0;
int (*arr_error_hook)(const char *message) = NULL;
void (*arr_exit_hook)(void) = NULL;

/* ---------------------------------------------------------------- errors */

static void fail_exit(void) ARR_NORETURN;
static void fail_exit(void) {
    fflush(stdout);
    exit(1);
}

/* Reports a run-time error: at once, or, inside a parallel chunk, after the
 * chunks that run before it in sequential order (the error hook). */
static void fail(const char *fmt, ...) ARR_PRINTF(1, 2) ARR_NORETURN;
static void fail(const char *fmt, ...) {
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (arr_error_hook != NULL) {
        arr_error_hook(message);
    }
    fflush(stdout);
    fputs(message, stderr);
    fail_exit();
}

void arr_fail_bounds(int64_t index, int64_t length, const char *loc) {
    fail("Error: index %" PRId64 " out of bounds for array of length %" PRId64 " at %s\n",
         index, length, loc);
}

void arr_fail_slice(int64_t start, int64_t end, int64_t stride, int64_t length,
                    const char *loc) {
    fail("Error: index %" PRId64 ":%" PRId64 ":%" PRId64
         " out of bounds for array of length %" PRId64 " at %s\n",
         start, end, stride, length, loc);
}

void arr_fail_size_mismatch(int64_t expected, int64_t found, const char *loc) {
    fail("Error: size mismatch: %" PRId64 " and %" PRId64 " at %s\n", expected, found, loc);
}

void arr_fail_division_by_zero(const char *loc) {
    fail("Error: division by zero at %s\n", loc);
}

void arr_fail_assert(const char *loc) { fail("Error: assertion failed at %s\n", loc); }

void arr_fail_negative_size(int64_t size, const char *loc) {
    fail("Error: negative size %" PRId64 " at %s\n", size, loc);
}

void arr_usage_fail(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fputs("Error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* ---------------------------------------------------------------- memory */

/* Every block has a 64-byte header holding its usable size, so that a freed
 * big block can be kept and handed out again: fresh memory from the kernel
 * costs a page fault per 4 KiB on first touch, which for a program that
 * allocates and frees the same big intermediates every run (or every
 * iteration of a loop) costs as much as computing them. Small blocks go
 * straight back to malloc, which recycles them well. */
#define ARR_HEADER 64
#define CACHE_MIN_BYTES ((size_t)1 << 16)
#define CACHE_SLOTS 32
#define CACHE_MAX_BYTES ((size_t)1 << 30)

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    unsigned char *base;
    size_t size;
} cache[CACHE_SLOTS];
static int cache_count;
static size_t cache_bytes;

/* A cached block of at least `n` bytes and at most a quarter more. */
static unsigned char *cache_take(size_t n) {
    int i, best = -1;
    unsigned char *base = NULL;
    pthread_mutex_lock(&cache_lock);
    for (i = 0; i < cache_count; i++) {
        if (cache[i].size >= n && cache[i].size - n <= n / 4 &&
            (best < 0 || cache[i].size < cache[best].size)) {
            best = i;
        }
    }
    if (best >= 0) {
        base = cache[best].base;
        cache_bytes -= cache[best].size;
        cache[best] = cache[--cache_count];
    }
    pthread_mutex_unlock(&cache_lock);
    return base;
}

void *arr_alloc(int64_t bytes) {
    unsigned char *base = NULL;
    size_t n;
    if (bytes < 0 || (uint64_t)bytes > (uint64_t)SIZE_MAX - 2 * ARR_HEADER) {
        fail("Error: out of memory (allocating %" PRId64 " bytes)\n", bytes);
    }
    /* 64-byte alignment lets compiled loops use aligned vector accesses. */
    n = bytes == 0 ? 64 : ((size_t)bytes + 63) / 64 * 64;
    if (n >= CACHE_MIN_BYTES) {
        base = cache_take(n);
    }
    if (base == NULL) {
        void *p = NULL;
        if (posix_memalign(&p, 64, n + ARR_HEADER) != 0 || p == NULL) {
            fail("Error: out of memory (allocating %" PRId64 " bytes)\n", bytes);
        }
        base = p;
        memcpy(base, &n, sizeof n);
    }
    return base + ARR_HEADER;
}

void arr_free(void *ptr) {
    unsigned char *base;
    size_t n;
    if (ptr == NULL) {
        return;
    }
    base = (unsigned char *)ptr - ARR_HEADER;
    memcpy(&n, base, sizeof n);
    if (n >= CACHE_MIN_BYTES) {
        pthread_mutex_lock(&cache_lock);
        if (cache_count < CACHE_SLOTS && cache_bytes + n <= CACHE_MAX_BYTES) {
            cache[cache_count].base = base;
            cache[cache_count].size = n;
            cache_count++;
            cache_bytes += n;
            base = NULL;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    free(base);
}

/* Gives the cached blocks back (at exit, so that leak checkers see none). */
static void release_cache(void) {
    pthread_mutex_lock(&cache_lock);
    while (cache_count > 0) {
        free(cache[--cache_count].base);
    }
    cache_bytes = 0;
    pthread_mutex_unlock(&cache_lock);
}

/* ---------------------------------------------------------------- main */

static void print_usage(const char *prog) {
    int i;
    printf("Usage: %s [options] < input\n"
           "Reads the arguments of an entry point from standard input and prints\n"
           "its results, one per line.\n"
           "  -e, --entry-point NAME     entry point to run (default: main)\n"
           "  -b, --binary-output        write results in the binary value format\n"
           "  -n, --no-print-result      do not write results\n"
           "  -t, --write-runtime-to F   write the run time in microseconds to F\n"
           "  -r, --runs N               run N times after one warm-up run\n"
           "  --threads N                number of threads to use\n"
           "  -D, --debugging, -L, --log accepted for Futhark's sake; no effect\n"
           "  -h, --help                 show this message\n"
           "Entry points:",
           prog);
    for (i = 0; i < arr_num_entries; i++) {
        printf(" %s", arr_entries[i].name);
    }
    printf("\n");
}

static long parse_count(const char *opt, const char *s, long min) {
    char *end;
    long v;
    if (s == NULL) {
        arr_usage_fail("option %s needs an argument", opt);
    }
    v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < min || v > 1000000000L) {
        arr_usage_fail("option %s needs an integer of at least %ld, not '%s'", opt, min, s);
    }
    return v;
}

static unsigned char *read_all(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = malloc(cap);
    if (buf == NULL) {
        arr_usage_fail("out of memory while reading input");
    }
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *b = realloc(buf, cap * 2);
            if (b == NULL) {
                arr_usage_fail("out of memory while reading input");
            }
            buf = b;
            cap *= 2;
        }
    }
    *len = n;
    return buf;
}

static int64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Frees the arrays of `results` that no argument and no earlier result owns
 * (compiled code may hand back an argument or one array twice). */
static void free_results(const arr_entry *e, const arr_value *args, arr_value *results) {
    int i, j;
    for (i = 0; i < e->num_results; i++) {
        int shared = 0;
        if (e->results[i].rank == 0 || results[i].data == NULL) {
            continue;
        }
        for (j = 0; j < e->num_params; j++) {
            shared |= e->params[j].rank > 0 && args[j].data == results[i].data;
        }
        for (j = 0; j < i; j++) {
            shared |= e->results[j].rank > 0 && results[j].data == results[i].data;
        }
        if (!shared) {
            arr_free(results[i].data);
        }
        results[i].data = NULL;
    }
}

static void check_types(const arr_entry *e) {
    int i;
    for (i = 0; i < e->num_params + e->num_results; i++) {
        const arr_type *t = i < e->num_params ? &e->params[i] : &e->results[i - e->num_params];
        if ((unsigned)t->prim >= ARR_NUM_PRIMS || t->rank < 0 || t->rank > ARR_MAX_RANK) {
            arr_usage_fail("entry point '%s' has an invalid type", e->name);
        }
    }
    for (i = 0; i < e->num_size_constraints; i++) {
        const arr_size_constraint *c = &e->size_constraints[i];
        if (c->param_a < 0 || c->param_a >= e->num_params || c->param_b < 0 ||
            c->param_b >= e->num_params || c->dim_a < 0 ||
            c->dim_a >= e->params[c->param_a].rank || c->dim_b < 0 ||
            c->dim_b >= e->params[c->param_b].rank) {
            arr_usage_fail("entry point '%s' has an invalid size constraint", e->name);
        }
    }
}

int main(int argc, char **argv) {
    const char *entry_name = "main", *time_file = NULL;
    int binary = 0, quiet = 0, i, run;
    long runs = -1;
    const arr_entry *e = NULL;
    FILE *tf = NULL;
    unsigned char *input;
    size_t len;
    arr_reader r;
    arr_value *args, *results;
    static char outbuf[1 << 16];

    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    /* Futhark's executables parse options with getopt_long, so its forms
     * work here too: `-emain`, `-bn`, `--threads=2`, long names. */
    static const struct option long_options[] = {
        {"entry-point", required_argument, NULL, 'e'},
        {"entry", required_argument, NULL, 'e'},
        {"binary-output", no_argument, NULL, 'b'},
        {"no-print-result", no_argument, NULL, 'n'},
        {"write-runtime-to", required_argument, NULL, 't'},
        {"runs", required_argument, NULL, 'r'},
        {"threads", required_argument, NULL, 'T'},
        {"num-threads", required_argument, NULL, 'T'},
        {"debugging", no_argument, NULL, 'D'},
        {"log", no_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, ":e:bnt:r:DLh", long_options, NULL);
        if (c == -1) {
            break;
        }
        switch (c) {
        case 'e':
            entry_name = optarg;
            break;
        case 'b':
            binary = 1;
            break;
        case 'n':
            quiet = 1;
            break;
        case 't':
            time_file = optarg;
            break;
        case 'r':
            runs = parse_count("-r", optarg, 1);
            break;
        case 'T':
            arr_num_threads = (int)parse_count("--threads", optarg, 1);
            break;
        case 'D':
        case 'L':
            break;
        case 'h':
            print_usage(argv[0]);
            return 0;
        case ':':
            arr_usage_fail("option %s needs an argument", argv[optind - 1]);
            break;
        default:
            if (optopt != 0) {
                arr_usage_fail("unknown option '-%c' (try --help)", optopt);
            }
            arr_usage_fail("unknown option '%s' (try --help)", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        arr_usage_fail("unexpected argument '%s' (the input comes from standard input)", argv[optind]);
    }
    for (i = 0; i < arr_num_entries; i++) {
        if (strcmp(arr_entries[i].name, entry_name) == 0) {
            e = &arr_entries[i];
        }
    }
    if (e == NULL) {
        fflush(stdout);
        fprintf(stderr, "Error: unknown entry point '%s'; entry points:", entry_name);
        for (i = 0; i < arr_num_entries; i++) {
            fprintf(stderr, " %s", arr_entries[i].name);
        }
        fputc('\n', stderr);
        return 2;
    }
    check_types(e);
    if (time_file != NULL) {
        tf = fopen(time_file, "w");
        if (tf == NULL) {
            arr_usage_fail("cannot open '%s' for writing", time_file);
        }
    }

    input = read_all(stdin, &len);
    memset(&r, 0, sizeof r);
    r.buf = input;
    r.len = len;
    args = calloc((size_t)e->num_params + 1, sizeof *args);
    results = calloc((size_t)e->num_results + 1, sizeof *results);
    if (args == NULL || results == NULL) {
        arr_usage_fail("out of memory");
    }
    for (i = 0; i < e->num_params; i++) {
        r.arg = i + 1;
        arr_read_value(&r, e->params[i].prim, e->params[i].rank, &args[i]);
    }
    arr_skip_space(&r);
    if (r.pos < r.len) {
        r.arg = e->num_params + 1;
        arr_expect_fail(&r, r.pos, "end of input");
    }
    free(input);
    for (i = 0; i < e->num_size_constraints; i++) {
        const arr_size_constraint *c = &e->size_constraints[i];
        int64_t a = args[c->param_a].shape[c->dim_a], b = args[c->param_b].shape[c->dim_b];
        if (c->fixed >= 0 && a != c->fixed) {
            arr_usage_fail("argument %d: size mismatch: dimension %d is %" PRId64
                       ", but the entry point's type says %" PRId64,
                       c->param_a + 1, c->dim_a + 1, a, c->fixed);
        }
        if (a != b) {
            arr_usage_fail("argument %d: size mismatch: dimension %d is %" PRId64
                       ", but dimension %d of argument %d is %" PRId64,
                       c->param_b + 1, c->dim_b + 1, b, c->dim_a + 1, c->param_a + 1, a);
        }
    }

    if (runs > 0) {
        /* The warm-up run's results are dropped. */
        e->run(args, results);
        free_results(e, args, results);
    }
    for (run = 0; run < (runs > 0 ? runs : 1); run++) {
        int64_t t0, t1;
        if (run > 0) {
            free_results(e, args, results);
        }
        /* Every run does the same work: the traffic reported is one run's,
         * the last. */
        arr_traffic_reads = 0;
        arr_traffic_writes = 0;
        t0 = now_us();
        e->run(args, results);
        t1 = now_us();
        if (tf != NULL) {
            fprintf(tf, "%" PRId64 "\n", t1 - t0);
        }
    }
    if (tf != NULL && fclose(tf) != 0) {
        arr_usage_fail("cannot write '%s'", time_file);
    }

    if (!quiet) {
        for (i = 0; i < e->num_results; i++) {
            /* Futhark ends every value with a newline, binary ones too. */
            if (binary) {
                arr_print_binary(stdout, &e->results[i], &results[i]);
            } else {
                arr_print_text(stdout, &e->results[i], &results[i]);
            }
            fputc('\n', stdout);
        }
        fflush(stdout);
    }
    if (arr_traffic_enabled) {
        fflush(stdout);
        fprintf(stderr, "traffic: reads=%" PRId64 " writes=%" PRId64 "\n", arr_traffic_reads,
                arr_traffic_writes);
    }
    free_results(e, args, results);
    for (i = 0; i < e->num_params; i++) {
        if (e->params[i].rank > 0) {
            arr_free(args[i].data);
        }
    }
    free(args);
    free(results);
    release_cache();
    if (arr_exit_hook != NULL) {
        arr_exit_hook();
    }
    return 0;
}
