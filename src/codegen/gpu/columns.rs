//! The segmented forms: reductions and scans whose accumulator is an
//! array, and histograms whose bins are rows, run a thread per element
//! (column) of the array instead of one thread for the whole nest.
//!
//! Their bodies update the accumulator (or a bin row) element by element
//! in inner maps of the row's width `W` (`reduce (map2 (+)) ne xss`:
//! `acc[j] = acc[j] + xs[j]`). When every access to the arrays the nest
//! writes is at the inner map's index, column `j` of the accumulator
//! depends on column `j` of the iterations only, so thread `j` runs every
//! iteration in sequential order with each inner map cut down to its own
//! iteration `j` (`columns_shape` rewrites the body so), updating the
//! accumulator in place: the operator is applied in order, so it need not
//! be commutative, and it may fail. A thread array an inner map fills for
//! a later one becomes a scalar; one copied whole into the accumulator
//! stands for the accumulator itself. The statements around the inner
//! maps only bind values and check them, and each thread runs them. A
//! scan's copy of the accumulator into its output row becomes the
//! element's copy.
//!
//! Errors keep their sequential order: with `S` segments (each up to the
//! end of one top-level inner map, then the rest), thread `j` numbers its
//! checks in segment `l` of iteration `i` as `i * (S * W + 2) + l * W + 1 +
//! j`; the checks around the inner maps fail in every thread alike, so
//! thread 0's key, the smallest, stands for them. With no columns (`W` =
//! 0) host code launches the nest on one thread instead, which still meets
//! those checks.

use super::abi::{Grid, Params, OUT, WIDTH};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::core::ir::{Atom, SrcLoc, Type, Var, VarId};
use crate::loopy::ir::{for_each_binder, Block, LoopNest, MemSpace, Parallelism, ScalarExp, Stmt};
use crate::types::ScalarType;
use inkwell::values::{BasicValueEnum, IntValue};
use inkwell::IntPredicate;
use std::collections::{HashMap, HashSet};

/// A nest rewritten for a thread per column.
#[derive(Clone)]
pub(super) struct Columns {
    /// The body of one iteration for one column, in segments: each up to
    /// and including one inner map's iteration, then the rest.
    pub(super) segments: Vec<Block>,
    /// The columns: the inner maps' width.
    pub(super) width: Atom,
    /// Variables bound to the column: the inner maps' indices and `column`.
    indices: Vec<VarId>,
    column: VarId,
    /// Thread arrays that stand for the accumulator they are copied into.
    aliases: Vec<(VarId, VarId)>,
}

impl Columns {
    /// The same cut with other segments.
    pub(super) fn with_segments(&self, segments: Vec<Block>) -> Columns {
        Columns {
            segments,
            ..self.clone()
        }
    }
}

