//! Reductions of arrays over many iterations split across threads: in
//! goes a launched reduce nest whose one carried value is an array
//! updated in place (`reduce (map2 (+)) (replicate w 0) xss`), out come
//! two kernels that host code runs instead of the column form (`columns`)
//! or the single thread when the shape says so at run time.
//!
//! The column form has `W` threads, one per column, each running all `n`
//! iterations: with few columns and many iterations the GPU sits idle.
//! Here the iterations are cut into `C` contiguous chunks (`C` about the
//! threads the GPU holds, at least 16 iterations each: `tree_chunks`):
//! thread `c` of the first kernel (`split_fold_body`) runs chunk `c` of
//! the body in order on its own partial row, which starts as a copy of
//! the neutral element; the second (`split_combine_body`) combines the
//! partial rows in levels, a launch each: at stride `s` (1, F, F^2, ...,
//! the fan-in `F` 64, or 4 under `ARRC_GPU_SHRINK=1`) thread `(g, j)`
//! combines column `j` of rows `g F s + k s`, `k < F`, in order into row
//! `g F s`, with the reduction's operator cut down to one column; the
//! last level writes the accumulator's element. So a non-commutative
//! operator keeps its order. The first kernel's sequential steps are
//! about `n / C` (times `W`), each level's at most `F`, where the column
//! form's are `n`.
//!
//! Errors: the operator may not fail, so a check of the body does not
//! depend on the accumulator (the body is the operator fused after a map
//! of the element) and fails in the same iteration whatever its chunk
//! starts from; each iteration is its own key, as in the single thread,
//! and the earliest recorded key wins. A thread that fails leaves, which
//! skips only later chunks (larger keys).

use super::abi::{Grid, Params, OUT, PARTIALS, WIDTH};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, Type, VarId};
use crate::loopy::ir::{Block, LoopNest, Operator, Parallelism, Stmt};
use crate::types::ScalarType;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::HashSet;

/// Most chunks (the count travels as a 32-bit word).
const MOST_CHUNKS: i64 = 1 << 24;

/// Fewest iterations a chunk runs: the partial rows' copies and
/// combinations then add at most 2 / 16 to the fold's work.
const CHUNK_ITERATIONS: i64 = 16;

/// Where a combining level's stride `s` lies in the buffer (cell 1;
/// cell 0 holds `C`).
const STRIDE_AT: i64 = 8;

/// Where its span `s F` lies (cell 2), `F` the partial rows a thread of
/// a level combines (`arr_gpu_fan_in`: 64, 4 under `ARRC_GPU_SHRINK=1`
/// so that small inputs take three levels or more).
const SPAN_AT: i64 = 16;

/// Where the partial rows start (after cells 0 to 2).
const ROWS_AT: i64 = 24;

/// Reductions of arrays that can run in chunks of iterations: one
/// operator on one column per reduction.
pub(super) struct ColumnTree {
    pub(super) ops: Vec<ColumnOp>,
}

/// A reduction's operator on one column.
pub(super) struct ColumnOp {
    /// The accumulator's element type.
    pub(super) elem: ScalarType,
    /// The operator's scalar statements before its map over the columns.
    pub(super) prefix: Block,
    /// The map's index, its body (reads of the operands at the index,
    /// then writes of the result there) and the result array.
    pub(super) index: VarId,
    pub(super) body: Block,
    pub(super) result: VarId,
    pub(super) params: (VarId, VarId),
}

