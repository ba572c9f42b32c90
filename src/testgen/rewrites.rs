//! Statements shaped for the newest rewrites, which the other generators
//! reach rarely or not at all:
//!
//! - maps whose iteration runs a `loop ... while` over scalars, with a
//!   condition and body that cannot fail (an escape time, a gcd by
//!   subtraction): the jam of `while` loops across points under a mask
//!   (`loopy::jam`'s `masked`);
//! - guarded writes of 4- and 8-byte elements: filters and partitions of
//!   such arrays (their compaction), a `for` loop in a map that updates an
//!   element of its row only when a condition holds, and scatters with
//!   indices out of range (skipped): AVX-512 masked stores
//!   (`codegen::cpu::masked`);
//! - maps over `iota n` indexing arrays of `n` rows (`simplify-tabulate`),
//!   an element or a row of a map read once (`simplify-element`), and zips
//!   of the rows of two matrices, mapped, transposed and mapped again
//!   (`simplify-regular`, and `fusion::permute`'s transposed nests), over
//!   matrices of no rows too and, when risky, rows of different sizes.

use super::ast::{Expr, Ty, Var};
use super::gen::{zero, Env, Gen};
use super::ranked::ranked;
use crate::types::ScalarType;
use ScalarType::*;

/// Element types a masked store writes (4 and 8 bytes), and the others.
const MASKED: &[ScalarType] = &[I32, I64, F32, F64, U32, U64, I32, F32];

/// `env` with scalars `names` of the given types (`inexact`: their values
/// may differ between backends).
pub(super) fn with_scalars(env: &Env, names: &[(&str, ScalarType)], inexact: bool) -> Env {
    let mut inner = env.clone();
    for (name, t) in names {
        inner.push(Var {
            name: name.to_string(),
            ty: Ty::S(*t),
            inexact,
            size: 0,
        });
    }
    inner
}

impl Gen {
    /// An expression for one of the rewrites above and its length class.
    pub fn rewrite_shape(&mut self, env: &Env) -> Option<(Expr, u32)> {
        match self.rng.below(6) {
            0 => self.escape_map(env),
            1 => self.guarded_writes(env),
            2 => self.row_updates(env),
            3 => self.iota_gather(env),
            4 => self.element_of_map(env),
            _ => self.zipped_rows(env),
        }
    }

