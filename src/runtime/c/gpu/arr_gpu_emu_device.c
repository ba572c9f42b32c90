/* The GPU emulator's device functions (arr_gpu_device.h): special
 * registers, barriers and warp operations (which suspend the calling fiber
 * until the scheduler in arr_gpu_emu.c completes them), atomics, the
 * shared-memory race checker, and run-time error records. */
#include "arr_gpu_emu.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ special registers */

static uint32_t emu_tid(int dim) {
    emu_worker *w = emu_self();
    uint32_t t = w->current, bx = w->job->block.x, by = w->job->block.y;
    return dim == 0 ? t % bx : dim == 1 ? t / bx % by : t / (bx * by);
}

uint32_t arr_emu_tid_x(void) { return emu_tid(0); }
uint32_t arr_emu_tid_y(void) { return emu_tid(1); }
uint32_t arr_emu_tid_z(void) { return emu_tid(2); }
uint32_t arr_emu_ntid_x(void) { return emu_self()->job->block.x; }
uint32_t arr_emu_ntid_y(void) { return emu_self()->job->block.y; }
uint32_t arr_emu_ntid_z(void) { return emu_self()->job->block.z; }
uint32_t arr_emu_ctaid_x(void) { return emu_self()->block[0]; }
uint32_t arr_emu_ctaid_y(void) { return emu_self()->block[1]; }
uint32_t arr_emu_ctaid_z(void) { return emu_self()->block[2]; }
uint32_t arr_emu_nctaid_x(void) { return emu_self()->job->grid.x; }
uint32_t arr_emu_nctaid_y(void) { return emu_self()->job->grid.y; }
uint32_t arr_emu_nctaid_z(void) { return emu_self()->job->grid.z; }
uint32_t arr_emu_laneid(void) { return emu_self()->current & 31u; }

/* ------------------------------------------------------------- barriers */

static int32_t emu_barrier(int kind, int32_t pred) {
    emu_worker *w = emu_self();
    emu_fiber *f = &w->fibers[w->current];
    f->state = EMU_BARRIER;
    f->bar_kind = kind;
    f->bar_pred = pred;
    emu_suspend(w);
    return f->bar_result;
}

void arr_emu_barrier(void) { (void)emu_barrier(EMU_BAR_PLAIN, 0); }
int32_t arr_emu_barrier_popc(int32_t pred) { return emu_barrier(EMU_BAR_POPC, pred); }
int32_t arr_emu_barrier_and(int32_t pred) { return emu_barrier(EMU_BAR_AND, pred); }
int32_t arr_emu_barrier_or(int32_t pred) { return emu_barrier(EMU_BAR_OR, pred); }

/* ------------------------------------------------------- warp operations */

static uint32_t emu_warp_op(int op, uint32_t mask, uint32_t v, int32_t b, int32_t c) {
    emu_worker *w = emu_self();
    emu_fiber *f = &w->fibers[w->current];
    f->state = EMU_WARP;
    f->wop = op;
    f->wmask = mask;
    f->wval = v;
    f->wb = b;
    f->wc = c;
    emu_suspend(w);
    return f->wresult;
}

/* The lane a shuffle reads, by the PTX rules for shfl.sync. */
static uint32_t emu_shfl_source(int op, uint32_t lane, int32_t b, int32_t c) {
    int64_t clamp = c & 0x1f, seg = (c >> 8) & 0x1f, j;
    int64_t max_lane = ((int64_t)lane & seg) | (clamp & ~seg), min_lane = (int64_t)lane & seg;
    int in_range;
    switch (op) {
    case EMU_SHFL_UP:
        j = (int64_t)lane - b;
        in_range = j >= max_lane;
        break;
    case EMU_SHFL_DOWN:
        j = (int64_t)lane + b;
        in_range = j <= max_lane;
        break;
    case EMU_SHFL_BFLY:
        j = (int64_t)(lane ^ (uint32_t)b);
        in_range = j <= max_lane;
        break;
    default:
        j = min_lane | ((int64_t)b & ~seg & 0x1f);
        in_range = j <= max_lane;
    }
    return in_range ? (uint32_t)j : lane;
}

