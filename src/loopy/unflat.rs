//! The `loopy-unflat` pass: a map nest over a flat index split into row
//! and column becomes the two loops again (a `loopy::ir::Function` in, the
//! same with those nests re-nested out).
//!
//! `fusion::flat_index` makes a flattened map nest one map over `k < n *
//! m` whose body starts from `k / m` and `k % m`: one loop nest in the
//! fused program, whose result is stored where it is made and streams into
//! its consumers. Run as written, every element pays a 64-bit division and
//! the loop does not vectorise. Here the nest becomes `i < n` around `j <
//! m`, with `k = i * m + j` and the quotient and remainder `i` and `j`: the
//! same elements in the same order, the inner loop contiguous.
//!
//! Sound only where `0 <= n`, `0 <= m` and `n * m` does not wrap: then `k`
//! runs over exactly the pairs `(i, j)` and, whenever there is an
//! iteration, `m > 0`, where floor division and remainder are `i` and `j`.
//! The pass re-nests only where an `Assert` before the nest, in its block or
//! an enclosing one, checks all three (`0 <= n`, `0 <= m`, `n <= i64::MAX /
//! max m 1`: what `fusion::flat_index` asserts). Only nests that carry
//! nothing (a map's writes) are re-nested.

use super::ir::{Block, Function, LoopNest, Parallelism, ScalarExp, Stmt};
use super::rename::{fresh_above, Fresh, NameSource};
use crate::core::ir::{Atom, BinOp, SrcLoc, Type, VarId};
use crate::types::{Const, ScalarType};
use std::collections::{HashMap, HashSet};

pub fn renest_flat_maps(f: &mut Function) {
    let mut defs = HashMap::new();
    scalar_defs(&f.body, &mut defs);
    let mut fresh = fresh_above(f);
    walk(&mut f.body, &defs, &Vec::new(), &mut fresh);
}

type Defs = HashMap<VarId, ScalarExp>;

fn scalar_defs(block: &Block, defs: &mut Defs) {
    for stmt in block {
        if let Stmt::Let { var, exp, .. } = stmt {
            defs.insert(var.id, exp.clone());
        }
        for inner in stmt.inner_blocks() {
            scalar_defs(inner, defs);
        }
    }
}

/// `(n, m)` pairs whose product an earlier `Assert` proves exact.
type Proven = Vec<(Atom, Atom)>;

fn walk(block: &mut Block, defs: &Defs, outer: &Proven, fresh: &mut Fresh) {
    let mut proven = outer.clone();
    for stmt in block.iter_mut() {
        if let Stmt::Assert {
            cond: Atom::Var(c), ..
        } = stmt
        {
            proven.extend(products(*c, defs));
        }
        for inner in stmt.inner_blocks_mut() {
            walk(inner, defs, &proven, fresh);
        }
        if let Stmt::Loop(nest) = stmt {
            if let Some(renested) = renest(nest, defs, &proven, fresh) {
                *nest = renested;
            }
        }
    }
}

/// The conjuncts of the `bool` `c`.
fn conjuncts(c: VarId, defs: &Defs, out: &mut Vec<VarId>) {
    match defs.get(&c) {
        Some(ScalarExp::BinOp(BinOp::And, Atom::Var(a), Atom::Var(b))) => {
            conjuncts(*a, defs, out);
            conjuncts(*b, defs, out);
        }
        _ => out.push(c),
    }
}

