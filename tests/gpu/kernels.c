/* Kernels written by hand against the emulator's device ABI
 * (arr_gpu_device.h), with entry points that drive them through the host
 * interface (arr_gpu.h) the way generated code will: copy in, plan,
 * launch, copy out. Linked with the CPU runtime (main, value I/O, errors)
 * and the emulator; tests/gpu_runtime.rs runs it and checks the results
 * and the errors. Built with -DKERNELS_NVPTX the same entries are linked
 * with the CUDA host runtime instead (no emulated kernels), to test it
 * against tests/gpu/fake_cuda.c or a real driver's refusal. */
#include "arr_gpu_device.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define FULL 0xffffffffu
#define PTR(T, i) ((T *)(uintptr_t) * (const arr_dptr *)params[i])
#define I64(i) (*(const int64_t *)params[i])
#define U64(i) (*(const uint64_t *)params[i])
#define TID arr_emu_tid_x()
#define NTID arr_emu_ntid_x()
#define GTID ((int64_t)arr_emu_ctaid_x() * NTID + TID)
#define GSTRIDE ((int64_t)arr_emu_nctaid_x() * NTID)
/* Plain shared-memory accesses, announced to the race checker. */
#define LOAD(x) (arr_emu_shared_read(&(x), sizeof(x)), (x))
#define STORE(x, v) (arr_emu_shared_write(&(x), sizeof(x)), (x) = (v))

enum { LOC_GATHER, LOC_DIV };
static const char *const locations[] = {"kernels.arr:3:14", "kernels.arr:7:20"};

/* ---------------------------------------------------------------- kernels */
#ifndef KERNELS_NVPTX

/* ys[i] = xs[i] * 2 + 1 */
static void k_map(void **params) {
    const float *xs = PTR(const float, 2);
    float *ys = PTR(float, 3);
    int64_t i, n = I64(4);
    for (i = GTID; i < n; i += GSTRIDE) {
        ys[i] = xs[i] * 2.0f + 1.0f;
    }
}

/* One wrapping i32 sum per block: grid-stride, then a tree in shared
 * memory with barriers. */
static void k_block_sum(void **params) {
    const int32_t *xs = PTR(const int32_t, 2);
    int32_t *partials = PTR(int32_t, 3);
    int64_t i, n = I64(4);
    uint32_t *sh = arr_emu_shared(), t = TID, s, acc = 0;
    for (i = GTID; i < n; i += GSTRIDE) {
        acc += (uint32_t)xs[i];
    }
    STORE(sh[t], acc);
    arr_emu_barrier();
    for (s = NTID / 2; s > 0; s /= 2) {
        if (t < s) {
            uint32_t v = LOAD(sh[t]) + LOAD(sh[t + s]);
            STORE(sh[t], v);
        }
        arr_emu_barrier();
    }
    if (t == 0) {
        partials[arr_emu_ctaid_x()] = (int32_t)LOAD(sh[0]);
    }
}

/* max and the number of positive elements: warp shuffles and ballots, one
 * value per warp in shared memory, then the last block to finish combines
 * the blocks' partials. */
