//! Statements in the idioms that the tenth and eleventh sessions' rewrites
//! match, which the other generators never write:
//!
//! - compaction by `scan` and `scatter`: flags of a predicate, their prefix
//!   sums, targets `o - 1` for flagged elements and `-1` for the others, a
//!   destination of the flags' total (`simplify-compaction` makes it a
//!   `filter`), and near misses it must leave alone (targets `o` into a
//!   destination one longer, a destination longer than the total);
//! - `scatter` over concatenations `i1 ++ i2 (++ i3)` of index and value
//!   parts made by maps (`simplify-scatter-split`), with indices past the
//!   end, negative and duplicate (the values a function of the index);
//! - reductions of `(value, index)` pairs with a tie rule (argmax and argmin,
//!   ties to the lower or the higher index, as `||` of comparisons or as
//!   nested `if`s), whole and per row (`loopy::select`'s strided lanes, the
//!   operator proven commutative);
//! - stencils whose borders are tested by `||` (or their interior by `&&`)
//!   over `tabulate`, `map` over `iota` and rows of a matrix bound by
//!   `let [n][m]`, once or in a `for` loop (`loopy::chunk`'s peeled
//!   ranges, proven through `or`), a side of the test missing when risky.

use super::ast::{Expr, Ty, Var};
use super::gen::{zero, Env, Gen};
use super::ranked::ranked;
use super::rewrites::with_scalars;
use crate::types::ScalarType;
use ScalarType::*;

impl Gen {
    /// An expression for one of the idioms above and its length class.
    pub fn idiom_shape(&mut self, env: &Env) -> Option<(Expr, u32)> {
        match self.rng.below(4) {
            0 => self.scan_scatter_compaction(env),
            1 => self.scatter_of_concats(env),
            2 => self.pair_reduction(env),
            _ => self.or_stencil(env),
        }
    }

    /// `let fl = flags of p over xs; let offs = scan (+) 0 fl; let k = total
    /// in scatter (replicate k v) (map2 target fl offs) ys`.
    fn scan_scatter_compaction(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.num_type();
        let from = self.scalar_type();
        let (xs, size) = self.array1(env, from, 2, None);
        if xs.inexact {
            return None;
        }
        let ys = self.same_size(env, t, 2, size, &xs);
        let (xv, fl, offs, k, f, o) = (
            self.name("xs"),
            self.name("fl"),
            self.name("offs"),
            self.name("k"),
            self.name("f"),
            self.name("o"),
        );
        let (inner, x) = self.bind(env, "x", Ty::S(from), size);
        let p = self.exact(&inner, Bool, 2);
        let bools = self.rng.chance(0.3);
        let flags = if bools {
            Expr::node(Ty::arr(Ty::S(Bool)))
                .t(&format!("map (\\{x} -> "))
                .e(p)
                .t(&format!(") {xv}"))
        } else if self.rng.chance(0.5) {
            Expr::node(Ty::arr(Ty::S(I64)))
                .t(&format!("map (\\{x} -> if "))
                .e(p)
                .t(&format!(" then 1i64 else 0i64) {xv}"))
        } else {
            Expr::node(Ty::arr(Ty::S(I64)))
                .t(&format!("map i64.bool (map (\\{x} -> "))
                .e(p)
                .t(&format!(") {xv})"))
        };
        let counts = if bools {
            format!("(map i64.bool {fl})")
        } else {
            fl.clone()
        };
        let total = match self.rng.below(3) {
            0 => format!("reduce (+) 0i64 {counts}"),
            1 => format!("if length {xv} > 0 then {offs}[length {xv} - 1] else 0i64"),
            _ => format!("if length {xv} == 0 then 0i64 else {offs}[length {xv} - 1]"),
        };
        let is_set = if bools {
            f.clone()
        } else {
            format!("{f} == 1i64")
        };
        // The filter, or a near miss that stays a scatter.
        let (target, dest) = match self.rng.weighted(&[6, 1, 1, 1]) {
            0 => (format!("{o} - 1i64"), k.clone()),
            1 => (o.clone(), format!("{k} + 1i64")),
            2 => (format!("{o} - 1i64"), format!("{k} + 2i64")),
            _ if self.risky() => (format!("{o} - 1i64"), format!("{k} - 1i64")),
            _ => (format!("{o} - 1i64"), format!("length {xv}")),
        };
        let v = self.lit(t);
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {xv} = "))
            .e(xs)
            .t(&format!(" let {fl} = "))
            .e(flags)
            .t(&format!(
                " let {offs} = scan (+) 0i64 {counts} let {k} = {total} in scatter (replicate ({dest}) "
            ))
            .e(v)
            .t(&format!(
                ") (map2 (\\{f} {o} -> if {is_set} then {target} else -1i64) {fl} {offs}) "
            ))
            .e(ys)
            .t(")");
        Some((e, self.new_size()))
    }

