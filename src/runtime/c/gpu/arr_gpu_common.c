/* The part of the GPU host runtime that does not depend on what runs the
 * kernels: device memory through the pool, entry arguments and results,
 * launch planning, and the report of a kernel's run-time error with the
 * CPU runtime's own messages. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "arr_gpu_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const arr_gpu_program *arr_gpu_prog;
arr_pool arr_gpu_mem;
uint64_t arr_gpu_seq;
int64_t arr_gpu_launches;
int64_t arr_gpu_driver_allocs;
int64_t arr_gpu_copies;

void (*arr_gpu_fatal_hook)(const char *message) = NULL;

/* Ends the program with `code` after "PREFIX MESSAGE" on stderr, or, in a
 * library, hands "Error: MESSAGE" to the library (which never returns). */
static void fatal(int code, const char *prefix, const char *fmt, va_list ap) ARR_GPU_NORETURN;
static void fatal(int code, const char *prefix, const char *fmt, va_list ap) {
    char message[1024];
    int n = snprintf(message, sizeof message, "Error: %s", prefix);
    vsnprintf(message + n, sizeof message - (size_t)n - 1, fmt, ap);
    strcat(message, "\n");
    if (arr_gpu_fatal_hook != NULL) {
        arr_gpu_fatal_hook(message);
    }
    fflush(stdout);
    /* An executable's line: "Error: " only for a missing device. */
    fputs(code == 3 ? message : message + strlen("Error: "), stderr);
    exit(code);
}

void arr_gpu_exit_no_device(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fatal(3, "", fmt, ap);
}

void arr_gpu_exit_internal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fatal(70, "internal compiler error: ", fmt, ap);
}

int64_t arr_gpu_heap_bytes = 8 << 20;

void arr_gpu_report(const arr_gpu_error *rec) {
    const char *loc;
    const int64_t *a = rec->args;
    if (rec->kind == ARR_GPU_ERR_HEAP) {
        char message[256];
        snprintf(message, sizeof message,
                 "Error: out of GPU heap memory (a kernel allocating %" PRId64
                 " bytes of scratch memory; the device heap has %" PRId64 " bytes)\n",
                 a[0], arr_gpu_heap_bytes);
        /* The call's error: an executable prints it and exits 1. */
        arr_raise(message);
    }
    if (rec->loc < 0 || rec->loc >= arr_gpu_prog->num_locations) {
        arr_gpu_exit_internal("a kernel reported an error at unknown location %" PRId32, rec->loc);
    }
    loc = arr_gpu_prog->locations[rec->loc];
    switch (rec->kind) {
    case ARR_GPU_ERR_BOUNDS:
        arr_fail_bounds(a[0], a[1], loc);
        break;
    case ARR_GPU_ERR_SLICE:
        arr_fail_slice(a[0], a[1], a[2], a[3], loc);
        break;
    case ARR_GPU_ERR_SIZE_MISMATCH:
        arr_fail_size_mismatch(a[0], a[1], loc);
        break;
    case ARR_GPU_ERR_DIVISION_BY_ZERO:
        arr_fail_division_by_zero(loc);
        break;
    case ARR_GPU_ERR_ASSERT:
        arr_fail_assert(loc);
        break;
    case ARR_GPU_ERR_ASSERT_CONDITION:
        if (a[0] >= 0 && a[0] < arr_gpu_prog->num_locations) {
            arr_fail_assert_condition(arr_gpu_prog->locations[a[0]], loc);
        }
        break;
    case ARR_GPU_ERR_NEGATIVE_SIZE:
        arr_fail_negative_size(a[0], loc);
        break;
    case ARR_GPU_ERR_NEGATIVE_EXPONENT:
        arr_fail_negative_exponent(loc);
        break;
    case ARR_GPU_ERR_RANGE:
        arr_fail_range(a[0], a[1], a[2], a[3], loc);
        break;
    default:
        break;
    }
    arr_gpu_exit_internal("a kernel reported an error of unknown kind %" PRId32, rec->kind);
}

