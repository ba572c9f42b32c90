//! Constructs of the language contract's sections 4, 5 and 10 that the
//! other generators never emitted: integer and float `**`, `pow`,
//! `atan2`, `hypot`, `fma`, `ldexp`, `copysign`, `nextafter`, float to
//! integer conversions at saturation, infinity and NaN, `round` of
//! halves, `get_bit`, record patterns in `let` and as loop state, `mean`,
//! `rotate` by multiples of the length and negative shifts, `radix_sort`,
//! `stencil_1d`, `stencil_2d`, `matmul`, `map5`, `zip3` and `unzip3`.

use super::ast::{Expr, Ty};
use super::gen::{Env, Gen, Made};
use crate::types::ScalarType;
use ScalarType::*;

impl Gen {
    /// A scalar from one of the contract's constructs.
    pub fn contract_scalar(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let ty = Ty::S(t);
        let n = t.name();
        match self.rng.below(8) {
            // Integer `**` wraps; a negative signed exponent is an error,
            // so it is masked non-negative unless left risky.
            0 if t.is_int() => {
                let a = self.scalar(env, t, d);
                let b = self.exact(env, t, d);
                let e = Expr::node(ty).t("(").e(a).t(" ** ");
                if t.is_signed() && !self.risky() {
                    Some(e.t("(").e(b).t(&format!(" & {n}.highest))")))
                } else {
                    Some(e.e(b).t(")"))
                }
            }
            0 if t.is_float() && t != F16 => {
                let a = self.exact(env, t, d);
                let b = self.exact(env, t, d);
                let e = match self.rng.below(4) {
                    0 => Expr::node(ty).t("(").e(a).t(" ** ").e(b).t(")"),
                    k => {
                        let f = ["pow", "atan2", "hypot"][k - 1];
                        Expr::call(ty, &format!("{n}.{f}"), [a, b])
                    }
                };
                Some(e.inexact(true))
            }
            // Correctly rounded, so exact on every backend.
            1 if t.is_float() => {
                let a = self.exact(env, t, d);
                let b = self.exact(env, t, d);
                match self.rng.below(4) {
                    0 => {
                        let c = self.exact(env, t, d);
                        Some(
                            Expr::node(ty)
                                .t(&format!("({n}.fma "))
                                .e(a)
                                .t(" ")
                                .e(b)
                                .t(" ")
                                .e(c)
                                .t(")"),
                        )
                    }
                    1 => {
                        let k = self.exact(env, I32, d);
                        Some(
                            Expr::node(ty)
                                .t(&format!("({n}.ldexp "))
                                .e(a)
                                .t(" ")
                                .e(k)
                                .t(")"),
                        )
                    }
                    2 => {
                        // The sign of a NaN differs between backends, so
                        // none reaches `copysign`'s second operand.
                        Some(
                            Expr::node(ty)
                                .t(&format!("({n}.copysign "))
                                .e(a)
                                .t(" (let s = ")
                                .e(b)
                                .t(&format!(" in if {n}.isnan s then 1{n} else s))")),
                        )
                    }
                    _ => {
                        let f = "nextafter";
                        Some(Expr::call(ty, &format!("{n}.{f}"), [a, b]))
                    }
                }
            }
            // Float to integer: truncation, saturation, NaN to 0.
            2 if t.is_int() => {
                let from = *self.rng.pick(&[F16, F32, F64]);
                let f = from.name();
                let big = *self.rng.pick(&[
                    "nan",
                    "inf",
                    "-inf",
                    "highest",
                    "lowest",
                    "1e10",
                    "-3e9",
                    "2147483647.5",
                    "-2147483648.75",
                    "4294967296.0",
                    "9.3e18",
                    "-9.3e18",
                    "1.8e19",
                    "255.9",
                    "-128.5",
                    "65535.5",
                    "-0.75",
                ]);
                let x = match big {
                    "nan" | "inf" | "highest" | "lowest" => format!("{f}.{big}"),
                    "-inf" => format!("(-{f}.inf)"),
                    _ if big.starts_with('-') => format!("(-{}{f})", &big[1..]),
                    _ => format!("{big}{f}"),
                };
                let e = if self.rng.chance(0.5) {
                    Expr::leaf(Ty::S(from), x)
                } else {
                    // Near the literal: a little more or less.
                    let a = self.exact(env, from, d.min(1));
                    Expr::node(Ty::S(from)).t(&format!("({x} + ")).e(a).t(")")
                };
                Some(Expr::node(ty).t(&format!("({n}.{f} ")).e(e).t(")"))
            }
            // `round` of a half, which goes to the even neighbour.
            2 if t.is_float() => {
                let a = self.exact(env, I32, d);
                let half = format!("0.5{n}");
                Some(
                    Expr::node(ty)
                        .t(&format!("({n}.round ({n}.i32 "))
                        .e(a)
                        .t(&format!(" + {half}))")),
                )
            }
            3 if t.is_float() || t.is_int() => {
                // `mean` divides by the length: an integer one of an empty
                // array is a division by zero unless guarded.
                if t == F16 {
                    return None;
                }
                let (xs, _) = self.array1(env, t, d, None);
                let (wrap, v) = self.shared(env, xs);
                let mean = Expr::node(ty.clone())
                    .t(&format!("(mean {v})"))
                    .inexact(t.is_float());
                if t.is_float() || self.risky() {
                    return Some(wrap(mean));
                }
                let dflt = self.lit(t);
                Some(wrap(
                    Expr::node(ty)
                        .t(&format!("(if length {v} == 0 then "))
                        .e(dflt)
                        .t(" else ")
                        .e(mean)
                        .t(")"),
                ))
            }
            4 if t == I32 => {
                // Integers only: the bits of a NaN differ between backends.
                let from = *self.rng.pick(&[I8, I16, I32, I64, U8, U16, U32, U64]);
                let a = self.exact(env, from, d);
                let b = self.exact(env, I32, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("({}.get_bit ", from.name()))
                        .e(b)
                        .t(" ")
                        .e(a)
                        .t(")"),
                )
            }
            5 => {
                // A component of `unzip3` of a map to triples.
                let (src, size) = self.any_array(env, d);
                let elem = src.ty.elem()?.clone();
                let (inner, x) = self.bind(env, "x", elem, size);
                let parts: Vec<Expr> = (0..3)
                    .map(|_| {
                        let u = self.scalar_type();
                        self.scalar(&inner, u, d)
                    })
                    .collect();
                let k = self.rng.below(3);
                let elem_t = parts[k].ty.clone();
                let arr = Ty::arr(elem_t.clone());
                let mut comps = Expr::node(arr).t(&format!("(unzip3 (map (\\{x} -> ("));
                for (i, p) in parts.into_iter().enumerate() {
                    if i > 0 {
                        comps = comps.t(", ");
                    }
                    comps = comps.e(p);
                }
                let comps = comps.t(")) ").e(src).t(&format!(")).{k}"));
                let (wrap, v) = self.shared(env, comps);
                let (i, guarded) = self.index(env, &format!("length {v}"), d);
                let at = Expr::node(elem_t.clone()).t(&format!("{v}[")).e(i).t("]");
                let body = if guarded {
                    let Ty::S(s) = elem_t else { return None };
                    let dflt = self.lit(s);
                    Expr::node(elem_t)
                        .t(&format!("(if length {v} == 0 then "))
                        .e(dflt)
                        .t(" else ")
                        .e(at)
                        .t(")")
                } else {
                    at
                };
                let got = wrap(body);
                if got.ty != ty {
                    return None;
                }
                Some(got)
            }
            6 | 7 => {
                // A record pattern, fields in either order, in a `let` or
                // as a loop's state.
                let t2 = self.scalar_type();
                let a = self.scalar(env, t, d);
                let b = self.scalar(env, t2, d);
                let (x, y) = (self.name("ra"), self.name("rb"));
                let mut inner = env.clone();
                for (name, ty, e) in [(&x, t, &a), (&y, t2, &b)] {
                    inner.push(super::ast::Var {
                        name: name.clone(),
                        ty: Ty::S(ty),
                        inexact: e.inexact,
                        size: 0,
                    });
                }
                let pattern = if self.rng.chance(0.5) {
                    format!("{{a = {x}, b = {y}}}")
                } else {
                    format!("{{b = {y}, a = {x}}}")
                };
                if self.rng.chance(0.5) {
                    let body = self.scalar(&inner, t, d);
                    return Some(
                        Expr::node(ty)
                            .t(&format!("(let {pattern} = {{b = "))
                            .e(b)
                            .t(", a = ")
                            .e(a)
                            .t("} in ")
                            .e(body)
                            .t(")"),
                    );
                }
                let (inner, i) = self.bind(&inner, "i", Ty::S(I64), 0);
                let a2 = self.scalar(&inner, t, d);
                let b2 = self.scalar(&inner, t2, d);
                let trips = self.rng.range(0, 3);
                Some(
                    Expr::node(ty)
                        .t(&format!("((loop {pattern} = {{a = "))
                        .e(a)
                        .t(", b = ")
                        .e(b)
                        .t(&format!("}} for {i} < {trips}i64 do {{b = "))
                        .e(b2)
                        .t(", a = ")
                        .e(a2)
                        .t("}).a)"),
                )
            }
            _ => None,
        }
    }

    /// A one-dimensional array from one of the contract's constructs.
    pub fn contract_array1(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = Ty::arr(Ty::S(t));
        match self.rng.below(6) {
            0 => {
                // `rotate` by a multiple of the length plus a little, or
                // by a negative amount.
                let (src, size) = self.array1(env, t, d, want);
                let (wrap, v) = self.shared(env, src);
                let k = self.rng.range(-3, 3);
                let r = self.exact(env, I64, d.min(1));
                let e = Expr::node(ty)
                    .t(&format!("(rotate ({k}i64 * length {v} + "))
                    .e(r)
                    .t(&format!(") {v})"));
                Some((wrap(e), size))
            }
            1 => {
                // `radix_sort`: stable, so any key function sorts alike.
                let (src, size) = self.array1(env, t, d, want);
                let bits = *self.rng.pick(&[0, 1, 3, 8, 17, 33, 64]);
                let get_bit = if t.is_int() && self.rng.chance(0.6) {
                    format!("{}.get_bit", t.name())
                } else {
                    let (inner, x) = self.bind(env, "x", Ty::S(t), 0);
                    let (inner, b) = self.bind(&inner, "b", Ty::S(I32), 0);
                    let body = self.exact(&inner, I32, d.min(1));
                    let lam = Expr::node(Ty::S(I32))
                        .t(&format!("(\\{b} {x} -> "))
                        .e(body)
                        .t(")");
                    return Some((
                        Expr::node(ty)
                            .t(&format!("(radix_sort {bits}i32 "))
                            .e(lam)
                            .t(" ")
                            .e(src)
                            .t(")"),
                        size,
                    ));
                };
                Some((
                    Expr::node(ty)
                        .t(&format!("(radix_sort {bits}i32 {get_bit} "))
                        .e(src)
                        .t(")"),
                    size,
                ))
            }
            2 => {
                // `stencil_1d` with a window of 2r+1 clamped neighbours
                // (r negative, a negative window, when risky).
                let from = self.scalar_type();
                let (src, size) = self.array1(env, from, d, want);
                let r = if self.risky() {
                    -1
                } else {
                    self.rng.range(0, 2)
                };
                let wsize = self.new_size();
                let (inner, w) = self.bind(env, "w", Ty::arr(Ty::S(from)), wsize);
                let mut inner = inner;
                inner.last_mut()?.inexact = src.inexact;
                let body = self.scalar(&inner, t, d);
                Some((
                    Expr::node(ty)
                        .t(&format!("(stencil_1d ({r}i64) (\\{w} -> "))
                        .e(body)
                        .t(") ")
                        .e(src)
                        .t(")"),
                    size,
                ))
            }
            3 if want.is_none() => {
                // `stencil_2d`, flattened.
                let from = self.scalar_type();
                let (m, _) = self.array2(env, from, d, None);
                let r = self.rng.range(0, 1);
                let wsize = self.new_size();
                let (inner, w) = self.bind(env, "w", Ty::arr(Ty::arr(Ty::S(from))), wsize);
                let mut inner = inner;
                inner.last_mut()?.inexact = m.inexact;
                let body = self.scalar(&inner, t, d);
                Some((
                    Expr::node(ty)
                        .t(&format!("(flatten (stencil_2d {r}i64 (\\{w} -> "))
                        .e(body)
                        .t(") ")
                        .e(m)
                        .t("))"),
                    self.new_size(),
                ))
            }
            4 if want.is_none() && t != Bool && t != F16 => {
                // `matmul` of a matrix and its transpose (or of another
                // matrix, a size mismatch, when risky).
                let (a, _) = self.array2(env, t, d, None);
                let (wrap, v) = self.shared(env, a);
                let b = if self.risky() {
                    self.array2(env, t, d, None).0
                } else {
                    Expr::leaf(Ty::arr(Ty::arr(Ty::S(t))), format!("(transpose {v})"))
                };
                let e = Expr::node(ty)
                    .t(&format!("(flatten (matmul {v} "))
                    .e(b)
                    .t("))")
                    .inexact(t.is_float());
                Some((wrap(e), self.new_size()))
            }
            _ => {
                // `map5`, or `map` over `zip3` with a triple pattern.
                let t0 = self.scalar_type();
                let (first, size) = self.array1(env, t0, d.saturating_sub(1), want);
                let five = self.rng.chance(0.5);
                let arity = if five { 5 } else { 3 };
                let mut args = vec![first.clone()];
                let mut inner = env.clone();
                let mut names = Vec::new();
                let mut types = vec![t0];
                for _ in 1..arity {
                    let ta = self.scalar_type();
                    types.push(ta);
                    args.push(self.same_size(env, ta, d.saturating_sub(1), size, &first));
                }
                for (ta, a) in types.iter().zip(&args) {
                    let (e2, x) = self.bind(&inner, "m", Ty::S(*ta), size);
                    inner = e2;
                    inner.last_mut()?.inexact = a.inexact;
                    names.push(x);
                }
                let body = self.scalar(&inner, t, d);
                let mut e = if five {
                    Expr::node(ty).t(&format!("(map5 (\\{} -> ", names.join(" ")))
                } else {
                    Expr::node(ty).t(&format!("(map (\\({}) -> ", names.join(", ")))
                };
                e = e.e(body).t(")");
                if five {
                    for a in args {
                        e = e.t(" ").e(a);
                    }
                    Some((e.t(")"), size))
                } else {
                    e = e.t(" (zip3");
                    for a in args {
                        e = e.t(" ").e(a);
                    }
                    Some((e.t("))"), size))
                }
            }
        }
    }
}