static void k_warp_max(void **params) {
    const float *xs = PTR(const float, 2);
    float *pmax = PTR(float, 3);
    int32_t *pcount = PTR(int32_t, 4);
    int32_t *done = PTR(int32_t, 5);
    float *out_max = PTR(float, 6);
    int32_t *out_count = PTR(int32_t, 7);
    int64_t i0, n = I64(8);
    uint32_t t = TID, lane = arr_emu_laneid(), warp = t / 32, nw = NTID / 32, off;
    float *shm = arr_emu_shared();
    int32_t *shc = (int32_t *)(shm + 32);
    int32_t *last = shc + 32;
    float m = -INFINITY;
    int32_t c = 0;
    /* Whole warps step together, so the ballot sees every lane. */
    for (i0 = GTID - lane; i0 < n; i0 += GSTRIDE) {
        int64_t i = i0 + lane;
        float x = i < n ? xs[i] : -INFINITY;
        uint32_t ballot = arr_emu_vote_ballot(FULL, i < n && x > 0.0f);
        m = fmaxf(m, x);
        c += lane == 0 ? __builtin_popcount(ballot) : 0;
    }
    for (off = 16; off > 0; off /= 2) {
        m = fmaxf(m, arr_emu_shfl_down_f32(FULL, m, (int32_t)off, 0x1f));
        c += arr_emu_shfl_down_i32(FULL, c, (int32_t)off, 0x1f);
    }
    if (lane == 0) {
        STORE(shm[warp], m);
        STORE(shc[warp], c);
    }
    arr_emu_barrier();
    if (warp == 0) {
        float v = lane < nw ? LOAD(shm[lane]) : -INFINITY;
        int32_t k = lane < nw ? LOAD(shc[lane]) : 0;
        for (off = 16; off > 0; off /= 2) {
            v = fmaxf(v, arr_emu_shfl_down_f32(FULL, v, (int32_t)off, 0x1f));
            k += arr_emu_shfl_down_i32(FULL, k, (int32_t)off, 0x1f);
        }
        if (lane == 0) {
            pmax[arr_emu_ctaid_x()] = v;
            pcount[arr_emu_ctaid_x()] = k;
            arr_emu_fence_gpu();
            STORE(*last, arr_emu_atomic_i32(done, ARR_ATOMIC_ADD, 1) ==
                             (int32_t)arr_emu_nctaid_x() - 1);
        }
    }
    arr_emu_barrier();
    if (LOAD(*last) && t == 0) {
        uint32_t b;
        float v = -INFINITY;
        int32_t k = 0;
        arr_emu_fence_gpu();
        for (b = 0; b < arr_emu_nctaid_x(); b++) {
            v = fmaxf(v, pmax[b]);
            k += pcount[b];
        }
        *out_max = v;
        *out_count = k;
    }
}

/* Inclusive i64 prefix sum in one pass: blocks take tiles in order from a
 * ticket, scan a tile in shared memory, and find the sum before it by
 * decoupled look-back over the tiles' published aggregates and prefixes. */
#define SCAN_ITEMS 4
enum { TILE_NONE = 0, TILE_AGGREGATE = 1, TILE_PREFIX = 2 };
static void k_scan(void **params) {
    const int64_t *xs = PTR(const int64_t, 2);
    int64_t *ys = PTR(int64_t, 3);
    int64_t n = I64(4);
    int32_t *flags = PTR(int32_t, 5);
    int64_t *aggregates = PTR(int64_t, 6);
    int64_t *prefixes = PTR(int64_t, 7);
    int32_t *ticket = PTR(int32_t, 8);
    uint32_t t = TID, nt = NTID, off;
    int64_t *sh = arr_emu_shared();
    int64_t *carry = sh + nt;
    int32_t *tile_sh = (int32_t *)(carry + 1);
    int64_t tile_size = (int64_t)nt * SCAN_ITEMS, tiles = (n + tile_size - 1) / tile_size;
    for (;;) {
        int64_t tile, start, local[SCAN_ITEMS], sum = 0, incl, total, c;
        int k;
        if (t == 0) {
            STORE(*tile_sh, arr_emu_atomic_i32(ticket, ARR_ATOMIC_ADD, 1));
        }
        arr_emu_barrier();
        tile = LOAD(*tile_sh);
        arr_emu_barrier();
        if (tile >= tiles) {
            return;
        }
        start = tile * tile_size + (int64_t)t * SCAN_ITEMS;
        for (k = 0; k < SCAN_ITEMS; k++) {
            sum += start + k < n ? xs[start + k] : 0;
            local[k] = sum;
        }
        STORE(sh[t], sum);
        arr_emu_barrier();
        for (off = 1; off < nt; off *= 2) {
            int64_t v = LOAD(sh[t]) + (t >= off ? LOAD(sh[t - off]) : 0);
            arr_emu_barrier();
            STORE(sh[t], v);
            arr_emu_barrier();
        }
        incl = LOAD(sh[t]);
        total = LOAD(sh[nt - 1]);
        if (t == 0) {
            int64_t before = 0, j;
            if (tile > 0) {
                aggregates[tile] = total;
                arr_emu_store_release_i32(&flags[tile], TILE_AGGREGATE);
                for (j = tile - 1;;) {
                    int32_t f = arr_emu_load_acquire_i32(&flags[j]);
                    if (f == TILE_NONE) {
                        arr_emu_nanosleep(100);
                    } else if (f == TILE_PREFIX) {
                        before += prefixes[j];
                        break;
                    } else {
                        before += aggregates[j--];
                    }
                }
            }
            prefixes[tile] = before + total;
            arr_emu_store_release_i32(&flags[tile], TILE_PREFIX);
            STORE(*carry, before);
        }
        arr_emu_barrier();
        c = LOAD(*carry) + incl - sum;
        for (k = 0; k < SCAN_ITEMS; k++) {
            if (start + k < n) {
                ys[start + k] = c + local[k];
            }
        }
        arr_emu_barrier();
    }
}

