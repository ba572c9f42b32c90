//! Array expressions of the generator: every SOAC, the library's array
//! functions, slices, updates and loops with array state. Each returns the
//! length class of its result (`Var::size`), so that `map2` and friends
//! get arrays of one length unless a size mismatch is meant.

use super::ast::{Expr, Ty};
use super::gen::{map_of, Env, Gen, Made};
use crate::types::ScalarType;
use ScalarType::*;

impl Gen {
    /// Any one-dimensional array: a variable, or a new array of a random
    /// element type.
    pub fn any_array(&mut self, env: &Env, d: u32) -> (Expr, u32) {
        let vars: Vec<_> = env
            .iter()
            .filter(|v| matches!(&v.ty, Ty::Arr(e) if !matches!(**e, Ty::Arr(_))))
            .collect();
        if !vars.is_empty() && self.rng.chance(0.7) {
            let v = *self.rng.pick(&vars);
            return (var_expr(v), v.size);
        }
        let t = self.scalar_type();
        self.array1(env, t, d, None)
    }

    /// A one-dimensional array of `t`; of length class `want` if given.
    pub fn array1(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> (Expr, u32) {
        for _ in 0..12 {
            let unit = u32::from(self.unit_arrays);
            let weights: [u32; 29] = if d == 0 {
                [
                    8, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    0, 0, 0,
                ]
            } else {
                [
                    6, 8, 3, 3, 2, 1, 1, 1, 1, 2, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                    unit, 2, 2, 2,
                ]
            };
            let k = self.rng.weighted(&weights);
            if let Some((e, size)) = self.array1_option(k, env, t, d, want) {
                if want.is_none_or(|w| w == size) {
                    return (e, size);
                }
            }
        }
        // Every length class has an array of its own in scope or at hand:
        // a map over it keeps the length.
        let size = want.unwrap_or(0);
        let src = env
            .iter()
            .find(|v| v.size == size && matches!(v.ty, Ty::Arr(_)))
            .map(var_expr)
            .unwrap_or_else(|| Expr::leaf(Ty::arr(Ty::S(I64)), "(iota 0)"));
        let (inner, x) = self.bind(env, "z", Ty::S(I64), 0);
        let _ = inner;
        let v = self.lit(t);
        (map_of(Ty::arr(Ty::S(t)), "", &x, v, src), size)
    }

    /// An array of `t` as long as `like` (whose class is `size`).
    pub fn same_size(&mut self, env: &Env, t: ScalarType, d: u32, size: u32, like: &Expr) -> Expr {
        if self.risky() {
            return self.array1(env, t, d, None).0;
        }
        let vars: Vec<_> = env
            .iter()
            .filter(|v| v.size == size && v.ty == Ty::arr(Ty::S(t)))
            .collect();
        if !vars.is_empty() && self.rng.chance(0.6) {
            let v = *self.rng.pick(&vars);
            return var_expr(v);
        }
        let elem = like.ty.elem().cloned().unwrap_or(Ty::S(I64));
        let (inner, x) = self.bind(env, "w", elem, size);
        let body = self.scalar(&inner, t, d);
        map_of(Ty::arr(Ty::S(t)), "", &x, body, like.clone())
    }

    fn array1_option(
        &mut self,
        k: usize,
        env: &Env,
        t: ScalarType,
        d: u32,
        want: Option<u32>,
    ) -> Made {
        let ty = Ty::arr(Ty::S(t));
        let dd = d.saturating_sub(1);
        match k {
            0 => self.var_of(env, &ty, want),
            1 => {
                // map, over any array (of tuples and records too).
                let (src, size, x, body) = self.map_source(env, t, d, want)?;
                let attr = self.attr(true);
                Some((map_of(ty, attr, &x, body, src), size))
            }
            2 => {
                // map2 .. map4, or the helper `pairwise`.
                let arity = self.rng.range(2, 4) as usize;
                let t0 = self.scalar_type();
                let (first, size) = self.array1(env, t0, dd, want);
                let mut args = vec![first.clone()];
                let mut inner = env.clone();
                let mut names = Vec::new();
                let mut types = vec![t0];
                for _ in 1..arity {
                    let ta = if self.rng.chance(0.5) {
                        t0
                    } else {
                        self.scalar_type()
                    };
                    types.push(ta);
                    args.push(self.same_size(env, ta, dd, size, &first));
                }
                for ta in &types {
                    let (e2, x) = self.bind(&inner, "m", Ty::S(*ta), size);
                    inner = e2;
                    names.push(x);
                }
                let body = self.scalar(&inner, t, d);
                let helper = arity == 2 && types[0] == types[1] && self.rng.chance(0.3);
                let f = if helper {
                    "pairwise".to_string()
                } else {
                    format!("map{arity}")
                };
                let mut e = Expr::node(ty).t(&format!("({f} (\\{} -> ", names.join(" ")));
                e = e.e(body).t(")");
                for a in args {
                    e = e.t(" ").e(a);
                }
                Some((e.t(")"), size))
            }
            3 => {
                let (src, size) = self.array1(env, t, dd, want);
                let op = self.op(t, false);
                let f = *self.rng.pick(&["scan", "scanr", "scan", "exscan"]);
                let attr = self.attr(true);
                Some((
                    Expr::node(ty)
                        .t(&format!("({attr}{f} {} {} ", op.text, op.ne))
                        .e(src)
                        .t(")")
                        .inexact(t.is_float()),
                    size,
                ))
            }
            4 => {
                let (src, size) = self.array1(env, t, dd, want);
                if self.rng.chance(0.5) {
                    Some((Expr::node(ty).t("(reverse ").e(src).t(")"), size))
                } else {
                    let r = self.exact(env, I64, dd);
                    Some((Expr::node(ty).t("(rotate ").e(r).t(" ").e(src).t(")"), size))
                }
            }
            5 if self.rng.chance(0.3) => self.slice_update(env, t, dd, want),
            5 => {
                let (src, size) = self.array1(env, t, dd, want);
                let (wrap, var) = self.shared(env, src);
                let (i, guarded) = self.index(env, &format!("length {var}"), dd);
                let v = self.scalar(env, t, dd);
                let upd = Expr::node(ty.clone())
                    .t(&format!("({var} with ["))
                    .e(i)
                    .t("] = ")
                    .e(v)
                    .t(")");
                let e = if guarded {
                    Expr::node(ty)
                        .t(&format!("(if length {var} == 0 then {var} else "))
                        .e(upd)
                        .t(")")
                } else {
                    upd
                };
                Some((wrap(e), size))
            }
            6 => {
                let (dest, size) = self.array1(env, t, dd, want);
                Some((self.scatter_into(env, dest, t, dd)?, size))
            }
            7 => {
                let (dest, size) = self.array1(env, t, dd, want);
                let (is, vs) = self.index_value_pairs(env, t, dd)?;
                let op = self.op(t, true);
                Some((
                    Expr::node(ty)
                        .t("(reduce_by_index ")
                        .e(dest)
                        .t(&format!(" {} {} ", op.text, op.ne))
                        .e(is)
                        .t(" ")
                        .e(vs)
                        .t(")")
                        .inexact(t.is_float()),
                    size,
                ))
            }
            8 => {
                let c = self.exact(env, Bool, dd);
                let (a, size) = self.array1(env, t, dd, want);
                let b = self.same_size(env, t, dd, size, &a);
                Some((Expr::if_then_else(ty, c, a, b), size))
            }
            9 => self.generated(env, t, dd, want),
            10 if want.is_none() => {
                let (src, _) = self.array1(env, t, dd, None);
                let (inner, x) = self.bind(env, "f", Ty::S(t), 0);
                let p = self.exact(&inner, Bool, dd);
                Some((
                    Expr::node(ty)
                        .t(&format!("(filter (\\{x} -> "))
                        .e(p)
                        .t(") ")
                        .e(src)
                        .t(")"),
                    self.new_size(),
                ))
            }
            11 if want.is_none() => {
                let (a, _) = self.array1(env, t, dd, None);
                let (b, _) = self.array1(env, t, dd, None);
                let e = if self.rng.chance(0.5) {
                    Expr::node(ty).t("(").e(a).t(" ++ ").e(b).t(")")
                } else {
                    Expr::node(ty).t("(concat ").e(a).t(" ").e(b).t(")")
                };
                Some((e, self.new_size()))
            }
            12 if want.is_none() => self.slice(env, t, dd),
            13 if want.is_none() => {
                let (is, vs) = self.index_value_pairs(env, t, dd)?;
                let op = self.op(t, true);
                let bins = if self.risky() {
                    format!("({}i64 - 2i64)", self.rng.range(0, 3))
                } else {
                    format!("{}i64", self.rng.pick(&[0, 1, 2, 3, 6, 16, 17, 100]))
                };
                Some((
                    Expr::node(ty)
                        .t(&format!("(hist {} {} {bins} ", op.text, op.ne))
                        .e(is)
                        .t(" ")
                        .e(vs)
                        .t(")")
                        .inexact(t.is_float()),
                    self.new_size(),
                ))
            }
            14 if want.is_none() => {
                let (src, _) = self.array1(env, t, dd, None);
                let (wrap, var) = self.shared(env, src);
                let f = *self.rng.pick(&["take", "drop"]);
                let k = if self.risky() {
                    self.exact(env, I64, dd)
                } else {
                    let k = self.exact(env, I64, dd);
                    Expr::node(Ty::S(I64))
                        .t("(i64.min (i64.abs ")
                        .e(k)
                        .t(&format!(") (length {var}))"))
                };
                let e = Expr::node(ty)
                    .t(&format!("({f} "))
                    .e(k)
                    .t(&format!(" {var})"));
                Some((wrap(e), self.new_size()))
            }
            15 if want.is_none() => {
                let (m, _) = self.array2(env, t, dd, None);
                Some((Expr::node(ty).t("(flatten ").e(m).t(")"), self.new_size()))
            }
            16 => {
                // A reduction or scan per row: nested parallelism.
                let (m, size) = match want {
                    Some(w) => {
                        let (m, s) = self.array2(env, t, dd, Some(w));
                        if s != w {
                            return None;
                        }
                        (m, s)
                    }
                    None => self.array2(env, t, dd, None),
                };
                let (inner, r) = self.bind(env, "r", Ty::arr(Ty::S(t)), 0);
                let body = self.scalar(&inner, t, dd);
                let op = self.op(t, false);
                let e = if self.rng.chance(0.5) {
                    Expr::node(ty)
                        .t(&format!(
                            "(map (\\{r} -> reduce {} {} {r}) ",
                            op.text, op.ne
                        ))
                        .e(m)
                        .t(")")
                        .inexact(t.is_float())
                } else {
                    Expr::node(ty)
                        .t(&format!("(map (\\{r} -> "))
                        .e(body)
                        .t(") ")
                        .e(m)
                        .t(")")
                };
                Some((e, size))
            }
            17 if want.is_none() => {
                let (m, _) = self.array2(env, t, dd, None);
                let (wrap, var) = self.shared(env, m);
                let (i, guarded) = self.index(env, &format!("length {var}"), dd);
                let column = self.rng.chance(0.5);
                let (i, guarded) = if column {
                    self.index(env, &format!("length {var}[0]"), dd)
                } else {
                    (i, guarded)
                };
                let access = if column {
                    Expr::node(ty.clone()).t(&format!("{var}[:, ")).e(i).t("]")
                } else {
                    Expr::node(ty.clone()).t(&format!("{var}[")).e(i).t("]")
                };
                let e = if guarded {
                    let empty = if column {
                        format!("length {var} == 0 || length {var}[0] == 0")
                    } else {
                        format!("length {var} == 0")
                    };
                    Expr::node(ty)
                        .t(&format!("(if {empty} then "))
                        .e(self.replicate_lit(t))
                        .t(" else ")
                        .e(access)
                        .t(")")
                } else {
                    access
                };
                Some((wrap(e), self.new_size()))
            }
            18 if self.rng.chance(0.3) => self.while_array(env, t, dd, want),
            18 => {
                // A loop whose state is an array of one length.
                let (init, size) = self.array1(env, t, dd, want);
                let trips = self.rng.range(0, 3);
                let (inner, acc) = self.bind(env, "arr", Ty::arr(Ty::S(t)), size);
                let (inner, i) = self.bind(&inner, "k", Ty::S(I64), 0);
                let acc_e = Expr::leaf(Ty::arr(Ty::S(t)), &acc);
                let body = self.same_size(&inner, t, dd, size, &acc_e);
                let attr = self.attr(false);
                Some((
                    Expr::node(ty)
                        .t(&format!("({attr}loop {acc} = "))
                        .e(init)
                        .t(&format!(" for {i} < {trips}i64 do "))
                        .e(body)
                        .t(")"),
                    size,
                ))
            }
            19 => {
                let (xs, size) = self.array1(env, t, dd, want);
                let flags = self.same_size(env, Bool, dd, size, &xs);
                let op = self.op(t, false);
                if want.is_none() && self.rng.chance(0.4) {
                    Some((
                        Expr::node(ty)
                            .t(&format!("(segmented_reduce {} {} ", op.text, op.ne))
                            .e(flags)
                            .t(" ")
                            .e(xs)
                            .t(")")
                            .inexact(t.is_float()),
                        self.new_size(),
                    ))
                } else {
                    Some((
                        Expr::node(ty)
                            .t(&format!("(segmented_scan {} {} ", op.text, op.ne))
                            .e(flags)
                            .t(" ")
                            .e(xs)
                            .t(")")
                            .inexact(t.is_float()),
                        size,
                    ))
                }
            }
            26 => self.grown_array1(env, t, dd, want),
            27 => self.contract_array1(env, t, dd, want),
            28 => self.prelude_array1(env, t, dd, want),
            20.. => self.extra_array1(k - 20, env, t, d, want),
            _ => None,
        }
    }

    /// A `while` loop whose state is an array of one length and a
    /// counter (with a second condition on the array, sometimes).
    fn while_array(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = Ty::arr(Ty::S(t));
        let (init, size) = self.array1(env, t, d, want);
        let trips = self.rng.range(0, 3);
        let (inner, acc) = self.bind(env, "arr", ty.clone(), size);
        let (inner, i) = self.bind(&inner, "k", Ty::S(I64), 0);
        let acc_e = Expr::leaf(ty.clone(), &acc);
        let body = self.same_size(&inner, t, d, size, &acc_e);
        let extra = if self.rng.chance(0.4) {
            format!(" && length {acc} > {i}")
        } else {
            String::new()
        };
        let attr = self.attr(false);
        Some((
            Expr::node(ty)
                .t(&format!("(let ({acc}, _) = {attr}loop ({acc}, {i}) = ("))
                .e(init)
                .t(&format!(", 0i64) while {i} < {trips}i64{extra} do ("))
                .e(body)
                .t(&format!(", {i} + 1) in {acc})")),
            size,
        ))
    }

    /// A variable of type `ty` (of length class `want` if given).
    pub(super) fn var_of(&mut self, env: &Env, ty: &Ty, want: Option<u32>) -> Made {
        let vars: Vec<_> = self
            .vars(env, ty)
            .into_iter()
            .filter(|v| want.is_none_or(|w| w == v.size))
            .collect();
        if vars.is_empty() {
            return None;
        }
        let v = *self.rng.pick(&vars);
        Some((var_expr(v), v.size))
    }

    /// What a map to `t` needs: an array of any element type (of class
    /// `want`), its class, the lambda's parameter and a body over it.
    pub(super) fn map_source(
        &mut self,
        env: &Env,
        t: ScalarType,
        d: u32,
        want: Option<u32>,
    ) -> Option<(Expr, u32, String, Expr)> {
        let dd = d.saturating_sub(1);
        let (src, size) = match want {
            Some(w) => self.array_of_size(env, dd, w)?,
            None => self.any_array(env, dd),
        };
        let elem = src.ty.elem()?.clone();
        let (inner, x) = self.bind(env, "x", elem, size);
        let body = self.scalar(&inner, t, d);
        Some((src, size, x, body))
    }

    /// Some array of length class `size` (of any element type).
    pub(super) fn array_of_size(&mut self, env: &Env, d: u32, size: u32) -> Made {
        let vars: Vec<_> = env
            .iter()
            .filter(|v| v.size == size && matches!(&v.ty, Ty::Arr(e) if !matches!(**e, Ty::Arr(_))))
            .collect();
        if vars.is_empty() {
            let t = self.scalar_type();
            let (e, s) = self.array1(env, t, d, Some(size));
            return (s == size).then_some((e, s));
        }
        let v = *self.rng.pick(&vars);
        Some((var_expr(v), size))
    }

    /// `iota`, `replicate`, `tabulate`: as long as an array in scope, or a
    /// small constant length (a negative one when risky).
    fn generated(&mut self, env: &Env, t: ScalarType, d: u32, want: Option<u32>) -> Made {
        let ty = Ty::arr(Ty::S(t));
        let (len, size) = match want {
            Some(w) => {
                let (src, _) = self.array_of_size(env, d, w)?;
                (Expr::node(Ty::S(I64)).t("(length ").e(src).t(")"), w)
            }
            None if self.risky() => (Expr::leaf(Ty::S(I64), "(-1i64)"), self.new_size()),
            None if self.rng.chance(0.5) => {
                let (src, s) = self.any_array(env, d);
                (Expr::node(Ty::S(I64)).t("(length ").e(src).t(")"), s)
            }
            None => {
                let n = self.rng.range(0, 20);
                (Expr::leaf(Ty::S(I64), format!("{n}i64")), self.new_size())
            }
        };
        let e = match self.rng.below(3) {
            0 if t == I64 => Expr::node(ty).t("(iota ").e(len).t(")"),
            1 => {
                let v = self.scalar(env, t, d);
                Expr::node(ty).t("(replicate ").e(len).t(" ").e(v).t(")")
            }
            _ => {
                let (inner, i) = self.bind(env, "t", Ty::S(I64), 0);
                let body = self.scalar(&inner, t, d);
                Expr::node(ty)
                    .t("(tabulate ")
                    .e(len)
                    .t(&format!(" (\\{i} -> "))
                    .e(body)
                    .t("))")
            }
        };
        Some((e, size))
    }

    fn replicate_lit(&mut self, t: ScalarType) -> Expr {
        let v = self.lit(t);
        Expr::node(Ty::arr(Ty::S(t)))
            .t("(replicate 0i64 ")
            .e(v)
            .t(")")
    }

    /// `scatter dest is vs`: the values are a function of their index, so
    /// duplicate indices write equal values.
    pub(super) fn scatter_into(
        &mut self,
        env: &Env,
        dest: Expr,
        t: ScalarType,
        d: u32,
    ) -> Option<Expr> {
        let is = self.indices(env, d)?;
        let (inner, j) = self.bind(env, "j", Ty::S(I64), 0);
        let v = self.scalar(&inner, t, d);
        let (wrap, ivar) = self.shared(env, is);
        let e = Expr::node(dest.ty.clone())
            .t("(scatter ")
            .e(dest)
            .t(&format!(" {ivar} (map (\\{j} -> "))
            .e(v)
            .t(&format!(") {ivar}))"));
        Some(wrap(e))
    }

    /// Indices for scatter: in range, past the end, negative.
    fn indices(&mut self, env: &Env, d: u32) -> Option<Expr> {
        let ty = Ty::arr(Ty::S(I64));
        let (src, _) = self.any_array(env, d);
        let elem = src.ty.elem()?.clone();
        let (inner, x) = self.bind(env, "q", elem, 0);
        let (inner, i) = self.bind(&inner, "n", Ty::S(I64), 0);
        let _ = inner;
        let body = match self.rng.below(3) {
            0 => format!("{i} * 2i64 - 1i64"),
            1 => format!("{i} / 2i64"),
            _ => format!("{i} * 3i64 % 7i64"),
        };
        Some(
            Expr::node(ty)
                .t(&format!("(map2 (\\{x} {i} -> {body}) "))
                .e(src.clone())
                .t(" (indices ")
                .e(src)
                .t("))"),
        )
    }

    /// Indices and values for `hist` and `reduce_by_index`, of one length.
    pub(super) fn index_value_pairs(
        &mut self,
        env: &Env,
        t: ScalarType,
        d: u32,
    ) -> Option<(Expr, Expr)> {
        let from = self.num_type();
        let (src, size) = self.array1(env, from, d, None);
        if src.inexact {
            return None;
        }
        let (inner, x) = self.bind(env, "h", Ty::S(from), size);
        let m = self.rng.pick(&[1, 2, 3, 5, 16, 17]).to_owned();
        let idx = if from.is_float() {
            format!("i64.{} {x}", from.name())
        } else if self.rng.chance(0.7) {
            format!("i64.{} {x} % {m}i64", from.name())
        } else {
            format!("i64.{} {x}", from.name())
        };
        let is = Expr::node(Ty::arr(Ty::S(I64)))
            .t(&format!("(map (\\{x} -> {idx}) "))
            .e(src.clone())
            .t(")");
        let body = self.scalar(&inner, t, d);
        let vs = map_of(Ty::arr(Ty::S(t)), "", &x, body, src);
        Some((is, vs))
    }

    /// A row whose length does not depend on the lambda's parameter: a map
    /// over an array from outside, or a constant length.
    pub(super) fn fixed_row(&mut self, inner: &Env, outer: &Env, t: ScalarType, d: u32) -> Expr {
        let ty = Ty::arr(Ty::S(t));
        let outside: Vec<_> = outer
            .iter()
            .filter(|v| matches!(&v.ty, Ty::Arr(e) if matches!(**e, Ty::S(_))))
            .collect();
        if !outside.is_empty() && self.rng.chance(0.6) {
            let v = *self.rng.pick(&outside);
            let src = var_expr(v);
            let elem = src.ty.elem().cloned().unwrap_or(Ty::S(I64));
            let (inner2, y) = self.bind(inner, "y", elem, 0);
            let body = self.scalar(&inner2, t, d);
            return Expr::node(ty)
                .t(&format!("map (\\{y} -> "))
                .e(body)
                .t(") ")
                .e(src);
        }
        let n = self.rng.range(0, 4);
        let (inner2, j) = self.bind(inner, "c", Ty::S(I64), 0);
        let body = self.scalar(&inner2, t, d);
        Expr::node(ty)
            .t(&format!("tabulate {n}i64 (\\{j} -> "))
            .e(body)
            .t(")")
    }
}

pub fn var_expr(v: &super::ast::Var) -> Expr {
    let mut e = Expr::leaf(v.ty.clone(), &v.name);
    e.inexact = v.inexact;
    e
}