    /// `map (\x -> let (a, b, k) = loop (a, b, k) = (x, c, 0) while k < m
    /// && cond do step in result) xs`, over floats (an escape time) or
    /// integers (wrapping steps, a subtraction gcd).
    fn escape_map(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self
            .rng
            .pick(&[F32, F64, F32, I32, I64, U32, I16, F16, I32]);
        let (xs, size) = self.array1(env, t, 2, None);
        // The condition compares the state: it must not be inexact.
        if xs.inexact {
            return None;
        }
        let n = t.name();
        let (xv, x, a, b, k) = (
            self.name("xs"),
            self.name("x"),
            self.name("a"),
            self.name("b"),
            self.name("k"),
        );
        let limit = match self.rng.below(4) {
            0 => format!("i32.i64 (length {xv}) % 40"),
            1 => format!("{}i32", self.rng.range(0, 3)),
            _ => format!("{}i32", self.rng.range(3, 60)),
        };
        let (init, step, cond) = if t.is_float() {
            let c = *self
                .rng
                .pick(&["0.25", "-0.5", "0.125", "-1.25", "0.375", "0.0"]);
            let scale = *self.rng.pick(&["1.0", "0.5", "0.03125", "-0.75"]);
            let init = format!("({x} * {scale}{n}, {c}{n}, 0i32)");
            let step = match self.rng.below(3) {
                0 => format!(
                    "({a} * {a} - {b} * {b} + {x} * {scale}{n}, 2.0{n} * {a} * {b} + {c}{n}, {k} + 1)"
                ),
                1 => format!("({a} * 0.5{n} + {b}, {b} - {a} * 0.25{n}, {k} + 1)"),
                _ => format!(
                    "(if {a} < {b} then ({a} + 1.0{n}, {b} * 0.5{n}, {k} + 1) else ({a} * 0.5{n}, {b} + 0.75{n}, {k} + 2))"
                ),
            };
            let bound = *self.rng.pick(&["4.0", "16.0", "1000.0", "2.5"]);
            let cond = match self.rng.below(3) {
                0 => format!("{a} * {a} + {b} * {b} < {bound}{n}"),
                1 => format!("!({n}.isnan {a}) && {n}.abs {a} < {bound}{n}"),
                _ => format!("{a} <= {b} + {bound}{n}"),
            };
            (init, step, cond)
        } else {
            let init = match self.rng.below(3) {
                0 => format!("({x}, {}{n}, 0i32)", self.rng.range(0, 9)),
                1 => format!("({x} % 97{n} + 1{n}, {}{n}, 0i32)", self.rng.range(1, 40)),
                _ => format!("({x} ^ 5{n}, {x} & 7{n}, 0i32)"),
            };
            let step = match self.rng.below(3) {
                0 => format!("({a} * 3{n} + {b}, {b} ^ ({a} >> 2{n}), {k} + 1)"),
                1 => format!(
                    "(if {a} > {b} then ({a} - {b}, {b}, {k} + 1) else ({a}, {b} - {a}, {k} + 1))"
                ),
                _ => {
                    format!("({n}.min ({a} + {b}) ({a} * 2{n}), {n}.max {b} ({a} - 1{n}), {k} + 1)")
                }
            };
            let cond = match self.rng.below(3) {
                0 => format!("{a} != {b}"),
                1 => format!("{a} < {}{n}", self.rng.range(10, 120)),
                _ => format!("({a} & 1{n}) == 0{n} || {b} > {a}"),
            };
            (init, step, cond)
        };
        let count = self.rng.chance(0.3);
        let result_t = if count { I32 } else { t };
        let result = if count {
            k.clone()
        } else if self.rng.chance(0.5) {
            a.clone()
        } else {
            format!("{a} + {b}")
        };
        let e = Expr::node(Ty::arr(Ty::S(result_t)))
            .t(&format!("(let {xv} = "))
            .e(xs)
            .t(&format!(
                " in map (\\{x} -> let ({a}, {b}, {k}) = loop ({a}, {b}, {k}) = {init} while {k} < {limit} && ({cond}) do {step} in {result}) {xv})"
            ));
        Some((e, size))
    }

    /// A filter, a partition or a scatter of 4- or 8-byte elements: each
    /// writes an element only when a condition holds.
    fn guarded_writes(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(MASKED);
        let (xs, size) = self.array1(env, t, 2, None);
        let x = self.name("x");
        let inner = with_scalars(env, &[(&x, t)], xs.inexact);
        let pred = self.exact(&inner, Bool, 2);
        let arr = Ty::arr(Ty::S(t));
        match self.rng.below(4) {
            0 | 1 => {
                let e = Expr::node(arr)
                    .t(&format!("(filter (\\{x} -> "))
                    .e(pred)
                    .t(") ")
                    .e(xs)
                    .t(")");
                Some((e, self.new_size()))
            }
            2 => {
                // Both parts, one after the other (`++`, a new length).
                let (ys, zs) = (self.name("ys"), self.name("zs"));
                let e = Expr::node(arr)
                    .t(&format!("(let ({ys}, {zs}) = partition (\\{x} -> "))
                    .e(pred)
                    .t(") ")
                    .e(xs)
                    .t(&format!(" in {zs} ++ {ys})"));
                Some((e, size))
            }
            _ => {
                // Indices in range, past the end and negative (skipped),
                // none twice; values a function of the index.
                let (a, i, j) = (self.name("a"), self.name("i"), self.name("j"));
                let v = self.exact(env, t, 1);
                let offset = self.rng.range(0, 5);
                let e = Expr::node(arr)
                    .t(&format!("(let {a} = "))
                    .e(xs)
                    .t(&format!(
                        " in let {j} = map (\\{i} -> if {i} % 3 == 0 then -1 - {i} else {i} * 2 - {offset}) (iota (length {a})) in scatter (copy {a}) {j} (map (\\{i} -> "
                    ))
                    .e(v)
                    .t(&format!(" + {}.i64 {i}) {j}))", t.name()));
                Some((e, size))
            }
        }
    }

