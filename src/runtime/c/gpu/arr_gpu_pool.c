/* The size-bucketed device memory pool (see arr_gpu_pool.h). */
#include "arr_gpu_pool.h"

#include <stdlib.h>
#include <string.h>

#define SMALL_CLASS 256u
#define DELETED UINT64_MAX

uint64_t arr_pool_class_size(uint64_t bytes) {
    int k = 63;
    uint64_t step;
    if (bytes <= SMALL_CLASS) {
        return SMALL_CLASS;
    }
    while (!(bytes >> k & 1)) {
        k--;
    }
    step = (uint64_t)1 << (k - 2);
    return (bytes + step - 1) / step * step;
}

int arr_pool_class_index(uint64_t class_size) {
    int k = 63;
    if (class_size <= SMALL_CLASS) {
        return 0;
    }
    while (!(class_size >> k & 1)) {
        k--;
    }
    /* 2^k + j * 2^(k-2) for j in 0..3; 256 = 2^8 is class 0. */
    {
        int j = (int)((class_size - ((uint64_t)1 << k)) >> (k - 2));
        return (k - 8) * 4 + j;
    }
}

void arr_pool_init(arr_pool *pool, arr_pool_alloc_fn alloc, arr_pool_free_fn free_fn, void *ctx,
                   uint64_t cache_limit) {
    memset(pool, 0, sizeof *pool);
    pool->alloc = alloc;
    pool->free = free_fn;
    pool->ctx = ctx;
    pool->cache_limit = cache_limit;
}

static uint64_t slot_hash(uint64_t ptr) {
    ptr ^= ptr >> 33;
    ptr *= 0xff51afd7ed558ccdULL;
    ptr ^= ptr >> 33;
    return ptr;
}

/* The slot holding `ptr`, or -1. */
static int64_t live_find(const arr_pool *pool, uint64_t ptr) {
    int64_t i, mask = pool->live_capacity - 1;
    if (pool->live_capacity == 0) {
        return -1;
    }
    for (i = (int64_t)(slot_hash(ptr) & (uint64_t)mask);; i = (i + 1) & mask) {
        if (pool->live[i].ptr == ptr) {
            return i;
        }
        if (pool->live[i].ptr == 0) {
            return -1;
        }
    }
}

static void live_put_slot(arr_pool_slot *table, int64_t capacity, const arr_pool_slot *slot) {
    int64_t i, mask = capacity - 1;
    for (i = (int64_t)(slot_hash(slot->ptr) & (uint64_t)mask);
         table[i].ptr != 0 && table[i].ptr != DELETED; i = (i + 1) & mask) {
    }
    table[i] = *slot;
}

/* Records a live block; 0 on success, -1 without host memory. */
static int live_insert(arr_pool *pool, uint64_t ptr, uint64_t size) {
    if ((pool->live_used + 1) * 2 > pool->live_capacity) {
        int64_t i, capacity = pool->live_capacity == 0 ? 64 : pool->live_capacity;
        arr_pool_slot *table;
        while ((pool->live_count + 1) * 4 > capacity) {
            capacity *= 2;
        }
        table = calloc((size_t)capacity, sizeof *table);
        if (table == NULL) {
            return -1;
        }
        for (i = 0; i < pool->live_capacity; i++) {
            if (pool->live[i].ptr != 0 && pool->live[i].ptr != DELETED) {
                live_put_slot(table, capacity, &pool->live[i]);
            }
        }
        free(pool->live);
        pool->live = table;
        pool->live_capacity = capacity;
        pool->live_used = pool->live_count;
    }
    {
        arr_pool_slot slot = {ptr, size, pool->owner, pool->call};
        live_put_slot(pool->live, pool->live_capacity, &slot);
    }
    pool->live_count++;
    pool->live_used++;
    pool->live_bytes += size;
    return 0;
}

static int list_push(arr_pool_list *list, uint64_t ptr) {
    if (list->count == list->capacity) {
        int64_t capacity = list->capacity == 0 ? 8 : list->capacity * 2;
        uint64_t *ptrs = realloc(list->ptrs, (size_t)capacity * sizeof *ptrs);
        if (ptrs == NULL) {
            return -1;
        }
        list->ptrs = ptrs;
        list->capacity = capacity;
    }
    list->ptrs[list->count++] = ptr;
    return 0;
}

/* Returns a block to the driver. */
static void give_back(arr_pool *pool, uint64_t ptr, uint64_t size) {
    pool->free(pool->ctx, ptr);
    pool->driver_bytes -= size;
}