/// Whether `nest` can run as chunks whose partial rows are combined by
/// column, and how its operators run on one column.
pub(super) fn column_tree_shape(nest: &LoopNest) -> Option<ColumnTree> {
    if nest.par != Parallelism::Reduce
        || nest.reductions.is_empty()
        || !nest.scans.is_empty()
        || !nest.compactions.is_empty()
        || !nest.hists.is_empty()
        || !nest.scatters.is_empty()
    {
        return None;
    }
    let mut written = HashSet::new();
    let mut ops = Vec::new();
    for red in &nest.reductions {
        let [acc] = red.carried.as_slice() else {
            return None;
        };
        let Type::Array(elem, 1) = acc.var.ty else {
            return None;
        };
        if acc.next != Atom::Var(acc.var.id) {
            return None;
        }
        written.insert(acc.var.id);
        ops.push(column_operator(&red.op, elem)?);
    }
    own_writes(&nest.body, &mut written).then_some(ColumnTree { ops })
}

/// Whether `block` writes only the arrays in `own` and those it makes
/// (views of them included), which it adds to `own`.
pub(super) fn own_writes(block: &Block, own: &mut HashSet<VarId>) -> bool {
    block.iter().all(|s| match s {
        Stmt::Alloc { var, .. } => {
            own.insert(var.id);
            true
        }
        Stmt::Row { var, array, .. }
        | Stmt::View { var, array, .. }
        | Stmt::InPlace { var, array } => {
            if own.contains(array) {
                own.insert(var.id);
            }
            true
        }
        Stmt::Write { array, .. } | Stmt::Copy { array, .. } => own.contains(array),
        Stmt::Loop(inner) => {
            inner.scatters.is_empty()
                && inner.hists.is_empty()
                && inner.compactions.is_empty()
                && own_writes(&inner.body, own)
        }
        _ => s.inner_blocks().into_iter().all(|b| own_writes(b, own)),
    })
}

