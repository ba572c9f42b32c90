//! Row reductions: a launched map whose iteration reduces a row (`map
//! (\row -> reduce op ne (map f row)) xss`, the segmented reduction of a
//! regular nesting) runs the row's reduction on a group of threads instead
//! of one thread: a warp per row when rows are short or many, a block per
//! row when they are long and few, chosen by host code from the shape at
//! run time (`ROW_LONG`, `ROW_FEW`), or, when long rows are fewer than
//! the blocks the GPU holds, each row split into chunks of a block each
//! (`split_partial`: the row's last block combines their partials in
//! order). One kernel does all three; its `partials` parameter, unused by
//! maps, is null for a warp per row, 1 for a block per row, and the split
//! form's buffer otherwise.
//!
//! In a row, every thread of the group runs the statements before the
//! reduction (they only bind values: `rows_shape`), folds its share of the
//! row's iterations (strided by the group's size when every operator is
//! commutative, so that the lanes of a warp read neighbours; otherwise a
//! contiguous slice in thread order, which keeps the order), the lanes of
//! a warp combine their values by shuffles, left operand first, and, for
//! a block, the warps' values are combined in shared memory as in a block
//! tree (`reduce`). The group's first thread binds the results and runs the
//! statements after the reduction (the writes of the row's results).
//!
//! Errors keep their sequential order: row `r` of a reduction of width `W`
//! numbers its checks `r * (W + 2)` before the reduction, `r * (W + 2) +
//! 1 + j` in iteration `j`, and `r * (W + 2) + W + 1` after it. A check
//! that fails in the fold leaves the fold, and one before or after it
//! leaves the row, so the group still reaches its shuffles and barriers
//! (the statements before the reduction are the same for every thread of
//! the group, so they fail together). Operators that can fail keep the map
//! form (a row per thread), as block trees do. Reductions inside branches
//! and sequential loops, scratch arrays a reduction fills, maps of the
//! row (into scratch, or the output's row) and scans of it (`group_scan`)
//! are the group's statements (`group`); rows whose reductions and maps
//! are at the top of the body are split across blocks, a launch per
//! reduction or map (`split_rows`).

use super::abi::{Grid, Params, PARTIALS, WIDTH};
use super::loops::Key;
use super::reduce::{commutative, fallible, Occupancy, Shuffle};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, Type, Var, VarId};
use crate::loopy::ir::{LoopNest, Parallelism, Stmt};
use crate::types::ScalarType;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;

/// Rows at least this long get a block each when they are few.
pub(super) const ROW_LONG: i64 = 1024;
/// Fewer rows than this are few: a GPU holds about this many warps at once
/// (an H100: 132 multiprocessors of 64 warps), so a warp per row would
/// leave it partly idle while each warp's lanes fold long slices.
pub(super) const ROW_FEW: i64 = 8192;

/// A thread's place in its row group: whether the group is a block, the
/// thread's rank in it, its index in the block, its lane and the block's
/// size.
#[derive(Clone, Copy)]
pub(super) struct GroupThreads<'ctx> {
    pub(super) per_block: IntValue<'ctx>,
    pub(super) rank: IntValue<'ctx>,
    pub(super) tid: IntValue<'ctx>,
    pub(super) lane: IntValue<'ctx>,
    pub(super) ntid: IntValue<'ctx>,
}

/// Where a map's iteration reduces its row: the position of the last
/// statement of the map's body that holds a reduction (`group` says what
/// may come before it).
pub(super) fn rows_shape(nest: &LoopNest) -> Option<usize> {
    super::group::group_prefix(nest).map(|p| p.at)
}

/// Whether a block only binds values and checks them (every thread of a
/// group may run it).
pub(super) fn binds_only(block: &[Stmt]) -> bool {
    block.iter().all(|s| match s {
        Stmt::If {
            then_block,
            else_block,
            ..
        } => binds_only(then_block) && binds_only(else_block),
        _ => {
            s.is_check()
                || matches!(
                    s,
                    Stmt::Let { .. } | Stmt::Read { .. } | Stmt::Row { .. } | Stmt::View { .. }
                )
        }
    })
}