/* Counts per bin (indices outside [0, bins) are ignored, as Futhark's hist
 * does): private bins in shared memory when `private_bins`, merged with
 * global atomics; else global atomics directly. */
static void k_hist(void **params) {
    const int32_t *xs = PTR(const int32_t, 2);
    int32_t *counts = PTR(int32_t, 3);
    int64_t i, n = I64(4), bins = I64(5), private_bins = I64(6), b;
    int32_t *sh = arr_emu_shared();
    if (private_bins) {
        for (b = TID; b < bins; b += NTID) {
            STORE(sh[b], 0);
        }
        arr_emu_barrier();
    }
    for (i = GTID; i < n; i += GSTRIDE) {
        int32_t x = xs[i];
        if (x >= 0 && x < bins) {
            arr_emu_atomic_i32(private_bins ? &sh[x] : &counts[x], ARR_ATOMIC_ADD, 1);
        }
    }
    if (private_bins) {
        arr_emu_barrier();
        for (b = TID; b < bins; b += NTID) {
            int32_t c = LOAD(sh[b]);
            if (c != 0) {
                arr_emu_atomic_i32(&counts[b], ARR_ATOMIC_ADD, c);
            }
        }
    }
}

/* Float weights per bin and the smallest index per bin (-1: none), with
 * float and integer atomics on global memory. */
static void k_hist_f32(void **params) {
    const int32_t *xs = PTR(const int32_t, 2);
    const float *ws = PTR(const float, 3);
    float *sums = PTR(float, 4);
    int32_t *firsts = PTR(int32_t, 5);
    int64_t i, n = I64(6), bins = I64(7);
    for (i = GTID; i < n; i += GSTRIDE) {
        int32_t x = xs[i];
        if (x >= 0 && x < bins) {
            arr_emu_atomic_f32(&sums[x], ARR_ATOMIC_ADD, ws[i]);
            arr_emu_atomic_i32(&firsts[x], ARR_ATOMIC_UMIN, (int32_t)i);
        }
    }
}

/* ys[i] = xs[is[i]], checked: the first bad index in sequential order is
 * the error reported. */
static void k_gather(void **params) {
    arr_gpu_error *err = PTR(arr_gpu_error, 0);
    uint64_t seq = U64(1);
    const int32_t *xs = PTR(const int32_t, 2);
    const int64_t *is = PTR(const int64_t, 3);
    int32_t *ys = PTR(int32_t, 4);
    int64_t i, n = I64(5), m = I64(6);
    for (i = GTID; i < n; i += GSTRIDE) {
        int64_t j = is[i];
        if (j < 0 || j >= m) {
            arr_emu_fail(err, seq, (uint64_t)i, ARR_GPU_ERR_BOUNDS, LOC_GATHER, j, m, 0, 0);
            return;
        }
        ys[i] = xs[j];
    }
}

/* ys[i] = xs[i] / ds[i], checked for zero. */
static void k_div(void **params) {
    arr_gpu_error *err = PTR(arr_gpu_error, 0);
    uint64_t seq = U64(1);
    const int32_t *xs = PTR(const int32_t, 2);
    const int32_t *ds = PTR(const int32_t, 3);
    int32_t *ys = PTR(int32_t, 4);
    int64_t i, n = I64(5);
    for (i = GTID; i < n; i += GSTRIDE) {
        if (ds[i] == 0) {
            arr_emu_fail(err, seq, (uint64_t)i, ARR_GPU_ERR_DIVISION_BY_ZERO, LOC_DIV, 0, 0, 0, 0);
            return;
        }
        ys[i] = ds[i] == -1 ? (int32_t)(0u - (uint32_t)xs[i]) : xs[i] / ds[i];
    }
}

/* Per-warp sums in shared memory, warp-synchronously: with `sync` the
 * steps are ordered by __syncwarp; without, they race. */
