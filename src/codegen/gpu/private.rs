//! Histograms with bins privatised in shared memory: when every histogram
//! of a nest is one rank-1 bin array whose operator is one binary operator
//! that a single atomic instruction applies (integer `+`, `&`, `|`, `^`,
//! `min`, `max`; floats update by compare-and-swap, not privatised), and
//! the bins fit `PRIVATE_BYTES` of shared
//! memory, each block starts its own copy of the bins at the neutral
//! element, the grid-stride loop updates the copy (shared-memory atomics:
//! contention stays inside the block, global memory sees no update per
//! iteration), and after a barrier the block merges its copy into the
//! global bins with one atomic per bin. Otherwise (bins too many for the
//! shared memory, decided by host code at run time) the same kernel updates
//! the global bins directly.
//!
//! A check that fails records its error and leaves the loop, so that the
//! thread still reaches the barriers.

use super::kernel::PARTIALS;
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::{HistState, LoopNest, ScalarExp, Stmt};
use crate::types::ScalarType;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp};

/// Shared memory a block's private bins may take at most (a third of what
/// a block has, so that several blocks still fit on a multiprocessor).
pub(super) const PRIVATE_BYTES: i64 = 16 * 1024;

/// The atomic instruction that merges a private bin of element type
/// `elem` into the global one, if `h`'s operator is one.
fn merge_op(h: &HistState, elem: ScalarType) -> Option<AtomicRMWBinOp> {
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
    if h.op.results.as_slice() != [Atom::Var(var.id)] || !operands || h.bins.len() != 1 {
        return None;
    }
    crate::codegen::emit::atomic::rmw_op(*op, elem)
}

/// Whether `nest`'s histograms can be privatised (see the module comment),
/// given each bin array's element type.
pub(super) fn privatisable(nest: &LoopNest, elem_of: &dyn Fn(VarId) -> Option<ScalarType>) -> bool {
    !nest.hists.is_empty()
        && nest.hists.iter().all(|h| {
            h.bins.len() == 1
                && h.neutral.len() == 1
                && elem_of(h.bins[0]).is_some_and(|e| merge_op(h, e).is_some())
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
            let ty = self.reg_type(elem);
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
        let done = self.ctx.append_basic_block(fr.func, "hist.updated");
        self.set_on_fail(Some(done));
        let result = self.grid_stride_body(fr, nest, kp);
        self.set_on_fail(None);
        result?;
        self.builder.build_unconditional_branch(done)?;
        self.builder.position_at_end(done);
        self.barrier()?;
        // The block's bins into the global ones.
        for (bin, global, p, gptr, m, elem, op) in copies {
            let ty = self.reg_type(elem);
            self.kernel_loop(fr, tid, m, b, &mut |gen, _, k| {
                let at = gen.elem_ptr(p, ty, k)?;
                gen.announce_bytes(at, elem.bytes(), false)?;
                let v = gen.builder.build_load(ty, at, "")?;
                let to = gen.elem_ptr(gptr, ty, k)?;
                gen.builder.build_atomicrmw(
                    op,
                    to,
                    v.into_int_value(),
                    AtomicOrdering::Monotonic,
                )?;
                Ok(())
            })?;
            fr.vals.insert(bin, global);
        }
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
