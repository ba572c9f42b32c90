//! Whole programs: parameters, the chain of `let`s (tuple and record
//! patterns included), the results, and the inputs to run them on.

use super::arrays::var_expr;
use super::ast::{Expr, Prog, Stm, Ty, Var};
use super::extras::DEFS;
use super::gen::{Env, Gen, HELPERS};
use crate::types::ScalarType;
use ScalarType::*;

/// Length class of the one-dimensional parameters, and of the outer and
/// inner dimension of two-dimensional ones.
const PARAM_SIZE: u32 = 0;
const PARAM_ROWS: u32 = 1;

/// The program for `seed`.
pub fn generate(seed: u64) -> Prog {
    generate_long(seed, false)
}

/// What the programs of a campaign hold beyond the default.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// A chain of 12 to 30 `let`s instead of 2 to 7, so that more of them
    /// meet in fusion and in loop nests.
    pub long: bool,
    /// Arrays of the unit type `()` (on by default since a sweep ran them).
    pub unit_arrays: bool,
    /// Many statements for the newest kernels (`kernels.rs`): matrix
    /// products, long sums, reductions of many rows.
    pub kernels: bool,
    /// Many statements for the newest rewrites (`rewrites.rs`): `while`
    /// loops per point, guarded writes, gathers by `iota`, elements of
    /// maps, zipped rows under transposes.
    pub rewrites: bool,
    /// Many statements for the ninth session's passes (`nests.rs`): flat
    /// indices split into nests, products of mapped operands, reductions
    /// whose operator can fail, maps over flattened nests. Off, their
    /// weight is 0, so that other programs stay the same.
    pub nests: bool,
    /// Many statements in the idioms of the tenth and eleventh sessions'
    /// rewrites (`idioms.rs`): compaction by scan and scatter, scatter over
    /// `++`, pair reductions with tie rules, stencils with `||` borders.
    /// Off, their weight is 0, so that other programs stay the same.
    pub idioms: bool,
    /// Many statements for the twelfth and thirteenth sessions' paths
    /// (`chunks.rs`): scans and histograms of rows, wide argmax, rotations
    /// past the length, vector-matrix products, chains of maps. Off,
    /// their weight is 0.
    pub chunks: bool,
    /// Many statements for the fourteenth session's paths (`cuts.rs`):
    /// loops cut at a wrap-around, scatter chains, histograms of rows by
    /// atomics, `==` on arrays. Off, their weight is 0.
    pub cuts: bool,
    /// Many statements for the fifteenth session's loop-nest passes and
    /// kernels (`wraps.rs`): `for` loops that only read their array,
    /// `(i + c) % n` reads, flattened nests, reductions down columns, scans
    /// of few long rows. Off, their weight is 0.
    pub wraps: bool,
}

impl Default for Shape {
    fn default() -> Shape {
        Shape {
            long: false,
            unit_arrays: true,
            kernels: false,
            rewrites: false,
            nests: false,
            idioms: false,
            chunks: false,
            cuts: false,
            wraps: false,
        }
    }
}

/// The program for `seed`, long or not.
pub fn generate_long(seed: u64, long: bool) -> Prog {
    generate_with(
        seed,
        Shape {
            long,
            ..Shape::default()
        },
    )
}

