//! Flat indices become a nest: a `core::ir::Function` in, the same function
//! out where a `map` over `iota w`, `w = n * m`, whose function uses its
//! index `k` through `k / m` and `k % m` (and maybe as `k` itself) is
//! `flatten` of a `map` over `iota n` of a `map` over `iota m`, with `i`
//! and `j` for the quotient and remainder and `k` rebuilt as `i * m + j`;
//! `unflatten n m` of that `flatten` is the nest itself.
//!
//! `unflatten n m (tabulate (n * m) (\k -> let i = k / m let j = k % m
//! in ...))` otherwise is one loop with a 64-bit division per point, which
//! neither vectorises nor has its border tests peeled as `tabulate_2d`'s
//! nest does (issue 20).
//!
//! Sound where `n` and `m` are at least zero and `n * m` cannot wrap: then
//! `k` runs over `0 .. n * m` with `m > 0` whenever there is an iteration,
//! where floor and truncating division and remainder agree, and the nest
//! runs the same points in the same (row-major) order, so its first error
//! is the flat loop's. The product is proved not to wrap when `n` and `m`
//! are constants whose product fits (folded by then: a constant count `w`
//! and a constant divisor `m` of it, `n = w / m`), or the two dimensions
//! of a rank-2 parameter of the entry (its elements exist, or one
//! dimension is zero).

use super::facts::same_atom;
use super::walk::{nested_bodies, nested_bodies_mut};
use crate::core::free::free_in_body;
use crate::core::fresh::Fresh;
use crate::core::ir::{
    Atom, BinOp, Body, Exp, Function, Lambda, Soac, SoacKind, Stm, Type, Var, VarId,
};
use crate::types::{Const, ScalarType};
use std::collections::{HashMap, HashSet};

pub fn run(f: &mut Function, fresh: &mut Fresh) -> bool {
    let mut defs = Defs::default();
    defs.params(f);
    defs.body(&f.body);
    if defs.iotas.is_empty() {
        return false;
    }
    let mut flats = HashMap::new();
    body(&mut f.body, &defs, fresh, &mut flats);
    if flats.is_empty() {
        return false;
    }
    unflatten_nests(&mut f.body, &flats);
    true
}

/// `flatten rows` that this pass made, by the name it binds: `rows` and its
/// two outer sizes.
type Flats = HashMap<VarId, (VarId, Atom, Atom)>;

/// `unflatten n m ys`, `ys = flatten rows` of the nest made here, is `rows`
/// (its check holds: `ys` has `n * m` rows): no copy back into rows.
fn unflatten_nests(b: &mut Body, flats: &Flats) {
    for stm in &mut b.stms {
        for nested in nested_bodies_mut(&mut stm.exp) {
            unflatten_nests(nested, flats);
        }
        if let Exp::Unflatten { array, rows, cols } = &stm.exp {
            if let Some((nest, n, m)) = flats.get(array) {
                if same_atom(rows, n) && same_atom(cols, m) {
                    stm.exp = Exp::Atom(Atom::Var(*nest));
                }
            }
        }
    }
}

/// What the function binds, by variable (ids are unique in a function).
#[derive(Default)]
struct Defs {
    /// `x = iota count`.
    iotas: HashMap<VarId, Atom>,
    /// `x = mul a b` on `i64`.
    products: HashMap<VarId, (Atom, Atom)>,
    /// `i64` variables that are dimension `d` of a parameter of rank 2.
    dims: HashMap<VarId, Vec<(VarId, usize)>>,
    rank2_params: HashSet<VarId>,
}

impl Defs {
    fn params(&mut self, f: &Function) {
        for p in &f.params {
            if p.ty == Type::Array(p.ty.elem(), 2) {
                self.rank2_params.insert(p.id);
            }
        }
        for sp in &f.size_params {
            for &(p, d) in &sp.uses {
                if let Some(param) = f.params.get(p) {
                    self.dim(sp.var.id, param.id, d);
                }
            }
        }
    }

