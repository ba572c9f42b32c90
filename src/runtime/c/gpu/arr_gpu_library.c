/* A GPU library's device (`arrc build --library --target nvptx` or
 * `nvptx-emu`; docs/library.md): sets the library's `arr_lib_device` so that
 * its arrays live in device memory and stay there between calls, and runs
 * entries with `arr_gpu_resident` set, so that the compiled code takes and
 * gives device arrays without copies. The GPU runtime is the process's:
 * one lock serialises calls and data movement of every context. */
#include "arr_gpu_internal.h"
#include "arr_library.h"

#include <pthread.h>
#include <stdint.h>

/* The program descriptor of the glue (codegen::gpu::DESCRIPTOR). */
extern const arr_gpu_program arr_gpu_desc;

static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;

static void lock(void) {
    pthread_mutex_lock(&device_lock);
    arr_gpu_init(&arr_gpu_desc);
}

static void unlock(void) { pthread_mutex_unlock(&device_lock); }

static void enter(void) {
    lock();
    arr_gpu_resident = 1;
}

static void leave(int failed) {
    arr_gpu_resident = 0;
    if (failed) {
        arr_gpu_reset_error();
    }
    unlock();
}

static int alloc(int64_t bytes, void **out) {
    arr_dptr d = 0;
    int failed;
    lock();
    failed = arr_gpu_try_alloc(bytes, &d);
    unlock();
    *out = (void *)(uintptr_t)d;
    return failed;
}

static void release(void *p) {
    lock();
    arr_gpu_free((arr_dptr)(uintptr_t)p);
    unlock();
}

static void copy_in(void *dst, const void *src, int64_t bytes) {
    lock();
    arr_gpu_copy_in((arr_dptr)(uintptr_t)dst, src, bytes);
    unlock();
}

static void copy_out(void *dst, const void *src, int64_t bytes) {
    lock();
    arr_gpu_copy_out(dst, (arr_dptr)(uintptr_t)src, bytes);
    unlock();
}

static void copy_within(void *dst, const void *src, int64_t bytes) {
    lock();
    arr_gpu_copy_within((arr_dptr)(uintptr_t)dst, (arr_dptr)(uintptr_t)src, bytes);
    unlock();
}

static const arr_lib_device_ops ops = {enter, leave, alloc, release, copy_in, copy_out,
                                       copy_within};

__attribute__((constructor)) static void arr_gpu_library_init(void) { arr_lib_device = &ops; }
