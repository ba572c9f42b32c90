//! Statements a whole group of threads runs in a row reduction (`rows`):
//! what a map body may hold before its last reduction, and the
//! reductions met there.
//!
//! In: the body of a launched map. Out: `group_prefix`, the statements up
//! to the last one that holds a row reduction when every thread of a warp
//! or block may run them together (they bind values and check them, branch
//! on such values, loop with scalar state or with a group array as state,
//! make per-row scratch arrays, reduce the row, and map or scan it into
//! arrays at each iteration's own index: `own_accesses`); the kernel then emits
//! them with `Gen::group_reduce` standing in for each reduction, map
//! and scan (`group_scan`)
//! (`Backend::nest` calls it for the nests `RowGroup` names) and
//! `Gen::group_write` for each write of a group array outside the folds.
//!
//! Every thread of the group holds the same values outside the folds (each
//! reduction's result is broadcast), so branches and loops take the same
//! path in all of them and every thread reaches the group's shuffles and
//! barriers. A scratch array the body makes before the last reduction
//! (`alloc thread`, memory expansion per group) is one buffer per group,
//! made once before the rows by the group's first thread: a reduction's or
//! map's body may write it only at its own index (each element by the
//! thread that folds that iteration), and the group synchronises before
//! and after every fold that shares memory and at the end of each row, so
//! the writes are seen by the statements after the fold and no thread
//! starts the next fold while another still reads.
//!
//! Error keys: a row's statements take the key of a cursor that starts at
//! the row's base; a reduction at cursor `c` keys its iteration `j` at `c +
//! 1 + j` and moves the cursor to `c + W + 1`. So keys grow in sequential
//! order within a row, and `span` bounds what one row uses. A loop whose
//! rounds only the row knows makes the keys dynamic (`Prefix::dynamic`):
//! the cursor stays at the row's base, and the group leaves the row at its
//! first failure (`leave_if_any` after every fold).

use super::reduce::TREE_FIELDS;
use crate::codegen::emit::{Frame, Gen, Res};
use crate::core::ir::{Atom, BinOp, Type, VarId};
use crate::loopy::ir::{LoopNest, MemSpace, Parallelism, ScalarExp, SeqForm, Stmt};
use crate::types::ScalarType;
use inkwell::basic_block::BasicBlock;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::HashSet;

/// What the group's reductions need while the kernel emits the statements
/// before the last one (`Device::rows`).
#[derive(Clone)]
pub(crate) struct RowGroup<'ctx> {
    /// The nests (by index variable) `group_reduce` emits.
    pub(crate) reductions: Vec<VarId>,
    pub(crate) per_block: IntValue<'ctx>,
    pub(crate) tid: IntValue<'ctx>,
    pub(crate) lane: IntValue<'ctx>,
    pub(crate) ntid: IntValue<'ctx>,
    /// The thread's rank in its group and the group's size.
    pub(crate) rank: IntValue<'ctx>,
    pub(crate) size: IntValue<'ctx>,
    pub(crate) row_end: BasicBlock<'ctx>,
    /// Whether the group shares scratch arrays (then it synchronises around
    /// each fold).
    pub(crate) scratch: bool,
    /// Whether a row's keys are unbounded before the kernel (`Prefix`):
    /// then reductions leave the key cursor at the row's base.
    pub(crate) dynamic: bool,
    /// The group's scratch arrays and their aliases (loop state, in-place
    /// updates): the group's first thread writes them outside the folds.
    pub(crate) shared: Vec<VarId>,
    /// The row's place in a launch that may split it (`split_rows`).
    pub(crate) split: Option<super::split_rows::SplitRows<'ctx>>,
}

impl<'ctx> RowGroup<'ctx> {
    pub(super) fn threads(&self) -> super::rows::GroupThreads<'ctx> {
        super::rows::GroupThreads {
            per_block: self.per_block,
            rank: self.rank,
            tid: self.tid,
            lane: self.lane,
            ntid: self.ntid,
        }
    }
}

/// A map body's group prefix (`group_prefix`).
pub(super) struct Prefix {
    /// The last statement holding a row reduction: statements `0..=at`
    /// run on the group.
    pub(super) at: usize,
    /// The arrays the group statements make per group.
    pub(super) scratch: Vec<VarId>,
    /// Names of those arrays' memory besides their own (a loop's array
    /// state and result, an in-place update), each with its array.
    pub(super) aliases: Vec<(VarId, VarId)>,
    /// Whether the statements loop a number of times only the row knows
    /// (a `while` loop, a `for` loop whose count the row computes): a
    /// row's keys cannot be bounded before the kernel, so every statement
    /// of the row takes the row's base key and iteration `j` of a fold
    /// `base + 1 + j`. That orders a row's errors because the group leaves
    /// the row at its first failure (a failed fold included: `group_any`).
    pub(super) dynamic: bool,
}

