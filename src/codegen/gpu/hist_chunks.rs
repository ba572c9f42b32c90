//! Histograms of rows over many iterations split across threads: in goes
//! a launched histogram nest whose bins are rows (`reduce_by_index` or
//! `hist` into a matrix) with an operator on one column that cannot fail,
//! out come two kernels that host code runs instead of the column form
//! (`columns`) or the single thread when the shape says so at run time.
//!
//! Thread `c` of the first (`hist_fold_body`) sets its private copy of
//! the bins (`k` rows of `W`, from a buffer of `C` copies) to the neutral
//! row and runs chunk `c` of the iterations on it; thread `(b, j)` of the
//! second (`hist_combine_body`) combines column `j` of bin `b` of the
//! copies, in chunk order, into the destination's element (left =
//! earlier, so the destination's own value comes first). `C` is bounded
//! by the resident threads, by `n / max(16, 2 k)` (so that setting the
//! copies and combining them cost at most about the fold's own work) and
//! by the buffer's bytes (`MOST_BYTES`).
//!
//! Errors: the operators cannot fail and no check of the body depends on
//! the bins (`scan_chunks::harmless`), so a check fails in the same
//! iteration whatever its chunk's copy holds; each iteration is its own
//! key and the earliest recorded wins. Updates at an index outside the
//! bins are skipped in the body itself, as in the single thread.

use super::abi::{Grid, Params, PARTIALS, WIDTH};
use super::column_tree::{column_operator, own_writes, ColumnTree};
use super::scan_chunks::{aliases, taint};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, Type, VarId};
use crate::loopy::ir::{LoopNest, Parallelism};
use crate::types::ScalarType;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::{HashMap, HashSet};

/// Most bytes of private copies of the bins a launch takes.
const MOST_BYTES: i64 = 1 << 28;

/// A histogram nest whose chunks can update private copies of its bins.
pub(super) struct HistChunks {
    /// Each histogram's operator on one column.
    tree: ColumnTree,
    /// Each histogram's bins and neutral row.
    bins: Vec<(VarId, Atom)>,
}

/// Whether `nest` is a histogram of rows whose chunks can update private
/// copies of the bins: each histogram one rank-2 bins array with an
/// operator on one column that cannot fail, the body writing nothing but
/// its own arrays and the bins, and no check depending on the bins.
pub(super) fn hist_chunks_shape(nest: &LoopNest) -> Option<HistChunks> {
    if nest.par != Parallelism::Hist
        || nest.hists.is_empty()
        || !nest.reductions.is_empty()
        || !nest.scans.is_empty()
        || !nest.compactions.is_empty()
        || !nest.scatters.is_empty()
    {
        return None;
    }
    let mut ops = Vec::new();
    let mut bins = Vec::new();
    for h in &nest.hists {
        let ([b], [neutral]) = (h.bins.as_slice(), h.neutral.as_slice()) else {
            return None;
        };
        let Atom::Var(_) = neutral else {
            return None;
        };
        let elem = nest_bins_elem(nest, *b)?;
        ops.push(column_operator(&h.op, elem)?);
        bins.push((*b, *neutral));
    }
    let mut own: HashSet<VarId> = bins.iter().map(|(b, _)| *b).collect();
    if !own_writes(&nest.body, &mut own) {
        return None;
    }
    let mut bases = HashMap::new();
    aliases(&nest.body, &mut bases);
    for (b, _) in &bins {
        let tainted = taint(&nest.body, *b, &bases)?;
        if bins.iter().any(|(o, _)| o != b && tainted.contains(o)) {
            return None;
        }
    }
    Some(HistChunks {
        tree: ColumnTree { ops },
        bins,
    })
}

/// The element type of bins `b`, when the body views it as rank 2.
fn nest_bins_elem(nest: &LoopNest, b: VarId) -> Option<ScalarType> {
    let mut found = None;
    find_rows(&nest.body, b, &mut found);
    found
}

/// The element of the rows the body takes of `b` (`row r = b[i]` of
/// rank 1).
fn find_rows(block: &[crate::loopy::ir::Stmt], b: VarId, found: &mut Option<ScalarType>) {
    use crate::loopy::ir::Stmt;
    for s in block {
        match s {
            Stmt::Row { var, array, .. } if *array == b => {
                if let Type::Array(elem, 1) = var.ty {
                    *found = Some(elem);
                }
            }
            _ => s
                .inner_blocks()
                .into_iter()
                .for_each(|inner| find_rows(inner, b, found)),
        }
    }
}

