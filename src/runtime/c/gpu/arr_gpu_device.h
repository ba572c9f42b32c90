/* The device-side ABI: what kernel code calls for the GPU's special
 * registers, synchronisation, warp operations, atomics, shared memory and
 * run-time errors. For `--target nvptx-emu` the kernel generator emits calls
 * of these C functions (the emulator, arr_gpu_emu*.c, defines them); for
 * `--target nvptx` it emits, at the same places, the NVVM intrinsic or LLVM
 * instruction named beside each, so one generator serves both targets.
 *
 * Every function here must be called from inside a kernel that the
 * emulator runs (a fiber of one of its blocks).
 *
 * Shared memory is dynamic only: on nvptx one
 *   @arr_shared = external addrspace(3) global [0 x i8], align 16
 * whose size the launch gives (arr_gpu_config.shared_bytes); on the
 * emulator `arr_emu_shared()` returns the block's copy. (A static
 * addrspace(3) array would be one object shared by all blocks on the
 * emulator.) Every load and store of shared memory is preceded, on the
 * emulator only, by `arr_emu_shared_read` / `arr_emu_shared_write` for the
 * bytes it touches: that is how the emulator finds races. Global memory is
 * ordinary memory on both targets (addrspace(1) pointers on nvptx).
 *
 * Memory ordering on nvptx: LLVM 19's NVPTX back end selects `atomicrmw` and
 * `cmpxchg` only as relaxed PTX `atom` (whatever ordering the IR asks for)
 * and cannot select `fence` nor `load atomic` / `store atomic` with acquire
 * or release ordering (checked in tests/ptx_toolchain.rs). Ordering comes
 * from the membar intrinsics, as mapped below. The emulator's atomics are
 * sequentially consistent, which is stronger. */
#ifndef ARR_GPU_DEVICE_H
#define ARR_GPU_DEVICE_H

#include "arr_gpu.h"

#include <stdint.h>

/* ------------------------------------------------------ special registers
 * nvptx: i32 @llvm.nvvm.read.ptx.sreg.{tid,ntid,ctaid,nctaid}.{x,y,z}() */
uint32_t arr_emu_tid_x(void);
uint32_t arr_emu_tid_y(void);
uint32_t arr_emu_tid_z(void);
uint32_t arr_emu_ntid_x(void);
uint32_t arr_emu_ntid_y(void);
uint32_t arr_emu_ntid_z(void);
uint32_t arr_emu_ctaid_x(void);
uint32_t arr_emu_ctaid_y(void);
uint32_t arr_emu_ctaid_z(void);
uint32_t arr_emu_nctaid_x(void);
uint32_t arr_emu_nctaid_y(void);
uint32_t arr_emu_nctaid_z(void);
/* nvptx: i32 @llvm.nvvm.read.ptx.sreg.laneid(). Lanes are numbered by the
 * thread's linear index in its block (x fastest), 32 to a warp. */
uint32_t arr_emu_laneid(void);

/* ------------------------------------------------------------- barriers
 * Every thread of the block must reach the same barrier; one that ends or
 * waits elsewhere (a warp operation) is an emulator error. */
/* nvptx: void @llvm.nvvm.barrier0() (bar.sync 0, __syncthreads) */
void arr_emu_barrier(void);
/* nvptx: i32 @llvm.nvvm.barrier0.popc(i32), .and(i32), .or(i32): the
 * barrier, returning how many threads passed a non-zero value / whether
 * all / any did. */
int32_t arr_emu_barrier_popc(int32_t pred);
int32_t arr_emu_barrier_and(int32_t pred);
int32_t arr_emu_barrier_or(int32_t pred);
/* nvptx: void @llvm.nvvm.bar.warp.sync(i32 mask) (__syncwarp): the lanes
 * of `mask` meet; their shared-memory accesses before it happen before
 * those after it. */
void arr_emu_warp_sync(uint32_t mask);

/* ------------------------------------------------------- warp shuffles
 * nvptx: i32 @llvm.nvvm.shfl.sync.{down,up,bfly,idx}.i32(i32 mask, i32 v,
 * i32 b, i32 c), and .f32 with float v. PTX semantics: c packs the clamp
 * (bits 0-4) and the segment mask (bits 8-12); pass 0x1f for down, bfly and
 * idx and 0 for up over a whole warp. A lane whose source lane is outside
 * the clamp gets its own value. Every lane in `mask` must call the same
 * operation with the same mask, and the source lane must be in `mask`. */
int32_t arr_emu_shfl_down_i32(uint32_t mask, int32_t v, int32_t b, int32_t c);
int32_t arr_emu_shfl_up_i32(uint32_t mask, int32_t v, int32_t b, int32_t c);
int32_t arr_emu_shfl_bfly_i32(uint32_t mask, int32_t v, int32_t b, int32_t c);
int32_t arr_emu_shfl_idx_i32(uint32_t mask, int32_t v, int32_t b, int32_t c);
float arr_emu_shfl_down_f32(uint32_t mask, float v, int32_t b, int32_t c);
float arr_emu_shfl_up_f32(uint32_t mask, float v, int32_t b, int32_t c);
float arr_emu_shfl_bfly_f32(uint32_t mask, float v, int32_t b, int32_t c);
float arr_emu_shfl_idx_f32(uint32_t mask, float v, int32_t b, int32_t c);