static void k_warp_shared(void **params) {
    const int32_t *xs = PTR(const int32_t, 2);
    int32_t *sums = PTR(int32_t, 3);
    int64_t n = I64(4), sync = I64(5), i = GTID;
    uint32_t t = TID, lane = arr_emu_laneid(), off;
    int32_t *sh = arr_emu_shared();
    STORE(sh[t], i < n ? xs[i] : 0);
    if (sync) {
        arr_emu_warp_sync(FULL);
    }
    for (off = 16; off > 0; off /= 2) {
        int32_t v = lane < off ? LOAD(sh[t]) + LOAD(sh[t + off]) : 0;
        if (sync) {
            arr_emu_warp_sync(FULL);
        }
        if (lane < off) {
            STORE(sh[t], v);
        }
        if (sync) {
            arr_emu_warp_sync(FULL);
        }
    }
    if (lane == 0 && i < n) {
        sums[i / 32] = LOAD(sh[t]);
    }
}

/* Every warp and block operation once, per thread t of a 64-thread block:
 * out[t * WARP_OPS + j] for the j-th. */
#define WARP_OPS 11
static void k_warp_ops(void **params) {
    int32_t *out = PTR(int32_t, 2) + (int64_t)TID * WARP_OPS;
    int32_t t = (int32_t)TID;
    out[0] = arr_emu_shfl_up_i32(FULL, t * 10, 3, 0);
    out[1] = arr_emu_shfl_bfly_i32(FULL, t, 5, 0x1f);
    out[2] = arr_emu_shfl_idx_i32(FULL, t, 7, 0x1f);
    /* Segments of 8 lanes (CUDA's width 8): lane 2 of each. */
    out[3] = arr_emu_shfl_idx_i32(FULL, t, 2, 0x181f);
    /* Down by 4 within segments of 16. */
    out[4] = (int32_t)arr_emu_shfl_down_f32(FULL, (float)t, 4, 0x101f);
    out[5] = arr_emu_vote_all(FULL, t % 2 == 0);
    out[6] = arr_emu_vote_any(FULL, t % 2 == 0);
    out[7] = arr_emu_vote_uni(FULL, t < 32) + 2 * arr_emu_vote_uni(FULL, t % 2);
    out[8] = arr_emu_barrier_popc(t % 3 == 0);
    out[9] = arr_emu_barrier_and(t < 63) + 2 * arr_emu_barrier_or(t == 63);
    out[10] = (int32_t)arr_emu_vote_ballot(0x0000ffffu << (t & 16), t % 4 == 1);
}

/* Deliberate mistakes the emulator must report. */
static void k_racy(void **params) {
    int32_t *sh = arr_emu_shared();
    (void)params;
    STORE(sh[0], (int32_t)TID);
    arr_emu_barrier();
}

static void k_divergent_barrier(void **params) {
    (void)params;
    if (TID < 16) {
        arr_emu_barrier();
    }
}

static void k_shuffle_outside_mask(void **params) {
    (void)params;
    if (arr_emu_laneid() < 16) {
        (void)arr_emu_shfl_down_i32(0xffffu, 1, 8, 0x1f);
    }
}

static void k_warp_op_exited(void **params) {
    (void)params;
    if (arr_emu_laneid() != 5) {
        (void)arr_emu_vote_any(FULL, 1);
    }
}

#define EMU(k) k
#else
#define EMU(k) NULL
#define SCAN_ITEMS 4
#define WARP_OPS 11
enum { TILE_NONE = 0 };
#endif

enum {
    K_MAP, K_BLOCK_SUM, K_WARP_MAX, K_SCAN, K_HIST, K_HIST_F32, K_GATHER, K_DIV,
    K_WARP_SHARED, K_WARP_OPS, K_RACY, K_DIVERGENT, K_SHFL_MASK, K_WARP_EXITED
};
static const arr_gpu_kernel_def kernels[] = {
    {"map", 3, EMU(k_map)},
    {"block_sum", 3, EMU(k_block_sum)},
    {"warp_max", 7, EMU(k_warp_max)},
    {"scan", 7, EMU(k_scan)},
    {"hist", 5, EMU(k_hist)},
    {"hist_f32", 6, EMU(k_hist_f32)},
    {"gather", 5, EMU(k_gather)},
    {"div", 4, EMU(k_div)},
    {"warp_shared", 4, EMU(k_warp_shared)},
    {"warp_ops", 1, EMU(k_warp_ops)},
    {"racy", 0, EMU(k_racy)},
    {"divergent_barrier", 0, EMU(k_divergent_barrier)},
    {"shuffle_outside_mask", 0, EMU(k_shuffle_outside_mask)},
    {"warp_op_exited", 0, EMU(k_warp_op_exited)},
};
/* A PTX header only: the CUDA runtime reads what it needs before loading
 * (the fake driver accepts anything). */
