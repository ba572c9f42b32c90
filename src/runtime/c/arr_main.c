/* `main` of a compiled Arr executable (section 7 of the language
 * contract): options, reading the arguments of an entry point from standard
 * input, checking them against its size parameters, running it through the
 * boundary (`arr_call`, arr_runtime.c) in a context, timing, and printing
 * the results or the run-time error (exit 1). Bad usage or input exits 2. */
#define _POSIX_C_SOURCE 200809L
#include "arr_values.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Copies of the arguments `e` overwrites (`arr_entry.overwritten`), for
 * the runs after the first: NULL where it overwrites none or runs once. */
static void **save_overwritten(const arr_entry *e, const arr_value *args, long calls) {
    void **saved;
    int i;
    if (e->overwritten == NULL || calls < 2) {
        return NULL;
    }
    saved = calloc((size_t)e->num_params + 1, sizeof *saved);
    if (saved == NULL) {
        arr_usage_fail("out of memory");
    }
    for (i = 0; i < e->num_params; i++) {
        if (e->overwritten[i] && e->params[i].rank > 0) {
            size_t bytes = (size_t)arr_value_bytes(&e->params[i], &args[i]);
            saved[i] = malloc(bytes > 0 ? bytes : 1);
            if (saved[i] == NULL) {
                arr_usage_fail("out of memory");
            }
            memcpy(saved[i], args[i].data, bytes);
        }
    }
    return saved;
}

/* Gives the overwritten arguments their values back before a run. */
static void restore_overwritten(const arr_entry *e, arr_value *args, void **saved) {
    int i;
    for (i = 0; saved != NULL && i < e->num_params; i++) {
        if (saved[i] != NULL) {
            memcpy(args[i].data, saved[i], (size_t)arr_value_bytes(&e->params[i], &args[i]));
        }
    }
}

/* A run-time error: the message the boundary returned, exit 1. */
static void run_failed(arr_ctx *ctx) ARR_NORETURN;
static void run_failed(arr_ctx *ctx) {
    fflush(stdout);
    fputs(arr_ctx_error(ctx), stderr);
    exit(1);
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
    void **saved;
    static char outbuf[1 << 16];
    char message[512];
    arr_ctx *ctx;

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

    ctx = arr_ctx_new(arr_num_threads);
    if (ctx == NULL) {
        arr_usage_fail("out of memory");
    }
    /* The arguments are the context's memory, like everything after. */
    arr_ctx_set_current(ctx);
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
    if (arr_check_sizes(e, args, message, sizeof message)) {
        arr_usage_fail("%s", message);
    }

    /* The entry may overwrite arguments (its own: nothing reads them after
     * the call), so each further run starts from a copy, untimed. */
    saved = save_overwritten(e, args, runs > 0 ? runs + 1 : 1);
    if (runs > 0) {
        /* The warm-up run's results are dropped. */
        if (arr_call(ctx, e, args, results)) {
            run_failed(ctx);
        }
        free_results(e, args, results);
    }
    for (run = 0; run < (runs > 0 ? runs : 1); run++) {
        int64_t t0, t1;
        if (run > 0) {
            free_results(e, args, results);
        }
        if (runs > 0) {
            /* After the results that may be the arguments' memory. */
            restore_overwritten(e, args, saved);
        }
        /* Every run does the same work: the traffic reported is one run's,
         * the last. */
        arr_traffic_reads = 0;
        arr_traffic_writes = 0;
        arr_untimed_us = 0;
        t0 = now_us();
        if (arr_call(ctx, e, args, results)) {
            run_failed(ctx);
        }
        t1 = now_us();
        if (tf != NULL) {
            fprintf(tf, "%" PRId64 "\n", t1 - t0 - arr_untimed_us);
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
    for (i = 0; saved != NULL && i < e->num_params; i++) {
        free(saved[i]);
    }
    free(saved);
    free(args);
    free(results);
    arr_ctx_free(ctx);
    return 0;
}
