//! Statements for the fourteenth session's paths, which the other
//! generators reach rarely or never (only with `--cuts`, weight 0
//! otherwise, so that other seeds keep their programs):
//!
//! - innermost loops reading `xs[i + s]` where a test on `i + s` wraps the
//!   index around or guards it (every comparison, either operand first,
//!   two tests in one body), and `rotate`s read beside the array: the
//!   loops cut at the tests' thresholds (`loopy::chunk`,
//!   `codegen::cpu::cut`), with shifts 0, the length, negative, past the
//!   length and `i64`'s extremes;
//! - scatters over concatenations of two to five parts of one size
//!   (`simplify-scatter-split`'s chains, fused as `continues` by
//!   `fusion::graph::scatter_chain`), indices repeated, negative and past
//!   the end, each value a function of its index (a repeated index gets
//!   one value, so the unspecified choice among duplicates cannot show);
//! - histograms of rows of `u8` to `f64` with every operator a GPU has an
//!   atomic for (and some it has not), bins from 1 to 3,000, rows from 0
//!   to 5,000, widths constant or not: the atomic, chunked and column
//!   forms (`codegen::gpu::hist_atomic`);
//! - `==` and `!=` on arrays of one and two dimensions, of different
//!   shapes, per row, of tuples and records.

use super::ast::{Expr, Ty};
use super::gen::{zero, Env, Gen};
use super::ranked::ranked;
use super::rewrites::with_scalars;
use crate::types::ScalarType;
use ScalarType::*;

/// Bins of a histogram of rows: few (the chunked form) and many (atomics).
const BINS: &[i64] = &[1, 2, 7, 64, 500, 2_000, 3_000];
/// Rows of such a histogram.
const HIST_ROWS: &[i64] = &[0, 1, 2, 30, 300, 3_000, 5_000];
/// Columns of its rows.
const HIST_WIDTHS: &[i64] = &[0, 1, 2, 3, 4, 5, 17, 45];
/// Most elements of its values or of its bins.
const HIST_WORK: i64 = 200_000;

impl Gen {
    /// An expression for one of the shapes above and its length class.
    pub fn cut_shape(&mut self, env: &Env) -> Option<(Expr, u32)> {
        match self.rng.below(7) {
            0 | 1 => self.cut_loop(env),
            2 => self.cut_rows(env),
            3 => self.scatter_chain(env),
            4 | 5 => self.atomic_hist(env),
            _ => self.array_equality(env),
        }
    }

    /// A shift of an index over `n` elements (text): 0, `n`, negative,
    /// past `n`, an extreme, or a scalar of the program.
    fn shift(&mut self, env: &Env, n: &str) -> Expr {
        let c = self.rng.range(1, 6);
        let text = match self.rng.below(10) {
            0 => "0i64".to_string(),
            1 => n.to_string(),
            2 => format!("(-{c}i64)"),
            3 => format!("({n} + {c}i64)"),
            4 => format!("{c}i64"),
            5 => format!("({n} - {c}i64)"),
            6 => format!("(-({n}) - {c}i64)"),
            7 => "i64.highest".to_string(),
            8 => "i64.lowest".to_string(),
            _ => return self.exact(env, I64, 1),
        };
        Expr::leaf(Ty::S(I64), text)
    }

    /// A shift `s` for which `if i + s >= n then xs[i + s - n]` (`down`
    /// false) or `if i + s < 0 then xs[i + s + n]` (`down`) stays in range:
    /// `0 <= s <= n` or `-n <= s <= 0`, by a floor remainder, unless risky.
    fn wrap_shift(&mut self, env: &Env, n: &str, down: bool) -> Expr {
        let s = self.shift(env, n);
        if self.risky() {
            return s;
        }
        let sign = if down { "-" } else { "" };
        Expr::node(Ty::S(I64))
            .t(&format!("({sign}("))
            .e(s)
            .t(&format!(" % ({n} + 1i64)))"))
    }