/// A map body's group prefix, when its statements up to the last one
/// holding a row reduction may run on a group.
pub(super) fn group_prefix(nest: &LoopNest) -> Option<Prefix> {
    if nest.par != Parallelism::Map || nest.carried().next().is_some() {
        return None;
    }
    let at = nest.body.iter().rposition(holds_reduction)?;
    let defined = nest.defined_vars();
    let mut group = Shared::default();
    let mut dynamic = false;
    if !uniform(&nest.body[..=at], &defined, &mut group, &mut dynamic) {
        return None;
    }
    // Maps alone are no row reduction (a map of maps is a plain map).
    let mut folds = Vec::new();
    group_reductions(&nest.body[..=at], &mut folds);
    if folds.iter().all(|f| f.par == Parallelism::Map) {
        return None;
    }
    let Shared {
        scratch, aliases, ..
    } = group;
    // The first thread runs the rest; it must not hand a group buffer to
    // another owner (`free` of the new owner would free the group's).
    if !scratch.is_empty() && in_place(&nest.body[at + 1..]) {
        return None;
    }
    Some(Prefix {
        at,
        scratch,
        aliases,
        dynamic,
    })
}

/// The row reductions of a group prefix, in the order the body meets them.
pub(super) fn group_reductions<'b>(block: &'b [Stmt], out: &mut Vec<&'b LoopNest>) {
    for s in block {
        match s {
            Stmt::Loop(inner) => out.push(inner),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                group_reductions(then_block, out);
                group_reductions(else_block, out);
            }
            Stmt::SeqLoop(l) => group_reductions(&l.body, out),
            _ => {}
        }
    }
}

fn holds_reduction(s: &Stmt) -> bool {
    match s {
        Stmt::Loop(_) => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => then_block.iter().any(holds_reduction) || else_block.iter().any(holds_reduction),
        Stmt::SeqLoop(l) => l.body.iter().any(holds_reduction),
        _ => false,
    }
}

fn invariant(a: &Atom, defined: &HashSet<VarId>) -> bool {
    match a {
        Atom::Var(v) => !defined.contains(v),
        Atom::Const(_) => true,
    }
}

/// The group's scratch arrays while `uniform` walks the statements.
#[derive(Default)]
struct Shared {
    scratch: Vec<VarId>,
    aliases: Vec<(VarId, VarId)>,
    /// Rows and views the statements take, each with its array.
    views: Vec<(VarId, VarId)>,
}

impl Shared {
    fn root(&self, v: VarId) -> Option<VarId> {
        if self.scratch.contains(&v) {
            return Some(v);
        }
        self.aliases.iter().find(|(a, _)| *a == v).map(|(_, r)| *r)
    }

    fn ours(&self, v: VarId) -> bool {
        self.root(v).is_some()
    }

    /// The memory `v` names: its group buffer, or the array it is a row
    /// or view of, or itself.
    fn memory(&self, v: VarId) -> VarId {
        let mut v = v;
        loop {
            if let Some(r) = self.root(v) {
                return r;
            }
            match self.views.iter().find(|(w, _)| *w == v) {
                Some((_, a)) => v = *a,
                None => return v,
            }
        }
    }
}

