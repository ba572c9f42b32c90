//! Constructs of the language's Futhark-compatible part (LANGUAGE.md
//! section 11) for the generator: rank-3 arrays flattened, indexed and
//! reduced to rank 2 and 1 (`ranked.rs` makes them), sum types and `match`, a parametric module
//! instantiated per use, uniqueness (`*[]t` parameters, `let a[i] = v`),
//! size expressions in types (`[n*2]t`, `[n+n]t`) and attributes.

use super::ast::{Expr, Ty};
use super::gen::{Env, Gen, Made};
use crate::types::ScalarType;
use ScalarType::*;

/// Definitions the constructs below call; `Prog::source` keeps those used.
pub const DEFS: &[&str] = &[
    "type opt 't = #none | #some t",
    "type shape 't = #pt | #seg t | #box t t",
    "module type mono = { type t val op : t -> t -> t val ne : t }",
    "module fold_m (M: mono) = { def total (xs: []M.t) : M.t = reduce M.op M.ne xs def running (xs: []M.t) : []M.t = scan M.op M.ne xs }",
    "def set_at 't (xs: *[]t) (i: i64) (v: t) : *[]t = if i >= 0 && i < length xs then xs with [i] = v else xs",
    "def interleave [n] 't (xs: [n]t) (ys: [n]t) : [n*2]t = flatten (map2 (\\x y -> [x, y]) xs ys)",
    "def dup [n] 't (xs: [n]t) : [n+n]t = xs ++ xs",
];

impl Gen {
    /// An attribute before a SOAC (`soac`) or a loop, or nothing: arrc
    /// honours `#[unroll]` and must accept and ignore the others.
    pub fn attr(&mut self, soac: bool) -> &'static str {
        if !self.rng.chance(0.15) {
            return "";
        }
        const SOAC: [&str; 4] = [
            "#[sequential] ",
            "#[sequential_outer] ",
            "#[incremental_flattening(only_inner)] ",
            "#[noinline] ",
        ];
        const LOOP: [&str; 3] = ["#[unroll] ", "#[unroll] ", "#[sequential] "];
        let opts: &[&'static str] = if soac { &SOAC } else { &LOOP };
        let chosen: &&'static str = self.rng.pick(opts);
        chosen
    }

    /// A scalar through a sum type: a `shape` built by a condition and taken
    /// apart by `match`, or an `opt`.
    pub fn sum_scalar(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let ty = Ty::S(t);
        let p = self.scalar_type();
        let pn = p.name();
        let c1 = self.exact(env, Bool, d);
        if self.rng.chance(0.5) {
            let a = self.scalar(env, p, d);
            let (inner, y) = self.bind(env, "y", Ty::S(p), 0);
            let mut inner = inner;
            inner.last_mut()?.inexact = a.inexact;
            let some = self.scalar(&inner, t, d);
            let none = self.scalar(env, t, d);
            return Some(
                Expr::node(ty)
                    .t("(match (if ")
                    .e(c1)
                    .t(" then #some ")
                    .e(a)
                    .t(&format!(" else #none : opt {pn}) case #some {y} -> "))
                    .e(some)
                    .t(" case #none -> ")
                    .e(none)
                    .t(")"),
            );
        }
        let c2 = self.exact(env, Bool, d);
        let a = self.scalar(env, p, d);
        let b = self.scalar(env, p, d);
        let c = self.scalar(env, p, d);
        let inexact = a.inexact || b.inexact || c.inexact;
        // Each case sees its own payload only.
        let (mut inner, s) = self.bind(env, "s", Ty::S(p), 0);
        let (inner2, u) = self.bind(env, "u", Ty::S(p), 0);
        let (mut inner2, w) = self.bind(&inner2, "w", Ty::S(p), 0);
        inner.last_mut()?.inexact = inexact;
        for v in inner2.iter_mut().rev().take(2) {
            v.inexact = inexact;
        }
        let seg = self.scalar(&inner, t, d);
        let bx = self.scalar(&inner2, t, d);
        let pt = self.scalar(env, t, d);
        Some(
            Expr::node(ty)
                .t("(match (if ")
                .e(c1)
                .t(" then #seg ")
                .e(a)
                .t(" else if ")
                .e(c2)
                .t(" then #box ")
                .e(b)
                .t(" ")
                .e(c)
                .t(&format!(" else #pt : shape {pn}) case #seg {s} -> "))
                .e(seg)
                .t(&format!(" case #box {u} {w} -> "))
                .e(bx)
                .t(" case #pt -> ")
                .e(pt)
                .t(")"),
        )
    }

