//! Futhark's prelude and scalar-module functions (contract section 11) that
//! the other generators never emitted: integer `mul_hi`, `mad_hi`,
//! `set_bit` and `sgn`, float `from_bits`/`to_bits`, `recip`, `sgn` and
//! the further libm functions (`cbrt`, `log1p`, `gamma`, `sinpi`, ...),
//! `foldr`, `iterate` and `iterate_while` (on scalars and on arrays),
//! `null`, character and string literals, `let [m] (ys: [m]t) = e` size
//! bindings (three at once on a rank-3 array), local functions with an
//! existential result (`?[k].[k]t`), `spread`, `partition2`, `map4` and
//! `unzip4`, `flatten_3d`, `unflatten_3d`, `scatter_2d`, `scatter_3d`,
//! and `hist`/`reduce_by_index` with an argmax operator on pairs.

use super::ast::{Expr, Ty, Var};
use super::gen::{Env, Gen, Made};
use super::ranked::ranked;
use crate::types::ScalarType;
use ScalarType::*;

/// Strings for literals: escapes, a multi-byte character, the empty one.
const STRINGS: &[&str] = &[
    "\"\"",
    "\"a\"",
    "\"hello\"",
    "\"tab\\there\\n\"",
    "\"quote\\\" and \\\\ and \\'\"",
    "\"café\"",
    "\"\\0x\"",
];

/// Characters for literals, escapes included.
const CHARS: &[&str] = &["'a'", "'Z'", "'0'", "'\\n'", "'\\\\'", "'\\''", "' '"];

/// `(v1, i1)` beats `(v2, i2)` when larger, or equal at a lower index:
/// associative and commutative, with neutral element `(lowest, highest)`.
fn argmax_op(a: [&str; 4]) -> String {
    let [v1, i1, v2, i2] = a;
    format!(
        "(\\({v1}, {i1}) ({v2}, {i2}) -> if {v1} > {v2} || ({v1} == {v2} && {i1} < {i2}) then ({v1}, {i1}) else ({v2}, {i2}))"
    )
}