/// How `nest` runs a thread per column, if it can.
pub(super) fn columns_shape(nest: &LoopNest) -> Option<Columns> {
    let carried: Vec<_> = nest.carried().collect();
    let in_place = carried
        .iter()
        .all(|c| c.next == Atom::Var(c.var.id) && c.var.ty.rank() == 1);
    let written: HashSet<VarId> = match nest.par {
        Parallelism::Reduce | Parallelism::Scan
            if in_place
                && carried.len() == 1
                && nest.compactions.is_empty()
                && nest.hists.is_empty()
                && nest.reductions.len() + nest.scans.len() == 1 =>
        {
            let mut w: HashSet<VarId> = carried.iter().map(|c| c.var.id).collect();
            w.extend(nest.scans.iter().flat_map(|s| s.outputs.iter().copied()));
            w
        }
        Parallelism::Hist
            if carried.is_empty()
                && nest.reductions.is_empty()
                && nest.scans.is_empty()
                && nest.compactions.is_empty() =>
        {
            nest.hists
                .iter()
                .flat_map(|h| h.bins.iter().copied())
                .collect()
        }
        _ => return None,
    };
    let mut fresh = nest.index.id.0;
    for_each_binder(&nest.body, &mut |v| fresh = fresh.max(v.id.0));
    for v in nest.free_vars() {
        fresh = fresh.max(v.0);
    }
    let acc = carried.first().map(|c| c.var.id);
    // Thread arrays copied whole into the accumulator stand for it.
    let aliases: Vec<(VarId, VarId)> = nest
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Copy { array, index, src } if index.is_empty() && Some(*array) == acc => {
                Some((*src, *array))
            }
            _ => None,
        })
        .collect();
    let mut cut = Cut {
        written,
        temps: HashMap::new(),
        aliases: aliases.iter().map(|(t, _)| *t).collect(),
        scalars: HashMap::new(),
        pending: false,
        width: None,
        indices: Vec::new(),
        column: VarId(fresh.checked_add(1)?),
        next: fresh.checked_add(2)?,
        acc,
        types: HashMap::new(),
        segments: Vec::new(),
        nested: false,
    };
    for c in &carried {
        cut.types.insert(c.var.id, c.var.ty);
    }
    let tail = cut.block(&nest.body, true)?;
    cut.segments.push(tail);
    let width = cut.width?;
    let invariant = match width {
        Atom::Var(v) => !nest.defined_vars().contains(&v),
        Atom::Const(_) => true,
    };
    let maps = cut.indices.len();
    (invariant && maps >= 1 && !(cut.nested && maps > 1)).then_some(Columns {
        segments: cut.segments,
        width,
        indices: cut.indices,
        column: cut.column,
        aliases,
    })
}

/// The branch `s` with both its blocks rewritten by `f`.
fn branches(s: &Stmt, f: &mut dyn FnMut(&Block) -> Option<Block>) -> Option<Stmt> {
    let Stmt::If {
        results,
        cond,
        then_block,
        then_results,
        else_block,
        else_results,
    } = s
    else {
        return None;
    };
    Some(Stmt::If {
        results: results.clone(),
        cond: *cond,
        then_block: f(then_block)?,
        then_results: then_results.clone(),
        else_block: f(else_block)?,
        else_results: else_results.clone(),
    })
}

/// The rewrite of a body for one column.
struct Cut {
    /// Arrays the nest writes, and views of them.
    written: HashSet<VarId>,
    /// Thread arrays of the inner maps' results, and their element types.
    temps: HashMap<VarId, ScalarType>,
    /// The thread arrays copied into the accumulator.
    aliases: HashSet<VarId>,
    /// Other thread arrays: the scalar that holds this column's element.
    scalars: HashMap<VarId, VarId>,
    /// An inner map wrote the accumulator (or bins) and no copy made it
    /// the accumulator yet: reading the accumulator now would see the
    /// update too early.
    pending: bool,
    width: Option<Atom>,
    indices: Vec<VarId>,
    column: VarId,
    next: u32,
    acc: Option<VarId>,
    types: HashMap<VarId, Type>,
    /// Finished segments (top-level statements up to an inner map's end).
    segments: Vec<Block>,
    /// An inner map inside a branch (no segment ends there).
    nested: bool,
}

impl Cut {
    fn fresh(&mut self) -> Option<VarId> {
        let v = VarId(self.next);
        self.next = self.next.checked_add(1)?;
        Some(v)
    }

    /// Whether `a` is the accumulator, a bin or a view of one, or a
    /// thread array standing for the accumulator.
    fn tracked(&self, a: &VarId) -> bool {
        self.written.contains(a) || self.aliases.contains(a)
    }

