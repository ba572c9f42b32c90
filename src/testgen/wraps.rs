//! Statements for the fifteenth session's loop-nest passes and kernels,
//! which the other generators reach rarely or never (only with `--wraps`,
//! weight 0 otherwise, so that other seeds keep their programs):
//!
//! - `for` loops whose array state the body only reads (`loopy::borrow`):
//!   stencils by `rotate` and by `% n`, over an entry's argument or an
//!   array made before, read again after the loop or not, trip counts
//!   negative, 0, 1 and several;
//! - reads at `(i + c) % n`, `(c + i) % n` and `(i + n - 1) % n` over `i <
//!   n` (`loopy::wrap`): `c` 0, 1, `s % n` (in the body or before the
//!   map), and shifts the pass must leave alone (2, `n`, -1, a scalar);
//! - flattened map nests whose inner map streams an array from outside,
//!   with statements of the row before it, returned, mapped or unflattened
//!   (`fusion::flat_index`, `loopy::unflat`);
//! - reductions down the columns of a matrix by any operator, a prologue
//!   per column sometimes (`loopy::jam`, and `loopy::jam::stream` where a
//!   sweep sets `ARRC_STREAM_FROM` small), 0 to 257 columns;
//! - scans of one to three long rows (1,023 to 5,000 elements: the GPU's
//!   split row scans under `ARRC_GPU_SHRINK=1`), by any operator, after a
//!   reduction of the row, on composed affine pairs, with a gather that
//!   may fail before the scan.

use super::ast::{Expr, Ty, Var};
use super::chunks::vector_and_matrix;
use super::gen::{zero, Env, Gen, Op};
use super::ranked::ranked;
use super::rewrites::with_scalars;
use crate::types::ScalarType;
use ScalarType::*;

/// Trip counts of the borrowing loops.
const TRIPS: &[i64] = &[-1, 0, 1, 2, 3, 5];
/// Columns of a reduction down columns: none, one, around the stream's
/// blocks of 16 and the jam's 64 columns.
const COLUMNS: &[i64] = &[0, 1, 15, 16, 17, 33, 64, 100, 257];
/// Rows of such a reduction.
const COLUMN_ROWS: &[i64] = &[0, 1, 2, 7, 40];
/// Widths of the long rows of a scan: around 1,024 and the shrunk
/// launch's chunks.
const SCAN_WIDTHS: &[i64] = &[1, 1023, 1024, 1025, 2049, 3000, 5000];
/// Rows of such a scan: fewer than the blocks a GPU holds.
const SCAN_ROWS: &[i64] = &[0, 1, 1, 2, 3];
/// Sizes of a flattened nest.
const NEST: &[i64] = &[0, 1, 2, 3, 7, 16, 33];

impl Gen {
    /// An expression for one of the shapes above and its length class.
    pub fn wrap_shape(&mut self, env: &Env) -> Option<(Expr, u32)> {
        match self.rng.below(6) {
            0 | 1 => self.borrow_loop(env),
            2 => self.wrapped_reads(env),
            3 => self.flat_nest(env),
            4 => self.column_reduction(env),
            _ => self.long_row_scan(env),
        }
    }

    /// A vector of a numeric type: an entry's argument half the time when
    /// there is one (the borrowed loop's initial array is then not the
    /// function's own), else any; its type and length class.
    fn stencil_source(&mut self, env: &Env) -> (Expr, ScalarType, u32) {
        let params: Vec<&Var> = env
            .iter()
            .filter(|v| v.name.starts_with("in") && !v.inexact)
            .filter(|v| v.ty.scalar_rank().is_some_and(|(t, r)| r == 1 && t != Bool))
            .collect();
        if !params.is_empty() && self.rng.chance(0.5) {
            let v = *self.rng.pick(&params);
            if let Some((t, _)) = v.ty.scalar_rank() {
                return (Expr::leaf(v.ty.clone(), v.name.clone()), t, v.size);
            }
        }
        let t = *self.rng.pick(&[I32, I64, U8, I16, F32, F64, F16]);
        let (e, size) = self.array1(env, t, 2, None);
        (e, t, size)
    }

