//! Histograms of rows updated by atomics: in goes a histogram nest whose
//! bins are rows and whose column form (`columns`) fits, with every
//! update of a bin element one read, one operator the GPU has an atomic
//! instruction for (integer `+`, `&`, `|`, `^`, `min`, `max`; float `+`)
//! and one write; out comes a kernel of a thread per iteration and
//! column: item `i W + j` runs iteration `i` cut to column `j` (as the
//! column form does) and updates its bin element with one `atomicrmw`
//! (`emit::atomic`), so neighbouring threads update neighbouring
//! elements of a bin row. Host code picks it by shape at run time
//! (`launch_or_atomic_columns`): where the chunked form does not pay
//! (too many bins to copy per chunk, or too few iterations) and there are
//! at least two iterations, instead of the column form's `W` threads.
//!
//! Errors: each item keys its checks as the column form does (iteration
//! `i`'s segment `l`, column `j`), and every item runs, so the earliest
//! recorded wins.

use super::abi::{Grid, Params, WIDTH};
use super::columns::Columns;
use crate::codegen::emit::atomic::rmw_op;
use crate::codegen::emit::{Frame, Gen, Res};
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::{block_vars, Block, LoopNest, Parallelism, ScalarExp, Stmt};
use crate::types::ScalarType;
use inkwell::values::BasicValueEnum;
use inkwell::IntPredicate;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A histogram of rows whose updates are atomic.
pub(super) struct HistAtomic {
    /// What a thread runs, each update's read, operator and write brought
    /// together (the pattern `atomic_rmw` covers).
    items: Items,
    /// The bins and the rows of them the body takes.
    bins: Vec<VarId>,
}

/// A thread's item.
enum Items {
    /// Iteration `i` cut to column `j` (the column form's cut).
    Columns(Columns),
    /// A whole iteration (a constant width: the inner maps unrolled),
    /// the nest with its body rewritten.
    Iterations(Box<LoopNest>),
}

/// Whether `nest`'s updates can be atomic: with its column form `cols`
/// a thread per iteration and column, without one (`None`) a thread per
/// iteration when the body only binds values, checks them and updates
/// the bins.
pub(super) fn hist_atomic_shape(nest: &LoopNest, cols: Option<&Columns>) -> Option<HistAtomic> {
    if nest.par != Parallelism::Hist
        || nest.hists.is_empty()
        || nest.carried().next().is_some()
        || !nest.reductions.is_empty()
        || !nest.scans.is_empty()
        || !nest.compactions.is_empty()
        || !nest.scatters.is_empty()
    {
        return None;
    }
    let mut tracked: HashSet<VarId> = nest.hists.iter().flat_map(|h| h.bins.clone()).collect();
    let mut segments = match cols {
        Some(c) => c.segments.clone(),
        None => vec![nest.body.clone()],
    };
    let mut rows = HashMap::new();
    for segment in &segments {
        find_views(segment, &mut tracked, &mut rows);
    }
    if cols.is_none() && !segments.iter().all(|b| plain(b, &tracked)) {
        return None;
    }
    let all: Vec<Stmt> = segments.iter().flatten().cloned().collect();
    for segment in &mut segments {
        gather(segment, &tracked, &rows, &all)?;
    }
    // Every access to the bins is now one update `atomic_rmw` covers.
    if !segments.iter().all(|b| covered(b, &tracked)) {
        return None;
    }
    let items = match cols {
        Some(c) => Items::Columns(c.with_segments(segments)),
        None => {
            let mut whole = nest.clone();
            whole.body = segments.pop()?;
            Items::Iterations(Box::new(whole))
        }
    };
    Some(HistAtomic {
        items,
        bins: tracked.into_iter().collect(),
    })
}

/// Whether `block` only binds values, checks them, branches and writes
/// the bins (no allocation, loop or other write).
fn plain(block: &[Stmt], tracked: &HashSet<VarId>) -> bool {
    block.iter().all(|s| match s {
        Stmt::Let { .. } | Stmt::Read { .. } | Stmt::Row { .. } => true,
        Stmt::Write { array, .. } => tracked.contains(array),
        Stmt::If { .. } => s.inner_blocks().iter().all(|b| plain(b, tracked)),
        _ => s.is_check(),
    })
}

