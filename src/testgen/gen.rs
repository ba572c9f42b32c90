//! The program generator: an entry point `main` over random array and
//! scalar parameters whose body is a chain of `let`s, each a random
//! well-typed expression over the names before it. Scalar expressions are
//! here, arrays in `arrays.rs`, statements and inputs in `stms.rs`.
//!
//! Two properties make results comparable across backends. Every SOAC
//! operator is associative (and commutative where the SOAC may reorder), and
//! a scatter's values are a function of their index, so the result does not
//! depend on the execution order except where floats are reassociated:
//! such values are marked inexact ([`Expr::inexact`]) and compared within
//! the tolerance, and they never reach a comparison, a conversion to an
//! integer, an index or a divisor, where a rounding difference would grow
//! into an arbitrary one. Errors are deliberate: with probability
//! `hazard` an index, divisor, size or assertion is left unguarded.

use super::ast::{Expr, Ty, Var};
use super::rng::Rng;
use crate::types::ScalarType;
use ScalarType::*;

pub type Env = Vec<Var>;

/// An array expression and its length class, if an option could make one.
pub type Made = Option<(Expr, u32)>;

/// `({head}map (\x -> body) src)`: a map of `src` to type `ty`.
pub fn map_of(ty: Ty, head: &str, x: &str, body: Expr, src: Expr) -> Expr {
    Expr::node(ty)
        .t(&format!("({head}map (\\{x} -> "))
        .e(body)
        .t(") ")
        .e(src)
        .t(")")
}

pub struct Gen {
    pub rng: Rng,
    fresh: usize,
    next_size: u32,
    /// Probability that a guardable operation is left unguarded.
    pub hazard: f64,
    /// Definitions made for this program (module instances), after
    /// `HELPERS` and `extras::DEFS`.
    pub defs: Vec<String>,
    /// Arrays of the unit type `()` (`Shape::unit_arrays`).
    pub unit_arrays: bool,
    /// Weight of the statements for the newest kernels (`Shape::kernels`).
    pub kernel_weight: u32,
    /// The variables bound to those statements, all kept as results.
    pub kernel_results: Vec<String>,
    /// Weight of the statements for the newest rewrites (`Shape::rewrites`).
    pub rewrite_weight: u32,
    /// Weight of the statements for the ninth session's passes
    /// (`Shape::nests`; 0 when off).
    pub nest_weight: u32,
    /// Weight of the statements in the idioms of the newest rewrites
    /// (`Shape::idioms`; 0 when off).
    pub idiom_weight: u32,
    /// Weight of the statements for the chunked scans and histograms,
    /// column jams, rotations, wide argmax and map chains
    /// (`Shape::chunks`; 0 when off).
    pub chunk_weight: u32,
    /// Weight of the statements for cut loops, scatter chains, histograms
    /// of rows by atomics and array equality (`Shape::cuts`; 0 when off).
    pub cut_weight: u32,
    /// Weight of the statements for borrowed loops, wrapped remainders,
    /// flattened nests, column reductions and long row scans
    /// (`Shape::wraps`; 0 when off).
    pub wrap_weight: u32,
}

/// Helper definitions a program may call; `Prog::source` keeps those used.
pub const HELPERS: &[&str] = &[
    "def twice 't (f: t -> t) (x: t) : t = f (f x)",
    "def fold_with 't (op: t -> t -> t) (ne: t) (xs: []t) : t = reduce op ne xs",
    "def pairwise [n] 'a 'b (f: a -> a -> b) (xs: [n]a) (ys: [n]a) : [n]b = map2 f xs ys",
];

/// An associative operator on `t` with its neutral element.
pub struct Op {
    pub text: String,
    pub ne: String,
    pub commutative: bool,
}

impl Gen {
    pub fn new(seed: u64) -> Gen {
        let mut rng = Rng::new(seed);
        let hazard = if rng.chance(0.3) { 0.08 } else { 0.0 };
        Gen {
            rng,
            fresh: 0,
            next_size: 16,
            hazard,
            defs: Vec::new(),
            unit_arrays: false,
            kernel_weight: 1,
            kernel_results: Vec::new(),
            rewrite_weight: 1,
            nest_weight: 0,
            idiom_weight: 0,
            chunk_weight: 0,
            cut_weight: 0,
            wrap_weight: 0,
        }
    }

