//! Statements shaped for the newest kernels: matrix products (nests of
//! `map`, `map` and a `reduce` of `*` and `+` over rows and columns, which
//! the CPU runs as blocked dot products or, on Intel cores with AVX-512,
//! as outer products: `loopy::outer`), sums and dot products of more than
//! a block of 16,384 floats (the runtime folds them block by block:
//! `reduce_block`), and reductions of the rows of a matrix with a long
//! outer dimension (`reduce (map2 op) ne xss`, which the GPU cuts into
//! chunks and a combine: `codegen::gpu::column_tree`). Sizes straddle the
//! kernels' 6 rows, 64-column panels and blocks.
//!
//! Elements are often small multiples of a half: their sums and products
//! are exact in any order, so those results are compared bit for bit and
//! a lost or repeated block, row or panel shows even in floats. Other
//! elements come from the generator, and float products of them are
//! inexact; long float reductions take only the small multiples, since
//! the rounding of thousands of terms that cancel leaves the tolerance.

use super::ast::{Expr, Ty};
use super::gen::{Env, Gen};
use super::ranked::ranked;
use crate::types::ScalarType;
use ScalarType::*;

/// A matrix product's dimensions: around the outer-product kernel's 6
/// rows and 64-column panels, odd ones, and none.
const PRODUCT_DIMS: &[i64] = &[
    0, 1, 2, 5, 6, 7, 12, 13, 31, 63, 64, 65, 67, 96, 127, 128, 129, 131, 200,
];

/// Most multiply-adds of one product, so that the interpreter keeps up.
const PRODUCT_WORK: i64 = 600_000;

/// Lengths of long reductions, around the 16,384 values of a block.
const LONG: &[i64] = &[
    16_383, 16_384, 16_385, 20_000, 32_767, 32_768, 32_769, 49_153,
];

/// Rows of a reduction of rows: many, for few columns.
const MANY_ROWS: &[i64] = &[1_000, 4_095, 4_096, 4_097, 10_000, 16_385, 30_000];
const FEW_COLUMNS: &[i64] = &[0, 1, 2, 3, 5, 7, 8, 9, 16, 33, 64];

/// Most elements of a matrix whose rows are reduced.
const ROWS_WORK: i64 = 300_000;

impl Gen {
    /// An expression for one of the kernels above and its length class.
    pub fn kernel_shape(&mut self, env: &Env) -> (Expr, u32) {
        match self.rng.below(4) {
            0 | 1 => self.product(env),
            2 => self.long_sum(env),
            _ => self.row_reduction(env),
        }
    }

    /// A dimension from `sizes`, sometimes plus an input's length modulo
    /// 4 (known only at run time): its text and its largest value.
    pub(super) fn dim(&mut self, env: &Env, sizes: &[i64]) -> (String, i64) {
        let n = *self.rng.pick(sizes);
        let vectors: Vec<&str> = env
            .iter()
            .filter(|v| v.ty.scalar_rank().is_some_and(|(_, r)| r == 1))
            .map(|v| v.name.as_str())
            .collect();
        if !vectors.is_empty() && self.rng.chance(0.3) {
            let v = *self.rng.pick(&vectors);
            return (format!("({n}i64 + length {v} % 4)"), n + 3);
        }
        (format!("{n}i64"), n)
    }

    /// An element of type `t` at the indices `at` (`i64` names): a small
    /// multiple of a half (an integer for integer types) cycling with the
    /// indices, or (unless `exact`) any scalar of the generator. Whether it
    /// is the former.
    pub(super) fn cycling_element(
        &mut self,
        env: &Env,
        t: ScalarType,
        at: &[String],
        exact: bool,
    ) -> (Expr, bool) {
        let n = t.name();
        if exact || self.rng.chance(0.6) {
            let m = self.rng.range(2, 9);
            let terms: Vec<String> = at
                .iter()
                .map(|i| format!("{i} * {}", self.rng.range(1, 12)))
                .collect();
            let shift = self.rng.range(0, 7);
            let half = if t.is_float() {
                format!(" * 0.5{n}")
            } else {
                String::new()
            };
            let text = format!(
                "({n}.i64 (({} + {shift}) % {m} - {}){half})",
                terms.join(" + "),
                m / 2
            );
            return (Expr::leaf(Ty::S(t), text), true);
        }
        let mut inner = env.clone();
        for i in at {
            inner.push(super::ast::Var {
                name: i.clone(),
                ty: Ty::S(I64),
                inexact: false,
                size: 0,
            });
        }
        (self.scalar(&inner, t, 2), false)
    }