/// The rows of tracked arrays `block` takes (at any depth), tracked too,
/// with the array and index each views.
fn find_views(
    block: &Block,
    tracked: &mut HashSet<VarId>,
    rows: &mut HashMap<VarId, (VarId, Vec<Atom>)>,
) {
    for s in block {
        match s {
            Stmt::Row {
                var, array, index, ..
            } if tracked.contains(array) => {
                tracked.insert(var.id);
                rows.insert(var.id, (*array, index.clone()));
            }
            _ => s
                .inner_blocks()
                .into_iter()
                .for_each(|b| find_views(b, tracked, rows)),
        }
    }
}

/// How many statements of `block` (at any depth) use `v`.
fn uses(block: &[Stmt], v: VarId) -> usize {
    block
        .iter()
        .map(|s| match s {
            Stmt::If {
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
                ..
            } => {
                let atoms = then_results.iter().chain(else_results).chain([cond]);
                atoms.filter(|a| **a == Atom::Var(v)).count()
                    + uses(then_block, v)
                    + uses(else_block, v)
            }
            _ => {
                let (mut u, mut d) = (BTreeSet::new(), HashSet::new());
                block_vars(std::slice::from_ref(s), &mut u, &mut d);
                usize::from(u.contains(&v))
            }
        })
        .sum()
}

/// Whether `s` uses a tracked array.
fn touches(s: &Stmt, tracked: &HashSet<VarId>) -> bool {
    let (mut u, mut d) = (BTreeSet::new(), HashSet::new());
    block_vars(std::slice::from_ref(s), &mut u, &mut d);
    u.iter().any(|v| tracked.contains(v))
}

/// Whether `op` on bins of `elem` is one atomic instruction on a GPU.
fn native(op: crate::core::ir::BinOp, elem: ScalarType) -> bool {
    rmw_op(op, elem).is_some()
        || (op == crate::core::ir::BinOp::Add && matches!(elem, ScalarType::F32 | ScalarType::F64))
}

/// Brings each update of a bin element in `block` (and the blocks inside
/// it) together: `old = a[j]`, `t = old op y`, `a'[j] = t` (with `a` and
/// `a'` the same row, `old` and `t` used nowhere else, nothing between
/// touching the bins) becomes the three statements in a row at the
/// write, reading `a'`. Fails on an update of another shape.
fn gather(
    block: &mut Block,
    tracked: &HashSet<VarId>,
    rows: &HashMap<VarId, (VarId, Vec<Atom>)>,
    all: &[Stmt],
) -> Option<()> {
    for s in block.iter_mut() {
        for inner in s.inner_blocks_mut() {
            gather(inner, tracked, rows, all)?;
        }
    }
    let same =
        |a: &VarId, b: &VarId| a == b || (rows.get(a).is_some() && rows.get(a) == rows.get(b));
    let mut w = 0;
    while w < block.len() {
        let Stmt::Write {
            array,
            index,
            value: Atom::Var(t),
        } = &block[w]
        else {
            w += 1;
            continue;
        };
        if !tracked.contains(array) {
            w += 1;
            continue;
        }
        let (array, index, t) = (*array, index.clone(), *t);
        let l = block[..w]
            .iter()
            .position(|s| matches!(s, Stmt::Let { var, .. } if var.id == t))?;
        let Stmt::Let {
            exp: ScalarExp::BinOp(op, x, y),
            ..
        } = &block[l]
        else {
            return None;
        };
        let (op, x, y) = (*op, *x, *y);
        let r = block[..l].iter().position(|s| match s {
            Stmt::Read {
                var,
                array: read,
                index: at,
                check: None,
            } => {
                (x == Atom::Var(var.id) || y == Atom::Var(var.id))
                    && same(read, &array)
                    && *at == index
            }
            _ => false,
        })?;
        let Stmt::Read { var: old, .. } = &block[r] else {
            return None;
        };
        let old = old.clone();
        if x == y || !native(op, old.ty.elem()) || uses(all, old.id) != 1 || uses(all, t) != 1 {
            return None;
        }
        if block[r + 1..w]
            .iter()
            .enumerate()
            .any(|(k, s)| r + 1 + k != l && touches(s, tracked))
        {
            return None;
        }
        let write = block.remove(w);
        let result = block.remove(l);
        block.remove(r);
        let at = w - 2;
        block.insert(
            at,
            Stmt::Read {
                var: old,
                array,
                index,
                check: None,
            },
        );
        block.insert(at + 1, result);
        block.insert(at + 2, write);
        w = at + 3;
    }
    Some(())
}

