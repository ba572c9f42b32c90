//! Statements shaped for the passes of the ninth sweep's session, which the
//! other generators reach rarely or not at all:
//!
//! - maps over `iota (n * m)` that split their index by `k / m` and `k % m`
//!   (and read `k` too), `unflatten n m` of the result or not, with `n` and
//!   `m` constants or the sizes of a rank-2 array bound by `let [n][m]`, and
//!   bodies that can fail (`simplify-flat-index`);
//! - matrix products whose left, right or both operands a `map (map f)`
//!   makes just before (`fusion::rows::product_operand`);
//! - reductions whose operator can fail (a division by a scalar that may be
//!   zero, an assertion on a sum of non-negative values), whole or per row,
//!   after a map that can fail: the GPU's block tree must report the first
//!   error in sequential order;
//! - a map over `flatten` of a map nest (`fusion::reshape::compose_into_nests`),
//!   `unflatten` of that by the nest's sizes, then transposed and mapped
//!   (size classes through `unflatten`).

use super::ast::{Expr, Ty, Var};
use super::gen::{zero, Env, Gen};
use super::ranked::ranked;
use super::rewrites::with_scalars;
use crate::types::ScalarType;
use ScalarType::*;

/// Dimensions of flat-index nests and products: none, one, odd and round.
const NEST_DIMS: &[i64] = &[0, 1, 2, 3, 5, 7, 8, 16, 17, 31, 64, 65];

/// Lengths of reductions whose operator can fail: around the emulator's
/// shrunk 64-thread blocks and more than three of them.
const REDUCE_LENGTHS: &[i64] = &[0, 1, 2, 63, 64, 65, 127, 191, 192, 193, 1000, 5000];

impl Gen {
    /// An expression for one of the shapes above and its length class.
    pub fn nest_shape(&mut self, env: &Env) -> Option<(Expr, u32)> {
        match self.rng.below(4) {
            0 => self.flat_index(env),
            1 => self.mapped_product(env),
            2 => self.failing_reduction(env),
            _ => self.map_of_flat_nest(env),
        }
    }

    /// `unflatten n m (map (\k -> let i = k / m let j = k % m in e) (iota
    /// (n * m)))`, by `tabulate` too, or without the `unflatten`; `e` over
    /// `i`, `j`, `k` and, where `n` and `m` are a matrix's sizes, its
    /// element at `[i, j]` (at a neighbour, out of range, when risky).
    fn flat_index(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.num_type();
        let (nv, mv, kv, iv, jv) = (
            self.name("n"),
            self.name("m"),
            self.name("k"),
            self.name("i"),
            self.name("j"),
        );
        let mut inner = with_scalars(env, &[(&kv, I64), (&iv, I64), (&jv, I64)], false);
        let mut matrices: Vec<&Var> = env
            .iter()
            .filter(|v| v.ty.scalar_rank().is_some_and(|(u, r)| r == 2 && u != Bool) && !v.inexact)
            .collect();
        // The pass splits only the sizes of an entry's parameter (`in0`, ...):
        // those mostly, when there are some.
        if matrices.iter().any(|v| v.name.starts_with("in")) && self.rng.chance(0.8) {
            matrices.retain(|v| v.name.starts_with("in"));
        }
        let (prefix, element) = if !matrices.is_empty() && self.rng.chance(0.6) {
            let g = (*self.rng.pick(&matrices)).clone();
            let (u, _) = g.ty.scalar_rank()?;
            let (gv, ev) = (self.name("g"), self.name("e"));
            let at = if self.risky() {
                self.rng
                    .pick(&[
                        format!("{iv}, {jv} + 1"),
                        format!("{jv}, {iv}"),
                        format!("{iv} + 1, {jv}"),
                    ])
                    .clone()
            } else {
                format!("{iv}, {jv}")
            };
            inner = with_scalars(&inner, &[(&ev, u)], false);
            let prefix = format!(
                "let [{nv}][{mv}] ({gv}: [{nv}][{mv}]{}) = {} in ",
                u.name(),
                g.name
            );
            (prefix, Some((ev, u, format!("{gv}[{at}]"))))
        } else {
            let n = self.rng.pick(NEST_DIMS);
            let m = self.rng.pick(NEST_DIMS);
            (format!("let {nv} = {n}i64 in let {mv} = {m}i64 in "), None)
        };
        let mut body = self.scalar(&inner, t, 2);
        if self.rng.chance(0.7) {
            // `i` and `j` used, lest their division and remainder be dead.
            let c = self.rng.range(1, 9);
            body = Expr::node(Ty::S(t))
                .t(&format!("({}.i64 ({iv} * {c} + {jv}) + ", t.name()))
                .e(body)
                .t(")");
        }
        let mut bind = format!("let {iv} = {kv} / {mv} let {jv} = {kv} % {mv}");
        if let Some((ev, u, at)) = element {
            // The element always counts, so that the read is not dead.
            bind.push_str(&format!(" let {ev} = {at}"));
            let elem = if u == t {
                ev
            } else {
                format!("{}.{} {ev}", t.name(), u.name())
            };
            body = Expr::node(Ty::S(t))
                .t(&format!("({elem} + "))
                .e(body)
                .t(")");
        }
        let width = if self.rng.chance(0.5) {
            format!("{nv} * {mv}")
        } else {
            format!("{mv} * {nv}")
        };
        let (head, tail) = if self.rng.chance(0.5) {
            (
                format!("map (\\{kv} -> {bind} in "),
                format!(") (iota ({width}))"),
            )
        } else {
            (
                format!("tabulate ({width}) (\\{kv} -> {bind} in "),
                ")".to_string(),
            )
        };
        let flat = Expr::node(Ty::arr(Ty::S(t))).t(&head).e(body).t(&tail);
        let e = if self.rng.chance(0.7) {
            Expr::node(ranked(t, 2))
                .t(&format!("({prefix}unflatten {nv} {mv} ("))
                .e(flat)
                .t("))")
        } else {
            Expr::node(Ty::arr(Ty::S(t)))
                .t(&format!("({prefix}"))
                .e(flat)
                .t(")")
        };
        Some((e, self.new_size()))
    }