/// Whether every thread of a group may run `block` (collecting the group's
/// scratch arrays and their aliases, and noting loops whose rounds only
/// the row knows). Writes of the group's arrays outside a fold are the
/// first thread's (`Gen::group_write`).
fn uniform(
    block: &[Stmt],
    defined: &HashSet<VarId>,
    group: &mut Shared,
    dynamic: &mut bool,
) -> bool {
    block.iter().all(|s| match s {
        Stmt::Let { .. } | Stmt::Read { .. } => true,
        _ if s.is_check() => true,
        // A branch may not return a group array: its result would name
        // one of two buffers (and freeing it would free that buffer).
        Stmt::If {
            then_block,
            then_results,
            else_block,
            else_results,
            ..
        } => {
            uniform(then_block, defined, group, dynamic)
                && uniform(else_block, defined, group, dynamic)
                && then_results
                    .iter()
                    .chain(else_results)
                    .all(|a| !matches!(a, Atom::Var(v) if group.ours(*v)))
        }
        // A loop every thread runs the same number of times, with scalar
        // state (broadcast results keep it equal across the group) or
        // group arrays updated in place; a count or condition the row
        // computes makes the row's keys dynamic.
        Stmt::SeqLoop(l) => {
            let form = match &l.form {
                SeqForm::For { bound, .. } => {
                    *dynamic |= !invariant(bound, defined);
                    true
                }
                SeqForm::While { cond, .. } => {
                    *dynamic = true;
                    !cond.iter().any(holds_reduction) && uniform(cond, defined, group, dynamic)
                }
            };
            // An array state starts as a group array; its next value and
            // the loop's result name the same memory.
            let mut states = Vec::new();
            for (k, p) in l.params.iter().enumerate() {
                if matches!(p.var.ty, Type::Scalar(_)) {
                    continue;
                }
                match &p.init {
                    Atom::Var(v) if group.ours(*v) => {
                        let root = group.root(*v).unwrap_or(*v);
                        group.aliases.push((p.var.id, root));
                        states.push((k, root));
                    }
                    _ => return false,
                }
            }
            if !(form && uniform(&l.body, defined, group, dynamic)) {
                return false;
            }
            states.into_iter().all(|(k, root)| {
                let same =
                    matches!(l.next.get(k), Some(Atom::Var(v)) if group.root(*v) == Some(root));
                if let Some(r) = l.results.get(k) {
                    group.aliases.push((r.var.id, root));
                }
                same
            })
        }
        Stmt::InPlace { var, array } => match group.root(*array) {
            Some(root) => {
                group.aliases.push((var.id, root));
                true
            }
            None => false,
        },
        Stmt::Write { array, .. } | Stmt::Copy { array, .. } => group.ours(*array),
        // A reduction, or a map of the row without results of its own
        // (it writes arrays at its own iterations): the group shares its
        // iterations.
        Stmt::Loop(inner) => {
            let folds = match inner.par {
                Parallelism::Map => inner.carried().next().is_none() && inner.scatters.is_empty(),
                Parallelism::Scan => row_scan(inner),
                _ => row_reduction(inner),
            };
            folds && invariant(&inner.width, defined) && own_accesses(inner, group)
        }
        Stmt::Row { var, array, .. } | Stmt::View { var, array, .. } => {
            group.views.push((var.id, *array));
            true
        }
        Stmt::Alloc {
            var,
            shape,
            space: MemSpace::Thread | MemSpace::Scratch,
        } if shape.len() == 1 && shape.iter().all(|d| invariant(d, defined)) => {
            group.scratch.push(var.id);
            true
        }
        Stmt::Free(a) => group.ours(*a),
        _ => false,
    })
}

/// A reduction of scalars, few enough fields for a block's shared memory
/// (an operator that can fail is applied only to folded values and its
/// failure voted on: `Gen::group_combine`).
pub(super) fn row_reduction(inner: &LoopNest) -> bool {
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
}

/// A scan of scalars (with reductions beside it or not) whose plan has a
/// totals slice (`group_scan`; an operator that can fail flags the values
/// it fails on).
fn row_scan(inner: &LoopNest) -> bool {
    inner.par == Parallelism::Scan
        && !inner.scans.is_empty()
        && inner.compactions.is_empty()
        && inner.hists.is_empty()
        && inner.carried().all(|c| matches!(c.var.ty, Type::Scalar(_)))
        && (1..=TREE_FIELDS).contains(&inner.carried().count())
        && matches!(
            inner.plan.as_ref().map(|p| &p.strategy),
            Some(crate::loopy::ir::ParPlan::TwoPhase { .. })
        )
}