    /// `map (\r -> loop acc = copy r for j < length r do if c then acc with
    /// [j] = v else acc) m`: a write under a condition in a map's loop.
    fn row_updates(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(MASKED);
        let (m, size) = self.array2(env, t, 1, None);
        if m.inexact {
            return None;
        }
        let n = t.name();
        let (r, acc, j) = (self.name("r"), self.name("acc"), self.name("j"));
        let threshold = self.lit_text(t);
        let cond = match self.rng.below(3) {
            0 => format!("{acc}[{j}] < {threshold}"),
            1 => format!("{j} % 2 == 0"),
            _ => format!("{acc}[{j}] != {acc}[({j} + 1) % length {acc}]"),
        };
        let one = if t.is_float() {
            format!("1.0{n}")
        } else {
            format!("1{n}")
        };
        let value = match self.rng.below(3) {
            0 => format!("{acc}[{j}] + {one}"),
            1 => format!("{n}.i64 {j}"),
            _ => format!("{n}.max {acc}[{j}] {threshold}"),
        };
        let e = Expr::node(ranked(t, 2))
            .t(&format!(
                "(map (\\{r} -> loop {acc} = copy {r} for {j} < length {r} do if {cond} then {acc} with [{j}] = {value} else {acc}) "
            ))
            .e(m)
            .t(")");
        Some((e, size))
    }

    /// `map (\i -> f a[i] i) (iota (length a))`, `tabulate`, or the rows of
    /// a matrix by index (`iota` one too long when risky: out of range).
    fn iota_gather(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.num_type();
        let i = self.name("i");
        let risky = self.risky();
        let extra = if risky { " + 1" } else { "" };
        if self.rng.chance(0.4) {
            let (m, size) = self.array2(env, t, 1, None);
            let (mv, x) = (self.name("m"), self.name("x"));
            let inner = with_scalars(env, &[(&x, t), (&i, I64)], m.inexact);
            let f = self.scalar(&inner, t, 1);
            let e = Expr::node(ranked(t, 2))
                .t(&format!("(let {mv} = "))
                .e(m)
                .t(&format!(" in map (\\{i} -> map (\\{x} -> "))
                .e(f)
                .t(&format!(") {mv}[{i}]) (iota (length {mv}{extra})))"));
            return Some((e, if risky { self.new_size() } else { size }));
        }
        let (xs, size) = self.array1(env, t, 1, None);
        let av = self.name("a");
        let inner = with_scalars(env, &[(&i, I64)], false);
        let u = self.num_type();
        let g = self.exact(&inner, u, 1);
        let elem = format!("{av}[{i}]");
        let body = Expr::node(Ty::S(t))
            .t(&format!("({elem} + {}.{} (", t.name(), u.name()))
            .e(g)
            .t("))");
        let form = if self.rng.chance(0.5) {
            Expr::node(Ty::arr(Ty::S(t)))
                .t(&format!("map (\\{i} -> "))
                .e(body)
                .t(&format!(") (iota (length {av}{extra}))"))
        } else {
            Expr::node(Ty::arr(Ty::S(t)))
                .t(&format!("tabulate (length {av}{extra}) (\\{i} -> "))
                .e(body)
                .t(")")
        };
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {av} = "))
            .e(xs)
            .t(" in ")
            .e(form)
            .t(")");
        Some((e, if risky { self.new_size() } else { size }))
    }