    /// `tabulate_2d rows cols (\i j -> e)` or a map over `iota` of a map
    /// over `iota`, of exact small values if `exact`; whether its elements
    /// are such.
    pub(super) fn matrix(
        &mut self,
        env: &Env,
        t: ScalarType,
        (rows, cols): (&str, &str),
        exact: bool,
    ) -> (Expr, bool) {
        let (i, j) = (self.name("i"), self.name("j"));
        let (e, small) = self.cycling_element(env, t, &[i.clone(), j.clone()], exact);
        let m = if self.rng.chance(0.5) {
            Expr::node(ranked(t, 2))
                .t(&format!("(tabulate_2d {rows} {cols} (\\{i} {j} -> "))
                .e(e)
                .t("))")
        } else {
            Expr::node(ranked(t, 2))
                .t(&format!("(map (\\{i} -> map (\\{j} -> "))
                .e(e)
                .t(&format!(") (iota {cols})) (iota {rows}))"))
        };
        (m, small)
    }

    /// A matrix product of tabulated matrices `a: [n][k]t` and `b` (given
    /// as `[k][m]t`, or by its rows against those of `a` as `[m][k]t`), or
    /// of `a` and its transpose, as a nest over rows and columns, `matmul`,
    /// or by indices. Only the product of `a` and its transpose reaches
    /// the blocked kernels: elsewhere fusion computes each row of `a`
    /// inside the product.
    fn product(&mut self, env: &Env) -> (Expr, u32) {
        let t = *self.rng.pick(&[F32, F32, F32, F64, F64, I32, I64, I16, U8]);
        let own = self.rng.chance(0.5);
        let [n, k, m] = loop {
            let mut dims = [(); 3].map(|_| self.dim(env, PRODUCT_DIMS));
            if own {
                dims[2] = dims[0].clone();
            }
            if dims.iter().map(|d| d.1).product::<i64>() <= PRODUCT_WORK {
                break dims.map(|d| d.0);
            }
        };
        let (nv, kv, mv) = (self.name("n"), self.name("k"), self.name("m"));
        let (av, bv) = (self.name("a"), self.name("b"));
        let by_rows = own || self.rng.chance(0.4);
        let (a, a_small) = self.matrix(env, t, (&nv, &kv), false);
        let mut e = Expr::node(ranked(t, 2))
            .t(&format!("(let {nv} = {n} in let {kv} = {k} in let {av} = "))
            .e(a);
        let (bv, b_small) = if own {
            (av.clone(), true)
        } else {
            let (b, b_small) = if by_rows {
                self.matrix(env, t, (&mv, &kv), false)
            } else {
                self.matrix(env, t, (&kv, &mv), false)
            };
            e = e.t(&format!(" in let {mv} = {m} in let {bv} = ")).e(b);
            (bv, b_small)
        };
        let mv = if own { nv.clone() } else { mv };
        let (r, c) = (self.name("r"), self.name("c"));
        let z = super::gen::zero(t);
        let dot = match self.rng.below(4) {
            0 => format!("reduce (+) {z} (map2 (*) {r} {c})"),
            1 => format!("dot {r} {c}"),
            2 => format!("sum (map2 (*) {r} {c})"),
            _ => format!("reduce (+) {z} (map2 (\\x y -> y * x) {r} {c})"),
        };
        let (columns, transposed) = if by_rows {
            (bv.clone(), format!("(transpose {bv})"))
        } else {
            (format!("(transpose {bv})"), bv.clone())
        };
        let (i, j, q) = (self.name("i"), self.name("j"), self.name("q"));
        let b_at = if by_rows {
            format!("{bv}[{j}, {q}]")
        } else {
            format!("{bv}[{q}, {j}]")
        };
        let form = match self.rng.below(4) {
            0 | 1 => format!("map (\\{r} -> map (\\{c} -> {dot}) {columns}) {av}"),
            2 => format!("matmul {av} {transposed}"),
            _ => format!(
                "tabulate_2d {nv} {mv} (\\{i} {j} -> reduce (+) {z} (map (\\{q} -> {av}[{i}, {q}] * {b_at}) (iota {kv})))"
            ),
        };
        let e = e
            .t(&format!(" in {form})"))
            .inexact(t.is_float() && !(a_small && b_small));
        (e, self.new_size())
    }

