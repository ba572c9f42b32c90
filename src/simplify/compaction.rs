//! Compaction by `scan` and `scatter` is a `filter`: a `core::ir::Function`
//! in, the same function out where
//!
//! ```text
//! let c    = map (\x -> if p x then 1 else 0) xs      -- or i64.bool of flags
//! let offs = scan (+) 0 c
//! let k    = if n == 0 then 0 else offs[n - 1]         -- or reduce (+) 0 c
//! let t    = map2 (\f o -> if f == 1 then o - 1 else -1) c offs
//! in scatter (replicate k v) t ys
//! ```
//!
//! becomes `filter` over `ys` keeping the elements whose `c` is 1, with `c`'s
//! maps inlined into the predicate where they read `ys` (issue 20: the scan
//! wrote all `n` offsets and `t` was written and read again, 3.9x the
//! built-in `filter`).
//!
//! Sound because, with every `c[i]` 0 or 1 (proved from the map that makes
//! it), an element with `c[i] = 1` goes to `offs[i] - 1`, the number of kept
//! elements before it, and those targets are distinct and cover `0 .. k`
//! exactly, `k` being the number kept; every other element's target is
//! negative, which `scatter` ignores. So each slot of the destination is
//! written once, with the kept elements in order, and the replicated value
//! is never seen: that is `filter`. Neither the offsets (`i64`, at most `n`)
//! nor anything else in the pattern can fail; a predicate map that can fail
//! still runs where it stood (dead code keeps what can fail), so the first
//! error is the same. Only scalar elements (rank-1 values) and an `i64` scan
//! of `+` from 0 match; any other shape keeps its meaning as written.
//!
//! Also a `partition` whose one half is read nowhere is a `filter` (`let
//! (keep, _) = partition p xs`: the rest was written all the same, 1.75x
//! the `filter`).

use super::facts::{same_atom, Facts};
use super::walk::{exp_atoms_mut, nested_binders, nested_bodies, nested_bodies_mut, use_counts};
use crate::core::fresh::Fresh;
use crate::core::ir::{
    Atom, BinOp, Body, Exp, Function, Lambda, Soac, SoacKind, SrcLoc, Stm, Type, UnOp, Var, VarId,
};
use crate::types::{Const, ScalarType};
use std::collections::{HashMap, HashSet};

pub fn run(f: &mut Function, facts: &Facts, fresh: &mut Fresh) -> bool {
    let uses = use_counts(f, 1);
    let halves = half_partitions(&mut f.body, &uses, fresh);
    let mut defs = Defs {
        stms: HashMap::new(),
        types: HashMap::new(),
        uses,
        facts,
        has_scatter: false,
    };
    for p in &f.params {
        defs.types.insert(p.id, p.ty);
    }
    defs.body(&f.body);
    if !defs.has_scatter {
        return halves;
    }
    let mut rewrite = Rewrite::default();
    find(&f.body, &defs, fresh, &mut rewrite);
    if rewrite.filters.is_empty() {
        return halves;
    }
    replace(&mut f.body, &mut rewrite);
    true
}

/// A `partition` of which one half is read nowhere is a `filter` keeping
/// that half (by the predicate, or its negation for the rest): the same
/// predicate on the same elements in order, so the same first error, and
/// the unread half is not written.
fn half_partitions(body: &mut Body, uses: &HashMap<VarId, u32>, fresh: &mut Fresh) -> bool {
    let mut changed = false;
    for stm in &mut body.stms {
        for nested in nested_bodies_mut(&mut stm.exp) {
            changed |= half_partitions(nested, uses, fresh);
        }
        let Exp::Soac(soac) = &mut stm.exp else {
            continue;
        };
        let SoacKind::Partition { pred } = &mut soac.kind else {
            continue;
        };
        let k = soac.args.len();
        let unread = |vs: &[Var]| vs.iter().all(|v| !uses.contains_key(&v.id));
        if stm.pat.len() != 2 * k || pred.body.result.len() != 1 {
            continue;
        }
        let mut pred = pred.clone();
        if unread(&stm.pat[k..]) {
            stm.pat.truncate(k);
        } else if unread(&stm.pat[..k]) {
            stm.pat.drain(..k);
            let rest = fresh.var("rest", Type::Scalar(ScalarType::Bool));
            pred.body.stms.push(Stm {
                pat: vec![rest.clone()],
                exp: Exp::UnOp(UnOp::Not, pred.body.result[0]),
                loc: stm.loc,
            });
            pred.body.result = vec![Atom::Var(rest.id)];
        } else {
            continue;
        }
        soac.kind = SoacKind::Filter { pred };
        changed = true;
    }
    changed
}