    /// `scatter d (map ix a ++ map ix' b ...) (map vx a ++ map vx' b ...)`:
    /// each part's index and value maps run over the same array, each value
    /// a function of its index (duplicates write equal values).
    fn scatter_of_concats(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.num_type();
        let parts = if self.rng.chance(0.75) { 2 } else { 3 };
        let (dv, jv) = (self.name("d"), self.name("j"));
        let dest_len = *self.rng.pick(&[0i64, 1, 5, 16, 40, 100]);
        let (dest, size) = {
            let own: Vec<&Var> = env
                .iter()
                .filter(|v| v.ty == Ty::arr(Ty::S(t)) && !v.inexact)
                .collect();
            if !own.is_empty() && self.rng.chance(0.5) {
                let v = *self.rng.pick(&own);
                (Expr::leaf(v.ty.clone(), format!("copy {}", v.name)), v.size)
            } else {
                let v = self.lit(t);
                (
                    Expr::node(Ty::arr(Ty::S(t)))
                        .t(&format!("replicate {dest_len}i64 "))
                        .e(v),
                    self.new_size(),
                )
            }
        };
        let value_env = with_scalars(env, &[(&jv, I64)], false);
        let value = self.exact(&value_env, t, 2);
        let (mut index_parts, mut wraps) = (Vec::new(), Vec::new());
        for part in 0..parts {
            let from = self.scalar_type();
            let (src, _) = self.array1(env, from, 1, None);
            let (x, i) = (self.name("x"), self.name("i"));
            let offset = if part == 0 {
                "0i64".to_string()
            } else {
                format!("length {dv}")
            };
            // The pass splits off a first part made by a SOAC: not `i`
            // alone, which the simplifier makes an `iota`.
            let form = if part == 0 {
                self.rng.below(4) + 2
            } else {
                self.rng.below(6)
            };
            let ix = match form {
                0 => i.clone(),
                1 => format!("{i} + {offset}"),
                2 => format!("{i} * 2i64 - 1i64"),
                3 => format!("{i} / 2i64"),
                4 => format!("length {dv} - 1i64 - {i}"),
                _ if from.is_int() => format!("i64.{} {x} % 7i64", from.name()),
                _ => format!("{i} * 3i64 % 7i64"),
            };
            let (wrap, sv) = self.shared(env, src);
            index_parts.push((
                format!("(map2 (\\{x} {i} -> {ix}) {sv} (indices {sv}))"),
                ix.clone(),
                x.clone(),
                i.clone(),
                sv.clone(),
            ));
            wraps.push(wrap);
        }
        // The parts' arrays are bound around the scatter (`shared`), so the
        // index and value maps of a part read one array.
        let indices: Vec<String> = index_parts.iter().map(|p| p.0.clone()).collect();
        let mut e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let {dv} = "))
            .e(dest)
            .t(&format!(" in scatter {dv} ({}) (", indices.join(" ++ ")));
        for (k, (_, ix, x, i, sv)) in index_parts.iter().enumerate() {
            if k > 0 {
                e = e.t(" ++ ");
            }
            e = e
                .t(&format!("(map2 (\\{x} {i} -> let {jv} = {ix} in "))
                .e(value.clone())
                .t(&format!(") {sv} (indices {sv}))"));
        }
        let mut e = e.t("))");
        for wrap in wraps.into_iter().rev() {
            e = wrap(e);
        }
        Some((e, size))
    }