/// Whether a fold (a reduction, scan or map the group shares, `inner`) touches
/// memory the group's other threads see only at its own iterations: each
/// array it writes, but those it makes itself, at one index that maps
/// iterations one to one (`j`, `j + c`, `c + j` or `j - c` in one
/// dimension, the others the same in every thread: `xs[j + 1]`, a row of
/// the output), and read by the fold at that index only (so by the thread
/// that writes it); no such array is copied, updated in place or freed.
/// Other arrays it may read anywhere: the group synchronises before and
/// after a fold that shares memory.
fn own_accesses(inner: &LoopNest, group: &Shared) -> bool {
    let local = inner.defined_vars();
    let uniform = |a: &Atom| invariant(a, &local);
    let mut own: HashSet<VarId> = HashSet::from([inner.index.id]);
    let mut made = HashSet::new();
    let mut fold_views = Vec::new();
    let mut stmts = Vec::new();
    fold_stmts(&inner.body, &mut stmts);
    for op in inner.operators() {
        fold_stmts(&op.body, &mut stmts);
    }
    for s in &stmts {
        match s {
            Stmt::Let {
                var,
                exp: ScalarExp::BinOp(op, a, b),
                ..
            } => {
                let is_own = |x: &Atom| matches!(x, Atom::Var(v) if own.contains(v));
                let shifted = match op {
                    BinOp::Add => (is_own(a) && uniform(b)) || (uniform(a) && is_own(b)),
                    BinOp::Sub => is_own(a) && uniform(b),
                    _ => false,
                };
                if shifted && matches!(var.ty, Type::Scalar(ScalarType::I64)) {
                    own.insert(var.id);
                }
            }
            Stmt::Alloc { var, .. } => {
                made.insert(var.id);
            }
            Stmt::Row { var, array, .. } | Stmt::View { var, array, .. } => {
                if made.contains(array) {
                    made.insert(var.id);
                } else {
                    fold_views.push(var.id);
                }
            }
            _ => {}
        }
    }
    // Array state of a loop in the fold: only arrays the fold made.
    for s in &stmts {
        if let Stmt::SeqLoop(l) = s {
            for (k, p) in l.params.iter().enumerate() {
                if matches!(p.var.ty, Type::Scalar(_)) {
                    continue;
                }
                if !matches!(&p.init, Atom::Var(v) if made.contains(v)) {
                    return false;
                }
                made.insert(p.var.id);
                if let Some(r) = l.results.get(k) {
                    made.insert(r.var.id);
                }
            }
        }
        if let Stmt::InPlace { var, array } = s {
            if !made.contains(array) {
                return false;
            }
            made.insert(var.id);
        }
    }
    let own_index = |index: &[Atom]| {
        index
            .iter()
            .filter(|a| matches!(a, Atom::Var(v) if own.contains(v)))
            .count()
            == 1
            && index
                .iter()
                .all(|a| uniform(a) || matches!(a, Atom::Var(v) if own.contains(v)))
    };
    // The memory each written array names, and the one index it is
    // written at.
    let mut written: Vec<(VarId, &[Atom])> = Vec::new();
    for s in &stmts {
        match s {
            Stmt::Write { array, index, .. } if !made.contains(array) => {
                if fold_views.contains(array) || !own_index(index) {
                    return false;
                }
                let memory = group.memory(*array);
                match written.iter().find(|(m, _)| *m == memory) {
                    Some((_, at)) if *at != index.as_slice() => return false,
                    Some(_) => {}
                    None => written.push((memory, index)),
                }
            }
            Stmt::Copy { array, .. } if !made.contains(array) => return false,
            Stmt::Free(a) if !made.contains(a) => return false,
            _ => {}
        }
    }
    let writes = |v: &VarId| {
        let memory = group.memory(*v);
        written
            .iter()
            .find(|(m, _)| *m == memory)
            .map(|(_, at)| *at)
    };
    stmts.iter().all(|s| match s {
        Stmt::Read { array, index, .. } => writes(array).is_none_or(|at| at == index.as_slice()),
        Stmt::Row { array, .. } | Stmt::View { array, .. } => writes(array).is_none(),
        Stmt::Copy { src, .. } => writes(src).is_none(),
        // A loop whose next state names an array from outside the fold
        // would hand that memory on.
        Stmt::SeqLoop(l) => l
            .next
            .iter()
            .all(|a| !matches!(a, Atom::Var(v) if !made.contains(v) && !local.contains(v))),
        _ => true,
    })
}

/// Every statement of `block`, at any depth (branches, loops and nests,
/// their operators included).
fn fold_stmts<'b>(block: &'b [Stmt], out: &mut Vec<&'b Stmt>) {
    for s in block {
        out.push(s);
        for b in s.inner_blocks() {
            fold_stmts(b, out);
        }
        if let Stmt::Loop(n) = s {
            for op in n.operators() {
                fold_stmts(&op.body, out);
            }
        }
    }
}

fn in_place(block: &[Stmt]) -> bool {
    block.iter().any(|s| match s {
        Stmt::InPlace { .. } => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => in_place(then_block) || in_place(else_block),
        Stmt::SeqLoop(l) => in_place(&l.body),
        Stmt::Loop(n) => in_place(&n.body),
        _ => false,
    })
}