static void print_counts(void) {
    fprintf(stderr, "gpu: launches=%" PRId64 " copies=%" PRId64 "\n", arr_gpu_launches,
            arr_gpu_copies);
}

void arr_gpu_trace_counts(void) {
    const char *s = getenv("ARRC_GPU_COUNT");
    if (s != NULL && *s != '\0' && strcmp(s, "0") != 0) {
        atexit(print_counts);
    }
}

int arr_gpu_shrink(void) {
    static int shrink = -1;
    if (shrink < 0) {
        const char *s = getenv("ARRC_GPU_SHRINK");
        shrink = s != NULL && *s != '\0' && strcmp(s, "0") != 0;
    }
    return shrink;
}

const arr_gpu_kernel_def *arr_gpu_kernel(int index) {
    if (arr_gpu_prog == NULL) {
        arr_gpu_exit_internal("the GPU is used before arr_gpu_init");
    }
    if (index < 0 || index >= arr_gpu_prog->num_kernels) {
        arr_gpu_exit_internal("no kernel number %d", index);
    }
    return &arr_gpu_prog->kernels[index];
}

/* ---------------------------------------------------------------- memory */

arr_dptr arr_gpu_alloc(int64_t bytes) {
    uint64_t ptr;
    if (arr_gpu_prog == NULL) {
        arr_gpu_exit_internal("the GPU is used before arr_gpu_init");
    }
    if (bytes < 0 || arr_pool_alloc(&arr_gpu_mem, (uint64_t)bytes, &ptr) != 0) {
        char message[128];
        /* A kernel before this may have failed, which comes first. */
        arr_gpu_sync();
        snprintf(message, sizeof message,
                 "Error: out of GPU memory (allocating %" PRId64 " bytes)\n", bytes);
        /* A library's call returns it; an executable prints it, exit 1. */
        arr_raise(message);
    }
    arr_gpu_driver_allocs = arr_gpu_mem.driver_allocs;
    return ptr;
}

void arr_gpu_free(arr_dptr ptr) {
    if (arr_pool_free(&arr_gpu_mem, ptr) != 0) {
        arr_gpu_exit_internal("freeing device address 0x%" PRIx64 " that was not allocated", ptr);
    }
}

static const int value_sizes[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 1, 2};

int64_t arr_gpu_value_bytes(const arr_value *v) {
    int64_t n = value_sizes[v->type.prim];
    int d;
    for (d = 0; d < v->type.rank; d++) {
        n *= v->shape[d];
    }
    return n;
}

_Thread_local int arr_gpu_resident = 0;

int arr_gpu_try_alloc(int64_t bytes, arr_dptr *out) {
    if (arr_gpu_prog == NULL || bytes < 0 || arr_pool_alloc(&arr_gpu_mem, (uint64_t)bytes, out) != 0) {
        return 1;
    }
    arr_gpu_driver_allocs = arr_gpu_mem.driver_allocs;
    return 0;
}

static int64_t clock_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

arr_dptr arr_gpu_entry_in(const void *data, int64_t bytes) {
    arr_dptr d;
    int64_t t0;
    if (arr_gpu_resident) {
        return (arr_dptr)(uintptr_t)data;
    }
    t0 = clock_us();
    d = arr_gpu_alloc(bytes);
    if (bytes > 0) {
        arr_gpu_copy_in(d, data, bytes);
    }
    arr_untimed_us += clock_us() - t0;
    return d;
}

void *arr_gpu_entry_out(arr_dptr src, int64_t bytes) {
    void *host;
    int64_t t0;
    if (arr_gpu_resident) {
        return (void *)(uintptr_t)src;
    }
    /* The kernels before the copy are the run's work: wait for them first. */
    arr_gpu_sync();
    t0 = clock_us();
    host = arr_alloc(bytes);
    arr_gpu_copy_out(host, src, bytes);
    arr_gpu_free(src);
    arr_untimed_us += clock_us() - t0;
    return host;
}

void arr_gpu_entry_release(arr_dptr arg) {
    if (!arr_gpu_resident) {
        arr_gpu_free(arg);
    }
}