/// Whether every access to a tracked array in `block` is an update in
/// `atomic_rmw`'s shape (a read, the operator, the write in a row) or a
/// row of one.
fn covered(block: &[Stmt], tracked: &HashSet<VarId>) -> bool {
    let mut k = 0;
    while k < block.len() {
        match &block[k] {
            Stmt::Read { array, .. } if tracked.contains(array) => {
                let Some(Stmt::Write { array: w, .. }) = block.get(k + 2) else {
                    return false;
                };
                if w != array || !matches!(block.get(k + 1), Some(Stmt::Let { .. })) {
                    return false;
                }
                k += 3;
            }
            Stmt::Row { array, .. } if tracked.contains(array) => k += 1,
            s @ Stmt::If { cond, .. } => {
                if matches!(cond, Atom::Var(v) if tracked.contains(v))
                    || !s.inner_blocks().iter().all(|b| covered(b, tracked))
                {
                    return false;
                }
                k += 1;
            }
            s if touches(s, tracked) => return false,
            _ => k += 1,
        }
    }
    true
}

impl<'ctx> Gen<'ctx, '_> {
    /// The kernel: thread `t` takes items `t, t + T, ...`: with columns,
    /// item `i W + j` is iteration `i` cut to column `j`; else iteration
    /// `i` whole.
    fn atomic_hist_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        ha: &HistAtomic,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let cols = match &ha.items {
            Items::Columns(cols) => cols,
            Items::Iterations(whole) => return self.grid_stride_body(fr, whole, kp),
        };
        let n = kp[WIDTH].into_int_value();
        let width = self.int(fr, &cols.width)?;
        let keys = self.column_keys(cols, width)?;
        let items = self.builder.build_int_mul(n, width, "")?;
        let (gid, threads) = self.thread_range()?;
        self.kernel_loop(fr, gid, items, threads, &mut |gen, fr, item| {
            let i = gen.builder.build_int_signed_div(item, width, "")?;
            let j = gen.builder.build_int_signed_rem(item, width, "")?;
            gen.column_iteration(fr, nest, cols, (i, j), (width, keys))
        })
    }

    /// Host side: the atomic kernel over its items (`n W`, or `n`) when
    /// there are at least two iterations and (with columns) `W > 0` and
    /// `n W` fits an `i64`, else `otherwise` (the column form, or one
    /// thread).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_or_atomic_hist(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        ha: &HistAtomic,
        name: &str,
        params: &Params<'ctx>,
        values: &[BasicValueEnum<'ctx>],
        otherwise: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let kernel = self.kernel(
            &format!("{name}_hist_atomic"),
            params,
            ha.bins.clone(),
            |gen, kfr, kp| gen.atomic_hist_body(kfr, nest, ha, kp),
        )?;
        let n = values[WIDTH].into_int_value();
        let width = match &ha.items {
            Items::Columns(cols) => self.int(fr, &cols.width)?,
            Items::Iterations(_) => self.const_i64(1),
        };
        let zero = self.const_i64(0);
        let several =
            self.builder
                .build_int_compare(IntPredicate::SGE, n, self.const_i64(2), "")?;
        let some = self
            .builder
            .build_int_compare(IntPredicate::SGT, width, zero, "")?;
        let safe = self.max(width, self.const_i64(1))?;
        let most = self
            .builder
            .build_int_signed_div(self.const_i64(i64::MAX), safe, "")?;
        let fits = self
            .builder
            .build_int_compare(IntPredicate::SLE, n, most, "")?;
        let pays = self.builder.build_and(several, some, "")?;
        let pays = self.builder.build_and(pays, fits, "")?;
        let other = self.builder.build_not(pays, "")?;
        self.when(fr.func, pays, |gen| {
            let items = gen.builder.build_int_mul(n, width, "")?;
            gen.launch(kernel, Grid::Work, items, &params.types, values, fr)
        })?;
        self.when(fr.func, other, |gen| otherwise(gen))
    }
}
