//! Statements shaped for the twelfth and thirteenth sessions' paths, which
//! the other generators reach rarely or never (only with `--chunks`,
//! weight 0 otherwise, so that other seeds keep their programs):
//!
//! - scans of rows, `scan (map2 op) (replicate w ne) xss`, and histograms
//!   of rows, `hist`/`reduce_by_index` with `map2 op`, over many rows of
//!   few columns (1 to 17) of every integer and float width: the GPU's
//!   chunked scans and histograms (`scan_chunks`, `hist_chunks`);
//! - argmax and argmin over `(value, index)` pairs spelled with `||` and
//!   with nested `if`s in three orders, per row of matrices with many
//!   columns (the strided pair lanes, `loopy::select`);
//! - `rotate` by negative amounts, by multiples of the length and past
//!   it, and by `i64`'s extremes, read beside the array (the rotated
//!   read's conditional subtraction);
//! - vector-matrix products down the columns of a matrix (`transpose`,
//!   or by indices) of widths around 64 columns (`JamLanes::columns`);
//! - chains of 4 to 12 maps, each reading the one before and sometimes an
//!   earlier one (fusion's chain contraction, `fusion::frontier`).

use super::ast::{Expr, Ty, Var};
use super::gen::{zero, Env, Gen};
use super::ranked::ranked;
use crate::types::ScalarType;
use ScalarType::*;

/// Rows of a scan or histogram of rows: few, and many for the chunks.
const ROWS: &[i64] = &[0, 1, 2, 7, 64, 100, 1_000, 4_097, 10_000];
/// Columns of those rows: the operator's width.
const WIDTHS: &[i64] = &[1, 2, 3, 4, 5, 8, 9, 16, 17];
/// Most elements of such a matrix.
const WORK: i64 = 200_000;
/// Columns of a vector-matrix product: around a jam of 64 columns.
const COLUMNS: &[i64] = &[0, 1, 3, 63, 64, 65, 128, 130, 200];

/// `(let k = .. in let m = .. in let a = a_e in let v = map (\\i -> v_e)
/// (iota k) in form)`: a matrix `[k][m]t` and a vector of `k` elements
/// for a form that reduces down the matrix's columns.
pub(super) fn vector_and_matrix(
    t: ScalarType,
    [kv, mv, av, vv, i]: [&str; 5],
    (k, m): (&str, &str),
    (a, ve): (Expr, Expr),
    form: &str,
) -> Expr {
    Expr::node(Ty::arr(Ty::S(t)))
        .t(&format!("(let {kv} = {k} in let {mv} = {m} in let {av} = "))
        .e(a)
        .t(&format!(" in let {vv} = map (\\{i} -> "))
        .e(ve)
        .t(&format!(") (iota {kv}) in {form})"))
}

impl Gen {
    /// An expression for one of the shapes above and its length class.
    pub fn chunk_shape(&mut self, env: &Env) -> Option<(Expr, u32)> {
        match self.rng.below(6) {
            0 => self.row_scan(env),
            1 => self.row_hist(env),
            2 => self.wide_argmax(env),
            3 => self.rotations(env),
            4 => self.vector_matrix(env),
            _ => self.map_chain(env),
        }
    }

    /// A type of every width: 8, 16, 32 and 64 bits.
    fn width_type(&mut self) -> ScalarType {
        *self
            .rng
            .pick(&[I8, U8, I16, U16, I32, U32, I64, U64, F32, F64])
    }

    /// Rows and columns of a matrix of many rows and few columns.
    fn rows_and_width(&mut self, env: &Env) -> (String, String) {
        loop {
            let (r, rmax) = self.dim(env, ROWS);
            let (c, cmax) = self.dim(env, WIDTHS);
            if rmax * cmax <= WORK {
                return (r, c);
            }
        }
    }

    /// An elementwise operator (associative; commutative if asked), as
    /// `map2 op` or a lambda over two rows; whether it is a float sum.
    fn row_operator(&mut self, t: ScalarType, commutative: bool) -> (String, String, bool) {
        let (op, sum) = self.row_op(t, commutative);
        let text = if self.rng.chance(0.7) {
            format!("(map2 {})", op.text)
        } else {
            let (a, b, x, y) = (
                self.name("a"),
                self.name("b"),
                self.name("x"),
                self.name("y"),
            );
            format!(
                "(\\{a} {b} -> map2 (\\{x} {y} -> {} {x} {y}) {a} {b})",
                op.text
            )
        };
        (text, op.ne, sum)
    }