static const char ptx[] = ".version 7.8\n.target sm_70\n.address_size 64\n";
static const arr_gpu_program program = {ptx, sizeof kernels / sizeof kernels[0], kernels, 2,
                                        locations};

/* ---------------------------------------------------------------- entries */

static void array_result(arr_value *r, arr_prim prim, int64_t n, arr_dptr src) {
    r->type = (arr_type){prim, 1};
    r->shape[0] = n;
    arr_gpu_result_out(r, src);
}

/* map (xs: []f32): []f32 */
static void run_map(const arr_value *args, arr_value *results) {
    int64_t n = args[0].shape[0];
    arr_dptr xs, ys;
    arr_gpu_config c;
    arr_gpu_init(&program);
    xs = arr_gpu_arg_in(&args[0]);
    ys = arr_gpu_alloc(n * 4);
    c = arr_gpu_plan(K_MAP, n, 0, 0);
    arr_gpu_launch(K_MAP, &c, (void *[]){&xs, &ys, &n});
    array_result(&results[0], ARR_F32, n, ys);
    arr_gpu_free(xs);
    arr_gpu_free(ys);
}

/* sum (xs: []i32): i32, by two launches of the block reduction. */
static void run_sum(const arr_value *args, arr_value *results) {
    int64_t n = args[0].shape[0], blocks;
    arr_dptr xs, partials, total;
    arr_gpu_config c;
    arr_gpu_init(&program);
    xs = arr_gpu_arg_in(&args[0]);
    c = arr_gpu_plan(K_BLOCK_SUM, n, 0, 4);
    blocks = c.grid.x;
    partials = arr_gpu_alloc(blocks * 4);
    total = arr_gpu_alloc(4);
    arr_gpu_launch(K_BLOCK_SUM, &c, (void *[]){&xs, &partials, &n});
    c = arr_gpu_plan(K_BLOCK_SUM, blocks, 0, 4);
    c.grid.x = 1;
    arr_gpu_launch(K_BLOCK_SUM, &c, (void *[]){&partials, &total, &blocks});
    results[0].type = (arr_type){ARR_I32, 0};
    arr_gpu_copy_out(&results[0].scalar.i32, total, 4);
    arr_gpu_free(xs);
    arr_gpu_free(partials);
    arr_gpu_free(total);
}

/* maxpos (xs: []f32): (f32, i32): the maximum and the count of positives. */
static void run_maxpos(const arr_value *args, arr_value *results) {
    int64_t n = args[0].shape[0], blocks;
    arr_dptr xs, pmax, pcount, done, out;
    arr_dptr out_max, out_count;
    arr_gpu_config c;
    arr_gpu_init(&program);
    xs = arr_gpu_arg_in(&args[0]);
    c = arr_gpu_plan(K_WARP_MAX, n, 32 * 4 + 32 * 4 + 4, 0);
    blocks = c.grid.x;
    pmax = arr_gpu_alloc(blocks * 4);
    pcount = arr_gpu_alloc(blocks * 4);
    done = arr_gpu_alloc(4);
    out = arr_gpu_alloc(8);
    out_max = out;
    out_count = out + 4;
    arr_gpu_fill32(done, 0, 1);
    arr_gpu_launch(K_WARP_MAX, &c,
                   (void *[]){&xs, &pmax, &pcount, &done, &out_max, &out_count, &n});
    results[0].type = (arr_type){ARR_F32, 0};
    results[1].type = (arr_type){ARR_I32, 0};
    arr_gpu_copy_out(&results[0].scalar.f32, out_max, 4);
    arr_gpu_copy_out(&results[1].scalar.i32, out_count, 4);
    arr_gpu_free(xs);
    arr_gpu_free(pmax);
    arr_gpu_free(pcount);
    arr_gpu_free(done);
    arr_gpu_free(out);
}