/* The class size of free list `index` (arr_pool_class_index inverted). */
static uint64_t index_class_size(int index) {
    int k = index / 4 + 8;
    if (index == 0) {
        return SMALL_CLASS;
    }
    return ((uint64_t)1 << k) + (uint64_t)(index % 4) * ((uint64_t)1 << (k - 2));
}

int arr_pool_alloc(arr_pool *pool, uint64_t bytes, uint64_t *out) {
    uint64_t size, ptr;
    arr_pool_list *list;
    if (bytes > ARR_POOL_MAX_BYTES) {
        return -1;
    }
    size = arr_pool_class_size(bytes);
    list = &pool->lists[arr_pool_class_index(size)];
    if (list->count > 0) {
        ptr = list->ptrs[--list->count];
        pool->cached_bytes -= size;
        if (live_insert(pool, ptr, size) != 0) {
            list->ptrs[list->count++] = ptr;
            pool->cached_bytes += size;
            return -1;
        }
        pool->reuses++;
        *out = ptr;
        return 0;
    }
    if (pool->alloc(pool->ctx, size, &ptr) != 0) {
        arr_pool_trim(pool);
        if (pool->alloc(pool->ctx, size, &ptr) != 0) {
            return -1;
        }
    }
    pool->driver_allocs++;
    pool->driver_bytes += size;
    if (live_insert(pool, ptr, size) != 0) {
        give_back(pool, ptr, size);
        return -1;
    }
    *out = ptr;
    return 0;
}

/* Frees live slot `slot`: into the cache, or back to the driver. */
static void release_slot(arr_pool *pool, int64_t slot) {
    uint64_t ptr = pool->live[slot].ptr, size = pool->live[slot].size;
    int index = arr_pool_class_index(size);
    pool->live[slot].ptr = DELETED;
    pool->live_count--;
    pool->live_bytes -= size;
    if (pool->cached_bytes + size <= pool->cache_limit &&
        list_push(&pool->lists[index], ptr) == 0) {
        pool->cached_bytes += size;
    } else {
        give_back(pool, ptr, size);
    }
}

int arr_pool_free(arr_pool *pool, uint64_t ptr) {
    int64_t slot;
    if (ptr == 0) {
        return 0;
    }
    slot = live_find(pool, ptr);
    if (slot < 0) {
        return -1;
    }
    release_slot(pool, slot);
    return 0;
}

int arr_pool_free_owned(arr_pool *pool, uint64_t ptr, uint64_t owner) {
    int64_t slot;
    if (ptr == 0) {
        return 0;
    }
    slot = live_find(pool, ptr);
    if (slot < 0 || pool->live[slot].owner != owner) {
        return -1;
    }
    release_slot(pool, slot);
    return 0;
}

/* Frees the live blocks whose `owner` (or `call`) is `tag`. */
static void free_tagged(arr_pool *pool, uint64_t tag, int by_call) {
    int64_t i;
    for (i = 0; tag != 0 && i < pool->live_capacity; i++) {
        const arr_pool_slot *s = &pool->live[i];
        if (s->ptr != 0 && s->ptr != DELETED && (by_call ? s->call : s->owner) == tag) {
            release_slot(pool, i);
        }
    }
}

void arr_pool_free_owner(arr_pool *pool, uint64_t owner) { free_tagged(pool, owner, 0); }

void arr_pool_free_call(arr_pool *pool, uint64_t call) { free_tagged(pool, call, 1); }

void arr_pool_trim(arr_pool *pool) {
    int c;
    for (c = 0; c < ARR_POOL_CLASSES; c++) {
        arr_pool_list *list = &pool->lists[c];
        while (list->count > 0) {
            give_back(pool, list->ptrs[--list->count], index_class_size(c));
        }
    }
    pool->cached_bytes = 0;
}

void arr_pool_destroy(arr_pool *pool) {
    int64_t i;
    int c;
    arr_pool_trim(pool);
    for (i = 0; i < pool->live_capacity; i++) {
        if (pool->live[i].ptr != 0 && pool->live[i].ptr != DELETED) {
            give_back(pool, pool->live[i].ptr, pool->live[i].size);
        }
    }
    for (c = 0; c < ARR_POOL_CLASSES; c++) {
        free(pool->lists[c].ptrs);
    }
    free(pool->live);
    memset(pool, 0, sizeof *pool);
}
