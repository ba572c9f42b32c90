/* The host runtime of `--target nvptx` binaries: arr_gpu.h served by the
 * CUDA driver API. The driver (`libcuda.so.1`, or the file named by
 * ARRC_CUDA_LIBRARY) is opened with dlopen at run time and every function
 * resolved by name, so neither building nor running needs a CUDA
 * installation; with no driver, no GPU, a driver too old for the PTX or a
 * GPU too old for its target, the program says which in one line and exits
 * 3. The embedded PTX is JIT-compiled by the driver for the GPU at hand.
 *
 * Everything runs on the legacy default stream, so launches, copies and
 * fills happen in the order the host issues them; the host waits only when
 * it copies out or syncs, and then reads the error record first. */
#define _DEFAULT_SOURCE
#include "arr_gpu_internal.h"

#include <dlfcn.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver API's types and constants (cuda.h is not needed to build). */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef size_t (*CUoccupancyB2DSize)(int block_size);

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222
};
enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };
enum {
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
};

typedef struct {
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*MemsetD32)(CUdeviceptr, unsigned, size_t);
    CUresult (*MemGetInfo)(size_t *, size_t *);
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*GetErrorString)(CUresult, const char **);
    CUresult (*OccupancyMaxPotentialBlockSize)(int *, int *, CUfunction, CUoccupancyB2DSize,
                                               size_t, int);
} cu_api;

static cu_api cu;