/// The statement binding each variable (ids are unique in a function),
/// with the variable's place in its pattern, and every variable's type.
struct Defs<'a> {
    stms: HashMap<VarId, (&'a Stm, usize)>,
    types: HashMap<VarId, Type>,
    uses: HashMap<VarId, u32>,
    facts: &'a Facts,
    has_scatter: bool,
}

impl<'a> Defs<'a> {
    fn body(&mut self, body: &'a Body) {
        for stm in &body.stms {
            for (k, v) in stm.pat.iter().enumerate() {
                self.stms.insert(v.id, (stm, k));
                self.types.insert(v.id, v.ty);
            }
            if let Exp::Soac(soac) = &stm.exp {
                self.has_scatter |= matches!(soac.kind, SoacKind::Scatter { .. });
            }
            for v in nested_binders(&stm.exp) {
                self.types.insert(v.id, v.ty);
            }
            for nested in nested_bodies(&stm.exp) {
                self.body(nested);
            }
        }
    }

    fn exp(&self, a: &Atom) -> Option<(&'a Exp, usize)> {
        let Atom::Var(v) = a else { return None };
        self.stms.get(v).map(|(s, k)| (&s.exp, *k))
    }

    /// The single-result expression binding `a`.
    fn single(&self, a: &Atom) -> Option<&'a Exp> {
        let Atom::Var(v) = a else { return None };
        let (s, _) = self.stms.get(v)?;
        (s.pat.len() == 1).then_some(&s.exp)
    }

    /// `a` is `w - 1` (or `w + -1`).
    fn is_pred(&self, a: &Atom, w: &Atom) -> bool {
        matches!(self.single(a), Some(Exp::BinOp(op, x, Atom::Const(c)))
            if same_atom(x, w) && ((*op == BinOp::Sub && *c == Const::I64(1))
                || (*op == BinOp::Add && *c == Const::I64(-1))))
    }

    /// The `map` of width `w` making `array`: its function and arguments,
    /// and which of its results `array` is.
    fn map(&self, array: VarId, w: &Atom) -> Option<(&'a Lambda, &'a [VarId], usize)> {
        let (Exp::Soac(soac), k) = self.exp(&Atom::Var(array))? else {
            return None;
        };
        let SoacKind::Map(lam) = &soac.kind else {
            return None;
        };
        (same_atom(&soac.width, w) && lam.params.len() == soac.args.len()).then_some((
            lam,
            &soac.args[..],
            k,
        ))
    }
}

/// The filters replacing scatters, by the scatter's first result, and the
/// statements only the scatters read that `dce` would keep for fear they
/// fail: destinations `replicate k v` and the count `k` read from `offs`,
/// proved not to fail (`k` is at least zero, `offs[n - 1]` guarded).
#[derive(Default)]
struct Rewrite {
    filters: HashMap<VarId, Stm>,
    dead: HashSet<VarId>,
}

fn find(body: &Body, defs: &Defs, fresh: &mut Fresh, out: &mut Rewrite) {
    for stm in &body.stms {
        for nested in nested_bodies(&stm.exp) {
            find(nested, defs, fresh, out);
        }
        if let Some(filter) = compaction(stm, defs, fresh) {
            out.filters.insert(stm.pat[0].id, filter);
            out.dead.extend(dead_inputs(stm, defs));
        }
    }
}

fn replace(body: &mut Body, rewrite: &mut Rewrite) {
    body.stms
        .retain(|s| !s.pat.first().is_some_and(|v| rewrite.dead.contains(&v.id)));
    for stm in &mut body.stms {
        for nested in nested_bodies_mut(&mut stm.exp) {
            replace(nested, rewrite);
        }
        if let Some(first) = stm.pat.first() {
            if let Some(filter) = rewrite.filters.remove(&first.id) {
                *stm = filter;
            }
        }
    }
}