    pub fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    pub fn new_size(&mut self) -> u32 {
        self.next_size += 1;
        self.next_size
    }

    pub fn risky(&mut self) -> bool {
        self.hazard > 0.0 && self.rng.chance(self.hazard)
    }

    pub fn scalar_type(&mut self) -> ScalarType {
        const W: [(ScalarType, u32); 12] = [
            (I32, 5),
            (I64, 5),
            (F32, 4),
            (F64, 3),
            (Bool, 2),
            (I8, 1),
            (I16, 1),
            (U8, 1),
            (U16, 1),
            (U32, 1),
            (U64, 1),
            (F16, 1),
        ];
        let weights: Vec<u32> = W.iter().map(|w| w.1).collect();
        W[self.rng.weighted(&weights)].0
    }

    pub fn num_type(&mut self) -> ScalarType {
        loop {
            let t = self.scalar_type();
            if t != Bool {
                return t;
            }
        }
    }

    /// A literal of type `t`: small values mostly, the type's extremes
    /// sometimes.
    pub fn lit(&mut self, t: ScalarType) -> Expr {
        Expr::leaf(Ty::S(t), self.lit_text(t))
    }

    pub fn lit_text(&mut self, t: ScalarType) -> String {
        let n = t.name();
        match t {
            Bool => (if self.rng.chance(0.5) {
                "true"
            } else {
                "false"
            })
            .into(),
            F16 | F32 | F64 => {
                let v = self.rng.range(-12, 12) as f64 / 4.0;
                if v < 0.0 {
                    format!("(-{:?}{n})", -v)
                } else {
                    format!("{v:?}{n}")
                }
            }
            _ => {
                if self.rng.chance(0.08) {
                    return format!("{n}.{}", self.rng.pick(&["lowest", "highest"]));
                }
                let v = if t.is_signed() {
                    self.rng.range(-5, 9)
                } else {
                    self.rng.range(0, 12)
                };
                if v < 0 {
                    format!("(-{}{n})", -v)
                } else {
                    format!("{v}{n}")
                }
            }
        }
    }