/* scan (xs: []i64): []i64, inclusive (+). */
static void run_scan(const arr_value *args, arr_value *results) {
    int64_t n = args[0].shape[0], tiles;
    arr_dptr xs, ys, flags, aggregates, prefixes, ticket;
    arr_gpu_config c;
    arr_gpu_init(&program);
    xs = arr_gpu_arg_in(&args[0]);
    ys = arr_gpu_alloc(n * 8);
    c = arr_gpu_plan(K_SCAN, (n + SCAN_ITEMS - 1) / SCAN_ITEMS, 16, 8);
    tiles = (n + (int64_t)c.block.x * SCAN_ITEMS - 1) / ((int64_t)c.block.x * SCAN_ITEMS);
    if (c.grid.x > tiles && tiles > 0) {
        c.grid.x = (uint32_t)tiles;
    }
    flags = arr_gpu_alloc(tiles * 4);
    aggregates = arr_gpu_alloc(tiles * 8);
    prefixes = arr_gpu_alloc(tiles * 8);
    ticket = arr_gpu_alloc(4);
    arr_gpu_fill32(flags, TILE_NONE, tiles);
    arr_gpu_fill32(ticket, 0, 1);
    arr_gpu_launch(K_SCAN, &c, (void *[]){&xs, &ys, &n, &flags, &aggregates, &prefixes, &ticket});
    array_result(&results[0], ARR_I64, n, ys);
    arr_gpu_free(xs);
    arr_gpu_free(ys);
    arr_gpu_free(flags);
    arr_gpu_free(aggregates);
    arr_gpu_free(prefixes);
    arr_gpu_free(ticket);
}

/* hist (xs: []i32) (bins: i64): []i32, counts. */
static void run_hist(const arr_value *args, arr_value *results) {
    int64_t n = args[0].shape[0], bins = args[1].scalar.i64, private_bins;
    arr_dptr xs, counts;
    arr_gpu_config c;
    if (bins < 0) {
        arr_fail_negative_size(bins, "kernels.arr:11:5");
    }
    arr_gpu_init(&program);
    private_bins = bins * 4 <= ARR_GPU_SHARED_LIMIT;
    xs = arr_gpu_arg_in(&args[0]);
    counts = arr_gpu_alloc(bins * 4);
    arr_gpu_fill32(counts, 0, bins);
    c = arr_gpu_plan(K_HIST, n, private_bins ? (uint32_t)bins * 4 : 0, 0);
    arr_gpu_launch(K_HIST, &c, (void *[]){&xs, &counts, &n, &bins, &private_bins});
    array_result(&results[0], ARR_I32, bins, counts);
    arr_gpu_free(xs);
    arr_gpu_free(counts);
}

/* histf (xs: [n]i32) (ws: [n]f32) (bins: i64): ([]f32, []i32): weight sums
 * and the first index per bin. */
static void run_histf(const arr_value *args, arr_value *results) {
    int64_t n = args[0].shape[0], bins = args[2].scalar.i64;
    arr_dptr xs, ws, sums, firsts;
    arr_gpu_config c;
    if (bins < 0) {
        arr_fail_negative_size(bins, "kernels.arr:12:5");
    }
    arr_gpu_init(&program);
    xs = arr_gpu_arg_in(&args[0]);
    ws = arr_gpu_arg_in(&args[1]);
    sums = arr_gpu_alloc(bins * 4);
    firsts = arr_gpu_alloc(bins * 4);
    arr_gpu_fill32(sums, 0, bins);
    arr_gpu_fill32(firsts, 0xffffffffu, bins);
    c = arr_gpu_plan(K_HIST_F32, n, 0, 0);
    arr_gpu_launch(K_HIST_F32, &c, (void *[]){&xs, &ws, &sums, &firsts, &n, &bins});
    array_result(&results[0], ARR_F32, bins, sums);
    array_result(&results[1], ARR_I32, bins, firsts);
    arr_gpu_free(xs);
    arr_gpu_free(ws);
    arr_gpu_free(sums);
    arr_gpu_free(firsts);
}