/// The destinations of `scatter` that nothing else reads, and their count
/// where only they read it and its `if` can fail only by the guarded
/// `offs[n - 1]` (`compaction` proved the rest of the shape).
fn dead_inputs(scatter: &Stm, defs: &Defs) -> Vec<VarId> {
    let Exp::Soac(Soac {
        kind: SoacKind::Scatter {
            dest,
            continues: false,
        },
        ..
    }) = &scatter.exp
    else {
        return Vec::new();
    };
    let used_once = |v: &VarId| defs.uses.get(v) == Some(&1);
    let mut dead: Vec<VarId> = dest.iter().copied().filter(used_once).collect();
    if dead.len() < dest.len() {
        return dead;
    }
    let Some(Exp::Replicate {
        count: Atom::Var(k),
        ..
    }) = defs.single(&Atom::Var(dest[0]))
    else {
        return dead;
    };
    let only_dests = defs.uses.get(k).copied() == u32::try_from(dest.len()).ok();
    if let Some(Exp::If {
        then_body,
        else_body,
        ..
    }) = defs.single(&Atom::Var(*k))
    {
        let safe = |b: &Body| {
            b.stms.iter().all(|s| {
                !defs.facts.may_fail(s)
                    || (matches!(s.exp, Exp::Index { .. })
                        && b.result[..] == [Atom::Var(s.pat[0].id)])
            })
        };
        if only_dests && safe(then_body) && safe(else_body) {
            dead.push(*k);
        }
    }
    dead
}

const I64: Type = Type::Scalar(ScalarType::I64);

/// The `filter` statement equal to `stm`, a scatter of the pattern above.
fn compaction(stm: &Stm, defs: &Defs, fresh: &mut Fresh) -> Option<Stm> {
    let Exp::Soac(soac) = &stm.exp else {
        return None;
    };
    let SoacKind::Scatter { dest, .. } = &soac.kind else {
        return None;
    };
    let w = &soac.width;
    let (&targets, vals) = soac.args.split_first()?;
    if vals.is_empty()
        || vals.len() != dest.len()
        || stm.pat.len() != vals.len()
        || stm.pat.iter().any(|v| v.ty.rank() != 1)
    {
        return None;
    }
    let (lam, args, 0) = defs.map(targets, w)? else {
        return None;
    };
    let (offs_param, flag) = targets_fn(lam)?;
    let arg_of = |p: VarId| {
        let k = lam.params.iter().position(|q| q.id == p)?;
        Some(args[k])
    };
    let offs = arg_of(offs_param)?;
    let c = prefix_sum_of(offs, w, defs)?;
    match flag {
        // `c[i] == 1` or the like: `c` must be 0 or 1.
        Flag::Int(p) => (arg_of(p)? == c && zero_one(c, w, defs).is_some()).then_some(())?,
        // A `bool` array `b`: `c` must be `i64.bool b`.
        Flag::Bool(p) => (zero_one(c, w, defs)? == Some(arg_of(p)?)).then_some(())?,
    }
    for d in dest {
        let Some(Exp::Replicate { count, .. }) = defs.single(&Atom::Var(*d)) else {
            return None;
        };
        if !is_total(count, offs, c, w, defs) {
            return None;
        }
    }
    Some(filter(stm, soac, vals, c, defs, fresh))
}

/// What the target function tests: a parameter equal to 1 (an `i64` flag)
/// or a `bool` parameter itself.
enum Flag {
    Int(VarId),
    Bool(VarId),
}