    fn dim(&mut self, size: VarId, array: VarId, d: usize) {
        if self.rank2_params.contains(&array) {
            self.dims.entry(size).or_default().push((array, d));
        }
    }

    fn body(&mut self, body: &Body) {
        for stm in &body.stms {
            if let [x] = &stm.pat[..] {
                match &stm.exp {
                    Exp::Iota(count) => {
                        self.iotas.insert(x.id, *count);
                    }
                    Exp::BinOp(BinOp::Mul, a, b) if x.ty == Type::Scalar(ScalarType::I64) => {
                        self.products.insert(x.id, (*a, *b));
                    }
                    Exp::Size { array, dim } => self.dim(x.id, *array, *dim),
                    _ => {}
                }
            }
            for nested in nested_bodies(&stm.exp) {
                self.body(nested);
            }
        }
    }

    /// Whether `a * b` is at least zero and does not wrap.
    fn product_fits(&self, a: &Atom, b: &Atom) -> bool {
        match (a, b) {
            (Atom::Const(Const::I64(a)), Atom::Const(Const::I64(b))) => {
                *a >= 0 && *b >= 0 && a.checked_mul(*b).is_some()
            }
            (Atom::Var(a), Atom::Var(b)) => {
                let (Some(da), Some(db)) = (self.dims.get(a), self.dims.get(b)) else {
                    return false;
                };
                da.iter()
                    .any(|&(p, d)| db.iter().any(|&(q, e)| p == q && d != e))
            }
            _ => false,
        }
    }
}

fn body(b: &mut Body, defs: &Defs, fresh: &mut Fresh, flats: &mut Flats) {
    let stms = std::mem::take(&mut b.stms);
    let mut out = Vec::with_capacity(stms.len());
    for mut stm in stms {
        for nested in nested_bodies_mut(&mut stm.exp) {
            body(nested, defs, fresh, flats);
        }
        match nest(&stm, defs, fresh, flats) {
            Some(stms) => out.extend(stms),
            None => out.push(stm),
        }
    }
    b.stms = out;
}