#define CU_SYMBOL(field, name) {name, offsetof(cu_api, field)}
static const struct {
    const char *name;
    size_t offset;
} cu_symbols[] = {
    CU_SYMBOL(Init, "cuInit"),
    CU_SYMBOL(DriverGetVersion, "cuDriverGetVersion"),
    CU_SYMBOL(DeviceGetCount, "cuDeviceGetCount"),
    CU_SYMBOL(DeviceGet, "cuDeviceGet"),
    CU_SYMBOL(DeviceGetName, "cuDeviceGetName"),
    CU_SYMBOL(DeviceGetAttribute, "cuDeviceGetAttribute"),
    CU_SYMBOL(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    CU_SYMBOL(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
    CU_SYMBOL(CtxSetCurrent, "cuCtxSetCurrent"),
    CU_SYMBOL(CtxSynchronize, "cuCtxSynchronize"),
    CU_SYMBOL(ModuleLoadDataEx, "cuModuleLoadDataEx"),
    CU_SYMBOL(ModuleUnload, "cuModuleUnload"),
    CU_SYMBOL(ModuleGetFunction, "cuModuleGetFunction"),
    CU_SYMBOL(LaunchKernel, "cuLaunchKernel"),
    CU_SYMBOL(MemAlloc, "cuMemAlloc_v2"),
    CU_SYMBOL(MemFree, "cuMemFree_v2"),
    CU_SYMBOL(MemcpyHtoD, "cuMemcpyHtoD_v2"),
    CU_SYMBOL(MemcpyDtoH, "cuMemcpyDtoH_v2"),
    CU_SYMBOL(MemcpyDtoD, "cuMemcpyDtoD_v2"),
    CU_SYMBOL(MemsetD32, "cuMemsetD32_v2"),
    CU_SYMBOL(MemGetInfo, "cuMemGetInfo_v2"),
    CU_SYMBOL(GetErrorName, "cuGetErrorName"),
    CU_SYMBOL(GetErrorString, "cuGetErrorString"),
    CU_SYMBOL(OccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize"),
};

/* Optional (the tests' stand-in driver has neither): the device heap. */
static CUresult (*cu_set_limit)(int, size_t);
static CUresult (*cu_get_limit)(size_t *, int);
#define CU_LIMIT_MALLOC_HEAP_SIZE 2
static size_t cu_total_bytes;

static void *cu_library;
static CUdevice cu_device;
static CUcontext cu_context;
static CUmodule cu_module;
static CUfunction *cu_functions;
static CUdeviceptr cu_error_record;
/* Launches since the error record was last read. */
static int cu_unchecked;

/* "CUDA_ERROR_X (what it means)" for a driver result. */
static const char *cu_describe(CUresult r) {
    static char text[256];
    const char *name = NULL, *what = NULL;
    if (cu.GetErrorName == NULL || cu.GetErrorName(r, &name) != CUDA_SUCCESS || name == NULL) {
        name = "unknown error";
    }
    if (cu.GetErrorString == NULL || cu.GetErrorString(r, &what) != CUDA_SUCCESS ||
        what == NULL) {
        what = "no description";
    }
    snprintf(text, sizeof text, "%s %d (%s)", name, r, what);
    return text;
}

/* A driver call failed where it should not (a bug in arrc or a broken
 * GPU): the call and the driver's words, exit 70. */
static void cu_check(CUresult r, const char *call) {
    if (r != CUDA_SUCCESS) {
        arr_gpu_exit_internal("CUDA: %s failed: %s", call, cu_describe(r));
    }
}

/* The CUDA version (1000 * major + 10 * minor) whose driver reads PTX ISA
 * `major.minor`, or 0 when not known here (the driver then decides). */
static int cu_driver_for_ptx(int major, int minor) {
    static const int isa8[] = {12000, 12010, 12020, 12030, 12040, 12050, 12070, 12080, 12090};
    if (major == 7 && minor >= 0 && minor <= 8) {
        return 11000 + 10 * minor;
    }
    if (major == 8 && minor >= 0 && minor <= 8) {
        return isa8[minor];
    }
    return 0;
}

/* The `.version` and `.target sm_NN` of the PTX text (0 when absent). */
static void cu_ptx_header(const char *ptx, int *isa_major, int *isa_minor, int *sm) {
    const char *v = strstr(ptx, ".version "), *t = strstr(ptx, ".target sm_");
    *isa_major = *isa_minor = *sm = 0;
    if (v == NULL || sscanf(v, ".version %d.%d", isa_major, isa_minor) != 2) {
        *isa_major = *isa_minor = 0;
    }
    if (t == NULL || sscanf(t, ".target sm_%d", sm) != 1) {
        *sm = 0;
    }
}

static void cu_shutdown(void) {
    /* Best effort: after a failed kernel the context refuses everything. */
    if (cu.CtxSynchronize != NULL) {
        (void)cu.CtxSynchronize();
    }
    arr_pool_destroy(&arr_gpu_mem);
    if (cu_error_record != 0) {
        (void)cu.MemFree(cu_error_record);
        cu_error_record = 0;
    }
    if (cu_module != NULL) {
        (void)cu.ModuleUnload(cu_module);
        cu_module = NULL;
    }
    free(cu_functions);
    cu_functions = NULL;
    if (cu_context != NULL) {
        (void)cu.DevicePrimaryCtxRelease(cu_device);
        cu_context = NULL;
    }
}

static void cu_open_driver(void) {
    const char *path = getenv("ARRC_CUDA_LIBRARY");
    size_t i;
    if (path == NULL || *path == '\0') {
        path = "libcuda.so.1";
    }
    cu_library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (cu_library == NULL) {
        const char *why = dlerror();
        arr_gpu_exit_no_device("no CUDA driver: cannot load %s (%s)", path,
                               why != NULL ? why : "unknown reason");
    }
    for (i = 0; i < sizeof cu_symbols / sizeof cu_symbols[0]; i++) {
        void *f = dlsym(cu_library, cu_symbols[i].name);
        if (f == NULL) {
            arr_gpu_exit_no_device("the CUDA driver is too old: %s has no %s", path,
                                   cu_symbols[i].name);
        }
        memcpy((char *)&cu + cu_symbols[i].offset, &f, sizeof f);
    }
    {
        void *set = dlsym(cu_library, "cuCtxSetLimit");
        void *get = dlsym(cu_library, "cuCtxGetLimit");
        memcpy(&cu_set_limit, &set, sizeof set);
        memcpy(&cu_get_limit, &get, sizeof get);
    }
}

/* The device, checked against what the PTX needs. */
static void cu_open_device(const char *ptx) {
    int version = 0, count = 0, isa_major, isa_minor, sm, need, cc_major = 0, cc_minor = 0;
    char name[256] = "GPU";
    CUresult r = cu.Init(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        arr_gpu_exit_no_device("no CUDA GPU found (cuInit: %s)", cu_describe(r));
    }
    if (r != CUDA_SUCCESS) {
        arr_gpu_exit_no_device("the CUDA driver does not start (cuInit: %s)", cu_describe(r));
    }
    cu_ptx_header(ptx, &isa_major, &isa_minor, &sm);
    need = cu_driver_for_ptx(isa_major, isa_minor);
    if (cu.DriverGetVersion(&version) == CUDA_SUCCESS && need > 0 && version < need) {
        arr_gpu_exit_no_device("the CUDA driver is too old: it supports CUDA %d.%d, this "
                               "program's PTX (ISA %d.%d) needs CUDA %d.%d or newer",
                               version / 1000, version % 1000 / 10, isa_major, isa_minor,
                               need / 1000, need % 1000 / 10);
    }
    r = cu.DeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count < 1) {
        arr_gpu_exit_no_device("no CUDA GPU found (%s)", r != CUDA_SUCCESS
                                                              ? cu_describe(r)
                                                              : "the driver lists none");
    }
    cu_check(cu.DeviceGet(&cu_device, 0), "cuDeviceGet");
    (void)cu.DeviceGetName(name, (int)sizeof name, cu_device);
    name[sizeof name - 1] = '\0';
    cu_check(cu.DeviceGetAttribute(&cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                   cu_device),
             "cuDeviceGetAttribute");
    cu_check(cu.DeviceGetAttribute(&cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                   cu_device),
             "cuDeviceGetAttribute");
    if (sm > 0 && cc_major * 10 + cc_minor < sm) {
        arr_gpu_exit_no_device("the GPU is too old: %s has compute capability %d.%d, this "
                               "program needs sm_%d or newer",
                               name, cc_major, cc_minor, sm);
    }
    r = cu.DevicePrimaryCtxRetain(&cu_context, cu_device);
    if (r != CUDA_SUCCESS) {
        cu_context = NULL;
        arr_gpu_exit_no_device("cannot use the GPU %s (cuDevicePrimaryCtxRetain: %s)", name,
                               cu_describe(r));
    }
    cu_check(cu.CtxSetCurrent(cu_context), "cuCtxSetCurrent");
}

static void cu_load_module(const arr_gpu_program *program) {
    char log[8192] = "";
    int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = cu.ModuleLoadDataEx(&cu_module, program->ptx, 2, options, values);
    int i;
    log[sizeof log - 1] = '\0';
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
        cu_module = NULL;
        arr_gpu_exit_no_device("the CUDA driver cannot compile this program's PTX for the "
                               "GPU (%s); a newer driver is needed", cu_describe(r));
    }
    if (r != CUDA_SUCCESS) {
        char *nl;
        cu_module = NULL;
        /* One line: the log's first. */
        if ((nl = strchr(log, '\n')) != NULL) {
            *nl = '\0';
        }
        arr_gpu_exit_internal("CUDA: the driver rejected the PTX: %s: %s", cu_describe(r),
                              log[0] != '\0' ? log : "no log");
    }
    cu_functions = calloc((size_t)program->num_kernels + 1, sizeof *cu_functions);
    if (cu_functions == NULL) {
        arr_gpu_exit_internal("out of memory");
    }
    for (i = 0; i < program->num_kernels; i++) {
        r = cu.ModuleGetFunction(&cu_functions[i], cu_module, program->kernels[i].name);
        if (r != CUDA_SUCCESS) {
            arr_gpu_exit_internal("CUDA: the PTX has no kernel %s (%s)", program->kernels[i].name,
                                  cu_describe(r));
        }
    }
}

void arr_gpu_init(const arr_gpu_program *program) {
    size_t free_bytes = 0, total_bytes = 0;
    if (arr_gpu_prog != NULL) {
        return;
    }
    cu_open_driver();
    cu_open_device(program->ptx);
    arr_gpu_trace_counts();
    atexit(cu_shutdown);
    cu_load_module(program);
    cu_check(cu.MemAlloc(&cu_error_record, sizeof(arr_gpu_error)), "cuMemAlloc_v2");
    cu_check(cu.MemsetD32(cu_error_record, 0, sizeof(arr_gpu_error) / 4), "cuMemsetD32_v2");
    /* Freed blocks are kept up to half the device's memory (all of it is
     * given back when an allocation fails). */
    (void)cu.MemGetInfo(&free_bytes, &total_bytes);
    arr_pool_init(&arr_gpu_mem, arr_gpu_be_alloc, arr_gpu_be_free, NULL, total_bytes / 2);
    cu_total_bytes = total_bytes;
    {
        size_t heap = 0;
        if (cu_get_limit != NULL &&
            cu_get_limit(&heap, CU_LIMIT_MALLOC_HEAP_SIZE) == CUDA_SUCCESS && heap > 0) {
            arr_gpu_heap_bytes = (int64_t)heap;
        }
    }
    arr_gpu_prog = program;
}

void arr_gpu_reserve_heap(int64_t bytes) {
    size_t heap = 0;
    if (cu_total_bytes > 0 && (uint64_t)bytes > cu_total_bytes / 4) {
        bytes = (int64_t)(cu_total_bytes / 4);
    }
    if (bytes <= arr_gpu_heap_bytes || cu_set_limit == NULL) {
        return;
    }
    /* Refused once a kernel that allocates has run: the heap stays. */
    if (cu_set_limit(CU_LIMIT_MALLOC_HEAP_SIZE, (size_t)bytes) == CUDA_SUCCESS) {
        arr_gpu_heap_bytes = bytes;
        if (cu_get_limit != NULL &&
            cu_get_limit(&heap, CU_LIMIT_MALLOC_HEAP_SIZE) == CUDA_SUCCESS && heap > 0) {
            arr_gpu_heap_bytes = (int64_t)heap;
        }
    }
}

/* ---------------------------------------------------------------- memory */

int arr_gpu_be_alloc(void *ctx, uint64_t bytes, uint64_t *out) {
    CUdeviceptr p = 0;
    CUresult r;
    (void)ctx;
    if (bytes > SIZE_MAX) {
        return -1;
    }
    r = cu.MemAlloc(&p, (size_t)bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        return -1;
    }
    cu_check(r, "cuMemAlloc_v2");
    *out = p;
    return 0;
}

void arr_gpu_be_free(void *ctx, uint64_t ptr) {
    (void)ctx;
    (void)cu.MemFree(ptr);
}

void arr_gpu_copy_in(arr_dptr dst, const void *src, int64_t bytes) {
    arr_gpu_copies++;
    if (bytes > 0) {
        cu_check(cu.MemcpyHtoD(dst, src, (size_t)bytes), "cuMemcpyHtoD_v2");
    }
}

void arr_gpu_copy_out(void *dst, arr_dptr src, int64_t bytes) {
    arr_gpu_copies++;
    arr_gpu_sync();
    if (bytes > 0) {
        cu_check(cu.MemcpyDtoH(dst, src, (size_t)bytes), "cuMemcpyDtoH_v2");
    }
}

void arr_gpu_copy_within(arr_dptr dst, arr_dptr src, int64_t bytes) {
    arr_gpu_copies++;
    if (bytes > 0) {
        cu_check(cu.MemcpyDtoD(dst, src, (size_t)bytes), "cuMemcpyDtoD_v2");
    }
}

void arr_gpu_fill32(arr_dptr dst, uint32_t value, int64_t count) {
    if (count > 0) {
        cu_check(cu.MemsetD32(dst, value, (size_t)count), "cuMemsetD32_v2");
    }
}

/* ---------------------------------------------------------------- kernels */

static uint32_t occ_per_block, occ_per_thread;

static size_t cu_shared_for(int block) {
    return occ_per_block + (size_t)occ_per_thread * (size_t)block;
}

void arr_gpu_be_occupancy(int kernel, uint32_t shared_per_block, uint32_t shared_per_thread,
                          int *block, int *max_blocks) {
    occ_per_block = shared_per_block;
    occ_per_thread = shared_per_thread;
    cu_check(cu.OccupancyMaxPotentialBlockSize(max_blocks, block, cu_functions[kernel],
                                               shared_per_thread > 0 ? cu_shared_for : NULL,
                                               shared_per_block, 1024),
             "cuOccupancyMaxPotentialBlockSize");
}

void arr_gpu_launch(int kernel, const arr_gpu_config *config, void **args) {
    const arr_gpu_kernel_def *k = arr_gpu_kernel(kernel);
    void *params[ARR_GPU_MAX_PARAMS + 2];
    CUresult r;
    int i;
    if (k->num_params < 0 || k->num_params > ARR_GPU_MAX_PARAMS) {
        arr_gpu_exit_internal("kernel %s has %d parameters", k->name, k->num_params);
    }
    arr_gpu_seq++;
    arr_gpu_launches++;
    params[0] = &cu_error_record;
    params[1] = &arr_gpu_seq;
    for (i = 0; i < k->num_params; i++) {
        params[i + 2] = args[i];
    }
    r = cu.LaunchKernel(cu_functions[kernel], config->grid.x, config->grid.y, config->grid.z,
                        config->block.x, config->block.y, config->block.z, config->shared_bytes,
                        NULL, params, NULL);
    if (r != CUDA_SUCCESS) {
        arr_gpu_exit_internal("CUDA: launching kernel %s with grid (%" PRIu32 ",%" PRIu32
                              ",%" PRIu32 "), blocks (%" PRIu32 ",%" PRIu32 ",%" PRIu32
                              ") and %" PRIu32 " bytes of shared memory failed: %s",
                              k->name, config->grid.x, config->grid.y, config->grid.z,
                              config->block.x, config->block.y, config->block.z,
                              config->shared_bytes, cu_describe(r));
    }
    cu_unchecked = 1;
}

void arr_gpu_reset_error(void) {
    if (cu_error_record == 0) {
        return;
    }
    (void)cu.CtxSynchronize();
    cu_check(cu.MemsetD32(cu_error_record, 0, sizeof(arr_gpu_error) / 4), "cuMemsetD32_v2");
    cu_unchecked = 0;
}

void arr_gpu_sync(void) {
    arr_gpu_error rec;
    CUresult r;
    if (!cu_unchecked) {
        return;
    }
    r = cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
        arr_gpu_exit_internal("CUDA: a kernel failed: %s", cu_describe(r));
    }
    cu_check(cu.MemcpyDtoH(&rec, cu_error_record, sizeof rec), "cuMemcpyDtoH_v2");
    cu_unchecked = 0;
    if (rec.seq != 0) {
        arr_gpu_report(&rec);
    }
}
