//! A scan over the row in a row group's statements (`group`): `let ys =
//! scan op ne row in reduce ... ys`, a scan into a scratch array, with or
//! without reductions beside it in the same nest.
//!
//! In: a scan nest of the group prefix (scalar carried values, operators
//! that cannot fail, a look-back plan's totals slice) and the group.
//! Out: the group's threads run it together as the look-back kernel runs a
//! tile (`scan`): thread `t` of the group takes a contiguous slice of the
//! row, runs the totals slice over it from the initial values, the warp
//! scans the totals by `shfl.sync.up` (left = earlier), a block's warps
//! publish their totals in shared memory and each thread combines those
//! of the warps before its own in order; each thread then runs the body
//! over its slice from its carry-in (writing the scan's output, folding
//! the reductions beside it from their neutral elements), and the
//! reductions are combined and broadcast as a group reduction's are.
//!
//! Errors: a check that fails in the totals slice only flags the thread
//! (the flags travel with the totals); a thread whose carry-in is flagged
//! skips the body, and the first flagged thread's carry-in is right, so
//! its body meets the first failing check in sequential order and records
//! it with the reduction's keys (iteration `j` at `c + 1 + j`). The group
//! then votes and leaves the row, as after any fold. The carry-in starts
//! as a copy of the first totals before the thread, so the operator meets
//! the neutral element only with the row's first element, as in the
//! interpreter.

use super::group::RowGroup;
use super::loops::Key;
use super::reduce::Occupancy;
use super::scan::reduction_values;
use super::split_rows::SplitRows;
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::Type;
use crate::loopy::chunk::infallible;
use crate::loopy::ir::{LoopNest, ParPlan};
use crate::types::ScalarType;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