    /// The statements of `block` for one column; at the top level, an
    /// inner map ends a segment.
    fn block(&mut self, block: &Block, top: bool) -> Option<Block> {
        let mut out = Vec::new();
        for s in block {
            match s {
                Stmt::Let { .. } => out.push(s.clone()),
                _ if s.is_check() => out.push(s.clone()),
                Stmt::Read { array, .. }
                    if !self.tracked(array) && !self.temps.contains_key(array) =>
                {
                    out.push(s.clone())
                }
                Stmt::Row { var, array, .. } if !self.temps.contains_key(array) => {
                    if self.tracked(array) {
                        self.written.insert(var.id);
                    }
                    out.push(s.clone());
                }
                Stmt::Alloc {
                    var,
                    shape,
                    space: MemSpace::Thread,
                } if shape.len() == 1 && self.same_width(shape[0]) => {
                    self.width = Some(shape[0]);
                    self.temps.insert(var.id, var.ty.elem());
                }
                Stmt::Free(v) if self.temps.contains_key(v) => {}
                Stmt::Copy { array, index, src }
                    if index.is_empty()
                        && Some(*array) == self.acc
                        && self.aliases.contains(src) =>
                {
                    self.pending = false;
                }
                Stmt::Copy { array, index, src }
                    if Some(*src) == self.acc && self.written.contains(array) && !self.pending =>
                {
                    // A scan's output row: this column's element of it.
                    let elem = self.types.get(src)?.elem();
                    let tmp = Var {
                        id: self.fresh()?,
                        name: "col".into(),
                        ty: Type::Scalar(elem),
                    };
                    let col = Atom::Var(self.column);
                    out.push(Stmt::Read {
                        var: tmp.clone(),
                        array: *src,
                        index: vec![col],
                        check: None,
                    });
                    let mut at = index.clone();
                    at.push(col);
                    out.push(Stmt::Write {
                        array: *array,
                        index: at,
                        value: Atom::Var(tmp.id),
                    });
                }
                Stmt::If { .. } => out.push(branches(s, &mut |b| self.block(b, false))?),
                Stmt::Loop(inner) => {
                    if inner.par != Parallelism::Map
                        || inner.carried().next().is_some()
                        || !inner.scatters.is_empty()
                        || !self.same_width(inner.width)
                    {
                        return None;
                    }
                    self.width = Some(inner.width);
                    self.indices.push(inner.index.id);
                    let body = self.inner(&inner.body, inner.index.id, true)?;
                    out.extend(body);
                    if top {
                        self.segments.push(std::mem::take(&mut out));
                    } else {
                        self.nested = true;
                    }
                }
                _ => return None,
            }
        }
        Some(out)
    }

    fn same_width(&self, w: Atom) -> bool {
        self.width.is_none_or(|x| x == w)
    }

    /// An inner map's body for its iteration `j`: the tracked arrays read
    /// and written at `j` only (not read while an update is pending), the
    /// other thread arrays written once at its top level and read after,
    /// as scalars; nothing else but scalars and checks.
    fn inner(&mut self, body: &Block, j: VarId, top: bool) -> Option<Block> {
        let at_j = |index: &[Atom]| index.last() == Some(&Atom::Var(j));
        let mut out = Vec::new();
        for s in body {
            match s {
                Stmt::Read { array, index, .. } if self.tracked(array) => {
                    if self.pending || !at_j(index) {
                        return None;
                    }
                    out.push(s.clone());
                }
                Stmt::Read {
                    var, array, index, ..
                } if self.temps.contains_key(array) => {
                    let held = self.scalars.get(array)?;
                    if index.len() != 1 || !at_j(index) {
                        return None;
                    }
                    out.push(Stmt::Let {
                        var: var.clone(),
                        exp: ScalarExp::Atom(Atom::Var(*held)),
                        loc: SrcLoc::default(),
                    });
                }
                Stmt::Read { .. } | Stmt::Let { .. } => out.push(s.clone()),
                _ if s.is_check() => out.push(s.clone()),
                Stmt::Write { array, index, .. } if self.tracked(array) => {
                    if !at_j(index) {
                        return None;
                    }
                    self.pending = true;
                    out.push(s.clone());
                }
                Stmt::Write {
                    array,
                    index,
                    value,
                } if self.temps.contains_key(array) => {
                    if !top || index.len() != 1 || !at_j(index) || self.scalars.contains_key(array)
                    {
                        return None;
                    }
                    let elem = *self.temps.get(array)?;
                    let held = Var {
                        id: self.fresh()?,
                        name: "col".into(),
                        ty: Type::Scalar(elem),
                    };
                    self.scalars.insert(*array, held.id);
                    out.push(Stmt::Let {
                        var: held,
                        exp: ScalarExp::Atom(*value),
                        loc: SrcLoc::default(),
                    });
                }
                Stmt::If { .. } => out.push(branches(s, &mut |b| self.inner(b, j, false))?),
                _ => return None,
            }
        }
        Some(out)
    }
}