    /// A sum, a sum of squares or a dot product of more than a block of
    /// floats (or integers); the sums of each row of a matrix of such rows.
    fn long_sum(&mut self, env: &Env) -> (Expr, u32) {
        let t = *self.rng.pick(&[F32, F32, F32, F64, I32]);
        let (len, _) = self.dim(env, LONG);
        let (lv, xv, yv) = (self.name("l"), self.name("xs"), self.name("ys"));
        let z = super::gen::zero(t);
        let vector = |g: &mut Gen| {
            let i = g.name("i");
            let (e, small) = g.cycling_element(env, t, std::slice::from_ref(&i), t.is_float());
            let v = Expr::node(Ty::arr(Ty::S(t)))
                .t(&format!("(map (\\{i} -> "))
                .e(e)
                .t(&format!(") (iota {lv}))"));
            (v, small)
        };
        if self.rng.chance(0.25) {
            // Each row's sum: rows of a block and more, a few of them.
            let rows = self.rng.range(1, 5);
            let (m, small) = self.matrix(env, t, (&format!("{rows}i64"), &lv), t.is_float());
            let r = self.name("r");
            let sum = if self.rng.chance(0.5) {
                format!("sum {r}")
            } else {
                format!("reduce (+) {z} {r}")
            };
            let e = Expr::node(Ty::arr(Ty::S(t)))
                .t(&format!("(let {lv} = {len} in map (\\{r} -> {sum}) "))
                .e(m)
                .t(")")
                .inexact(t.is_float() && !small);
            return (e, self.new_size());
        }
        let (xs, x_small) = vector(self);
        let mut e = Expr::node(Ty::S(t))
            .t(&format!("(let {lv} = {len} in let {xv} = "))
            .e(xs);
        let (body, small) = match self.rng.below(4) {
            0 => (format!("sum {xv}"), x_small),
            1 => (format!("reduce (+) {z} (map (\\x -> x * x) {xv})"), x_small),
            k => {
                let (ys, y_small) = vector(self);
                e = e.t(&format!(" in let {yv} = ")).e(ys);
                let body = if k == 2 {
                    format!("dot {xv} {yv}")
                } else {
                    format!("reduce (+) {z} (map2 (*) {xv} {yv})")
                };
                (body, x_small && y_small)
            }
        };
        let e = e.t(&format!(" in {body})")).inexact(t.is_float() && !small);
        (e, 0)
    }

    /// `reduce (map2 op) (replicate c ne) xss` over many rows of few
    /// columns, by a local function with the matrix's sizes.
    fn row_reduction(&mut self, env: &Env) -> (Expr, u32) {
        let t = *self.rng.pick(&[F32, F32, F64, I32, I64, I16, U8]);
        let ((rows, _), (cols, _)) = loop {
            let (r, c) = (self.dim(env, MANY_ROWS), self.dim(env, FEW_COLUMNS));
            if r.1 * c.1 <= ROWS_WORK {
                break (r, c);
            }
        };
        let mut op = self.op(t, false);
        // A reassociated product of many floats may overflow in one order
        // and not in another: sums instead.
        if t.is_float() && op.text == "(*)" {
            op = self.op(t, true);
            if op.text == "(*)" {
                op.text = "(+)".into();
                op.ne = super::gen::zero(t);
            }
        }
        let (m, small) = self.matrix(env, t, (&rows, &cols), t.is_float());
        let (f, r, c, xss) = (
            self.name("columns"),
            self.name("r"),
            self.name("c"),
            self.name("xss"),
        );
        let nt = t.name();
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!(
                "(let {f} [{r}][{c}] ({xss}: [{r}][{c}]{nt}) : [{c}]{nt} = reduce (map2 {}) (replicate {c} {}) {xss} in {f} ",
                op.text, op.ne
            ))
            .e(m)
            .t(")")
            .inexact(t.is_float() && op.text == "(+)" && !small);
        (e, self.new_size())
    }
}