    /// `reduce op (ne, ne_i) (zip vs (iota n))` with `op` keeping the larger
    /// (or smaller) value and, of equal ones, the lower (or higher) index;
    /// whole, or per row of a matrix; the index, the value or both.
    pub(super) fn pair_reduction(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = self.num_type();
        let n = t.name();
        let (v1, i1, v2, i2) = (
            self.name("v"),
            self.name("i"),
            self.name("v"),
            self.name("i"),
        );
        let larger = self.rng.chance(0.6);
        let lower = self.rng.chance(0.7);
        let (better, worst) = if larger {
            (">", format!("{n}.lowest"))
        } else {
            ("<", format!("{n}.highest"))
        };
        let (earlier, no_index) = if lower {
            ("<", "i64.highest")
        } else {
            (">", "-1i64")
        };
        let worse = if larger { "<" } else { ">" };
        let op = if self.rng.chance(0.6) {
            format!(
                "(\\({v1}, {i1}) ({v2}, {i2}) -> if {v1} {better} {v2} || ({v1} == {v2} && {i1} {earlier} {i2}) then ({v1}, {i1}) else ({v2}, {i2}))"
            )
        } else {
            format!(
                "(\\({v1}, {i1}) ({v2}, {i2}) -> if {v1} {better} {v2} then ({v1}, {i1}) else if {v1} {worse} {v2} then ({v2}, {i2}) else if {i1} {earlier} {i2} then ({v1}, {i1}) else ({v2}, {i2}))"
            )
        };
        let ne = format!("({worst}, {no_index})");
        let pick = self.rng.below(3);
        let (result_ty, select) = match pick {
            0 => (I64, ".1".to_string()),
            1 => (t, ".0".to_string()),
            _ => (I64, String::new()),
        };
        // A NaN compares false both ways and breaks associativity: values
        // go through a map that replaces it.
        let clean = |x: &str| {
            if t.is_float() {
                format!("(if {n}.isnan {x} then 0{n} else {x})")
            } else {
                x.to_string()
            }
        };
        let combine = |r: &str| {
            if pick == 2 {
                let (a, b) = (format!("{r}.0"), format!("{r}.1"));
                if t.is_float() {
                    format!("({b} + i64.bool ({a} > 0{n}))")
                } else {
                    format!("({b} + i64.{n} {a})")
                }
            } else {
                format!("{r}{select}")
            }
        };
        let rv = self.name("r");
        if self.rng.chance(0.35) {
            let (m, size) = self.array2(env, t, 1, None);
            if m.inexact {
                return None;
            }
            let (row, x) = (self.name("row"), self.name("x"));
            let e = Expr::node(Ty::arr(Ty::S(result_ty)))
                .t(&format!(
                    "(map (\\{row} -> let {rv} = reduce {op} {ne} (zip (map (\\{x} -> {}) {row}) (indices {row})) in {}) ",
                    clean(&x),
                    combine(&rv)
                ))
                .e(m)
                .t(")");
            return Some((e, size));
        }
        let from = self.scalar_type();
        let (xs, size) = self.array1(env, from, 2, None);
        if xs.inexact {
            return None;
        }
        let (inner, x) = self.bind(env, "x", Ty::S(from), size);
        let value = self.exact(&inner, t, 2);
        let (xv, vs) = (self.name("xs"), self.name("vs"));
        let c = clean(&x);
        let pairs = if self.rng.chance(0.5) {
            format!("zip {vs} (iota (length {vs}))")
        } else {
            let j = self.name("j");
            format!("map2 (\\{x} {j} -> ({c}, {j})) {vs} (indices {vs})")
        };
        let e = Expr::node(Ty::S(result_ty))
            .t(&format!("(let {xv} = "))
            .e(xs)
            .t(&format!(" let {vs} = map (\\{x} -> let {x} = "))
            .e(value)
            .t(&format!(
                " in {c}) {xv} let {rv} = reduce {op} {ne} ({pairs}) in {})",
                combine(&rv)
            ));
        Some((e, 0))
    }

