//! Reductions of scalars with a tree per block: each thread folds its
//! iterations, strided by the grid's threads when every operator is
//! commutative (`commutative`: the lanes of a warp read neighbours, so
//! reads coalesce), else a contiguous slice (in thread order, so the
//! slices of a block are consecutive and the order is kept); the lanes of
//! a warp combine their results pairwise by warp shuffles in 5 steps,
//! lane 0 writes the warp's to shared memory, and the block combines the
//! warps' pairwise in `log2 (B / 32)` steps between barriers, the left
//! operand always the earlier one; thread 0 writes the block's result. A
//! non-commutative reduction whose body reads inputs at its index
//! (`stage`) folds coalesced tiles instead: per tile the block stages the
//! inputs in shared memory, each thread folds its `c` consecutive items
//! of the tile, the tree combines them and thread 0 adds the tile's value
//! on the right of the block's. Only one partial per block goes to global
//! memory, so the combining levels (`combine_body`) start from the grid's
//! blocks instead of its threads.
//!
//! A failing check in the fold records its error and skips to the end of
//! the fold, so that the thread still reaches the block's barriers (the
//! results are never used: the combining kernel sees the error first).
//! An operator that can fail leaves its tree step the same way, its
//! error keyed after every iteration, and is applied only to values of
//! threads that folded an iteration (`Occupancy`). More fields than shared
//! memory holds (`tree_ok`): each thread's partial goes to global memory
//! (`partials_body`). The combining levels are here too.

use super::kernel::{Grid, Params, OUT, PARTIALS, WIDTH};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, Type, VarId};
use crate::loopy::ir::{LoopNest, Operator};
use crate::types::ScalarType;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

type Slots<'ctx> = [Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>];

/// Partial results each thread of a reduction's combining level combines.
const GROUP: i64 = 64;

/// Carried fields (8-byte cells) a block tree holds per thread at most:
/// 1024 threads of 6 cells is the 48 KiB of shared memory a block has.
pub(super) const TREE_FIELDS: usize = 6;

/// Whether `nest`'s reductions can run as block trees: few enough fields
/// for shared memory.
pub(super) fn tree_ok(fields: usize) -> bool {
    fields <= TREE_FIELDS
}

/// Whether some reduction's operator has a check that can fail.
pub(super) fn fallible(nest: &LoopNest) -> bool {
    !nest
        .reductions
        .iter()
        .all(|r| crate::loopy::chunk::infallible(&r.op.body))
}

/// Which threads of a block folded at least one iteration: thread `t`'s
/// first is `base + t * per`, below `width` or none. Those without one form
/// a suffix in thread order, and the tree takes a value from them only
/// without applying the operator (to the neutral element: the interpreter
/// never applies it there, and an operator that can fail might fail).
#[derive(Clone, Copy)]
pub(super) struct Occupancy<'ctx> {
    pub(super) base: IntValue<'ctx>,
    pub(super) per: IntValue<'ctx>,
    pub(super) width: IntValue<'ctx>,
}

/// Which shuffle: from lane `l + off`, from lane `l - off`, or from lane
/// `off` (a broadcast).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shuffle {
    Down,
    Up,
    Idx,
}

/// Whether `op` is commutative as written: each result the same
/// commutative binary operator on the two operands' corresponding values
/// (`+`, `*`, `min`, `max` of integers, `&&`, ...), nothing else in its
/// body. Float `min` and `max` are left out (the sign of a zero result
/// can depend on the order).
pub(super) fn commutative(op: &Operator) -> bool {
    use crate::core::ir::BinOp;
    use crate::loopy::ir::{ScalarExp, Stmt};
    let n = op.results.len();
    if op.params.len() != 2 * n || op.body.len() != n {
        return false;
    }
    op.results.iter().enumerate().all(|(k, r)| {
        let Atom::Var(v) = r else { return false };
        op.body.iter().any(|s| match s {
            Stmt::Let {
                var,
                exp: ScalarExp::BinOp(o, Atom::Var(a), Atom::Var(b)),
                ..
            } if var.id == *v && o.is_commutative() => {
                let float = matches!(var.ty, Type::Scalar(t) if t.is_float());
                let (x, y) = (op.params[k].id, op.params[n + k].id);
                !(float && matches!(o, BinOp::Min | BinOp::Max))
                    && ((*a == x && *b == y) || (*a == y && *b == x))
            }
            _ => false,
        })
    })
}

