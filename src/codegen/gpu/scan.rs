//! Scans, filters and partitions on the GPU (nests with a look-back plan,
//! scalar carried values and no reduction or histogram beside them), in
//! three kernels over contiguous slices of the iterations, one slice per
//! thread in thread order:
//!
//! 1. the totals slice of the body (what the scans' and compactions'
//!    carried values need) over each slice from the initial values;
//! 2. one thread: an exclusive scan of the slices' totals with the
//!    operators, in place (each becomes its slice's carry-in), the final
//!    values, and the first slice whose totals failed a check;
//! 3. the body over each slice from its carry-in, up to that slice.
//!
//! A check that fails in pass 1 only flags its slice: slices up to the
//! first flagged one have the right carry-ins, so pass 3 meets the first
//! failing check in sequential order and records it, as the CPU would.

use super::kernel::{OUT, PARTIALS, WIDTH};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::Type;
use crate::loopy::ir::{LoopNest, ParPlan};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, PointerValue};
use inkwell::IntPredicate;

impl<'ctx> Gen<'ctx, '_> {
    /// Scan pass 1: the totals slice of the body over this thread's slice
    /// from the neutral elements; totals (and a failure flag, 0) to the
    /// partials. A check that fails only sets the flag.
    pub(super) fn totals_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let Some(ParPlan::TwoPhase { totals }) = nest.plan.as_ref().map(|p| &p.strategy) else {
            return Err(CodegenError::Internal(
                "a scan kernel without totals".into(),
            ));
        };
        let inits = self.inits(nest, kp)?;
        let slots = self.carried_slots(fr, &inits)?;
        let width = kp[WIDTH].into_int_value();
        let (gid, lo, hi) = self.slice(width)?;
        let per = self.fields_of(nest) + 1;
        let base = self
            .builder
            .build_int_mul(gid, self.const_i64(per as i64), "")?;
        let flag_at = self
            .builder
            .build_int_add(base, self.const_i64(per as i64 - 1), "")?;
        let partials = kp[PARTIALS].into_pointer_value();
        let flag = self.cell_ptr(partials, flag_at)?;
        self.builder.build_store(flag, self.const_i64(0))?;
        if let Some(k) = self.device.as_mut().and_then(|d| d.current.as_mut()) {
            k.flag = Some(flag);
        }
        self.carried_loop_over(fr, nest, totals, &slots, lo, hi, true)?;
        let finals = self.load_slots(nest, &slots)?;
        self.store_cells(partials, base, &finals)
    }

    /// Scan pass 2, one thread: each slice's total replaced by its
    /// carry-in (the operators over the slices before it, from the
    /// initial values); the final values to `out`, and the first slice
    /// whose totals failed after them (the number of slices if none).
    pub(super) fn prefix_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        self.return_if_failed(fr, kp)?;
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let per = self.fields_of(nest) + 1;
        let threads = kp[WIDTH].into_int_value();
        let partials = kp[PARTIALS].into_pointer_value();
        let out = kp[OUT].into_pointer_value();
        let key = self.key_slot()?;
        self.builder.build_store(key, threads)?;
        let inits = self.inits(nest, kp)?;
        let slots = self.carried_slots(fr, &inits)?;
        let limit = self.entry_alloca(fr.func, self.i64().into())?;
        self.builder.build_store(limit, threads)?;
        let zero = self.const_i64(0);
        let one = self.const_i64(1);
        let per_v = self.const_i64(per as i64);
        self.kernel_loop(fr, zero, threads, one, &mut |gen, fr, t| {
            let at = gen.builder.build_int_mul(t, per_v, "")?;
            let total = gen.read_cells(partials, at, &types)?;
            let acc = gen.load_slots(nest, &slots)?;
            gen.store_cells(partials, at, &acc)?;
            // The first failed slice.
            let flag_at = gen
                .builder
                .build_int_add(at, gen.const_i64(per as i64 - 1), "")?;
            let flag = gen
                .builder
                .build_load(gen.i64(), gen.cell_ptr(partials, flag_at)?, "")?
                .into_int_value();
            let failed = gen
                .builder
                .build_int_compare(IntPredicate::NE, flag, zero, "")?;
            let current = gen
                .builder
                .build_load(gen.i64(), limit, "")?
                .into_int_value();
            let first = gen
                .builder
                .build_int_compare(IntPredicate::EQ, current, threads, "")?;
            let take = gen.builder.build_and(failed, first, "")?;
            let new = gen.builder.build_select(take, t, current, "")?;
            gen.builder.build_store(limit, new)?;
            gen.apply_operators(fr, nest, &slots, &acc, &total)
        })?;
        let finals = self.load_slots(nest, &slots)?;
        self.store_cells(out, zero, &finals)?;
        let limit = self.builder.build_load(self.i64(), limit, "")?;
        let at = self.const_i64((per - 1) as i64);
        self.builder.build_store(self.cell_ptr(out, at)?, limit)?;
        Ok(())
    }

    /// The scans' operators and the compactions' sums of `left` and
    /// `right` (values in `LoopNest::carried` order) into `slots`.
    fn apply_operators(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &[Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>],
        left: &[Val<'ctx>],
        right: &[Val<'ctx>],
    ) -> Res<()> {
        let mut k = 0;
        for s in &nest.scans {
            let n = s.carried.len();
            let (lp, rp) = s.op.params.split_at(n);
            for (p, v) in lp.iter().zip(&left[k..k + n]) {
                fr.vals.insert(p.id, v.clone());
            }
            for (p, v) in rp.iter().zip(&right[k..k + n]) {
                fr.vals.insert(p.id, v.clone());
            }
            self.block(fr, &s.op.body)?;
            for (res, ps) in s.op.results.iter().zip(&slots[k..k + n]) {
                let v = self.val(fr, res)?;
                for (f, (slot, _)) in self.fields(&v).iter().zip(ps) {
                    self.builder.build_store(*slot, *f)?;
                }
            }
            k += n;
        }
        for _ in &nest.compactions {
            let (Val::Scalar(a, _), Val::Scalar(b, _)) = (&left[k], &right[k]) else {
                return Err(CodegenError::Internal(
                    "a compaction count is not a scalar".into(),
                ));
            };
            let sum = self
                .builder
                .build_int_add(a.into_int_value(), b.into_int_value(), "")?;
            self.builder.build_store(slots[k][0].0, sum)?;
            k += 1;
        }
        Ok(())
    }

    /// Scan pass 3: the body over this thread's slice from its carry-in.
    /// Slices after the first failed one stop (their carry-ins are not
    /// known); the failed one runs and reports its error.
    pub(super) fn scan_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        self.return_if_failed(fr, kp)?;
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let per = self.fields_of(nest) + 1;
        let width = kp[WIDTH].into_int_value();
        let (gid, lo, hi) = self.slice(width)?;
        let out = kp[OUT].into_pointer_value();
        let limit = self
            .builder
            .build_load(
                self.i64(),
                self.cell_ptr(out, self.const_i64((per - 1) as i64))?,
                "limit",
            )?
            .into_int_value();
        let after = self
            .builder
            .build_int_compare(IntPredicate::SGT, gid, limit, "")?;
        let stop = self.ctx.append_basic_block(fr.func, "k.stop");
        let go = self.ctx.append_basic_block(fr.func, "k.go");
        self.builder.build_conditional_branch(after, stop, go)?;
        self.builder.position_at_end(stop);
        self.builder.build_return(None)?;
        self.builder.position_at_end(go);
        let at = self
            .builder
            .build_int_mul(gid, self.const_i64(per as i64), "")?;
        let carry_in = self.read_cells(kp[PARTIALS].into_pointer_value(), at, &types)?;
        let inits: Vec<Vec<BasicValueEnum<'ctx>>> =
            carry_in.iter().map(|v| self.fields(v)).collect();
        let slots = self.carried_slots(fr, &inits)?;
        self.carried_loop(fr, nest, &slots, lo, hi, true)
    }

    /// Returns from the kernel when an earlier launch recorded an error
    /// (its results, which this kernel reads, are not all there).
    pub(super) fn return_if_failed(
        &mut self,
        fr: &Frame<'ctx>,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let _ = kp;
        let Some(k) = self.device.as_ref().and_then(|d| d.current) else {
            return Err(CodegenError::Internal(
                "no kernel is being generated".into(),
            ));
        };
        // `seq` is field 4 of arr_gpu_error (bytes 16..24).
        let seq_ptr = self.cell_ptr(k.err, self.const_i64(2))?;
        let load = self.builder.build_load(self.i64(), seq_ptr, "failed")?;
        if let Some(inst) = load.as_instruction_value() {
            inst.set_volatile(true)
                .map_err(|e| CodegenError::Internal(format!("volatile load: {e}")))?;
        }
        let zero = self.const_i64(0);
        let failed =
            self.builder
                .build_int_compare(IntPredicate::NE, load.into_int_value(), zero, "")?;
        let stop = self.ctx.append_basic_block(fr.func, "k.failed");
        let go = self.ctx.append_basic_block(fr.func, "k.run");
        self.builder.build_conditional_branch(failed, stop, go)?;
        self.builder.position_at_end(stop);
        self.builder.build_return(None)?;
        self.builder.position_at_end(go);
        Ok(())
    }
}