    /// A body reading `xs` (of `n` elements, text) at `i` plus a shift,
    /// wrapped around or guarded by a test on the shifted index; the
    /// shifted names are fresh.
    fn cut_read(&mut self, env: &Env, t: ScalarType, (xs, n, i): (&str, &str, &str)) -> Expr {
        let j = self.name("j");
        let z = zero(t);
        let node = Expr::node(Ty::S(t));
        match self.rng.below(8) {
            0 => {
                let s = self.wrap_shift(env, n, false);
                let test = self
                    .rng
                    .pick(&[
                        format!("{j} >= {n}"),
                        format!("{n} <= {j}"),
                        format!("{j} > {n} - 1i64"),
                    ])
                    .clone();
                node.t(&format!("(let {j} = {i} + ")).e(s).t(&format!(
                    " in if {test} then {xs}[{j} - {n}] else {xs}[{j}])"
                ))
            }
            1 => {
                let s = self.wrap_shift(env, n, true);
                let test = self
                    .rng
                    .pick(&[
                        format!("{j} < 0i64"),
                        format!("0i64 > {j}"),
                        format!("{j} <= -1i64"),
                    ])
                    .clone();
                node.t(&format!("(let {j} = ")).e(s).t(&format!(
                    " + {i} in if {test} then {xs}[{j} + {n}] else {xs}[{j}])"
                ))
            }
            2 | 3 => {
                let s = self.shift(env, n);
                let test = if self.risky() {
                    // One side of the guard left out: a read out of range.
                    format!("{j} >= {n}")
                } else {
                    self.rng
                        .pick(&[
                            format!("{j} >= {n} || {j} < 0i64"),
                            format!("{n} <= {j} || 0i64 > {j}"),
                            format!("{j} < 0i64 || {j} > {n} - 1i64"),
                        ])
                        .clone()
                };
                node.t(&format!("(let {j} = {i} + "))
                    .e(s)
                    .t(&format!(" in if {test} then {z} else {xs}[{j}])"))
            }
            4 => {
                let s = self.shift(env, n);
                node.t(&format!("(let {j} = {i} + ")).e(s).t(&format!(
                    " in if {j} >= 0i64 && {j} < {n} then {xs}[{j}] else {xs}[{i}])"
                ))
            }
            5 => {
                // The test does not decide the index: the read stays `i`.
                let s = self.shift(env, n);
                let c = self.rng.range(-2, 5);
                let op = *self.rng.pick(&["<", "<=", ">", ">="]);
                node.t(&format!("(if {c}i64 {op} {i} + "))
                    .e(s)
                    .t(&format!(" then {xs}[{i}] + {xs}[{i}] else {xs}[{i}])"))
            }
            _ => {
                // Two tests in one body: a wrap up and a wrap down.
                let (a, b) = (
                    self.wrap_shift(env, n, false),
                    self.wrap_shift(env, n, true),
                );
                let k = self.name("k");
                node.t(&format!("(let {j} = {i} + "))
                    .e(a)
                    .t(&format!(" in let {k} = {i} + "))
                    .e(b)
                    .t(&format!(
                        " in (if {j} >= {n} then {xs}[{j} - {n}] else {xs}[{j}]) + (if {k} < 0i64 then {xs}[{k} + {n}] else {xs}[{k}]))"
                    ))
            }
        }
    }

