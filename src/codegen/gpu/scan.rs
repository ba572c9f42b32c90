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
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};

/// The reductions' carried values, first among a nest's.
pub(super) fn reduction_values(nest: &LoopNest) -> usize {
    nest.reductions.iter().map(|r| r.carried.len()).sum()
}

/// The most threads a block has: the prefix block's buffers hold a cell
/// per field and thread for this many.
pub(super) const MAX_BLOCK: usize = 1024;

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
        let skip = reduction_values(nest);
        self.carried_loop_over(fr, nest, totals, &slots, lo, hi, true, skip)?;
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

    /// Scan pass 2 as one block of `B` threads (operators that cannot
    /// fail): thread `j` folds the totals of slices `[j*c, (j+1)*c)` in
    /// order; the block scans these `B` aggregates by doubling steps
    /// (Hillis and Steele) in two global buffers after the partials,
    /// a barrier between steps (which orders global memory within a
    /// block), so each thread's carry-in is the operators over the
    /// aggregates before it, in order; then each thread replaces its
    /// slices' totals by their carry-ins. The last thread writes the final
    /// values; the first failed slice is an atomic minimum.
    pub(super) fn block_prefix_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        self.return_if_failed(fr, kp)?;
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let fields = self.fields_of(nest);
        let per = fields + 1;
        let threads = kp[WIDTH].into_int_value();
        let partials = kp[PARTIALS].into_pointer_value();
        let out = kp[OUT].into_pointer_value();
        let key = self.key_slot()?;
        self.builder.build_store(key, threads)?;
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let per_v = self.const_i64(per as i64);
        let fields_v = self.const_i64(fields as i64);
        let j = self.sreg("tid.x")?;
        let b = self.sreg("ntid.x")?;
        // This thread's slices.
        let up = self.builder.build_int_add(threads, b, "")?;
        let up = self.builder.build_int_sub(up, one, "")?;
        let chunk = self.builder.build_int_signed_div(up, b, "chunk")?;
        let lo = self.builder.build_int_mul(j, chunk, "")?;
        let lo = self.min(lo, threads)?;
        let hi = self.builder.build_int_add(lo, chunk, "")?;
        let hi = self.min(hi, threads)?;
        // 1. The aggregate of its slices' totals, and its first failed one.
        let inits = self.inits(nest, kp)?;
        let slots = self.carried_slots(fr, &inits)?;
        let failed = self.entry_alloca(fr.func, self.i64().into())?;
        self.builder.build_store(failed, threads)?;
        self.kernel_loop(fr, lo, hi, one, &mut |gen, fr, t| {
            let at = gen.builder.build_int_mul(t, per_v, "")?;
            let total = gen.read_cells(partials, at, &types)?;
            let flag_at = gen.builder.build_int_add(at, fields_v, "")?;
            let flag = gen
                .builder
                .build_load(gen.i64(), gen.cell_ptr(partials, flag_at)?, "")?
                .into_int_value();
            let first = gen
                .builder
                .build_load(gen.i64(), failed, "")?
                .into_int_value();
            let take = gen.builder.build_and(
                gen.builder
                    .build_int_compare(IntPredicate::NE, flag, zero, "")?,
                gen.builder
                    .build_int_compare(IntPredicate::EQ, first, threads, "")?,
                "",
            )?;
            let new = gen.builder.build_select(take, t, first, "")?;
            gen.builder.build_store(failed, new)?;
            let acc = gen.load_slots(nest, &slots)?;
            gen.apply_operators(fr, nest, &slots, &acc, &total)
        })?;
        // The buffers after the partials: `src` and `dst` take turns.
        let aux = self.builder.build_int_mul(threads, per_v, "")?;
        let span = self.const_i64((MAX_BLOCK * fields) as i64);
        let aux2 = self.builder.build_int_add(aux, span, "")?;
        let src = self.entry_alloca(fr.func, self.i64().into())?;
        let dst = self.entry_alloca(fr.func, self.i64().into())?;
        self.builder.build_store(src, aux)?;
        self.builder.build_store(dst, aux2)?;
        let mine = self.builder.build_int_mul(j, fields_v, "")?;
        let agg = self.load_slots(nest, &slots)?;
        let at = self.builder.build_int_add(aux, mine, "")?;
        self.store_cells(partials, at, &agg)?;
        let limit = self.cell_ptr(out, fields_v)?;
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, j, zero, "")?;
        self.when(fr.func, lead, |gen| {
            gen.builder.build_store(limit, threads)?;
            Ok(())
        })?;
        self.barrier()?;
        let first = self
            .builder
            .build_load(self.i64(), failed, "")?
            .into_int_value();
        let any = self
            .builder
            .build_int_compare(IntPredicate::SLT, first, threads, "")?;
        self.when(fr.func, any, |gen| {
            gen.builder.build_atomicrmw(
                AtomicRMWBinOp::Min,
                limit,
                first,
                AtomicOrdering::Monotonic,
            )?;
            Ok(())
        })?;
        // 2. Doubling steps: after the step of distance d, a thread's cell
        // holds the operators over the (up to) 2d aggregates ending at it.
        self.doubling_steps(fr, b, &mut |gen, fr, d| {
            let s_at = gen.builder.build_load(gen.i64(), src, "")?.into_int_value();
            let d_at = gen.builder.build_load(gen.i64(), dst, "")?.into_int_value();
            let right_at = gen.builder.build_int_add(s_at, mine, "")?;
            let right = gen.read_cells(partials, right_at, &types)?;
            let far = gen.builder.build_int_compare(IntPredicate::SGE, j, d, "")?;
            let right_fields: Vec<Vec<BasicValueEnum<'ctx>>> =
                right.iter().map(|v| gen.fields(v)).collect();
            let cell = gen.carried_slots(fr, &right_fields)?;
            gen.when(fr.func, far, |gen| {
                let left_j = gen.builder.build_int_sub(j, d, "")?;
                let left_at = gen.builder.build_int_mul(left_j, fields_v, "")?;
                let left_at = gen.builder.build_int_add(s_at, left_at, "")?;
                let left = gen.read_cells(partials, left_at, &types)?;
                gen.apply_operators(fr, nest, &cell, &left, &right)
            })?;
            let combined = gen.load_slots(nest, &cell)?;
            let to = gen.builder.build_int_add(d_at, mine, "")?;
            gen.store_cells(partials, to, &combined)?;
            gen.builder.build_store(src, d_at)?;
            gen.builder.build_store(dst, s_at)?;
            Ok(())
        })?;
        // 3. The carry-in of each slice: thread j starts from the
        // aggregate of the threads before it (the initial values for 0).
        let s_at = self
            .builder
            .build_load(self.i64(), src, "")?
            .into_int_value();
        let before = self.builder.build_int_sub(j, one, "")?;
        let before = self.builder.build_int_mul(before, fields_v, "")?;
        let before = self.builder.build_int_add(s_at, before, "")?;
        let inits = self.inits(nest, kp)?;
        let carry = self.carried_slots(fr, &inits)?;
        let later = self
            .builder
            .build_int_compare(IntPredicate::SGT, j, zero, "")?;
        self.when(fr.func, later, |gen| {
            let vals = gen.read_cells(partials, before, &types)?;
            for (v, ps) in vals.iter().zip(&carry) {
                for (f, (slot, _)) in gen.fields(v).iter().zip(ps) {
                    gen.builder.build_store(*slot, *f)?;
                }
            }
            Ok(())
        })?;
        self.kernel_loop(fr, lo, hi, one, &mut |gen, fr, t| {
            let at = gen.builder.build_int_mul(t, per_v, "")?;
            let total = gen.read_cells(partials, at, &types)?;
            let acc = gen.load_slots(nest, &carry)?;
            gen.store_cells(partials, at, &acc)?;
            gen.apply_operators(fr, nest, &carry, &acc, &total)
        })?;
        let last = self.builder.build_int_sub(b, one, "")?;
        let is_last = self
            .builder
            .build_int_compare(IntPredicate::EQ, j, last, "")?;
        self.when(fr.func, is_last, |gen| {
            let finals = gen.load_slots(nest, &carry)?;
            gen.store_cells(out, zero, &finals)
        })
    }

    /// Runs `then` where `cond` holds, in the current function.
    pub(super) fn when(
        &mut self,
        func: inkwell::values::FunctionValue<'ctx>,
        cond: IntValue<'ctx>,
        then: impl FnOnce(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let yes = self.ctx.append_basic_block(func, "k.then");
        let join = self.ctx.append_basic_block(func, "k.join");
        self.builder.build_conditional_branch(cond, yes, join)?;
        self.builder.position_at_end(yes);
        then(self)?;
        self.builder.build_unconditional_branch(join)?;
        self.builder.position_at_end(join);
        Ok(())
    }

    /// `for (d = 1; d < b; d *= 2) { each(d); barrier }`: the doubling
    /// steps of a block's scan or tree (`b`, the block size, is the same
    /// for every thread, so all reach each barrier).
    pub(super) fn doubling_steps(
        &mut self,
        fr: &mut Frame<'ctx>,
        b: IntValue<'ctx>,
        each: &mut dyn FnMut(&mut Self, &mut Frame<'ctx>, IntValue<'ctx>) -> Res<()>,
    ) -> Res<()> {
        let d_slot = self.entry_alloca(fr.func, self.i64().into())?;
        self.builder.build_store(d_slot, self.const_i64(1))?;
        let header = self.ctx.append_basic_block(fr.func, "steps.next");
        let step = self.ctx.append_basic_block(fr.func, "steps.run");
        let done = self.ctx.append_basic_block(fr.func, "steps.done");
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let d = self
            .builder
            .build_load(self.i64(), d_slot, "d")?
            .into_int_value();
        let more = self
            .builder
            .build_int_compare(IntPredicate::SLT, d, b, "")?;
        self.builder.build_conditional_branch(more, step, done)?;
        self.builder.position_at_end(step);
        each(self, fr, d)?;
        self.barrier()?;
        let twice = self.builder.build_int_add(d, d, "")?;
        self.builder.build_store(d_slot, twice)?;
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(done);
        Ok(())
    }

    /// `bar.sync 0`: every thread of the block waits here, and the memory
    /// accesses before it are seen by the block's threads after it.
    pub(super) fn barrier(&self) -> Res<()> {
        let name = if self.emulated()? {
            "arr_emu_barrier"
        } else {
            "llvm.nvvm.barrier0"
        };
        let f = self.declare(name, None, &[]);
        self.builder.build_call(f, &[], "")?;
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
        let mut k = reduction_values(nest);
        for s in &nest.scans {
            let n = s.carried.len();
            self.apply_operator(fr, &s.op, &slots[k..k + n], &left[k..], &right[k..])?;
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
        self.carried_loop(fr, nest, &slots, lo, hi, true)?;
        if reduction_values(nest) == 0 {
            return Ok(());
        }
        // The slice's reductions (from their neutral elements, the carry-
        // ins' reduction fields) to its partial result after the buffers.
        let (_, threads) = self.thread_range()?;
        let fields = self.fields_of(nest);
        let base = self
            .builder
            .build_int_mul(threads, self.const_i64(per as i64), "")?;
        let aux = self.const_i64((2 * MAX_BLOCK * fields) as i64);
        let base = self.builder.build_int_add(base, aux, "")?;
        let mine = self
            .builder
            .build_int_mul(gid, self.const_i64(fields as i64), "")?;
        let at = self.builder.build_int_add(base, mine, "")?;
        let finals = self.load_slots(nest, &slots)?;
        self.store_cells(kp[PARTIALS].into_pointer_value(), at, &finals)
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