/// The statements replacing `stm` when it is a map over `iota (n * m)`
/// whose function divides its index by `m`.
fn nest(stm: &Stm, defs: &Defs, fresh: &mut Fresh, flats: &mut Flats) -> Option<Vec<Stm>> {
    let Exp::Soac(soac) = &stm.exp else {
        return None;
    };
    let SoacKind::Map(lam) = &soac.kind else {
        return None;
    };
    let ([arg], [k]) = (&soac.args[..], &lam.params[..]) else {
        return None;
    };
    let (a, b) = match *defs.iotas.get(arg)? {
        Atom::Var(w) => *defs.products.get(&w)?,
        // `n * m` of constants is folded before this pass runs.
        Atom::Const(Const::I64(w)) => {
            let m = constant_divisor(&lam.body, k.id, w)?;
            (Atom::Const(Const::I64(w / m)), Atom::Const(Const::I64(m)))
        }
        _ => return None,
    };
    if k.ty != Type::Scalar(ScalarType::I64)
        || !defs.product_fits(&a, &b)
        || stm.pat.len() != lam.ret.len()
    {
        return None;
    }
    let i64 = Type::Scalar(ScalarType::I64);
    let i = fresh.var("i", i64);
    let j = fresh.var("j", i64);
    // `a * b` is `b * a`: the divisor says which is the row length.
    let mut inner_body = lam.body.clone();
    let (n, m) = if split_index(&mut inner_body, k.id, &b, i.id, j.id) {
        (a, b)
    } else if split_index(&mut inner_body, k.id, &a, i.id, j.id) {
        (b, a)
    } else {
        return None;
    };
    if free_in_body(&inner_body).contains(&k.id) {
        let row = fresh.var("row", i64);
        let rebuilt = [
            (row.clone(), Exp::BinOp(BinOp::Mul, Atom::Var(i.id), m)),
            (
                k.clone(),
                Exp::BinOp(BinOp::Add, Atom::Var(row.id), Atom::Var(j.id)),
            ),
        ];
        let rebuilt = rebuilt.into_iter().map(|(v, exp)| Stm {
            pat: vec![v],
            exp,
            loc: stm.loc,
        });
        inner_body.stms.splice(0..0, rebuilt);
    }
    let loc = stm.loc;
    let let1 = |v: &Var, exp: Exp| Stm {
        pat: vec![v.clone()],
        exp,
        loc,
    };
    let iota_n = fresh.var("iota", Type::Array(ScalarType::I64, 1));
    let iota_m = fresh.var("iota", Type::Array(ScalarType::I64, 1));
    let cols: Vec<Var> = stm.pat.iter().map(|y| fresh.var("cols", y.ty)).collect();
    let rows: Vec<Var> = stm
        .pat
        .iter()
        .map(|y| fresh.var("rows", Type::Array(y.ty.elem(), rank(y.ty) + 1)))
        .collect();
    let inner = Stm {
        pat: cols.clone(),
        exp: Exp::Soac(Soac {
            label: fresh.soac(),
            width: m,
            kind: SoacKind::Map(Lambda {
                params: vec![j],
                body: inner_body,
                ret: lam.ret.clone(),
            }),
            args: vec![iota_m.id],
            sequential: soac.sequential,
        }),
        loc,
    };
    let outer = Stm {
        pat: rows.clone(),
        exp: Exp::Soac(Soac {
            label: soac.label,
            width: n,
            kind: SoacKind::Map(Lambda {
                params: vec![i],
                body: Body {
                    stms: vec![inner],
                    result: cols.iter().map(|c| Atom::Var(c.id)).collect(),
                },
                ret: cols.iter().map(|c| c.ty).collect(),
            }),
            args: vec![iota_n.id],
            sequential: soac.sequential,
        }),
        loc,
    };
    let mut out = vec![
        let1(&iota_n, Exp::Iota(n)),
        let1(&iota_m, Exp::Iota(m)),
        outer,
    ];
    for (y, r) in stm.pat.iter().zip(&rows) {
        flats.insert(y.id, (r.id, n, m));
        out.push(let1(y, Exp::Flatten(r.id)));
    }
    Some(out)
}

fn rank(t: Type) -> usize {
    match t {
        Type::Scalar(_) => 0,
        Type::Array(_, r) => r,
    }
}

/// A constant `m > 0` that `body` divides `k` by (or takes its remainder
/// by) and that divides the constant count `w` of `k`'s `iota`: the count
/// is then the product `(w / m) * m` that `n * m` was folded into.
fn constant_divisor(body: &Body, k: VarId, w: i64) -> Option<i64> {
    body.stms.iter().find_map(|stm| {
        if let Exp::BinOp(op, Atom::Var(a), Atom::Const(Const::I64(m))) = &stm.exp {
            let splits = matches!(op, BinOp::Div | BinOp::Quot | BinOp::Mod | BinOp::Rem);
            if *a == k && splits && *m > 0 && w >= 0 && w % m == 0 {
                return Some(*m);
            }
        }
        nested_bodies(&stm.exp)
            .into_iter()
            .find_map(|nested| constant_divisor(nested, k, w))
    })
}

/// Replaces `k / m` by `i` and `k % m` by `j` (floor or truncating: `k` is
/// at least zero and `m` positive) everywhere in `body`; whether any was.
fn split_index(body: &mut Body, k: VarId, m: &Atom, i: VarId, j: VarId) -> bool {
    let mut any = false;
    for stm in &mut body.stms {
        for nested in nested_bodies_mut(&mut stm.exp) {
            any |= split_index(nested, k, m, i, j);
        }
        if let Exp::BinOp(op, Atom::Var(a), b) = &stm.exp {
            if *a == k && same_atom(b, m) {
                let part = match op {
                    BinOp::Div | BinOp::Quot => Some(i),
                    BinOp::Mod | BinOp::Rem => Some(j),
                    _ => None,
                };
                if let Some(part) = part {
                    stm.exp = Exp::Atom(Atom::Var(part));
                    any = true;
                }
            }
        }
    }
    any
}