    /// An element of a map, or a row of a map of rows, read once.
    fn element_of_map(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.num_type();
        let ys = self.name("ys");
        if self.rng.chance(0.35) {
            let (m, _) = self.array2(env, t, 1, None);
            let (r, x) = (self.name("r"), self.name("x"));
            let inner = with_scalars(env, &[(&x, t)], m.inexact);
            let f = self.scalar(&inner, t, 1);
            let (k, _) = self.index(env, &format!("length {ys}"), 1);
            let e = Expr::node(Ty::arr(Ty::S(t)))
                .t(&format!("(let {ys} = map (\\{r} -> map (\\{x} -> "))
                .e(f)
                .t(&format!(") {r}) "))
                .e(m)
                .t(&format!(" in {ys}["))
                .e(k)
                .t("])");
            return Some((e, self.new_size()));
        }
        let (xs, _) = self.array1(env, t, 1, None);
        let x = self.name("x");
        let inner = with_scalars(env, &[(&x, t)], xs.inexact);
        let f = self.scalar(&inner, t, 1);
        let (k, _) = self.index(env, &format!("length {ys}"), 1);
        let e = Expr::node(Ty::S(t))
            .t(&format!("(let {ys} = map (\\{x} -> "))
            .e(f)
            .t(") ")
            .e(xs)
            .t(&format!(" in {ys}["))
            .e(k)
            .t("])");
        Some((e, 0))
    }

    /// `map2 (\r s -> zip r s) m1 m2`, its pairs mapped by rows, then
    /// transposed and mapped by columns (or transposed first): rows of one
    /// size, so the zip's checks move out and the nest transposes. When
    /// risky, the second matrix's rows are one shorter (over no rows that
    /// is fine, over some a size mismatch).
    fn zipped_rows(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.num_type();
        let t2 = self.num_type();
        let (m1, _) = self.array2(env, t, 1, None);
        let (mv, r, s, x) = (
            self.name("m"),
            self.name("r"),
            self.name("s"),
            self.name("x"),
        );
        let inner = with_scalars(env, &[(&x, t)], m1.inexact);
        let g = self.scalar(&inner, t2, 1);
        let pairs_inexact = m1.inexact || g.inexact;
        let cut = if self.risky() {
            format!("{r}[1:]")
        } else {
            r.clone()
        };
        let second = Expr::node(ranked(t2, 2))
            .t(&format!("(map (\\{r} -> map (\\{x} -> "))
            .e(g)
            .t(&format!(") {cut}) {mv})"));
        let (ps, qs, p, q, col) = (
            self.name("ps"),
            self.name("qs"),
            self.name("p"),
            self.name("q"),
            self.name("col"),
        );
        let pair_env = with_scalars(env, &[(&p, t), (&q, t2)], pairs_inexact);
        let u = self.num_type();
        let f1 = self.scalar(&pair_env, u, 1);
        let f2 = self.scalar(&pair_env, u, 1);
        let mut e = Expr::node(ranked(u, 2))
            .t(&format!("(let {mv} = "))
            .e(m1)
            .t(&format!(
                " in let {ps} = map2 (\\{r} {s} -> zip {r} {s}) {mv} "
            ))
            .e(second);
        match self.rng.below(3) {
            0 => {
                // The known shape: pairs of results, transposed, summed.
                let (a, b) = (self.name("a"), self.name("b"));
                let zero_u = zero(u);
                e = e
                    .t(&format!(
                        " in let {qs} = map (\\row -> map (\\({p}, {q}) -> ("
                    ))
                    .e(f1)
                    .t(", ")
                    .e(f2)
                    .t(&format!(
                        ")) row) {ps} in map (\\{col} -> map (\\({a}, {b}) -> {a} + {b} + {zero_u}) {col}) (transpose {qs}))"
                    ));
            }
            1 => {
                e = e
                    .t(&format!(
                        " in transpose (map (\\row -> map (\\({p}, {q}) -> "
                    ))
                    .e(f1)
                    .t(&format!(") row) {ps}))"));
            }
            _ => {
                e = e
                    .t(&format!(" in map (\\{col} -> map (\\({p}, {q}) -> "))
                    .e(f1)
                    .t(&format!(") {col}) (transpose {ps}))"));
            }
        }
        Some((e, self.new_size()))
    }
}
