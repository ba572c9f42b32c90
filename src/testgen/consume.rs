//! Consumed entry parameters (the contract's section 11: `*[]t` and
//! `let a[i] = v`): a program's first statement may rebind a one- or
//! two-dimensional parameter to an in-place update of itself, so that
//! `Prog::source` declares it unique. The updates are `let a[i] = v` on
//! the parameter, `for` and `while` loops whose array state starts as the
//! parameter and is updated in place (elements and rows, reading other
//! elements first, sometimes a `map` of the state after), and a `scatter`
//! into it. In an executable the argument is dead after the call, so
//! `loopy-donate` may write into it; a library copies it.
//!
//! Only the first statement consumes: no earlier value can alias the
//! parameter, which the body cannot use once it is consumed.

use super::ast::{Expr, Stm, Ty, Var};
use super::gen::{Env, Gen};
use crate::types::ScalarType;
use ScalarType::*;

impl Gen {
    /// A statement rebinding one of `params` (the whole scope so far) to
    /// an in-place update of it, if one is an array of rank 1 or 2.
    pub fn consume_param(&mut self, params: &Env) -> Option<Stm> {
        let arrays: Vec<&Var> = params
            .iter()
            .filter(|p| matches!(p.ty.scalar_rank(), Some((_, 1 | 2))))
            .collect();
        if arrays.is_empty() {
            return None;
        }
        let p = (*self.rng.pick(&arrays)).clone();
        let (t, rank) = p.ty.scalar_rank()?;
        // Inside the update the parameter is gone but through the state.
        let outer: Env = params
            .iter()
            .filter(|v| v.name != p.name)
            .cloned()
            .collect();
        let d = 2;
        let exp = if rank == 2 {
            self.update_matrix(&outer, &p, t, d)
        } else {
            match self.rng.below(4) {
                0 => self.update_once(params, &p, t, d),
                1 => return Some(self.update_while(&outer, &p, t, d)),
                2 => self.update_scatter(&outer, &p, t, d),
                _ => self.update_for(&outer, &p, t, d),
            }
        };
        Some(Stm {
            pattern: p.name.clone(),
            vars: vec![Var {
                inexact: exp.inexact,
                ..p
            }],
            exp,
        })
    }

    /// `let p[j] = v in p`, `v` computed from the whole scope.
    fn update_once(&mut self, env: &Env, p: &Var, t: ScalarType, d: u32) -> Expr {
        let (j, guarded) = self.index(env, &format!("length {}", p.name), d);
        let v = self.exact(env, t, d);
        let upd = Expr::node(p.ty.clone())
            .t(&format!("let {}[", p.name))
            .e(j)
            .t("] = ")
            .e(v)
            .t(&format!(" in {}", p.name));
        guard_empty(p, &p.name, guarded, upd)
    }

    /// The state `acc` and the element `x` at `j` of an update, in scope
    /// for its value, with `y`, a neighbour read before the write, half the
    /// time: `let x = acc[j] in let y = ... in let acc[j] = v in acc`.
    fn element_update(&mut self, env: &Env, acc: &Var, j: &str, t: ScalarType, d: u32) -> Expr {
        let (inner, x) = self.bind(env, "x", Ty::S(t), 0);
        let mut e = Expr::node(acc.ty.clone()).t(&format!("let {x} = {}[{j}] in ", acc.name));
        let inner = if self.rng.chance(0.5) {
            let (inner, y) = self.bind(&inner, "y", Ty::S(t), 0);
            e = e.t(&format!(
                "let {y} = {a}[({j} + 1) % length {a}] in ",
                a = acc.name
            ));
            inner
        } else {
            inner
        };
        let mut v = self.exact(&inner, t, d);
        if self.rng.chance(0.5) {
            // Read, modify, write.
            let op = self.op(t, false);
            v = Expr::node(Ty::S(t))
                .t(&format!("({} {x} ", op.text))
                .e(v)
                .t(")");
        }
        e.t(&format!("let {}[{j}] = ", acc.name))
            .e(v)
            .t(&format!(" in {}", acc.name))
    }

    /// `loop acc = p for i < k do ... let acc[j] = v in acc` (then a `map`
    /// of the state, sometimes), `j` a function of `i` or any index.
    fn update_for(&mut self, env: &Env, p: &Var, t: ScalarType, d: u32) -> Expr {
        let (inner, acc) = self.bind(env, "acc", p.ty.clone(), p.size);
        let (inner, i) = self.bind(&inner, "i", Ty::S(I64), 0);
        let acc_var = inner[inner.len() - 2].clone();
        let (n, trips) = (self.name("n"), self.rng.range(0, 6));
        let bound = if self.rng.chance(0.5) {
            n.clone()
        } else {
            format!("{trips}i64")
        };
        let j = self.name("j");
        let (index, guarded) = if self.rng.chance(0.6) {
            let (step, offset) = (self.rng.range(1, 4), self.rng.range(0, 3));
            let raw = Expr::leaf(Ty::S(I64), format!("{i} * {step}i64 + {offset}i64"));
            if self.risky() {
                (raw, false)
            } else {
                let e = Expr::node(Ty::S(I64))
                    .t("(")
                    .e(raw)
                    .t(&format!(") % length {acc}"));
                (e, true)
            }
        } else {
            self.index(&inner, &format!("length {acc}"), d)
        };
        let mut body = Expr::node(p.ty.clone())
            .t(&format!("let {j} = "))
            .e(index)
            .t(" in ")
            .e(self.element_update(&inner, &acc_var, &j, t, d));
        if self.rng.chance(0.3) {
            // A fresh state of the same length: the next update is in a
            // new array.
            let (after, z) = self.bind(&inner, "z", Ty::S(t), 0);
            let f = self.exact(&after, t, d);
            body = Expr::node(p.ty.clone())
                .t("(")
                .e(body)
                .t(&format!(") |> map (\\{z} -> "))
                .e(f)
                .t(")");
        }
        let body = guard_empty(&acc_var, &acc, guarded, body);
        let attr = self.attr(false);
        Expr::node(p.ty.clone())
            .t(&format!(
                "(let {n} = length {} in {attr}loop {acc} = {} for {i} < {bound} do ",
                p.name, p.name
            ))
            .e(body)
            .t(")")
    }