impl<'ctx> Gen<'ctx, '_> {
    /// The row-reduction kernel of `nest`, whose last statement holding a
    /// reduction is statement `at` of its body. The statements before it
    /// (with reductions inside branches and loops, and `at` itself unless
    /// it is a reduction) run on the whole group, every reduction's result
    /// broadcast (`group`); a reduction at `at` is combined into the
    /// group's first thread only, and may be split across blocks when it
    /// is the only one. The first thread runs the rest of the body.
    pub(super) fn rows_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        at: usize,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let super::group::Prefix {
            scratch,
            aliases,
            dynamic,
            ..
        } = super::group::group_prefix(nest)
            .ok_or_else(|| CodegenError::Internal("a row reduction without its shape".into()))?;
        let last = match &nest.body[at] {
            Stmt::Loop(inner) if inner.par == Parallelism::Reduce => Some(inner),
            _ => None,
        };
        let grouped_end = if last.is_some() { at } else { at + 1 };
        let mut earlier = Vec::new();
        super::group::group_reductions(&nest.body[..grouped_end], &mut earlier);
        let reductions: Vec<VarId> = earlier.iter().map(|n| n.index.id).collect();
        let pre = nest.body[..grouped_end].to_vec();
        let post = nest.body[at + 1..].to_vec();
        let rows = kp[WIDTH].into_int_value();
        let i64t = self.i64();
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let buffer = kp[PARTIALS].into_pointer_value();
        let marker = self.builder.build_ptr_to_int(buffer, i64t, "")?;
        let per_block = self
            .builder
            .build_int_compare(IntPredicate::NE, marker, zero, "block")?;
        // Rows split across blocks: `partials` is their buffer.
        let split = self
            .builder
            .build_int_compare(IntPredicate::UGT, marker, one, "split")?;
        // Kernels whose rows cannot split never take the split path.
        let stages = super::split_rows::split_stages(nest, at);
        let split = if stages.is_some() {
            split
        } else {
            self.ctx.bool_type().const_zero()
        };
        let stage = self.split_stage_and_seq(fr, split, buffer)?;
        let chunks_slot = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(chunks_slot, one)?;
        self.when(fr.func, split, |gen| {
            let c = gen.builder.build_load(i64t, buffer, "")?;
            gen.builder.build_store(chunks_slot, c)?;
            Ok(())
        })?;
        let chunks = self
            .builder
            .build_load(i64t, chunks_slot, "chunks")?
            .into_int_value();
        let tid = self.sreg("tid.x")?;
        let ntid = self.sreg("ntid.x")?;
        let ctaid = self.sreg("ctaid.x")?;
        let nctaid = self.sreg("nctaid.x")?;
        let five = self.const_i64(5);
        let lane = self.builder.build_and(tid, self.const_i64(31), "lane")?;
        let base = self.builder.build_int_mul(ctaid, ntid, "")?;
        let gid = self.builder.build_int_add(base, tid, "")?;
        let gwarp = self.builder.build_right_shift(gid, five, false, "")?;
        let threads = self.builder.build_int_mul(nctaid, ntid, "")?;
        let warps_all = self.builder.build_right_shift(threads, five, false, "")?;
        let select = |gen: &Self, a: IntValue<'ctx>, b: IntValue<'ctx>| -> Res<IntValue<'ctx>> {
            Ok(gen
                .builder
                .build_select(per_block, a, b, "")?
                .into_int_value())
        };
        // The thread's rank in its group, the group's size, its first
        // item (a row, or a chunk of a split row) and the stride over them.
        let t = select(self, tid, lane)?;
        let size = select(self, ntid, self.const_i64(32))?;
        let first = select(self, ctaid, gwarp)?;
        let stride = select(self, nctaid, warps_all)?;
        let items = self.builder.build_int_mul(rows, chunks, "items")?;
        // A row's keys: the group statements' (`group`), then the last
        // reduction's iterations and the statements after it; with
        // dynamic keys, the base and the widest reduction's iterations.
        let mut keys = if dynamic {
            let mut all = Vec::new();
            super::group::group_reductions(&nest.body[..=at], &mut all);
            let mut widest = zero;
            for red in all {
                let w = self.int(fr, &red.width)?;
                let wider = self
                    .builder
                    .build_int_compare(IntPredicate::SGT, w, widest, "")?;
                widest = self
                    .builder
                    .build_select(wider, w, widest, "")?
                    .into_int_value();
            }
            // The operator's failures of a fold take the key past its
            // iterations (`key_past`), inside the row's keys.
            self.builder.build_int_add(widest, one, "")?
        } else {
            self.group_span(fr, &nest.body[..=at])?
        };
        keys = self.builder.build_int_add(keys, one, "keys")?;
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, t, zero, "")?;
        // The group's scratch arrays: one buffer per group for all its rows.
        let saved = std::mem::take(&mut self.thread_buffers);
        let ready = self.group_buffers(fr, &pre, &scratch, per_block, lead, tid)?;
        // A loop's array state and an in-place update name a group buffer
        // too (freeing one of them frees nothing: the group's first thread
        // frees the buffers after its rows).
        let mut shared = scratch.clone();
        for (alias, root) in &aliases {
            shared.push(*alias);
            if let Some(p) = self.thread_buffers.get(root).copied() {
                self.thread_buffers.insert(*alias, p);
            }
        }
        self.stack_scratch(fr, &post)?;
        // The split form's cells per partial, as `launch_rows` sizes them.
        let fields = earlier_or_last_fields(self, nest, at);
        let split_of = |r, chunk| super::split_rows::SplitRows {
            on: split,
            stage,
            buffer,
            rows,
            stages: stages.clone().unwrap_or_default(),
            fields,
            row: r,
            chunk,
            chunks,
        };
        let group_of = |row_end, sp| super::group::RowGroup {
            reductions: reductions.clone(),
            per_block,
            tid,
            lane,
            ntid,
            rank: t,
            size,
            row_end,
            scratch: !scratch.is_empty(),
            dynamic,
            shared: shared.clone(),
            split: sp,
        };
        let shared_scratch = !scratch.is_empty();
        self.when(fr.func, ready, |gen| {
            gen.kernel_loop(fr, first, items, stride, &mut |gen, fr, item| {
                let r = gen.builder.build_int_signed_div(item, chunks, "row")?;
                let chunk = gen.builder.build_int_signed_rem(item, chunks, "")?;
                let row_end = gen.ctx.append_basic_block(fr.func, "row.end");
                let key_base = gen.builder.build_int_mul(r, keys, "")?;
                let key = gen.key_slot()?;
                gen.builder.build_store(key, key_base)?;
                fr.vals
                    .insert(nest.index.id, Val::Scalar(r.into(), ScalarType::I64));
                gen.set_on_fail(Some(row_end));
                if let Some(d) = gen.device.as_mut() {
                    d.rows = Some(group_of(row_end, Some(split_of(r, chunk))));
                }
                let ran = gen.block(fr, &pre);
                if let Some(d) = gen.device.as_mut() {
                    d.rows = None;
                }
                ran?;
                match last {
                    Some(inner) => gen.last_reduction(
                        fr,
                        inner,
                        &post,
                        (per_block, shared_scratch, dynamic),
                        &split_of(r, chunk),
                        (t, size, tid, lane, ntid),
                        row_end,
                    )?,
                    None => gen.when(fr.func, lead, |gen| gen.block(fr, &post))?,
                }
                gen.builder.build_unconditional_branch(row_end)?;
                gen.builder.position_at_end(row_end);
                if shared_scratch {
                    // No thread folds the next row into the scratch while
                    // the first still reads this one's.
                    gen.group_sync(fr, per_block)?;
                }
                Ok(())
            })
        })?;
        self.set_on_fail(None);
        // The group's buffers go back once all its threads are done.
        if shared_scratch {
            self.group_sync(fr, per_block)?;
            let ptrs: Vec<_> = scratch
                .iter()
                .filter_map(|v| self.thread_buffers.get(v).copied())
                .collect();
            self.when(fr.func, lead, |gen| {
                for &p in &ptrs {
                    let made = gen.builder.build_is_not_null(p, "")?;
                    gen.when(fr.func, made, |gen| gen.device_free(p))?;
                }
                Ok(())
            })?;
        }
        self.thread_buffers = saved;
        Ok(())
    }

    /// The map's last reduction `inner` (statement `at`): folded and
    /// combined into the group's first thread (with the other blocks'
    /// chunks of a split row), which binds its results and runs `post`.
    #[allow(clippy::too_many_arguments)]
    fn last_reduction(
        &mut self,
        fr: &mut Frame<'ctx>,
        inner: &LoopNest,
        post: &[Stmt],
        (per_block, shared_scratch, dynamic): (IntValue<'ctx>, bool, bool),
        sp: &super::split_rows::SplitRows<'ctx>,
        (t, size, tid, lane, ntid): (
            IntValue<'ctx>,
            IntValue<'ctx>,
            IntValue<'ctx>,
            IntValue<'ctx>,
            IntValue<'ctx>,
        ),
        row_end: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> Res<()> {
        let zero = self.const_i64(0);
        let one = self.const_i64(1);
        let key = self.key_slot()?;
        let seg_key = self
            .builder
            .build_load(self.i64(), key, "cursor")?
            .into_int_value();
        if shared_scratch {
            self.group_sync(fr, per_block)?;
        }
        let (slots, failed, occ) = self.row_fold(
            fr,
            inner,
            seg_key,
            (sp.chunk, sp.chunks),
            (t, size),
            row_end,
        )?;
        if shared_scratch {
            self.group_sync(fr, per_block)?;
        }
        self.leave_if_any(fr, per_block, failed, row_end)?;
        let w = self.int(fr, &inner.width)?;
        let past = self.key_past(seg_key, w)?;
        let threads = GroupThreads {
            per_block,
            rank: t,
            tid,
            lane,
            ntid,
        };
        self.group_combine(fr, inner, &slots, threads, (occ, past), row_end)?;
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, t, zero, "")?;
        let post = post.to_vec();
        self.when(fr.func, lead, |gen| {
            // A split row: the block's partial, and the last of the
            // row's blocks combines them in order.
            let done = gen.ctx.append_basic_block(fr.func, "row.done");
            let finish = gen.ctx.append_basic_block(fr.func, "row.finish");
            let shared = gen.ctx.append_basic_block(fr.func, "row.shared");
            gen.builder
                .build_conditional_branch(sp.on, shared, finish)?;
            gen.builder.position_at_end(shared);
            let last_stage = sp.stages.len().saturating_sub(1);
            let last = gen.split_partial(fr, inner, &slots, sp, last_stage)?;
            gen.builder.build_conditional_branch(last, finish, done)?;
            gen.builder.position_at_end(finish);
            // The fold left its thread's last key in the slot.
            if dynamic {
                gen.builder.build_store(key, seg_key)?;
            } else {
                let after = gen.builder.build_int_add(seg_key, w, "")?;
                let after = gen.builder.build_int_add(after, one, "")?;
                gen.builder.build_store(key, after)?;
            }
            let finals = gen.load_slots(inner, &slots)?;
            gen.bind_finals(fr, inner, finals)?;
            gen.block(fr, &post)?;
            gen.builder.build_unconditional_branch(done)?;
            gen.builder.position_at_end(done);
            Ok(())
        })
    }

    /// One buffer per group for each scratch array of the group statements
    /// (`scratch`, made by `pre`'s `alloc thread`s), from the device heap
    /// by the group's first thread and passed to the others, in
    /// `thread_buffers`; returns whether all were made (the same in every
    /// thread of the group; the first records a full heap).
    fn group_buffers(
        &mut self,
        fr: &Frame<'ctx>,
        pre: &[Stmt],
        scratch: &[VarId],
        per_block: IntValue<'ctx>,
        lead: IntValue<'ctx>,
        tid: IntValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        let mut ready = self.ctx.bool_type().const_int(1, false);
        let mut allocs = Vec::new();
        scratch_allocs(pre, scratch, &mut allocs);
        if allocs.is_empty() {
            return Ok(ready);
        }
        let i64t = self.i64();
        let zero = self.const_i64(0);
        for (var, shape) in allocs {
            let n = self.int(fr, &shape[0])?;
            let bytes =
                self.builder
                    .build_int_mul(n, self.const_i64(var.ty.elem().bytes() as i64), "")?;
            let slot = self.entry_alloca(fr.func, i64t.into())?;
            self.builder.build_store(slot, zero)?;
            // A failed `malloc` records the error and goes on at `got`,
            // leaving the slot null.
            let got = self.ctx.append_basic_block(fr.func, "group.scratch");
            self.set_on_fail(Some(got));
            // A negative size is the row's own error (its `check_size`
            // comes before any use of the buffer): no buffer, and the
            // rows still run to report it.
            let negative = self
                .builder
                .build_int_compare(IntPredicate::SLT, n, zero, "")?;
            let sized = self.builder.build_not(negative, "")?;
            let make = self.builder.build_and(lead, sized, "")?;
            self.when(fr.func, make, |gen| {
                let p = gen.device_malloc(bytes)?;
                let p = gen.builder.build_ptr_to_int(p, i64t, "")?;
                gen.builder.build_store(slot, p)?;
                Ok(())
            })?;
            self.builder.build_unconditional_branch(got)?;
            self.builder.position_at_end(got);
            self.set_on_fail(None);
            let p = self.group_value(fr, slot, per_block, tid)?;
            let ok = self
                .builder
                .build_int_compare(IntPredicate::NE, p, zero, "")?;
            let ok = self.builder.build_or(ok, negative, "")?;
            ready = self.builder.build_and(ready, ok, "")?;
            let ptr = self.builder.build_int_to_ptr(p, self.ptr(), "")?;
            self.thread_buffers.insert(var.id, ptr);
        }
        Ok(ready)
    }

    /// The `i64` in the group's first thread's `slot`, in every thread of
    /// the group: a shuffle from lane 0 for a warp, a shared cell between
    /// barriers for a block.
    fn group_value(
        &mut self,
        fr: &Frame<'ctx>,
        slot: PointerValue<'ctx>,
        per_block: IntValue<'ctx>,
        tid: IntValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        let i64t = self.i64();
        let zero = self.const_i64(0);
        let out = self.entry_alloca(fr.func, i64t.into())?;
        let per_warp = self.builder.build_not(per_block, "")?;
        self.when(fr.func, per_warp, |gen| {
            let v = gen.builder.build_load(i64t, slot, "")?;
            let lane0 = gen.ctx.i32_type().const_zero();
            let moved = gen.shfl(v, lane0, Shuffle::Idx)?;
            gen.builder.build_store(out, moved)?;
            Ok(())
        })?;
        self.when(fr.func, per_block, |gen| {
            let shared = gen.shared_base()?;
            let lead = gen
                .builder
                .build_int_compare(IntPredicate::EQ, tid, zero, "")?;
            let ty = Type::Scalar(ScalarType::I64);
            gen.when(fr.func, lead, |gen| {
                let v = gen.builder.build_load(i64t, slot, "")?;
                let v = Val::Scalar(v, ScalarType::I64);
                gen.shared_store(shared, zero, &[v], 1)
            })?;
            gen.barrier()?;
            let vals = gen.shared_read(shared, zero, &[ty], 1)?;
            if let Some(v) = vals.first() {
                for f in gen.fields(v) {
                    gen.builder.build_store(out, f)?;
                }
            }
            gen.barrier()
        })?;
        Ok(self.builder.build_load(i64t, out, "")?.into_int_value())
    }

    /// The thread's share of one reduction `red` over its row (of chunk
    /// `chunk` of `chunks`), folded from the neutral element into fresh
    /// slots; iteration `j`'s checks are keyed `seg_key + 1 + j`. A check
    /// that fails leaves the fold only and sets the returned flag (an `i1`
    /// slot), on which the group leaves the row (`leave_if_any`); later
    /// checks leave the row (`row_end`).
    pub(super) fn row_fold(
        &mut self,
        fr: &mut Frame<'ctx>,
        red: &LoopNest,
        seg_key: IntValue<'ctx>,
        (chunk, chunks): (IntValue<'ctx>, IntValue<'ctx>),
        (t, size): (IntValue<'ctx>, IntValue<'ctx>),
        row_end: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> Res<(
        super::loops::SlotVec<'ctx>,
        PointerValue<'ctx>,
        Occupancy<'ctx>,
    )> {
        let one = self.const_i64(1);
        let width = self.int(fr, &red.width)?;
        let (lo, hi) = self.slice_of(width, chunk, chunks)?;
        let mut inits = Vec::new();
        for c in red.carried() {
            inits.push(self.fields(&self.val(fr, &c.init)?));
        }
        let slots = self.carried_slots(fr, &inits)?;
        // Thread `p` of the group folds from `lo + p * per`, if below `hi`.
        let (range, per) = if red.reductions.iter().all(|r| commutative(&r.op)) {
            ((self.builder.build_int_add(lo, t, "")?, hi, size), one)
        } else {
            let part = self.builder.build_int_sub(hi, lo, "")?;
            let (a, b) = self.slice_of(part, t, size)?;
            let a = self.builder.build_int_add(lo, a, "")?;
            let per = self.ceil_div(part, size)?;
            ((a, self.builder.build_int_add(lo, b, "")?, one), per)
        };
        let occupancy = Occupancy {
            base: lo,
            per,
            width: hi,
        };
        let bool_t = self.ctx.bool_type();
        let failed = self.entry_alloca(fr.func, bool_t.into())?;
        self.builder.build_store(failed, bool_t.const_zero())?;
        let folded = self.ctx.append_basic_block(fr.func, "row.folded");
        let flagged = self.ctx.append_basic_block(fr.func, "row.fold.failed");
        self.set_on_fail(Some(flagged));
        let after = self.builder.build_int_add(seg_key, one, "")?;
        let body = red.body.clone();
        // Inside the fold every thread writes the group's arrays at its
        // own iterations (`group_write` is for the statements around it).
        let group = self.device.as_mut().and_then(|d| d.rows.take());
        let folded_ok =
            self.carried_loop_keyed(fr, red, &body, &slots, range, Key::After(after), 0);
        if let Some(d) = self.device.as_mut() {
            d.rows = group;
        }
        folded_ok?;
        self.builder.build_unconditional_branch(folded)?;
        self.builder.position_at_end(flagged);
        self.builder.build_store(failed, bool_t.const_all_ones())?;
        self.builder.build_unconditional_branch(folded)?;
        self.builder.position_at_end(folded);
        self.set_on_fail(Some(row_end));
        Ok((slots, failed, occupancy))
    }

    /// The key past the iterations of a reduction of width `w` whose
    /// iteration `j` is keyed `cursor + 1 + j`.
    pub(super) fn key_past(
        &self,
        cursor: IntValue<'ctx>,
        w: IntValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        let w = self.max0(w)?;
        let past = self.builder.build_int_add(cursor, w, "")?;
        Ok(self
            .builder
            .build_int_add(past, self.const_i64(1), "past")?)
    }

    /// The group's values of `red` (each thread's `slots`) combined in
    /// thread order into its first thread's `slots`: lanes by shuffles, a
    /// block's warps in shared memory. An operator that can fail is applied
    /// only to values of threads that folded an iteration (`occ`: an empty
    /// row applies none, as the interpreter), records its failure keyed
    /// `after` (past the reduction's iterations, whose failures come first
    /// in sequential order), and the group then votes and leaves the row.
    pub(super) fn group_combine(
        &mut self,
        fr: &mut Frame<'ctx>,
        red: &LoopNest,
        slots: &super::loops::Slots<'ctx>,
        g: GroupThreads<'ctx>,
        (occ, after): (Occupancy<'ctx>, IntValue<'ctx>),
        row_end: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> Res<()> {
        if !fallible(red) {
            self.warp_combine(fr, red, slots, g.lane)?;
            return self.when(fr.func, g.per_block, |gen| {
                gen.block_combine(fr, red, slots, (g.tid, g.lane, g.ntid), None)
            });
        }
        let key = self.key_slot()?;
        self.builder.build_store(key, after)?;
        let bool_t = self.ctx.bool_type();
        let failed = self.entry_alloca(fr.func, bool_t.into())?;
        self.builder.build_store(failed, bool_t.const_zero())?;
        let occupied = Some((occ, g.rank));
        self.warp_combine_occupied(fr, red, slots, g.lane, occupied, Some(failed))?;
        self.when(fr.func, g.per_block, |gen| {
            gen.block_combine(fr, red, slots, (g.tid, g.lane, g.ntid), Some((occ, failed)))
        })?;
        self.leave_if_any(fr, g.per_block, failed, row_end)
    }

    /// The group's value of `red` (in its first thread's `slots`) in every
    /// thread's `slots`: a shuffle from lane 0 for a warp, a shared cell
    /// between barriers for a block.
    pub(super) fn broadcast(
        &mut self,
        fr: &mut Frame<'ctx>,
        red: &LoopNest,
        slots: &super::loops::Slots<'ctx>,
        per_block: IntValue<'ctx>,
        tid: IntValue<'ctx>,
    ) -> Res<()> {
        let types: Vec<Type> = red.carried().map(|c| c.var.ty).collect();
        let fields = self.fields_of(red);
        let zero = self.const_i64(0);
        let store = |gen: &Self, vals: &[Val<'ctx>]| -> Res<()> {
            for (v, ps) in vals.iter().zip(slots) {
                for (f, (slot, _)) in gen.fields(v).iter().zip(ps) {
                    gen.builder.build_store(*slot, *f)?;
                }
            }
            Ok(())
        };
        let per_warp = self.builder.build_not(per_block, "")?;
        self.when(fr.func, per_warp, |gen| {
            let vals = gen.load_slots(red, slots)?;
            let lane0 = gen.ctx.i32_type().const_zero();
            let mut moved = Vec::new();
            for (v, t) in vals.iter().zip(&types) {
                let mut fs = Vec::new();
                for f in gen.fields(v) {
                    fs.push(gen.shfl(f, lane0, Shuffle::Idx)?);
                }
                moved.push(gen.val_of_fields(*t, &fs)?);
            }
            store(gen, &moved)
        })?;
        self.when(fr.func, per_block, |gen| {
            let shared = gen.shared_base()?;
            let lead = gen
                .builder
                .build_int_compare(IntPredicate::EQ, tid, zero, "")?;
            gen.when(fr.func, lead, |gen| {
                let vals = gen.load_slots(red, slots)?;
                gen.shared_store(shared, zero, &vals, fields)
            })?;
            gen.barrier()?;
            let vals = gen.shared_read(shared, zero, &types, fields)?;
            store(gen, &vals)?;
            gen.barrier()
        })
    }

    /// A block's warps' values (in their lane 0's `slots`) combined in
    /// shared memory, in order, into thread 0's `slots`; ends with a
    /// barrier, so the next row may write the cells again. With `guard`,
    /// warps that folded nothing are not combined and a failing operator
    /// sets the flag (`group_combine`).
    pub(super) fn block_combine(
        &mut self,
        fr: &mut Frame<'ctx>,
        inner: &LoopNest,
        slots: &super::loops::Slots<'ctx>,
        (tid, lane, ntid): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
        guard: Option<(Occupancy<'ctx>, PointerValue<'ctx>)>,
    ) -> Res<()> {
        let shared = self.shared_base()?;
        let (occ, failed) = (guard.map(|g| g.0), guard.map(|g| g.1));
        let threads = (tid, lane, ntid);
        self.warp_cells_tree_occupied(fr, inner, slots, shared, threads, occ, failed)?;
        let types: Vec<Type> = inner.carried().map(|c| c.var.ty).collect();
        let fields: usize = types.iter().map(|t| self.field_types(*t).len()).sum();
        let zero = self.const_i64(0);
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, tid, zero, "")?;
        self.when(fr.func, lead, |gen| {
            let vals = gen.shared_read(shared, zero, &types, fields)?;
            for (v, ps) in vals.iter().zip(slots) {
                for (f, (slot, _)) in gen.fields(v).iter().zip(ps) {
                    gen.builder.build_store(*slot, *f)?;
                }
            }
            Ok(())
        })?;
        self.barrier()
    }
}

impl<'ctx> Gen<'ctx, '_> {
    /// Host side: the row-reduction kernel `kernel` launched with a block
    /// per row (long rows, few of them) or a warp per row, as the shape says.
    pub(super) fn launch_rows(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        at: usize,
        kernel: usize,
        params: &Params<'ctx>,
        values: &mut [BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let mut reds = Vec::new();
        super::group::group_reductions(&nest.body[..=at], &mut reds);
        let inner = *reds
            .last()
            .ok_or_else(|| CodegenError::Internal("a row reduction without its nest".into()))?;
        // Split rows need their reductions at the top of the body, the
        // last one last, and no scratch shared by a group: one launch per
        // reduction (`split_rows`).
        let stages = super::split_rows::split_stages(nest, at).map_or(0, |s| s.len());
        let rows = values[WIDTH].into_int_value();
        let width = self.int(fr, &inner.width)?;
        let long = self.builder.build_int_compare(
            IntPredicate::SGE,
            width,
            self.const_i64(ROW_LONG),
            "",
        )?;
        let few =
            self.builder
                .build_int_compare(IntPredicate::SLT, rows, self.const_i64(ROW_FEW), "")?;
        let per_block = self.builder.build_and(long, few, "block")?;
        // Split rows: fewer rows than the blocks the GPU holds at once,
        // each cut into chunks of at least ROW_LONG elements, so that
        // every block has a chunk.
        let fields = earlier_or_last_fields(self, nest, at);
        let k = self.ctx.i32_type().const_int(kernel as u64, false);
        let f = self.runtime(RuntimeFn::GpuBlocksShared);
        let most = self.const_i64(1 << 40);
        let per_thread = self.const_i64((fields * 8) as i64);
        let blocks = self.call_int(f, &[k.into(), most.into(), per_thread.into()])?;
        let no_rows =
            self.builder
                .build_int_compare(IntPredicate::SLT, rows, self.const_i64(1), "")?;
        let rows_at_least_1 = self
            .builder
            .build_select(no_rows, self.const_i64(1), rows, "")?
            .into_int_value();
        let per_row = self.ceil_div(blocks, rows_at_least_1)?;
        let fit = self.ceil_div(width, self.const_i64(ROW_LONG))?;
        let chunks = self.min(per_row, fit)?;
        let few_rows = self
            .builder
            .build_int_compare(IntPredicate::SLT, rows, blocks, "")?;
        let several =
            self.builder
                .build_int_compare(IntPredicate::SGE, chunks, self.const_i64(2), "")?;
        let split = self.builder.build_and(long, few_rows, "")?;
        let split = self.builder.build_and(split, several, "")?;
        let splittable = self.ctx.bool_type().const_int((stages > 0) as u64, false);
        let split = self.builder.build_and(split, splittable, "split")?;
        let chunks = self
            .builder
            .build_select(split, chunks, self.const_i64(1), "chunks")?
            .into_int_value();
        // The split form's buffer (`split_rows`).
        let buffer = self.entry_alloca(fr.func, self.i64().into())?;
        self.builder.build_store(buffer, self.const_i64(0))?;
        self.when(fr.func, split, |gen| {
            let p = gen.split_buffer(rows, chunks, stages.max(1), fields)?;
            gen.builder.build_store(buffer, p)?;
            Ok(())
        })?;
        let p = self
            .builder
            .build_load(self.i64(), buffer, "")?
            .into_int_value();
        let marker = self
            .builder
            .build_int_to_ptr(self.const_i64(1), self.ptr(), "")?;
        let null = self.ptr().const_null();
        let split_ptr = self.builder.build_int_to_ptr(p, self.ptr(), "")?;
        let marker = self.builder.build_select(per_block, marker, null, "")?;
        values[PARTIALS] =
            self.builder
                .build_select(split, split_ptr, marker.into_pointer_value(), "")?;
        let grouped = self.builder.build_or(per_block, split, "")?;
        let per_warp = self.builder.build_not(grouped, "")?;
        let values: &[BasicValueEnum<'ctx>] = values;
        self.when(fr.func, grouped, |gen| {
            let work = gen.builder.build_int_mul(rows, chunks, "")?;
            let work = gen.builder.build_int_mul(work, gen.const_i64(1024), "")?;
            let mut launch = |gen: &mut Self| {
                let grid = Grid::Shared(fields * 8);
                gen.launch(kernel, grid, work, &params.types, values, fr)
            };
            launch(gen)?;
            // Each later reduction or map of a split row: one more launch.
            gen.when(fr.func, split, |gen| {
                gen.split_later_stages(p, stages, &mut launch)
            })
        })?;
        self.when(fr.func, split, |gen| {
            let free = gen.runtime(RuntimeFn::GpuFree);
            gen.builder.build_call(free, &[p.into()], "")?;
            Ok(())
        })?;
        self.when(fr.func, per_warp, |gen| {
            let work = gen.builder.build_int_mul(rows, gen.const_i64(32), "")?;
            gen.launch(kernel, Grid::Work, work, &params.types, values, fr)
        })
    }
}

/// The `alloc thread` statements of `block` (through branches and loops)
/// that make the group's scratch arrays.
fn scratch_allocs<'b>(block: &'b [Stmt], scratch: &[VarId], out: &mut Vec<(&'b Var, &'b [Atom])>) {
    for s in block {
        match s {
            Stmt::Alloc { var, shape, .. } if scratch.contains(&var.id) => out.push((var, shape)),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                scratch_allocs(then_block, scratch, out);
                scratch_allocs(else_block, scratch, out);
            }
            Stmt::SeqLoop(l) => scratch_allocs(&l.body, scratch, out),
            _ => {}
        }
    }
}

/// The cells a partial of the row's reductions takes: the widest
/// reduction's fields (kernel and host size the split buffer alike).
fn earlier_or_last_fields(gen: &Gen<'_, '_>, nest: &LoopNest, at: usize) -> usize {
    let mut reds = Vec::new();
    super::group::group_reductions(&nest.body[..=at], &mut reds);
    // A scan's chunk total carries its flag too (`split_scan`).
    reds.iter()
        .map(|r| gen.fields_of(r) + usize::from(r.par == Parallelism::Scan))
        .max()
        .unwrap_or(1)
}
