//! Scans, filters and partitions on the GPU (nests with a look-back plan,
//! scalar carried values and no histogram beside them) in one kernel, by
//! decoupled look-back (Merrill and Garland's single-pass scan):
//!
//! - The iterations are cut into tiles of `B * c` consecutive ones (`B`
//!   threads a block, `c` at most `TILE_ITEMS`); thread `t` of a tile takes
//!   `[t * c, (t + 1) * c)` of it. A block takes tiles in increasing order
//!   from an atomic ticket, so that every tile it waits for was taken
//!   before by a block that is running (forward progress without
//!   assumptions on the order blocks start, on a GPU or the emulator).
//! - Each thread runs the totals slice of the body over its items; the
//!   warp scans its lanes' totals by shuffles, the block the warps' in
//!   shared memory (thread 0, in order), which gives the tile's aggregate.
//! - Thread 0 publishes it in the tile's status (aggregate, or inclusive
//!   prefix for tile 0), walks back over earlier tiles' statuses (spinning
//!   until each has one) combining aggregates until an inclusive prefix,
//!   and publishes the tile's inclusive prefix.
//! - Each thread runs the body over its items from its carry-in (tile
//!   prefix, warps before it, lanes before it). The inputs both passes
//!   read at the iteration index were loaded into shared memory once per
//!   tile, coalesced, before the totals (`stage`).
//!
//! Operators combine a left (earlier) value with a right (later) one,
//! never the other way round, so non-commutative operators keep their
//! order. A check that fails in the totals pass only flags its thread; a
//! flag travels with the prefixes (a flagged tile publishes "failed"), and
//! a thread whose carry-in is not known skips the body. The first flagged
//! thread has a correct carry-in: its body meets the failing check first
//! in sequential order and records it, as the CPU would. An operator that
//! fails while combining records its error with the width as its key (after
//! every iteration's) and flags the result. No thread ever leaves the
//! kernel early, so every thread reaches every barrier and shuffle.

use super::kernel::{OUT, PARTIALS, WIDTH};
use super::reduce::Shuffle;
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::Type;
use crate::loopy::ir::{LoopNest, ParPlan};
use crate::types::ScalarType;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};

/// The reductions' carried values, first among a nest's.
pub(super) fn reduction_values(nest: &LoopNest) -> usize {
    nest.reductions.iter().map(|r| r.carried.len()).sum()
}

/// Items a thread takes of a tile at most (fewer when the width is small,
/// so that small inputs still spread over several tiles).
pub(super) const TILE_ITEMS: i64 = 8;

/// A tile's status: none yet, its aggregate, its inclusive prefix, or
/// failed (a check or an operator failed in it or before it).
const AGGREGATE: u64 = 1;
const INCLUSIVE: u64 = 2;
const FAILED: u64 = 3;

/// Bytes of shared memory the look-back kernel's block uses (8-byte
/// cells): the tile's ticket, its carry-in's failure flag and its carry-in
/// (a cell per field), then for each of at most 32 warps its inclusive
/// prefix and failure flag.
pub(super) fn lookback_shared(fields: usize) -> usize {
    (2 + fields + 32 * (fields + 1)) * 8
}

type Slots<'ctx> = Vec<Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>>;

/// Where thread 0 of a tile finds what it needs (cell indices of the
/// partials buffer: `aggs0` and `incls0` start the aggregates and the
/// inclusive prefixes).
#[derive(Clone, Copy)]
struct TileAt<'ctx> {
    shared: PointerValue<'ctx>,
    warps: IntValue<'ctx>,
    tile: IntValue<'ctx>,
    tiles: IntValue<'ctx>,
    aggs0: IntValue<'ctx>,
    incls0: IntValue<'ctx>,
    partials: PointerValue<'ctx>,
    out: PointerValue<'ctx>,
    /// The tile's first iteration, the items a thread takes and the
    /// width: which warps folded nothing.
    start: IntValue<'ctx>,
    per: IntValue<'ctx>,
    width: IntValue<'ctx>,
}

