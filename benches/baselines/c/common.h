/* Shared harness of the C baselines: reads the program's input values
 * (Futhark's binary format) from standard input, runs the kernel once as a
 * warm-up and then RUNS times (stopping early once BUDGET seconds have been
 * spent), timing each run with omp_get_wtime, writes each run's
 * microseconds to TIMES_FILE, and prints the result's signature (see
 * benches/baselines/fvalues.py): a scalar prints its value, an array its
 * number of elements and the sum of its elements in f64.
 *
 * Usage: PROG RUNS TIMES_FILE [BUDGET] < input
 *
 * Each program defines setup() (read the inputs, allocate the outputs),
 * kernel() (the timed work) and report() (print the signature). The CUDA
 * baselines (../cuda/) include it too, so it stays valid C++. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(void);
static void kernel(void);
static void report(void);

static inline void die(const char *msg) {
    fprintf(stderr, "Error: %s\n", msg);
    exit(2);
}

static inline void read_exact(void *p, size_t n) {
    if (n && fread(p, 1, n, stdin) != n) die("input truncated");
}

/* Reads one binary value of element type `type` (e.g. " f32") and rank
 * `rank`; stores its sizes in dims and returns its elements (malloc'd). */
static inline void *read_value(const char *type, int rank, int64_t *dims) {
    int c;
    while ((c = getchar()) == ' ' || c == '\n' || c == '\t' || c == '\r') {}
    if (c != 'b') die("expected a binary value");
    unsigned char vr[2];
    read_exact(vr, 2);
    if (vr[0] != 2 || vr[1] != rank) die("wrong version or rank");
    char t[5] = {0};
    read_exact(t, 4);
    if (strcmp(t, type) != 0) die("wrong element type");
    int64_t count = 1, d[8];
    read_exact(d, 8 * (size_t)rank);
    for (int i = 0; i < rank; i++) {
        if (dims) dims[i] = d[i];
        count *= d[i];
    }
    /* element size from the type's bit width: "  i8", " i16", " f32", ... */
    int size = strstr(t, "8") ? 1 : strstr(t, "16") ? 2 : strstr(t, "32") ? 4 : 8;
    if (strcmp(t, "bool") == 0) size = 1;
    void *p = malloc((size_t)(count ? count : 1) * size);
    if (!p) die("out of memory");
    read_exact(p, (size_t)count * size);
    return p;
}

static inline float read_f32(void) { float *p = (float *)read_value(" f32", 0, NULL); float v = *p; free(p); return v; }
static inline int32_t read_i32(void) { int32_t *p = (int32_t *)read_value(" i32", 0, NULL); int32_t v = *p; free(p); return v; }
static inline int64_t read_i64(void) { int64_t *p = (int64_t *)read_value(" i64", 0, NULL); int64_t v = *p; free(p); return v; }

static inline void print_f32s(const float *a, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += a[i];
    printf("%lld %.17g ", (long long)n, s);
}

static inline void print_i32s(const int32_t *a, int64_t n) {
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++) s += a[i];
    printf("%lld %lld ", (long long)n, (long long)s);
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: PROG RUNS TIMES_FILE [BUDGET_SECONDS] < input");
    int runs = atoi(argv[1]);
    double budget = argc > 3 ? atof(argv[3]) : 1e30;
    FILE *tf = fopen(argv[2], "w");
    if (!tf) die("cannot write the times file");
    setup();
    kernel(); /* warm-up */
    double spent = 0;
    for (int r = 0; r < runs && (r == 0 || spent < budget); r++) {
        double t0 = omp_get_wtime();
        kernel();
        double t = omp_get_wtime() - t0;
        spent += t;
        fprintf(tf, "%.0f\n", t * 1e6);
    }
    fclose(tf);
    report();
    printf("\n");
    return 0;
}
