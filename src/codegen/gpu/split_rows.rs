//! Row reductions split across blocks (`rows`): when rows are long and
//! fewer than the blocks the GPU holds, each row is cut into chunks of a
//! block each, and a row with several reductions one after another runs
//! as one launch of the row kernel per reduction (a stage).
//!
//! In: a row-reduction kernel whose group statements are bindings and
//! top-level reductions (`split_stages`), or a single reduction last in the
//! body. Out: in stage `s` every block runs its row's statements, loads the
//! results of reductions `k < s` that stage `k`'s launch left in the
//! buffer (leaving the row when a reduction did not finish: it failed, and
//! recorded the row's first error), folds its chunk of reduction `s` and
//! stores the block's partial; the row's last block (a counter per stage
//! and row) combines the partials in chunk order, and keeps the result for
//! the later stages, or, in the last stage, binds it and runs the rest of
//! the body. So a non-commutative operator keeps its order and each
//! reduction sees the earlier ones' whole rows.
//!
//! Errors: every stage keys a row's checks as one unsplit run would, and
//! every stage records them under the first stage's `seq` (kept in the
//! buffer), so the error record keeps the first in sequential order
//! whichever stage met it.
//!
//! The buffer, in 8-byte cells: the chunks per row, the stage, the first
//! stage's `seq`; a counter per stage and row; `F` cells per row and chunk
//! for the partials (`F`: the widest reduction's fields, reused by every
//! stage); `F` cells per row for each reduction but the last, its result.

use super::group::RowGroup;
use crate::codegen::emit::{Frame, Gen, Res};
use crate::codegen::runtime::RuntimeFn;
use crate::core::ir::{Type, VarId};
use crate::loopy::ir::{LoopNest, Parallelism, Stmt};
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};

/// Cells before the counters: the chunks per row, the stage, the `seq`.
const HEAD: i64 = 3;
const STAGE_CELL: i64 = 1;
const SEQ_CELL: i64 = 2;

/// A split row's buffer and place, for the kernel's reductions.
#[derive(Clone)]
pub(crate) struct SplitRows<'ctx> {
    /// Whether the launch splits rows (an `i1`).
    pub(crate) on: IntValue<'ctx>,
    pub(crate) stage: IntValue<'ctx>,
    pub(crate) buffer: PointerValue<'ctx>,
    pub(crate) rows: IntValue<'ctx>,
    /// The row's reductions, by index variable, one stage each.
    pub(crate) stages: Vec<VarId>,
    /// Cells per partial and result.
    pub(crate) fields: usize,
    pub(crate) row: IntValue<'ctx>,
    pub(crate) chunk: IntValue<'ctx>,
    pub(crate) chunks: IntValue<'ctx>,
}

/// The reductions a row of `nest` splits into stages, in order, when its
/// rows may be split across blocks: a single reduction last in the body
/// without group scratch, or several at the top level of the body with
/// only bindings and checks between them.
pub(super) fn split_stages(nest: &LoopNest, at: usize) -> Option<Vec<VarId>> {
    let prefix = super::group::group_prefix(nest)?;
    // A chunk's partial would meet an operator that can fail in the row's
    // last block, after other rows' errors were recorded.
    let mut all = Vec::new();
    super::group::group_reductions(&nest.body[..=at], &mut all);
    if all.iter().any(|r| super::reduce::fallible(r)) {
        return None;
    }
    let stage = |l: &LoopNest| {
        matches!(l.par, Parallelism::Reduce | Parallelism::Map) || super::split_scan::splits(l)
    };
    if !prefix.scratch.is_empty() || !matches!(&nest.body[at], Stmt::Loop(l) if stage(l)) {
        return None;
    }
    let mut reds = Vec::new();
    super::group::group_reductions(&nest.body[..=at], &mut reds);
    // A scan takes two stages: its chunks' totals, then the chunks again
    // from their carry-ins (`split_scan`).
    let mut ids = Vec::new();
    for r in &reds {
        ids.push(r.index.id);
        if r.par == Parallelism::Scan {
            ids.push(r.index.id);
        }
    }
    if reds.len() == 1 {
        return Some(ids);
    }
    let top_level = nest.body[..at].iter().all(|s| match s {
        Stmt::Loop(l) => stage(l),
        s => super::rows::binds_only(std::slice::from_ref(s)),
    });
    (top_level && !prefix.dynamic).then_some(ids)
}