/* --------------------------------------------------------------- votes
 * nvptx: i1 @llvm.nvvm.vote.{all,any,uni}.sync(i32 mask, i1 pred),
 * i32 @llvm.nvvm.vote.ballot.sync(i32 mask, i1 pred). */
int32_t arr_emu_vote_all(uint32_t mask, int32_t pred);
int32_t arr_emu_vote_any(uint32_t mask, int32_t pred);
int32_t arr_emu_vote_uni(uint32_t mask, int32_t pred);
uint32_t arr_emu_vote_ballot(uint32_t mask, int32_t pred);

/* ------------------------------------------------------------- atomics
 * On global or shared memory (the emulator tells them apart by address).
 * nvptx: `atomicrmw OP ptr addrspace(1|3) p, T v monotonic` with OP the
 * LLVM operation named by the code below (integers: add, min/max signed,
 * umin/umax, and, or, xor, xchg; floats: fadd, xchg); the result is the old
 * value. */
enum {
    ARR_ATOMIC_ADD = 0,
    ARR_ATOMIC_MIN = 1,
    ARR_ATOMIC_MAX = 2,
    ARR_ATOMIC_UMIN = 3,
    ARR_ATOMIC_UMAX = 4,
    ARR_ATOMIC_AND = 5,
    ARR_ATOMIC_OR = 6,
    ARR_ATOMIC_XOR = 7,
    ARR_ATOMIC_XCHG = 8
};
int32_t arr_emu_atomic_i32(void *p, int32_t op, int32_t v);
int64_t arr_emu_atomic_i64(void *p, int32_t op, int64_t v);
/* ARR_ATOMIC_ADD (fadd) and ARR_ATOMIC_XCHG only. */
float arr_emu_atomic_f32(void *p, int32_t op, float v);
double arr_emu_atomic_f64(void *p, int32_t op, double v);
/* nvptx: `cmpxchg ptr addrspace(1|3) p, T expected, T desired monotonic
 * monotonic`, field 0 (the old value). Compare-and-swap loops for operators
 * without a native atomic compare bit patterns (NaN, -0.0). */
int32_t arr_emu_cas_i32(void *p, int32_t expected, int32_t desired);
int64_t arr_emu_cas_i64(void *p, int64_t expected, int64_t desired);
/* Publishing and reading flags across blocks (look-back). nvptx: acquire
 * is `load volatile T, ptr addrspace(1) p` then @llvm.nvvm.membar.gl();
 * release is @llvm.nvvm.membar.gl() then `store volatile T v, ptr
 * addrspace(1) p` (volatile: ld/st.volatile, never a stale L1 line). */
int32_t arr_emu_load_acquire_i32(const void *p);
void arr_emu_store_release_i32(void *p, int32_t v);
int64_t arr_emu_load_acquire_i64(const void *p);
void arr_emu_store_release_i64(void *p, int64_t v);

/* -------------------------------------------------------------- fences
 * nvptx: void @llvm.nvvm.membar.cta() (__threadfence_block) and
 * void @llvm.nvvm.membar.gl() (__threadfence); not LLVM's `fence`. */
void arr_emu_fence_block(void);
void arr_emu_fence_gpu(void);
/* nvptx: void @llvm.nvvm.nanosleep(i32 ns) (sm_70+): in a spin loop that
 * waits for another block (look-back). On the emulator the thread steps
 * aside for the others of its block, and the CPU thread for other work. */
void arr_emu_nanosleep(uint32_t ns);

/* -------------------------------------------------------- shared memory
 * nvptx: the address of @arr_shared (addrspacecast to generic if needed). */
void *arr_emu_shared(void);
/* nvptx: nothing. Called before every plain load (read) or store (write) of
 * `bytes` bytes at `p` in shared memory; atomics record themselves. Between
 * two barriers, a location written by one thread and read or written by
 * another (not ordered by an arr_emu_warp_sync of both) is a race: the
 * emulator reports it, as it does an access outside the block's shared
 * memory. */
void arr_emu_shared_read(const void *p, uint32_t bytes);
void arr_emu_shared_write(void *p, uint32_t bytes);

/* ------------------------------------------------------- scratch memory
 * nvptx: the device heap's `malloc` and `free`. On the emulator the heap
 * has the GPU's size (arr_gpu_heap_bytes, 8 MiB unless raised by
 * arr_gpu_reserve_heap before the first allocation): NULL when the arrays
 * alive at once would exceed it, as on a GPU. */
void *arr_emu_malloc(uint64_t bytes);
void arr_emu_free(void *p);

/* --------------------------------------------------------------- errors
 * nvptx: call void @arr_gpu_fail(ptr addrspace(1) err, i64 seq, i64 key,
 * i32 kind, i32 loc, i64 a0, i64 a1, i64 a2, i64 a3), defined in
 * arr_gpu_device.ll (linked into the device module). Records a run-time
 * error in `err` unless it holds one earlier in sequential order (see
 * arr_gpu_error in arr_gpu.h); returns, so that the thread can go on to
 * its barriers. */
void arr_emu_fail(arr_gpu_error *err, uint64_t seq, uint64_t key, int32_t kind, int32_t loc,
                  int64_t a0, int64_t a1, int64_t a2, int64_t a3);

#endif