    /// `loop g = g0 for i < k do body` whose body only reads `g` (a
    /// stencil by rotations or `% n`, a reverse, a map with `i`), over a
    /// vector or each row of a matrix of them, `g0` read again after it
    /// sometimes.
    fn borrow_loop(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let (src, t, size) = self.stencil_source(env);
        let inexact = src.inexact;
        let (g0, g, i, n, j) = (
            self.name("g"),
            self.name("g"),
            self.name("i"),
            self.name("n"),
            self.name("j"),
        );
        let tn = t.name();
        let trips = match self.rng.below(4) {
            0 => format!("(length {g0} % 4)"),
            _ => format!("{}i64", self.rng.pick(TRIPS)),
        };
        let (c, l, r) = (self.name("c"), self.name("l"), self.name("r"));
        let body = match self.rng.below(5) {
            0 => format!("map3 (\\{c} {l} {r} -> {c} + {l} - {r}) {g} (rotate (-1) {g}) (rotate 1 {g})"),
            1 => format!(
                "let {n} = length {g} in map (\\{j} -> {g}[({j} + 1) % {n}] + {g}[({j} + {n} - 1) % {n}]) (iota {n})"
            ),
            2 => format!("map2 (-) {g} (reverse {g})"),
            3 => format!("map (\\{c} -> {c} + {tn}.i64 {i}) (rotate 1 {g})"),
            _ => format!("map ({tn}.max ({tn}.i64 {i})) {g}"),
        };
        let head = format!("(let {g0} = ");
        if self.rng.chance(0.3) {
            // The rows of a matrix of copies, the loop over the matrix.
            let (rows, row) = (self.rng.range(0, 4), self.name("row"));
            let per_row = body.replace(&g, &row);
            let e = Expr::node(ranked(t, 2))
                .t(&head)
                .e(src)
                .t(&format!(
                    " in let {g0} = replicate {rows}i64 {g0} in loop {g} = {g0} for {i} < {trips} do map (\\{row} -> {per_row}) {g})"
                ))
                .inexact(inexact);
            return Some((e, self.new_size()));
        }
        let tail = match self.rng.below(3) {
            0 => format!("map2 (+) ({g}) {g0}"),
            _ => g.clone(),
        };
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&head)
            .e(src)
            .t(&format!(
                " in let {g} = loop {g} = {g0} for {i} < {trips} do {body} in {tail})"
            ))
            .inexact(inexact);
        Some((e, size))
    }

    /// A shift `c` for `(i + c) % n`: those `loopy::wrap` takes (0, 1, `s
    /// % n`) mostly, others (2, `n`, -1, a scalar) sometimes.
    fn remainder_shift(&mut self, env: &Env, n: &str) -> String {
        let s = match self.rng.below(4) {
            0 => self.exact(env, I64, 1).text(),
            1 => format!("{}i64", self.rng.pick(&[-7, -1, 3, 100])),
            2 => self.rng.pick(&["i64.highest", "i64.lowest"]).to_string(),
            _ => n.to_string(),
        };
        match self.rng.below(8) {
            0 => "0i64".into(),
            1 | 2 => "1i64".into(),
            3..=5 => format!("({s} % {n})"),
            6 => self.rng.pick(&["2i64", "(-1i64)"]).to_string(),
            _ => s,
        }
    }

    /// `map (\i -> xs[(i + c) % n] + xs[(i + n - 1) % n]) (iota n)` and
    /// friends over a vector, or over each row of a matrix; the shift
    /// computed before the map sometimes (dividing by an empty length:
    /// only when risky).
    fn wrapped_reads(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, U16, F32, F64]);
        let (xs, n, i, c) = (
            self.name("xs"),
            self.name("n"),
            self.name("i"),
            self.name("c"),
        );
        let shift = self.remainder_shift(env, &n);
        let before = self.risky();
        let (bind, shift) = if before {
            (format!("let {c} = {shift} in "), c.clone())
        } else {
            (String::new(), shift)
        };
        let read = match self.rng.below(4) {
            0 => format!("{xs}[({i} + {shift}) % {n}]"),
            1 => format!("{xs}[({shift} + {i}) % {n}]"),
            2 => format!("{xs}[({i} + {shift}) % {n}] - {xs}[({i} + {n} - 1) % {n}]"),
            _ => format!("{xs}[{i}] + {xs}[({i} + 1) % {n}] + {xs}[({i} + {shift}) % {n}]"),
        };
        let map = match self.rng.below(3) {
            0 => format!("map (\\{i} -> {read}) (iota {n})"),
            1 => format!("tabulate {n} (\\{i} -> {read})"),
            _ => {
                let x = self.name("x");
                format!("map2 (\\{x} {i} -> {x} * {read}) {xs} (iota {n})")
            }
        };
        if self.rng.chance(0.3) {
            let (rows, _) = self.dim(env, &[0, 1, 2, 7, 33]);
            let (cols, _) = self.dim(env, &[0, 1, 2, 5, 16, 17, 64]);
            let (m, _) = self.matrix(env, t, (&rows, &cols), false);
            let e = Expr::node(ranked(t, 2))
                .t("(map (\\")
                .t(&format!("{xs} -> let {n} = length {xs} in {bind}{map}) "))
                .e(m)
                .t(")");
            return Some((e, self.new_size()));
        }
        let (src, size) = self.array1(env, t, 2, None);
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {xs} = "))
            .e(src)
            .t(&format!(" in let {n} = length {xs} in {bind}{map})"));
        Some((e, size))
    }

    /// `flatten (map (\a -> let p = f a in map (\b -> g p b) ys) xs)`
    /// over an entry's argument or an `iota` (a SOAC making the outer
    /// map's input would keep the nest), returned, mapped, or unflattened
    /// again and mapped by rows.
    fn flat_nest(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let u = self.num_type();
        let (xv, yv, a, b, p, q) = (
            self.name("xs"),
            self.name("ys"),
            self.name("a"),
            self.name("b"),
            self.name("p"),
            self.name("q"),
        );
        let m = *self.rng.pick(NEST);
        let (xs, t, _) = self.stencil_source(env);
        let (xs, t) = if xs.text().starts_with("in") && self.rng.chance(0.7) {
            (xs, t)
        } else {
            let n = *self.rng.pick(NEST);
            (
                Expr::leaf(Ty::arr(Ty::S(I64)), format!("(iota {n}i64)")),
                I64,
            )
        };
        let ys = if self.rng.chance(0.5) {
            format!("(iota {m}i64)")
        } else {
            format!("(map (\\{q} -> {q} * 2i64 - 3i64) (iota {m}i64))")
        };
        let inner = with_scalars(env, &[(&a, t)], false);
        let f = self.exact(&inner, t, 1);
        let inner = with_scalars(&inner, &[(&p, t), (&b, I64)], false);
        let g = self.exact(&inner, u, 2);
        let nest = Expr::node(Ty::arr(Ty::S(u)))
            .t(&format!("flatten (map (\\{a} -> let {p} = "))
            .e(f)
            .t(&format!(" in map (\\{b} -> "))
            .e(g)
            .t(&format!(") {yv}) {xv})"));
        let inner = with_scalars(env, &[(&q, u)], false);
        let h = self.exact(&inner, u, 1);
        let (ty, form) = match self.rng.below(3) {
            0 => (Ty::arr(Ty::S(u)), nest),
            1 => (
                Ty::arr(Ty::S(u)),
                Expr::node(Ty::arr(Ty::S(u)))
                    .t(&format!("map (\\{q} -> "))
                    .e(h)
                    .t(") (")
                    .e(nest)
                    .t(")"),
            ),
            _ => {
                let row = self.name("row");
                let e = Expr::node(ranked(u, 2))
                    .t(&format!("map (\\{row} -> map (\\{q} -> "))
                    .e(h)
                    .t(&format!(") {row}) (unflatten (length {xv}) {m}i64 ("))
                    .e(nest)
                    .t("))");
                (ranked(u, 2), e)
            }
        };
        let e = Expr::node(ty)
            .t(&format!("(let {xv} = "))
            .e(xs)
            .t(&format!(" in let {yv} = {ys} in "))
            .e(form)
            .t(")");
        Some((e, self.new_size()))
    }

    /// An operator for the reductions and scans here: `Gen::op`'s, with a
    /// float `*` taken as `+` (a reassociated product may overflow in one
    /// order only); whether it is a float sum.
    pub(super) fn row_op(&mut self, t: ScalarType, commutative: bool) -> (Op, bool) {
        let mut op = self.op(t, commutative);
        if t.is_float() && op.text == "(*)" {
            op.text = "(+)".into();
            op.ne = zero(t);
        }
        let sum = t.is_float() && op.text == "(+)";
        (op, sum)
    }

    /// `map (\c -> reduce op ne (map2 f c v)) (transpose a)`, by
    /// `tabulate` and indices too, a prologue per column sometimes.
    fn column_reduction(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, U8, I16, F32, F64]);
        let (k, _) = self.dim(env, COLUMN_ROWS);
        let (m, _) = self.dim(env, COLUMNS);
        let (kv, mv, av, vv) = (
            self.name("k"),
            self.name("m"),
            self.name("a"),
            self.name("v"),
        );
        let (a, a_small) = self.matrix(env, t, (&kv, &mv), t.is_float());
        let i = self.name("i");
        let (ve, v_small) = self.cycling_element(env, t, std::slice::from_ref(&i), t.is_float());
        let (op, sum) = self.row_op(t, false);
        let max = format!("{}.max", t.name());
        let f = self
            .rng
            .pick(&["(*)", "(+)", "(-)", max.as_str()])
            .to_string();
        let (c, j, q, s) = (
            self.name("c"),
            self.name("j"),
            self.name("q"),
            self.name("s"),
        );
        let (o, ne) = (&op.text, &op.ne);
        let form = match self.rng.below(4) {
            0 => format!("map (\\{c} -> reduce {o} {ne} (map2 {f} {c} {vv})) (transpose {av})"),
            1 => format!(
                "tabulate {mv} (\\{j} -> reduce {o} {ne} (map (\\{q} -> {f} {av}[{q}, {j}] {vv}[{q}]) (iota {kv})))"
            ),
            2 => format!(
                "map2 (\\{c} {j} -> let {s} = {}.i64 {j} in {s} + reduce {o} {ne} (map2 {f} {c} {vv})) (transpose {av}) (iota {mv})",
                t.name()
            ),
            _ => format!(
                "map (\\{c} -> reduce {o} {ne} (map2 {f} {c} {vv})) (transpose (map (map (\\{q} -> {q} + {q})) {av}))"
            ),
        };
        let e = vector_and_matrix(t, [&kv, &mv, &av, &vv, &i], (&k, &m), (a, ve), &form)
            .inexact(sum && !(a_small && v_small));
        Some((e, self.new_size()))
    }

    /// `map (\row -> scan op ne row) xss` over one to three long rows, or
    /// a scan after the row's maximum, of composed affine pairs, or after
    /// a gather from a table of ten (out of range when risky).
    fn long_row_scan(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, U8, I16, U32, F32, F64]);
        let (rows, _) = self.dim(env, SCAN_ROWS);
        let cols = format!("{}i64", self.rng.pick(SCAN_WIDTHS));
        let (m, small) = self.matrix(env, t, (&rows, &cols), t.is_float());
        let (op, sum) = self.row_op(t, false);
        let (o, ne, tn) = (&op.text, &op.ne, t.name());
        let (xss, row, x, mx) = (
            self.name("xss"),
            self.name("row"),
            self.name("x"),
            self.name("m"),
        );
        let body = match self.rng.below(4) {
            0 if !t.is_float() => format!(
                "map (\\(p, q) -> p * 3{tn} + q) (scan (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1{tn}, 0{tn}) (map (\\{x} -> ({x} % 3{tn}, {x})) {row}))"
            ),
            1 if !t.is_float() => format!(
                "let {mx} = reduce {tn}.max {tn}.lowest {row} in scan (+) 0{tn} (map (\\{x} -> {mx} - {x}) {row})"
            ),
            2 => {
                let at = if self.risky() {
                    format!("i64.{tn} {x} % 12")
                } else {
                    format!("i64.{tn} {x} % 10")
                };
                let at = if t.is_float() {
                    format!("(i64.{tn} {x}) % 10")
                } else {
                    at
                };
                format!(
                    "scan {o} {ne} (map (\\{x} -> {x} + {tn}.i64 (iota 10)[{at}]) {row})"
                )
            }
            _ => format!("scan {o} {ne} {row}"),
        };
        // A float `+` over the table's integers is still exact.
        let e = Expr::node(ranked(t, 2))
            .t(&format!("(let {xss} = "))
            .e(m)
            .t(&format!(" in map (\\{row} -> {body}) {xss})"))
            .inexact(sum && !small);
        Some((e, self.new_size()))
    }
}