    /// `scan (map2 op) (replicate w ne) xss`, its rows mapped or its last
    /// row taken sometimes.
    fn row_scan(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.width_type();
        let (rows, cols) = self.rows_and_width(env);
        let (op, ne, sum) = self.row_operator(t, false);
        let (m, small) = self.matrix(env, t, (&rows, &cols), t.is_float());
        let (w, xss, s) = (self.name("w"), self.name("xss"), self.name("s"));
        let head = format!("(let {w} = {cols} in let {xss} = ");
        let scan = format!(" in let {s} = scan {op} (replicate {w} {ne}) {xss} in ");
        let (r, x) = (self.name("r"), self.name("x"));
        let tail = match self.rng.below(3) {
            0 => format!("{s})"),
            1 => format!("map (\\{r} -> map (\\{x} -> {x} + {x}) {r}) {s})"),
            _ => format!("map2 (\\{r} {x} -> map2 (\\p q -> p + q) {r} {x}) {s} {xss})"),
        };
        let e = Expr::node(ranked(t, 2))
            .t(&head)
            .e(m)
            .t(&format!("{scan}{tail}"))
            .inexact(sum && !small);
        Some((e, self.new_size()))
    }

    /// `hist (map2 op) (replicate w ne) k is xss` or `reduce_by_index`
    /// into a tabulated destination, the indices sometimes out of range.
    fn row_hist(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.width_type();
        let (rows, cols) = self.rows_and_width(env);
        let (op, ne, sum) = self.row_operator(t, true);
        let (m, small) = self.matrix(env, t, (&rows, &cols), t.is_float());
        let bins = *self.rng.pick(&[0, 1, 2, 3, 7, 64]);
        let ([w, xss, i, k], (a, b)) = self.binned_rows_names();
        // `% (k + 2) - 1`: bins -1 and k are out of range and skipped.
        let is = if self.rng.chance(0.5) {
            format!("(map (\\{i} -> ({i} * {a} + ({b}i64)) % ({k} + 2) - 1) (iota (length {xss})))")
        } else {
            format!("(map (\\{i} -> if {k} == 0 then 0 else ({i} * {a} + ({b}i64)) %% {k}) (iota (length {xss})))")
        };
        let head = format!("(let {w} = {cols} in let {k} = {bins}i64 in let {xss} = ");
        let e = Expr::node(ranked(t, 2)).t(&head).e(m);
        let exact = t.is_float();
        let (e, d_small) = self.binned_rows(env, e, t, (&op, &ne), [&w, &k, &is, &xss], exact);
        let e = e.inexact(sum && !d_small);
        let inexact = e.inexact || (sum && !small);
        Some((e.inexact(inexact), self.new_size()))
    }

    /// The names `[w, xss, i, k]` of a histogram of rows (`binned_rows`)
    /// and the factor and offset `(a, b)` of its index map.
    pub(super) fn binned_rows_names(&mut self) -> ([String; 4], (i64, i64)) {
        let names = ["w", "xss", "i", "k"].map(|n| self.name(n));
        (names, (self.rng.range(1, 9), self.rng.range(-3, 4)))
    }

    /// `e`, which binds `w`, `k` and `xss`, ended by `hist op (replicate
    /// w ne) k is xss` or by a `reduce_by_index` into a tabulated `[k][w]t`
    /// destination (of small exact values if `exact`); whether the
    /// destination's values are such (true for `hist`).
    pub(super) fn binned_rows(
        &mut self,
        env: &Env,
        e: Expr,
        t: ScalarType,
        (op, ne): (&str, &str),
        [w, k, is, xss]: [&str; 4],
        exact: bool,
    ) -> (Expr, bool) {
        if self.rng.chance(0.5) {
            let text = format!(" in hist {op} (replicate {w} {ne}) {k} {is} {xss})");
            return (e.t(&text), true);
        }
        let (dest, d_small) = self.matrix(env, t, (k, w), exact);
        let dst = self.name("dst");
        let e = e.t(&format!(" in let {dst} = ")).e(dest).t(&format!(
            " in reduce_by_index {dst} {op} (replicate {w} {ne}) {is} {xss})"
        ));
        (e, d_small)
    }