/* gather (xs: []i32) (is: []i64): []i32 */
static void run_gather(const arr_value *args, arr_value *results) {
    int64_t m = args[0].shape[0], n = args[1].shape[0];
    arr_dptr xs, is, ys;
    arr_gpu_config c;
    arr_gpu_init(&program);
    xs = arr_gpu_arg_in(&args[0]);
    is = arr_gpu_arg_in(&args[1]);
    ys = arr_gpu_alloc(n * 4);
    c = arr_gpu_plan(K_GATHER, n, 0, 0);
    arr_gpu_launch(K_GATHER, &c, (void *[]){&xs, &is, &ys, &n, &m});
    array_result(&results[0], ARR_I32, n, ys);
    arr_gpu_free(xs);
    arr_gpu_free(is);
    arr_gpu_free(ys);
}

/* twostep (xs: []i32) (is: [n]i64) (ds: [n]i32): []i32 = map2 (/) (gather
 * xs is) ds: two kernels, nothing copied out between them; an error in the
 * first comes before any in the second. */
static void run_twostep(const arr_value *args, arr_value *results) {
    int64_t m = args[0].shape[0], n = args[1].shape[0];
    arr_dptr xs, is, ds, gathered, ys;
    arr_gpu_config c;
    arr_gpu_init(&program);
    xs = arr_gpu_arg_in(&args[0]);
    is = arr_gpu_arg_in(&args[1]);
    ds = arr_gpu_arg_in(&args[2]);
    gathered = arr_gpu_alloc(n * 4);
    ys = arr_gpu_alloc(n * 4);
    c = arr_gpu_plan(K_GATHER, n, 0, 0);
    arr_gpu_launch(K_GATHER, &c, (void *[]){&xs, &is, &gathered, &n, &m});
    c = arr_gpu_plan(K_DIV, n, 0, 0);
    arr_gpu_launch(K_DIV, &c, (void *[]){&gathered, &ds, &ys, &n});
    array_result(&results[0], ARR_I32, n, ys);
    arr_gpu_free(xs);
    arr_gpu_free(is);
    arr_gpu_free(ds);
    arr_gpu_free(gathered);
    arr_gpu_free(ys);
}

/* warpsums (xs: []i32) (sync: bool): []i32, the sums of runs of 32. */
static void run_warpsums(const arr_value *args, arr_value *results) {
    int64_t n = args[0].shape[0], sync = args[1].scalar.b, sums_n = (n + 31) / 32;
    arr_dptr xs, sums;
    arr_gpu_config c;
    arr_gpu_init(&program);
    xs = arr_gpu_arg_in(&args[0]);
    sums = arr_gpu_alloc(sums_n * 4);
    c = arr_gpu_plan(K_WARP_SHARED, n, 0, 4);
    /* One thread per element, no grid-stride loop. */
    c.grid.x = (uint32_t)((n + c.block.x - 1) / c.block.x);
    c.grid.x = c.grid.x == 0 ? 1 : c.grid.x;
    arr_gpu_launch(K_WARP_SHARED, &c, (void *[]){&xs, &sums, &n, &sync});
    array_result(&results[0], ARR_I32, sums_n, sums);
    arr_gpu_free(xs);
    arr_gpu_free(sums);
}

/* warpops (k: i64): []i32, the results of k_warp_ops (k is ignored). */
static void run_warpops(const arr_value *args, arr_value *results) {
    arr_gpu_config c = {{1, 1, 1}, {64, 1, 1}, 0};
    arr_dptr out;
    (void)args;
    arr_gpu_init(&program);
    out = arr_gpu_alloc(64 * WARP_OPS * 4);
    arr_gpu_launch(K_WARP_OPS, &c, (void *[]){&out});
    array_result(&results[0], ARR_I32, 64 * WARP_OPS, out);
    arr_gpu_free(out);
}

/* mistake (k: i64): i64 launches the k-th deliberately wrong kernel. */
static void run_mistake(const arr_value *args, arr_value *results) {
    static const int wrong[] = {K_RACY, K_DIVERGENT, K_SHFL_MASK, K_WARP_EXITED};
    int64_t k = args[0].scalar.i64;
    arr_gpu_config c = {{1, 1, 1}, {64, 1, 1}, 64};
    arr_gpu_init(&program);
    if (k < 0 || k > 3) {
        arr_fail_bounds(k, 4, "kernels.arr:20:1");
    }
    arr_gpu_launch(wrong[k], &c, NULL);
    arr_gpu_sync();
    results[0].type = (arr_type){ARR_I64, 0};
    results[0].scalar.i64 = k;
}

/* pool (n: i64) (iters: i64): (f32, i64): iterates x -> 2x + 1 from 1 on
 * an n-element array, allocating a temporary per iteration; returns one
 * element and how many allocations reached the driver. */