/// The pairs `(n, m)` that the condition `c` proves `0 <= n`, `0 <= m`
/// and `n * m <= i64::MAX` for.
fn products(c: VarId, defs: &Defs) -> Vec<(Atom, Atom)> {
    let mut parts = Vec::new();
    conjuncts(c, defs, &mut parts);
    let zero = Atom::Const(Const::I64(0));
    let facts: Vec<&ScalarExp> = parts.iter().filter_map(|p| defs.get(p)).collect();
    let nonneg = |a: Atom| match a {
        Atom::Const(Const::I64(v)) => v >= 0,
        _ => facts
            .iter()
            .any(|f| **f == ScalarExp::BinOp(BinOp::Le, zero, a)),
    };
    let def = |a: Atom| match a {
        Atom::Var(v) => defs.get(&v),
        Atom::Const(_) => None,
    };
    let mut out = Vec::new();
    for f in &facts {
        // `n <= lim`, `lim = i64::MAX quot m1`, `m1 = max m 1`.
        let ScalarExp::BinOp(BinOp::Le, n, lim) = f else {
            continue;
        };
        let Some(ScalarExp::BinOp(BinOp::Quot, Atom::Const(Const::I64(i64::MAX)), m1)) = def(*lim)
        else {
            continue;
        };
        let Some(ScalarExp::BinOp(BinOp::Max, m, Atom::Const(Const::I64(1)))) = def(*m1) else {
            continue;
        };
        if nonneg(*n) && nonneg(*m) {
            out.push((*n, *m));
        }
    }
    out
}

/// The nest as `i < n` around `j < m`, where it is a map over `w = n * m`
/// with `(n, m)` proven whose body divides its index by `m`.
fn renest(nest: &LoopNest, defs: &Defs, proven: &Proven, fresh: &mut Fresh) -> Option<LoopNest> {
    let plain = nest.par == Parallelism::Map
        && nest.reductions.is_empty()
        && nest.scans.is_empty()
        && nest.compactions.is_empty()
        && nest.hists.is_empty()
        && nest.scatters.is_empty();
    let Atom::Var(w) = nest.width else {
        return None;
    };
    let Some(ScalarExp::BinOp(BinOp::Mul, n, m)) = defs.get(&w) else {
        return None;
    };
    if !plain || !proven.contains(&(*n, *m)) {
        return None;
    }
    // The index and its copies at the top of the body.
    let mut index: HashSet<VarId> = HashSet::from([nest.index.id]);
    for stmt in &nest.body {
        if let Stmt::Let {
            var,
            exp: ScalarExp::Atom(Atom::Var(a)),
            ..
        } = stmt
        {
            if index.contains(a) {
                index.insert(var.id);
            }
        }
    }
    let i64_var =
        |fresh: &mut Fresh, name: &str| fresh.fresh_var(name, Type::Scalar(ScalarType::I64));
    let i = i64_var(fresh, "i");
    let row = i64_var(fresh, "row");
    let col = i64_var(fresh, "col");
    let mut split = false;
    let mut body = Vec::with_capacity(nest.body.len() + 1);
    body.push(Stmt::Let {
        var: nest.index.clone(),
        exp: ScalarExp::BinOp(BinOp::Add, Atom::Var(row.id), Atom::Var(col.id)),
        loc: SrcLoc::default(),
    });
    for stmt in &nest.body {
        let by = match stmt {
            Stmt::Let {
                exp: ScalarExp::BinOp(op @ (BinOp::Div | BinOp::Mod), Atom::Var(k), d),
                ..
            } if index.contains(k) && d == m => Some(*op),
            _ => None,
        };
        match (by, stmt) {
            (Some(op), Stmt::Let { var, loc, .. }) => {
                split = true;
                let part = if op == BinOp::Div { &i } else { &col };
                body.push(Stmt::Let {
                    var: var.clone(),
                    exp: ScalarExp::Atom(Atom::Var(part.id)),
                    loc: *loc,
                });
            }
            _ => body.push(stmt.clone()),
        }
    }
    if !split {
        return None;
    }
    // `row` is `i * m`, the row's first element.
    let first = Stmt::Let {
        var: row.clone(),
        exp: ScalarExp::BinOp(BinOp::Mul, Atom::Var(i.id), *m),
        loc: SrcLoc::default(),
    };
    let inner = LoopNest::map(nest.origin, col, *m, body);
    Some(LoopNest {
        launch: nest.launch,
        ..LoopNest::map(nest.origin, i, *n, vec![first, Stmt::Loop(inner)])
    })
}