    /// `loop (acc, i) = (p, 0) while i < length acc do (let acc[i] = v in
    /// acc, i + s)`: every `s`-th element in order, each update reading
    /// the element the last one wrote when `s` is 1.
    fn update_while(&mut self, env: &Env, p: &Var, t: ScalarType, d: u32) -> Stm {
        let (inner, acc) = self.bind(env, "acc", p.ty.clone(), p.size);
        let (inner, i) = self.bind(&inner, "i", Ty::S(I64), 0);
        let acc_var = inner[inner.len() - 2].clone();
        let step = self.rng.range(1, 4);
        let (inner, prev) = self.bind(&inner, "prev", Ty::S(t), 0);
        let update = self.element_update(&inner, &acc_var, &i, t, d);
        let end = self.name("v");
        let exp = Expr::node(Ty::Tup(vec![]))
            .t(&format!(
                "loop ({acc}, {i}) = ({}, 0i64) while {i} < length {acc} do \
                 (let {prev} = {acc}[i64.max 0 ({i} - 1)] in ",
                p.name
            ))
            .e(update)
            .t(&format!(", {i} + {step}i64)"));
        Stm {
            pattern: format!("({}, {end})", p.name),
            vars: vec![
                Var {
                    inexact: exp.inexact,
                    ..p.clone()
                },
                Var {
                    name: end,
                    ty: Ty::S(I64),
                    inexact: false,
                    size: 0,
                },
            ],
            exp,
        }
    }

    /// `scatter p is vs`, the values a function of their index.
    fn update_scatter(&mut self, env: &Env, p: &Var, t: ScalarType, d: u32) -> Expr {
        let dest = Expr::leaf(p.ty.clone(), p.name.clone());
        self.scatter_into(env, dest, t, d)
            .unwrap_or_else(|| Expr::leaf(p.ty.clone(), p.name.clone()))
    }

    /// A loop over a matrix parameter updating an element `m[r, c] = v`
    /// or a row `m[r] = map f m[r2]` (another row, read before the write).
    fn update_matrix(&mut self, env: &Env, p: &Var, t: ScalarType, d: u32) -> Expr {
        let (inner, m) = self.bind(env, "m", p.ty.clone(), p.size);
        let (inner, i) = self.bind(&inner, "i", Ty::S(I64), 0);
        let (rows, cols) = (self.name("rows"), self.name("cols"));
        let trips = self.rng.range(0, 5);
        let (r, r_guarded) = self.index(&inner, &rows, d);
        let (rn, cn) = (self.name("r"), self.name("c"));
        let update = if self.rng.chance(0.5) {
            let (c, c_guarded) = self.index(&inner, &cols, d);
            let (after, x) = self.bind(&inner, "x", Ty::S(t), 0);
            let v = self.exact(&after, t, d);
            let e = Expr::node(p.ty.clone())
                .t(&format!("let {rn} = "))
                .e(r)
                .t(&format!(" in let {cn} = "))
                .e(c)
                .t(&format!(
                    " in let {x} = {m}[{rn}, {cn}] in let {m}[{rn}, {cn}] = "
                ))
                .e(v)
                .t(&format!(" in {m}"));
            if r_guarded || c_guarded {
                Expr::node(p.ty.clone())
                    .t(&format!("if {rows} == 0 || {cols} == 0 then {m} else "))
                    .e(e)
            } else {
                e
            }
        } else {
            let (after, x) = self.bind(&inner, "x", Ty::S(t), 0);
            let f = self.exact(&after, t, d);
            let e = Expr::node(p.ty.clone())
                .t(&format!("let {rn} = "))
                .e(r)
                .t(&format!(" in let {m}[{rn}] = map (\\{x} -> "))
                .e(f)
                .t(&format!(") {m}[({i} + {rn} + 1) % {rows}] in {m}"));
            Expr::node(p.ty.clone())
                .t(&format!("if {rows} == 0 then {m} else "))
                .e(e)
        };
        let attr = self.attr(false);
        Expr::node(p.ty.clone())
            .t(&format!(
                "(let {rows} = length {name} in let {cols} = length (transpose {name}) in \
                 {attr}loop {m} = {name} for {i} < {trips}i64 do ",
                name = p.name
            ))
            .e(update)
            .t(")")
    }
}

/// `if length a == 0 then a else e` around an update whose index is taken
/// modulo the length (`guarded`), which has no element to update when
/// empty.
fn guard_empty(a: &Var, name: &str, guarded: bool, e: Expr) -> Expr {
    if !guarded {
        return e;
    }
    Expr::node(a.ty.clone())
        .t(&format!("if length {name} == 0 then {name} else "))
        .e(e)
}