arr_dptr arr_gpu_arg_in(const arr_value *arg) {
    int64_t bytes = arr_gpu_value_bytes(arg);
    arr_dptr d = arr_gpu_alloc(bytes);
    if (bytes > 0) {
        arr_gpu_copy_in(d, arg->data, bytes);
    }
    return d;
}

void arr_gpu_result_out(arr_value *result, arr_dptr src) {
    int64_t bytes = arr_gpu_value_bytes(result);
    result->data = arr_alloc(bytes);
    if (bytes > 0) {
        arr_gpu_copy_out(result->data, src, bytes);
    } else {
        arr_gpu_sync();
    }
}

/* ---------------------------------------------------------------- launches */

/* The kernel whose launches get per-nest scratch, and its bytes a thread
 * (arr_gpu_scratch). */
static int scratch_kernel = -1;
static int64_t scratch_per_thread = 0;

/* The kernel parameter (after `err` and `seq`) that holds the scratch. */
#define SCRATCH_PARAM 3

void arr_gpu_scratch(int kernel, int64_t per_thread) {
    scratch_kernel = kernel;
    scratch_per_thread = per_thread;
}

/* arr_gpu_launch, with the kernel's scratch buffer from the pool when it
 * has one: freed right after the launch, as the pool's next user runs
 * after the kernel in stream order. */
static void launch(int kernel, const arr_gpu_config *c, void **args) {
    int64_t threads, bytes;
    arr_dptr scratch;
    if (kernel != scratch_kernel || scratch_per_thread <= 0) {
        arr_gpu_launch(kernel, c, args);
        return;
    }
    threads = (int64_t)c->grid.x * c->grid.y * c->grid.z * c->block.x * c->block.y * c->block.z;
    if (threads > INT64_MAX / scratch_per_thread) {
        bytes = -1; /* reported as out of GPU memory */
    } else {
        bytes = threads * scratch_per_thread;
    }
    scratch = arr_gpu_alloc(bytes);
    *(arr_dptr *)args[SCRATCH_PARAM] = scratch;
    arr_gpu_launch(kernel, c, args);
    arr_gpu_free(scratch);
}

arr_gpu_config arr_gpu_plan(int kernel, int64_t work, uint32_t shared_per_block,
                            uint32_t shared_per_thread) {
    arr_gpu_config c;
    int block = 0, max_blocks = 0, pow2 = 32;
    int64_t blocks, shared;
    (void)arr_gpu_kernel(kernel);
    if (arr_gpu_shrink()) {
        block = 64;
        max_blocks = 3;
    } else {
        arr_gpu_be_occupancy(kernel, shared_per_block, shared_per_thread, &block, &max_blocks);
    }
    while (pow2 * 2 <= block && pow2 < 1024) {
        pow2 *= 2;
    }
    blocks = work <= 0 ? 1 : (work + pow2 - 1) / pow2;
    if (max_blocks < 1) {
        max_blocks = 1;
    }
    if (blocks > max_blocks) {
        blocks = max_blocks;
    }
    shared = (int64_t)shared_per_block + (int64_t)shared_per_thread * pow2;
    if (shared > ARR_GPU_SHARED_LIMIT) {
        arr_gpu_exit_internal("kernel %s needs %" PRId64 " bytes of shared memory per block",
                              arr_gpu_prog->kernels[kernel].name, shared);
    }
    c.grid.x = (uint32_t)blocks;
    c.grid.y = c.grid.z = 1;
    c.block.x = (uint32_t)pow2;
    c.block.y = c.block.z = 1;
    c.shared_bytes = (uint32_t)shared;
    return c;
}

/* A look-back scan's plan (`shared` bytes of shared memory a block and
 * `per_thread` a thread) and the items each thread takes of a tile:
 * ceil(work / threads) between 1 and `items` (the kernel computes the same
 * from its grid). */