    /// Argmax or argmin of each row of a tabulated matrix of many columns,
    /// or of a generated vector (`pair_reduction`), spelled with `||` or
    /// nested `if`s.
    fn wide_argmax(&mut self, env: &Env) -> Option<(Expr, u32)> {
        if self.rng.chance(0.3) {
            return self.pair_reduction(env);
        }
        let t = *self.rng.pick(&[F32, F64, I32, I64, I16, U8]);
        let n = t.name();
        let (rows, _) = self.dim(env, &[0, 1, 5, 17, 64]);
        let (cols, _) = self.dim(env, &[0, 1, 15, 16, 17, 63, 64, 65, 200]);
        let (m, _) = self.matrix(env, t, (&rows, &cols), true);
        let [v1, i1, v2, i2] = ["v", "i", "v", "i"].map(|p| self.name(p));
        let larger = self.rng.chance(0.5);
        let (better, worse, worst) = if larger {
            (">", "<", format!("{n}.lowest"))
        } else {
            ("<", ">", format!("{n}.highest"))
        };
        let lower = self.rng.chance(0.7);
        let (earlier, none) = if lower {
            ("<", "i64.highest")
        } else {
            (">", "-1i64")
        };
        let (a, b) = (format!("({v1}, {i1})"), format!("({v2}, {i2})"));
        let body = match self.rng.below(4) {
            0 => format!(
                "if {v1} {better} {v2} || ({v1} == {v2} && {i1} {earlier} {i2}) then {a} else {b}"
            ),
            1 => format!(
                "if {v1} {better} {v2} then {a} else if {v1} {worse} {v2} then {b} else if {i1} {earlier} {i2} then {a} else {b}"
            ),
            2 => format!(
                "if {v1} == {v2} then (if {i1} {earlier} {i2} then {a} else {b}) else if {v1} {better} {v2} then {a} else {b}"
            ),
            _ => format!(
                "if {v2} {better} {v1} || ({v2} == {v1} && {i2} {earlier} {i1}) then {b} else {a}"
            ),
        };
        let (row, r) = (self.name("row"), self.name("r"));
        let pick = match self.rng.below(3) {
            0 => format!("{r}.1"),
            1 => format!("{r}.1 + i64.{n} {r}.0"),
            _ => format!("if {r}.1 < 0 || {r}.1 == i64.highest then -7i64 else {r}.1 * 2"),
        };
        let e = Expr::node(Ty::arr(Ty::S(I64)))
            .t(&format!(
                "(map (\\{row} -> let {r} = reduce (\\({v1}, {i1}) ({v2}, {i2}) -> {body}) ({worst}, {none}) (zip {row} (indices {row})) in {pick}) "
            ))
            .e(m)
            .t(")");
        Some((e, self.new_size()))
    }

