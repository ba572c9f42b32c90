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
//! form (a row per thread), as block trees do.

use super::abi::{Grid, Params, PARTIALS, WIDTH};
use super::loops::Key;
use super::reduce::{commutative, Shuffle, TREE_FIELDS};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, Type};
use crate::loopy::ir::{LoopNest, Parallelism, Stmt};
use crate::types::ScalarType;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};

/// Rows at least this long get a block each when they are few.
pub(super) const ROW_LONG: i64 = 1024;
/// Fewer rows than this are few: a GPU holds about this many warps at once
/// (an H100: 132 multiprocessors of 64 warps), so a warp per row would
/// leave it partly idle while each warp's lanes fold long slices.
pub(super) const ROW_FEW: i64 = 8192;

/// Where a map's iteration reduces its row: the position of the last
/// reduction's nest in the map's body (`reductions_at` gives them all).
pub(super) fn rows_shape(nest: &LoopNest) -> Option<usize> {
    if nest.par != Parallelism::Map || nest.carried().next().is_some() {
        return None;
    }
    let defined = nest.defined_vars();
    let mut start = 0;
    let mut last = None;
    for (at, s) in nest.body.iter().enumerate() {
        match s {
            Stmt::SeqLoop(_) => return None,
            Stmt::Loop(inner) => {
                // The width is the same in every row (a regular nesting):
                // the keys of one row come before the next row's.
                let invariant = match &inner.width {
                    Atom::Var(v) => !defined.contains(v),
                    Atom::Const(_) => true,
                };
                if !row_reduction(inner) || !invariant || !binds_only(&nest.body[start..at]) {
                    return None;
                }
                start = at + 1;
                last = Some(at);
            }
            _ => {}
        }
    }
    last.filter(|_| !allocates(&nest.body))
}

/// The positions of a row-reduction map's reductions (`rows_shape`), in
/// order.
pub(super) fn reductions_at(nest: &LoopNest) -> Vec<usize> {
    let mut out = Vec::new();
    for (at, s) in nest.body.iter().enumerate() {
        if matches!(s, Stmt::Loop(_)) {
            out.push(at);
        }
    }
    out
}