void emu_complete_warp_op(emu_worker *w, uint32_t first) {
    uint32_t base = first & ~31u, mask = w->fibers[first].wmask, m;
    int op = w->fibers[first].wop;
    uint32_t ballot = 0, all = 1, any = 0, uni = 1;
    for (m = 0; m < 32; m++) {
        if (mask >> m & 1) {
            uint32_t p = w->fibers[base + m].wval != 0;
            ballot |= p << m;
            all &= p;
            any |= p;
            uni &= p == (w->fibers[first].wval != 0);
        }
    }
    if (op == EMU_WARP_SYNC) {
        emu_warp_log *log = &w->warp_logs[first / 32];
        if (log->count < EMU_WARP_LOG) {
            log->masks[log->count] = mask;
        }
        if (log->count <= EMU_WARP_LOG) {
            log->count++;
        }
    }
    for (m = 0; m < 32; m++) {
        emu_fiber *f = &w->fibers[base + m];
        if (!(mask >> m & 1)) {
            continue;
        }
        switch (op) {
        case EMU_SHFL_DOWN:
        case EMU_SHFL_UP:
        case EMU_SHFL_BFLY:
        case EMU_SHFL_IDX: {
            uint32_t j = emu_shfl_source(op, m, f->wb, f->wc);
            /* A source lane outside the mask is undefined on a GPU: the
             * fiber reports it when it resumes. */
            f->wbad = mask >> j & 1 ? 0 : j + 1;
            f->wresult = w->fibers[base + j].wval;
            break;
        }
        case EMU_VOTE_ALL:
            f->wresult = all;
            break;
        case EMU_VOTE_ANY:
            f->wresult = any;
            break;
        case EMU_VOTE_UNI:
            f->wresult = uni;
            break;
        case EMU_VOTE_BALLOT:
            f->wresult = ballot;
            break;
        default:
            f->wresult = 0;
        }
        f->state = EMU_READY;
    }
}

static uint32_t emu_shfl(int op, uint32_t mask, uint32_t v, int32_t b, int32_t c) {
    uint32_t r = emu_warp_op(op, mask, v, b, c);
    emu_worker *w = emu_self();
    emu_fiber *f = &w->fibers[w->current];
    if (f->wbad != 0) {
        emu_block_error(w, "thread %" PRIu32 " shuffles from lane %" PRIu32
                        ", which is outside the mask 0x%08" PRIx32, w->current, f->wbad - 1, mask);
    }
    return r;
}

static uint32_t f32_bits(float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static float bits_f32(uint32_t u) {
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

#define EMU_SHFL(NAME, OP)                                                              \
    int32_t arr_emu_shfl_##NAME##_i32(uint32_t mask, int32_t v, int32_t b, int32_t c) { \
        return (int32_t)emu_shfl(OP, mask, (uint32_t)v, b, c);                          \
    }                                                                                   \
    float arr_emu_shfl_##NAME##_f32(uint32_t mask, float v, int32_t b, int32_t c) {     \
        return bits_f32(emu_shfl(OP, mask, f32_bits(v), b, c));                         \
    }
EMU_SHFL(down, EMU_SHFL_DOWN)
EMU_SHFL(up, EMU_SHFL_UP)
EMU_SHFL(bfly, EMU_SHFL_BFLY)
EMU_SHFL(idx, EMU_SHFL_IDX)