    /// A `match` on nested patterns: an `opt` of a `shape` taken apart in
    /// one pattern, or a tuple of an integer and a `bool` against literals.
    pub fn nested_match(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let ty = Ty::S(t);
        if self.rng.chance(0.5) {
            let p = self.scalar_type();
            let pn = p.name();
            let c1 = self.exact(env, Bool, d);
            let c2 = self.exact(env, Bool, d);
            let a = self.scalar(env, p, d);
            let b = self.scalar(env, p, d);
            let inexact = a.inexact || b.inexact;
            let (inner, u) = self.bind(env, "u", Ty::S(p), 0);
            let (mut inner, w) = self.bind(&inner, "w", Ty::S(p), 0);
            for v in inner.iter_mut().rev().take(2) {
                v.inexact = inexact;
            }
            let bx = self.scalar(&inner, t, d);
            let seg = self.scalar(env, t, d);
            let pt = self.scalar(env, t, d);
            let none = self.scalar(env, t, d);
            return Some(
                Expr::node(ty)
                    .t("(match (if ")
                    .e(c1)
                    .t(" then #some (#box ")
                    .e(a)
                    .t(" ")
                    .e(b)
                    .t(") else if ")
                    .e(c2)
                    .t(&format!(
                        " then #some #pt else #none : opt (shape {pn})) case #some (#box {u} {w}) -> "
                    ))
                    .e(bx)
                    .t(" case #some (#seg _) -> ")
                    .e(seg)
                    .t(" case #some #pt -> ")
                    .e(pt)
                    .t(" case #none -> ")
                    .e(none)
                    .t(")"),
            );
        }
        let q = *self.rng.pick(&[I8, I32, I64, U8, U16]);
        let i = self.exact(env, q, d);
        let c = self.exact(env, Bool, d);
        let (inner, j) = self.bind(env, "j", Ty::S(q), 0);
        let [e1, e2] = [0, 0].map(|_| self.scalar(env, t, d));
        let e3 = self.scalar(&inner, t, d);
        let e4 = self.scalar(env, t, d);
        Some(
            Expr::node(ty)
                .t("(match (")
                .e(i)
                .t(&format!(" % 3{}, ", q.name()))
                .e(c)
                .t(") case (0, true) -> ")
                .e(e1)
                .t(" case (1, _) -> ")
                .e(e2)
                .t(&format!(" case ({j}, false) -> "))
                .e(e3)
                .t(" case _ -> ")
                .e(e4)
                .t(")"),
        )
    }

    /// An array through an array of unit values (`Shape::unit_arrays`):
    /// a map over `()`s, or over pairs of a `()` and an element.
    pub fn unit_array(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        if !self.unit_arrays {
            return None;
        }
        let (src, size, x, body) = self.map_source(env, t, d + 1, want)?;
        let e = if self.rng.chance(0.5) {
            let plain = self.scalar(env, t, d);
            Expr::node(Ty::arr(Ty::S(t)))
                .t("(map (\\_ -> ")
                .e(plain)
                .t(") (map (\\_ -> ()) ")
                .e(src)
                .t("))")
        } else {
            let (wrap, v) = self.shared(env, src);
            wrap(
                Expr::node(Ty::arr(Ty::S(t)))
                    .t(&format!("(map (\\((), {x}) -> "))
                    .e(body)
                    .t(&format!(") (zip (replicate (length {v}) ()) {v}))")),
            )
        };
        Some((e, size))
    }