impl<'ctx> Gen<'ctx, '_> {
    /// The scan `nest` of a row group's statements, run by the group
    /// (module doc); every thread binds the reductions' results.
    pub(crate) fn group_scan(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        g: RowGroup<'ctx>,
    ) -> Res<()> {
        if let Some(sp) = g.split.clone() {
            if let Some(k) = sp.stages.iter().position(|v| *v == nest.index.id) {
                return self.split_group_scan(fr, nest, g, sp, k);
            }
        }
        self.group_scan_part(fr, nest, g, None)
    }

    /// `group_scan` over the group's chunk of the row: with `part`, the
    /// split row's stage that scans the chunk from the totals of the
    /// chunks before it (`split_scan`), which counts the chunk after it.
    pub(super) fn group_scan_part(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        g: RowGroup<'ctx>,
        part: Option<(&SplitRows<'ctx>, usize)>,
    ) -> Res<()> {
        let Some(ParPlan::TwoPhase { totals }) = nest.plan.as_ref().map(|p| &p.strategy) else {
            return Err(CodegenError::Internal("a row scan without totals".into()));
        };
        let totals = totals.clone();
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let mut flagged = types.clone();
        flagged.push(Type::Scalar(ScalarType::I64));
        let skip = reduction_values(nest);
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let i64t = self.i64();
        let key = self.key_slot()?;
        let cursor = self
            .builder
            .build_load(i64t, key, "cursor")?
            .into_int_value();
        let mut inits = Vec::new();
        let mut init_vals = Vec::new();
        for c in nest.carried() {
            let v = self.val(fr, &c.init)?;
            inits.push(self.fields(&v));
            init_vals.push(v);
        }
        let width = self.int(fr, &nest.width)?;
        let width = self.max0(width)?;
        let (lo, hi) = match part {
            Some((sp, _)) => self.chunk_slice(width, (sp.chunk, sp.chunks), (g.rank, g.size))?,
            None => self.slice_of(width, g.rank, g.size)?,
        };
        // The scan writes memory the group reads after it.
        self.group_sync(fr, g.per_block)?;
        // Inside the passes every thread writes at its own iterations
        // (`group_write` is for the statements around them).
        let group = self.device.as_mut().and_then(|d| d.rows.take());

        // 1. The totals of the thread's slice; a failing check flags them.
        let mine = self.carried_slots(fr, &inits)?;
        let bad = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(bad, zero)?;
        self.set_flag(Some(bad));
        let totalled = self.leaving_on_fail(fr, "row.totals.done", |gen, fr| {
            gen.carried_loop_over(fr, nest, &totals, &mine, (lo, hi, one), false, skip)
        });
        self.set_flag(None);
        totalled?;

        // An operator that can fail is applied only by threads with
        // iterations (their slices come first in thread order, so every
        // slice they combine on the left has iterations too); a failure
        // there is keyed past the scan's iterations and flags the value.
        let past = self.key_past(cursor, width)?;
        let occupied = if nest.operators().all(|o| infallible(&o.body)) {
            self.ctx.bool_type().const_all_ones()
        } else {
            self.builder.build_store(key, past)?;
            self.builder
                .build_int_compare(IntPredicate::SLT, lo, hi, "occupied")?
        };

        // 2. The warp's inclusive scan of them: lane l combines lane l -
        // off's (left) with its own.
        let i32t = self.ctx.i32_type();
        for off in [1u64, 2, 4, 8, 16] {
            let by = i32t.const_int(off, false);
            let vals = self.load_slots(nest, &mine)?;
            let other = self.shuffled(&vals, &types, skip, by)?;
            let flag = self.builder.build_load(i64t, bad, "")?;
            let other_bad = self
                .shfl(flag, by, super::reduce::Shuffle::Up)?
                .into_int_value();
            let far = self.builder.build_int_compare(
                IntPredicate::UGE,
                g.lane,
                self.const_i64(off as i64),
                "",
            )?;
            let far = self.builder.build_and(far, occupied, "")?;
            self.when(fr.func, far, |gen| {
                gen.combine_guarded(fr, nest, &mine, &other, &vals, bad)?;
                gen.or_flag(bad, other_bad)
            })?;
        }

        // 3. The carry-in: the initial values, then (a block) the warps'
        // totals before this thread's warp, then the lanes' before it.
        // The first totals are copied into it, not combined with the
        // initial values: the interpreter applies the operator to the
        // neutral element only with the row's first element, which thread
        // 0's totals already hold (an operator failing on the neutral
        // element and a later total must not fail here).
        let carry = self.carried_slots(fr, &inits)?;
        let carry_bad = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(carry_bad, zero)?;
        let bool_t = self.ctx.bool_type();
        let started = self.entry_alloca(fr.func, bool_t.into())?;
        self.builder.build_store(started, bool_t.const_zero())?;
        let vals = self.load_slots(nest, &mine)?;
        let i32one = i32t.const_int(1, false);
        let before = self.shuffled(&vals, &types, skip, i32one)?;
        let flag = self.builder.build_load(i64t, bad, "")?;
        let before_bad = self
            .shfl(flag, i32one, super::reduce::Shuffle::Up)?
            .into_int_value();
        if let Some((sp, _)) = part {
            self.split_scan_carry(fr, nest, sp, (&carry, carry_bad, started))?;
        }
        self.when(fr.func, g.per_block, |gen| {
            let slots = ((&mine, bad), (&carry, carry_bad, started));
            gen.warps_before(fr, nest, &flagged, slots, &g, occupied)
        })?;
        let later_lane = self
            .builder
            .build_int_compare(IntPredicate::UGT, g.lane, zero, "")?;
        let later_lane = self.builder.build_and(later_lane, occupied, "")?;
        self.when(fr.func, later_lane, |gen| {
            gen.carry_in(fr, nest, (&carry, carry_bad, started), &before)?;
            gen.or_flag(carry_bad, before_bad)
        })?;

        // 4. The body from the carry-in (the reductions from their
        // neutral elements), unless the carry-in is not known; a failing
        // check records its error and flags the thread.
        self.set_slots(&carry, &init_vals[..skip], 0)?;
        let failed = self.entry_alloca(fr.func, bool_t.into())?;
        self.builder.build_store(failed, bool_t.const_zero())?;
        let known = self.builder.build_int_compare(
            IntPredicate::EQ,
            self.builder
                .build_load(i64t, carry_bad, "")?
                .into_int_value(),
            zero,
            "",
        )?;
        // A flagged carry-in means an error was recorded (by an earlier
        // thread's body or a failing operator): the group leaves the row.
        let unknown = self.builder.build_not(known, "")?;
        self.builder.build_store(failed, unknown)?;
        let after = self.builder.build_int_add(cursor, one, "")?;
        let body = nest.body.clone();
        self.when(fr.func, known, |gen| {
            let flagged_at = gen.ctx.append_basic_block(fr.func, "row.scan.failed");
            let done = gen.ctx.append_basic_block(fr.func, "row.scan.done");
            gen.set_on_fail(Some(flagged_at));
            let ran = gen.carried_loop_keyed(
                fr,
                nest,
                &body,
                &carry,
                (lo, hi, one),
                Key::After(after),
                0,
            );
            gen.set_on_fail(None);
            ran?;
            gen.builder.build_unconditional_branch(done)?;
            gen.builder.position_at_end(flagged_at);
            gen.builder.build_store(failed, bool_t.const_all_ones())?;
            gen.builder.build_unconditional_branch(done)?;
            gen.builder.position_at_end(done);
            Ok(())
        })?;
        if let Some(d) = self.device.as_mut() {
            d.rows = group;
        }
        self.set_on_fail(Some(g.row_end));
        self.group_sync(fr, g.per_block)?;
        self.leave_if_any(fr, g.per_block, failed, g.row_end)?;
        if let Some((sp, stage)) = part {
            // A split row's chunk is scanned: count it.
            let count = self.ctx.append_basic_block(fr.func, "split.scan.count");
            let counted = self.ctx.append_basic_block(fr.func, "split.scan.counted");
            self.builder
                .build_conditional_branch(sp.on, count, counted)?;
            self.builder.position_at_end(count);
            self.split_chunk_written(fr, &g, sp, stage, counted)?;
            self.builder.position_at_end(counted);
        }
        // 5. The reductions beside the scan, as a group reduction's.
        if skip > 0 {
            let per = self.ceil_div(width, g.size)?;
            let occ = Occupancy {
                base: zero,
                per,
                width,
            };
            self.group_combine(fr, nest, &carry, g.threads(), (occ, past), g.row_end)?;
            self.broadcast(fr, nest, &carry, g.per_block, g.tid)?;
        }
        // The scan left its thread's last key in the slot (`group_reduce`).
        self.builder
            .build_store(key, if g.dynamic { cursor } else { past })?;
        let finals = self.load_slots(nest, &carry)?;
        self.bind_finals(fr, nest, finals)
    }

    /// Adds the totals `other` (of threads before this one) to the
    /// carry-in: the first totals (`started` unset) are copied into the
    /// scans' slots, later ones combined after what it holds.
    pub(super) fn carry_in(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        (carry, carry_bad, started): (
            &super::loops::SlotVec<'ctx>,
            PointerValue<'ctx>,
            PointerValue<'ctx>,
        ),
        other: &[Val<'ctx>],
    ) -> Res<()> {
        let bool_t = self.ctx.bool_type();
        let has = self
            .builder
            .build_load(bool_t, started, "started")?
            .into_int_value();
        let first = self.builder.build_not(has, "")?;
        self.when(fr.func, has, |gen| {
            let acc = gen.load_slots(nest, carry)?;
            gen.combine_guarded(fr, nest, carry, &acc, other, carry_bad)
        })?;
        self.when(fr.func, first, |gen| {
            gen.set_slots(carry, other, reduction_values(nest))
        })?;
        self.builder.build_store(started, bool_t.const_all_ones())?;
        Ok(())
    }

    /// A block group's carry-in from the warps before this thread's: each
    /// warp's last lane stores its inclusive totals and flag in its cell
    /// of shared memory; after a barrier every thread combines the cells
    /// of the warps before its own, in order, into `carry` (and their
    /// flags into `carry_bad`); a barrier ends the reads.
    fn warps_before(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        flagged: &[Type],
        ((mine, bad), carry_in): (
            (&super::loops::SlotVec<'ctx>, PointerValue<'ctx>),
            (
                &super::loops::SlotVec<'ctx>,
                PointerValue<'ctx>,
                PointerValue<'ctx>,
            ),
        ),
        g: &RowGroup<'ctx>,
        occupied: IntValue<'ctx>,
    ) -> Res<()> {
        let fields = self.fields_of(nest);
        let n = flagged.len() - 1;
        let i64t = self.i64();
        let shared = self.shared_base()?;
        let cell = |gen: &Self, w: IntValue<'ctx>| -> Res<IntValue<'ctx>> {
            Ok(gen
                .builder
                .build_int_mul(w, gen.const_i64(fields as i64 + 1), "")?)
        };
        let warp = self
            .builder
            .build_right_shift(g.tid, self.const_i64(5), false, "warp")?;
        let last =
            self.builder
                .build_int_compare(IntPredicate::EQ, g.lane, self.const_i64(31), "")?;
        self.when(fr.func, last, |gen| {
            let mut vals = gen.load_slots(nest, mine)?;
            let flag = gen.builder.build_load(i64t, bad, "")?;
            vals.push(Val::Scalar(flag, ScalarType::I64));
            let at = cell(gen, warp)?;
            gen.shared_store(shared, at, &vals, fields + 1)
        })?;
        self.barrier()?;
        let w_slot = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(w_slot, self.const_i64(0))?;
        let head = self.ctx.append_basic_block(fr.func, "row.warps.next");
        let step = self.ctx.append_basic_block(fr.func, "row.warps.step");
        let done = self.ctx.append_basic_block(fr.func, "row.warps.done");
        self.builder.build_unconditional_branch(head)?;
        self.builder.position_at_end(head);
        let w = self.builder.build_load(i64t, w_slot, "w")?.into_int_value();
        let more = self
            .builder
            .build_int_compare(IntPredicate::ULT, w, warp, "")?;
        let more = self.builder.build_and(more, occupied, "")?;
        self.builder.build_conditional_branch(more, step, done)?;
        self.builder.position_at_end(step);
        let at = cell(self, w)?;
        let vals = self.shared_read(shared, at, flagged, fields + 1)?;
        self.carry_in(fr, nest, carry_in, &vals[..n])?;
        self.or_flag(carry_in.1, self.fields(&vals[n])[0].into_int_value())?;
        let next = self.builder.build_int_add(w, self.const_i64(1), "")?;
        self.builder.build_store(w_slot, next)?;
        self.builder.build_unconditional_branch(head)?;
        self.builder.position_at_end(done);
        self.barrier()
    }
}