/// `\.. -> if flag then o - 1 else NEG` with `NEG < 0` and nothing that can
/// fail: `o`'s parameter and the flag.
fn targets_fn(lam: &Lambda) -> Option<(VarId, Flag)> {
    if lam.ret != [I64] || !pure_scalar(&lam.body) {
        return None;
    }
    let [Atom::Var(r)] = lam.body.result[..] else {
        return None;
    };
    fn local(body: &Body, v: VarId) -> Option<&Exp> {
        body.stms
            .iter()
            .find(|s| s.pat.len() == 1 && s.pat[0].id == v)
            .map(|s| &s.exp)
    }
    let Some(Exp::If {
        cond: Atom::Var(cond),
        then_body,
        else_body,
    }) = local(&lam.body, r)
    else {
        return None;
    };
    let ([Atom::Var(kept)], [Atom::Const(Const::I64(neg))]) =
        (&then_body.result[..], &else_body.result[..])
    else {
        return None;
    };
    if *neg >= 0 {
        return None;
    }
    let kept_exp = local(then_body, *kept).or_else(|| local(&lam.body, *kept))?;
    let Exp::BinOp(op, Atom::Var(o), Atom::Const(c)) = kept_exp else {
        return None;
    };
    let minus_one =
        (*op == BinOp::Sub && *c == Const::I64(1)) || (*op == BinOp::Add && *c == Const::I64(-1));
    let is_param = |v: VarId| lam.params.iter().any(|p| p.id == v);
    if !minus_one || !is_param(*o) {
        return None;
    }
    if is_param(*cond) {
        return Some((*o, Flag::Bool(*cond)));
    }
    // `p == 1`, `p != 0` or `p > 0` on a 0-or-1 `p`.
    let flag = match local(&lam.body, *cond)? {
        Exp::BinOp(op, Atom::Var(p), Atom::Const(Const::I64(k)))
        | Exp::BinOp(op, Atom::Const(Const::I64(k)), Atom::Var(p))
            if matches!((op, k), (BinOp::Eq, 1) | (BinOp::Neq, 0)) =>
        {
            *p
        }
        Exp::BinOp(BinOp::Gt, Atom::Var(p), Atom::Const(Const::I64(0)))
        | Exp::BinOp(BinOp::Lt, Atom::Const(Const::I64(0)), Atom::Var(p)) => *p,
        _ => return None,
    };
    is_param(flag).then_some((*o, Flag::Int(flag)))
}

/// Statements that cannot fail and run no nested loops.
fn pure_scalar(body: &Body) -> bool {
    body.stms.iter().all(|s| match &s.exp {
        Exp::Atom(_) | Exp::UnOp(..) | Exp::Convert(..) => true,
        Exp::BinOp(op, ..) => !op.may_fail(),
        Exp::If {
            then_body,
            else_body,
            ..
        } => pure_scalar(then_body) && pure_scalar(else_body),
        _ => false,
    })
}

/// `offs = scan (+) 0 c` on `i64` over width `w`: `c`.
fn prefix_sum_of(offs: VarId, w: &Atom, defs: &Defs) -> Option<VarId> {
    let (Exp::Soac(soac), 0) = defs.exp(&Atom::Var(offs))? else {
        return None;
    };
    let SoacKind::Scan { op, neutral } = &soac.kind else {
        return None;
    };
    let [c] = soac.args[..] else { return None };
    (same_atom(&soac.width, w) && neutral[..] == [Atom::Const(Const::I64(0))] && is_add(op))
        .then_some(c)
}

/// `\a b -> a + b` (or `b + a`) on `i64`.
fn is_add(op: &Lambda) -> bool {
    let ([a, b], [s]) = (&op.params[..], &op.body.stms[..]) else {
        return false;
    };
    let Exp::BinOp(BinOp::Add, Atom::Var(x), Atom::Var(y)) = &s.exp else {
        return false;
    };
    op.ret == [I64]
        && op.body.result[..] == [Atom::Var(s.pat[0].id)]
        && ((*x == a.id && *y == b.id) || (*x == b.id && *y == a.id))
}