    /// An array through an array of sum values: a map that builds `opt`s
    /// and one that matches them (fusable, or not).
    pub fn sum_array(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let p = self.scalar_type();
        let (src, size) = match want {
            Some(w) => self.array1(env, p, d, Some(w)),
            None => self.any_array(env, d),
        };
        let elem = src.ty.elem()?.clone();
        let (inner, x) = self.bind(env, "x", elem, size);
        let c = self.exact(&inner, Bool, d);
        let v = self.scalar(&inner, p, d);
        let (inner, y) = self.bind(env, "y", Ty::S(p), 0);
        let mut inner = inner;
        inner.last_mut()?.inexact = v.inexact;
        let some = self.scalar(&inner, t, d);
        let none = self.scalar(env, t, d);
        let o = self.name("o");
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(map (\\{o} -> match {o} case #some {y} -> "))
            .e(some)
            .t(" case #none -> ")
            .e(none)
            .t(&format!(") (map (\\{x} -> if "))
            .e(c)
            .t(" then #some ")
            .e(v)
            .t(&format!(" else (#none : opt {})) ", p.name()))
            .e(src)
            .t("))");
        Some((e, size))
    }

    /// `fold_m` instantiated for `t` with a random operator, as a module
    /// definition of the program; its name.
    fn fold_module(&mut self, t: ScalarType, commutative: bool) -> String {
        let op = self.op(t, commutative);
        let name = self.name("fm");
        let n = t.name();
        self.defs.push(format!(
            "module {name} = fold_m {{ type t = {n} def op (a: {n}) (b: {n}) : {n} = {} a b def ne : {n} = {} }}",
            op.text, op.ne
        ));
        name
    }

    /// A reduction through a module: `M.total xs`.
    pub fn module_reduce(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let (xs, _) = self.array1(env, t, d, None);
        let m = self.fold_module(t, false);
        Some(
            Expr::node(Ty::S(t))
                .t(&format!("({m}.total "))
                .e(xs)
                .t(")")
                .inexact(t.is_float()),
        )
    }

    /// Arrays from the other constructs: a scan through a module, a
    /// unique parameter or an in-place `let` update of a copy, a size
    /// expression, a rank-3 array flattened.
    pub fn extra_array1(
        &mut self,
        k: usize,
        env: &Env,
        t: ScalarType,
        d: u32,
        want: Option<u32>,
    ) -> Made {
        let ty = Ty::arr(Ty::S(t));
        match k {
            0 => self.sum_array(env, t, d, want),
            1 => {
                let (xs, size) = self.array1(env, t, d, want);
                let m = self.fold_module(t, false);
                Some((
                    Expr::node(ty)
                        .t(&format!("({m}.running "))
                        .e(xs)
                        .t(")")
                        .inexact(t.is_float()),
                    size,
                ))
            }
            2 => {
                let (xs, size) = self.array1(env, t, d, want);
                let v = self.scalar(env, t, d);
                if self.rng.chance(0.5) {
                    let i = self.exact(env, I64, d);
                    return Some((
                        Expr::node(ty)
                            .t("(set_at (copy ")
                            .e(xs)
                            .t(") ")
                            .e(i)
                            .t(" ")
                            .e(v)
                            .t(")"),
                        size,
                    ));
                }
                let u = self.name("u");
                let (i, guarded) = self.index(env, &format!("length {u}"), d);
                let upd = Expr::node(ty.clone())
                    .t(&format!("let {u}["))
                    .e(i)
                    .t("] = ")
                    .e(v)
                    .t(&format!(" in {u}"));
                let body = if guarded {
                    Expr::node(ty.clone())
                        .t(&format!("if length {u} == 0 then {u} else "))
                        .e(upd)
                } else {
                    upd
                };
                Some((
                    Expr::node(ty)
                        .t(&format!("(let {u} = copy "))
                        .e(xs)
                        .t(" in ")
                        .e(body)
                        .t(")"),
                    size,
                ))
            }
            3 if want.is_none() => {
                let (xs, size) = self.array1(env, t, d, None);
                if self.rng.chance(0.5) {
                    return Some((Expr::node(ty).t("(dup ").e(xs).t(")"), self.new_size()));
                }
                let ys = self.same_size(env, t, d, size, &xs);
                Some((
                    Expr::node(ty).t("(interleave ").e(xs).t(" ").e(ys).t(")"),
                    self.new_size(),
                ))
            }
            5 => self.unit_array(env, t, d, want),
            4 if want.is_none() => {
                let (a, _) = self.array3(env, t, d, None);
                Some((
                    Expr::node(ty).t("(flatten (flatten ").e(a).t("))"),
                    self.new_size(),
                ))
            }
            _ => None,
        }
    }

    /// Two-dimensional arrays from rank-3 ones: flattened, a row, or a
    /// reduction of each innermost row.
    pub fn array2_from3(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = Ty::arr(Ty::arr(Ty::S(t)));
        match self.rng.below(3) {
            0 if want.is_none() => {
                let (a, _) = self.array3(env, t, d, None);
                Some((Expr::node(ty).t("(flatten ").e(a).t(")"), self.new_size()))
            }
            1 if want.is_none() => {
                let (a, _) = self.array3(env, t, d, None);
                let (wrap, v) = self.shared(env, a);
                let (i, guarded) = self.index(env, &format!("length {v}"), d);
                let row = Expr::node(ty.clone()).t(&format!("{v}[")).e(i).t("]");
                let e = if guarded {
                    let x = self.lit(t);
                    Expr::node(ty)
                        .t(&format!(
                            "(if length {v} == 0 then replicate 0i64 (replicate 0i64 "
                        ))
                        .e(x)
                        .t(") else ")
                        .e(row)
                        .t(")")
                } else {
                    row
                };
                Some((wrap(e), self.new_size()))
            }
            _ => {
                let (a, size) = self.array3(env, t, d, want);
                let op = self.op(t, false);
                let (m, r) = (self.name("m"), self.name("r"));
                Some((
                    Expr::node(ty)
                        .t(&format!(
                            "(map (\\{m} -> map (\\{r} -> reduce {} {} {r}) {m}) ",
                            op.text, op.ne
                        ))
                        .e(a)
                        .t(")")
                        .inexact(t.is_float()),
                    size,
                ))
            }
        }
    }
}