impl<'ctx> Gen<'ctx, '_> {
    /// The look-back kernel. Its partials buffer (cells): the ticket, a
    /// status per tile (the host clears both), an aggregate per tile, an
    /// inclusive prefix per tile, then with reductions beside the scan a
    /// partial result per thread and tile, in order.
    pub(super) fn lookback_body(
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
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let n = types.len();
        let mut flagged = types.clone();
        flagged.push(Type::Scalar(ScalarType::I64));
        let fields = self.fields_of(nest);
        let f_v = self.const_i64(fields as i64);
        let skip = reduction_values(nest);
        let width = kp[WIDTH].into_int_value();
        let partials = kp[PARTIALS].into_pointer_value();
        let out = kp[OUT].into_pointer_value();
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let c = |gen: &Self, v: u64| gen.i64().const_int(v, false);
        let tid = self.sreg("tid.x")?;
        let b = self.sreg("ntid.x")?;
        let lane = self.builder.build_and(tid, c(self, 31), "lane")?;
        let warp = self
            .builder
            .build_right_shift(tid, c(self, 5), false, "warp")?;
        let up = self.builder.build_int_add(b, c(self, 31), "")?;
        let warps = self
            .builder
            .build_right_shift(up, c(self, 5), false, "warps")?;
        let (_, threads) = self.thread_range()?;
        // Input tiles staged in shared memory, and the items a thread
        // takes: ceil(width / threads), between 1 and `items`
        // (arr_gpu_lookback_tiles computes the same).
        let (staged, items) = self.staging(fr, nest, TILE_ITEMS)?;
        let per = self.ceil_div(width, threads)?;
        let small = self
            .builder
            .build_int_compare(IntPredicate::SLT, per, one, "")?;
        let per = self
            .builder
            .build_select(small, one, per, "")?
            .into_int_value();
        let per = self.min(per, self.const_i64(items))?;
        let tile_len = self.builder.build_int_mul(b, per, "tile_len")?;
        let tiles = self.ceil_div(width, tile_len)?;
        let aggs0 = self.builder.build_int_add(one, tiles, "")?;
        let span = self.builder.build_int_mul(tiles, f_v, "")?;
        let incls0 = self.builder.build_int_add(aggs0, span, "")?;
        let reds0 = self.builder.build_int_add(incls0, span, "")?;
        let shared = self.shared_base()?;
        let regions = self.stage_regions(shared, lookback_shared(fields), &staged, tile_len)?;
        let hdr = 2 + fields as u64;
        let warp_cell = |gen: &Self, w: IntValue<'ctx>| -> Res<IntValue<'ctx>> {
            let at = gen
                .builder
                .build_int_mul(w, c(gen, fields as u64 + 1), "")?;
            Ok(gen.builder.build_int_add(at, c(gen, hdr), "")?)
        };
        let (inits, init_vals) = self.initial_values(nest, kp)?;
        // No iterations: the initial values are the final ones.
        let (gid, _) = self.thread_range()?;
        let none = self.builder.build_and(
            self.builder
                .build_int_compare(IntPredicate::EQ, tiles, zero, "")?,
            self.builder
                .build_int_compare(IntPredicate::EQ, gid, zero, "")?,
            "",
        )?;
        self.when(fr.func, none, |gen| {
            gen.store_cells(out, zero, &init_vals)?;
            // The reductions' one partial (arr_gpu_lookback_chunks counts
            // at least one tile).
            if skip > 0 {
                gen.store_cells(partials, reds0, &init_vals)?;
            }
            Ok(())
        })?;
        let mine = self.carried_slots(fr, &inits)?;
        let carry = self.carried_slots(fr, &inits)?;
        let bad = self.entry_alloca(fr.func, self.i64().into())?;
        let carry_bad = self.entry_alloca(fr.func, self.i64().into())?;
        let key = self.key_slot()?;

        // The tiles, one after another from the ticket.
        let head = self.ctx.append_basic_block(fr.func, "tile.next");
        let run = self.ctx.append_basic_block(fr.func, "tile.run");
        let exit = self.ctx.append_basic_block(fr.func, "tile.done");
        self.builder.build_unconditional_branch(head)?;
        self.builder.position_at_end(head);
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, tid, zero, "")?;
        self.when(fr.func, lead, |gen| {
            let ticket = gen.builder.build_atomicrmw(
                AtomicRMWBinOp::Add,
                partials,
                one,
                AtomicOrdering::Monotonic,
            )?;
            let v = Val::Scalar(ticket.into(), ScalarType::I64);
            gen.shared_store(shared, zero, &[v], 1)
        })?;
        self.barrier()?;
        let tile = self.shared_read(shared, zero, &flagged[n..], 1)?;
        let tile = self.fields(&tile[0])[0].into_int_value();
        let more = self
            .builder
            .build_int_compare(IntPredicate::SLT, tile, tiles, "")?;
        self.builder.build_conditional_branch(more, run, exit)?;
        self.builder.position_at_end(run);
        let start = self.builder.build_int_mul(tile, tile_len, "")?;
        let offset = self.builder.build_int_mul(tid, per, "")?;
        let lo = self.builder.build_int_add(start, offset, "")?;
        let lo = self.min(lo, width)?;
        let hi = self.builder.build_int_add(lo, per, "")?;
        let hi = self.min(hi, width)?;
        // Threads past the width fold nothing: their totals are the
        // neutral element, which no combination may meet (the interpreter
        // applies the operator to it only with the first element).
        let has_items = self
            .builder
            .build_int_compare(IntPredicate::SLT, lo, hi, "")?;
        // The tile's inputs, read once (coalesced) for both passes.
        if !staged.is_empty() {
            self.stage_tile(fr, nest, &staged, &regions, start, tile_len, width)?;
        }

        // 1. The totals of this thread's items from the initial values; a
        // failing check flags them.
        self.set_slots(&mine, &init_vals, 0)?;
        self.builder.build_store(bad, zero)?;
        self.set_flag(Some(bad));
        let result = self.leaving_on_fail(fr, "totals.done", |gen, fr| {
            gen.carried_loop_over(fr, nest, totals, &mine, (lo, hi, one), true, skip)
        });
        self.set_flag(None);
        result?;
        // An operator failing from here on: after every iteration.
        self.builder.build_store(key, width)?;

        // 2. The warp's inclusive scan: lane l combines lane l - off's
        // value (left) with its own.
        let i32t = self.ctx.i32_type();
        let off_slot = self.entry_alloca(fr.func, i32t.into())?;
        self.builder
            .build_store(off_slot, i32t.const_int(1, false))?;
        let step_head = self.ctx.append_basic_block(fr.func, "warp.next");
        let step = self.ctx.append_basic_block(fr.func, "warp.step");
        let stepped = self.ctx.append_basic_block(fr.func, "warp.done");
        self.builder.build_unconditional_branch(step_head)?;
        self.builder.position_at_end(step_head);
        let off = self
            .builder
            .build_load(i32t, off_slot, "off")?
            .into_int_value();
        let go = self.builder.build_int_compare(
            IntPredicate::ULT,
            off,
            i32t.const_int(32, false),
            "",
        )?;
        self.builder.build_conditional_branch(go, step, stepped)?;
        self.builder.position_at_end(step);
        let vals = self.load_slots(nest, &mine)?;
        let other = self.shuffled(&vals, &types, skip, off)?;
        let flag = self.builder.build_load(self.i64(), bad, "")?;
        let other_bad = self.shfl(flag, off, Shuffle::Up)?.into_int_value();
        let off64 = self.builder.build_int_z_extend(off, self.i64(), "")?;
        let far = self
            .builder
            .build_int_compare(IntPredicate::UGE, lane, off64, "")?;
        // This lane's value covers threads (tid - off, tid]: none folded
        // anything when the first did not; then it takes the left value.
        let right_first = self.builder.build_int_sub(tid, off64, "")?;
        let right_first = self.builder.build_int_add(right_first, one, "")?;
        let right_lo = self.builder.build_int_mul(right_first, per, "")?;
        let right_lo = self.builder.build_int_add(start, right_lo, "")?;
        let right_has = self
            .builder
            .build_int_compare(IntPredicate::SLT, right_lo, width, "")?;
        let right_none = self.builder.build_not(right_has, "")?;
        let func = fr.func;
        self.when(func, far, |gen| {
            gen.when(func, right_has, |gen| {
                gen.combine_guarded(fr, nest, &mine, &other, &vals, bad)
            })?;
            gen.when(func, right_none, |gen| gen.set_slots(&mine, &other, skip))?;
            gen.or_flag(bad, other_bad)
        })?;
        let twice = self.builder.build_int_add(off, off, "")?;
        self.builder.build_store(off_slot, twice)?;
        self.builder.build_unconditional_branch(step_head)?;
        self.builder.position_at_end(stepped);

        // 3. The warp's last lane to its cell.
        let last = self
            .builder
            .build_int_compare(IntPredicate::EQ, lane, c(self, 31), "")?;
        self.when(fr.func, last, |gen| {
            let mut vals = gen.load_slots(nest, &mine)?;
            let flag = gen.builder.build_load(gen.i64(), bad, "")?;
            vals.push(Val::Scalar(flag, ScalarType::I64));
            let at = warp_cell(gen, warp)?;
            gen.shared_store(shared, at, &vals, fields + 1)
        })?;
        self.barrier()?;

        // 4. Thread 0: the warps' prefixes, the tile's aggregate, the
        // look-back and the tile's carry-in.
        self.when(fr.func, lead, |gen| {
            let at = TileAt {
                shared,
                warps,
                tile,
                tiles,
                aggs0,
                incls0,
                partials,
                out,
                start,
                per,
                width,
            };
            gen.tile_prefix(fr, nest, &flagged, &init_vals, &at, &warp_cell)
        })?;
        self.barrier()?;

        // 5. This thread's carry-in: the tile's, then the warps' before it,
        // then the lanes' before it. Tile 0's is the neutral element: the
        // first totals after it are copied into the carry-in, not combined
        // with it (the interpreter applies the operator to the neutral
        // element only with the first element, which thread 0's totals
        // already hold).
        let vals = self.load_slots(nest, &mine)?;
        let i32one = i32t.const_int(1, false);
        let before = self.shuffled(&vals, &types, skip, i32one)?;
        let flag = self.builder.build_load(self.i64(), bad, "")?;
        let before_bad = self.shfl(flag, i32one, Shuffle::Up)?.into_int_value();
        self.set_slots(&carry, &init_vals, 0)?;
        let head_vals = self.shared_read(shared, one, &flagged[n..], 1)?;
        let tile_in = self.shared_read(shared, c(self, 2), &types, fields)?;
        self.set_slots(&carry, &tile_in, skip)?;
        self.builder
            .build_store(carry_bad, self.fields(&head_vals[0])[0])?;
        let started = self.entry_alloca(fr.func, self.ctx.bool_type().into())?;
        let later_tile = self
            .builder
            .build_int_compare(IntPredicate::UGT, tile, zero, "")?;
        self.builder.build_store(started, later_tile)?;
        let carry_in = (&carry, carry_bad, started);
        // A thread that folded nothing runs no body: no carry-in.
        let later_warp = self
            .builder
            .build_int_compare(IntPredicate::UGT, warp, zero, "")?;
        let later_warp = self.builder.build_and(later_warp, has_items, "")?;
        self.when(fr.func, later_warp, |gen| {
            let w = gen.builder.build_int_sub(warp, one, "")?;
            let at = warp_cell(gen, w)?;
            let cell = gen.shared_read(shared, at, &flagged, fields + 1)?;
            gen.carry_in(fr, nest, carry_in, &cell[..n])?;
            gen.or_flag(carry_bad, gen.fields(&cell[n])[0].into_int_value())
        })?;
        let later_lane = self
            .builder
            .build_int_compare(IntPredicate::UGT, lane, zero, "")?;
        let later_lane = self.builder.build_and(later_lane, has_items, "")?;
        self.when(fr.func, later_lane, |gen| {
            gen.carry_in(fr, nest, carry_in, &before)?;
            gen.or_flag(carry_bad, before_bad)
        })?;

        // 6. The body from the carry-in, unless it is not known; a failing
        // check records its error and leaves the body (the thread goes on
        // to the next tile's barriers).
        let known = self.builder.build_int_compare(
            IntPredicate::EQ,
            self.builder
                .build_load(self.i64(), carry_bad, "")?
                .into_int_value(),
            zero,
            "",
        )?;
        self.when(fr.func, known, |gen| {
            gen.leaving_on_fail(fr, "body.done", |gen, fr| {
                gen.carried_loop(fr, nest, &carry, lo, hi, true)
            })
        })?;
        self.unstage();
        // The reductions beside the scan: a partial per thread and tile
        // that folded something (arr_gpu_lookback_chunks counts those; a
        // neutral partial must not meet the operator beside another).
        if skip > 0 {
            let at_end = self.ctx.append_basic_block(fr.func, "partial.done");
            let store = self.ctx.append_basic_block(fr.func, "partial.store");
            self.builder
                .build_conditional_branch(has_items, store, at_end)?;
            self.builder.position_at_end(store);
            let chunk = self.builder.build_int_mul(tile, b, "")?;
            let chunk = self.builder.build_int_add(chunk, tid, "")?;
            let at = self.builder.build_int_mul(chunk, f_v, "")?;
            let at = self.builder.build_int_add(reds0, at, "")?;
            let finals = self.load_slots(nest, &carry)?;
            self.store_cells(partials, at, &finals)?;
            self.builder.build_unconditional_branch(at_end)?;
            self.builder.position_at_end(at_end);
        }
        self.builder.build_unconditional_branch(head)?;
        self.builder.position_at_end(exit);
        Ok(())
    }

    /// Thread 0 of a tile: the warps' cells replaced by their inclusive
    /// prefixes, the tile's aggregate published, the look-back, the
    /// tile's inclusive prefix published (and, for the last tile, the
    /// final values to `out`), and the tile's carry-in and its failure
    /// flag to shared memory.
    fn tile_prefix(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        flagged: &[Type],
        init_vals: &[Val<'ctx>],
        at: &TileAt<'ctx>,
        warp_cell: &dyn Fn(&Self, IntValue<'ctx>) -> Res<IntValue<'ctx>>,
    ) -> Res<()> {
        let n = flagged.len() - 1;
        let types = &flagged[..n];
        let fields = self.fields_of(nest);
        let f_v = self.const_i64(fields as i64);
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let c = |gen: &Self, v: u64| gen.i64().const_int(v, false);
        let i64t = self.i64();
        let (shared, warps, tile, tiles) = (at.shared, at.warps, at.tile, at.tiles);
        let (aggs0, incls0, partials, out) = (at.aggs0, at.incls0, at.partials, at.out);
        // The warps' inclusive prefixes, in order.
        let first = self.shared_read(shared, warp_cell(self, zero)?, flagged, fields + 1)?;
        let inits: Vec<Vec<BasicValueEnum<'ctx>>> =
            init_vals.iter().map(|v| self.fields(v)).collect();
        let running = self.carried_slots(fr, &inits)?;
        self.set_slots(&running, &first[..n], 0)?;
        let rbad = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(rbad, self.fields(&first[n])[0])?;
        // A warp whose first thread folded nothing (all its threads are
        // past the width) adds nothing: no combination with its neutral
        // totals.
        let warp_items = self.builder.build_int_mul(at.per, c(self, 32), "")?;
        self.kernel_loop(fr, one, warps, one, &mut |gen, fr, w| {
            let cell_at = warp_cell(gen, w)?;
            let cell = gen.shared_read(shared, cell_at, flagged, fields + 1)?;
            let acc = gen.load_slots(nest, &running)?;
            let first = gen.builder.build_int_mul(w, warp_items, "")?;
            let first = gen.builder.build_int_add(at.start, first, "")?;
            let has = gen
                .builder
                .build_int_compare(IntPredicate::SLT, first, at.width, "")?;
            let func = fr.func;
            gen.when(func, has, |gen| {
                gen.combine_guarded(fr, nest, &running, &acc, &cell[..n], rbad)
            })?;
            gen.or_flag(rbad, gen.fields(&cell[n])[0].into_int_value())?;
            let mut vals = gen.load_slots(nest, &running)?;
            let flag = gen.builder.build_load(gen.i64(), rbad, "")?;
            vals.push(Val::Scalar(flag, ScalarType::I64));
            gen.shared_store(shared, cell_at, &vals, fields + 1)
        })?;
        // The tile's aggregate (tile 0's is its inclusive prefix).
        let agg = self.load_slots(nest, &running)?;
        let abad = self.builder.build_load(i64t, rbad, "")?.into_int_value();
        let is_first = self
            .builder
            .build_int_compare(IntPredicate::EQ, tile, zero, "")?;
        let base = self
            .builder
            .build_select(is_first, incls0, aggs0, "")?
            .into_int_value();
        let mine = self.builder.build_int_mul(tile, f_v, "")?;
        let cells = self.builder.build_int_add(base, mine, "")?;
        let status_at = self.builder.build_int_add(one, tile, "")?;
        let failed = self
            .builder
            .build_int_compare(IntPredicate::NE, abad, zero, "")?;
        let kind =
            self.builder
                .build_select(is_first, c(self, INCLUSIVE), c(self, AGGREGATE), "")?;
        let status = self
            .builder
            .build_select(failed, c(self, FAILED), kind.into_int_value(), "")?
            .into_int_value();
        self.publish(partials, cells, &agg, status_at, status)?;
        // The look-back: the carry-in from the statuses before the tile.
        let excl = self.carried_slots(fr, &inits)?;
        let pbad = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(pbad, zero)?;
        let incl = self.carried_slots(fr, &inits)?;
        self.set_slots(&incl, &agg, 0)?;
        let later = self
            .builder
            .build_int_compare(IntPredicate::UGT, tile, zero, "")?;
        self.when(fr.func, later, |gen| {
            gen.look_back(fr, nest, types, &excl, pbad, at)?;
            let ibad = gen.entry_alloca(fr.func, i64t.into())?;
            gen.builder.build_store(ibad, abad)?;
            let before = gen.load_slots(nest, &excl)?;
            gen.combine_guarded(fr, nest, &incl, &before, &agg, ibad)?;
            let p = gen.builder.build_load(i64t, pbad, "")?.into_int_value();
            gen.or_flag(ibad, p)?;
            let bad = gen.builder.build_load(i64t, ibad, "")?.into_int_value();
            let failed = gen
                .builder
                .build_int_compare(IntPredicate::NE, bad, zero, "")?;
            let status = gen
                .builder
                .build_select(failed, c(gen, FAILED), c(gen, INCLUSIVE), "")?
                .into_int_value();
            let cells = gen.builder.build_int_add(incls0, mine, "")?;
            let vals = gen.load_slots(nest, &incl)?;
            gen.publish(partials, cells, &vals, status_at, status)
        })?;
        let last = self.builder.build_int_sub(tiles, one, "")?;
        let is_last = self
            .builder
            .build_int_compare(IntPredicate::EQ, tile, last, "")?;
        self.when(fr.func, is_last, |gen| {
            let vals = gen.load_slots(nest, &incl)?;
            gen.store_cells(out, zero, &vals)
        })?;
        // The carry-in and its flag for the tile's threads.
        let mut vals = vec![Val::Scalar(
            self.builder.build_load(i64t, pbad, "")?,
            ScalarType::I64,
        )];
        vals.extend(self.load_slots(nest, &excl)?);
        self.shared_store(shared, one, &vals, fields + 1)
    }

    /// Tile statuses from the tile before this one backwards: waits for
    /// each to have one, combines aggregates (earlier on the left) until
    /// an inclusive prefix, into `excl`; a failed tile sets `pbad`.
    fn look_back(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        types: &[Type],
        excl: &Slots<'ctx>,
        pbad: PointerValue<'ctx>,
        at: &TileAt<'ctx>,
    ) -> Res<()> {
        let i64t = self.i64();
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let fields = self.fields_of(nest);
        let f_v = self.const_i64(fields as i64);
        let c = |gen: &Self, v: u64| gen.i64().const_int(v, false);
        let j_slot = self.entry_alloca(fr.func, i64t.into())?;
        let j0 = self.builder.build_int_sub(at.tile, one, "")?;
        self.builder.build_store(j_slot, j0)?;
        let have = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(have, zero)?;
        let spin = self.ctx.append_basic_block(fr.func, "look.spin");
        let wait = self.ctx.append_basic_block(fr.func, "look.wait");
        let got = self.ctx.append_basic_block(fr.func, "look.got");
        let take = self.ctx.append_basic_block(fr.func, "look.take");
        let fail = self.ctx.append_basic_block(fr.func, "look.failed");
        let next = self.ctx.append_basic_block(fr.func, "look.next");
        let done = self.ctx.append_basic_block(fr.func, "look.done");
        self.builder.build_unconditional_branch(spin)?;
        self.builder.position_at_end(spin);
        let j = self.builder.build_load(i64t, j_slot, "j")?.into_int_value();
        let status_at = self.builder.build_int_add(one, j, "")?;
        let status = self.read_cells_with(
            at.partials,
            status_at,
            &[Type::Scalar(ScalarType::I64)],
            true,
        )?;
        let status = self.fields(&status[0])[0].into_int_value();
        let empty = self
            .builder
            .build_int_compare(IntPredicate::EQ, status, zero, "")?;
        self.builder.build_conditional_branch(empty, wait, got)?;
        self.builder.position_at_end(wait);
        self.nanosleep(100)?;
        self.builder.build_unconditional_branch(spin)?;
        self.builder.position_at_end(got);
        self.fence_gpu()?;
        let failed =
            self.builder
                .build_int_compare(IntPredicate::EQ, status, c(self, FAILED), "")?;
        self.builder.build_conditional_branch(failed, fail, take)?;
        self.builder.position_at_end(fail);
        self.builder.build_store(pbad, one)?;
        self.builder.build_unconditional_branch(done)?;
        self.builder.position_at_end(take);
        let inclusive =
            self.builder
                .build_int_compare(IntPredicate::EQ, status, c(self, INCLUSIVE), "")?;
        let base = self
            .builder
            .build_select(inclusive, at.incls0, at.aggs0, "")?
            .into_int_value();
        let cells = self.builder.build_int_mul(j, f_v, "")?;
        let cells = self.builder.build_int_add(base, cells, "")?;
        let v = self.read_cells_with(at.partials, cells, types, true)?;
        let had = self.builder.build_load(i64t, have, "")?.into_int_value();
        let first = self
            .builder
            .build_int_compare(IntPredicate::EQ, had, zero, "")?;
        let skip = reduction_values(nest);
        self.when(fr.func, first, |gen| gen.set_slots(excl, &v, skip))?;
        let again = self
            .builder
            .build_int_compare(IntPredicate::NE, had, zero, "")?;
        self.when(fr.func, again, |gen| {
            let acc = gen.load_slots(nest, excl)?;
            gen.combine_guarded(fr, nest, excl, &v, &acc, pbad)
        })?;
        self.builder.build_store(have, one)?;
        self.builder
            .build_conditional_branch(inclusive, done, next)?;
        self.builder.position_at_end(next);
        let earlier = self.builder.build_int_sub(j, one, "")?;
        self.builder.build_store(j_slot, earlier)?;
        self.builder.build_unconditional_branch(spin)?;
        self.builder.position_at_end(done);
        Ok(())
    }

    /// The carried values' initial values among the kernel's parameters,
    /// as fields and as values.
    pub(super) fn initial_values(
        &self,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<(Vec<Vec<BasicValueEnum<'ctx>>>, Vec<Val<'ctx>>)> {
        let inits = self.inits(nest, kp)?;
        let vals = nest
            .carried()
            .zip(&inits)
            .map(|(c, f)| self.val_of_fields(c.var.ty, f))
            .collect::<Res<_>>()?;
        Ok((inits, vals))
    }

    /// A tile's values to cells `cells` of `partials`, then (after a
    /// fence) its status: other blocks that see the status see the values.
    fn publish(
        &self,
        partials: PointerValue<'ctx>,
        cells: IntValue<'ctx>,
        vals: &[Val<'ctx>],
        status_at: IntValue<'ctx>,
        status: IntValue<'ctx>,
    ) -> Res<()> {
        self.store_cells_with(partials, cells, vals, true)?;
        self.fence_gpu()?;
        let s = Val::Scalar(status.into(), ScalarType::I64);
        self.store_cells_with(partials, status_at, &[s], true)
    }

    /// `vals` (in `LoopNest::carried` order) from value `from` on into
    /// `slots`.
    pub(super) fn set_slots(
        &self,
        slots: &Slots<'ctx>,
        vals: &[Val<'ctx>],
        from: usize,
    ) -> Res<()> {
        for (v, ps) in vals.iter().zip(slots).skip(from) {
            for (f, (slot, _)) in self.fields(v).iter().zip(ps) {
                self.builder.build_store(*slot, *f)?;
            }
        }
        Ok(())
    }

    /// `*slot |= v`.
    pub(super) fn or_flag(&self, slot: PointerValue<'ctx>, v: IntValue<'ctx>) -> Res<()> {
        let old = self
            .builder
            .build_load(self.i64(), slot, "")?
            .into_int_value();
        let new = self.builder.build_or(old, v, "")?;
        self.builder.build_store(slot, new)?;
        Ok(())
    }

    /// The scans' and compactions' values of `vals` from `off` lanes
    /// below (`shfl.sync.up`); the reductions' are left as they are.
    pub(super) fn shuffled(
        &self,
        vals: &[Val<'ctx>],
        types: &[Type],
        skip: usize,
        off: IntValue<'ctx>,
    ) -> Res<Vec<Val<'ctx>>> {
        let mut out = vals[..skip].to_vec();
        for (v, t) in vals.iter().zip(types).skip(skip) {
            let mut moved = Vec::new();
            for f in self.fields(v) {
                moved.push(self.shfl(f, off, Shuffle::Up)?);
            }
            out.push(self.val_of_fields(*t, &moved)?);
        }
        Ok(out)
    }

    /// The scans' operators on `left` and `right` into `slots`; an
    /// operator that fails records its error (with the key set before) and
    /// sets `bad` instead of ending the thread.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn combine_guarded(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &Slots<'ctx>,
        left: &[Val<'ctx>],
        right: &[Val<'ctx>],
        bad: PointerValue<'ctx>,
    ) -> Res<()> {
        let fail = self.ctx.append_basic_block(fr.func, "combine.failed");
        let done = self.ctx.append_basic_block(fr.func, "combine.done");
        self.set_on_fail(Some(fail));
        let result = self.apply_operators(fr, nest, slots, left, right);
        self.set_on_fail(None);
        result?;
        self.builder.build_unconditional_branch(done)?;
        self.builder.position_at_end(fail);
        self.builder.build_store(bad, self.const_i64(1))?;
        self.builder.build_unconditional_branch(done)?;
        self.builder.position_at_end(done);
        Ok(())
    }

    pub(super) fn set_flag(&mut self, flag: Option<PointerValue<'ctx>>) {
        if let Some(k) = self.device.as_mut().and_then(|d| d.current.as_mut()) {
            k.flag = flag;
        }
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