static arr_gpu_config arr_gpu_lookback_plan(int kernel, int64_t work, int64_t shared,
                                            int64_t per_thread, int64_t items, int64_t *per) {
    arr_gpu_config c = arr_gpu_plan(kernel, work, (uint32_t)shared, (uint32_t)per_thread);
    int64_t threads = (int64_t)c.grid.x * c.block.x;
    int64_t p = (work + threads - 1) / threads;
    *per = p < 1 ? 1 : p > items ? items : p;
    return c;
}

int64_t arr_gpu_lookback_tiles(int kernel, int64_t work, int64_t shared, int64_t per_thread,
                               int64_t items) {
    int64_t per;
    arr_gpu_config c = arr_gpu_lookback_plan(kernel, work, shared, per_thread, items, &per);
    int64_t tile = (int64_t)c.block.x * per;
    return (work + tile - 1) / tile;
}

int64_t arr_gpu_lookback_chunks(int kernel, int64_t work, int64_t shared, int64_t per_thread,
                                int64_t items) {
    int64_t per;
    (void)arr_gpu_lookback_plan(kernel, work, shared, per_thread, items, &per);
    /* The chunks of threads that fold something (chunk k starts at k *
     * per); no work: one chunk still holds the reductions' neutral
     * elements. */
    return work < 1 ? 1 : (work + per - 1) / per;
}

void arr_gpu_launch_shared_block(int kernel, int64_t work, int64_t shared, int64_t per_thread,
                                 void **args) {
    arr_gpu_config c = arr_gpu_plan(kernel, work, (uint32_t)shared, (uint32_t)per_thread);
    launch(kernel, &c, args);
}

int64_t arr_gpu_blocks_shared(int kernel, int64_t work, int64_t per_thread) {
    return arr_gpu_plan(kernel, work, 0, (uint32_t)per_thread).grid.x;
}

void arr_gpu_launch_shared(int kernel, int64_t work, int64_t per_thread, void **args) {
    arr_gpu_config c = arr_gpu_plan(kernel, work, 0, (uint32_t)per_thread);
    launch(kernel, &c, args);
}

int64_t arr_gpu_threads(int kernel, int64_t work) {
    arr_gpu_config c = arr_gpu_plan(kernel, work, 0, 0);
    return (int64_t)c.grid.x * c.grid.y * c.grid.z * c.block.x * c.block.y * c.block.z;
}

void arr_gpu_launch_work(int kernel, int64_t work, void **args) {
    arr_gpu_config c = arr_gpu_plan(kernel, work, 0, 0);
    launch(kernel, &c, args);
}

void arr_gpu_launch_one(int kernel, void **args) {
    arr_gpu_config c = {{1, 1, 1}, {1, 1, 1}, 0};
    launch(kernel, &c, args);
}

int64_t arr_gpu_tile_side(void) {
    return arr_gpu_shrink() ? 4 : 16;
}

int64_t arr_gpu_fan_in(void) {
    return arr_gpu_shrink() ? 4 : 64;
}

void arr_gpu_launch_tiles(int kernel, int64_t tiles, int64_t side, int64_t shared, void **args) {
    /* Enough blocks to fill any GPU; the kernel strides over the rest.
     * Shrunk: at most 3, so that blocks take several tiles. */
    int64_t most = arr_gpu_shrink() ? 3 : 65535;
    arr_gpu_config c;
    (void)arr_gpu_kernel(kernel);
    if (side < 1 || side * side > 1024 || shared < 0 || shared > ARR_GPU_SHARED_LIMIT) {
        arr_gpu_exit_internal("kernel %s: a tiled launch of %" PRId64 " x %" PRId64
                              " threads and %" PRId64 " bytes of shared memory",
                              arr_gpu_prog->kernels[kernel].name, side, side, shared);
    }
    c.grid.x = (uint32_t)(tiles < 1 ? 1 : tiles > most ? most : tiles);
    c.grid.y = c.grid.z = 1;
    c.block.x = c.block.y = (uint32_t)side;
    c.block.z = 1;
    c.shared_bytes = (uint32_t)shared;
    launch(kernel, &c, args);
}