    pub fn vars<'a>(&self, env: &'a Env, ty: &Ty) -> Vec<&'a Var> {
        env.iter().filter(|v| &v.ty == ty).collect()
    }

    /// A lambda parameter of type `ty` added to a copy of `env`.
    pub fn bind(&mut self, env: &Env, prefix: &str, ty: Ty, size: u32) -> (Env, String) {
        let name = self.name(prefix);
        let mut inner = env.clone();
        inner.push(Var {
            name: name.clone(),
            ty,
            inexact: false,
            size,
        });
        (inner, name)
    }

    /// A scalar expression whose value every backend computes alike.
    pub fn exact(&mut self, env: &Env, t: ScalarType, depth: u32) -> Expr {
        for _ in 0..4 {
            let e = self.scalar(env, t, depth);
            if !e.inexact {
                return e;
            }
        }
        self.lit(t)
    }

    /// An `i64` index into an array of length `len` (text), in range unless risky.
    pub fn index(&mut self, env: &Env, len: &str, depth: u32) -> (Expr, bool) {
        let t = self.rng.pick(&[I64, I32, I8, U8]).to_owned();
        let raw = self.exact(env, t, depth);
        let as64 = if t == I64 {
            raw
        } else {
            Expr::node(Ty::S(I64)).t("i64.").t(t.name()).t(" ").e(raw)
        };
        if self.risky() {
            return (as64, false);
        }
        let e = Expr::node(Ty::S(I64))
            .t("(")
            .e(as64)
            .t(&format!(" % {len})"));
        (e, true)
    }

    pub fn op(&mut self, t: ScalarType, commutative: bool) -> Op {
        let n = t.name();
        let op = |text: &str, ne: String, commutative: bool| Op {
            text: text.into(),
            ne,
            commutative,
        };
        let last_nonzero = op(
            &format!("(\\a b -> if b == {} then a else b)", zero(t)),
            zero(t),
            false,
        );
        let choice = self.rng.below(if commutative { 7 } else { 8 });
        match t {
            Bool => match choice % 4 {
                0 => op("(&&)", "true".into(), true),
                1 => op("(||)", "false".into(), true),
                2 => op("(!=)", "false".into(), true),
                _ => op("(==)", "true".into(), true),
            },
            // Half precision adds with so few bits that a reassociated
            // sum leaves the tolerance: only the exact operators.
            F16 => match choice % 3 {
                0 => op("f16.min", "f16.inf".into(), true),
                1 => op("f16.max", "(-f16.inf)".into(), true),
                _ if !commutative => last_nonzero,
                _ => op("f16.min", "f16.inf".into(), true),
            },
            F32 | F64 => match choice % 5 {
                0 | 1 => op("(+)", format!("0{n}"), true),
                2 => op(&format!("{n}.min"), format!("{n}.inf"), true),
                3 => op(&format!("{n}.max"), format!("(-{n}.inf)"), true),
                _ if !commutative => last_nonzero,
                // Not `*`: reassociated, a product holding a 0 and
                // factors that overflow is NaN in one order and 0 in
                // another (found by seed 14,970,156).
                _ => op("(+)", format!("0{n}"), true),
            },
            _ => match choice {
                0 | 1 => op("(+)", format!("0{n}"), true),
                2 => op("(*)", format!("1{n}"), true),
                3 => op(&format!("{n}.min"), format!("{n}.highest"), true),
                4 => op(&format!("{n}.max"), format!("{n}.lowest"), true),
                5 => op("(^)", format!("0{n}"), true),
                6 => op("(|)", format!("0{n}"), true),
                _ => last_nonzero,
            },
        }
    }

    /// A scalar expression of type `t` in `env`, at most `depth` deep.
    pub fn scalar(&mut self, env: &Env, t: ScalarType, depth: u32) -> Expr {
        for _ in 0..12 {
            let weights: [u32; 23] = if depth == 0 {
                [
                    3, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                ]
            } else {
                [
                    2, 5, 6, 2, 1, 2, 2, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2,
                ]
            };
            let k = self.rng.weighted(&weights);
            if let Some(e) = self.scalar_option(k, env, t, depth) {
                return e;
            }
        }
        self.lit(t)
    }

    fn scalar_option(&mut self, k: usize, env: &Env, t: ScalarType, depth: u32) -> Option<Expr> {
        let ty = Ty::S(t);
        let n = t.name();
        let d = depth.saturating_sub(1);
        match k {
            0 => Some(self.lit(t)),
            1 => self.scalar_var(env, t),
            2 => {
                let ops: &[&str] = match t {
                    Bool => &["&&", "||", "==", "!="],
                    F16 | F32 | F64 => &["+", "-", "*", "+", "-"],
                    _ => &["+", "-", "*", "&", "|", "^", "<<", ">>", ">>>", "+", "-"],
                };
                let o = *self.rng.pick(ops);
                let a = self.scalar(env, t, d);
                let b = if o.contains('<') || o.contains('>') {
                    self.exact(env, t, d)
                } else {
                    self.scalar(env, t, d)
                };
                Some(Expr::node(ty).t("(").e(a).t(&format!(" {o} ")).e(b).t(")"))
            }
            3 if t != Bool => {
                let a = self.scalar(env, t, d);
                let b = self.exact(env, t, d);
                let o = if t.is_float() {
                    *self.rng.pick(&["/", "/", "%"])
                } else {
                    *self.rng.pick(&["/", "%", "//", "%%"])
                };
                let e = Expr::node(ty).t("(").e(a).t(&format!(" {o} "));
                if t.is_float() || self.risky() {
                    Some(e.e(b).t(")"))
                } else {
                    Some(e.t("(").e(b).t(&format!(" | 1{n}))")))
                }
            }
            4 => {
                let a = self.scalar(env, t, d);
                if t == Bool || (t.is_int() && self.rng.chance(0.4)) {
                    Some(Expr::node(ty).t("(!").e(a).t(")"))
                } else {
                    Some(Expr::node(ty).t("(-").e(a).t(")"))
                }
            }
            5 => {
                let from = self.scalar_type();
                if from == t {
                    return None;
                }
                let a = if t.is_float() && from.is_float() {
                    self.scalar(env, from, d)
                } else {
                    self.exact(env, from, d)
                };
                Some(
                    Expr::node(ty)
                        .t(&format!("({n}.{} ", from.name()))
                        .e(a)
                        .t(")"),
                )
            }
            6 => {
                let c = self.exact(env, Bool, d);
                let a = self.scalar(env, t, d);
                let b = self.scalar(env, t, d);
                Some(Expr::if_then_else(ty, c, a, b))
            }
            7 => self.element(env, t, d),
            8 => self.reduction(env, t, d),
            9 => self.module_fn(env, t, d),
            10 => self.stdlib_scalar(env, t, d),
            11 if t == Bool => self.predicate(env, d),
            11 if t == I64 => {
                let (a, _) = self.any_array(env, d);
                Some(Expr::node(ty).t("(length ").e(a).t(")"))
            }
            12 => self.scalar_loop(env, t, d),
            13 if self.hazard > 0.0 => {
                let c = self.exact(env, Bool, d);
                let a = self.scalar(env, t, d);
                Some(Expr::node(ty).t("(assert ").e(c).t(" ").e(a).t(")"))
            }
            14 => {
                let a = self.scalar(env, t, d);
                let (inner, x) = self.bind(env, "v", a.ty.clone(), 0);
                let inner_env = {
                    let mut e = inner;
                    e.last_mut().unwrap().inexact = a.inexact;
                    e
                };
                let b = self.scalar(&inner_env, t, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("(let {x} = "))
                        .e(a)
                        .t(" in ")
                        .e(b)
                        .t(")"),
                )
            }
            15 => {
                let (inner, x) = self.bind(env, "y", ty.clone(), 0);
                let f = self.scalar(&inner, t, d);
                let a = self.scalar(env, t, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("(twice (\\{x} -> "))
                        .e(f)
                        .t(") ")
                        .e(a)
                        .t(")"),
                )
            }
            16 => self.element2(env, t, d),
            17 => self.sum_scalar(env, t, d),
            19 => self.nested_match(env, t, d),
            18 => self.module_reduce(env, t, d),
            20 => self.grown_scalar(env, t, d),
            21 => self.contract_scalar(env, t, d),
            22 => self.prelude_scalar(env, t, d),
            _ => None,
        }
    }

    /// A variable of type `t`, or a field of a tuple or record variable.
    fn scalar_var(&mut self, env: &Env, t: ScalarType) -> Option<Expr> {
        let mut found: Vec<Expr> = Vec::new();
        for v in env {
            match &v.ty {
                Ty::S(s) if *s == t => found.push(Expr::leaf(v.ty.clone(), &v.name)),
                Ty::Tup(ts) => {
                    for (i, x) in ts.iter().enumerate() {
                        if x == &Ty::S(t) {
                            found.push(Expr::leaf(x.clone(), format!("{}.{i}", v.name)));
                        }
                    }
                }
                Ty::Rec(fs) => {
                    for (f, x) in fs {
                        if x == &Ty::S(t) {
                            found.push(Expr::leaf(x.clone(), format!("{}.{f}", v.name)));
                        }
                    }
                }
                _ => continue,
            }
            if v.inexact {
                if let Some(last) = found.last_mut() {
                    last.inexact = true;
                }
            }
        }
        if found.is_empty() {
            return None;
        }
        let i = self.rng.below(found.len());
        Some(found.swap_remove(i))
    }

    /// `xs[i]`, guarded by the length unless risky.
    fn element(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let (xs, _) = self.array1(env, t, d, None);
        let (a, var) = self.shared(env, xs);
        let (i, guarded) = self.index(env, &format!("length {var}"), d);
        let body = Expr::node(Ty::S(t)).t(&format!("{var}[")).e(i).t("]");
        let body = if guarded {
            let dflt = self.lit(t);
            Expr::node(Ty::S(t))
                .t(&format!("(if length {var} == 0 then "))
                .e(dflt)
                .t(" else ")
                .e(body)
                .t(")")
        } else {
            body
        };
        Some(a(body))
    }

    /// `m[i, j]` of a two-dimensional array.
    fn element2(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let (m, _) = self.array2(env, t, d, None);
        let (a, var) = self.shared(env, m);
        let (i, gi) = self.index(env, &format!("length {var}"), d);
        let (j, gj) = self.index(env, &format!("length {var}[0]"), d);
        let body = Expr::node(Ty::S(t))
            .t(&format!("{var}["))
            .e(i)
            .t(", ")
            .e(j)
            .t("]");
        if gi || gj {
            let dflt = self.lit(t);
            Some(a(Expr::node(Ty::S(t))
                .t(&format!("(if length {var} == 0 then "))
                .e(dflt.clone())
                .t(&format!(" else if length {var}[0] == 0 then "))
                .e(dflt)
                .t(" else ")
                .e(body)
                .t(")")))
        } else {
            Some(a(body))
        }
    }

    /// A name for `e` to use several times: a variable's own name, else a
    /// `let` around whatever is built from it.
    pub fn shared(&mut self, _env: &Env, e: Expr) -> (Box<dyn FnOnce(Expr) -> Expr>, String) {
        if e.parts.len() == 1 && e.children().count() == 0 {
            let name = e.text();
            if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return (Box::new(|body| body), name);
            }
        }
        let name = self.name("s");
        let n2 = name.clone();
        (
            Box::new(move |body: Expr| {
                Expr::node(body.ty.clone())
                    .t(&format!("(let {n2} = "))
                    .e(e)
                    .t(" in ")
                    .e(body)
                    .t(")")
            }),
            name,
        )
    }

    fn reduction(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let (xs, _) = self.array1(env, t, d, None);
        let comm = self.rng.chance(0.5);
        let op = self.op(t, comm);
        let f = if comm && op.commutative {
            *self.rng.pick(&["reduce_comm", "reduce"])
        } else if self.rng.chance(0.2) {
            "fold_with"
        } else {
            "reduce"
        };
        Some(
            Expr::node(Ty::S(t))
                .t(&format!("({f} {} {} ", op.text, op.ne))
                .e(xs)
                .t(")")
                .inexact(t.is_float()),
        )
    }

    fn module_fn(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let n = t.name();
        let ty = Ty::S(t);
        if t == Bool {
            return None;
        }
        let k = self.rng.below(if t.is_float() { 5 } else { 4 });
        match k {
            0 | 1 => {
                let f = if k == 0 { "min" } else { "max" };
                let a = self.scalar(env, t, d);
                let b = self.scalar(env, t, d);
                Some(Expr::call(ty, &format!("{n}.{f}"), [a, b]))
            }
            2 => {
                let a = self.scalar(env, t, d);
                Some(Expr::node(ty).t(&format!("({n}.abs ")).e(a).t(")"))
            }
            3 if t.is_int() => {
                if t != I32 {
                    return None;
                }
                let from = self.num_type();
                if from.is_float() {
                    return None;
                }
                let f = *self.rng.pick(&["popc", "clz", "ctz"]);
                let a = self.exact(env, from, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("({}.{f} ", from.name()))
                        .e(a)
                        .t(")"),
                )
            }
            _ => {
                // Correctly rounded functions are exact; libm's and the
                // polynomial ones are compared within the tolerance.
                let exact_fns = ["sqrt", "floor", "ceil", "round", "trunc"];
                let inexact_fns = ["exp", "log", "sin", "cos", "tanh", "erf", "atan"];
                let (f, inexact) = if self.rng.chance(0.6) {
                    (*self.rng.pick(&exact_fns), false)
                } else {
                    (*self.rng.pick(&inexact_fns), true)
                };
                let a = self.exact(env, t, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("({n}.{f} "))
                        .e(a)
                        .t(")")
                        .inexact(inexact),
                )
            }
        }
    }

    fn stdlib_scalar(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let ty = Ty::S(t);
        match self.rng.below(4) {
            0 if t != Bool => {
                // Half-precision sums leave the tolerance when reassociated.
                let fs: &[&str] = if t == F16 {
                    &["maximum", "minimum"]
                } else {
                    &["sum", "product", "maximum", "minimum"]
                };
                let f = *self.rng.pick(fs);
                let (xs, _) = self.array1(env, t, d, None);
                Some(
                    Expr::node(ty)
                        .t(&format!("({f} "))
                        .e(xs)
                        .t(")")
                        .inexact(t.is_float()),
                )
            }
            1 if t == I64 => {
                let from = self.num_type();
                let (xs, _) = self.array1(env, from, d, None);
                if xs.inexact {
                    return None;
                }
                let f = *self.rng.pick(&["argmax", "argmin"]);
                Some(Expr::node(ty).t(&format!("({f} ")).e(xs).t(")"))
            }
            2 if t == I64 => {
                let from = self.scalar_type();
                let (xs, _) = self.array1(env, from, d, None);
                let (inner, x) = self.bind(env, "c", Ty::S(from), 0);
                let p = self.exact(&inner, Bool, d);
                Some(
                    Expr::node(ty)
                        .t(&format!("(count (\\{x} -> "))
                        .e(p)
                        .t(") ")
                        .e(xs)
                        .t(")"),
                )
            }
            3 if t != Bool && t != F16 => {
                let (xs, size) = self.array1(env, t, d, None);
                let ys = self.same_size(env, t, d, size, &xs);
                Some(
                    Expr::node(ty)
                        .t("(dot ")
                        .e(xs)
                        .t(" ")
                        .e(ys)
                        .t(")")
                        .inexact(t.is_float()),
                )
            }
            _ => None,
        }
    }

    /// `any`, `all`, a comparison, or a float test.
    fn predicate(&mut self, env: &Env, d: u32) -> Option<Expr> {
        let ty = Ty::S(Bool);
        let from = self.num_type();
        match self.rng.below(4) {
            0 | 1 => {
                let a = self.exact(env, from, d);
                let b = self.exact(env, from, d);
                let o = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                Some(Expr::node(ty).t("(").e(a).t(&format!(" {o} ")).e(b).t(")"))
            }
            2 => {
                let (xs, _) = self.array1(env, from, d, None);
                let (inner, x) = self.bind(env, "p", Ty::S(from), 0);
                let p = self.exact(&inner, Bool, d);
                let f = *self.rng.pick(&["any", "all"]);
                Some(
                    Expr::node(ty)
                        .t(&format!("({f} (\\{x} -> "))
                        .e(p)
                        .t(") ")
                        .e(xs)
                        .t(")"),
                )
            }
            _ if from.is_float() => {
                let a = self.exact(env, from, d);
                let f = *self.rng.pick(&["isnan", "isinf"]);
                Some(
                    Expr::node(ty)
                        .t(&format!("({}.{f} ", from.name()))
                        .e(a)
                        .t(")"),
                )
            }
            _ => None,
        }
    }

    /// A sequential loop with a scalar state: `for i < K` or `while`.
    fn scalar_loop(&mut self, env: &Env, t: ScalarType, d: u32) -> Option<Expr> {
        let ty = Ty::S(t);
        let init = self.scalar(env, t, d);
        let trips = self.rng.range(0, 4);
        let (inner, acc) = self.bind(env, "acc", ty.clone(), 0);
        let (inner, i) = self.bind(&inner, "i", Ty::S(I64), 0);
        let body = self.scalar(&inner, t, d);
        if self.rng.chance(0.7) {
            Some(
                Expr::node(ty)
                    .t(&format!("(loop {acc} = "))
                    .e(init)
                    .t(&format!(" for {i} < {trips}i64 do "))
                    .e(body)
                    .t(")"),
            )
        } else {
            Some(
                Expr::node(ty)
                    .t(&format!("((loop ({acc}, {i}) = ("))
                    .e(init)
                    .t(&format!(", 0i64) while {i} < {trips}i64 do ("))
                    .e(body)
                    .t(&format!(", {i} + 1)).0)")),
            )
        }
    }
}

pub fn zero(t: ScalarType) -> String {
    match t {
        Bool => "false".into(),
        _ => format!("0{}", t.name()),
    }
}