    /// A map over the indices of a vector whose body is `cut_read`, or
    /// the vector beside one or two `rotate`s of it.
    fn cut_loop(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, U8, I16, U32, F32, F64]);
        let (xs, size) = self.array1(env, t, 2, None);
        let inexact = xs.inexact;
        let (v, n, i, x) = (
            self.name("xs"),
            self.name("n"),
            self.name("i"),
            self.name("x"),
        );
        let head = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {v} = "))
            .e(xs)
            .t(&format!(" in let {n} = length {v} in "));
        if self.rng.chance(0.2) {
            let (r1, r2) = (self.shift(env, &n), self.shift(env, &n));
            let e = if self.rng.chance(0.5) {
                head.t(&format!("map2 (+) {v} (rotate "))
                    .e(r1)
                    .t(&format!(" {v}))"))
            } else {
                head.t(&format!("map3 (\\a b c -> a + b + c) {v} (rotate "))
                    .e(r1)
                    .t(&format!(" {v}) (rotate "))
                    .e(r2)
                    .t(&format!(" {v}))"))
            };
            return Some((e.inexact(inexact), size));
        }
        let body = self.cut_read(env, t, (&v, &n, &i));
        let e = match self.rng.below(3) {
            0 => head
                .t(&format!("map (\\{i} -> "))
                .e(body)
                .t(&format!(") (iota {n}))")),
            1 => head.t(&format!("tabulate {n} (\\{i} -> ")).e(body).t("))"),
            _ => head
                .t(&format!("map2 (\\{x} {i} -> {x} + "))
                .e(body)
                .t(&format!(") {v} (iota {n}))")),
        };
        Some((e.inexact(inexact), size))
    }

    /// `cut_read` over each row of a matrix (the innermost loop of a
    /// nest), or over a column index reading a row of another.
    fn cut_rows(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, I8, U16, F32, F64]);
        let (rows, _) = self.dim(env, &[0, 1, 2, 7, 33, 100]);
        let (cols, _) = self.dim(env, &[0, 1, 2, 5, 16, 17, 64, 65]);
        let (m, _) = self.matrix(env, t, (&rows, &cols), false);
        let inexact = m.inexact;
        let (g, row, n, i) = (
            self.name("g"),
            self.name("row"),
            self.name("n"),
            self.name("i"),
        );
        let body = self.cut_read(env, t, (&row, &n, &i));
        let e = Expr::node(ranked(t, 2))
            .t(&format!("(let {g} = "))
            .e(m)
            .t(&format!(
                " in map (\\{row} -> let {n} = length {row} in map (\\{i} -> "
            ))
            .e(body)
            .t(&format!(") (iota {n})) {g})"))
            .inexact(inexact);
        Some((e, self.new_size()))
    }

    /// `scatter d (p1 ++ ... ++ pk) (q1 ++ ... ++ qk)` with every part a
    /// map over the indices of one array (so of one size: a chain of
    /// scatters fused into one loop), or one part over another array
    /// (the rest stays one scatter); the indices repeated, negative and
    /// past the end, each value a function of its index.
    fn scatter_chain(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.num_type();
        let from = self.scalar_type();
        let (src, _) = self.array1(env, from, 1, None);
        let (a, d, j) = (self.name("a"), self.name("d"), self.name("j"));
        let c = self.rng.range(1, 4);
        let dest_len = match self.rng.below(5) {
            0 => format!("length {a}"),
            1 => format!("length {a} * {c}i64"),
            2 => format!("length {a} / 2i64"),
            _ => format!("{}i64", self.rng.pick(&[0, 1, 7, 100])),
        };
        let fill = self.lit(t);
        let value = self.exact(&with_scalars(env, &[(&j, I64)], false), t, 2);
        let parts = self.rng.range(2, 5);
        let odd = if self.rng.chance(0.2) {
            Some(self.rng.below(parts as usize - 1) + 1)
        } else {
            None
        };
        let mut e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {a} = "))
            .e(src)
            .t(&format!(" in let {d} = replicate ({dest_len}) "))
            .e(fill);
        let mut forms = Vec::new();
        for p in 0..parts {
            let (x, i) = (self.name("x"), self.name("i"));
            let arr = if Some(p as usize) == odd {
                let other = self.name("o");
                let (o, _) = self.array1(env, from, 1, None);
                e = e.t(&format!(" in let {other} = ")).e(o);
                other
            } else {
                a.clone()
            };
            // Not `i` alone first: the pass splits off a first part made
            // by a SOAC, and the simplifier makes that one an `iota`.
            let form = if p == 0 {
                self.rng.below(8) + 1
            } else {
                self.rng.below(9)
            };
            let ix = match form {
                0 => i.clone(),
                1 => format!("{i} + {p}i64 * length {arr}"),
                2 => format!("{i} / 2i64"),
                3 => format!("{i} * 2i64 - 1i64"),
                4 => format!("length {d} - 1i64 - {i}"),
                5 => format!("{i} + length {d}"),
                6 => format!("{i} - {c}i64"),
                7 if from.is_int() => format!("i64.{} {x} % 11i64", from.name()),
                _ => format!("({i} * {}i64) % (length {d} + 1i64)", self.rng.range(2, 6)),
            };
            forms.push((ix, x, i, arr));
        }
        let indices: Vec<String> = forms
            .iter()
            .map(|(ix, x, i, arr)| format!("(map2 (\\{x} {i} -> {ix}) {arr} (indices {arr}))"))
            .collect();
        e = e.t(&format!(" in scatter {d} ({}) (", indices.join(" ++ ")));
        for (k, (ix, x, i, arr)) in forms.iter().enumerate() {
            if k > 0 {
                e = e.t(" ++ ");
            }
            e = e
                .t(&format!("(map2 (\\{x} {i} -> let {j} = {ix} in "))
                .e(value.clone())
                .t(&format!(") {arr} (indices {arr}))"));
        }
        Some((e.t("))"), self.new_size()))
    }

    /// An operator on rows' elements of `t` and its neutral element: one
    /// a GPU has an atomic instruction for, mostly.
    fn atomic_operator(&mut self, t: ScalarType) -> (String, String) {
        let n = t.name();
        let ones = if t.is_signed() {
            format!("(-1{n})")
        } else {
            format!("{n}.highest")
        };
        let ops: Vec<(String, String)> = if t.is_float() {
            vec![
                ("(+)".into(), zero(t)),
                ("(+)".into(), zero(t)),
                (format!("{n}.max"), format!("{n}.lowest")),
                (format!("{n}.min"), format!("{n}.highest")),
            ]
        } else {
            vec![
                ("(+)".into(), zero(t)),
                ("(&)".into(), ones),
                ("(|)".into(), zero(t)),
                ("(^)".into(), zero(t)),
                (format!("{n}.min"), format!("{n}.highest")),
                (format!("{n}.max"), format!("{n}.lowest")),
                ("(*)".into(), format!("1{n}")),
            ]
        };
        self.rng.pick(&ops).clone()
    }

    /// `hist (map2 op) (replicate w ne) k is xss`, or `reduce_by_index`
    /// into a destination of its own values, over many bins or few, the
    /// indices sometimes out of range (skipped); the values small
    /// multiples of a half, whose float sums are exact in any order.
    fn atomic_hist(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self
            .rng
            .pick(&[U8, I8, U16, I16, U32, I32, U64, I64, F32, F64]);
        let (rows, cols, bins) = loop {
            let (r, rmax) = self.dim(env, HIST_ROWS);
            let (c, cmax) = self.dim(env, HIST_WIDTHS);
            let k = *self.rng.pick(BINS);
            if rmax.max(k) * cmax <= HIST_WORK {
                break (r, c, k);
            }
        };
        let (op, ne) = self.atomic_operator(t);
        let (m, _) = self.matrix(env, t, (&rows, &cols), true);
        let ([w, xss, i, k], (a, b)) = self.binned_rows_names();
        let is = match self.rng.below(3) {
            // Bins -1 and k: out of range, skipped.
            0 => format!("(map (\\{i} -> ({i} * {a} + ({b}i64)) % ({k} + 2i64) - 1i64) (iota (length {xss})))"),
            1 => format!("(map (\\{i} -> ({i} * {a} + ({b}i64)) % {k}) (iota (length {xss})))"),
            _ => format!("(map (\\{i} -> {i} / {a}) (iota (length {xss})))"),
        };
        let lambda = if self.rng.chance(0.7) {
            format!("(map2 {op})")
        } else {
            let (p, q, x, y) = (
                self.name("p"),
                self.name("q"),
                self.name("x"),
                self.name("y"),
            );
            format!("(\\{p} {q} -> map2 (\\{x} {y} -> {op} {x} {y}) {p} {q})")
        };
        let head = format!("(let {w} = {cols} in let {k} = {bins}i64 in let {xss} = ");
        let e = Expr::node(ranked(t, 2)).t(&head).e(m);
        let (e, _) = self.binned_rows(env, e, t, (&lambda, &ne), [&w, &k, &is, &xss], true);
        Some((e, self.new_size()))
    }

    /// `[a == b, a != b, ...]` over arrays of the program or made here, of
    /// equal or different shapes, of rank 1 or 2, of pairs or records, or
    /// each row against a vector.
    fn array_equality(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, U8, Bool, F32, F64]);
        let (xs, _) = self.array1(env, t, 1, None);
        let (ys, _) = self.array1(env, t, 1, None);
        if xs.inexact || ys.inexact {
            return None;
        }
        let (a, b) = (self.name("a"), self.name("b"));
        let bools = Ty::arr(Ty::S(Bool));
        let e = Expr::node(bools.clone())
            .t(&format!("(let {a} = "))
            .e(xs)
            .t(&format!(" in let {b} = "))
            .e(ys)
            .t(" in ");
        let (r, x, y) = (self.name("r"), self.name("x"), self.name("y"));
        let c = self.rng.range(0, 3);
        let text = match self.rng.below(8) {
            0 => format!("[{a} == {b}, {a} != {b}, {a} == {a}, {b} != {b}])"),
            1 => format!("[{a} == map (\\{x} -> {x}) {a}, {a} == reverse {a}, {a} != rotate 1i64 {a}])"),
            2 => format!("[take (i64.min {c}i64 (length {a})) {a} == take (i64.min {c}i64 (length {b})) {b}, {a} == {a} ++ {a}, ({a} ++ {b}) == ({b} ++ {a})])"),
            3 => format!("[zip {a} (indices {a}) == zip {b} (indices {b}), zip {a} {a} != zip {a} (reverse {a})])"),
            4 => format!("[map2 (\\{x} {y} -> {{{x}, {y}}}) {a} {a} == map (\\{x} -> {{{x}, {y} = {x}}}) {a}, map (\\{x} -> {{f = {x}}}) {a} != map (\\{x} -> {{f = {x}}}) {b}])"),
            5 => format!("map (\\{r} -> {r} == {b}) (replicate {c}i64 {a}) ++ [{a} == {b}])"),
            6 => format!("let {r} = [{a}] in [{r} == [{b}], {r} == {r}, {r} != transpose {r}, [{a}, {a}] != [{a}]])"),
            _ => format!("map (\\{r} -> {r} != reverse {r}) (unflatten 1i64 (length {a}) {a} ++ unflatten 1i64 (length {a}) (reverse {a})))"),
        };
        Some((e.t(&text), self.new_size()))
    }
}
