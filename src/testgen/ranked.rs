//! Arrays of rank 2 and 3 for the generator, by one rank-generic
//! function: variables, maps to rows or blocks of one shape, `tabulate_2d`
//! and `tabulate_3d`, `replicate` of a lower-rank array, `transpose`,
//! `unflatten`, `with` updates at a full index, `reverse` and `rotate`
//! (of the array and of each row); the arms only one rank has (per-row
//! SOACs, `outer`, rank reductions of rank-3 arrays) are marked so.

use super::arrays::var_expr;
use super::ast::{Expr, Ty};
use super::gen::{map_of, Env, Gen, Made};
use crate::types::ScalarType;
use ScalarType::*;

/// The type of a rank-`rank` array of `t`.
pub fn ranked(t: ScalarType, rank: usize) -> Ty {
    (0..rank).fold(Ty::S(t), |e, _| Ty::arr(e))
}

impl Gen {
    /// A two-dimensional array of `t`; of length class `want` if given.
    pub fn array2(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> (Expr, u32) {
        self.array_n(2, env, t, d, want)
    }

    /// A three-dimensional array of `t`; of length class `want` if given.
    pub fn array3(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> (Expr, u32) {
        self.array_n(3, env, t, d, want)
    }

    /// An array of rank `rank` (2 or 3) of `t`.
    fn array_n(
        &mut self,
        rank: usize,
        env: &Env,
        t: ScalarType,
        d: u32,
        want: Option<u32>,
    ) -> (Expr, u32) {
        // Weights per arm of `ranked_option`: the rank-2 column keeps the
        // old array2's mix, the rank-3 one the old array3's.
        const W2: [u32; 14] = [5, 3, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 2, 1];
        const W3: [u32; 14] = [4, 3, 3, 2, 2, 1, 1, 3, 0, 0, 0, 1, 0, 1];
        let weights = if rank == 2 { &W2 } else { &W3 };
        for _ in 0..10 {
            let k = self.rng.weighted(weights);
            if let Some((e, s)) = self.ranked_option(k, rank, env, t, d, want) {
                if want.is_none_or(|w| w == s) {
                    return (e, s);
                }
            }
        }
        // A constant block per element of an array of the wanted class.
        let size = want.unwrap_or_else(|| self.new_size());
        let src = env
            .iter()
            .find(|x| x.size == size && matches!(x.ty, Ty::Arr(_)))
            .map(var_expr)
            .unwrap_or_else(|| Expr::leaf(Ty::arr(Ty::S(I64)), "(iota 2i64)"));
        let v = self.lit(t);
        let reps = "replicate 3i64 (".repeat(rank - 1);
        (
            Expr::node(ranked(t, rank))
                .t(&format!("(map (\\_ -> {reps}"))
                .e(v)
                .t(&")".repeat(rank - 1))
                .t(") ")
                .e(src)
                .t(")"),
            size,
        )
    }

    /// An array of rank `rank - 1`: `array1` or `array_n`.
    fn lower(&mut self, rank: usize, env: &Env, t: ScalarType, d: u32) -> (Expr, u32) {
        if rank == 2 {
            self.array1(env, t, d, None)
        } else {
            self.array_n(rank - 1, env, t, d, None)
        }
    }

    fn ranked_option(
        &mut self,
        k: usize,
        rank: usize,
        env: &Env,
        t: ScalarType,
        d: u32,
        want: Option<u32>,
    ) -> Made {
        let ty = ranked(t, rank);
        let dd = d.saturating_sub(1);
        match k {
            0 => self.var_of(env, &ty, want),
            1 if d > 0 => {
                // A map whose results all have one shape.
                let (src, size) = match want {
                    Some(w) => self
                        .array_of_size(env, dd, w)
                        .unwrap_or_else(|| self.any_array(env, dd)),
                    None => self.any_array(env, dd),
                };
                let elem = src.ty.elem().cloned().unwrap_or(Ty::S(I64));
                let (inner, x) = self.bind(env, "o", elem, size);
                let block = if rank == 2 {
                    self.fixed_row(&inner, env, t, dd)
                } else {
                    self.tabulate(&inner, rank - 1, t, dd, "")
                };
                let attr = self.attr(true);
                Some((map_of(ty, attr, &x, block, src), size))
            }
            2 if want.is_none() => Some((self.tabulate(env, rank, t, dd, "("), self.new_size())),
            3 if want.is_none() && d > 0 => {
                let (inner, _) = self.lower(rank, env, t, dd);
                let n = self.rng.range(0, 3);
                Some((
                    Expr::node(ty)
                        .t(&format!("(replicate {n}i64 "))
                        .e(inner)
                        .t(")"),
                    self.new_size(),
                ))
            }
            4 if want.is_none() && d > 0 => {
                let (a, _) = self.array_n(rank, env, t, dd, None);
                Some((Expr::node(ty).t("(transpose ").e(a).t(")"), self.new_size()))
            }
            5 if want.is_none() && d > 0 => {
                // The outer dimension of a lower-rank array split in two:
                // checked at run time when risky.
                let (xs, _) = self.lower(rank, env, t, dd);
                let (wrap, v) = self.shared(env, xs);
                let e = if self.risky() {
                    Expr::node(ty).t(&format!("(unflatten 2i64 2i64 {v})"))
                } else {
                    Expr::node(ty).t(&format!(
                        "(unflatten 2i64 (length {v} / 2i64) (take (2i64 * (length {v} / 2i64)) {v}))"
                    ))
                };
                Some((wrap(e), self.new_size()))
            }
            6 if d > 0 => {
                // `with` at a full index, each guarded unless risky.
                let (a, size) = self.array_n(rank, env, t, dd, want);
                let (wrap, v) = self.shared(env, a);
                let mut idx = Vec::new();
                let mut any_guard = false;
                let mut empty = Vec::new();
                for r in 0..rank {
                    let zeros = vec!["0"; r].join(", ");
                    let len = if r == 0 {
                        format!("length {v}")
                    } else {
                        format!("length {v}[{zeros}]")
                    };
                    let (i, g) = self.index(env, &len, dd);
                    any_guard |= g;
                    idx.push(i);
                    empty.push(format!("{len} == 0"));
                }
                let x = self.scalar(env, t, dd);
                let mut upd = Expr::node(ty.clone()).t(&format!("({v} with ["));
                for (n, i) in idx.into_iter().enumerate() {
                    upd = upd.t(if n == 0 { "" } else { ", " }).e(i);
                }
                let upd = upd.t("] = ").e(x).t(")");
                let e = if any_guard {
                    Expr::node(ty)
                        .t(&format!("(if {} then {v} else ", empty.join(" || ")))
                        .e(upd)
                        .t(")")
                } else {
                    upd
                };
                Some((wrap(e), size))
            }
            7 if d > 0 => {
                let (a, size) = self.array_n(rank, env, t, dd, want);
                let e = match self.rng.below(if rank == 3 { 4 } else { 3 }) {
                    0 => Expr::node(ty).t("(reverse ").e(a).t(")"),
                    1 => {
                        let r = self.exact(env, I64, dd);
                        Expr::node(ty).t("(rotate ").e(r).t(" ").e(a).t(")")
                    }
                    2 => Expr::node(ty).t("(map reverse ").e(a).t(")"),
                    _ => Expr::node(ty).t("(map transpose ").e(a).t(")"),
                };
                Some((e, size))
            }
            // Rank 2 only: a SOAC per row, `outer`, and rank-3 arrays reduced.
            8 if rank == 2 && d > 0 => self.rows_map(env, t, dd, want),
            9 if rank == 2 && want.is_none() && d > 0 && t != Bool => {
                let (xs, _) = self.array1(env, t, dd, None);
                let (ys, _) = self.array1(env, t, dd, None);
                Some((
                    Expr::node(ty).t("(outer ").e(xs).t(" ").e(ys).t(")"),
                    self.new_size(),
                ))
            }
            10 if rank == 2 && d > 0 => self.array2_from3(env, t, dd, want),
            11 if want.is_none() && d > 0 => self.slice_n(rank, env, t, dd),
            12 if rank == 2 && d > 0 => self.grown_array2(env, t, dd, want),
            13 if d > 0 => self.prelude_ranked(rank, env, t, dd, want),
            _ => None,
        }
    }

    /// `tabulate_2d` or `tabulate_3d` of small constant sizes; `open` is
    /// put before it (a parenthesis, or nothing inside a lambda).
    fn tabulate(&mut self, env: &Env, rank: usize, t: ScalarType, d: u32, open: &str) -> Expr {
        let mut inner = env.clone();
        let mut sizes = Vec::new();
        let mut names = Vec::new();
        for p in ["a", "b", "c"].iter().take(rank) {
            sizes.push(format!("{}i64", self.rng.range(0, 4)));
            let (e, n) = self.bind(&inner, p, Ty::S(I64), 0);
            inner = e;
            names.push(n);
        }
        let body = self.scalar(&inner, t, d);
        let close = if open.is_empty() { ")" } else { "))" };
        Expr::node(ranked(t, rank))
            .t(&format!(
                "{open}tabulate_{rank}d {} (\\{} -> ",
                sizes.join(" "),
                names.join(" ")
            ))
            .e(body)
            .t(close)
    }

    /// A map over the rows of a matrix: a scan, a reversal or a new row
    /// as long as the old.
    fn rows_map(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = ranked(t, 2);
        let (m, size) = self.array_n(2, env, t, d, want);
        let (inner, r) = self.bind(env, "row", Ty::arr(Ty::S(t)), 0);
        let rv = Expr::leaf(Ty::arr(Ty::S(t)), &r);
        let body = match self.rng.below(3) {
            0 => {
                let op = self.op(t, false);
                Expr::node(Ty::arr(Ty::S(t)))
                    .t(&format!("scan {} {} {r}", op.text, op.ne))
                    .inexact(t.is_float())
            }
            1 => Expr::node(Ty::arr(Ty::S(t))).t(&format!("reverse {r}")),
            _ => self.same_size(&inner, t, d, 0, &rv),
        };
        Some((
            Expr::node(ty)
                .t(&format!("(map (\\{r} -> "))
                .e(body)
                .t(") ")
                .e(m)
                .t(")"),
            size,
        ))
    }
}