fn inner_at(nest: &LoopNest, at: usize) -> Res<&LoopNest> {
    match &nest.body[at] {
        Stmt::Loop(inner) => Ok(inner),
        _ => Err(CodegenError::Internal(
            "a row reduction without its nest".into(),
        )),
    }
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

/// A reduction of scalars whose operators cannot fail, few enough fields
/// for a block's shared memory.
fn row_reduction(inner: &LoopNest) -> bool {
    let fields: usize = inner
        .carried()
        .map(|c| match c.var.ty {
            Type::Scalar(_) => 1,
            _ => TREE_FIELDS + 1,
        })
        .sum();
    inner.par == Parallelism::Reduce
        && !inner.reductions.is_empty()
        && inner.scans.is_empty()
        && inner.compactions.is_empty()
        && inner.hists.is_empty()
        && (1..=TREE_FIELDS).contains(&fields)
        && inner
            .reductions
            .iter()
            .all(|r| crate::loopy::chunk::infallible(&r.op.body))
}

/// Whether a block makes or releases memory anywhere (per-thread scratch
/// would be made once per thread of a group, not once per row).
pub(super) fn allocates(block: &[Stmt]) -> bool {
    block.iter().any(|s| match s {
        Stmt::Alloc { .. } | Stmt::Free(_) | Stmt::InPlace { .. } => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => allocates(then_block) || allocates(else_block),
        Stmt::SeqLoop(l) => allocates(&l.body),
        Stmt::Loop(n) => allocates(&n.body) || n.operators().any(|o| allocates(&o.body)),
        _ => false,
    })
}

impl<'ctx> Gen<'ctx, '_> {
    /// The row-reduction kernel of `nest`, whose last reduction is
    /// statement `at` of its body. Reductions before the last (`let m =
    /// reduce max row` before a sum that uses `m`) are combined the same
    /// way and their results broadcast to the whole group, which runs the
    /// statements between them; the rows of such a nest are never split.
    pub(super) fn rows_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        at: usize,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let ats = reductions_at(nest);
        let inner = inner_at(nest, at)?;
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
        // A row's keys: reduction k's iterations after `offsets[k]`, the
        // statements after it at `offsets[k + 1]`.
        let mut offsets = vec![zero];
        for &a in &ats {
            let w = self.int(fr, &inner_at(nest, a)?.width)?;
            let next = self
                .builder
                .build_int_add(*offsets.last().unwrap_or(&zero), w, "")?;
            offsets.push(self.builder.build_int_add(next, one, "")?);
        }
        let keys = self
            .builder
            .build_int_add(*offsets.last().unwrap_or(&zero), one, "")?;
        let fields = self.fields_of(inner);
        let types: Vec<Type> = inner.carried().map(|c| c.var.ty).collect();
        self.kernel_loop(fr, first, items, stride, &mut |gen, fr, item| {
            let r = gen.builder.build_int_signed_div(item, chunks, "row")?;
            let chunk = gen.builder.build_int_signed_rem(item, chunks, "")?;
            let row_end = gen.ctx.append_basic_block(fr.func, "row.end");
            let key_base = gen.builder.build_int_mul(r, keys, "")?;
            let key = gen.key_slot()?;
            gen.builder.build_store(key, key_base)?;
            fr.vals
                .insert(nest.index.id, Val::Scalar(r.into(), ScalarType::I64));
            gen.set_on_fail(Some(row_end));
            let mut start = 0;
            let mut last_slots = None;
            for (k, &a) in ats.iter().enumerate() {
                let red = inner_at(nest, a)?;
                let seg_key = gen.builder.build_int_add(key_base, offsets[k], "")?;
                gen.builder.build_store(key, seg_key)?;
                gen.block(fr, &nest.body[start..a].to_vec())?;
                start = a + 1;
                let slots = gen.row_fold(fr, red, seg_key, (chunk, chunks), (t, size), row_end)?;
                gen.warp_combine(fr, red, &slots, lane)?;
                gen.when(fr.func, per_block, |gen| {
                    gen.block_combine(fr, red, &slots, tid, lane, ntid)
                })?;
                if a == at {
                    last_slots = Some(slots);
                    break;
                }
                // An earlier reduction: every thread of the group binds
                // its results for the statements and reductions after it.
                gen.broadcast(fr, red, &slots, per_block, tid)?;
                let after = gen.builder.build_int_add(key_base, offsets[k + 1], "")?;
                gen.builder.build_store(key, after)?;
                let finals = gen.load_slots(red, &slots)?;
                gen.bind_finals(fr, red, finals)?;
            }
            let slots = last_slots
                .ok_or_else(|| CodegenError::Internal("a row reduction without its nest".into()))?;
            let lead = gen
                .builder
                .build_int_compare(IntPredicate::EQ, t, zero, "")?;
            gen.when(fr.func, lead, |gen| {
                // A split row: the block's partial, and the last of the
                // row's blocks combines them in order.
                let done = gen.ctx.append_basic_block(fr.func, "row.done");
                let finish = gen.ctx.append_basic_block(fr.func, "row.finish");
                let shared = gen.ctx.append_basic_block(fr.func, "row.shared");
                gen.builder
                    .build_conditional_branch(split, shared, finish)?;
                gen.builder.position_at_end(shared);
                let last = gen.split_partial(
                    fr,
                    inner,
                    &slots,
                    buffer,
                    (rows, r),
                    (chunk, chunks),
                    fields,
                    &types,
                )?;
                gen.builder.build_conditional_branch(last, finish, done)?;
                gen.builder.position_at_end(finish);
                let after = ats.len();
                let after = gen.builder.build_int_add(key_base, offsets[after], "")?;
                gen.builder.build_store(key, after)?;
                let finals = gen.load_slots(inner, &slots)?;
                gen.bind_finals(fr, inner, finals)?;
                gen.block(fr, &post)?;
                gen.builder.build_unconditional_branch(done)?;
                gen.builder.position_at_end(done);
                Ok(())
            })?;
            gen.builder.build_unconditional_branch(row_end)?;
            gen.builder.position_at_end(row_end);
            Ok(())
        })?;
        self.set_on_fail(None);
        Ok(())
    }

    /// The thread's share of one reduction `red` over its row (of chunk
    /// `chunk` of `chunks`), folded from the neutral element into fresh
    /// slots; iteration `j`'s checks are keyed `seg_key + 1 + j`. A check
    /// that fails leaves the fold only, then the row (`row_end`).
    fn row_fold(
        &mut self,
        fr: &mut Frame<'ctx>,
        red: &LoopNest,
        seg_key: IntValue<'ctx>,
        (chunk, chunks): (IntValue<'ctx>, IntValue<'ctx>),
        (t, size): (IntValue<'ctx>, IntValue<'ctx>),
        row_end: inkwell::basic_block::BasicBlock<'ctx>,
    ) -> Res<super::loops::SlotVec<'ctx>> {
        let one = self.const_i64(1);
        let width = self.int(fr, &red.width)?;
        let (lo, hi) = self.slice_of(width, chunk, chunks)?;
        let mut inits = Vec::new();
        for c in red.carried() {
            inits.push(self.fields(&self.val(fr, &c.init)?));
        }
        let slots = self.carried_slots(fr, &inits)?;
        let range = if red.reductions.iter().all(|r| commutative(&r.op)) {
            (self.builder.build_int_add(lo, t, "")?, hi, size)
        } else {
            let part = self.builder.build_int_sub(hi, lo, "")?;
            let (a, b) = self.slice_of(part, t, size)?;
            let a = self.builder.build_int_add(lo, a, "")?;
            (a, self.builder.build_int_add(lo, b, "")?, one)
        };
        let folded = self.ctx.append_basic_block(fr.func, "row.folded");
        self.set_on_fail(Some(folded));
        let after = self.builder.build_int_add(seg_key, one, "")?;
        let body = red.body.clone();
        self.carried_loop_keyed(fr, red, &body, &slots, range, Key::After(after), 0)?;
        self.builder.build_unconditional_branch(folded)?;
        self.builder.position_at_end(folded);
        self.set_on_fail(Some(row_end));
        Ok(slots)
    }

    /// The group's value of `red` (in its first thread's `slots`) in every
    /// thread's `slots`: a shuffle from lane 0 for a warp, a shared cell
    /// between barriers for a block.
    fn broadcast(
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
    /// barrier, so the next row may write the cells again.
    fn block_combine(
        &mut self,
        fr: &mut Frame<'ctx>,
        inner: &LoopNest,
        slots: &super::loops::Slots<'ctx>,
        tid: IntValue<'ctx>,
        lane: IntValue<'ctx>,
        ntid: IntValue<'ctx>,
    ) -> Res<()> {
        let shared = self.shared_base()?;
        self.warp_cells_tree(fr, inner, slots, shared, tid, lane, ntid)?;
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
    /// A split row's block partial (in the lead thread's `slots`) stored
    /// in `buffer` (cell 0: the chunks per row; cells 1..=rows: a counter
    /// per row; then `fields` cells per row and chunk); returns whether
    /// this block was the row's last, in which case `slots` hold the row's
    /// partials combined in chunk order.
    #[allow(clippy::too_many_arguments)]
    fn split_partial(
        &mut self,
        fr: &mut Frame<'ctx>,
        inner: &LoopNest,
        slots: &super::loops::Slots<'ctx>,
        buffer: PointerValue<'ctx>,
        (rows, r): (IntValue<'ctx>, IntValue<'ctx>),
        (chunk, chunks): (IntValue<'ctx>, IntValue<'ctx>),
        fields: usize,
        types: &[Type],
    ) -> Res<IntValue<'ctx>> {
        let one = self.const_i64(1);
        let per = self.const_i64(fields as i64);
        let head = self.builder.build_int_add(rows, one, "")?;
        let cell_of = |gen: &Self, c: IntValue<'ctx>| -> Res<IntValue<'ctx>> {
            let at = gen.builder.build_int_mul(r, chunks, "")?;
            let at = gen.builder.build_int_add(at, c, "")?;
            let at = gen.builder.build_int_mul(at, per, "")?;
            Ok(gen.builder.build_int_add(at, head, "")?)
        };
        let mine = self.load_slots(inner, slots)?;
        let at = cell_of(self, chunk)?;
        self.store_cells_with(buffer, at, &mine, true)?;
        self.fence_gpu()?;
        let counter = self.builder.build_int_add(r, one, "")?;
        let counter = self.cell_ptr(buffer, counter)?;
        let before = self.builder.build_atomicrmw(
            AtomicRMWBinOp::Add,
            counter,
            one,
            AtomicOrdering::Monotonic,
        )?;
        let last_one = self.builder.build_int_sub(chunks, one, "")?;
        let last = self
            .builder
            .build_int_compare(IntPredicate::EQ, before, last_one, "last")?;
        self.when(fr.func, last, |gen| {
            gen.fence_gpu()?;
            let zero = gen.const_i64(0);
            let at = cell_of(gen, zero)?;
            let firsts = gen.read_cells_with(buffer, at, types, true)?;
            for (v, ps) in firsts.iter().zip(slots) {
                for (f, (slot, _)) in gen.fields(v).iter().zip(ps) {
                    gen.builder.build_store(*slot, *f)?;
                }
            }
            gen.kernel_loop(fr, one, chunks, one, &mut |gen, fr, c| {
                let at = cell_of(gen, c)?;
                let other = gen.read_cells_with(buffer, at, types, true)?;
                let acc = gen.load_slots(inner, slots)?;
                gen.apply_reductions(fr, inner, slots, &acc, &other)
            })
        })?;
        Ok(last)
    }

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
        let inner = inner_at(nest, at)?;
        let ats = reductions_at(nest);
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
        let mut fields = 0;
        for &a in &ats {
            fields = fields.max(self.fields_of(inner_at(nest, a)?));
        }
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
        // Reductions after the first need the earlier ones' whole rows.
        let one_reduction = self
            .ctx
            .bool_type()
            .const_int((ats.len() == 1) as u64, false);
        let split = self.builder.build_and(split, one_reduction, "split")?;
        let chunks = self
            .builder
            .build_select(split, chunks, self.const_i64(1), "chunks")?
            .into_int_value();
        // The split form's buffer: the chunks per row, a counter per row,
        // the partials (`split_partial`).
        let buffer = self.entry_alloca(fr.func, self.i64().into())?;
        self.builder.build_store(buffer, self.const_i64(0))?;
        self.when(fr.func, split, |gen| {
            let cells = gen.builder.build_int_mul(rows, chunks, "")?;
            let cells = gen
                .builder
                .build_int_mul(cells, gen.const_i64(fields as i64), "")?;
            let cells = gen.builder.build_int_add(cells, rows, "")?;
            let cells = gen.builder.build_int_add(cells, gen.const_i64(1), "")?;
            let bytes = gen.builder.build_int_mul(cells, gen.const_i64(8), "")?;
            let alloc = gen.runtime(RuntimeFn::GpuAlloc);
            let p = gen.call_int(alloc, &[bytes.into()])?;
            let fill = gen.runtime(RuntimeFn::GpuFill32);
            let words = gen.builder.build_int_add(rows, gen.const_i64(1), "")?;
            let words = gen.builder.build_int_mul(words, gen.const_i64(2), "")?;
            let i32t = gen.ctx.i32_type();
            gen.builder.build_call(
                fill,
                &[p.into(), i32t.const_zero().into(), words.into()],
                "",
            )?;
            let c32 = gen.builder.build_int_truncate(chunks, i32t, "")?;
            gen.builder
                .build_call(fill, &[p.into(), c32.into(), gen.const_i64(1).into()], "")?;
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
            gen.launch(
                kernel,
                Grid::Shared(fields * 8),
                work,
                &params.types,
                values,
                fr,
            )
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