    /// `a' = map (map f) a`, `b' = map (map g) b` (left, right or both),
    /// then `map (\r -> map (\c -> dot) (transpose b')) a'`: of tabulated
    /// matrices, or of a matrix in scope and itself (rows against rows).
    fn mapped_product(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[F32, F32, F64, I32, I64, F32]);
        let n = t.name();
        let z = zero(t);
        let side = self.rng.below(3);
        let (left, right) = (side != 1, side != 0);
        let (av, bv, a2, b2, x, r, c) = (
            self.name("a"),
            self.name("b"),
            self.name("a"),
            self.name("b"),
            self.name("x"),
            self.name("r"),
            self.name("c"),
        );
        let cheap = |g: &mut Gen, inexact: bool| -> (Expr, bool) {
            let exact_forms = if t.is_float() {
                [
                    format!("{x} * 2{n} + 1{n}"),
                    format!("{x} - 0.5{n}"),
                    format!("-{x}"),
                    format!("{n}.abs {x}"),
                ]
            } else {
                [
                    format!("{x} * 2{n} + 1{n}"),
                    format!("{x} - 3{n}"),
                    format!("-{x}"),
                    format!("{n}.max {x} 0{n}"),
                ]
            };
            if g.rng.chance(0.7) {
                let f = g.rng.pick(&exact_forms).clone();
                return (Expr::leaf(Ty::S(t), format!("({f})")), true);
            }
            let inner = with_scalars(env, &[(&x, t)], inexact);
            (g.scalar(&inner, t, 1), false)
        };
        let own: Vec<&Var> = env.iter().filter(|v| v.ty == ranked(t, 2)).collect();
        let mut e = Expr::node(ranked(t, 2));
        let (exact, columns);
        if !own.is_empty() && self.rng.chance(0.3) {
            // Rows against rows of one matrix: its product with its transpose.
            let m = (*self.rng.pick(&own)).clone();
            e = e.t(&format!("(let {av} = {} in let {bv} = {av}", m.name));
            exact = !t.is_float();
            columns = b2.clone();
        } else {
            let [nd, kd, md] = loop {
                let dims = [(); 3].map(|_| self.dim(env, NEST_DIMS));
                if dims.iter().map(|d| d.1).product::<i64>() <= 300_000 {
                    break dims.map(|d| d.0);
                }
            };
            let (nv, kv, mv) = (self.name("n"), self.name("k"), self.name("m"));
            let (a, a_small) = self.matrix(env, t, (&nv, &kv), false);
            let (b, b_small) = self.matrix(env, t, (&kv, &mv), false);
            e = e
                .t(&format!(
                    "(let {nv} = {nd} in let {kv} = {kd} in let {mv} = {md} in let {av} = "
                ))
                .e(a)
                .t(&format!(" in let {bv} = "))
                .e(b);
            exact = !t.is_float() || (a_small && b_small);
            columns = format!("(transpose {b2})");
        }
        let mut all_exact = exact;
        for (mapped, from, to) in [(left, &av, &a2), (right, &bv, &b2)] {
            if mapped {
                let (f, f_exact) = cheap(self, !exact);
                all_exact &= f_exact;
                e = e
                    .t(&format!(" in let {to} = map (map (\\{x} -> "))
                    .e(f)
                    .t(&format!(")) {from}"));
            } else {
                e = e.t(&format!(" in let {to} = {from}"));
            }
        }
        let dot = match self.rng.below(3) {
            0 => format!("{n}.sum (map2 (*) {r} {c})"),
            1 => format!("reduce (+) {z} (map2 (*) {r} {c})"),
            _ => format!("dot {r} {c}"),
        };
        let e = e
            .t(&format!(
                " in map (\\{r} -> map (\\{c} -> {dot}) {columns}) {a2})"
            ))
            .inexact(t.is_float() && !all_exact);
        Some((e, self.new_size()))
    }

    /// `reduce op ne (map f xs)` (or per row of a matrix) where `op` can
    /// fail: `a + b + 0 / z`, `assert (a + b <= lim) (a + b)` over values
    /// `f x & 63` (a sum of non-negative values exceeds `lim` somewhere in
    /// a tree exactly when it does in sequential order), or the
    /// composition of affine maps with a division (not commutative).
    fn failing_reduction(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[I32, I64, U32, I64, I32, U64]);
        let n = t.name();
        let (xv, zv) = (self.name("x"), self.name("z"));
        let per_row = self.rng.chance(0.3);
        let (src, size) = if per_row {
            self.array2(env, t, 1, None)
        } else if self.rng.chance(0.5) {
            let len = self.rng.pick(REDUCE_LENGTHS);
            let i = self.name("i");
            let (c, m) = (self.rng.range(1, 9), self.rng.range(2, 40));
            let e = Expr::leaf(
                Ty::arr(Ty::S(t)),
                format!("(map (\\{i} -> {n}.i64 ({i} * {c} % {m})) (iota {len}i64))"),
            );
            (e, self.new_size())
        } else {
            self.array1(env, t, 1, None)
        };
        if src.inexact {
            return None;
        }
        let inner = with_scalars(env, &[(&xv, t)], false);
        let f = self.exact(&inner, t, 1);
        let divisor = match self.rng.below(3) {
            0 => self.exact(env, t, 1),
            1 => Expr::leaf(Ty::S(t), format!("{}{n}", self.rng.range(0, 2))),
            _ => Expr::leaf(Ty::S(t), format!("{n}.i64 (length {xv}s % 3)")),
        };
        let (a, b, a1, b1, a2, b2) = (
            self.name("a"),
            self.name("b"),
            self.name("a"),
            self.name("b"),
            self.name("a"),
            self.name("b"),
        );
        let lim = *self.rng.pick(&[0i64, 5, 63, 100, 1000, 4000, 100_000]);
        let (op, ne, pairs) = match self.rng.below(3) {
            0 => (
                format!("(\\{a} {b} -> {a} + {b} + 0{n} / {zv})"),
                format!("0{n}"),
                false,
            ),
            1 => (
                format!("(\\{a} {b} -> assert ({a} + {b} <= {lim}{n}) ({a} + {b}))"),
                format!("0{n}"),
                false,
            ),
            _ => (
                format!(
                    "(\\({a1}, {b1}) ({a2}, {b2}) -> ({a1} * {a2}, {b1} * {a2} + {b2} + 0{n} / {zv}))"
                ),
                format!("(1{n}, 0{n})"),
                true,
            ),
        };
        let g = if pairs {
            self.exact(&inner, t, 1)
        } else {
            Expr::leaf(Ty::S(t), "0".to_string())
        };
        // One row (or the whole array) reduced: `{row}` names it.
        let reduce_of = |row: &str, f: Expr, g: Expr| -> Expr {
            let mapped = if pairs {
                Expr::node(Ty::S(t))
                    .t(&format!("(map (\\{xv} -> (("))
                    .e(f)
                    .t(&format!(") & 63{n}, "))
                    .e(g)
                    .t(&format!(")) {row})"))
            } else {
                Expr::node(Ty::S(t))
                    .t(&format!("(map (\\{xv} -> ("))
                    .e(f)
                    .t(&format!(") & 63{n}) {row})"))
            };
            let reduced = Expr::node(Ty::S(t))
                .t(&format!("reduce {op} {ne} "))
                .e(mapped);
            if pairs {
                Expr::node(Ty::S(t))
                    .t(&format!("(let ({a}, {b}) = "))
                    .e(reduced)
                    .t(&format!(" in {a} ^ {b})"))
            } else {
                Expr::node(Ty::S(t)).t("(").e(reduced).t(")")
            }
        };
        let xs = format!("{xv}s");
        let head = Expr::node(Ty::S(t))
            .t(&format!("(let {xs} = "))
            .e(src)
            .t(&format!(" in let {zv} = "))
            .e(divisor)
            .t(" in ");
        if per_row {
            let row = self.name("row");
            let e = Expr::node(Ty::arr(Ty::S(t)))
                .e(head)
                .t(&format!("map (\\{row} -> "))
                .e(reduce_of(&row, f, g))
                .t(&format!(") {xs})"));
            Some((e, size))
        } else {
            let e = Expr::node(Ty::S(t)).e(head).e(reduce_of(&xs, f, g)).t(")");
            Some((e, 0))
        }
    }

    /// `map h (flatten (map (\a -> map (\b -> f a b) ys) xs))` (or of a
    /// `tabulate_2d`), then maybe `unflatten` by the nest's sizes, maybe
    /// transposed and mapped by columns.
    fn map_of_flat_nest(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let (t1, t2, u, w) = (
            self.num_type(),
            self.num_type(),
            self.num_type(),
            self.num_type(),
        );
        let (xv, yv, a, b, y) = (
            self.name("xs"),
            self.name("ys"),
            self.name("a"),
            self.name("b"),
            self.name("y"),
        );
        let mut e = Expr::node(ranked(w, 2));
        let (rows, cols, row_size, col_size, nest_inexact);
        if self.rng.chance(0.7) {
            let (xs, xsize) = self.array1(env, t1, 1, None);
            let (ys, ysize) = self.array1(env, t2, 1, None);
            let inner = with_scalars(env, &[(&a, t1)], xs.inexact);
            let inner = with_scalars(&inner, &[(&b, t2)], ys.inexact);
            let f = self.scalar(&inner, u, 2);
            nest_inexact = f.inexact;
            e = e
                .t(&format!("(let {xv} = "))
                .e(xs)
                .t(&format!(" in let {yv} = "))
                .e(ys)
                .t(&format!(" in let nest = map (\\{a} -> map (\\{b} -> "))
                .e(f)
                .t(&format!(") {yv}) {xv}"));
            rows = format!("(length {xv})");
            cols = format!("(length {yv})");
            (row_size, col_size) = (xsize, ysize);
        } else {
            let (r, c) = (self.rng.pick(NEST_DIMS), self.rng.pick(NEST_DIMS));
            let inner = with_scalars(env, &[(&a, I64), (&b, I64)], false);
            let f = self.scalar(&inner, u, 2);
            nest_inexact = f.inexact;
            e = e
                .t(&format!(
                    "(let nest = tabulate_2d {r}i64 {c}i64 (\\{a} {b} -> "
                ))
                .e(f)
                .t(")");
            rows = format!("{r}i64");
            cols = format!("{c}i64");
            (row_size, col_size) = (self.new_size(), self.new_size());
        }
        let inner = with_scalars(env, &[(&y, u)], nest_inexact);
        let h = self.scalar(&inner, w, 2);
        let mapped = if self.rng.chance(0.5) {
            Expr::node(Ty::arr(Ty::S(w)))
                .t(&format!("(let flat = flatten nest in map (\\{y} -> "))
                .e(h)
                .t(") flat)")
        } else {
            Expr::node(Ty::arr(Ty::S(w)))
                .t(&format!("(nest |> flatten |> map (\\{y} -> "))
                .e(h)
                .t("))")
        };
        match self.rng.below(3) {
            0 => {
                let mut e = e.t(" in ").e(mapped).t(")");
                e.ty = Ty::arr(Ty::S(w));
                Some((e, self.new_size()))
            }
            1 => {
                let e = e
                    .t(&format!(" in unflatten {rows} {cols} "))
                    .e(mapped)
                    .t(")");
                Some((e, row_size))
            }
            _ => {
                let (col, q) = (self.name("col"), self.name("q"));
                let inner = with_scalars(env, &[(&q, w)], nest_inexact || mapped.inexact);
                let g = self.scalar(&inner, w, 1);
                let e = e
                    .t(&format!(" in map (\\{col} -> map (\\{q} -> "))
                    .e(g)
                    .t(&format!(") {col}) (transpose (unflatten {rows} {cols} "))
                    .e(mapped)
                    .t(")))");
                Some((e, col_size))
            }
        }
    }
}
