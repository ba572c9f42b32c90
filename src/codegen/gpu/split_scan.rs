//! A row's scan split across blocks (`split_rows`): when rows are long
//! and fewer than the blocks the GPU holds, a scan of the row's group
//! statements (`group_scan`) takes two stages, a launch each.
//!
//! In: a splittable scan (`splits`: scalar carried values, no reductions
//! beside it, operators that cannot fail, a totals slice) at stage `k` of
//! a split row. Out: in stage `k` each block runs the totals slice over
//! its chunk of the row (contiguous slices in thread order), the group
//! combines them in order (shuffles, then the warps' cells) and its first
//! thread stores the chunk's total and whether a check flagged it; in
//! stage `k + 1` each block combines the totals of the chunks before its
//! own, in chunk order, into its carry-in and runs the group scan over
//! its chunk from there (`group_scan`), then counts the chunk as a map's
//! stage does. Later stages leave a row whose scan did not count every
//! chunk.
//!
//! Errors: a check that fails in the totals only flags the chunk; a block
//! whose carry-in is flagged skips its body, and the first flagged chunk's
//! carry-in is right, so its body meets the first failing check in
//! sequential order and records it (the totals never hold a check that
//! depends on the carried value: `loopy::par::totals_body`).

use super::group::RowGroup;
use super::split_rows::SplitRows;
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::Type;
use crate::loopy::chunk::infallible;
use crate::loopy::ir::{LoopNest, ParPlan, Parallelism, Reduction};
use crate::types::ScalarType;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

/// Whether the row scan `l` may be split across blocks.
pub(super) fn splits(l: &LoopNest) -> bool {
    l.par == Parallelism::Scan
        && l.reductions.is_empty()
        && l.compactions.is_empty()
        && l.operators().all(|o| infallible(&o.body))
        && matches!(
            l.plan.as_ref().map(|p| &p.strategy),
            Some(ParPlan::TwoPhase { .. })
        )
}

/// The scan `nest` as a reduction of its carried values by its operators,
/// for the group's combining trees (`warp_combine`, `block_combine`).
fn as_reduction(nest: &LoopNest) -> LoopNest {
    let mut view = nest.clone();
    let scans = std::mem::take(&mut view.scans);
    view.reductions = scans
        .into_iter()
        .map(|s| Reduction {
            results: s.carried.iter().map(|c| c.var.clone()).collect(),
            carried: s.carried,
            op: s.op,
        })
        .collect();
    view
}