int32_t arr_emu_vote_all(uint32_t mask, int32_t pred) {
    return (int32_t)emu_warp_op(EMU_VOTE_ALL, mask, pred != 0, 0, 0);
}
int32_t arr_emu_vote_any(uint32_t mask, int32_t pred) {
    return (int32_t)emu_warp_op(EMU_VOTE_ANY, mask, pred != 0, 0, 0);
}
int32_t arr_emu_vote_uni(uint32_t mask, int32_t pred) {
    return (int32_t)emu_warp_op(EMU_VOTE_UNI, mask, pred != 0, 0, 0);
}
uint32_t arr_emu_vote_ballot(uint32_t mask, int32_t pred) {
    return emu_warp_op(EMU_VOTE_BALLOT, mask, pred != 0, 0, 0);
}
void arr_emu_warp_sync(uint32_t mask) { (void)emu_warp_op(EMU_WARP_SYNC, mask, 0, 0, 0); }

/* ------------------------------------------------------------ races */

enum { EMU_READ, EMU_WRITE, EMU_ATOMIC };

/* Whether thread u's access (made when its warp's sync log had length uw)
 * happens before thread t's access now. */
static int emu_ordered(const emu_worker *w, uint32_t u, uint32_t uw, uint32_t t) {
    const emu_warp_log *log;
    int i;
    if (u == t) {
        return 1;
    }
    if (u / 32 != t / 32) {
        return 0;
    }
    log = &w->warp_logs[t / 32];
    if (log->count > EMU_WARP_LOG) {
        return 1;
    }
    for (i = (int)uw; i < log->count; i++) {
        if ((log->masks[i] >> (u & 31) & 1) && (log->masks[i] >> (t & 31) & 1)) {
            return 1;
        }
    }
    return 0;
}

static const char *const emu_access_verbs[] = {"reads", "writes", "updates atomically"};
static const char *const emu_past_verbs[] = {"read", "wrote", "updated atomically"};

/* Reports thread t's access of `kind` to shared byte `off` if the earlier
 * access of `past` by thread id-1 is not ordered before it. */
static void emu_check(emu_worker *w, uint32_t t, int kind, uint32_t off, uint16_t id,
                      uint16_t at, int past) {
    if (id != 0 && !emu_ordered(w, id - 1u, at, t)) {
        emu_block_error(w, "shared-memory race: thread %" PRIu32 " %s byte %" PRIu32
                        ", which thread %u %s since the last barrier", t,
                        emu_access_verbs[kind], off, (unsigned)(id - 1), emu_past_verbs[past]);
    }
}

static unsigned char *emu_shared_check(const void *p, uint32_t bytes, int kind) {
    emu_worker *w = emu_self();
    unsigned char *base = w->shared;
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)base;
    uint32_t t = w->current, i, off;
    uint16_t me = (uint16_t)(t + 1), pos;
    if (a < lo || a - lo > w->job->shared_bytes || bytes > w->job->shared_bytes - (a - lo)) {
        emu_block_error(w, "thread %" PRIu32 " %s %" PRIu32
                        " bytes outside the block's %" PRIu32 " bytes of shared memory", t,
                        emu_access_verbs[kind], bytes, w->job->shared_bytes);
    }
    off = (uint32_t)(a - lo);
    pos = (uint16_t)w->warp_logs[t / 32].count;
    for (i = off; i < off + bytes; i++) {
        emu_shadow *s = &w->shadow[i];
        if (s->epoch != w->epoch) {
            memset(s, 0, sizeof *s);
            s->epoch = w->epoch;
        }
        emu_check(w, t, kind, i, s->writer, s->writer_w, EMU_WRITE);
        if (kind != EMU_ATOMIC) {
            emu_check(w, t, kind, i, s->atomic, s->atomic_w, EMU_ATOMIC);
        }
        if (kind != EMU_READ) {
            emu_check(w, t, kind, i, s->reader_a, s->reader_a_w, EMU_READ);
            emu_check(w, t, kind, i, s->reader_b, s->reader_b_w, EMU_READ);
        }
        switch (kind) {
        case EMU_READ:
            if (s->reader_a == 0 || s->reader_a == me) {
                s->reader_a = me;
                s->reader_a_w = pos;
            } else {
                s->reader_b = me;
                s->reader_b_w = pos;
            }
            break;
        case EMU_WRITE:
            s->writer = me;
            s->writer_w = pos;
            break;
        default:
            s->atomic = me;
            s->atomic_w = pos;
        }
    }
    return (unsigned char *)p;
}