/// The program for `seed` of the given shape.
pub fn generate_with(seed: u64, shape: Shape) -> Prog {
    let mut g = Gen::new(seed);
    g.unit_arrays = shape.unit_arrays;
    g.kernel_weight = if shape.kernels { 12 } else { 1 };
    g.rewrite_weight = if shape.rewrites { 12 } else { 1 };
    g.nest_weight = if shape.nests { 12 } else { 0 };
    g.idiom_weight = if shape.idioms { 12 } else { 0 };
    g.chunk_weight = if shape.chunks { 12 } else { 0 };
    g.cut_weight = if shape.cuts { 12 } else { 0 };
    g.wrap_weight = if shape.wraps { 12 } else { 0 };
    let long = shape.long;
    let mut params: Vec<Var> = Vec::new();
    let count = g.rng.range(1, 4);
    for k in 0..count {
        let name = format!("in{k}");
        let choice = if k == 0 {
            0
        } else {
            g.rng.weighted(&[6, 2, 2, 1])
        };
        let t = g.scalar_type();
        let (ty, size) = match choice {
            0 => (Ty::arr(Ty::S(t)), PARAM_SIZE),
            1 => (Ty::S(t), 0),
            2 => (Ty::arr(Ty::arr(Ty::S(t))), PARAM_ROWS),
            _ => (Ty::arr(Ty::arr(Ty::arr(Ty::S(t)))), PARAM_ROWS),
        };
        params.push(Var {
            name,
            ty,
            inexact: false,
            size,
        });
    }
    let mut env: Env = params.clone();
    let mut stms = Vec::new();
    if g.rng.chance(0.25) {
        if let Some(st) = g.consume_param(&env) {
            // The consumed parameter is gone; its update takes its name.
            env.retain(|v| st.vars.iter().all(|u| u.name != v.name));
            env.extend(st.vars.iter().cloned());
            stms.push(st);
        }
    }
    let (lo, hi) = if long { (12, 30) } else { (2, 7) };
    for _ in 0..g.rng.range(lo, hi) {
        let st = g.stm(&env);
        env.extend(st.vars.iter().cloned());
        stms.push(st);
    }
    let candidates: Vec<&Var> = stms
        .iter()
        .flat_map(|s| &s.vars)
        .filter(|v| v.ty.first_order())
        .collect();
    let mut results: Vec<Var> = Vec::new();
    // The last results most often: they depend on the most.
    for v in candidates.iter().rev() {
        if results.len() < 3 && (results.is_empty() || g.rng.chance(0.4)) {
            results.push((*v).clone());
        }
    }
    if results.is_empty() {
        results.push(params[0].clone());
    }
    results.reverse();
    // A kernel's value is a result, lest dead code elimination drop it.
    for name in &g.kernel_results {
        let kernel = candidates.iter().find(|v| &v.name == name);
        if let Some(v) = kernel.filter(|_| results.iter().all(|r| &r.name != name)) {
            results.push((*v).clone());
        }
    }
    let inputs = (0..2).map(|_| g.inputs(&params)).collect();
    let mut defs: Vec<String> = HELPERS.iter().chain(DEFS).map(|s| s.to_string()).collect();
    defs.append(&mut g.defs);
    Prog {
        defs,
        params,
        stms,
        results,
        inputs,
    }
}

impl Gen {
    fn stm(&mut self, env: &Env) -> Stm {
        for _ in 0..8 {
            if let Some(st) = self.stm_option(env) {
                return st;
            }
        }
        let t = self.scalar_type();
        let e = self.scalar(env, t, 2);
        self.single(e, 0)
    }

    fn single(&mut self, exp: Expr, size: u32) -> Stm {
        let name = self.name("v");
        Stm {
            pattern: name.clone(),
            vars: vec![Var {
                name,
                ty: exp.ty.clone(),
                inexact: exp.inexact,
                size,
            }],
            exp,
        }
    }

    /// `let (a, b) = exp` binding `tys` of length class `sizes`.
    fn pair(&mut self, exp: Expr, tys: [Ty; 2], sizes: [u32; 2]) -> Stm {
        let names = [self.name("v"), self.name("v")];
        let vars = (0..2)
            .map(|i| Var {
                name: names[i].clone(),
                ty: tys[i].clone(),
                inexact: exp.inexact,
                size: sizes[i],
            })
            .collect();
        Stm {
            pattern: format!("({}, {})", names[0], names[1]),
            vars,
            exp,
        }
    }