impl<'ctx> Gen<'ctx, '_> {
    /// The scan `nest` of a row group whose row may be split (module doc):
    /// stage `k` totals the block's chunk, a later stage than `k + 1`
    /// only checks that the scan finished the row, and otherwise (stage
    /// `k + 1`, or a row not split) the group scans its chunk.
    pub(crate) fn split_group_scan(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        g: RowGroup<'ctx>,
        sp: SplitRows<'ctx>,
        k: usize,
    ) -> Res<()> {
        let key = self.key_slot()?;
        let cursor = self
            .builder
            .build_load(self.i64(), key, "cursor")?
            .into_int_value();
        let totals_at = self.const_i64(k as i64);
        let totals = self
            .builder
            .build_int_compare(IntPredicate::EQ, sp.stage, totals_at, "")?;
        let totals = self.builder.build_and(sp.on, totals, "")?;
        let fixed_at = self.const_i64(k as i64 + 1);
        let past = self
            .builder
            .build_int_compare(IntPredicate::SGT, sp.stage, fixed_at, "")?;
        let past = self.builder.build_and(sp.on, past, "")?;
        let totals_bb = self.ctx.append_basic_block(fr.func, "split.scan.totals");
        let other_bb = self.ctx.append_basic_block(fr.func, "split.scan.other");
        let past_bb = self.ctx.append_basic_block(fr.func, "split.scan.past");
        let run_bb = self.ctx.append_basic_block(fr.func, "split.scan.run");
        let merge = self.ctx.append_basic_block(fr.func, "split.scan.merge");
        self.builder
            .build_conditional_branch(totals, totals_bb, other_bb)?;
        self.builder.position_at_end(totals_bb);
        self.split_scan_totals(fr, nest, &g, &sp)?;
        self.builder.build_unconditional_branch(g.row_end)?;
        self.builder.position_at_end(other_bb);
        self.builder
            .build_conditional_branch(past, past_bb, run_bb)?;
        self.builder.position_at_end(past_bb);
        self.split_finished_or_leave(fr, &sp, k + 1, g.row_end)?;
        let width = self.int(fr, &nest.width)?;
        let after = self.key_past(cursor, width)?;
        self.builder
            .build_store(key, if g.dynamic { cursor } else { after })?;
        self.builder.build_unconditional_branch(merge)?;
        self.builder.position_at_end(run_bb);
        self.group_scan_part(fr, nest, g, Some((&sp, k + 1)))?;
        self.builder.build_unconditional_branch(merge)?;
        self.builder.position_at_end(merge);
        Ok(())
    }

    /// The iterations `[lo, hi)` of thread `rank` of `size` in chunk
    /// `chunk` of `chunks` of a row of `width`: contiguous slices in
    /// thread order.
    pub(super) fn chunk_slice(
        &self,
        width: IntValue<'ctx>,
        (chunk, chunks): (IntValue<'ctx>, IntValue<'ctx>),
        (rank, size): (IntValue<'ctx>, IntValue<'ctx>),
    ) -> Res<(IntValue<'ctx>, IntValue<'ctx>)> {
        let (clo, chi) = self.slice_of(width, chunk, chunks)?;
        let part = self.builder.build_int_sub(chi, clo, "")?;
        let (a, b) = self.slice_of(part, rank, size)?;
        Ok((
            self.builder.build_int_add(clo, a, "lo")?,
            self.builder.build_int_add(clo, b, "hi")?,
        ))
    }

    /// Stage `k`: the block's chunk totalled by the group, its first
    /// thread storing the total and its flag in the chunk's partial.
    fn split_scan_totals(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        g: &RowGroup<'ctx>,
        sp: &SplitRows<'ctx>,
    ) -> Res<()> {
        let Some(ParPlan::TwoPhase { totals }) = nest.plan.as_ref().map(|p| &p.strategy) else {
            return Err(CodegenError::Internal("a row scan without totals".into()));
        };
        let totals = totals.clone();
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let i64t = self.i64();
        let mut inits = Vec::new();
        for c in nest.carried() {
            inits.push(self.fields(&self.val(fr, &c.init)?));
        }
        let width = self.int(fr, &nest.width)?;
        let width = self.max0(width)?;
        let (lo, hi) = self.chunk_slice(width, (sp.chunk, sp.chunks), (g.rank, g.size))?;
        let group = self.device.as_mut().and_then(|d| d.rows.take());
        let mine = self.carried_slots(fr, &inits)?;
        let bad = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(bad, zero)?;
        self.set_flag(Some(bad));
        let totalled = self.leaving_on_fail(fr, "split.totals.done", |gen, fr| {
            gen.carried_loop_over(fr, nest, &totals, &mine, (lo, hi, one), false, 0)
        });
        self.set_flag(None);
        if let Some(d) = self.device.as_mut() {
            d.rows = group;
        }
        totalled?;
        let view = as_reduction(nest);
        self.warp_combine(fr, &view, &mine, g.lane)?;
        self.when(fr.func, g.per_block, |gen| {
            gen.block_combine(fr, &view, &mine, (g.tid, g.lane, g.ntid), None)
        })?;
        let flag = self.builder.build_load(i64t, bad, "")?.into_int_value();
        let flagged = self
            .builder
            .build_int_compare(IntPredicate::NE, flag, zero, "")?;
        let any = self.group_any(fr, g.per_block, flagged)?;
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, g.rank, zero, "")?;
        self.when(fr.func, lead, |gen| {
            let mut vals = gen.load_slots(&view, &mine)?;
            let flag = gen.builder.build_int_z_extend(any, i64t, "")?;
            vals.push(Val::Scalar(flag.into(), ScalarType::I64));
            let at = gen.split_partial_cell(sp, sp.chunk)?;
            gen.store_cells(sp.buffer, at, &vals)
        })
    }

    /// Stage `k + 1`: the totals of the chunks before the block's, in
    /// chunk order, into the carry-in (the first copied, as `carry_in`
    /// does) and their flags into `carry_bad`.
    pub(super) fn split_scan_carry(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        sp: &SplitRows<'ctx>,
        carry: (
            &super::loops::SlotVec<'ctx>,
            PointerValue<'ctx>,
            PointerValue<'ctx>,
        ),
    ) -> Res<()> {
        let mut flagged: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let n = flagged.len();
        flagged.push(Type::Scalar(ScalarType::I64));
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        self.kernel_loop(fr, zero, sp.chunk, one, &mut |gen, fr, c| {
            let at = gen.split_partial_cell(sp, c)?;
            let vals = gen.read_cells(sp.buffer, at, &flagged)?;
            gen.carry_in(fr, nest, carry, &vals[..n])?;
            gen.or_flag(carry.1, gen.fields(&vals[n])[0].into_int_value())
        })
    }
}