void *arr_emu_shared(void) { return emu_self()->shared; }
void arr_emu_shared_read(const void *p, uint32_t bytes) { emu_shared_check(p, bytes, EMU_READ); }
void arr_emu_shared_write(void *p, uint32_t bytes) { emu_shared_check(p, bytes, EMU_WRITE); }

/* ------------------------------------------------------------- atomics */

/* Records an atomic access when `p` is in the block's shared memory. */
static void emu_atomic_access(void *p, uint32_t bytes) {
    emu_worker *w = emu_self();
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)w->shared;
    if (a >= lo && a < lo + ARR_GPU_SHARED_LIMIT) {
        emu_shared_check(p, bytes, EMU_ATOMIC);
    }
}

#define EMU_ATOMIC_INT(T, U, NAME)                                                         \
    T arr_emu_atomic_##NAME(void *p, int32_t op, T v) {                                    \
        _Atomic T *a = (_Atomic T *)p;                                                     \
        T old;                                                                             \
        emu_atomic_access(p, sizeof(T));                                                   \
        switch (op) {                                                                      \
        case ARR_ATOMIC_ADD:                                                               \
            return (T)atomic_fetch_add(a, v);                                              \
        case ARR_ATOMIC_AND:                                                               \
            return (T)atomic_fetch_and(a, v);                                              \
        case ARR_ATOMIC_OR:                                                                \
            return (T)atomic_fetch_or(a, v);                                               \
        case ARR_ATOMIC_XOR:                                                               \
            return (T)atomic_fetch_xor(a, v);                                              \
        case ARR_ATOMIC_XCHG:                                                              \
            return (T)atomic_exchange(a, v);                                               \
        case ARR_ATOMIC_MIN:                                                               \
        case ARR_ATOMIC_MAX:                                                               \
        case ARR_ATOMIC_UMIN:                                                              \
        case ARR_ATOMIC_UMAX:                                                              \
            old = atomic_load(a);                                                          \
            for (;;) {                                                                     \
                int keep = op == ARR_ATOMIC_MIN    ? old <= v                              \
                           : op == ARR_ATOMIC_MAX  ? old >= v                              \
                           : op == ARR_ATOMIC_UMIN ? (U)old <= (U)v                        \
                                                   : (U)old >= (U)v;                       \
                if (keep || atomic_compare_exchange_weak(a, &old, v)) {                    \
                    return old;                                                            \
                }                                                                          \
            }                                                                              \
        default:                                                                           \
            emu_block_error(emu_self(), "unknown atomic operation %" PRId32, op);          \
        }                                                                                  \
    }
EMU_ATOMIC_INT(int32_t, uint32_t, i32)
EMU_ATOMIC_INT(int64_t, uint64_t, i64)

/* Float atomics as a compare-and-swap loop on the bit pattern. */
#define EMU_ATOMIC_FLOAT(T, BITS, NAME)                                                    \
    T arr_emu_atomic_##NAME(void *p, int32_t op, T v) {                                    \
        _Atomic BITS *a = (_Atomic BITS *)p;                                               \
        BITS old_bits, new_bits;                                                           \
        T old, next;                                                                       \
        emu_atomic_access(p, sizeof(T));                                                   \
        if (op != ARR_ATOMIC_ADD && op != ARR_ATOMIC_XCHG) {                               \
            emu_block_error(emu_self(), "atomic operation %" PRId32 " on a float", op);    \
        }                                                                                  \
        old_bits = atomic_load(a);                                                         \
        for (;;) {                                                                         \
            memcpy(&old, &old_bits, sizeof old);                                           \
            next = op == ARR_ATOMIC_ADD ? old + v : v;                                     \
            memcpy(&new_bits, &next, sizeof next);                                         \
            if (atomic_compare_exchange_weak(a, &old_bits, new_bits)) {                    \
                return old;                                                                \
            }                                                                              \
        }                                                                                  \
    }