/// Whether every element of `c` is 0 or 1, by the map making it: `Some(
/// Some(b))` where `c` is `i64.bool` of the elements of the `bool` array
/// `b` (`if x then 1 else 0` or a conversion of the parameter `x`),
/// `Some(None)` where it is 0 or 1 otherwise.
fn zero_one(c: VarId, w: &Atom, defs: &Defs) -> Option<Option<VarId>> {
    let (lam, args, k) = defs.map(c, w)?;
    let Atom::Var(r) = lam.body.result.get(k)? else {
        return None;
    };
    let s = lam
        .body
        .stms
        .iter()
        .find(|s| s.pat.len() == 1 && s.pat[0].id == *r)?;
    let param_arg = |a: &Atom| {
        let Atom::Var(x) = a else { return None };
        let p = lam.params.iter().position(|p| p.id == *x)?;
        Some(args[p])
    };
    match &s.exp {
        Exp::If {
            cond,
            then_body,
            else_body,
        } if then_body.stms.is_empty() && else_body.stms.is_empty() => {
            match (&then_body.result[..], &else_body.result[..]) {
                ([Atom::Const(Const::I64(1))], [Atom::Const(Const::I64(0))]) => {
                    Some(param_arg(cond))
                }
                ([Atom::Const(Const::I64(0))], [Atom::Const(Const::I64(1))]) => Some(None),
                _ => None,
            }
        }
        Exp::Convert(ScalarType::I64, a @ Atom::Var(x))
            if defs.types.get(x) == Some(&Type::Scalar(ScalarType::Bool)) =>
        {
            Some(param_arg(a))
        }
        _ => None,
    }
}

/// `count` is the sum of `c`: `offs[w - 1]` guarded by `w > 0` (or `w !=
/// 0`, or 0 when `w == 0`), or `reduce (+) 0 c`.
fn is_total(count: &Atom, offs: VarId, c: VarId, w: &Atom, defs: &Defs) -> bool {
    let Some(exp) = defs.single(count) else {
        return false;
    };
    let is_zero = |b: &Body| b.result[..] == [Atom::Const(Const::I64(0))];
    let is_last = |b: &Body| {
        let [e] = &b.result[..] else { return false };
        matches!(defs.single(e), Some(Exp::Index { array, indices, .. })
            if *array == offs && indices.len() == 1 && defs.is_pred(&indices[0], w))
    };
    match exp {
        Exp::If {
            cond,
            then_body,
            else_body,
        } => {
            let nonempty = match defs.single(cond) {
                Some(Exp::BinOp(op, a, Atom::Const(Const::I64(0)))) if same_atom(a, w) => {
                    match op {
                        BinOp::Eq => false,
                        BinOp::Neq | BinOp::Gt => true,
                        _ => return false,
                    }
                }
                Some(Exp::BinOp(BinOp::Lt, Atom::Const(Const::I64(0)), a)) if same_atom(a, w) => {
                    true
                }
                _ => return false,
            };
            if nonempty {
                is_last(then_body) && is_zero(else_body)
            } else {
                is_zero(then_body) && is_last(else_body)
            }
        }
        Exp::Soac(soac) => match &soac.kind {
            SoacKind::Reduce { op, neutral } => {
                soac.args[..] == [c]
                    && same_atom(&soac.width, w)
                    && neutral[..] == [Atom::Const(Const::I64(0))]
                    && is_add(op)
            }
            _ => false,
        },
        _ => false,
    }
}

/// `filter (\y.. -> c_i != 0) ys..` in place of the scatter, `c_i` computed
/// from the elements of `ys` by inlining the maps that make `c` from them;
/// any other array `c` needs is filtered alongside, its result unused.
fn filter(
    stm: &Stm,
    scatter: &Soac,
    vals: &[VarId],
    c: VarId,
    defs: &Defs,
    fresh: &mut Fresh,
) -> Stm {
    let mut pred = Pred {
        defs,
        w: scatter.width,
        elems: HashMap::new(),
        params: Vec::new(),
        args: Vec::new(),
        stms: Vec::new(),
        loc: stm.loc,
    };
    for &v in vals {
        pred.param(v, fresh);
    }
    let ci = pred.element(c, 0, fresh);
    let keep = fresh.var("keep", Type::Scalar(ScalarType::Bool));
    pred.stms.push(Stm {
        pat: vec![keep.clone()],
        exp: Exp::BinOp(BinOp::Neq, ci, Atom::Const(Const::I64(0))),
        loc: stm.loc,
    });
    let mut pat = stm.pat.clone();
    // The arrays `c` needs beyond the values are filtered too, unused.
    for a in &pred.args[vals.len()..] {
        pat.push(fresh.var("unused", defs.types[a]));
    }
    Stm {
        pat,
        exp: Exp::Soac(Soac {
            label: fresh.soac(),
            width: scatter.width,
            kind: SoacKind::Filter {
                pred: Lambda {
                    params: pred.params,
                    body: Body {
                        stms: pred.stms,
                        result: vec![Atom::Var(keep.id)],
                    },
                    ret: vec![Type::Scalar(ScalarType::Bool)],
                },
            },
            args: pred.args,
            sequential: scatter.sequential,
        }),
        loc: stm.loc,
    }
}

