//! Histograms under locks (tuples of bins, `hist`) with private bins: when
//! the bins of every histogram and a lock per bin fit `PRIVATE_BYTES` of
//! shared memory (host code decides at run time and marks the lock array's
//! last word), each block starts its copy of the bins at the neutral
//! elements and its locks at 0, the grid-stride loop updates the copy
//! under the shared locks, and after a barrier the block merges each bin
//! of its copy that changed into the global bins: under the global bin's
//! lock it reads the global tuple, applies the operator with the global
//! tuple on the left, and writes the result. Otherwise the kernel runs the
//! global locked form.
//!
//! An operator that can fail applies here to partial results of a block
//! rather than to one element at a time, as it does in any parallel order
//! of the global forms (histogram operators are taken to be associative
//! and commutative): a failure in the loop is keyed by its iteration, one
//! in the merge after every iteration (the width), and an executable built
//! with fusion re-runs the entry on the CPU to report the first in
//! sequential order (docs/runtime.md).

use super::kernel::{PARTIALS, WIDTH};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::LoopNest;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;

impl<'ctx> Gen<'ctx, '_> {
    /// Host side: the shared memory a block's private bins and locks take
    /// (8-byte aligned per bin array and for the locks).
    pub(super) fn locked_private_bytes(
        &self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
    ) -> Res<IntValue<'ctx>> {
        let mut total = self.const_i64(0);
        for h in &nest.hists {
            for &bin in &h.bins {
                let (_, elem, shape) = self.array(fr, bin)?;
                let bytes = self.builder.build_int_mul(
                    shape[0],
                    self.const_i64(elem.bytes() as i64),
                    "",
                )?;
                total = self.builder.build_int_add(total, self.align8(bytes)?, "")?;
            }
        }
        let count = self.lock_count(fr, nest)?;
        let locks = self.builder.build_int_mul(count, self.const_i64(4), "")?;
        Ok(self.builder.build_int_add(total, self.align8(locks)?, "")?)
    }

    fn align8(&self, bytes: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
        let up = self.builder.build_int_add(bytes, self.const_i64(7), "")?;
        Ok(self.builder.build_and(up, self.const_i64(-8), "")?)
    }

    /// The locked histogram kernel: private bins when the lock array's
    /// word after the locks is not 0, else the global locked form.
    pub(super) fn locked_hist_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let base = kp[PARTIALS].into_pointer_value();
        let count = self.lock_count(fr, nest)?;
        let i32t = self.ctx.i32_type();
        // Safety: the host allocated `count + 1` words.
        let mark = unsafe { self.builder.build_in_bounds_gep(i32t, base, &[count], "")? };
        let mark = self.builder.build_load(i32t, mark, "")?.into_int_value();
        let private =
            self.builder
                .build_int_compare(IntPredicate::NE, mark, i32t.const_zero(), "")?;
        let shared_path = self.ctx.append_basic_block(fr.func, "hist.private");
        let global_path = self.ctx.append_basic_block(fr.func, "hist.global");
        let join = self.ctx.append_basic_block(fr.func, "hist.end");
        self.builder
            .build_conditional_branch(private, shared_path, global_path)?;
        self.builder.position_at_end(global_path);
        self.set_locks(fr, nest, base)?;
        self.grid_stride_body(fr, nest, kp)?;
        self.builder.build_unconditional_branch(join)?;
        self.builder.position_at_end(shared_path);
        self.private_locked(fr, nest, kp, base, count)?;
        self.builder.build_unconditional_branch(join)?;
        self.builder.position_at_end(join);
        Ok(())
    }

    fn private_locked(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
        base: PointerValue<'ctx>,
        count: IntValue<'ctx>,
    ) -> Res<()> {
        let tid = self.sreg("tid.x")?;
        let b = self.sreg("ntid.x")?;
        let shared = self.shared_base()?;
        let i8t = self.ctx.i8_type();
        let mut off = self.const_i64(0);
        // Per bin array: its variable, global value and private copy.
        let mut copies: Vec<(VarId, Val<'ctx>, PointerValue<'ctx>)> = Vec::new();
        for h in &nest.hists {
            for (bin, ne) in h.bins.iter().zip(&h.neutral) {
                let global = self.val(fr, &Atom::Var(*bin))?;
                let (_, elem, shape) = self.array(fr, *bin)?;
                let m = shape[0];
                // Safety: `off` is below the block's shared memory (host
                // code sized it by `locked_private_bytes`).
                let p = unsafe { self.builder.build_in_bounds_gep(i8t, shared, &[off], "")? };
                let Val::Scalar(neutral, _) = self.val(fr, ne)? else {
                    return Err(CodegenError::Internal(
                        "a histogram's neutral element is an array".into(),
                    ));
                };
                let ty = self.mem_type(elem);
                let neutral = self.store_to_mem(neutral, elem)?;
                self.kernel_loop(fr, tid, m, b, &mut |gen, _, k| {
                    // Safety: `k` is below the bin count.
                    let at = unsafe { gen.builder.build_in_bounds_gep(ty, p, &[k], "")? };
                    gen.announce_bytes(at, elem.bytes(), true)?;
                    gen.builder.build_store(at, neutral)?;
                    Ok(())
                })?;
                let bytes =
                    self.builder
                        .build_int_mul(m, self.const_i64(elem.bytes() as i64), "")?;
                off = self.builder.build_int_add(off, self.align8(bytes)?, "")?;
                fr.vals.insert(
                    *bin,
                    Val::Array {
                        ptr: p,
                        elem,
                        shape: vec![m],
                    },
                );
                copies.push((*bin, global, p));
            }
        }
        // Safety: as above, the locks follow the bins.
        let locks = unsafe {
            self.builder
                .build_in_bounds_gep(i8t, shared, &[off], "locks")?
        };
        let i32t = self.ctx.i32_type();
        self.kernel_loop(fr, tid, count, b, &mut |gen, _, k| {
            // Safety: `k` is below the lock count.
            let at = unsafe { gen.builder.build_in_bounds_gep(i32t, locks, &[k], "")? };
            gen.announce_bytes(at, 4, true)?;
            gen.builder.build_store(at, i32t.const_zero())?;
            Ok(())
        })?;
        self.barrier()?;
        // The iterations into the private bins under the shared locks; a
        // failing check leaves the loop so that the thread reaches the
        // barrier.
        self.set_locks(fr, nest, locks)?;
        self.leaving_on_fail(fr, "hist.updated", |gen, fr| {
            gen.grid_stride_body(fr, nest, kp)
        })?;
        self.barrier()?;
        for (bin, global, _) in &copies {
            fr.vals.insert(*bin, global.clone());
        }
        // The merge, under the global locks, keyed after every iteration.
        self.set_locks(fr, nest, base)?;
        let key = self.key_slot()?;
        self.builder.build_store(key, kp[WIDTH].into_int_value())?;
        let mut first = 0;
        for (hi, h) in nest.hists.iter().enumerate() {
            let mine = &copies[first..first + h.bins.len()];
            first += h.bins.len();
            let (_, _, shape) = self.array(fr, h.bins[0])?;
            let m = shape[0];
            self.kernel_loop(fr, tid, m, b, &mut |gen, fr, k| {
                gen.merge_locked(fr, nest, hi, mine, k)
            })?;
        }
        Ok(())
    }

    /// Bin `k` of histogram `hi` of the block's private copies `mine`
    /// merged into the global bins when any of its values changed.
    fn merge_locked(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        hi: usize,
        mine: &[(VarId, Val<'ctx>, PointerValue<'ctx>)],
        k: IntValue<'ctx>,
    ) -> Res<()> {
        let h = &nest.hists[hi];
        let mut changed = self.ctx.bool_type().const_zero();
        let mut privs = Vec::new();
        for ((bin, _, p), ne) in mine.iter().zip(&h.neutral) {
            let (_, elem, _) = self.array(fr, *bin)?;
            let ty = self.mem_type(elem);
            let bits = self.bits_type(elem);
            // Safety: `k` is below the bin count.
            let at = unsafe { self.builder.build_in_bounds_gep(ty, *p, &[k], "")? };
            self.announce_bytes(at, elem.bytes(), false)?;
            let v = self.builder.build_load(ty, at, "")?;
            let v_bits = self.builder.build_bit_cast(v, bits, "")?.into_int_value();
            let Val::Scalar(neutral, _) = self.val(fr, ne)? else {
                return Err(CodegenError::Internal(
                    "a histogram's neutral element is an array".into(),
                ));
            };
            let neutral = self.store_to_mem(neutral, elem)?;
            let n_bits = self
                .builder
                .build_bit_cast(neutral, bits, "")?
                .into_int_value();
            let differs = self
                .builder
                .build_int_compare(IntPredicate::NE, v_bits, n_bits, "")?;
            changed = self.builder.build_or(changed, differs, "")?;
            privs.push(Val::Scalar(self.load_from_mem(v, elem)?, elem));
        }
        let n = h.bins.len();
        self.when(fr.func, changed, |gen| {
            gen.acquire(hi, k)?;
            let mut ptrs = Vec::new();
            for ((bin, _, _), x) in mine.iter().zip(&h.op.params) {
                let (g, elem, _) = gen.array(fr, *bin)?;
                let ty = gen.mem_type(elem);
                // Safety: `k` is below the bin count.
                let at = unsafe { gen.builder.build_in_bounds_gep(ty, g, &[k], "")? };
                let v = gen.builder.build_load(ty, at, "")?;
                volatile(v.as_instruction_value())?;
                let v = gen.load_from_mem(v, elem)?;
                fr.vals.insert(x.id, Val::Scalar(v, elem));
                ptrs.push((at, elem));
            }
            for (y, v) in h.op.params[n..].iter().zip(&privs) {
                fr.vals.insert(y.id, v.clone());
            }
            gen.block(fr, &h.op.body)?;
            for ((at, elem), r) in ptrs.iter().zip(&h.op.results) {
                let (v, _) = gen.scalar(fr, r)?;
                let v = gen.store_to_mem(v, *elem)?;
                volatile(Some(gen.builder.build_store(*at, v)?))?;
            }
            gen.release_held_lock()
        })
    }
}

fn volatile(v: Option<inkwell::values::InstructionValue<'_>>) -> Res<()> {
    if let Some(i) = v {
        i.set_volatile(true)
            .map_err(|e| CodegenError::Internal(format!("volatile bin access: {e}")))?;
    }
    Ok(())
}