EMU_ATOMIC_FLOAT(float, uint32_t, f32)
EMU_ATOMIC_FLOAT(double, uint64_t, f64)

int32_t arr_emu_cas_i32(void *p, int32_t expected, int32_t desired) {
    emu_atomic_access(p, 4);
    atomic_compare_exchange_strong((_Atomic int32_t *)p, &expected, desired);
    return expected;
}

int64_t arr_emu_cas_i64(void *p, int64_t expected, int64_t desired) {
    emu_atomic_access(p, 8);
    atomic_compare_exchange_strong((_Atomic int64_t *)p, &expected, desired);
    return expected;
}

int32_t arr_emu_load_acquire_i32(const void *p) {
    return atomic_load_explicit((_Atomic int32_t *)(uintptr_t)p, memory_order_acquire);
}
void arr_emu_store_release_i32(void *p, int32_t v) {
    atomic_store_explicit((_Atomic int32_t *)p, v, memory_order_release);
}
int64_t arr_emu_load_acquire_i64(const void *p) {
    return atomic_load_explicit((_Atomic int64_t *)(uintptr_t)p, memory_order_acquire);
}
void arr_emu_store_release_i64(void *p, int64_t v) {
    atomic_store_explicit((_Atomic int64_t *)p, v, memory_order_release);
}

void arr_emu_fence_block(void) { atomic_thread_fence(memory_order_seq_cst); }
void arr_emu_fence_gpu(void) { atomic_thread_fence(memory_order_seq_cst); }

void arr_emu_nanosleep(uint32_t ns) {
    emu_worker *w = emu_self();
    (void)ns;
    w->fibers[w->current].state = EMU_YIELD;
    emu_suspend(w);
}

/* --------------------------------------------------------------- errors */

static pthread_mutex_t emu_fail_lock = PTHREAD_MUTEX_INITIALIZER;

void arr_emu_fail(arr_gpu_error *err, uint64_t seq, uint64_t key, int32_t kind, int32_t loc,
                  int64_t a0, int64_t a1, int64_t a2, int64_t a3) {
    (void)emu_self();
    pthread_mutex_lock(&emu_fail_lock);
    if (err->seq == 0 || seq < err->seq || (seq == err->seq && key < err->key)) {
        err->seq = seq;
        err->key = key;
        err->kind = kind;
        err->loc = loc;
        err->args[0] = a0;
        err->args[1] = a1;
        err->args[2] = a2;
        err->args[3] = a3;
    }
    pthread_mutex_unlock(&emu_fail_lock);
}

/* -------------------------------------------------------- scratch memory */

atomic_int emu_heap_touched;
/* Bytes of scratch arrays alive now, headers included. */
static atomic_int_fast64_t emu_heap_used;

/* Each block starts with its size, in a 16-byte header (alignment kept). */
void *arr_emu_malloc(uint64_t bytes) {
    uint64_t total = bytes + 16;
    int64_t after;
    unsigned char *p;
    atomic_store(&emu_heap_touched, 1);
    if (bytes > (uint64_t)INT64_MAX - 16) {
        return NULL;
    }
    after = atomic_fetch_add(&emu_heap_used, (int64_t)total) + (int64_t)total;
    if (after > arr_gpu_heap_bytes || (p = malloc(total)) == NULL) {
        atomic_fetch_sub(&emu_heap_used, (int64_t)total);
        return NULL;
    }
    memcpy(p, &total, sizeof total);
    return p + 16;
}

void arr_emu_free(void *p) {
    uint64_t total;
    if (p == NULL) {
        return;
    }
    memcpy(&total, (unsigned char *)p - 16, sizeof total);
    atomic_fetch_sub(&emu_heap_used, (int64_t)total);
    free((unsigned char *)p - 16);
}