/// The predicate being built: its parameters, one per filtered array, and
/// the element of each array it has computed.
struct Pred<'a, 'd> {
    defs: &'d Defs<'a>,
    w: Atom,
    elems: HashMap<VarId, Atom>,
    params: Vec<Var>,
    args: Vec<VarId>,
    stms: Vec<Stm>,
    loc: SrcLoc,
}

/// How many maps deep a flag's computation is inlined.
const INLINE_DEPTH: usize = 4;

impl Pred<'_, '_> {
    /// A parameter for the elements of `array`, filtered alongside.
    fn param(&mut self, array: VarId, fresh: &mut Fresh) -> Atom {
        let x = fresh.var("x", self.defs.types[&array].row());
        let a = Atom::Var(x.id);
        self.params.push(x);
        self.args.push(array);
        self.elems.entry(array).or_insert(a);
        a
    }

    /// Element `i` of `array`, for the predicate's element `i`.
    fn element(&mut self, array: VarId, depth: usize, fresh: &mut Fresh) -> Atom {
        if let Some(a) = self.elems.get(&array) {
            return *a;
        }
        let inlined = (depth < INLINE_DEPTH)
            .then(|| self.defs.map(array, &self.w))
            .flatten()
            .filter(|(lam, _, _)| loop_free(&lam.body));
        let Some((lam, args, k)) = inlined else {
            return self.param(array, fresh);
        };
        let mut renames = HashMap::new();
        for (p, a) in lam.params.iter().zip(args) {
            let e = self.element(*a, depth + 1, fresh);
            renames.insert(p.id, e);
        }
        let mut body = lam.body.clone();
        freshen(&mut body, &mut renames, fresh);
        self.stms.append(&mut body.stms);
        let e = match body.result[k] {
            Atom::Var(v) => Atom::Var(v),
            constant => {
                let v = fresh.var("elem", self.defs.types[&array].row());
                self.stms.push(Stm {
                    pat: vec![v.clone()],
                    exp: Exp::Atom(constant),
                    loc: self.loc,
                });
                Atom::Var(v.id)
            }
        };
        self.elems.insert(array, e);
        e
    }
}

/// No loops or SOACs inside (branches are fine): a body that can be copied
/// with fresh names for its statements' patterns alone.
fn loop_free(body: &Body) -> bool {
    body.stms.iter().all(|s| match &s.exp {
        Exp::Soac(_) | Exp::Loop { .. } => false,
        Exp::If {
            then_body,
            else_body,
            ..
        } => loop_free(then_body) && loop_free(else_body),
        _ => true,
    })
}

/// Gives every variable `body` binds a new id, and applies `renames` (and
/// the new ids) to what it reads.
fn freshen(body: &mut Body, renames: &mut HashMap<VarId, Atom>, fresh: &mut Fresh) {
    let apply = |renames: &HashMap<VarId, Atom>, a: &mut Atom| {
        if let Atom::Var(v) = a {
            if let Some(r) = renames.get(v) {
                *a = *r;
            }
        }
    };
    for stm in &mut body.stms {
        exp_atoms_mut(&mut stm.exp, |a| apply(renames, a));
        for nested in nested_bodies_mut(&mut stm.exp) {
            freshen(nested, renames, fresh);
        }
        for v in &mut stm.pat {
            let new = fresh.id();
            renames.insert(v.id, Atom::Var(new));
            v.id = new;
        }
    }
    for a in &mut body.result {
        apply(renames, a);
    }
}