impl<'ctx> Gen<'ctx, '_> {
    /// Per histogram: its copies in the buffer, its bins (`k` rows of `W`)
    /// and its neutral row; and `C` (cell 0).
    #[allow(clippy::type_complexity)]
    fn hist_parts(
        &self,
        fr: &Frame<'ctx>,
        hc: &HistChunks,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<(
        IntValue<'ctx>,
        Vec<(
            PointerValue<'ctx>,
            PointerValue<'ctx>,
            IntValue<'ctx>,
            IntValue<'ctx>,
            PointerValue<'ctx>,
        )>,
    )> {
        let buffer = kp[PARTIALS].into_pointer_value();
        let chunks = self
            .builder
            .build_load(self.i64(), buffer, "chunks")?
            .into_int_value();
        let mut sizes = Vec::new();
        let mut shapes = Vec::new();
        for (b, neutral) in &hc.bins {
            let (Val::Array { ptr, shape, .. }, Val::Array { ptr: row, .. }) =
                (self.val(fr, &Atom::Var(*b))?, self.val(fr, neutral)?)
            else {
                return Err(CodegenError::Internal("histogram bins without rows".into()));
            };
            let [k, w] = shape.as_slice() else {
                return Err(CodegenError::Internal("histogram bins of rank 2".into()));
            };
            sizes.push(self.builder.build_int_mul(*k, *w, "")?);
            shapes.push((ptr, *k, *w, row));
        }
        let (starts, _) = self.regions(&hc.tree, chunks, &sizes)?;
        let mut parts = Vec::new();
        for ((ptr, k, w, row), start) in shapes.into_iter().zip(starts) {
            // Safety: `regions` lies within the buffer host code allocated.
            let copies = unsafe {
                self.builder
                    .build_in_bounds_gep(self.ctx.i8_type(), buffer, &[start], "")?
            };
            parts.push((copies, ptr, k, w, row));
        }
        Ok((chunks, parts))
    }

    /// Thread `c`: its copies of the bins set to the neutral rows, then
    /// chunk `c` of the iterations on them, in order.
    fn hist_fold_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        hc: &HistChunks,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let (chunks, parts) = self.hist_parts(fr, hc, kp)?;
        let (gid, threads) = self.thread_range()?;
        let n = kp[WIDTH].into_int_value();
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        self.kernel_loop(fr, gid, chunks, threads, &mut |gen, fr, c| {
            for ((copies, _, k, w, neutral), (b, _)) in parts.iter().zip(&hc.bins) {
                let elem = match gen.val(fr, &Atom::Var(*b))? {
                    Val::Array { elem, .. } => elem,
                    Val::Scalar(..) => return Err(CodegenError::Internal("histogram bins".into())),
                };
                let size = gen.builder.build_int_mul(*k, *w, "")?;
                let start = gen.builder.build_int_mul(c, size, "")?;
                let copy = gen.element_ptr(elem, *copies, start)?;
                gen.kernel_loop(fr, zero, size, one, &mut |gen, _, e| {
                    let j = gen.builder.build_int_signed_rem(e, *w, "")?;
                    let src = gen.element_ptr(elem, *neutral, j)?;
                    let x = gen.builder.build_load(gen.mem_type(elem), src, "")?;
                    let dst = gen.element_ptr(elem, copy, e)?;
                    gen.builder.build_store(dst, x)?;
                    Ok(())
                })?;
                fr.vals.insert(
                    *b,
                    Val::Array {
                        ptr: copy,
                        elem,
                        shape: vec![*k, *w],
                    },
                );
            }
            let (lo, hi) = gen.slice_of(n, c, chunks)?;
            gen.carried_loop(fr, nest, &[], lo, hi, true)
        })
    }

    /// Thread `(b, j)` of each histogram: column `j` of bin `b` of every
    /// copy, in chunk order, combined into the bins.
    fn hist_combine_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        hc: &HistChunks,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let (chunks, parts) = self.hist_parts(fr, hc, kp)?;
        let (gid, threads) = self.thread_range()?;
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        for ((copies, bins, k, w, _), op) in parts.iter().zip(&hc.tree.ops) {
            let elem = op.elem;
            let size = self.builder.build_int_mul(*k, *w, "")?;
            self.kernel_loop(fr, gid, size, threads, &mut |gen, fr, item| {
                let b = gen.builder.build_int_signed_div(item, *w, "")?;
                let j = gen.builder.build_int_signed_rem(item, *w, "")?;
                let at = gen.builder.build_int_mul(b, *w, "")?;
                let row = Val::Array {
                    ptr: gen.element_ptr(elem, *bins, at)?,
                    elem,
                    shape: vec![*w],
                };
                fr.vals.insert(op.params.0, row.clone());
                fr.vals.insert(op.result, row);
                fr.vals
                    .insert(op.index, Val::Scalar(j.into(), ScalarType::I64));
                gen.kernel_loop(fr, zero, chunks, one, &mut |gen, fr, c| {
                    let copy = gen.builder.build_int_mul(c, size, "")?;
                    let copy = gen.builder.build_int_add(copy, at, "")?;
                    fr.vals.insert(
                        op.params.1,
                        Val::Array {
                            ptr: gen.element_ptr(elem, *copies, copy)?,
                            elem,
                            shape: vec![*w],
                        },
                    );
                    gen.block(fr, &op.prefix)?;
                    gen.block(fr, &op.body)
                })
            })?;
        }
        Ok(())
    }

    /// Host side: the two kernels of the chunked histogram when the shape
    /// pays, else `otherwise` (the column form or one thread).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_or_hist_chunks(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        hc: &HistChunks,
        name: &str,
        params: &Params<'ctx>,
        values: &[BasicValueEnum<'ctx>],
        columns: bool,
        otherwise: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let fold = self.kernel(
            &format!("{name}_hist_fold"),
            params,
            Vec::new(),
            |gen, kfr, kp| gen.hist_fold_body(kfr, nest, hc, kp),
        )?;
        let combine = self.kernel(
            &format!("{name}_hist_combine"),
            params,
            Vec::new(),
            |gen, kfr, kp| gen.hist_combine_body(kfr, hc, kp),
        )?;
        let (mut sizes, mut bins, mut width, mut bytes) = (
            Vec::new(),
            self.const_i64(0),
            self.const_i64(0),
            self.const_i64(0),
        );
        for ((b, _), op) in hc.bins.iter().zip(&hc.tree.ops) {
            let Val::Array { shape, .. } = self.val(fr, &Atom::Var(*b))? else {
                return Err(CodegenError::Internal("histogram bins".into()));
            };
            let [k, w] = shape.as_slice() else {
                return Err(CodegenError::Internal("histogram bins of rank 2".into()));
            };
            let size = self.builder.build_int_mul(*k, *w, "")?;
            sizes.push(size);
            bins = self.max(bins, *k)?;
            width = self.builder.build_int_add(width, *w, "")?;
            let b = self
                .builder
                .build_int_mul(size, self.const_i64(op.elem.bytes() as i64), "")?;
            bytes = self.builder.build_int_add(bytes, b, "")?;
        }
        let n = values[WIDTH].into_int_value();
        // Setting and combining the copies cost about `2 k W` a chunk,
        // the fold `n / C W`: at most `n / 2k` chunks; and the copies'
        // bytes bounded.
        let twice = self.builder.build_int_mul(bins, self.const_i64(2), "")?;
        let per_chunk = self.max(twice, self.const_i64(16))?;
        let by_bins = self.builder.build_int_signed_div(n, per_chunk, "")?;
        let bytes = self.max(bytes, self.const_i64(1))?;
        let by_bytes = self
            .builder
            .build_int_signed_div(self.const_i64(MOST_BYTES), bytes, "")?;
        let cap = self.min(by_bins, by_bytes)?;
        let some_bins =
            self.builder
                .build_int_compare(IntPredicate::SGT, bins, self.const_i64(0), "")?;
        let cap = self
            .builder
            .build_select(some_bins, cap, self.const_i64(0), "")?
            .into_int_value();
        let chunks = self.tree_chunks(fold, n, width, columns, Some(cap))?;
        let split =
            self.builder
                .build_int_compare(IntPredicate::SGT, chunks, self.const_i64(0), "")?;
        let whole = self.builder.build_not(split, "")?;
        self.when(fr.func, split, |gen| {
            let (_, total) = gen.regions(&hc.tree, chunks, &sizes)?;
            let (p, values) = gen.chunk_partials(total, chunks, &[], values)?;
            let most = gen.widest(&sizes)?;
            gen.reserve_heap(fr, nest, Some(fold), chunks, &[])?;
            gen.launch(fold, Grid::Work, chunks, &params.types, &values, fr)?;
            gen.launch(combine, Grid::Work, most, &params.types, &values, fr)?;
            gen.free_partials(p)
        })?;
        self.when(fr.func, whole, |gen| otherwise(gen))
    }
}
