//! Histograms with bins privatised in shared memory: when every histogram
//! of a nest is one rank-1 array of bins updated atomically
//! (the plan's `atomic`: one atomic instruction, or a compare-and-swap
//! loop on the bin's bits), and the bins fit
//! `PRIVATE_BYTES` of shared memory, each block starts its own copy of the
//! bins at the neutral element, the grid-stride loop updates the copy
//! (shared-memory atomics: contention stays inside the block, global memory
//! sees no update per iteration), and after a barrier the block merges
//! each bin of its copy that changed into the global bins (`Merge`: one
//! atomic instruction for integer `+`, `&`, `|`, `^`, `min`, `max` and
//! float `+`, else a compare-and-swap loop applying the operator).
//! Otherwise (bins too many for the shared memory, decided by host code at
//! run time) the same kernel updates the global bins directly.
//!
//! A check that fails records its error and leaves the loop, so that the
//! thread still reaches the barriers; an operator that fails in the merge
//! records its error keyed after every iteration.

use super::kernel::PARTIALS;
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, BinOp, VarId};
use crate::loopy::ir::{HistState, LoopNest, ScalarExp, Stmt};
use crate::types::ScalarType;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};

/// Whether bins of `elem` take atomic updates: numbers of every width and
/// `bool`s, 1- and 2-byte bins by a compare-and-swap of the 32-bit word
/// that holds them (LLVM's NVPTX back end expands narrower atomics so; the
/// emulator's CPU has byte-wide ones). A `bool` is a byte in memory and an
/// `i1` in registers: its compare-and-swap converts between them.
pub(super) fn atomic_bins(elem: ScalarType) -> bool {
    matches!(elem.bytes(), 1 | 2 | 4 | 8)
}

/// Shared memory a block's private bins may take at most (a third of what
/// a block has, so that several blocks still fit on a multiprocessor).
pub(super) const PRIVATE_BYTES: i64 = 16 * 1024;

/// How a block's private bin merges into the global one.
#[derive(Clone, Copy)]
enum Merge {
    /// One integer `atomicrmw`.
    Rmw(AtomicRMWBinOp),
    /// A float add (`atom.add.f32` / `.f64`).
    FloatAdd,
    /// A compare-and-swap loop on the global bin's bits, applying the
    /// histogram's operator (global value on the left).
    Cas,
}

/// `h`'s operator when it is one binary operator on its two parameters.
fn single_binop(h: &HistState) -> Option<BinOp> {
    let [Stmt::Let {
        var,
        exp: ScalarExp::BinOp(op, Atom::Var(a), Atom::Var(b)),
        ..
    }] = h.op.body.as_slice()
    else {
        return None;
    };
    let [x, y] = h.op.params.as_slice() else {
        return None;
    };
    let operands = (*a == x.id && *b == y.id) || (*a == y.id && *b == x.id);
    (h.op.results.as_slice() == [Atom::Var(var.id)] && operands).then_some(*op)
}

/// The merge of `h`'s private bins of element type `elem`, if they can be
/// privatised: one bin array of atomic bins.
fn merge_op(h: &HistState, elem: ScalarType) -> Option<Merge> {
    if h.bins.len() != 1 || h.neutral.len() != 1 || !atomic_bins(elem) {
        return None;
    }
    let op = single_binop(h);
    if let Some(rmw) = op.and_then(|op| crate::codegen::emit::atomic::rmw_op(op, elem)) {
        return Some(Merge::Rmw(rmw));
    }
    if op == Some(BinOp::Add) && elem.is_float() {
        return Some(Merge::FloatAdd);
    }
    // An operator that can fail too: the merge is one more grouping of its
    // applications (`private_locked` says why that is allowed).
    Some(Merge::Cas)
}

/// Whether `nest`'s histograms can be privatised (see the module comment),
/// given each bin array's element type.
pub(super) fn privatisable(nest: &LoopNest, elem_of: &dyn Fn(VarId) -> Option<ScalarType>) -> bool {
    !nest.hists.is_empty()
        && nest.hists.iter().all(|h| {
            h.bins.len() == 1 && elem_of(h.bins[0]).is_some_and(|e| merge_op(h, e).is_some())
        })
}

