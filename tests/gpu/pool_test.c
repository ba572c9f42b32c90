/* Unit tests of the device memory pool (arr_gpu_pool.c) over a fake
 * driver that hands out numbered addresses and counts what is live. Exits 0
 * when every check holds, else prints the failed check and exits 1. */
#include "arr_gpu_pool.h"

#include <stdio.h>
#include <stdlib.h>

static int checks, failures;
#define CHECK(c)                                                               \
    do {                                                                       \
        checks++;                                                              \
        if (!(c)) {                                                            \
            failures++;                                                        \
            fprintf(stderr, "pool_test.c:%d: check failed: %s\n", __LINE__, #c); \
        }                                                                      \
    } while (0)

typedef struct {
    uint64_t next, live_bytes, limit;
    int64_t allocs, frees;
} fake_driver;

static int fake_alloc(void *ctx, uint64_t bytes, uint64_t *out) {
    fake_driver *d = ctx;
    if (d->live_bytes + bytes > d->limit) {
        return -1;
    }
    d->live_bytes += bytes;
    d->allocs++;
    /* Sizes recorded in the address's low bits would be cheating: the pool
     * must remember them itself. */
    *out = d->next += 1 << 20;
    return 0;
}

static void fake_free(void *ctx, uint64_t ptr) {
    fake_driver *d = ctx;
    (void)ptr;
    d->frees++;
    /* The pool tells the class size only through its own bookkeeping. */
}

int main(void) {
    arr_pool pool;
    fake_driver d = {0, 0, UINT64_MAX, 0, 0};
    uint64_t a, b, c, e, many[100];
    int i;

    /* Classes: 256 and below one class; then four per power of two. */
    CHECK(arr_pool_class_size(0) == 256);
    CHECK(arr_pool_class_size(1) == 256);
    CHECK(arr_pool_class_size(256) == 256);
    CHECK(arr_pool_class_size(257) == 320);
    CHECK(arr_pool_class_size(320) == 320);
    CHECK(arr_pool_class_size(321) == 384);
    CHECK(arr_pool_class_size(511) == 512);
    CHECK(arr_pool_class_size(1000) == 1024);
    CHECK(arr_pool_class_size(1025) == 1280);
    CHECK(arr_pool_class_size(4000000) == 4194304);
    CHECK(arr_pool_class_size(ARR_POOL_MAX_BYTES) == ARR_POOL_MAX_BYTES);
    /* Never more than a quarter above the request (beyond 256 bytes). */
    for (a = 257; a < 100000; a += 7) {
        uint64_t s = arr_pool_class_size(a);
        CHECK(s >= a && s - a <= a / 4);
    }
    /* Distinct classes have distinct, increasing lists. */
    CHECK(arr_pool_class_index(256) == 0);
    CHECK(arr_pool_class_index(320) == 1);
    CHECK(arr_pool_class_index(512) == 4);
    CHECK(arr_pool_class_index(ARR_POOL_MAX_BYTES) == ARR_POOL_CLASSES - 1);
    for (a = 256, i = 0; a < ((uint64_t)1 << 40); a = arr_pool_class_size(a + 1), i++) {
        CHECK(arr_pool_class_index(a) == i);
    }

    arr_pool_init(&pool, fake_alloc, fake_free, &d, 1 << 20);
    /* A freed block serves the next request of its class, not of another. */
    CHECK(arr_pool_alloc(&pool, 1000, &a) == 0);
    CHECK(arr_pool_free(&pool, a) == 0);
    CHECK(arr_pool_alloc(&pool, 900, &b) == 0);
    CHECK(b == a && d.allocs == 1 && pool.reuses == 1);
    CHECK(arr_pool_alloc(&pool, 1100, &c) == 0);
    CHECK(c != a && d.allocs == 2);
    /* A loop that allocates and frees per iteration reaches the driver once. */
    for (i = 0; i < 1000; i++) {
        CHECK(arr_pool_alloc(&pool, 5000, &e) == 0);
        CHECK(arr_pool_free(&pool, e) == 0);
    }
    CHECK(d.allocs == 3);
    /* Unknown addresses are refused; 0 is ignored. */
    CHECK(arr_pool_free(&pool, 12345) == -1);
    CHECK(arr_pool_free(&pool, 0) == 0);
    CHECK(arr_pool_free(&pool, b) == 0);
    CHECK(arr_pool_free(&pool, b) == -1);
    CHECK(arr_pool_free(&pool, c) == 0);
    /* Many live blocks at once (the table grows). */
    for (i = 0; i < 100; i++) {
        CHECK(arr_pool_alloc(&pool, 64, &many[i]) == 0);
    }
    for (i = 0; i < 100; i++) {
        CHECK(arr_pool_free(&pool, many[i]) == 0);
    }
    CHECK(pool.live_count == 0);
    /* Beyond the cache limit a freed block goes back to the driver. */
    d.frees = 0;
    CHECK(arr_pool_alloc(&pool, 3 << 20, &a) == 0);
    CHECK(arr_pool_free(&pool, a) == 0);
    CHECK(d.frees == 1);
    /* Out of driver memory: the cache is given back and the request
     * retried; when even that fails, -1. */
    arr_pool_trim(&pool);
    d.live_bytes = 0;
    d.limit = 10000;
    CHECK(arr_pool_alloc(&pool, 6000, &a) == 0);
    CHECK(arr_pool_free(&pool, a) == 0);
    d.live_bytes = 6144;
    d.frees = 0;
    CHECK(arr_pool_alloc(&pool, 8000, &b) == -1);
    CHECK(d.frees == 1 && pool.cached_bytes == 0);
    d.live_bytes = 0;
    CHECK(arr_pool_alloc(&pool, 8000, &b) == 0);
    CHECK(arr_pool_alloc(&pool, ARR_POOL_MAX_BYTES + 1, &c) == -1);
    arr_pool_destroy(&pool);

    printf("pool: %d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