    /// A stencil whose border is `i == 0 || i == n - 1` (or the interior
    /// `i > 0 && i < n - 1`), over a vector or a matrix's rows and columns.
    fn or_stencil(&mut self, env: &Env) -> Option<(Expr, u32)> {
        let t = *self.rng.pick(&[F32, F64, I32, I64, F32, U16, I8, F16, U64]);
        let n = t.name();
        let z = zero(t);
        let (nv, mv, gv, iv, jv, sv) = (
            self.name("n"),
            self.name("m"),
            self.name("g"),
            self.name("i"),
            self.name("j"),
            self.name("s"),
        );
        let risky = self.risky();
        let [wa, wb, wc] = if t.is_float() {
            [format!("0.25{n}"), format!("0.5{n}"), format!("0.25{n}")]
        } else {
            [format!("1{n}"), format!("2{n}"), format!("1{n}")]
        };
        let sweeps = if self.rng.chance(0.3) {
            self.rng.range(0, 4)
        } else {
            1
        };
        let border_value = |g: &mut Gen, at: &str| -> String {
            match g.rng.below(3) {
                0 => at.to_string(),
                1 => z.clone(),
                _ => format!("({at} + {at})"),
            }
        };
        if self.rng.chance(0.4) {
            // Two dimensions: a matrix bound with its sizes.
            let own: Vec<&Var> = env
                .iter()
                .filter(|v| v.ty == ranked(t, 2) && !v.inexact)
                .collect();
            let (src, size) = if !own.is_empty() && self.rng.chance(0.6) {
                let v = *self.rng.pick(&own);
                (Expr::leaf(v.ty.clone(), v.name.clone()), v.size)
            } else {
                let (m, size) = self.array2(env, t, 1, None);
                if m.inexact {
                    return None;
                }
                (m, size)
            };
            let mut sides = vec![
                format!("{iv} == 0"),
                format!("{jv} == 0"),
                format!("{iv} == {nv} - 1"),
                format!("{jv} + 1 == {mv}"),
            ];
            if risky {
                let k = self.rng.below(sides.len());
                sides.remove(k);
            }
            let border = sides.join(" || ");
            let at = format!("{sv}[{iv}, {jv}]");
            let edge = border_value(self, &at);
            let interior = format!(
                "{wb} * {at} + {wa} * ({sv}[{iv} - 1, {jv}] + {sv}[{iv} + 1, {jv}]) - {wc} * ({sv}[{iv}, {jv} - 1] - {sv}[{iv}, {jv} + 1])"
            );
            let step = if self.rng.chance(0.5) {
                format!("tabulate_2d {nv} {mv} (\\{iv} {jv} -> if {border} then {edge} else {interior})")
            } else {
                format!("map (\\{iv} -> map (\\{jv} -> if {border} then {edge} else {interior}) (iota {mv})) (iota {nv})")
            };
            let e = Expr::node(ranked(t, 2))
                .t(&format!("(let [{nv}][{mv}] ({gv}: [{nv}][{mv}]{n}) = "))
                .e(src)
                .t(&format!(
                    " in loop {sv} = {gv} for _i < {sweeps}i64 do {step})"
                ));
            return Some((e, size));
        }
        let (xs, size) = self.array1(env, t, 2, None);
        if xs.inexact {
            return None;
        }
        let radius = if self.rng.chance(0.75) { 1 } else { 2 };
        let (low, high) = if risky && self.rng.chance(0.5) {
            ("false".to_string(), format!("{iv} >= {nv} - {radius}"))
        } else if risky {
            (format!("{iv} < {radius}"), "false".to_string())
        } else {
            match self.rng.below(3) {
                0 => (
                    format!("{iv} < {radius}"),
                    format!("{iv} >= {nv} - {radius}"),
                ),
                1 => (
                    format!("{iv} <= {}", radius - 1),
                    format!("{iv} + {radius} >= {nv}"),
                ),
                _ => (
                    format!("{iv} < {radius}"),
                    format!("{nv} - {radius} <= {iv}"),
                ),
            }
        };
        let at = format!("{sv}[{iv}]");
        let edge = border_value(self, &at);
        let interior =
            format!("{wa} * {sv}[{iv} - {radius}] + {wb} * {at} + {wc} * {sv}[{iv} + {radius}]");
        let point = if self.rng.chance(0.7) {
            format!("if {low} || {high} then {edge} else {interior}")
        } else {
            format!("if !({low}) && !({high}) then {interior} else {edge}")
        };
        let step = match self.rng.below(3) {
            0 => format!("tabulate {nv} (\\{iv} -> {point})"),
            1 => format!("map (\\{iv} -> {point}) (iota {nv})"),
            _ => format!("map2 (\\_x {iv} -> {point}) {sv} (iota {nv})"),
        };
        let e = Expr::node(Ty::arr(Ty::S(t)))
            .t(&format!("(let [{nv}] ({gv}: [{nv}]{n}) = "))
            .e(xs)
            .t(&format!(
                " in loop {sv} = {gv} for _i < {sweeps}i64 do {step})"
            ));
        Some((e, size))
    }
}