impl<'ctx> Gen<'ctx, '_> {
    /// Host side: the bytes of shared memory the private bins of `nest`
    /// take (8-byte aligned per histogram).
    pub(super) fn private_bytes(&self, fr: &Frame<'ctx>, nest: &LoopNest) -> Res<IntValue<'ctx>> {
        let mut total = self.const_i64(0);
        for h in &nest.hists {
            let (_, elem, shape) = self.array(fr, h.bins[0])?;
            let bytes =
                self.builder
                    .build_int_mul(shape[0], self.const_i64(elem.bytes() as i64), "")?;
            total = self
                .builder
                .build_int_add(total, align8(self, bytes)?, "")?;
        }
        Ok(total)
    }

    /// The histogram kernel: private bins when host code passed a
    /// non-null `partials` (it fits), else updates of the global bins.
    pub(super) fn private_hist_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let marker = kp[PARTIALS].into_pointer_value();
        let private = self.builder.build_is_not_null(marker, "private")?;
        let shared_path = self.ctx.append_basic_block(fr.func, "hist.private");
        let global_path = self.ctx.append_basic_block(fr.func, "hist.global");
        let join = self.ctx.append_basic_block(fr.func, "hist.end");
        self.builder
            .build_conditional_branch(private, shared_path, global_path)?;
        self.builder.position_at_end(global_path);
        self.grid_stride_body(fr, nest, kp)?;
        self.builder.build_unconditional_branch(join)?;
        self.builder.position_at_end(shared_path);
        self.private_bins(fr, nest, kp)?;
        self.builder.build_unconditional_branch(join)?;
        self.builder.position_at_end(join);
        Ok(())
    }

    fn private_bins(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let tid = self.sreg("tid.x")?;
        let b = self.sreg("ntid.x")?;
        let shared = self.shared_base()?;
        let mut off = self.const_i64(0);
        // (bin variable, its global value, private copy, count, element, merge)
        let mut copies = Vec::new();
        for h in &nest.hists {
            let bin = h.bins[0];
            let global = self.val(fr, &Atom::Var(bin))?;
            let (gptr, elem, shape) = self.array(fr, bin)?;
            let op = merge_op(h, elem).ok_or_else(|| {
                CodegenError::Internal("a private histogram without its atomic merge".into())
            })?;
            let m = shape[0];
            // Safety: `off` is below the block's shared memory (host sized it).
            let p = unsafe {
                self.builder
                    .build_in_bounds_gep(self.ctx.i8_type(), shared, &[off], "bins")?
            };
            let neutral = self.val(fr, &h.neutral[0])?;
            let Val::Scalar(neutral, _) = neutral else {
                return Err(CodegenError::Internal(
                    "a histogram's neutral element is an array".into(),
                ));
            };
            let ty = self.mem_type(elem);
            let neutral = self.store_to_mem(neutral, elem)?;
            self.kernel_loop(fr, tid, m, b, &mut |gen, _, k| {
                let at = gen.elem_ptr(p, ty, k)?;
                gen.announce_bytes(at, elem.bytes(), true)?;
                gen.builder.build_store(at, neutral)?;
                Ok(())
            })?;
            let bytes = self
                .builder
                .build_int_mul(m, self.const_i64(elem.bytes() as i64), "")?;
            off = self.builder.build_int_add(off, align8(self, bytes)?, "")?;
            fr.vals.insert(
                bin,
                Val::Array {
                    ptr: p,
                    elem,
                    shape: vec![m],
                },
            );
            copies.push((bin, global, p, gptr, m, elem, op));
        }
        self.barrier()?;
        // The iterations into the private bins; a failing check leaves the
        // loop so that the thread reaches the barrier.
        self.leaving_on_fail(fr, "hist.updated", |gen, fr| {
            gen.grid_stride_body(fr, nest, kp)
        })?;
        self.barrier()?;
        // A failing operator in the merge is keyed after every iteration.
        let key = self.key_slot()?;
        self.builder
            .build_store(key, kp[super::kernel::WIDTH].into_int_value())?;
        // The block's bins that changed into the global ones (a bin still
        // at the neutral element leaves its global bin as it is, -0.0
        // included).
        for (h, (bin, global, p, gptr, m, elem, op)) in nest.hists.iter().zip(copies) {
            let ty = self.mem_type(elem);
            let bits = self.bits_type(elem);
            let neutral = self.val(fr, &h.neutral[0])?;
            let neutral = self.store_to_mem(self.fields(&neutral)[0], elem)?;
            let neutral = self.builder.build_bit_cast(neutral, bits, "")?;
            let neutral = neutral.into_int_value();
            self.kernel_loop(fr, tid, m, b, &mut |gen, fr, k| {
                let at = gen.elem_ptr(p, ty, k)?;
                gen.announce_bytes(at, elem.bytes(), false)?;
                let v = gen.builder.build_load(ty, at, "")?;
                let v_bits = gen.builder.build_bit_cast(v, bits, "")?.into_int_value();
                let changed =
                    gen.builder
                        .build_int_compare(IntPredicate::NE, v_bits, neutral, "")?;
                let to = gen.elem_ptr(gptr, ty, k)?;
                gen.when(fr.func, changed, |gen| match op {
                    Merge::Rmw(rmw) => {
                        gen.builder.build_atomicrmw(
                            rmw,
                            to,
                            v.into_int_value(),
                            AtomicOrdering::Monotonic,
                        )?;
                        Ok(())
                    }
                    Merge::FloatAdd => gen.float_atomic_add(to, v, elem),
                    Merge::Cas => {
                        let v = gen.load_from_mem(v, elem)?;
                        gen.cas_merge(fr, h, to, v, elem)
                    }
                })
            })?;
            fr.vals.insert(bin, global);
        }
        Ok(())
    }

    /// `*to += v` for a float `v` (`f32` or `f64`) in one atomic
    /// instruction: the device library's `atomicrmw fadd` on nvptx (inkwell
    /// builds integer ones only), the emulator's float atomic.
    pub(crate) fn float_atomic_add(
        &self,
        to: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
        elem: ScalarType,
    ) -> Res<()> {
        let wide = elem.bytes() == 8;
        let ty = self.reg_type(elem);
        if self.emulated()? {
            let name = if wide {
                "arr_emu_atomic_f64"
            } else {
                "arr_emu_atomic_f32"
            };
            let i32t = self.ctx.i32_type();
            let f = self.declare(name, Some(ty), &[self.ptr().into(), i32t.into(), ty]);
            // ARR_ATOMIC_ADD of arr_gpu_device.h.
            let add = i32t.const_zero();
            self.builder
                .build_call(f, &[to.into(), add.into(), v.into()], "")?;
        } else {
            let name = if wide {
                "arr_gpu_atomic_add_f64"
            } else {
                "arr_gpu_atomic_add_f32"
            };
            let f = self.declare(name, Some(ty), &[self.ptr().into(), ty]);
            self.builder.build_call(f, &[to.into(), v.into()], "")?;
        }
        Ok(())
    }

    /// `*to = op(*to, v)` by a compare-and-swap loop on the bits of the
    /// global bin (an operator that cannot fail).
    fn cas_merge(
        &mut self,
        fr: &mut Frame<'ctx>,
        h: &HistState,
        to: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
        elem: ScalarType,
    ) -> Res<()> {
        let bits = self.bits_type(elem);
        let (retry, old_bits) = self.cas_loop_head(fr.func, to, elem)?;
        let old_v = self
            .builder
            .build_bit_cast(old_bits, self.mem_type(elem), "")?;
        let old_v = self.load_from_mem(old_v, elem)?;
        let [x, y] = h.op.params.as_slice() else {
            return Err(CodegenError::Internal(
                "a histogram operator without two parameters".into(),
            ));
        };
        fr.vals.insert(x.id, Val::Scalar(old_v, elem));
        fr.vals.insert(y.id, Val::Scalar(v, elem));
        self.block(fr, &h.op.body)?;
        let (new, _) = self.scalar(fr, &h.op.results[0])?;
        let new = self.store_to_mem(new, elem)?;
        let new_bits = self.builder.build_bit_cast(new, bits, "")?.into_int_value();
        let done = self.ctx.append_basic_block(fr.func, "merge.done");
        self.cmpxchg_branch(to, old_bits, new_bits, done, retry)?;
        self.builder.position_at_end(done);
        Ok(())
    }

    fn elem_ptr(
        &self,
        base: PointerValue<'ctx>,
        ty: inkwell::types::BasicTypeEnum<'ctx>,
        k: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        // Safety: `k` is below the bin count of the array at `base`.
        Ok(unsafe { self.builder.build_in_bounds_gep(ty, base, &[k], "")? })
    }

    /// On the emulator: the race checker told of a plain access of `bytes`
    /// bytes of shared memory at `p`.
    pub(super) fn announce_bytes(
        &self,
        p: PointerValue<'ctx>,
        bytes: usize,
        write: bool,
    ) -> Res<()> {
        if !self.emulated()? {
            return Ok(());
        }
        let name = if write {
            "arr_emu_shared_write"
        } else {
            "arr_emu_shared_read"
        };
        let i32t = self.ctx.i32_type();
        let f = self.declare(name, None, &[self.ptr().into(), i32t.into()]);
        let n = i32t.const_int(bytes as u64, false);
        self.builder.build_call(f, &[p.into(), n.into()], "")?;
        Ok(())
    }
}

fn align8<'ctx>(gen: &Gen<'ctx, '_>, bytes: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
    let up = gen.builder.build_int_add(bytes, gen.const_i64(7), "")?;
    Ok(gen.builder.build_and(up, gen.const_i64(-8), "")?)
}
