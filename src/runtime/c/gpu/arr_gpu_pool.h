/* A size-bucketed pool of device memory blocks. A freed block is kept on
 * the free list of its size class and handed out again for a request of the
 * same class, so a loop that allocates and frees per iteration reaches the
 * driver once. Classes: 256 bytes and below are one class; above, each
 * power of two [2^k, 2^(k+1)) is split into four classes of 2^(k-2) bytes,
 * so a block is at most a quarter larger than asked. When the driver has
 * no memory left, the cached blocks are given back and the allocation is
 * tried once more; when the cache would exceed `cache_limit` bytes, a freed
 * block goes straight back to the driver.
 *
 * The pool knows device addresses only as numbers (it never touches the
 * memory), so it serves the CUDA driver and the emulator alike and is
 * tested on its own (tests/gpu/pool_test.c). Not thread-safe: the host
 * code that calls it is sequential. */
#ifndef ARR_GPU_POOL_H
#define ARR_GPU_POOL_H

#include <stdint.h>

/* Returns 0 and sets *out on success. */
typedef int (*arr_pool_alloc_fn)(void *ctx, uint64_t bytes, uint64_t *out);
typedef void (*arr_pool_free_fn)(void *ctx, uint64_t ptr);

/* Class 0 (256 bytes), four per power of two from 2^8 to 2^61, and 2^62. */
#define ARR_POOL_CLASSES 217

typedef struct {
    uint64_t *ptrs;
    int64_t count, capacity;
} arr_pool_list;

typedef struct {
    uint64_t ptr;   /* 0: empty slot; ~0: deleted */
    uint64_t size;  /* the block's class size */
    uint64_t owner; /* `owner` and `call` of the pool when it was handed out */
    uint64_t call;
} arr_pool_slot;

typedef struct {
    arr_pool_alloc_fn alloc;
    arr_pool_free_fn free;
    void *ctx;
    uint64_t cache_limit;
    arr_pool_list lists[ARR_POOL_CLASSES];
    /* Live blocks (handed out), an open-addressing table by address. */
    arr_pool_slot *live;
    int64_t live_count, live_used, live_capacity;
    /* Tags of the blocks handed out from now on: who holds them (a GPU
     * library's context; 0 in an executable) and the call that allocated
     * them (0 outside calls), so that both can be freed as a whole. */
    uint64_t owner, call;
    /* Statistics: bytes handed out, and bytes held from the driver
     * (handed out or cached). */
    uint64_t live_bytes, driver_bytes;
    uint64_t cached_bytes;
    int64_t driver_allocs, reuses;
} arr_pool;

/* The largest request the pool serves (bigger ones fail as out of memory). */
#define ARR_POOL_MAX_BYTES ((uint64_t)1 << 62)

/* The size class of a request of at most ARR_POOL_MAX_BYTES (the bytes a
 * block for it has). */
uint64_t arr_pool_class_size(uint64_t bytes);
/* The free list of a class size. */
int arr_pool_class_index(uint64_t class_size);

void arr_pool_init(arr_pool *pool, arr_pool_alloc_fn alloc, arr_pool_free_fn free, void *ctx,
                   uint64_t cache_limit);
/* 0 on success; -1 when the driver has no memory even after the cache was
 * given back. */
int arr_pool_alloc(arr_pool *pool, uint64_t bytes, uint64_t *out);
/* `ptr` must come from arr_pool_alloc; 0 is ignored. Returns -1 for an
 * address the pool never handed out (a bug in the caller). */
int arr_pool_free(arr_pool *pool, uint64_t ptr);
/* Like arr_pool_free, for a block handed out to `owner`: -1 (nothing
 * freed) when the pool holds no such block for `owner`. */
int arr_pool_free_owned(arr_pool *pool, uint64_t ptr, uint64_t owner);
/* Frees every live block handed out to `owner` (owner != 0), or during
 * `call` (call != 0). */
void arr_pool_free_owner(arr_pool *pool, uint64_t owner);
void arr_pool_free_call(arr_pool *pool, uint64_t call);
/* Gives every cached block back to the driver. */
void arr_pool_trim(arr_pool *pool);
/* Trims and frees the pool's own memory; live blocks are given back too. */
void arr_pool_destroy(arr_pool *pool);

#endif