impl<'ctx> Gen<'ctx, '_> {
    /// The kernel of a thread per column: column `j` runs every iteration
    /// in order; thread 0 also writes the carried values' final values,
    /// the accumulators updated in place.
    pub(super) fn columns_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        cols: &Columns,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let inits = self.inits(nest, kp)?;
        let mut finals = Vec::new();
        for (c, fields) in nest.carried().zip(&inits) {
            let v = self.val_of_fields(c.var.ty, fields)?;
            fr.vals.insert(c.var.id, v.clone());
            finals.push(v);
        }
        for (temp, acc) in &cols.aliases {
            let v = self.val(fr, &Atom::Var(*acc))?;
            fr.vals.insert(*temp, v);
        }
        let n = kp[WIDTH].into_int_value();
        let width = self.int(fr, &cols.width)?;
        let (one, zero) = (self.const_i64(1), self.const_i64(0));
        let keys = self.column_keys(cols, width)?;
        let (gid, threads) = self.thread_range()?;
        let first = self
            .builder
            .build_int_compare(IntPredicate::EQ, gid, zero, "")?;
        self.when(fr.func, first, |gen| {
            gen.store_cells(kp[OUT].into_pointer_value(), zero, &finals)
        })?;
        self.kernel_loop(fr, gid, width, threads, &mut |gen, fr, j| {
            gen.kernel_loop(fr, zero, n, one, &mut |gen, fr, i| {
                gen.column_iteration(fr, nest, cols, (i, j), (width, keys))
            })
        })
    }

    /// The keys of one iteration: segment `l`, column `j` at `l * W + 1 +
    /// j`, then room for the statements after the last inner map.
    pub(super) fn column_keys(&self, cols: &Columns, width: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
        let segments = self.const_i64(cols.segments.len() as i64);
        let keys = self.builder.build_int_mul(segments, width, "")?;
        Ok(self.builder.build_int_add(keys, self.const_i64(2), "")?)
    }

    /// Iteration `i` of the nest cut to column `j`: its segments, each
    /// under its key.
    pub(super) fn column_iteration(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        cols: &Columns,
        (i, j): (IntValue<'ctx>, IntValue<'ctx>),
        (width, keys): (IntValue<'ctx>, IntValue<'ctx>),
    ) -> Res<()> {
        let col = Val::Scalar(j.into(), ScalarType::I64);
        for v in cols.indices.iter().chain([&cols.column]) {
            fr.vals.insert(*v, col.clone());
        }
        let after = self.builder.build_int_add(j, self.const_i64(1), "")?;
        let base = self.builder.build_int_mul(i, keys, "")?;
        let base = self.builder.build_int_add(base, after, "")?;
        fr.vals
            .insert(nest.index.id, Val::Scalar(i.into(), ScalarType::I64));
        for (l, segment) in cols.segments.iter().enumerate() {
            let skip = self.const_i64(l as i64);
            let skip = self.builder.build_int_mul(skip, width, "")?;
            let key = self.builder.build_int_add(base, skip, "")?;
            let slot = self.key_slot()?;
            self.builder.build_store(slot, key)?;
            self.block(fr, segment)?;
        }
        Ok(())
    }

    /// Host side: the column kernel over the columns, or, with none, the
    /// nest's single-thread kernel `single`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_columns(
        &mut self,
        fr: &Frame<'ctx>,
        cols: &Columns,
        kernel: usize,
        single: usize,
        params: &Params<'ctx>,
        values: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let width = self.int(fr, &cols.width)?;
        let zero = self.const_i64(0);
        let some = self
            .builder
            .build_int_compare(IntPredicate::SGT, width, zero, "")?;
        let none = self.builder.build_not(some, "")?;
        self.when(fr.func, some, |gen| {
            gen.launch(kernel, Grid::Work, width, &params.types, values, fr)
        })?;
        self.when(fr.func, none, |gen| {
            gen.launch(single, Grid::One, zero, &params.types, values, fr)
        })
    }
}