    fn stm_option(&mut self, env: &Env) -> Option<Stm> {
        let depth = 3;
        let (kernels, rewrites) = (self.kernel_weight, self.rewrite_weight);
        let k = self.rng.weighted(&[
            4,
            8,
            2,
            1,
            1,
            1,
            1,
            1,
            1,
            1,
            1,
            kernels,
            rewrites,
            self.nest_weight,
            self.idiom_weight,
            self.chunk_weight,
            self.cut_weight,
            self.wrap_weight,
        ]);
        let t = self.scalar_type();
        match k {
            0 => {
                let e = self.scalar(env, t, depth);
                Some(self.single(e, 0))
            }
            1 => {
                let (e, size) = self.array1(env, t, depth, None);
                Some(self.single(e, size))
            }
            2 => {
                let (e, size) = self.array2(env, t, depth, None);
                Some(self.single(e, size))
            }
            3 => {
                let (src, _) = self.array1(env, t, depth - 1, None);
                let (inner, x) = self.bind(env, "x", Ty::S(t), 0);
                let p = self.exact(&inner, Bool, depth - 1);
                let e = Expr::node(Ty::Tup(vec![]))
                    .t(&format!("partition (\\{x} -> "))
                    .e(p)
                    .t(") ")
                    .e(src);
                let (a, b) = (self.new_size(), self.new_size());
                Some(self.pair(e, [Ty::arr(Ty::S(t)), Ty::arr(Ty::S(t))], [a, b]))
            }
            4 => {
                let (src, size, x, [a, b]) = self.two_of_each(env, t, depth - 1)?;
                let t2 = b.ty.scalar_rank()?.0;
                let e = Expr::node(Ty::Tup(vec![]))
                    .t(&format!("unzip (map (\\{x} -> ("))
                    .e(a)
                    .t(", ")
                    .e(b)
                    .t(")) ")
                    .e(src)
                    .t(")");
                Some(self.pair(e, [Ty::arr(Ty::S(t)), Ty::arr(Ty::S(t2))], [size, size]))
            }
            5 => self.tuple_reduction(env, t, depth - 1),
            6 => {
                let t2 = self.scalar_type();
                let a = self.scalar(env, t, depth - 1);
                let b = self.scalar(env, t2, depth - 1);
                let (c, dn) = (self.name("c"), self.name("d"));
                let mut inner = env.clone();
                for (n, ty) in [(&c, t), (&dn, t2)] {
                    inner.push(Var {
                        name: n.clone(),
                        ty: Ty::S(ty),
                        inexact: a.inexact || b.inexact,
                        size: 0,
                    });
                }
                let (inner, i) = self.bind(&inner, "i", Ty::S(I64), 0);
                let a2 = self.scalar(&inner, t, depth - 1);
                let b2 = self.scalar(&inner, t2, depth - 1);
                let trips = self.rng.range(0, 4);
                let attr = self.attr(false);
                let e = Expr::node(Ty::Tup(vec![]))
                    .t(&format!("{attr}loop ({c}, {dn}) = ("))
                    .e(a)
                    .t(", ")
                    .e(b)
                    .t(&format!(") for {i} < {trips}i64 do ("))
                    .e(a2)
                    .t(", ")
                    .e(b2)
                    .t(")");
                Some(self.pair(e, [Ty::S(t), Ty::S(t2)], [0, 0]))
            }
            7 => {
                let t2 = self.scalar_type();
                let a = self.scalar(env, t, depth - 1);
                let b = self.scalar(env, t2, depth - 1);
                let ty = Ty::Rec(vec![("a".into(), Ty::S(t)), ("b".into(), Ty::S(t2))]);
                let e = Expr::node(ty).t("{b = ").e(b).t(", a = ").e(a).t("}");
                Some(self.single(e, 0))
            }
            8 => {
                let (xs, size) = self.array1(env, t, depth - 1, None);
                let t2 = self.scalar_type();
                let ys = self.same_size(env, t2, depth - 1, size, &xs);
                let ty = Ty::arr(Ty::Tup(vec![Ty::S(t), Ty::S(t2)]));
                let e = Expr::node(ty).t("zip ").e(xs).t(" ").e(ys);
                Some(self.single(e, size))
            }
            10 => {
                let (e, size) = self.array3(env, t, depth, None);
                Some(self.single(e, size))
            }
            11 => {
                let (e, size) = self.kernel_shape(env);
                let st = self.single(e, size);
                self.kernel_results.push(st.pattern.clone());
                Some(st)
            }
            12 => {
                let (e, size) = self.rewrite_shape(env)?;
                Some(self.single(e, size))
            }
            13 => {
                let (e, size) = self.nest_shape(env)?;
                let st = self.single(e, size);
                self.kernel_results.push(st.pattern.clone());
                Some(st)
            }
            14 => {
                let (e, size) = self.idiom_shape(env)?;
                let st = self.single(e, size);
                self.kernel_results.push(st.pattern.clone());
                Some(st)
            }
            15 => {
                let (e, size) = self.chunk_shape(env)?;
                let st = self.single(e, size);
                self.kernel_results.push(st.pattern.clone());
                Some(st)
            }
            17 => {
                let (e, size) = self.wrap_shape(env)?;
                let st = self.single(e, size);
                self.kernel_results.push(st.pattern.clone());
                Some(st)
            }
            16 => {
                let (e, size) = self.cut_shape(env)?;
                let st = self.single(e, size);
                self.kernel_results.push(st.pattern.clone());
                Some(st)
            }
            _ => {
                let (src, size, x, [a, b]) = self.two_of_each(env, t, depth - 1)?;
                let t2 = b.ty.scalar_rank()?.0;
                let ty = Ty::arr(Ty::Rec(vec![
                    ("a".into(), Ty::S(t)),
                    ("b".into(), Ty::S(t2)),
                ]));
                let e = Expr::node(ty)
                    .t(&format!("map (\\{x} -> {{a = "))
                    .e(a)
                    .t(", b = ")
                    .e(b)
                    .t("}) ")
                    .e(src);
                Some(self.single(e, size))
            }
        }
    }

