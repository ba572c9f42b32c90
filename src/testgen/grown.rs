//! Constructs the language grew after the first generator: `for x in xs`
//! loops, `foldl`, pipelines, `match` on records, record `with` updates,
//! ranges, local functions with size parameters, records with array
//! fields as loop state, reductions and scans whose operator works on
//! whole rows (`map2 op`) or on pairs per row, histograms into matrices
//! (`reduce_by_index` and `hist` of rows, `reduce_by_index_2d`),
//! `flatten`/`unflatten` chains, size coercions (`xs :> [k]t`), `split`,
//! `head`, `last`, `tail` and `init`.

use super::ast::{Expr, Ty, Var};
use super::gen::{Env, Gen, Made};
use super::ranked::ranked;
use crate::types::ScalarType;
use ScalarType::*;

impl Gen {
    /// A scalar from one of the grown constructs.
    pub fn grown_scalar(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let ty = Ty::S(t);
        match self.rng.below(6) {
            5 => {
                // `head` or `last`: an error on an empty array unless
                // guarded.
                let (xs, _) = self.array1(env, t, d, None);
                let (wrap, v) = self.shared(env, xs);
                let f = *self.rng.pick(&["head", "last"]);
                if self.risky() {
                    return Some(wrap(Expr::node(ty).t(&format!("({f} {v})"))));
                }
                let dflt = self.lit(t);
                Some(wrap(
                    Expr::node(ty)
                        .t(&format!("(if length {v} == 0 then "))
                        .e(dflt)
                        .t(&format!(" else {f} {v})")),
                ))
            }
            0 => {
                // A loop over an array's elements.
                let (xs, size) = self.any_array(env, d);
                let elem = xs.ty.elem()?.clone();
                let init = self.scalar(env, t, d);
                let (inner, acc) = self.bind(env, "acc", ty.clone(), 0);
                let (mut inner, x) = self.bind(&inner, "x", elem, size);
                inner.last_mut()?.inexact = xs.inexact;
                let k = inner.len() - 2;
                inner[k].inexact = init.inexact;
                let body = self.scalar(&inner, t, d);
                if self.rng.chance(0.5) {
                    // `foldl` is the same loop from the library.
                    return Some(
                        Expr::node(ty)
                            .t(&format!("(foldl (\\{acc} {x} -> "))
                            .e(body)
                            .t(") ")
                            .e(init)
                            .t(" ")
                            .e(xs)
                            .t(")"),
                    );
                }
                let attr = self.attr(false);
                Some(
                    Expr::node(ty)
                        .t(&format!("({attr}loop {acc} = "))
                        .e(init)
                        .t(&format!(" for {x} in "))
                        .e(xs)
                        .t(" do ")
                        .e(body)
                        .t(")"),
                )
            }
            1 => self.record_match(env, t, d),
            2 => {
                // A record copied with one field replaced.
                let t2 = self.scalar_type();
                let a = self.scalar(env, t, d);
                let b = self.scalar(env, t2, d);
                let rty = Ty::Rec(vec![("a".into(), Ty::S(t)), ("b".into(), Ty::S(t2))]);
                let (inner, r) = self.bind(env, "r", rty.clone(), 0);
                let field = if self.rng.chance(0.5) { "a" } else { "b" };
                let v = self.scalar(&inner, if field == "a" { t } else { t2 }, d);
                let (mut inner2, r2) = self.bind(&inner, "r", rty, 0);
                let inexact = a.inexact || b.inexact || v.inexact;
                for var in inner2.iter_mut().rev().take(2) {
                    var.inexact = inexact;
                }
                let body = self.scalar(&inner2, t, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("(let {r} = {{a = "))
                        .e(a)
                        .t(", b = ")
                        .e(b)
                        .t(&format!("}} in let {r2} = {r} with {field} = "))
                        .e(v)
                        .t(" in ")
                        .e(body)
                        .t(")"),
                )
            }
            3 => {
                // A pipeline: a map into a reduction.
                let (xs, size) = self.any_array(env, d);
                let elem = xs.ty.elem()?.clone();
                let (inner, x) = self.bind(env, "x", elem, size);
                let body = self.scalar(&inner, t, d);
                let op = self.op(t, false);
                Some(
                    Expr::node(ty)
                        .t("(")
                        .e(xs)
                        .t(&format!(" |> map (\\{x} -> "))
                        .e(body)
                        .t(&format!(") |> reduce {} {})", op.text, op.ne))
                        .inexact(t.is_float()),
                )
            }
            _ => self.local_size_fn_scalar(env, t, d),
        }
    }

    /// `match` on a record of an integer and a `bool` against record
    /// patterns with literal, named and wildcard fields.
    fn record_match(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let q = *self.rng.pick(&[I8, I32, I64, U8, U16]);
        let i = self.exact(env, q, d);
        let c = self.exact(env, Bool, d);
        let (inner, j) = self.bind(env, "j", Ty::S(q), 0);
        let (inner2, b) = self.bind(env, "b", Ty::S(Bool), 0);
        let e1 = self.scalar(env, t, d);
        let e2 = self.scalar(&inner, t, d);
        let e3 = self.scalar(&inner2, t, d);
        Some(
            Expr::node(Ty::S(t))
                .t("(match {b = ")
                .e(c)
                .t(", a = ")
                .e(i)
                .t(&format!(" % 3{}}} case {{a = 1, b = true}} -> ", q.name()))
                .e(e1)
                .t(&format!(" case {{a = {j}, b = false}} -> "))
                .e(e2)
                .t(&format!(" case {{a = _, b = {b}}} -> "))
                .e(e3)
                .t(")"),
        )
    }

    /// A local function with a size parameter over two arrays of its size
    /// (a size mismatch at the call when risky), reduced to a scalar.
    fn local_size_fn_scalar(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let (call, _) = self.local_size_fn(env, t, d, None)?;
        let op = self.op(t, true);
        Some(
            Expr::node(Ty::S(t))
                .t(&format!("(reduce_comm {} {} ", op.text, op.ne))
                .e(call)
                .t(")")
                .inexact(t.is_float()),
        )
    }

    /// `let f [n] (p: [n]a) (q: [n]b) : [n]t = map2 ... in f xs ys`, whose
    /// body may use `n`.
    fn local_size_fn(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let (t1, t2) = (self.scalar_type(), self.scalar_type());
        let (xs, size) = self.array1(env, t1, d, want);
        let ys = self.same_size(env, t2, d, size, &xs);
        let (f, n, p, q) = (
            self.name("f"),
            self.name("n"),
            self.name("p"),
            self.name("q"),
        );
        let (inner, nv) = {
            let mut e = env.clone();
            e.push(Var {
                name: n.clone(),
                ty: Ty::S(I64),
                inexact: false,
                size: 0,
            });
            (e, n.clone())
        };
        let (inner, x) = self.bind(&inner, "x", Ty::S(t1), 0);
        let (mut inner, y) = self.bind(&inner, "y", Ty::S(t2), 0);
        let k = inner.len() - 2;
        inner[k].inexact = xs.inexact;
        inner.last_mut()?.inexact = ys.inexact;
        let body = self.scalar(&inner, t, d);
        let (n1, n2, nt) = (t1.name(), t2.name(), t.name());
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!(
                "(let {f} [{nv}] ({p}: [{nv}]{n1}) ({q}: [{nv}]{n2}) : [{nv}]{nt} = map2 (\\{x} {y} -> "
            ))
            .e(body)
            .t(&format!(") {p} {q} in {f} "))
            .e(xs)
            .t(" ")
            .e(ys)
            .t(")");
        Some((e, size))
    }

    /// A one-dimensional array from one of the grown constructs.
    pub fn grown_array1(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = Ty::arr(Ty::S(t));
        match self.rng.below(7) {
            0 if want.is_none() && t.is_int() => self.range(env, t, d),
            1 => self.local_size_fn(env, t, d, want),
            2 => self.record_loop(env, t, d, want),
            4 => {
                // A size coercion to another array's length: a size
                // mismatch when risky.
                let (xs, size) = self.array1(env, t, d, want);
                let (wrap, v) = self.shared(env, xs);
                let ys = if self.risky() {
                    self.any_array(env, d).0
                } else {
                    // Another array of the class if one is in scope (an
                    // array made for it would chain maps without end).
                    let same: Vec<_> = env
                        .iter()
                        .filter(|x| x.size == size && matches!(x.ty, Ty::Arr(_)))
                        .collect();
                    if same.is_empty() {
                        Expr::leaf(ty.clone(), &v)
                    } else {
                        super::arrays::var_expr(same[self.rng.below(same.len())])
                    }
                };
                let k = self.name("k");
                let e = Expr::node(ty)
                    .t(&format!("(let {k} = length "))
                    .e(ys)
                    .t(&format!(" in {v} :> [{k}]{})", t.name()));
                Some((wrap(e), size))
            }
            5 if want.is_none() => {
                // `split` at a point inside the array unless risky, the
                // halves swapped.
                let (xs, _) = self.array1(env, t, d, None);
                let (wrap, v) = self.shared(env, xs);
                let i = self.exact(env, I64, d);
                let at = if self.risky() {
                    i
                } else {
                    Expr::node(Ty::S(I64))
                        .t("(i64.min (i64.abs ")
                        .e(i)
                        .t(&format!(") (length {v}))"))
                };
                let (a, b) = (self.name("a"), self.name("b"));
                let e = Expr::node(ty)
                    .t(&format!("(let ({a}, {b}) = split "))
                    .e(at)
                    .t(&format!(" {v} in {b} ++ {a})"));
                Some((wrap(e), self.new_size()))
            }
            6 if want.is_none() => {
                // `tail` or `init`: an error on an empty array unless
                // guarded.
                let (xs, _) = self.array1(env, t, d, None);
                let (wrap, v) = self.shared(env, xs);
                let f = *self.rng.pick(&["tail", "init"]);
                let text = if self.risky() {
                    format!("({f} {v})")
                } else {
                    format!("(if length {v} == 0 then {v} else {f} {v})")
                };
                Some((wrap(Expr::node(ty).t(&text)), self.new_size()))
            }
            _ if want.is_none() => {
                // A reduction of whole rows: one row as long as the
                // matrix's (its width from `transpose`, which has it also
                // when there are no rows).
                let (m, _) = self.array2(env, t, d, None);
                let (wrap, v) = self.shared(env, m);
                let op = self.op(t, false);
                let e = Expr::node(ty)
                    .t(&format!(
                        "(reduce (map2 {}) (replicate (length (transpose {v})) {}) {v})",
                        op.text, op.ne
                    ))
                    .inexact(t.is_float());
                Some((wrap(e), self.new_size()))
            }
            _ => None,
        }
    }

    /// A range `a..<b`, `a...b`, `b..>a` or `a..s..<b` of integers, short
    /// and in the right direction unless risky.
    fn range(&mut self, env: &Env, t: ScalarType, d: u32) -> Made {
        let n = t.name();
        let a = self.exact(env, t, d);
        let k = self.exact(env, t, d);
        let s = self.exact(env, t, d);
        let (lo, len) = (self.name("lo"), self.name("k"));
        let stride = self.name("st");
        let text = if self.risky() && t.is_signed() {
            // Pointing away from its end: an error.
            format!("{lo}..<({lo} - 1{n} - {len})")
        } else if self.risky() {
            // A zero stride: an error.
            format!("{lo}..{lo}..<({lo} + {len})")
        } else {
            match self.rng.below(4) {
                0 => format!("{lo}..<({lo} + {len})"),
                1 => format!("{lo}...({lo} + {len})"),
                2 => format!("({lo} + {len})..>{lo}"),
                _ => format!("{lo}..({lo} + 1{n} + {stride})..<({lo} + {len})"),
            }
        };
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {lo} = ("))
            .e(a)
            .t(&format!(") % 16{n} let {len} = ("))
            .e(k)
            .t(&format!(") % 16{n} let {stride} = ("))
            .e(s)
            .t(&format!(") % 4{n} in {text})"));
        Some((e, self.new_size()))
    }

    /// A loop whose state is a record of an array and a scalar; the array
    /// comes out, each element combined with the scalar.
    fn record_loop(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = Ty::arr(Ty::S(t));
        let t2 = self.scalar_type();
        let (init, size) = self.array1(env, t, d, want);
        let s0 = self.scalar(env, t2, d);
        let (r, i) = (self.name("r"), self.name("i"));
        let inexact = init.inexact || s0.inexact;
        // The state's fields as variables of the body.
        let state = |name: &str, env: &Env, inexact: bool| {
            let mut inner = env.clone();
            inner.push(Var {
                name: format!("{name}.xs"),
                ty: ty.clone(),
                inexact,
                size,
            });
            inner.push(Var {
                name: name.to_string(),
                ty: Ty::Rec(vec![("s".into(), Ty::S(t2))]),
                inexact,
                size: 0,
            });
            inner
        };
        let mut inner = state(&r, env, inexact);
        inner.push(Var {
            name: i.clone(),
            ty: Ty::S(I64),
            inexact: false,
            size: 0,
        });
        let xs = Expr::leaf(ty.clone(), format!("{r}.xs")).inexact(inexact);
        let next = self.same_size(&inner, t, d, size, &xs);
        let s1 = self.scalar(&inner, t2, d);
        let trips = self.rng.range(0, 3);
        let out = self.name("r");
        let after = state(&out, env, inexact || next.inexact || s1.inexact);
        let (mut after, ev) = self.bind(&after, "e", Ty::S(t), size);
        after.last_mut()?.inexact = inexact || next.inexact;
        let fin = self.scalar(&after, t, d);
        let attr = self.attr(false);
        let e = Expr::node(ty)
            .t(&format!("(let {out} = {attr}loop {r} = {{xs = "))
            .e(init)
            .t(", s = ")
            .e(s0)
            .t(&format!("}} for {i} < {trips}i64 do {{xs = "))
            .e(next)
            .t(", s = ")
            .e(s1)
            .t(&format!("}} in map (\\{ev} -> "))
            .e(fin)
            .t(&format!(") {out}.xs)"));
        Some((e, size))
    }

    /// A matrix from one of the grown constructs.
    pub fn grown_array2(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = ranked(t, 2);
        match self.rng.below(4) {
            0 => {
                // A scan of whole rows.
                let (m, size) = self.array2(env, t, d, want);
                let (wrap, v) = self.shared(env, m);
                let op = self.op(t, false);
                let e = Expr::node(ty)
                    .t(&format!(
                        "(scan (map2 {}) (replicate (length (transpose {v})) {}) {v})",
                        op.text, op.ne
                    ))
                    .inexact(t.is_float());
                Some((wrap(e), size))
            }
            1 => self.pair_scan_rows(env, t, d, want),
            2 => self.histogram2(env, t, d, want),
            _ if want.is_none() => {
                // `flatten` then `unflatten` to another shape (checked
                // at run time when risky), transposed sometimes.
                let (m, _) = self.array2(env, t, d, None);
                let f = self.name("fl");
                let k = self.rng.range(1, 3);
                let rows = if self.risky() {
                    format!("unflatten {k}i64 (length {f} / {k}i64) {f}")
                } else {
                    format!(
                        "unflatten {k}i64 (length {f} / {k}i64) (take ({k}i64 * (length {f} / {k}i64)) {f})"
                    )
                };
                let rows = if self.rng.chance(0.3) {
                    format!("transpose ({rows})")
                } else {
                    rows
                };
                let e = Expr::node(ty)
                    .t(&format!("(let {f} = flatten "))
                    .e(m)
                    .t(&format!(" in {rows})"));
                Some((e, self.new_size()))
            }
            _ => None,
        }
    }

    /// A scan per row with an operator on pairs: the row beside a map of
    /// it, the two scans combined again.
    fn pair_scan_rows(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let t2 = self.scalar_type();
        let (m, size) = self.array2(env, t, d, want);
        let (row, x) = (self.name("row"), self.name("x"));
        let mut inner = env.clone();
        inner.push(Var {
            name: x.clone(),
            ty: Ty::S(t),
            inexact: m.inexact,
            size: 0,
        });
        let b = self.scalar(&inner, t2, d);
        let (o1, o2) = (self.op(t, false), self.op(t2, false));
        let [a1, b1, a2, b2, p, q] = ["a", "b", "a", "b", "p", "q"].map(|n| self.name(n));
        let (u, w) = (self.name("u"), self.name("w"));
        let mut inner = env.clone();
        for (n, ty, inexact) in [
            (&u, t, m.inexact || t.is_float()),
            (&w, t2, m.inexact || b.inexact || t2.is_float()),
        ] {
            inner.push(Var {
                name: n.clone(),
                ty: Ty::S(ty),
                inexact,
                size: 0,
            });
        }
        let c = self.scalar(&inner, t, d);
        let e = Expr::node(ranked(t, 2))
            .t(&format!(
                "(map (\\{row} -> let ({p}, {q}) = unzip (scan (\\({a1}, {b1}) ({a2}, {b2}) -> ({} {a1} {a2}, {} {b1} {b2})) ({}, {}) (zip {row} (map (\\{x} -> ",
                o1.text, o2.text, o1.ne, o2.ne
            ))
            .e(b)
            .t(&format!(") {row}))) in map2 (\\{u} {w} -> "))
            .e(c)
            .t(&format!(") {p} {q}) "))
            .e(m)
            .t(")");
        Some((e, size))
    }

    /// A histogram into a matrix: `reduce_by_index` of rows into an
    /// existing one, `hist` of rows, or `reduce_by_index_2d` of elements
    /// at pairs of indices.
    fn histogram2(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = ranked(t, 2);
        let from = self.num_type();
        let (src, _) = self.array1(env, from, d, None);
        if src.inexact {
            return None;
        }
        let h = self.name("h");
        let fname = from.name();
        let m = *self.rng.pick(&[1, 2, 3, 5]);
        let is = format!("(map (\\{h} -> i64.{fname} {h} % {m}i64) {{src}})");
        let op = self.op(t, true);
        let (wrap, sv) = self.shared(env, src);
        let is = is.replace("{src}", &sv);
        let (c, j, dst) = (self.name("c"), self.name("j"), self.name("dst"));
        let mut inner = env.clone();
        for (n, ty) in [(&h, from), (&j, I64)] {
            inner.push(Var {
                name: n.clone(),
                ty: Ty::S(ty),
                inexact: false,
                size: 0,
            });
        }
        let body = self.scalar(&inner, t, d);
        let rows = Expr::node(ranked(t, 2))
            .t(&format!("(map (\\{h} -> tabulate {c} (\\{j} -> "))
            .e(body)
            .t(&format!(")) {sv})"));
        let (e, size) = match self.rng.below(3) {
            0 => {
                let (dest, size) = self.array2(env, t, d, want);
                let e = Expr::node(ty)
                    .t(&format!("(let {dst} = "))
                    .e(dest)
                    .t(&format!(
                        " let {c} = length (transpose {dst}) in reduce_by_index {dst} (map2 {}) (replicate {c} {}) {is} ",
                        op.text, op.ne
                    ))
                    .e(rows)
                    .t(")");
                (e, size)
            }
            1 if want.is_none() => {
                let bins = *self.rng.pick(&[0, 1, 2, 3, 5]);
                let cols = self.rng.range(0, 3);
                let e = Expr::node(ty)
                    .t(&format!(
                        "(let {c} = {cols}i64 in hist (map2 {}) (replicate {c} {}) {bins}i64 {is} ",
                        op.text, op.ne
                    ))
                    .e(rows)
                    .t(")");
                (e, self.new_size())
            }
            _ => {
                let (dest, size) = self.array2(env, t, d, want);
                let m2 = *self.rng.pick(&[1, 2, 3]);
                let e = Expr::node(ty)
                    .t("(reduce_by_index_2d ")
                    .e(dest)
                    .t(&format!(
                        " {} {} (map (\\{h} -> (i64.{fname} {h} % {m}i64, i64.{fname} {h} % {m2}i64)) {sv}) (map (\\{h} -> let {j} = 0i64 in ",
                        op.text, op.ne
                    ))
                    .e(body_of(&rows))
                    .t(&format!(") {sv}))"));
                (e, size)
            }
        };
        Some((wrap(e.inexact(t.is_float())), size))
    }
}

/// The per-element body inside `rows` (its only hole).
fn body_of(rows: &Expr) -> Expr {
    rows.children()
        .next()
        .cloned()
        .unwrap_or_else(|| rows.clone())
}