static void run_pool(const arr_value *args, arr_value *results) {
    int64_t n = args[0].scalar.i64, iters = args[1].scalar.i64, it;
    arr_dptr xs;
    arr_gpu_config c;
    if (n < 1) {
        arr_fail_bounds(0, n, "kernels.arr:30:1");
    }
    arr_gpu_init(&program);
    xs = arr_gpu_alloc(n * 4);
    arr_gpu_fill32(xs, 0x3f800000u, n);
    c = arr_gpu_plan(K_MAP, n, 0, 0);
    for (it = 0; it < iters; it++) {
        arr_dptr tmp = arr_gpu_alloc(n * 4);
        arr_gpu_launch(K_MAP, &c, (void *[]){&xs, &tmp, &n});
        arr_gpu_copy_within(xs, tmp, n * 4);
        arr_gpu_free(tmp);
    }
    results[0].type = (arr_type){ARR_F32, 0};
    arr_gpu_copy_out(&results[0].scalar.f32, xs, 4);
    arr_gpu_free(xs);
    results[1].type = (arr_type){ARR_I64, 0};
    results[1].scalar.i64 = arr_gpu_driver_allocs;
}

static const arr_type t_f32_1[] = {{ARR_F32, 1}};
static const arr_type t_i32_1[] = {{ARR_I32, 1}};
static const arr_type t_i64_1[] = {{ARR_I64, 1}};
static const arr_type t_i32[] = {{ARR_I32, 0}};
static const arr_type t_i64[] = {{ARR_I64, 0}};
static const arr_type t_f32_i32[] = {{ARR_F32, 0}, {ARR_I32, 0}};
static const arr_type t_f32_i64[] = {{ARR_F32, 0}, {ARR_I64, 0}};
static const arr_type t_hist[] = {{ARR_I32, 1}, {ARR_I64, 0}};
static const arr_type t_histf[] = {{ARR_I32, 1}, {ARR_F32, 1}, {ARR_I64, 0}};
static const arr_type t_histf_out[] = {{ARR_F32, 1}, {ARR_I32, 1}};
static const arr_type t_gather[] = {{ARR_I32, 1}, {ARR_I64, 1}};
static const arr_type t_twostep[] = {{ARR_I32, 1}, {ARR_I64, 1}, {ARR_I32, 1}};
static const arr_type t_warpsums[] = {{ARR_I32, 1}, {ARR_BOOL, 0}};
static const arr_type t_pool[] = {{ARR_I64, 0}, {ARR_I64, 0}};
static const arr_size_constraint same_n_01[] = {{0, 0, 1, 0, -1}};
static const arr_size_constraint same_n_12[] = {{1, 0, 2, 0, -1}};

const arr_entry arr_entries[] = {
    {"map", 1, t_f32_1, 1, t_f32_1, 0, NULL, run_map, NULL, NULL},
    {"sum", 1, t_i32_1, 1, t_i32, 0, NULL, run_sum, NULL, NULL},
    {"maxpos", 1, t_f32_1, 2, t_f32_i32, 0, NULL, run_maxpos, NULL, NULL},
    {"scan", 1, t_i64_1, 1, t_i64_1, 0, NULL, run_scan, NULL, NULL},
    {"hist", 2, t_hist, 1, t_i32_1, 0, NULL, run_hist, NULL, NULL},
    {"histf", 3, t_histf, 2, t_histf_out, 1, same_n_01, run_histf, NULL, NULL},
    {"gather", 2, t_gather, 1, t_i32_1, 0, NULL, run_gather, NULL, NULL},
    {"twostep", 3, t_twostep, 1, t_i32_1, 1, same_n_12, run_twostep, NULL, NULL},
    {"warpsums", 2, t_warpsums, 1, t_i32_1, 0, NULL, run_warpsums, NULL, NULL},
    {"warpops", 1, t_i64, 1, t_i32_1, 0, NULL, run_warpops, NULL, NULL},
    {"mistake", 1, t_i64, 1, t_i64, 0, NULL, run_mistake, NULL, NULL},
    {"pool", 2, t_pool, 2, t_f32_i64, 0, NULL, run_pool, NULL, NULL},
};
const int arr_num_entries = sizeof arr_entries / sizeof arr_entries[0];