impl<'ctx> Gen<'ctx, '_> {
    fn split_cell(&self, parts: &[(IntValue<'ctx>, i64)], at: i64) -> Res<IntValue<'ctx>> {
        let mut sum = self.const_i64(at);
        for (v, scale) in parts {
            let term = self.builder.build_int_mul(*v, self.const_i64(*scale), "")?;
            sum = self.builder.build_int_add(sum, term, "")?;
        }
        Ok(sum)
    }

    /// Stage `k`'s counter of the row.
    pub(super) fn split_counter(&self, sp: &SplitRows<'ctx>, k: usize) -> Res<PointerValue<'ctx>> {
        let at = self
            .builder
            .build_int_mul(sp.rows, self.const_i64(k as i64), "")?;
        let at = self.builder.build_int_add(at, sp.row, "")?;
        let at = self.builder.build_int_add(at, self.const_i64(HEAD), "")?;
        self.cell_ptr(sp.buffer, at)
    }

    /// The first cell of the row's partial of chunk `c`.
    pub(super) fn split_partial_cell(
        &self,
        sp: &SplitRows<'ctx>,
        c: IntValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        let k = sp.stages.len() as i64;
        let f = sp.fields as i64;
        let at = self.builder.build_int_mul(sp.row, sp.chunks, "")?;
        let at = self.builder.build_int_add(at, c, "")?;
        self.split_cell(&[(sp.rows, k), (at, f)], HEAD)
    }

    /// The first cell of reduction `k`'s result for the row.
    fn split_result_cell(&self, sp: &SplitRows<'ctx>, k: usize) -> Res<IntValue<'ctx>> {
        let stages = sp.stages.len() as i64;
        let f = sp.fields as i64;
        let partials = self.builder.build_int_mul(sp.rows, sp.chunks, "")?;
        let at = self
            .builder
            .build_int_mul(sp.rows, self.const_i64(k as i64), "")?;
        let at = self.builder.build_int_add(at, sp.row, "")?;
        self.split_cell(&[(sp.rows, stages), (partials, f), (at, f)], HEAD)
    }

    /// Kernel side: the stage of a split launch, and the error `seq` every
    /// stage records under (the first stage keeps its own in the buffer;
    /// the later ones take it from there), set as the kernel's.
    pub(super) fn split_stage_and_seq(
        &mut self,
        fr: &Frame<'ctx>,
        split: IntValue<'ctx>,
        buffer: PointerValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        let i64t = self.i64();
        let zero = self.const_i64(0);
        let stage_slot = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(stage_slot, zero)?;
        self.when(fr.func, split, |gen| {
            let p = gen.cell_ptr(buffer, gen.const_i64(STAGE_CELL))?;
            let s = gen.builder.build_load(i64t, p, "")?;
            gen.builder.build_store(stage_slot, s)?;
            Ok(())
        })?;
        let stage = self
            .builder
            .build_load(i64t, stage_slot, "stage")?
            .into_int_value();
        let Some(k) = self.device.as_ref().and_then(|d| d.current) else {
            return Ok(stage);
        };
        let seq_slot = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(seq_slot, k.seq)?;
        let first = self
            .builder
            .build_int_compare(IntPredicate::EQ, stage, zero, "")?;
        let later = self.builder.build_not(first, "")?;
        let later = self.builder.build_and(split, later, "")?;
        self.when(fr.func, later, |gen| {
            let p = gen.cell_ptr(buffer, gen.const_i64(SEQ_CELL))?;
            let s = gen.builder.build_load(i64t, p, "")?;
            gen.builder.build_store(seq_slot, s)?;
            Ok(())
        })?;
        let ctaid = self.sreg("ctaid.x")?;
        let tid = self.sreg("tid.x")?;
        let origin = self.builder.build_or(ctaid, tid, "")?;
        let origin = self
            .builder
            .build_int_compare(IntPredicate::EQ, origin, zero, "")?;
        let keeper = self.builder.build_and(split, first, "")?;
        let keeper = self.builder.build_and(keeper, origin, "")?;
        self.when(fr.func, keeper, |gen| {
            let p = gen.cell_ptr(buffer, gen.const_i64(SEQ_CELL))?;
            gen.builder.build_store(p, k.seq)?;
            Ok(())
        })?;
        let seq = self
            .builder
            .build_load(i64t, seq_slot, "seq")?
            .into_int_value();
        if let Some(cur) = self.device.as_mut().and_then(|d| d.current.as_mut()) {
            cur.seq = seq;
        }
        Ok(stage)
    }

    /// Counts the block's chunk of the row in stage `k` (after a GPU
    /// fence, so that what the block wrote is seen first); returns whether
    /// it was the row's last, which then sees every chunk's writes (a
    /// fence after the count).
    pub(super) fn split_count(
        &mut self,
        fr: &Frame<'ctx>,
        sp: &SplitRows<'ctx>,
        k: usize,
    ) -> Res<IntValue<'ctx>> {
        let one = self.const_i64(1);
        self.fence_gpu()?;
        let counter = self.split_counter(sp, k)?;
        let before = self.builder.build_atomicrmw(
            AtomicRMWBinOp::Add,
            counter,
            one,
            AtomicOrdering::Monotonic,
        )?;
        let last_one = self.builder.build_int_sub(sp.chunks, one, "")?;
        let last = self
            .builder
            .build_int_compare(IntPredicate::EQ, before, last_one, "last")?;
        self.when(fr.func, last, |gen| gen.fence_gpu())?;
        Ok(last)
    }

    /// A split row's block partial of stage `k` (in the lead thread's
    /// `slots`) stored in the buffer; returns whether this block was the
    /// row's last, in which case `slots` hold the row's partials combined
    /// in chunk order.
    pub(super) fn split_partial(
        &mut self,
        fr: &mut Frame<'ctx>,
        inner: &LoopNest,
        slots: &super::loops::Slots<'ctx>,
        sp: &SplitRows<'ctx>,
        k: usize,
    ) -> Res<IntValue<'ctx>> {
        let one = self.const_i64(1);
        let types: Vec<Type> = inner.carried().map(|c| c.var.ty).collect();
        let mine = self.load_slots(inner, slots)?;
        let at = self.split_partial_cell(sp, sp.chunk)?;
        self.store_cells_with(sp.buffer, at, &mine, true)?;
        let last = self.split_count(fr, sp, k)?;
        let sp2 = sp.clone();
        self.when(fr.func, last, |gen| {
            let at = gen.split_partial_cell(&sp2, gen.const_i64(0))?;
            let firsts = gen.read_cells_with(sp2.buffer, at, &types, true)?;
            for (v, ps) in firsts.iter().zip(slots) {
                for (f, (slot, _)) in gen.fields(v).iter().zip(ps) {
                    gen.builder.build_store(*slot, *f)?;
                }
            }
            gen.kernel_loop(fr, one, sp2.chunks, one, &mut |gen, fr, c| {
                let at = gen.split_partial_cell(&sp2, c)?;
                let other = gen.read_cells_with(sp2.buffer, at, &types, true)?;
                let acc = gen.load_slots(inner, slots)?;
                gen.apply_reductions(fr, inner, slots, &acc, &other)
            })
        })?;
        Ok(last)
    }

    /// Reduction or map `k` of a row that may be split into stages (a
    /// group nest, `group_reduce`): unsplit, the group's fold (a
    /// reduction's combined and broadcast); in a later stage, a
    /// reduction's result from stage `k`'s launch (the row is left if
    /// stage `k` did not finish it); in stage `k`, the block's chunk (a
    /// reduction's partial, the row's last block keeping the result), and
    /// the row ends there, but for a map in the last stage, whose row's
    /// last block runs the rest of the body.
    pub(crate) fn split_group_reduce(
        &mut self,
        fr: &mut Frame<'ctx>,
        red: &LoopNest,
        g: RowGroup<'ctx>,
        sp: SplitRows<'ctx>,
        k: usize,
    ) -> Res<()> {
        let zero = self.const_i64(0);
        let one = self.const_i64(1);
        let map = red.par == Parallelism::Map;
        let key = self.key_slot()?;
        let c = self
            .builder
            .build_load(self.i64(), key, "cursor")?
            .into_int_value();
        let types: Vec<Type> = red.carried().map(|c| c.var.ty).collect();
        let kth = self.const_i64(k as i64);
        let past = self
            .builder
            .build_int_compare(IntPredicate::SGT, sp.stage, kth, "")?;
        let past = self.builder.build_and(sp.on, past, "past")?;
        let fold_bb = self.ctx.append_basic_block(fr.func, "split.fold");
        let load_bb = self.ctx.append_basic_block(fr.func, "split.load");
        let merge = self.ctx.append_basic_block(fr.func, "split.merge");
        self.builder
            .build_conditional_branch(past, load_bb, fold_bb)?;
        self.builder.position_at_end(fold_bb);
        // A map writes memory the group sees after it, and may overwrite
        // what an earlier fold read.
        if map {
            self.group_sync(fr, g.per_block)?;
        }
        let (slots, failed, _) = self.row_fold(
            fr,
            red,
            c,
            (sp.chunk, sp.chunks),
            (g.rank, g.size),
            g.row_end,
        )?;
        if map {
            self.group_sync(fr, g.per_block)?;
        }
        self.leave_if_any(fr, g.per_block, failed, g.row_end)?;
        if !map {
            self.warp_combine(fr, red, &slots, g.lane)?;
            self.when(fr.func, g.per_block, |gen| {
                gen.block_combine(fr, red, &slots, (g.tid, g.lane, g.ntid), None)
            })?;
        }
        let partial_bb = self.ctx.append_basic_block(fr.func, "split.partial");
        let whole_bb = self.ctx.append_basic_block(fr.func, "split.whole");
        self.builder
            .build_conditional_branch(sp.on, partial_bb, whole_bb)?;
        self.builder.position_at_end(partial_bb);
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, g.rank, zero, "")?;
        if map {
            self.split_chunk_written(fr, &g, &sp, k, merge)?;
        } else {
            self.when(fr.func, lead, |gen| {
                let last = gen.split_partial(fr, red, &slots, &sp, k)?;
                gen.when(fr.func, last, |gen| {
                    let vals = gen.load_slots(red, &slots)?;
                    let at = gen.split_result_cell(&sp, k)?;
                    gen.store_cells(sp.buffer, at, &vals)
                })
            })?;
            self.builder.build_unconditional_branch(g.row_end)?;
        }
        self.builder.position_at_end(whole_bb);
        if !map {
            self.broadcast(fr, red, &slots, g.per_block, g.tid)?;
        }
        self.builder.build_unconditional_branch(merge)?;
        // A later stage: stage `k` finished the row when every chunk
        // counted (a chunk that failed left before counting).
        self.builder.position_at_end(load_bb);
        self.split_finished_or_leave(fr, &sp, k, g.row_end)?;
        let at = self.split_result_cell(&sp, k)?;
        let vals = self.read_cells(sp.buffer, at, &types)?;
        for (v, ps) in vals.iter().zip(&slots) {
            for (f, (slot, _)) in self.fields(v).iter().zip(ps) {
                self.builder.build_store(*slot, *f)?;
            }
        }
        self.builder.build_unconditional_branch(merge)?;
        self.builder.position_at_end(merge);
        // The fold left its thread's last key in the slot (`group_reduce`).
        if g.dynamic {
            self.builder.build_store(key, c)?;
        } else {
            let w = self.int(fr, &red.width)?;
            let w = self.max0(w)?;
            let after = self.builder.build_int_add(c, w, "")?;
            let after = self.builder.build_int_add(after, one, "")?;
            self.builder.build_store(key, after)?;
        }
        if map {
            return Ok(());
        }
        let finals = self.load_slots(red, &slots)?;
        self.bind_finals(fr, red, finals)
    }

    /// A block's chunk of stage `k` is written (a map's, or a scan's from
    /// its carry-in): the group's first thread counts it; in the last
    /// stage the row's last block goes on to `merge` (its first thread
    /// runs the rest of the body), every other thread to the row's end.
    pub(super) fn split_chunk_written(
        &mut self,
        fr: &mut Frame<'ctx>,
        g: &RowGroup<'ctx>,
        sp: &SplitRows<'ctx>,
        k: usize,
        merge: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> Res<()> {
        let lead =
            self.builder
                .build_int_compare(IntPredicate::EQ, g.rank, self.const_i64(0), "")?;
        let bool_t = self.ctx.bool_type();
        let goes_on = self.entry_alloca(fr.func, bool_t.into())?;
        self.builder.build_store(goes_on, bool_t.const_zero())?;
        let final_stage = k + 1 == sp.stages.len();
        self.when(fr.func, lead, |gen| {
            let last = gen.split_count(fr, sp, k)?;
            if final_stage {
                gen.builder.build_store(goes_on, last)?;
            }
            Ok(())
        })?;
        let on = self
            .builder
            .build_load(bool_t, goes_on, "")?
            .into_int_value();
        self.builder
            .build_conditional_branch(on, merge, g.row_end)?;
        Ok(())
    }

    /// A later stage: stage `k` finished the row when every chunk counted
    /// (a chunk that failed left before counting); otherwise the row is
    /// left. Goes on in a new block.
    pub(super) fn split_finished_or_leave(
        &mut self,
        fr: &Frame<'ctx>,
        sp: &SplitRows<'ctx>,
        k: usize,
        row_end: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> Res<()> {
        let counter = self.split_counter(sp, k)?;
        let counted = self
            .builder
            .build_load(self.i64(), counter, "")?
            .into_int_value();
        let done = self
            .builder
            .build_int_compare(IntPredicate::EQ, counted, sp.chunks, "")?;
        let ok_bb = self.ctx.append_basic_block(fr.func, "split.done");
        self.builder
            .build_conditional_branch(done, ok_bb, row_end)?;
        self.builder.position_at_end(ok_bb);
        Ok(())
    }

    /// Host side: the split form's buffer for `rows` rows of `chunks`
    /// chunks and `stages` stages of `fields` cells, cleared, with the
    /// chunks per row in cell 0.
    pub(super) fn split_buffer(
        &mut self,
        rows: IntValue<'ctx>,
        chunks: IntValue<'ctx>,
        stages: usize,
        fields: usize,
    ) -> Res<IntValue<'ctx>> {
        let s = stages as i64;
        let f = fields as i64;
        let partials = self.builder.build_int_mul(rows, chunks, "")?;
        let cells = self.split_cell(&[(rows, s + (s - 1) * f), (partials, f)], HEAD)?;
        let bytes = self.builder.build_int_mul(cells, self.const_i64(8), "")?;
        let alloc = self.runtime(RuntimeFn::GpuAlloc);
        let p = self.call_int(alloc, &[bytes.into()])?;
        let fill = self.runtime(RuntimeFn::GpuFill32);
        let words = self.split_cell(&[(rows, 2 * s)], 2 * HEAD)?;
        let i32t = self.ctx.i32_type();
        self.builder.build_call(
            fill,
            &[p.into(), i32t.const_zero().into(), words.into()],
            "",
        )?;
        let c32 = self.builder.build_int_truncate(chunks, i32t, "")?;
        self.builder
            .build_call(fill, &[p.into(), c32.into(), self.const_i64(1).into()], "")?;
        Ok(p)
    }

    /// Host side: the launches of stages `1..stages` of a split row kernel
    /// (stage 0's is the unsplit launch's), each after setting the stage.
    pub(super) fn split_later_stages(
        &mut self,
        buffer: IntValue<'ctx>,
        stages: usize,
        launch: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let fill = self.runtime(RuntimeFn::GpuFill32);
        let i32t = self.ctx.i32_type();
        let cell = self
            .builder
            .build_int_add(buffer, self.const_i64(8 * STAGE_CELL), "")?;
        for s in 1..stages {
            let v: BasicValueEnum = i32t.const_int(s as u64, false).into();
            self.builder.build_call(
                fill,
                &[cell.into(), v.into(), self.const_i64(1).into()],
                "",
            )?;
            launch(self)?;
        }
        Ok(())
    }
}