/// `op` on one column: scalar statements that cannot fail (and size
/// checks of a size against itself), the result's allocation, one map
/// over the columns that reads the two operands at its index and writes
/// the result there after its reads.
pub(super) fn column_operator(op: &Operator, elem: ScalarType) -> Option<ColumnOp> {
    let [left, right] = op.params.as_slice() else {
        return None;
    };
    let [Atom::Var(result)] = op.results.as_slice() else {
        return None;
    };
    let params = (left.id, right.id);
    let mut prefix = Vec::new();
    let mut map = None;
    let mut allocated = false;
    for s in &op.body {
        match s {
            Stmt::Let { exp, .. } if !exp.may_fail() && map.is_none() => prefix.push(s.clone()),
            Stmt::AssertEq {
                expected, found, ..
            } if expected == found => {}
            Stmt::Alloc { var, shape, .. } if var.id == *result && shape.len() == 1 => {
                allocated = true
            }
            Stmt::Loop(inner)
                if map.is_none()
                    && allocated
                    && inner.par == Parallelism::Map
                    && inner.carried().next().is_none()
                    && inner.scatters.is_empty() =>
            {
                map = Some(inner)
            }
            _ => return None,
        }
    }
    let inner = map?;
    let j = inner.index.id;
    let at_j = |index: &[Atom]| index == [Atom::Var(j)];
    let mut wrote = false;
    for s in &inner.body {
        let ok = match s {
            Stmt::Let { .. } | Stmt::If { .. } => scalar_only(std::slice::from_ref(s)),
            Stmt::Read { array, index, .. } => {
                (*array == params.0 || *array == params.1) && at_j(index) && !wrote
            }
            Stmt::Write { array, index, .. } => {
                wrote = true;
                array == result && at_j(index)
            }
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    Some(ColumnOp {
        elem,
        prefix,
        index: j,
        body: inner.body.clone(),
        result: *result,
        params,
    })
}

/// Whether `block` only binds scalars, and cannot fail.
fn scalar_only(block: &[Stmt]) -> bool {
    block.iter().all(|s| match s {
        Stmt::Let { exp, .. } => !exp.may_fail(),
        Stmt::If {
            then_block,
            else_block,
            ..
        } => scalar_only(then_block) && scalar_only(else_block),
        _ => false,
    })
}

/// What both kernels of a column tree start from (`tree_parts`).
pub(super) struct TreeKernel<'ctx> {
    pub(super) chunks: IntValue<'ctx>,
    /// Per reduction: its partial rows, its accumulator, the accumulator's
    /// elements and its width.
    pub(super) parts: Vec<(
        PointerValue<'ctx>,
        Val<'ctx>,
        PointerValue<'ctx>,
        IntValue<'ctx>,
    )>,
    pub(super) gid: IntValue<'ctx>,
    pub(super) threads: IntValue<'ctx>,
}

impl<'ctx> Gen<'ctx, '_> {
    /// Element `k` of an array of `elem` at `base`.
    pub(super) fn element_ptr(
        &self,
        elem: ScalarType,
        base: PointerValue<'ctx>,
        k: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        // Safety: callers index the partial rows and the accumulator
        // within the sizes host code allocated.
        Ok(unsafe {
            self.builder
                .build_in_bounds_gep(self.mem_type(elem), base, &[k], "")?
        })
    }

    /// Where each reduction's partial rows start in a buffer of `C`
    /// chunks (cell 0 holds `C`, cells 1 and 2 the combining level's
    /// stride and span; then, per reduction, `C` rows of its `W` elements, each region from
    /// a multiple of 8 bytes), and the buffer's size in bytes.
    pub(super) fn regions(
        &self,
        tree: &ColumnTree,
        chunks: IntValue<'ctx>,
        widths: &[IntValue<'ctx>],
    ) -> Res<(Vec<IntValue<'ctx>>, IntValue<'ctx>)> {
        let mut at = self.const_i64(ROWS_AT);
        let mut starts = Vec::new();
        for (op, w) in tree.ops.iter().zip(widths) {
            starts.push(at);
            let size = self.const_i64(op.elem.bytes() as i64);
            let bytes = self.builder.build_int_mul(chunks, *w, "")?;
            let bytes = self.builder.build_int_mul(bytes, size, "")?;
            let bytes = self.builder.build_int_add(bytes, self.const_i64(7), "")?;
            let bytes = self.builder.build_and(bytes, self.const_i64(-8), "")?;
            at = self.builder.build_int_add(at, bytes, "")?;
        }
        Ok((starts, at))
    }

    /// What both kernels start from: the chunks `C` (cell 0 of the buffer
    /// `kp[PARTIALS]`), per reduction its partial rows, its accumulator
    /// (the carried value's initial array, updated in place), that
    /// array's elements and its width, and the thread's place in the grid.
    pub(super) fn tree_parts(
        &self,
        nest: &LoopNest,
        tree: &ColumnTree,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<TreeKernel<'ctx>> {
        let buffer = kp[PARTIALS].into_pointer_value();
        let chunks = self
            .builder
            .build_load(self.i64(), buffer, "chunks")?
            .into_int_value();
        let inits = self.inits(nest, kp)?;
        let mut accs = Vec::new();
        let mut widths = Vec::new();
        for (c, fields) in nest.carried().zip(&inits) {
            let acc = self.val_of_fields(c.var.ty, fields)?;
            widths.push(Self::row_width(&acc)?);
            accs.push(acc);
        }
        let (starts, _) = self.regions(tree, chunks, &widths)?;
        let mut parts = Vec::new();
        for ((acc, w), start) in accs.into_iter().zip(widths).zip(starts) {
            // Safety: `regions` lies within the buffer host code allocated.
            let rows = unsafe {
                self.builder
                    .build_in_bounds_gep(self.ctx.i8_type(), buffer, &[start], "")?
            };
            let Val::Array { ptr: acc_row, .. } = acc else {
                return Err(CodegenError::Internal("a reduction without its row".into()));
            };
            parts.push((rows, acc, acc_row, w));
        }
        let (gid, threads) = self.thread_range()?;
        Ok(TreeKernel {
            chunks,
            parts,
            gid,
            threads,
        })
    }

    /// Element `j` of `from` copied to element `j` of `to`.
    pub(super) fn copy_element(
        &self,
        elem: ScalarType,
        from: PointerValue<'ctx>,
        to: PointerValue<'ctx>,
        j: IntValue<'ctx>,
    ) -> Res<()> {
        let src = self.element_ptr(elem, from, j)?;
        let x = self.builder.build_load(self.mem_type(elem), src, "")?;
        let dst = self.element_ptr(elem, to, j)?;
        self.builder.build_store(dst, x)?;
        Ok(())
    }

    pub(super) fn row_width(acc: &Val<'ctx>) -> Res<IntValue<'ctx>> {
        match acc {
            Val::Array { shape, .. } if shape.len() == 1 => Ok(shape[0]),
            _ => Err(CodegenError::Internal(
                "a reduction of arrays without its row".into(),
            )),
        }
    }

    /// Thread `c`: chunk `c` of the iterations, in order, on partial rows
    /// `c`, which start as the neutral elements.
    pub(super) fn split_fold_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        tree: &ColumnTree,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let tk = self.tree_parts(nest, tree, kp)?;
        let (chunks, parts, gid, threads) = (tk.chunks, tk.parts, tk.gid, tk.threads);
        let n = kp[WIDTH].into_int_value();
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        self.kernel_loop(fr, gid, chunks, threads, &mut |gen, fr, c| {
            let mut slots = Vec::new();
            for ((rows, _, neutral, w), op) in parts.iter().zip(&tree.ops) {
                let elem = op.elem;
                let start = gen.builder.build_int_mul(c, *w, "")?;
                let row = gen.element_ptr(elem, *rows, start)?;
                gen.kernel_loop(fr, zero, *w, one, &mut |gen, _, j| {
                    gen.copy_element(elem, *neutral, row, j)
                })?;
                let slot = gen.entry_alloca(fr.func, gen.ptr().into())?;
                gen.builder.build_store(slot, row)?;
                let wslot = gen.entry_alloca(fr.func, gen.i64().into())?;
                gen.builder.build_store(wslot, *w)?;
                slots.push(vec![(slot, gen.ptr().into()), (wslot, gen.i64().into())]);
            }
            let (lo, hi) = gen.slice_of(n, c, chunks)?;
            gen.carried_loop(fr, nest, &slots, lo, hi, true)
        })
    }

    /// One combining level at stride `s` and span `F s` (cells 1 and 2
    /// of the buffer): thread `(g, j)` combines column `j` of rows
    /// `g F s + k s` (`k` from 1, below `F` and `C`) in order into row
    /// `g F s` (left = earlier). In the last level (`F s >= C`) row 0 holds the result: its element
    /// `j` goes to the accumulator and thread 0 writes the final values.
    pub(super) fn split_combine_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        tree: &ColumnTree,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let tk = self.tree_parts(nest, tree, kp)?;
        let (chunks, parts, gid, threads) = (tk.chunks, tk.parts, tk.gid, tk.threads);
        let zero = self.const_i64(0);
        let i64t = self.i64();
        let buffer = kp[PARTIALS].into_pointer_value();
        let cell = |at: i64, name: &str| -> Res<IntValue<'ctx>> {
            // Safety: cells 1 and 2 of the buffer host code allocated.
            let ptr = unsafe {
                self.builder.build_in_bounds_gep(
                    self.ctx.i8_type(),
                    buffer,
                    &[self.const_i64(at)],
                    "",
                )?
            };
            Ok(self.builder.build_load(i64t, ptr, name)?.into_int_value())
        };
        let stride = cell(STRIDE_AT, "stride")?;
        let span = cell(SPAN_AT, "span")?;
        let groups = self.ceil_div(chunks, span)?;
        let last = self
            .builder
            .build_int_compare(IntPredicate::SGE, span, chunks, "last")?;
        let first = self
            .builder
            .build_int_compare(IntPredicate::EQ, gid, zero, "")?;
        let writes = self.builder.build_and(first, last, "")?;
        let finals: Vec<Val<'ctx>> = parts.iter().map(|(_, acc, _, _)| acc.clone()).collect();
        self.when(fr.func, writes, |gen| {
            gen.store_cells(kp[OUT].into_pointer_value(), zero, &finals)
        })?;
        for ((rows, _, out_row, w), op) in parts.iter().zip(&tree.ops) {
            let elem = op.elem;
            let items = self.builder.build_int_mul(groups, *w, "")?;
            self.kernel_loop(fr, gid, items, threads, &mut |gen, fr, item| {
                let g = gen.builder.build_int_signed_div(item, *w, "")?;
                let j = gen.builder.build_int_signed_rem(item, *w, "")?;
                let base = gen.builder.build_int_mul(g, span, "")?;
                let row_at = |gen: &Self, r: IntValue<'ctx>| -> Res<Val<'ctx>> {
                    let start = gen.builder.build_int_mul(r, *w, "")?;
                    Ok(Val::Array {
                        ptr: gen.element_ptr(elem, *rows, start)?,
                        elem,
                        shape: vec![*w],
                    })
                };
                let left = row_at(gen, base)?;
                fr.vals.insert(op.params.0, left.clone());
                fr.vals.insert(op.result, left.clone());
                fr.vals
                    .insert(op.index, Val::Scalar(j.into(), ScalarType::I64));
                let from = gen.builder.build_int_add(base, stride, "")?;
                let end = gen.builder.build_int_add(base, span, "")?;
                let end = gen.min(end, chunks)?;
                gen.kernel_loop(fr, from, end, stride, &mut |gen, fr, r| {
                    fr.vals.insert(op.params.1, row_at(gen, r)?);
                    gen.block(fr, &op.prefix)?;
                    gen.block(fr, &op.body)
                })?;
                let Val::Array { ptr: row0, .. } = left else {
                    return Err(CodegenError::Internal("a partial row".into()));
                };
                gen.when(fr.func, last, |gen| {
                    gen.copy_element(elem, row0, *out_row, j)
                })
            })?;
        }
        Ok(())
    }

    /// Host side: the chunks for `n` iterations of `w` columns, or 0 where
    /// the chunked form does not pay (fewer than 2 chunks, or, when the
    /// column form fits, fewer than twice the columns). `C` is the threads
    /// the fold kernel's launch gets on this GPU for unbounded work (its
    /// resident threads), at most one chunk per 16 iterations (so the
    /// partial rows' copies and combinations stay small beside the fold,
    /// and the buffer at most a sixteenth of the input's elements), and at
    /// most `cap` when given.
    pub(super) fn tree_chunks(
        &mut self,
        fold: usize,
        n: IntValue<'ctx>,
        w: IntValue<'ctx>,
        columns: bool,
        cap: Option<IntValue<'ctx>>,
    ) -> Res<IntValue<'ctx>> {
        let f = self.runtime(RuntimeFn::GpuThreads);
        let k = self.ctx.i32_type().const_int(fold as u64, false);
        let unbounded = self.const_i64(1 << 40);
        let resident = self.call_int(f, &[k.into(), unbounded.into()])?;
        let per_chunk = self.const_i64(CHUNK_ITERATIONS);
        let most = self.builder.build_int_signed_div(n, per_chunk, "")?;
        let chunks = self.min(resident, most)?;
        let mut chunks = self.min(chunks, self.const_i64(MOST_CHUNKS))?;
        if let Some(cap) = cap {
            chunks = self.min(chunks, cap)?;
        }
        let two = self.const_i64(2);
        let several = self
            .builder
            .build_int_compare(IntPredicate::SGE, chunks, two, "")?;
        let some = self
            .builder
            .build_int_compare(IntPredicate::SGT, w, self.const_i64(0), "")?;
        let mut pays = self.builder.build_and(several, some, "")?;
        if columns {
            let twice = self.builder.build_int_mul(w, two, "")?;
            let wider = self
                .builder
                .build_int_compare(IntPredicate::SLE, twice, chunks, "")?;
            pays = self.builder.build_and(pays, wider, "")?;
        }
        Ok(self
            .builder
            .build_select(pays, chunks, self.const_i64(0), "tree")?
            .into_int_value())
    }

    /// The carried arrays' row widths, and their sum.
    pub(super) fn carried_widths(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
    ) -> Res<(Vec<IntValue<'ctx>>, IntValue<'ctx>)> {
        let mut widths = Vec::new();
        for c in nest.carried() {
            widths.push(Self::row_width(&self.val(fr, &c.init)?)?);
        }
        let mut sum = self.const_i64(0);
        for x in &widths {
            sum = self.builder.build_int_add(sum, *x, "")?;
        }
        Ok((widths, sum))
    }

    /// The largest of `sizes` (0 when there are none).
    pub(super) fn widest(&mut self, sizes: &[IntValue<'ctx>]) -> Res<IntValue<'ctx>> {
        sizes
            .iter()
            .try_fold(self.const_i64(0), |m, x| self.max(m, *x))
    }

    /// Host side: the chunked forms' buffer of `bytes` from the pool, its
    /// cell 0 holding `chunks` and the high words of the cells at `cells`
    /// cleared (the kernels read them as i64), and `values` with it as the
    /// partials. `free_partials` returns it.
    pub(super) fn chunk_partials(
        &mut self,
        bytes: IntValue<'ctx>,
        chunks: IntValue<'ctx>,
        cells: &[i64],
        values: &[BasicValueEnum<'ctx>],
    ) -> Res<(IntValue<'ctx>, Vec<BasicValueEnum<'ctx>>)> {
        let alloc = self.runtime(RuntimeFn::GpuAlloc);
        let p = self.call_int(alloc, &[bytes.into()])?;
        let fill = self.runtime(RuntimeFn::GpuFill32);
        let i32t = self.ctx.i32_type();
        let c32 = self.builder.build_int_truncate(chunks, i32t, "")?;
        let one = self.const_i64(1);
        self.builder
            .build_call(fill, &[p.into(), c32.into(), one.into()], "")?;
        for at in std::iter::once(&0).chain(cells) {
            let high = self.builder.build_int_add(p, self.const_i64(at + 4), "")?;
            self.builder.build_call(
                fill,
                &[high.into(), i32t.const_zero().into(), one.into()],
                "",
            )?;
        }
        let mut values = values.to_vec();
        values[PARTIALS] = self.builder.build_int_to_ptr(p, self.ptr(), "")?.into();
        Ok((p, values))
    }

    /// Returns `chunk_partials`' buffer to the pool.
    pub(super) fn free_partials(&mut self, p: IntValue<'ctx>) -> Res<()> {
        let free = self.runtime(RuntimeFn::GpuFree);
        self.builder.build_call(free, &[p.into()], "")?;
        Ok(())
    }

    /// Host side: the two kernels of the chunked form when the shape pays
    /// (`tree_chunks`), else `otherwise` (the column form or one thread).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_column_tree(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        tree: &ColumnTree,
        (fold, combine): (usize, usize),
        columns: bool,
        params: &Params<'ctx>,
        values: &[BasicValueEnum<'ctx>],
        otherwise: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let (widths, w) = self.carried_widths(fr, nest)?;
        let n = values[WIDTH].into_int_value();
        let chunks = self.tree_chunks(fold, n, w, columns, None)?;
        let split =
            self.builder
                .build_int_compare(IntPredicate::SGT, chunks, self.const_i64(0), "")?;
        let whole = self.builder.build_not(split, "")?;
        self.when(fr.func, split, |gen| {
            let (_, bytes) = gen.regions(tree, chunks, &widths)?;
            let (p, values) = gen.chunk_partials(bytes, chunks, &[STRIDE_AT, SPAN_AT], values)?;
            let most = gen.widest(&widths)?;
            let fill = gen.runtime(RuntimeFn::GpuFill32);
            let i32t = gen.ctx.i32_type();
            let one = gen.const_i64(1);
            gen.reserve_heap(fr, nest, Some(fold), chunks, &[])?;
            gen.launch(fold, Grid::Work, chunks, &params.types, &values, fr)?;
            // The combining levels: stride 1, F, F^2, ... below `C`.
            let i64t = gen.i64();
            let fan_in = gen.runtime(RuntimeFn::GpuFanIn);
            let fan_in = gen.call_int(fan_in, &[])?;
            let stride = gen.entry_alloca(fr.func, i64t.into())?;
            gen.builder.build_store(stride, one)?;
            let head = gen.ctx.append_basic_block(fr.func, "tree.level");
            let body = gen.ctx.append_basic_block(fr.func, "tree.level.body");
            let done = gen.ctx.append_basic_block(fr.func, "tree.levels.done");
            gen.builder.build_unconditional_branch(head)?;
            gen.builder.position_at_end(head);
            let s = gen.builder.build_load(i64t, stride, "s")?.into_int_value();
            let more = gen
                .builder
                .build_int_compare(IntPredicate::SLT, s, chunks, "")?;
            gen.builder.build_conditional_branch(more, body, done)?;
            gen.builder.position_at_end(body);
            let cell = gen.builder.build_int_add(p, gen.const_i64(STRIDE_AT), "")?;
            let s32 = gen.builder.build_int_truncate(s, i32t, "")?;
            gen.builder
                .build_call(fill, &[cell.into(), s32.into(), one.into()], "")?;
            let span = gen.builder.build_int_mul(s, fan_in, "")?;
            let cell = gen.builder.build_int_add(p, gen.const_i64(SPAN_AT), "")?;
            let span32 = gen.builder.build_int_truncate(span, i32t, "")?;
            gen.builder
                .build_call(fill, &[cell.into(), span32.into(), one.into()], "")?;
            let groups = gen.ceil_div(chunks, span)?;
            let work = gen.builder.build_int_mul(groups, most, "")?;
            gen.launch(combine, Grid::Work, work, &params.types, &values, fr)?;
            gen.builder.build_store(stride, span)?;
            gen.builder.build_unconditional_branch(head)?;
            gen.builder.position_at_end(done);
            gen.free_partials(p)
        })?;
        self.when(fr.func, whole, |gen| otherwise(gen))
    }

    /// Host side: a nest of the column form or of one thread (`plain`),
    /// with the chunked form's kernels beside it when its shape fits
    /// (`columns`: the column form is the alternative).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_or_tree(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        name: &str,
        params: &Params<'ctx>,
        values: &[BasicValueEnum<'ctx>],
        columns: bool,
        plain: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let Some(tree) = column_tree_shape(nest) else {
            if let Some(chunked) = super::scan_chunks::scan_chunks_shape(nest) {
                return self.launch_or_scan_chunks(
                    fr, nest, &chunked, name, params, values, columns, plain,
                );
            }
            return match super::hist_chunks::hist_chunks_shape(nest) {
                Some(chunked) => self.launch_or_hist_chunks(
                    fr, nest, &chunked, name, params, values, columns, plain,
                ),
                None => plain(self),
            };
        };
        let fold = self.kernel(
            &format!("{name}_chunks"),
            params,
            Vec::new(),
            |gen, kfr, kp| gen.split_fold_body(kfr, nest, &tree, kp),
        )?;
        let combine = self.kernel(
            &format!("{name}_combine"),
            params,
            Vec::new(),
            |gen, kfr, kp| gen.split_combine_body(kfr, nest, &tree, kp),
        )?;
        self.launch_column_tree(
            fr,
            nest,
            &tree,
            (fold, combine),
            columns,
            params,
            values,
            plain,
        )
    }
}