    /// Two scalars, of `t` and of a random type, of each element `x` of an
    /// array: the array, its length class, `x` and the two.
    fn two_of_each(
        &mut self,
        env: &Env,
        t: ScalarType,
        d: u32,
    ) -> Option<(Expr, u32, String, [Expr; 2])> {
        let (src, size) = self.any_array(env, d);
        let elem = src.ty.elem()?.clone();
        let (inner, x) = self.bind(env, "x", elem, size);
        let t2 = self.scalar_type();
        let a = self.scalar(&inner, t, d);
        let b = self.scalar(&inner, t2, d);
        Some((src, size, x, [a, b]))
    }

    /// A reduction or scan over pairs: two operators side by side, or the
    /// composition of linear functions (associative, not commutative).
    fn tuple_reduction(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Stm> {
        if self.rng.chance(0.3) {
            return self.tuple_histogram(env, t, d);
        }
        if t.is_int() && self.rng.chance(0.2) {
            return self.linear_rows(env, t, d);
        }
        let linear = t.is_int() && self.rng.chance(0.4);
        let t2 = if linear { t } else { self.scalar_type() };
        let (xs, size) = self.array1(env, t, d, None);
        let ys = self.same_size(env, t2, d, size, &xs);
        let (op, ne) = if linear {
            self.linear_op(t)
        } else {
            self.side_by_side(t, t2)
        };
        let inexact = t.is_float() || t2.is_float();
        let scan = self.rng.chance(0.5);
        let (f, tys, sizes) = if scan {
            (
                "unzip (scan",
                [Ty::arr(Ty::S(t)), Ty::arr(Ty::S(t2))],
                [size, size],
            )
        } else {
            ("(reduce", [Ty::S(t), Ty::S(t2)], [0, 0])
        };
        let e = Expr::node(Ty::Tup(vec![]))
            .t(&format!("{f} {op} {ne} (zip "))
            .e(xs)
            .t(" ")
            .e(ys)
            .t("))")
            .inexact(inexact);
        Some(self.pair(e, tys, sizes))
    }

    /// Two commutative operators side by side on pairs of `t` and `t2`,
    /// and the pair of their neutral elements.
    fn side_by_side(&mut self, t: ScalarType, t2: ScalarType) -> (String, String) {
        let (o1, o2) = (self.op(t, true), self.op(t2, true));
        let [a1, b1, a2, b2] = ["a", "b", "a", "b"].map(|p| self.name(p));
        (
            format!(
                "(\\({a1}, {b1}) ({a2}, {b2}) -> ({} {a1} {a2}, {} {b1} {b2}))",
                o1.text, o2.text
            ),
            format!("({}, {})", o1.ne, o2.ne),
        )
    }

    /// The composition of linear functions `x -> a*x + b` on pairs
    /// (associative, not commutative), and its neutral element.
    fn linear_op(&mut self, t: ScalarType) -> (String, String) {
        let [a1, b1, a2, b2] = ["a", "b", "a", "b"].map(|p| self.name(p));
        let n = t.name();
        (
            format!("(\\({a1}, {b1}) ({a2}, {b2}) -> ({a1} * {a2}, {b1} * {a2} + {b2}))"),
            format!("(1{n}, 0{n})"),
        )
    }

    /// A reduction or scan of each row of a matrix with the (not
    /// commutative) linear composition, which must keep the order of a
    /// row's elements however a row is split among threads (a GPU runs a
    /// warp or a block per row): two vectors or two matrices.
    fn linear_rows(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Stm> {
        let (m, size) = self.array2(env, t, d, None);
        let row_size = self.new_size();
        let (inner, r) = self.bind(env, "r", Ty::arr(Ty::S(t)), row_size);
        let (inner, x) = self.bind(&inner, "x", Ty::S(t), 0);
        let f = self.exact(&inner, t, d);
        let (op, ne) = self.linear_op(t);
        let scan = self.rng.chance(0.5);
        let (soac, row_ty) = if scan {
            ("unzip (scan", Ty::arr(Ty::arr(Ty::S(t))))
        } else {
            ("(reduce", Ty::arr(Ty::S(t)))
        };
        let e = Expr::node(Ty::Tup(vec![]))
            .t(&format!(
                "unzip (map (\\{r} -> {soac} {op} {ne} (zip {r} (map (\\{x} -> "
            ))
            .e(f)
            .t(&format!(") {r})))) "))
            .e(m)
            .t(")");
        Some(self.pair(e, [row_ty.clone(), row_ty], [size, size]))
    }

    /// `reduce_by_index` into a zipped pair of arrays, or `hist`, with
    /// two commutative operators side by side.
    fn tuple_histogram(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Stm> {
        let t2 = self.scalar_type();
        let (is, vs) = self.index_value_pairs(env, t, d)?;
        let vs2 = self.same_size(env, t2, d, u32::MAX, &vs);
        let (op, ne) = self.side_by_side(t, t2);
        let inexact = t.is_float() || t2.is_float();
        let tys = [Ty::arr(Ty::S(t)), Ty::arr(Ty::S(t2))];
        let (e, size) = if self.rng.chance(0.5) {
            let (dest, size) = self.array1(env, t, d, None);
            let dest2 = self.same_size(env, t2, d, size, &dest);
            let head = Expr::node(Ty::Tup(vec![]))
                .t("unzip (reduce_by_index (zip ")
                .e(dest)
                .t(" ")
                .e(dest2)
                .t(&format!(") {op} {ne} "));
            (head, size)
        } else {
            let bins = self.rng.pick(&[0, 1, 2, 3, 17]).to_owned();
            let head = Expr::node(Ty::Tup(vec![])).t(&format!("unzip (hist {op} {ne} {bins}i64 "));
            (head, self.new_size())
        };
        let e = e
            .e(is)
            .t(" (zip ")
            .e(vs)
            .t(" ")
            .e(vs2)
            .t("))")
            .inexact(inexact);
        Some(self.pair(e, tys, [size, size]))
    }

    /// One line of text per parameter: all one-dimensional arrays of one
    /// length, all two-dimensional ones of one shape.
    fn inputs(&mut self, params: &[Var]) -> Vec<String> {
        let n = if self.rng.chance(0.03) {
            300
        } else {
            *self.rng.pick(&[0, 1, 2, 3, 4, 5, 7, 8, 16, 33, 40, 100])
        };
        let rows = *self.rng.pick(&[0, 1, 2, 3, 5]);
        let cols = *self.rng.pick(&[0, 1, 2, 3, 4]);
        let depth = *self.rng.pick(&[0, 1, 2, 3]);
        params
            .iter()
            .map(|p| match p.ty.scalar_rank() {
                Some((t, 0)) => self.value(t),
                Some((t, 1)) => self.array_text(t, &[n]),
                Some((t, 2)) => self.array_text(t, &[rows, cols]),
                Some((t, _)) => self.array_text(t, &[rows, cols, depth]),
                None => unreachable!("parameters are first-order"),
            })
            .collect()
    }

    fn array_text(&mut self, t: ScalarType, shape: &[usize]) -> String {
        if shape.contains(&0) {
            let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
            return format!("empty({dims}{})", t.name());
        }
        if shape.len() == 1 {
            let items: Vec<String> = (0..shape[0]).map(|_| self.value(t)).collect();
            return format!("[{}]", items.join(", "));
        }
        let rows: Vec<String> = (0..shape[0])
            .map(|_| self.array_text(t, &shape[1..]))
            .collect();
        format!("[{}]", rows.join(", "))
    }

    /// An input value: small numbers mostly, extremes and special floats
    /// sometimes.
    fn value(&mut self, t: ScalarType) -> String {
        let n = t.name();
        if t.is_float() && self.rng.chance(0.02) {
            let special = *self.rng.pick(&["", "-", ""]);
            let what = *self.rng.pick(&["inf", "inf", "nan"]);
            return if what == "nan" {
                format!("{n}.nan")
            } else {
                format!("{special}{n}.inf")
            };
        }
        if t.is_int() && self.rng.chance(0.05) {
            let v = self.rng.next_u64() as u128;
            let bits = t.bits();
            let v = v & ((1u128 << bits) - 1);
            let v = if t.is_signed() && v >> (bits - 1) == 1 {
                v as i128 - (1i128 << bits)
            } else {
                v as i128
            };
            return format!("{v}{n}");
        }
        let text = self.lit_text(t);
        if text.contains('.') && !t.is_float() {
            // `i8.lowest` is a program's spelling, not an input's.
            let c = crate::types::Const::int_wrapping(
                t,
                if text.ends_with("lowest") {
                    if t.is_signed() {
                        -(1i128 << (t.bits() - 1))
                    } else {
                        0
                    }
                } else if t.is_signed() {
                    (1i128 << (t.bits() - 1)) - 1
                } else {
                    (1i128 << t.bits()) - 1
                },
            );
            return format!("{c}");
        }
        text.trim_start_matches('(')
            .trim_end_matches(')')
            .to_string()
    }
}

/// A variable as an expression (for the shrinker).
pub fn var(v: &Var) -> Expr {
    var_expr(v)
}