impl Gen {
    /// A scalar from Futhark's prelude or scalar modules.
    pub fn prelude_scalar(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let ty = Ty::S(t);
        let n = t.name();
        match self.rng.below(8) {
            0 if matches!(t, U16 | U32 | U64) && self.rng.chance(0.4) => {
                // Back to bits; a NaN's sign and payload differ between
                // backends, so none is converted.
                let f = match t {
                    U16 => F16,
                    U32 => F32,
                    _ => F64,
                };
                let fname = f.name();
                let a = self.exact(env, f, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("({fname}.to_bits (let s = "))
                        .e(a)
                        .t(&format!(" in if {fname}.isnan s then 0{fname} else s))")),
                )
            }
            0 if t.is_int() => {
                let a = self.exact(env, t, d);
                let b = self.exact(env, t, d);
                if self.rng.chance(0.5) {
                    return Some(Expr::call(ty, &format!("{n}.mul_hi"), [a, b]));
                }
                let c = self.exact(env, t, d);
                Some(Expr::call(ty, &format!("{n}.mad_hi"), [a, b, c]))
            }
            1 if t.is_int() => {
                let a = self.exact(env, t, d);
                if self.rng.chance(0.3) {
                    return Some(Expr::call(ty, &format!("{n}.sgn"), [a]));
                }
                // A bit index in range: shifts past the width are not
                // defined alike by Futhark's backends either.
                let bit = self.rng.range(0, t.bits() as i64 - 1);
                let c = self.exact(env, Bool, d);
                let b = Expr::node(Ty::S(I32)).t("(i32.bool ").e(c).t(")");
                let k = Expr::leaf(Ty::S(I32), format!("{bit}i32"));
                Some(Expr::call(ty, &format!("{n}.set_bit"), [k, a, b]))
            }
            0 | 1 if t.is_float() => {
                // The bits of a float: any pattern, NaNs with any payload
                // included (they print alike).
                let u = bits_type(t);
                let a = self.exact(env, u, d);
                Some(Expr::call(ty, &format!("{n}.from_bits"), [a]))
            }
            2 if t.is_float() => {
                let a = self.exact(env, t, d);
                if self.rng.chance(0.4) {
                    // Correctly rounded: exact on every backend.
                    let f = *self.rng.pick(&["recip", "sgn", "neg"]);
                    return Some(Expr::call(ty, &format!("{n}.{f}"), [a]));
                }
                if self.rng.chance(0.3) {
                    let b = self.exact(env, t, d);
                    let c = self.exact(env, t, d);
                    let f = *self.rng.pick(&["mad", "lerp"]);
                    return Some(Expr::call(ty, &format!("{n}.{f}"), [a, b, c]).inexact(true));
                }
                let f = *self.rng.pick(&[
                    "cbrt", "log1p", "expm1", "asinh", "acosh", "atanh", "gamma", "lgamma", "erfc",
                    "sinpi", "cospi", "log2", "log10", "sinh", "cosh", "asin", "acos",
                ]);
                Some(Expr::call(ty, &format!("{n}.{f}"), [a]).inexact(true))
            }
            3 => {
                // A right fold: the element comes first.
                let (xs, size) = self.any_array(env, d);
                let elem = xs.ty.elem()?.clone();
                let init = self.scalar(env, t, d);
                let (mut inner, x) = self.bind(env, "x", elem, size);
                inner.last_mut()?.inexact = xs.inexact;
                let (mut inner, acc) = self.bind(&inner, "acc", ty.clone(), 0);
                inner.last_mut()?.inexact = init.inexact;
                let body = self.scalar(&inner, t, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("(foldr (\\{x} {acc} -> "))
                        .e(body)
                        .t(") ")
                        .e(init)
                        .t(" ")
                        .e(xs)
                        .t(")"),
                )
            }
            4 => {
                let init = self.scalar(env, t, d);
                let (mut inner, y) = self.bind(env, "y", ty.clone(), 0);
                inner.last_mut()?.inexact = init.inexact;
                let trips = self.rng.range(-1, 4);
                if self.rng.chance(0.5) {
                    let body = self.scalar(&inner, t, d);
                    return Some(
                        Expr::node(ty)
                            .t(&format!("(iterate ({trips}i32) (\\{y} -> "))
                            .e(body)
                            .t(") ")
                            .e(init)
                            .t(")"),
                    );
                }
                // A counter bounds the loop.
                let (inner, i) = self.bind(&inner, "i", Ty::S(I64), 0);
                let body = self.scalar(&inner, t, d);
                let (f, test) = if self.rng.chance(0.5) {
                    ("iterate_while", format!("{i} < {trips}i64"))
                } else {
                    ("iterate_until", format!("{i} >= {trips}i64"))
                };
                Some(
                    Expr::node(ty)
                        .t(&format!("(({f} (\\(_, {i}) -> {test}) (\\({y}, {i}) -> ("))
                        .e(body)
                        .t(&format!(", {i} + 1)) ("))
                        .e(init)
                        .t(", 0i64)).0)"),
                )
            }
            5 if t == Bool => {
                let (xs, _) = self.any_array(env, d);
                Some(Expr::node(ty).t("(null ").e(xs).t(")"))
            }
            5 if t == U8 => {
                // A byte of a string literal.
                let s = Expr::leaf(Ty::arr(Ty::S(U8)), *self.rng.pick(STRINGS));
                let (wrap, v) = self.shared(env, s);
                let (i, guarded) = self.index(env, &format!("length {v}"), d);
                let at = Expr::node(ty.clone()).t(&format!("{v}[")).e(i).t("]");
                if !guarded {
                    return Some(wrap(at));
                }
                let dflt = self.lit(t);
                Some(wrap(
                    Expr::node(ty)
                        .t(&format!("(if length {v} == 0 then "))
                        .e(dflt)
                        .t(" else ")
                        .e(at)
                        .t(")"),
                ))
            }
            5 if t.is_int() => {
                // A character literal takes the type of its context.
                let a = self.scalar(env, t, d);
                let c = *self.rng.pick(CHARS);
                let o = *self.rng.pick(&["+", "^", "-"]);
                Some(Expr::node(ty).t("(").e(a).t(&format!(" {o} {c})")))
            }
            6 => {
                // The size of an array named by a pattern.
                let (xs, size) = self.any_array(env, d);
                let elem = xs.ty.elem()?.clone();
                let (inner, m) = self.bind(env, "m", Ty::S(I64), 0);
                let (mut inner, ys) = self.bind(&inner, "ys", xs.ty.clone(), size);
                inner.last_mut()?.inexact = xs.inexact;
                let body = self.scalar(&inner, t, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("(let [{m}] ({ys}: [{m}]{elem}) = "))
                        .e(xs)
                        .t(" in ")
                        .e(body)
                        .t(")"),
                )
            }
            7 if t.is_int() => {
                // An argmax by `hist`: one bin's winner, or its index.
                let (h, _) = self.argmax_histogram(env, t, d)?;
                let (wrap, v) = self.shared(env, h);
                let (i, guarded) = self.index(env, &format!("length {v}.0"), d);
                let comp = if t == I64 && self.rng.chance(0.5) {
                    1
                } else {
                    0
                };
                let at = Expr::node(ty.clone())
                    .t(&format!("{v}.{comp}["))
                    .e(i)
                    .t("]");
                if !guarded {
                    return Some(wrap(at));
                }
                let dflt = self.lit(t);
                Some(wrap(
                    Expr::node(ty)
                        .t(&format!("(if length {v}.0 == 0 then "))
                        .e(dflt)
                        .t(" else ")
                        .e(at)
                        .t(")"),
                ))
            }
            _ => None,
        }
    }

    /// `unzip (hist argmax ...)` or `unzip (reduce_by_index ...)` over
    /// values of the integer type `t` and their indices: a pair of arrays
    /// of one new length class, which is returned.
    fn argmax_histogram(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<(Expr, u32)> {
        let (is, vs) = self.index_value_pairs(env, t, d)?;
        let n = t.name();
        let names = ["v", "i", "v", "i"].map(|p| self.name(p));
        let op = argmax_op([&names[0], &names[1], &names[2], &names[3]]);
        let ne = format!("({n}.lowest, i64.highest)");
        let tup = Ty::Tup(vec![Ty::arr(Ty::S(t)), Ty::arr(Ty::S(I64))]);
        let (wrap, v) = self.shared(env, vs);
        let size = self.new_size();
        let head = if self.rng.chance(0.5) {
            let bins = *self.rng.pick(&[0, 1, 2, 3, 17]);
            Expr::node(tup).t(&format!("(unzip (hist {op} {ne} {bins}i64 "))
        } else {
            let (dest, _) = self.array1(env, t, d, None);
            let (wd, dv) = self.shared(env, dest);
            let e = Expr::node(tup)
                .t(&format!(
                    "(unzip (reduce_by_index (zip {dv} (map (\\_ -> -1i64) {dv})) {op} {ne} "
                ))
                .e(is)
                .t(&format!(" (zip {v} (indices {v}))))"));
            return Some((wrap(wd(e)), size));
        };
        let e = head.e(is).t(&format!(" (zip {v} (indices {v}))))"));
        Some((wrap(e), size))
    }

    /// A one-dimensional array from Futhark's prelude.
    pub fn prelude_array1(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = Ty::arr(Ty::S(t));
        match self.rng.below(9) {
            0 if want.is_none() => {
                // `spread`: values a function of their index, as for
                // `scatter`, so that duplicates write equal values.
                let (src, _) = self.any_array(env, d);
                let (wi, iv) = self.shared(env, src);
                let len = format!("(length {iv})");
                let k = self.rng.pick(&["0i64", "1i64", "5i64", &len]).to_string();
                let q = self.name("q");
                let idx = format!("(map (\\{q} -> {q} * 3i64 % 7i64 - 1i64) (indices {iv}))");
                let (inner, j) = self.bind(env, "j", Ty::S(I64), 0);
                let v = self.scalar(&inner, t, d);
                let dflt = self.lit(t);
                let (wis, is) = self.shared(env, Expr::leaf(Ty::arr(Ty::S(I64)), idx));
                let e = Expr::node(ty)
                    .t(&format!("(spread {k} "))
                    .e(dflt)
                    .t(&format!(" {is} (map (\\{j} -> "))
                    .e(v)
                    .t(&format!(") {is}))"));
                Some((wi(wis(e)), self.new_size()))
            }
            1 if want.is_none() => {
                let (xs, size) = self.array1(env, t, d, None);
                let (inner, x) = self.bind(env, "x", Ty::S(t), size);
                let p1 = self.exact(&inner, Bool, d);
                let (inner, y) = self.bind(env, "y", Ty::S(t), size);
                let p2 = self.exact(&inner, Bool, d);
                let k = self.rng.below(3);
                let e = Expr::node(ty)
                    .t(&format!("((partition2 (\\{x} -> "))
                    .e(p1)
                    .t(&format!(") (\\{y} -> "))
                    .e(p2)
                    .t(") ")
                    .e(xs)
                    .t(&format!(").{k})"));
                Some((e, self.new_size()))
            }
            2 => {
                let (xs, size) = self.array1(env, t, d, want);
                let mut args = vec![xs.clone()];
                let mut inner = env.clone();
                let mut names = Vec::new();
                for k in 0..4 {
                    let a = if k == 0 {
                        xs.clone()
                    } else {
                        let u = self.scalar_type();
                        self.same_size(env, u, d, size, &xs)
                    };
                    let elem = a.ty.elem()?.clone();
                    let (i2, x) = self.bind(&inner, "a", elem, size);
                    inner = i2;
                    inner.last_mut()?.inexact = a.inexact;
                    names.push(x);
                    if k > 0 {
                        args.push(a);
                    }
                }
                let body = self.scalar(&inner, t, d);
                let mut e = Expr::node(ty).t(&format!("(map4 (\\{} -> ", names.join(" ")));
                e = e.e(body).t(")");
                for a in args {
                    e = e.t(" ").e(a);
                }
                Some((e.t(")"), size))
            }
            3 => {
                // A component of `unzip4` of a map to quadruples.
                let (src, size) = self.any_array(env, d);
                if want.is_some_and(|w| w != size) {
                    return None;
                }
                let elem = src.ty.elem()?.clone();
                let (mut inner, x) = self.bind(env, "x", elem, size);
                inner.last_mut()?.inexact = src.inexact;
                let k = self.rng.below(4);
                let mut e = Expr::node(ty).t(&format!("(unzip4 (map (\\{x} -> ("));
                for i in 0..4 {
                    if i > 0 {
                        e = e.t(", ");
                    }
                    let u = if i == k { t } else { self.scalar_type() };
                    let part = self.scalar(&inner, u, d);
                    e = e.e(part);
                }
                Some((e.t(")) ").e(src).t(&format!(")).{k}")), size))
            }
            4 if want.is_none() && d > 0 => {
                let (m, _) = self.array3(env, t, d, None);
                Some((
                    Expr::node(ty).t("(flatten_3d ").e(m).t(")"),
                    self.new_size(),
                ))
            }
            5 if want.is_none() && t.is_int() => {
                let (h, size) = self.argmax_histogram(env, t, d)?;
                let comp = if t == I64 && self.rng.chance(0.5) {
                    1
                } else {
                    0
                };
                Some((h.t(&format!(".{comp}")), size))
            }
            5 if want.is_none() && t == U8 => {
                let s = Expr::leaf(ty.clone(), *self.rng.pick(STRINGS));
                if self.rng.chance(0.5) {
                    return Some((s, self.new_size()));
                }
                let (xs, _) = self.array1(env, t, d, None);
                Some((
                    Expr::node(ty).t("(").e(s).t(" ++ ").e(xs).t(")"),
                    self.new_size(),
                ))
            }
            6 if want.is_none() => {
                // A local function whose result's size is existential.
                let (xs, size) = self.array1(env, t, d, None);
                let f = self.name("f");
                let (inner, zs) = self.bind(env, "zs", ty.clone(), size);
                let (inner, z) = self.bind(&inner, "z", Ty::S(t), size);
                let p = self.exact(&inner, Bool, d);
                let k = self.name("k");
                let n = t.name();
                let e = Expr::node(ty)
                    .t(&format!(
                        "(let {f} ({zs}: []{n}) : ?[{k}].[{k}]{n} = filter (\\{z} -> "
                    ))
                    .e(p)
                    .t(&format!(") {zs} in {f} "))
                    .e(xs)
                    .t(")");
                Some((e, self.new_size()))
            }
            7 => {
                // `let [m]`: the size named and used by `iota`.
                let (xs, size) = self.array1(env, t, d, want);
                let (inner, m) = self.bind(env, "m", Ty::S(I64), 0);
                let (mut inner, ys) = self.bind(&inner, "ys", ty.clone(), size);
                inner.last_mut()?.inexact = xs.inexact;
                let (mut inner, y) = self.bind(&inner, "y", Ty::S(t), size);
                inner.last_mut()?.inexact = xs.inexact;
                let (inner, i) = self.bind(&inner, "i", Ty::S(I64), 0);
                let body = self.scalar(&inner, t, d);
                let n = t.name();
                let e = Expr::node(ty)
                    .t(&format!("(let [{m}] ({ys}: [{m}]{n}) = "))
                    .e(xs)
                    .t(&format!(" in map2 (\\{y} {i} -> "))
                    .e(body)
                    .t(&format!(") {ys} (iota {m}))"));
                Some((e, size))
            }
            _ => {
                // `iterate` with an array state of one length.
                let (xs, size) = self.array1(env, t, d, want);
                let (inner, y) = self.bind(env, "y", Ty::S(t), size);
                let mut inner = inner;
                inner.last_mut()?.inexact = xs.inexact;
                let body = self.scalar(&inner, t, d);
                let ys = self.name("ys");
                let trips = self.rng.range(0, 3);
                let e = Expr::node(ty)
                    .t(&format!("(iterate {trips}i32 (\\{ys} -> map (\\{y} -> "))
                    .e(body)
                    .t(&format!(") {ys}) "))
                    .e(xs)
                    .t(")");
                Some((e, size))
            }
        }
    }

    /// A matrix by `scatter_2d`, or a rank-3 array by `unflatten_3d` of
    /// `flatten_3d` (its sizes named by a pattern) or `scatter_3d`.
    pub fn prelude_ranked(
        &mut self,
        rank: usize,
        env: &Env,
        t: ScalarType,
        d: u32,
        want: Option<u32>,
    ) -> Made {
        let ty = ranked(t, rank);
        let n = t.name();
        if rank == 3 && want.is_none() && self.rng.chance(0.5) {
            let (m, _) = self.array3(env, t, d, None);
            let [a, b, c] = ["a", "b", "c"].map(|p| self.name(p));
            let v = self.name("m");
            let dims = if self.risky() {
                format!("{c} {a} ({b} + 1)")
            } else {
                format!("{c} {a} {b}")
            };
            let e = Expr::node(ty)
                .t(&format!(
                    "(let [{a}][{b}][{c}] ({v}: [{a}][{b}][{c}]{n}) = "
                ))
                .e(m)
                .t(&format!(" in unflatten_3d {dims} (flatten_3d {v}))"));
            return Some((e, self.new_size()));
        }
        // Indices from a one-dimensional array, some out of range; values
        // a function of their index, so that duplicates agree.
        let (dest, size) = if rank == 2 {
            self.array2(env, t, d, want)
        } else {
            self.array3(env, t, d, want)
        };
        let (src, _) = self.any_array(env, d);
        let (wrap, sv) = self.shared(env, src);
        let q = self.name("q");
        let names: Vec<String> = (0..rank).map(|_| self.name("p")).collect();
        let parts = ["{q} / 2i64", "{q} % 3i64 - 1i64", "{q} % 2i64"];
        let tuple: Vec<String> = parts[..rank].iter().map(|p| p.replace("{q}", &q)).collect();
        let ps = self.name("ps");
        let mut inner = env.clone();
        inner.extend(names.iter().map(|p| Var {
            name: p.clone(),
            ty: Ty::S(I64),
            inexact: false,
            size: 0,
        }));
        let v = self.scalar(&inner, t, d);
        let f = if rank == 2 {
            "scatter_2d"
        } else {
            "scatter_3d"
        };
        let e = Expr::node(ty)
            .t(&format!(
                "(let {ps} = map (\\{q} -> ({})) (indices {sv}) in {f} ",
                tuple.join(", ")
            ))
            .e(dest)
            .t(&format!(" {ps} (map (\\({}) -> ", names.join(", ")))
            .e(v)
            .t(&format!(") {ps}))"));
        Some((wrap(e), size))
    }
}

/// The unsigned type of a float's bits.
fn bits_type(t: ScalarType) -> ScalarType {
    match t {
        F16 => U16,
        F32 => U32,
        _ => U64,
    }
}