impl<'ctx> Gen<'ctx, '_> {
    /// The most keys a row's run of `block` uses (a reduction of width `W`
    /// `W + 1`, a branch its longer side, a loop its count times its
    /// body's); every size is known before the rows (`uniform`).
    pub(super) fn group_span(&self, fr: &Frame<'ctx>, block: &[Stmt]) -> Res<IntValue<'ctx>> {
        let zero = self.const_i64(0);
        let mut sum = zero;
        for s in block {
            let part = match s {
                Stmt::Loop(inner) => {
                    let w = self.int(fr, &inner.width)?;
                    let w = self.max0(w)?;
                    self.builder.build_int_add(w, self.const_i64(1), "")?
                }
                Stmt::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    let a = self.group_span(fr, then_block)?;
                    let b = self.group_span(fr, else_block)?;
                    self.max(a, b)?
                }
                Stmt::SeqLoop(l) => {
                    let SeqForm::For { index, bound } = &l.form else {
                        continue;
                    };
                    let n = self.int(fr, bound)?;
                    let signed = !matches!(
                        index.ty,
                        Type::Scalar(
                            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64
                        )
                    );
                    let n = self
                        .builder
                        .build_int_cast_sign_flag(n, self.i64(), signed, "")?;
                    let n = self.max0(n)?;
                    let body = self.group_span(fr, &l.body)?;
                    self.builder.build_int_mul(n, body, "")?
                }
                _ => continue,
            };
            sum = self.builder.build_int_add(sum, part, "")?;
        }
        Ok(sum)
    }

    /// The row group of the kernel being generated, when `nest` is one of
    /// its reductions.
    pub(crate) fn row_group_for(&self, nest: &LoopNest) -> Option<RowGroup<'ctx>> {
        let g = self.device.as_ref()?.rows.as_ref()?;
        g.reductions.contains(&nest.index.id).then(|| g.clone())
    }

    /// A reduction of the group prefix: the group folds the row as
    /// `rows_body` does, combines, and every thread binds the result; the
    /// key cursor moves past the reduction's iterations.
    pub(crate) fn group_reduce(
        &mut self,
        fr: &mut Frame<'ctx>,
        red: &LoopNest,
        g: RowGroup<'ctx>,
    ) -> Res<()> {
        if red.par == Parallelism::Scan {
            return self.group_scan(fr, red, g);
        }
        if let Some(sp) = g.split.clone() {
            if let Some(k) = sp.stages.iter().position(|v| *v == red.index.id) {
                return self.split_group_reduce(fr, red, g, sp, k);
            }
        }
        let key = self.key_slot()?;
        let c = self
            .builder
            .build_load(self.i64(), key, "cursor")?
            .into_int_value();
        let whole = (self.const_i64(0), self.const_i64(1));
        // A map writes memory the group sees after it (the row's scratch,
        // the output's row), and may overwrite what an earlier fold read.
        let map = red.par == Parallelism::Map;
        let shares = g.scratch || map;
        if shares {
            self.group_sync(fr, g.per_block)?;
        }
        let (slots, failed, occ) = self.row_fold(fr, red, c, whole, (g.rank, g.size), g.row_end)?;
        if shares {
            self.group_sync(fr, g.per_block)?;
        }
        self.leave_if_any(fr, g.per_block, failed, g.row_end)?;
        let w = self.int(fr, &red.width)?;
        let past = self.key_past(c, w)?;
        if !map {
            self.group_combine(fr, red, &slots, g.threads(), (occ, past), g.row_end)?;
        }
        // The fold left the key of its thread's last iteration in the slot:
        // the cursor moves past the reduction, or stays at the row's base.
        self.builder
            .build_store(key, if g.dynamic { c } else { past })?;
        if map {
            return Ok(());
        }
        self.broadcast(fr, red, &slots, g.per_block, g.tid)?;
        let finals = self.load_slots(red, &slots)?;
        self.bind_finals(fr, red, finals)
    }

    /// Every thread of the group waits here, and sees the others' memory
    /// writes from before it: a barrier for a block, `bar.warp.sync` of
    /// the whole warp otherwise.
    pub(super) fn group_sync(&mut self, fr: &Frame<'ctx>, per_block: IntValue<'ctx>) -> Res<()> {
        self.when(fr.func, per_block, |gen| gen.barrier())?;
        let per_warp = self.builder.build_not(per_block, "")?;
        self.when(fr.func, per_warp, |gen| gen.warp_sync())
    }

    /// Every thread of the group leaves for `row_end` when one of them
    /// failed a check of the fold (`failed`, an `i1` slot): the row's
    /// first error is recorded, and the rest of the row, which would run
    /// on a partial result (a `while` loop might not end), is skipped by
    /// the whole group alike.
    pub(super) fn leave_if_any(
        &mut self,
        fr: &Frame<'ctx>,
        per_block: IntValue<'ctx>,
        failed: PointerValue<'ctx>,
        row_end: BasicBlock<'ctx>,
    ) -> Res<()> {
        let bool_t = self.ctx.bool_type();
        let mine = self
            .builder
            .build_load(bool_t, failed, "failed")?
            .into_int_value();
        let any = self.group_any(fr, per_block, mine)?;
        let go = self.ctx.append_basic_block(fr.func, "row.fold.ok");
        self.builder.build_conditional_branch(any, row_end, go)?;
        self.builder.position_at_end(go);
        Ok(())
    }

    /// Whether `pred` holds in any thread of the group: `vote.any.sync` of
    /// the whole warp, or `bar.red.or` of the block (a barrier).
    pub(super) fn group_any(
        &mut self,
        fr: &Frame<'ctx>,
        per_block: IntValue<'ctx>,
        pred: IntValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        let i32t = self.ctx.i32_type();
        let bool_t = self.ctx.bool_type();
        let emulated = self.emulated()?;
        let out = self.entry_alloca(fr.func, bool_t.into())?;
        let wide = self.builder.build_int_z_extend(pred, i32t, "")?;
        let per_warp = self.builder.build_not(per_block, "")?;
        self.when(fr.func, per_warp, |gen| {
            let all = i32t.const_all_ones();
            let any = if emulated {
                let f = gen.declare("arr_emu_vote_any", Some(i32t.into()), &[i32t.into(); 2]);
                let r = gen.call_int(f, &[all.into(), wide.into()])?;
                gen.builder
                    .build_int_compare(IntPredicate::NE, r, i32t.const_zero(), "")?
            } else {
                let f = gen.declare(
                    "llvm.nvvm.vote.any.sync",
                    Some(bool_t.into()),
                    &[i32t.into(), bool_t.into()],
                );
                gen.call_int(f, &[all.into(), pred.into()])?
            };
            gen.builder.build_store(out, any)?;
            Ok(())
        })?;
        self.when(fr.func, per_block, |gen| {
            let name = if emulated {
                "arr_emu_barrier_or"
            } else {
                "llvm.nvvm.barrier0.or"
            };
            let f = gen.declare(name, Some(i32t.into()), &[i32t.into()]);
            let r = gen.call_int(f, &[wide.into()])?;
            let any = gen
                .builder
                .build_int_compare(IntPredicate::NE, r, i32t.const_zero(), "")?;
            gen.builder.build_store(out, any)?;
            Ok(())
        })?;
        Ok(self
            .builder
            .build_load(bool_t, out, "any")?
            .into_int_value())
    }

    /// A write of a group array outside the folds (`RowGroup::shared`):
    /// the group's first thread writes, between two synchronisations of
    /// the group (no thread still reads the old value, every thread sees
    /// the new one). Returns whether `s` was such a write. Its checks are
    /// statements of their own, which every thread runs.
    pub(crate) fn group_write(&mut self, fr: &mut Frame<'ctx>, s: &Stmt) -> Res<bool> {
        let Some(g) = self.device.as_ref().and_then(|d| d.rows.clone()) else {
            return Ok(false);
        };
        let (Stmt::Write { array, .. } | Stmt::Copy { array, .. }) = s else {
            return Ok(false);
        };
        if !g.shared.contains(array) {
            return Ok(false);
        }
        self.group_sync(fr, g.per_block)?;
        let lead =
            self.builder
                .build_int_compare(IntPredicate::EQ, g.rank, self.const_i64(0), "")?;
        let stmt = s.clone();
        self.when(fr.func, lead, |gen| gen.stmt(fr, &stmt))?;
        self.group_sync(fr, g.per_block)?;
        Ok(true)
    }

    /// `bar.warp.sync` with every lane of the warp.
    pub(super) fn warp_sync(&self) -> Res<()> {
        let i32t = self.ctx.i32_type();
        let name = if self.emulated()? {
            "arr_emu_warp_sync"
        } else {
            "llvm.nvvm.bar.warp.sync"
        };
        let f = self.declare(name, None, &[i32t.into()]);
        let all = i32t.const_int(0xffff_ffff, false);
        self.builder.build_call(f, &[all.into()], "")?;
        Ok(())
    }
}