impl<'ctx> Gen<'ctx, '_> {
    /// The block-tree reduction kernel: block `b`'s result in cells
    /// `[b * fields, (b + 1) * fields)` of the partials.
    pub(super) fn tree_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        if let Some((staged, items)) = self.reduce_staging(fr, nest)? {
            return self.tiled_tree_body(fr, nest, kp, &staged, items);
        }
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let fields = self.fields_of(nest);
        let (slots, width) = self.carried_state(fr, nest, kp)?;
        // Commutative operators: a strided loop, so that the lanes of a
        // warp read neighbouring iterations (coalesced); otherwise a
        // contiguous slice per thread, which keeps the order.
        let (gid, threads) = self.thread_range()?;
        let one = self.const_i64(1);
        let (range, per) = if nest.reductions.iter().all(|r| commutative(&r.op)) {
            ((gid, width, threads), one)
        } else {
            let (lo, hi) = self.slice_of(width, gid, threads)?;
            let up = self.builder.build_int_add(width, threads, "")?;
            let up = self.builder.build_int_sub(up, one, "")?;
            let chunk = self.builder.build_int_signed_div(up, threads, "chunk")?;
            ((lo, hi, one), chunk)
        };
        self.fold(fr, nest, &slots, range)?;
        let shared = self.shared_base()?;
        let first = self.builder.build_int_sub(gid, self.sreg("tid.x")?, "")?;
        let base = self.builder.build_int_mul(first, per, "")?;
        let occ = Occupancy { base, per, width };
        self.block_tree(fr, nest, &slots, shared, occ)?;
        let tid = self.sreg("tid.x")?;
        let zero = self.const_i64(0);
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, tid, zero, "")?;
        let fields_v = self.const_i64(fields as i64);
        self.when(fr.func, lead, |gen| {
            let vals = gen.shared_read(shared, zero, &types, fields)?;
            let block = gen.sreg("ctaid.x")?;
            let at = gen.builder.build_int_mul(block, fields_v, "")?;
            gen.store_cells(kp[PARTIALS].into_pointer_value(), at, &vals)
        })
    }

    /// A non-commutative reduction whose body reads inputs at its index
    /// (`stage`): the staged arrays and the items a thread takes of a tile.
    /// Host code sizes the launch's shared memory with the same answer.
    pub(super) fn reduce_staging(
        &self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
    ) -> Res<Option<(super::stage::StagedArrays, i64)>> {
        if nest.reductions.iter().all(|r| commutative(&r.op)) {
            return Ok(None);
        }
        let (staged, items) = self.staging(fr, nest, super::scan::TILE_ITEMS)?;
        Ok((!staged.is_empty()).then_some((staged, items)))
    }

    /// Coalesced tiles for a non-commutative reduction: block `b` takes
    /// a contiguous run of tiles of `B * c` iterations; per tile the
    /// block loads the staged inputs coalesced into shared memory, thread
    /// `t` folds items `[t * c, (t + 1) * c)` of the tile from them, the
    /// block tree combines the threads' values in order and thread 0
    /// combines the tile's on the right of the block's so far.
    fn tiled_tree_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
        staged: &[(VarId, ScalarType)],
        items: i64,
    ) -> Res<()> {
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let fields = self.fields_of(nest);
        let (inits, init_vals) = self.initial_values(nest, kp)?;
        let slots = self.carried_slots(fr, &inits)?;
        let acc = self.carried_slots(fr, &inits)?;
        let width = kp[WIDTH].into_int_value();
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let tid = self.sreg("tid.x")?;
        let b = self.sreg("ntid.x")?;
        let block = self.sreg("ctaid.x")?;
        let blocks = self.sreg("nctaid.x")?;
        let c = self.const_i64(items);
        let tile_len = self.builder.build_int_mul(b, c, "tile_len")?;
        let tiles = self.ceil_div(width, tile_len)?;
        let per_block = self.ceil_div(tiles, blocks)?;
        let first = self.builder.build_int_mul(block, per_block, "")?;
        let first = self.min(first, tiles)?;
        let last = self.builder.build_int_add(first, per_block, "")?;
        let last = self.min(last, tiles)?;
        let shared = self.shared_base()?;
        // The tree's cells first (8 bytes a field and thread), then the tiles.
        let cells = self
            .builder
            .build_int_mul(b, self.const_i64(fields as i64 * 8), "")?;
        let tiles_at = unsafe {
            // Safety: host code sized the shared memory for both.
            self.builder
                .build_in_bounds_gep(self.ctx.i8_type(), shared, &[cells], "")?
        };
        let regions = self.stage_regions(tiles_at, 0, staged, tile_len)?;
        let lead = self
            .builder
            .build_int_compare(IntPredicate::EQ, tid, zero, "")?;
        self.kernel_loop(fr, first, last, one, &mut |gen, fr, k| {
            let start = gen.builder.build_int_mul(k, tile_len, "")?;
            gen.stage_tile(fr, nest, staged, &regions, start, tile_len, width)?;
            let lo = gen.builder.build_int_mul(tid, c, "")?;
            let lo = gen.builder.build_int_add(start, lo, "")?;
            let lo = gen.min(lo, width)?;
            let hi = gen.builder.build_int_add(lo, c, "")?;
            let hi = gen.min(hi, width)?;
            gen.set_slots(&slots, &init_vals, 0)?;
            gen.fold(fr, nest, &slots, (lo, hi, one))?;
            gen.unstage();
            let occ = Occupancy {
                base: start,
                per: c,
                width,
            };
            gen.block_tree(fr, nest, &slots, shared, occ)?;
            // Thread 0: the tile's value on the right of the block's.
            gen.when(fr.func, lead, |gen| {
                let tile = gen.shared_read(shared, zero, &types, fields)?;
                let so_far = gen.load_slots(nest, &acc)?;
                gen.continuing_on_fail(fr, nest, None, |gen, fr| {
                    gen.apply_reductions(fr, nest, &acc, &so_far, &tile)
                })
            })
        })?;
        let fields_v = self.const_i64(fields as i64);
        self.when(fr.func, lead, |gen| {
            let vals = gen.load_slots(nest, &acc)?;
            let at = gen.builder.build_int_mul(block, fields_v, "")?;
            gen.store_cells(kp[PARTIALS].into_pointer_value(), at, &vals)
        })
    }

    /// Folds `range` (`lo`, `hi`, step) of the nest into `slots`; a failed
    /// check leaves the fold instead of ending the thread (it must reach
    /// the block's barriers).
    fn fold(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &Slots<'ctx>,
        range: (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
    ) -> Res<()> {
        self.leaving_on_fail(fr, "fold.done", |gen, fr| {
            gen.carried_loop_over(fr, nest, &nest.body, slots, range, true, 0)
        })
    }

    /// The block's threads' values in `slots` combined in thread order:
    /// warp shuffles, then the warps' cells of shared memory pairwise
    /// between barriers; the block's value is left in cell 0 (read after
    /// the last barrier).
    /// An operator that fails here records its error keyed after every
    /// iteration (`width`: a failing iteration still wins) and leaves that
    /// step only, so that the thread reaches the barriers.
    fn block_tree(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &Slots<'ctx>,
        shared: PointerValue<'ctx>,
        occ: Occupancy<'ctx>,
    ) -> Res<()> {
        let tid = self.sreg("tid.x")?;
        let b = self.sreg("ntid.x")?;
        let lane = self.builder.build_and(tid, self.const_i64(31), "lane")?;
        let occ = fallible(nest).then_some(occ);
        if let Some(o) = occ {
            let key = self.key_slot()?;
            self.builder.build_store(key, o.width)?;
        }
        self.warp_combine_occupied(fr, nest, slots, lane, occ.map(|o| (o, tid)), None)?;
        self.warp_cells_tree_occupied(fr, nest, slots, shared, (tid, lane, b), occ, None)
    }

    /// `body`, in which a failing check of an operator that can fail
    /// records its error, sets `failed` (an `i1` slot) if given, and goes
    /// on after `body` (the previous target restored after it).
    fn continuing_on_fail(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        failed: Option<PointerValue<'ctx>>,
        body: impl FnOnce(&mut Self, &mut Frame<'ctx>) -> Res<()>,
    ) -> Res<()> {
        if !fallible(nest) {
            return body(self, fr);
        }
        let saved = self
            .device
            .as_ref()
            .and_then(|d| d.current.as_ref())
            .and_then(|k| k.on_fail);
        let after = self.ctx.append_basic_block(fr.func, "tree.step.done");
        let flagged = match failed {
            Some(_) => self.ctx.append_basic_block(fr.func, "tree.step.failed"),
            None => after,
        };
        self.set_on_fail(Some(flagged));
        let result = body(self, fr);
        self.set_on_fail(saved);
        result?;
        self.builder.build_unconditional_branch(after)?;
        if let Some(flag) = failed {
            self.builder.position_at_end(flagged);
            self.builder
                .build_store(flag, self.ctx.bool_type().const_all_ones())?;
            self.builder.build_unconditional_branch(after)?;
        }
        self.builder.position_at_end(after);
        Ok(())
    }

    /// Whether thread `p` of the block folded an iteration (`Occupancy`).
    fn occupied(&self, occ: Occupancy<'ctx>, p: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
        let at = self.builder.build_int_mul(p, occ.per, "")?;
        let at = self.builder.build_int_add(occ.base, at, "")?;
        Ok(self
            .builder
            .build_int_compare(IntPredicate::SLT, at, occ.width, "occupied")?)
    }

    /// The lanes' values combined by shuffles into lane 0's `slots`: lane
    /// `l`, a multiple of `2 off`, combines its value with lane `l + off`'s
    /// (every lane shuffles; blocks are whole warps).
    pub(super) fn warp_combine(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &Slots<'ctx>,
        lane: IntValue<'ctx>,
    ) -> Res<()> {
        self.warp_combine_occupied(fr, nest, slots, lane, None, None)
    }

    /// `warp_combine`; with `occ` (and the thread's index in its block or
    /// group), a lane whose partner folded nothing keeps its value; an
    /// operator that fails sets `failed`, if given.
    pub(super) fn warp_combine_occupied(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &Slots<'ctx>,
        lane: IntValue<'ctx>,
        occ: Option<(Occupancy<'ctx>, IntValue<'ctx>)>,
        failed: Option<PointerValue<'ctx>>,
    ) -> Res<()> {
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let zero = self.const_i64(0);
        for off in [1u64, 2, 4, 8, 16] {
            let vals = self.load_slots(nest, slots)?;
            let mut other = Vec::new();
            for (v, t) in vals.iter().zip(&types) {
                let mut shuffled = Vec::new();
                for f in self.fields(v) {
                    let by = self.ctx.i32_type().const_int(off, false);
                    shuffled.push(self.shfl(f, by, Shuffle::Down)?);
                }
                other.push(self.val_of_fields(*t, &shuffled)?);
            }
            let mask = self.const_i64(2 * off as i64 - 1);
            let low = self.builder.build_and(lane, mask, "")?;
            let mut active = self
                .builder
                .build_int_compare(IntPredicate::EQ, low, zero, "")?;
            if let Some((o, tid)) = occ {
                let partner = self
                    .builder
                    .build_int_add(tid, self.const_i64(off as i64), "")?;
                let there = self.occupied(o, partner)?;
                active = self.builder.build_and(active, there, "")?;
            }
            self.when(fr.func, active, |gen| {
                gen.continuing_on_fail(fr, nest, failed, |gen, fr| {
                    gen.apply_reductions(fr, nest, slots, &vals, &other)
                })
            })?;
        }
        Ok(())
    }

    /// Lane 0 of each warp stores its `slots` to the warp's cell of
    /// `shared`; after a barrier, step `s` over the cells has thread `t` (a
    /// multiple of `2s`) combine cell `t` with cell `t + s`, in order, so
    /// the block's value ends in cell 0 (read after the last barrier).
    /// `threads` is the block's size.
    /// With `occ`, a cell whose partner warp folded nothing keeps its
    /// value; an operator that fails sets `failed`, if given.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn warp_cells_tree_occupied(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &Slots<'ctx>,
        shared: PointerValue<'ctx>,
        (tid, lane, threads): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
        occ: Option<Occupancy<'ctx>>,
        failed: Option<PointerValue<'ctx>>,
    ) -> Res<()> {
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let fields = self.fields_of(nest);
        let fields_v = self.const_i64(fields as i64);
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let mine = self.builder.build_int_mul(tid, fields_v, "")?;
        let warp = self
            .builder
            .build_right_shift(tid, self.const_i64(5), false, "warp")?;
        let up = self
            .builder
            .build_int_add(threads, self.const_i64(31), "")?;
        let warps = self
            .builder
            .build_right_shift(up, self.const_i64(5), false, "warps")?;
        let first = self
            .builder
            .build_int_compare(IntPredicate::EQ, lane, zero, "")?;
        let warp_at = self.builder.build_int_mul(warp, fields_v, "")?;
        self.when(fr.func, first, |gen| {
            let vals = gen.load_slots(nest, slots)?;
            gen.shared_store(shared, warp_at, &vals, fields)
        })?;
        self.barrier()?;
        self.doubling_steps(fr, warps, &mut |gen, fr, s| {
            let twice = gen.builder.build_int_add(s, s, "")?;
            let mask = gen.builder.build_int_sub(twice, one, "")?;
            let low = gen.builder.build_and(tid, mask, "")?;
            let active = gen
                .builder
                .build_int_compare(IntPredicate::EQ, low, zero, "")?;
            let partner = gen.builder.build_int_add(tid, s, "")?;
            let inside = gen
                .builder
                .build_int_compare(IntPredicate::SLT, partner, warps, "")?;
            let mut active = gen.builder.build_and(active, inside, "")?;
            if let Some(o) = occ {
                let first = gen
                    .builder
                    .build_left_shift(partner, gen.const_i64(5), "")?;
                let there = gen.occupied(o, first)?;
                active = gen.builder.build_and(active, there, "")?;
            }
            gen.when(fr.func, active, |gen| {
                let left = gen.shared_read(shared, mine, &types, fields)?;
                let at = gen.builder.build_int_mul(partner, fields_v, "")?;
                let right = gen.shared_read(shared, at, &types, fields)?;
                let left_fields: Vec<Vec<BasicValueEnum<'ctx>>> =
                    left.iter().map(|v| gen.fields(v)).collect();
                let cell = gen.carried_slots(fr, &left_fields)?;
                let step = gen.continuing_on_fail(fr, nest, failed, |gen, fr| {
                    gen.apply_reductions(fr, nest, &cell, &left, &right)
                });
                step?;
                let combined = gen.load_slots(nest, &cell)?;
                gen.shared_store(shared, mine, &combined, fields)
            })
        })
    }

    /// `shfl.sync.down`, `.up` or `.idx` of one field (any scalar) by
    /// `off` (an `i32`: lanes, or the source lane for `.idx`) over the
    /// whole warp: 32-bit pieces, as PTX shuffles them.
    pub(super) fn shfl(
        &self,
        v: BasicValueEnum<'ctx>,
        off: IntValue<'ctx>,
        up: Shuffle,
    ) -> Res<BasicValueEnum<'ctx>> {
        let i32t = self.ctx.i32_type();
        let bits_of = |v: BasicValueEnum<'ctx>| -> Res<IntValue<'ctx>> {
            Ok(match v {
                BasicValueEnum::IntValue(i) => i,
                BasicValueEnum::FloatValue(f) => {
                    let it = match f.get_type() {
                        t if t == self.ctx.f16_type() => self.ctx.i16_type(),
                        t if t == self.ctx.f32_type() => self.ctx.i32_type(),
                        _ => self.ctx.i64_type(),
                    };
                    self.builder.build_bit_cast(f, it, "")?.into_int_value()
                }
                _ => return Err(CodegenError::Internal("a shuffle of a non-scalar".into())),
            })
        };
        let bits = bits_of(v)?;
        let width = bits.get_type().get_bit_width();
        let moved = if width <= 32 {
            let x = if width < 32 {
                self.builder.build_int_z_extend(bits, i32t, "")?
            } else {
                bits
            };
            let r = self.shfl32(x, off, up)?;
            if width < 32 {
                self.builder.build_int_truncate(r, bits.get_type(), "")?
            } else {
                r
            }
        } else {
            let i64t = self.i64();
            let lo = self.builder.build_int_truncate(bits, i32t, "")?;
            let hi = self
                .builder
                .build_right_shift(bits, i64t.const_int(32, false), false, "")?;
            let hi = self.builder.build_int_truncate(hi, i32t, "")?;
            let lo = self.shfl32(lo, off, up)?;
            let hi = self.shfl32(hi, off, up)?;
            let lo = self.builder.build_int_z_extend(lo, i64t, "")?;
            let hi = self.builder.build_int_z_extend(hi, i64t, "")?;
            let hi = self
                .builder
                .build_left_shift(hi, i64t.const_int(32, false), "")?;
            self.builder.build_or(lo, hi, "")?
        };
        Ok(match v {
            BasicValueEnum::FloatValue(f) => {
                self.builder.build_bit_cast(moved, f.get_type(), "")?
            }
            _ => moved.into(),
        })
    }

    fn shfl32(&self, x: IntValue<'ctx>, off: IntValue<'ctx>, up: Shuffle) -> Res<IntValue<'ctx>> {
        let i32t = self.ctx.i32_type();
        let name = match (self.emulated()?, up) {
            (true, Shuffle::Down) => "arr_emu_shfl_down_i32",
            (true, Shuffle::Up) => "arr_emu_shfl_up_i32",
            (true, Shuffle::Idx) => "arr_emu_shfl_idx_i32",
            (false, Shuffle::Down) => "llvm.nvvm.shfl.sync.down.i32",
            (false, Shuffle::Up) => "llvm.nvvm.shfl.sync.up.i32",
            (false, Shuffle::Idx) => "llvm.nvvm.shfl.sync.idx.i32",
        };
        // The clamp: the warp's last lane down (and for an index), its
        // first up.
        let clamp = if up == Shuffle::Up { 0 } else { 0x1f };
        let t = i32t.into();
        let f = self.declare(name, Some(t), &[t, t, t, t]);
        let args = [
            i32t.const_all_ones().into(),
            x.into(),
            off.into(),
            i32t.const_int(clamp, false).into(),
        ];
        self.call_int(f, &args)
    }

    pub(super) fn set_on_fail(&mut self, target: Option<inkwell::basic_block::BasicBlock<'ctx>>) {
        if let Some(k) = self.device.as_mut().and_then(|d| d.current.as_mut()) {
            k.on_fail = target;
        }
    }

    /// Generates `body`, in which a failing check records its error (or
    /// flags its thread) and goes on after `body` (a block named `name`)
    /// instead of ending the thread, which must still reach the block's
    /// barriers.
    pub(super) fn leaving_on_fail(
        &mut self,
        fr: &mut Frame<'ctx>,
        name: &str,
        body: impl FnOnce(&mut Self, &mut Frame<'ctx>) -> Res<()>,
    ) -> Res<()> {
        let after = self.ctx.append_basic_block(fr.func, name);
        self.set_on_fail(Some(after));
        let result = body(self, fr);
        self.set_on_fail(None);
        result?;
        self.builder.build_unconditional_branch(after)?;
        self.builder.position_at_end(after);
        Ok(())
    }

    /// The block's dynamic shared memory (`@arr_shared` on nvptx, as a
    /// generic pointer; `arr_emu_shared()` on the emulator).
    pub(super) fn shared_base(&self) -> Res<PointerValue<'ctx>> {
        if self.emulated()? {
            let f = self.declare("arr_emu_shared", Some(self.ptr().into()), &[]);
            return self
                .builder
                .build_call(f, &[], "shared")?
                .try_as_basic_value()
                .basic()
                .map(|v| v.into_pointer_value())
                .ok_or_else(|| CodegenError::Internal("arr_emu_shared returns nothing".into()));
        }
        let global = match self.module.get_global("arr_shared") {
            Some(g) => g,
            None => {
                let ty = self.ctx.i8_type().array_type(0);
                let g = self
                    .module
                    .add_global(ty, Some(AddressSpace::from(3)), "arr_shared");
                g.set_linkage(inkwell::module::Linkage::External);
                g.set_alignment(16);
                g
            }
        };
        Ok(self.builder.build_address_space_cast(
            global.as_pointer_value(),
            self.ptr(),
            "shared",
        )?)
    }

    /// On the emulator: the race checker told of a plain access of
    /// `fields` cells from cell `first` (`write` or read).
    fn announce(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        fields: usize,
        write: bool,
    ) -> Res<()> {
        let p = self.cell_ptr(base, first)?;
        self.announce_bytes(p, fields * 8, write)
    }

    pub(super) fn shared_store(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        vals: &[Val<'ctx>],
        fields: usize,
    ) -> Res<()> {
        self.announce(base, first, fields, true)?;
        self.store_cells(base, first, vals)
    }

    pub(super) fn shared_read(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        types: &[Type],
        fields: usize,
    ) -> Res<Vec<Val<'ctx>>> {
        self.announce(base, first, fields, false)?;
        self.read_cells(base, first, types)
    }

    /// A reduction's partial result per thread, in thread order.
    pub(super) fn partials_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let (slots, width) = self.carried_state(fr, nest, kp)?;
        let (gid, lo, hi) = self.slice(width)?;
        self.carried_loop(fr, nest, &slots, lo, hi, true)?;
        let finals = self.load_slots(nest, &slots)?;
        let fields: usize = finals.iter().map(|v| self.fields(v).len()).sum();
        let cell = self
            .builder
            .build_int_mul(gid, self.const_i64(fields as i64), "")?;
        self.store_cells(kp[PARTIALS].into_pointer_value(), cell, &finals)
    }

    /// Host side: the `threads` partial results at `partials` combined in
    /// levels, each thread of a level combining `GROUP` consecutive ones
    /// in order, until one is left; returns its device address and the
    /// second buffer, which takes turns with `partials` (the caller frees
    /// both after reading the result).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn combine_levels(
        &mut self,
        combine: usize,
        threads: IntValue<'ctx>,
        partials: IntValue<'ctx>,
        fields: usize,
        params: &Params<'ctx>,
        values: &[BasicValueEnum<'ctx>],
        fr: &Frame<'ctx>,
    ) -> Res<(IntValue<'ctx>, IntValue<'ctx>)> {
        let i64t = self.i64();
        let group = self.const_i64(GROUP);
        let one = self.const_i64(1);
        let groups_of = |gen: &Self, n: IntValue<'ctx>| -> Res<IntValue<'ctx>> {
            let up = gen.builder.build_int_add(n, gen.const_i64(GROUP - 1), "")?;
            Ok(gen.builder.build_int_signed_div(up, group, "groups")?)
        };
        let alloc = self.runtime(RuntimeFn::GpuAlloc);
        let first = groups_of(self, threads)?;
        let cell = self.const_i64((fields.max(1) * 8) as i64);
        let bytes = self.builder.build_int_mul(first, cell, "")?;
        let other = self.call_int(alloc, &[bytes.into()])?;
        let n_slot = self.entry_alloca(fr.func, i64t.into())?;
        let src_slot = self.entry_alloca(fr.func, i64t.into())?;
        let dst_slot = self.entry_alloca(fr.func, i64t.into())?;
        self.builder.build_store(n_slot, threads)?;
        self.builder.build_store(src_slot, partials)?;
        self.builder.build_store(dst_slot, other)?;
        let header = self.ctx.append_basic_block(fr.func, "combine.level");
        let body = self.ctx.append_basic_block(fr.func, "combine.run");
        let exit = self.ctx.append_basic_block(fr.func, "combine.done");
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let n = self.builder.build_load(i64t, n_slot, "n")?.into_int_value();
        let more = self
            .builder
            .build_int_compare(IntPredicate::SGT, n, one, "")?;
        self.builder.build_conditional_branch(more, body, exit)?;
        self.builder.position_at_end(body);
        let src = self
            .builder
            .build_load(i64t, src_slot, "")?
            .into_int_value();
        let dst = self
            .builder
            .build_load(i64t, dst_slot, "")?
            .into_int_value();
        let groups = groups_of(self, n)?;
        let mut level = values.to_vec();
        level[WIDTH] = n.into();
        level[PARTIALS] = self.builder.build_int_to_ptr(src, self.ptr(), "")?.into();
        level[OUT] = self.builder.build_int_to_ptr(dst, self.ptr(), "")?.into();
        self.launch(combine, Grid::Work, groups, &params.types, &level, fr)?;
        self.builder.build_store(n_slot, groups)?;
        self.builder.build_store(src_slot, dst)?;
        self.builder.build_store(dst_slot, src)?;
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(exit);
        let result = self
            .builder
            .build_load(i64t, src_slot, "")?
            .into_int_value();
        Ok((result, other))
    }

    /// One level of a reduction's combination: thread `g` combines the
    /// partial results `[g * GROUP, (g + 1) * GROUP)` of the `n` at
    /// `partials` in order with each reduction's operator, into cell `g`
    /// of `out`.
    pub(super) fn combine_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        self.return_if_failed(fr, kp)?;
        let types: Vec<Type> = nest.carried().map(|c| c.var.ty).collect();
        let fields: usize = types.iter().map(|t| self.field_types(*t).len()).sum();
        let n = kp[WIDTH].into_int_value();
        let partials = kp[PARTIALS].into_pointer_value();
        let key = self.key_slot()?;
        self.builder.build_store(key, n)?;
        let (gid, threads) = self.thread_range()?;
        let group = self.const_i64(GROUP);
        let up = self
            .builder
            .build_int_add(n, self.const_i64(GROUP - 1), "")?;
        let groups = self.builder.build_int_signed_div(up, group, "groups")?;
        let per = self.const_i64(fields as i64);
        let one = self.const_i64(1);
        self.kernel_loop(fr, gid, groups, threads, &mut |gen, fr, g| {
            let lo = gen.builder.build_int_mul(g, group, "")?;
            let hi = gen.builder.build_int_add(lo, group, "")?;
            let hi = gen.min(hi, n)?;
            let at = gen.builder.build_int_mul(lo, per, "")?;
            let first = gen.read_cells(partials, at, &types)?;
            let init: Vec<Vec<BasicValueEnum<'ctx>>> =
                first.iter().map(|v| gen.fields(v)).collect();
            let slots = gen.carried_slots(fr, &init)?;
            let next = gen.builder.build_int_add(lo, one, "")?;
            gen.kernel_loop(fr, next, hi, one, &mut |gen, fr, j| {
                let at = gen.builder.build_int_mul(j, per, "")?;
                let other = gen.read_cells(partials, at, &types)?;
                let acc = gen.load_slots(nest, &slots)?;
                gen.apply_reductions(fr, nest, &slots, &acc, &other)
            })?;
            let finals = gen.load_slots(nest, &slots)?;
            let at = gen.builder.build_int_mul(g, per, "")?;
            gen.store_cells(kp[OUT].into_pointer_value(), at, &finals)
        })
    }

    /// The reductions' operators on `left` and `right` (values in
    /// `LoopNest::carried` order) into `slots`.
    pub(super) fn apply_reductions(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &[Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>],
        left: &[Val<'ctx>],
        right: &[Val<'ctx>],
    ) -> Res<()> {
        let mut k = 0;
        for r in &nest.reductions {
            let n = r.carried.len();
            self.apply_operator(fr, &r.op, &slots[k..k + n], &left[k..], &right[k..])?;
            k += n;
        }
        Ok(())
    }

    /// `op` on the first values of `left` and `right` (as many as `slots`)
    /// into `slots`.
    pub(super) fn apply_operator(
        &mut self,
        fr: &mut Frame<'ctx>,
        op: &Operator,
        slots: &[Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>],
        left: &[Val<'ctx>],
        right: &[Val<'ctx>],
    ) -> Res<()> {
        let (lp, rp) = op.params.split_at(slots.len());
        for (p, v) in lp.iter().zip(left).chain(rp.iter().zip(right)) {
            fr.vals.insert(p.id, v.clone());
        }
        self.block(fr, &op.body)?;
        for (res, ps) in op.results.iter().zip(slots) {
            let v = self.val(fr, res)?;
            for (f, (slot, _)) in self.fields(&v).iter().zip(ps) {
                self.builder.build_store(*slot, *f)?;
            }
        }
        Ok(())
    }
}