    /// `rotate r xs` (or of a matrix's rows or columns) by a negative
    /// amount, a multiple of the length and more, or `i64`'s extremes,
    /// often read beside the unrotated array as a periodic stencil.
    fn rotations(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, U8, I16, F32, F64]);
        let k = self.rng.range(1, 5);
        let j = self.rng.range(0, 4);
        let amount = |len: &str, g: &mut Gen| match g.rng.below(7) {
            0 => format!("(-{k}i64)"),
            1 => format!("(-({len}) - {k}i64)"),
            2 => format!("({len} * {j} + {k}i64)"),
            3 => format!("(-({len}) * {j} - {k}i64)"),
            4 => "i64.highest".to_string(),
            5 => "i64.lowest".to_string(),
            _ => format!("({len} + {k}i64)"),
        };
        let x = self.name("x");
        if self.rng.chance(0.4) {
            let (rows, _) = self.dim(env, &[0, 1, 2, 7, 33]);
            let (cols, _) = self.dim(env, &[0, 1, 3, 8, 65]);
            let (m, _) = self.matrix(env, t, (&rows, &cols), false);
            let (g, row) = (self.name("g"), self.name("row"));
            let inner = amount(&format!("length (transpose {g})"), self);
            let outer = amount(&format!("length {g}"), self);
            let body = match self.rng.below(3) {
                0 => format!("map (\\{row} -> rotate {inner} {row}) {g}"),
                1 => format!("rotate {outer} {g}"),
                _ => format!(
                    "map2 (\\{row} {x} -> map2 (+) {row} (rotate {inner} {x})) {g} (rotate {outer} {g})"
                ),
            };
            let e = Expr::node(ranked(t, 2))
                .t(&format!("(let {g} = "))
                .e(m)
                .t(&format!(" in {body})"));
            return Some((e, self.new_size()));
        }
        let (xs, size) = self.array1(env, t, 2, None);
        let v = self.name("xs");
        let (r1, r2) = (
            amount(&format!("length {v}"), self),
            amount(&format!("length {v}"), self),
        );
        let body = match self.rng.below(3) {
            0 => format!("rotate {r1} {v}"),
            1 => format!("map2 (+) {v} (rotate {r1} {v})"),
            _ => format!("map3 (\\a b c -> a + b + c) (rotate {r1} {v}) {v} (rotate {r2} {v})"),
        };
        let inexact = xs.inexact;
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {v} = "))
            .e(xs)
            .t(&format!(" in {body})"))
            .inexact(inexact);
        Some((e, size))
    }

    /// `v` times a matrix `a: [k][m]t`, down its columns: a sum over
    /// `transpose a`, or by indices; or `a` times `v` by rows.
    fn vector_matrix(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[F32, F32, F64, I32, I64, I16]);
        let (k, _) = self.dim(env, &[0, 1, 2, 5, 17, 64, 100]);
        let (m, _) = self.dim(env, COLUMNS);
        let (kv, mv, av, vv) = (
            self.name("k"),
            self.name("m"),
            self.name("a"),
            self.name("v"),
        );
        let (a, a_small) = self.matrix(env, t, (&kv, &mv), false);
        let i = self.name("i");
        let (ve, v_small) = self.cycling_element(env, t, std::slice::from_ref(&i), false);
        let (c, j, q) = (self.name("c"), self.name("j"), self.name("q"));
        let z = zero(t);
        let form = match self.rng.below(5) {
            0 => format!("map (\\{c} -> reduce (+) {z} (map2 (*) {c} {vv})) (transpose {av})"),
            1 => format!("map (\\{c} -> sum (map2 (*) {vv} {c})) (transpose {av})"),
            2 => format!("map (\\{c} -> dot {c} {vv}) (transpose {av})"),
            3 => format!(
                "tabulate {mv} (\\{j} -> reduce (+) {z} (map (\\{q} -> {vv}[{q}] * {av}[{q}, {j}]) (iota {kv})))"
            ),
            _ => format!(
                "map (\\{c} -> reduce (+) {z} (map2 (*) {c} {vv})) (transpose {av} |> map (map (\\{q} -> {q} + {q})))"
            ),
        };
        let e = vector_and_matrix(t, [&kv, &mv, &av, &vv, &i], (&k, &m), (a, ve), &form)
            .inexact(t.is_float() && !(a_small && v_small));
        Some((e, self.new_size()))
    }

    /// `let c1 = map f1 xs in let c2 = map f2 c1 in ... cN`, some links a
    /// `map2` of the one before and an earlier one, ended by the last
    /// link, a sum of it or a zip of two links.
    fn map_chain(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, U16, F32, F64]);
        let (xs, size) = self.array1(env, t, 1, None);
        let mut links: Vec<(String, bool)> = Vec::new();
        let first = self.name("c");
        let mut e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {first} = "))
            .e(xs.clone());
        links.push((first, xs.inexact));
        for _ in 0..self.rng.range(4, 13) {
            let (prev, prev_inexact) = links.last().cloned()?;
            let c = self.name("c");
            let x = self.name("x");
            let mut inner = env.clone();
            inner.push(Var {
                name: x.clone(),
                ty: Ty::S(t),
                inexact: prev_inexact,
                size: 0,
            });
            let (tail, mut inexact) = if links.len() > 1 && self.rng.chance(0.35) {
                let (other, o_inexact) = links[self.rng.below(links.len() - 1)].clone();
                let y = self.name("y");
                inner.push(Var {
                    name: y.clone(),
                    ty: Ty::S(t),
                    inexact: o_inexact,
                    size: 0,
                });
                e = e.t(&format!(" in let {c} = map2 (\\{x} {y} -> "));
                (format!(") {prev} {other}"), prev_inexact || o_inexact)
            } else {
                e = e.t(&format!(" in let {c} = map (\\{x} -> "));
                (format!(") {prev}"), prev_inexact)
            };
            let f = self.scalar(&inner, t, 1);
            inexact |= f.inexact;
            e = e.e(f).t(&tail);
            links.push((c, inexact));
        }
        let (last, _) = links.last().cloned()?;
        let text = if self.rng.chance(0.3) && links.len() > 2 {
            let (mid, _) = links[links.len() / 2].clone();
            format!(" in map2 (+) {last} {mid})")
        } else {
            format!(" in {last})")
        };
        Some((e.t(&text), size))
    }
}
