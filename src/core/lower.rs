//! `types::CheckedProgram` in, `core::ir::Program` out.
//!
//! Lowering evaluates the typed tree symbolically: a value is a tree of atoms
//! (tuples and records flattened, an array of tuples one array per
//! component) or a function value — a lambda with its environment, or a
//! builtin — possibly partially applied. Applying a function value lowers its
//! body in place, so every call is inlined and no function survives into the
//! IR; a function passed to a SOAC is applied to fresh parameters inside a new
//! body, which becomes the SOAC's `Lambda`.
//!
//! Sizes: every array variable may carry known sizes per dimension (an entry
//! size parameter, the count of `iota`, the width of the SOAC that made it).
//! Sizes that are not known to be equal where they must be (`map2`, `zip`,
//! a `[n]` in a parameter type) are compared at run time with `AssertEqSizes`.

use super::ir::{
    Atom, BinOp, Body, DimSlice, Exp, Function, Lambda, LoopForm, Program, SizeParam, Soac, SoacId,
    SoacKind, SrcLoc, Stm, Type as CType, UnOp, Var, VarId,
};
use crate::syntax::ast::{self, Field, FileId, Span};
use crate::syntax::SourceMap;
use crate::types::{
    Builtin, CheckedProgram, Const, Dim, Entry, LocalId, ScalarFn, ScalarType, Shape, TExpr,
    TExprKind, TLambda, TLoopForm, TPat, TSlice, Type,
};
use std::collections::HashMap;
use std::rc::Rc;

/// Lowers every entry point of `checked` to a core IR function.
pub fn lower(checked: &CheckedProgram, sources: &SourceMap) -> Program {
    let mut lowerer = Lowerer::new(sources);
    let entries = checked.entries.iter().map(|e| lowerer.entry(e)).collect();
    Program {
        files: sources.files.iter().map(|f| f.name.clone()).collect(),
        entries,
    }
}

#[derive(Clone)]
enum Value<'a> {
    /// A scalar atom or an array variable.
    Leaf(Atom, CType),
    /// Tuples, records (fields in name order), arrays of tuples.
    Tuple(Vec<Value<'a>>),
    Func(Rc<Closure<'a>>),
}

#[derive(Clone)]
enum Callee<'a> {
    Lambda(&'a TLambda, Env<'a>),
    Builtin(Builtin),
}

struct Closure<'a> {
    callee: Callee<'a>,
    applied: Vec<Value<'a>>,
}

/// A persistent map from locals to values, so closures capture cheaply.
#[derive(Clone, Default)]
struct Env<'a>(Option<Rc<EnvNode<'a>>>);

struct EnvNode<'a> {
    id: LocalId,
    value: Value<'a>,
    next: Env<'a>,
}

impl<'a> Env<'a> {
    fn bind(&self, id: LocalId, value: Value<'a>) -> Env<'a> {
        Env(Some(Rc::new(EnvNode {
            id,
            value,
            next: self.clone(),
        })))
    }

    fn get(&self, id: LocalId) -> Option<&Value<'a>> {
        let mut node = self.0.as_ref();
        while let Some(n) = node {
            if n.id == id {
                return Some(&n.value);
            }
            node = n.next.0.as_ref();
        }
        None
    }
}

fn unit<'a>() -> Value<'a> {
    Value::Tuple(Vec::new())
}

/// `record` with the component at `path` (positions, outermost first)
/// replaced by `value`.
fn replace_at<'a>(record: Value<'a>, path: &[usize], value: Value<'a>) -> Value<'a> {
    match (record, path.split_first()) {
        (Value::Tuple(mut parts), Some((&i, rest))) if i < parts.len() => {
            let part = std::mem::replace(&mut parts[i], Value::Tuple(Vec::new()));
            parts[i] = replace_at(part, rest, value);
            Value::Tuple(parts)
        }
        (_, None) => value,
        (record, Some(_)) => record,
    }
}

fn leaves(v: &Value) -> Vec<(Atom, CType)> {
    fn go(v: &Value, out: &mut Vec<(Atom, CType)>) {
        match v {
            Value::Leaf(a, t) => out.push((*a, *t)),
            Value::Tuple(vs) => vs.iter().for_each(|v| go(v, out)),
            Value::Func(_) => {}
        }
    }
    let mut out = Vec::new();
    go(v, &mut out);
    out
}

/// `v` with its leaves replaced, in order, by `new`.
fn rebuild<'a>(v: &Value<'a>, new: &mut impl Iterator<Item = (Atom, CType)>) -> Value<'a> {
    match v {
        Value::Leaf(..) => match new.next() {
            Some((a, t)) => Value::Leaf(a, t),
            None => unit(),
        },
        Value::Tuple(vs) => Value::Tuple(vs.iter().map(|v| rebuild(v, new)).collect()),
        Value::Func(f) => Value::Func(f.clone()),
    }
}

/// The first array variable of a value: its outer size is the value's.
fn first_array(v: &Value) -> Option<VarId> {
    leaves(v).into_iter().find_map(|(a, t)| match (a, t) {
        (Atom::Var(id), CType::Array(..)) => Some(id),
        _ => None,
    })
}

/// The core types of the leaves of a value of type `t`, `depth` arrays deep.
fn type_leaves(t: &Type, depth: usize, out: &mut Vec<CType>) {
    match t {
        Type::Scalar(s) => out.push(if depth == 0 {
            CType::Scalar(*s)
        } else {
            CType::Array(*s, depth)
        }),
        Type::Array(e) => type_leaves(e, depth + 1, out),
        Type::Tuple(ts) => ts.iter().for_each(|t| type_leaves(t, depth, out)),
        Type::Record(fs) => fs.iter().for_each(|(_, t)| type_leaves(t, depth, out)),
        Type::Func(..) | Type::Var(_) | Type::Param(_) => {}
    }
}

/// A value of type `t` whose leaves are taken, in order, from `atoms`.
fn build_value<'a>(t: &Type, atoms: &mut impl Iterator<Item = (Atom, CType)>) -> Value<'a> {
    match t {
        Type::Scalar(_) => atoms.next().map_or_else(unit, |(a, t)| Value::Leaf(a, t)),
        Type::Array(e) => match &**e {
            Type::Scalar(_) | Type::Array(_) => {
                atoms.next().map_or_else(unit, |(a, t)| Value::Leaf(a, t))
            }
            // An array of tuples is a tuple of arrays.
            other => build_value(other, atoms),
        },
        Type::Tuple(ts) => Value::Tuple(ts.iter().map(|t| build_value(t, atoms)).collect()),
        Type::Record(fs) => Value::Tuple(fs.iter().map(|(_, t)| build_value(t, atoms)).collect()),
        Type::Func(..) | Type::Var(_) | Type::Param(_) => unit(),
    }
}

fn core_binop(op: ast::BinOp) -> Option<BinOp> {
    Some(match op {
        ast::BinOp::Add => BinOp::Add,
        ast::BinOp::Sub => BinOp::Sub,
        ast::BinOp::Mul => BinOp::Mul,
        ast::BinOp::Div => BinOp::Div,
        ast::BinOp::Mod => BinOp::Mod,
        ast::BinOp::Quot => BinOp::Quot,
        ast::BinOp::Rem => BinOp::Rem,
        ast::BinOp::Pow => BinOp::Pow,
        ast::BinOp::Eq => BinOp::Eq,
        ast::BinOp::Neq => BinOp::Neq,
        ast::BinOp::Lt => BinOp::Lt,
        ast::BinOp::Le => BinOp::Le,
        ast::BinOp::Gt => BinOp::Gt,
        ast::BinOp::Ge => BinOp::Ge,
        ast::BinOp::BitAnd => BinOp::And,
        ast::BinOp::BitOr => BinOp::Or,
        ast::BinOp::BitXor => BinOp::Xor,
        ast::BinOp::Shl => BinOp::Shl,
        ast::BinOp::Shr => BinOp::Shr,
        ast::BinOp::UShr => BinOp::UShr,
        ast::BinOp::LogAnd | ast::BinOp::LogOr | ast::BinOp::Concat => return None,
    })
}

fn scalar_unop(f: ScalarFn) -> Option<UnOp> {
    Some(match f {
        ScalarFn::Abs => UnOp::Abs,
        ScalarFn::Sqrt => UnOp::Sqrt,
        ScalarFn::Exp => UnOp::Exp,
        ScalarFn::Log => UnOp::Log,
        ScalarFn::Log2 => UnOp::Log2,
        ScalarFn::Log10 => UnOp::Log10,
        ScalarFn::Sin => UnOp::Sin,
        ScalarFn::Cos => UnOp::Cos,
        ScalarFn::Tan => UnOp::Tan,
        ScalarFn::Asin => UnOp::Asin,
        ScalarFn::Acos => UnOp::Acos,
        ScalarFn::Atan => UnOp::Atan,
        ScalarFn::Sinh => UnOp::Sinh,
        ScalarFn::Cosh => UnOp::Cosh,
        ScalarFn::Tanh => UnOp::Tanh,
        ScalarFn::Floor => UnOp::Floor,
        ScalarFn::Ceil => UnOp::Ceil,
        ScalarFn::Round => UnOp::Round,
        ScalarFn::Trunc => UnOp::Trunc,
        ScalarFn::Erf => UnOp::Erf,
        ScalarFn::IsNan => UnOp::IsNan,
        ScalarFn::IsInf => UnOp::IsInf,
        ScalarFn::Popc => UnOp::Popc,
        ScalarFn::Clz => UnOp::Clz,
        ScalarFn::Neg => UnOp::Neg,
        ScalarFn::Cbrt => UnOp::Cbrt,
        ScalarFn::Log1p => UnOp::Log1p,
        ScalarFn::Expm1 => UnOp::Expm1,
        ScalarFn::Asinh => UnOp::Asinh,
        ScalarFn::Acosh => UnOp::Acosh,
        ScalarFn::Atanh => UnOp::Atanh,
        ScalarFn::ToBits => UnOp::ToBits,
        ScalarFn::FromBits => UnOp::FromBits,
        _ => return None,
    })
}

struct Lowerer<'s> {
    sources: &'s SourceMap,
    next_var: u32,
    next_soac: u32,
    /// Statements of the body being built.
    stms: Vec<Stm>,
    /// Known sizes of array variables, per dimension, valid in the current body.
    dims: HashMap<VarId, Vec<Option<Atom>>>,
    /// While an entry's parameters are bound: its size parameters (by local),
    /// their uses, and the index of each parameter variable.
    entry_sizes: HashMap<LocalId, usize>,
    entry_uses: Vec<Vec<(usize, usize)>>,
    /// Constant dimensions of the entry's parameters: checked by the caller.
    entry_fixed: Vec<SizeParam>,
    param_index: HashMap<VarId, usize>,
}

impl<'s> Lowerer<'s> {
    fn new(sources: &'s SourceMap) -> Self {
        Lowerer {
            sources,
            next_var: 0,
            next_soac: 0,
            stms: Vec::new(),
            dims: HashMap::new(),
            entry_sizes: HashMap::new(),
            entry_uses: Vec::new(),
            entry_fixed: Vec::new(),
            param_index: HashMap::new(),
        }
    }

    fn loc(&self, file: FileId, span: &Span) -> SrcLoc {
        if file >= self.sources.files.len() {
            return SrcLoc::default();
        }
        let (line, col) = self.sources.line_col(file, span.start);
        SrcLoc {
            file: file as u32,
            line,
            col,
        }
    }

    fn fresh(&mut self, name: &str, ty: CType) -> Var {
        self.next_var += 1;
        Var {
            id: VarId(self.next_var - 1),
            name: name.to_string(),
            ty,
        }
    }

    /// Binds `exp` to a fresh variable and returns it.
    fn let1(&mut self, name: &str, ty: CType, exp: Exp, loc: SrcLoc) -> Atom {
        let v = self.fresh(name, ty);
        let id = v.id;
        self.stms.push(Stm {
            pat: vec![v],
            exp,
            loc,
        });
        Atom::Var(id)
    }

    /// Runs `f` with an empty statement list; returns the statements it made.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> (Vec<Stm>, T) {
        let saved_stms = std::mem::take(&mut self.stms);
        let saved_dims = self.dims.clone();
        let result = f(self);
        let stms = std::mem::replace(&mut self.stms, saved_stms);
        self.dims = saved_dims;
        (stms, result)
    }

    fn set_dims(&mut self, arr: Atom, dims: Vec<Option<Atom>>) {
        if let Atom::Var(id) = arr {
            self.dims.insert(id, dims);
        }
    }

    fn known_dims(&self, a: Atom) -> Vec<Option<Atom>> {
        match a {
            Atom::Var(id) => self.dims.get(&id).cloned().unwrap_or_default(),
            Atom::Const(_) => Vec::new(),
        }
    }

    /// Size of dimension `dim` of `arr`: known, or read with `Exp::Size`.
    fn size_of(&mut self, arr: VarId, dim: usize, loc: SrcLoc) -> Atom {
        if let Some(Some(a)) = self.dims.get(&arr).and_then(|d| d.get(dim)) {
            return *a;
        }
        let a = self.let1(
            "n",
            CType::Scalar(ScalarType::I64),
            Exp::Size { array: arr, dim },
            loc,
        );
        let known = self.dims.entry(arr).or_default();
        if known.len() <= dim {
            known.resize(dim + 1, None);
        }
        known[dim] = Some(a);
        a
    }

    fn assert_same(&mut self, a: Atom, b: Atom, loc: SrcLoc) {
        if a != b {
            self.stms.push(Stm {
                pat: Vec::new(),
                exp: Exp::AssertEqSizes(a, b),
                loc,
            });
        }
    }

    fn scalar(v: &Value) -> (Atom, CType) {
        match v {
            Value::Leaf(a, t) => (*a, *t),
            _ => (Atom::Const(Const::I32(0)), CType::Scalar(ScalarType::I32)),
        }
    }

    /// A value of type `t` for a variable lowering cannot find (the checker
    /// rules this out; this keeps lowering total).
    fn default_value<'a>(&mut self, t: &Type, loc: SrcLoc) -> Value<'a> {
        let mut tys = Vec::new();
        type_leaves(t, 0, &mut tys);
        let mut atoms = Vec::new();
        for ty in tys {
            let atom = match ty {
                CType::Scalar(s) => Atom::Const(Const::zero(s)),
                CType::Array(..) => self.let1(
                    "empty",
                    ty,
                    Exp::ArrayLit {
                        elem: ty.row(),
                        items: Vec::new(),
                    },
                    loc,
                ),
            };
            atoms.push((atom, ty));
        }
        build_value(t, &mut atoms.into_iter())
    }

    // ----- entry points ---------------------------------------------------

    fn entry(&mut self, e: &Entry) -> Function {
        self.stms.clear();
        self.dims.clear();
        let loc = self.loc(e.file, &e.span);
        let mut env = Env::default();
        let mut size_vars = Vec::new();
        for (i, (id, name)) in e.size_params.iter().enumerate() {
            let v = self.fresh(name, CType::Scalar(ScalarType::I64));
            env = env.bind(*id, Value::Leaf(Atom::Var(v.id), v.ty));
            self.entry_sizes.insert(*id, i);
            size_vars.push(v);
        }
        self.entry_uses = vec![Vec::new(); size_vars.len()];
        let mut params = Vec::new();
        let mut values = Vec::new();
        for p in &e.params {
            let mut tys = Vec::new();
            type_leaves(p.ty(), 0, &mut tys);
            let names = pat_leaf_names(p);
            let mut atoms = Vec::new();
            for (i, ty) in tys.into_iter().enumerate() {
                let name = names.get(i).map_or("p", String::as_str);
                let v = self.fresh(name, ty);
                self.param_index.insert(v.id, params.len());
                atoms.push((Atom::Var(v.id), ty));
                params.push(v);
            }
            values.push(build_value(p.ty(), &mut atoms.into_iter()));
        }
        for (p, v) in e.params.iter().zip(values) {
            env = self.bind(&env, p, v, loc);
        }
        self.entry_sizes.clear();
        self.param_index.clear();
        let uses = std::mem::take(&mut self.entry_uses);
        let result = self.expr(&env, &e.body);
        let mut ret = Vec::new();
        type_leaves(&e.ret, 0, &mut ret);
        Function {
            name: e.name.clone(),
            params,
            size_params: size_vars
                .into_iter()
                .zip(uses)
                .map(|(var, uses)| SizeParam {
                    var,
                    uses,
                    fixed: None,
                })
                .chain(std::mem::take(&mut self.entry_fixed))
                .collect(),
            body: Body {
                stms: std::mem::take(&mut self.stms),
                result: leaves(&result).into_iter().map(|(a, _)| a).collect(),
            },
            ret,
        }
    }

    // ----- patterns and sizes -----------------------------------------------

    fn bind<'a>(&mut self, env: &Env<'a>, p: &'a TPat, v: Value<'a>, loc: SrcLoc) -> Env<'a> {
        match p {
            TPat::Var { id, name, .. } => {
                self.name_results(&v, name);
                env.bind(*id, v)
            }
            TPat::Wildcard(_) => env.clone(),
            TPat::Tuple(ps, _) => {
                let vs = match v {
                    Value::Tuple(vs) if vs.len() == ps.len() => vs,
                    _ => vec![unit(); ps.len()],
                };
                let mut env = env.clone();
                for (q, w) in ps.iter().zip(vs) {
                    env = self.bind(&env, q, w, loc);
                }
                env
            }
            TPat::Ascribed(q, shape) => {
                let env = self.check_shape(env, shape, &v, 0, loc);
                self.bind(&env, q, v, loc)
            }
        }
    }

    /// Gives the variables just computed for a `let` the name it binds.
    fn name_results(&mut self, v: &Value, name: &str) {
        let ids: Vec<VarId> = leaves(v)
            .into_iter()
            .filter_map(|(a, _)| match a {
                Atom::Var(id) => Some(id),
                Atom::Const(_) => None,
            })
            .collect();
        if let Some(stm) = self.stms.last_mut() {
            for var in &mut stm.pat {
                if ids.contains(&var.id) {
                    var.name = name.to_string();
                }
            }
        }
    }

    /// Binds the size variables of `shape` not yet bound, and checks the others.
    fn check_shape<'a>(
        &mut self,
        env: &Env<'a>,
        shape: &Shape,
        v: &Value<'a>,
        depth: usize,
        loc: SrcLoc,
    ) -> Env<'a> {
        match shape {
            Shape::Other => env.clone(),
            Shape::Tuple(shapes) => match v {
                Value::Tuple(vs) if vs.len() == shapes.len() => {
                    let mut env = env.clone();
                    for (s, w) in shapes.iter().zip(vs) {
                        env = self.check_shape(&env, s, w, depth, loc);
                    }
                    env
                }
                _ => env.clone(),
            },
            Shape::Array(dim, inner) => {
                let env = match first_array(v) {
                    Some(arr) => self.check_dim(env, dim, arr, depth, loc),
                    None => env.clone(),
                };
                self.check_shape(&env, inner, v, depth + 1, loc)
            }
        }
    }

    fn check_dim<'a>(
        &mut self,
        env: &Env<'a>,
        dim: &Dim,
        arr: VarId,
        depth: usize,
        loc: SrcLoc,
    ) -> Env<'a> {
        match dim {
            Dim::Any => env.clone(),
            Dim::Const(k) => {
                if let Some(&p) = self.param_index.get(&arr) {
                    // An entry parameter's: the caller checks it.
                    let var = self.fresh("fixed", CType::Scalar(ScalarType::I64));
                    self.entry_fixed.push(SizeParam {
                        var,
                        uses: vec![(p, depth)],
                        fixed: Some(*k as i64),
                    });
                    let known = self.dims.entry(arr).or_default();
                    if known.len() <= depth {
                        known.resize(depth + 1, None);
                    }
                    known[depth] = Some(Atom::Const(Const::I64(*k as i64)));
                    return env.clone();
                }
                let actual = self.size_of(arr, depth, loc);
                self.assert_same(actual, Atom::Const(Const::I64(*k as i64)), loc);
                env.clone()
            }
            Dim::Var(id) => {
                let entry_size = self.entry_sizes.get(id).copied();
                let param = self.param_index.get(&arr).copied();
                if let (Some(s), Some(p), Some(Value::Leaf(n, _))) =
                    (entry_size, param, env.get(*id))
                {
                    // The entry's caller checks these; the body may rely on them.
                    let n = *n;
                    self.entry_uses[s].push((p, depth));
                    let known = self.dims.entry(arr).or_default();
                    if known.len() <= depth {
                        known.resize(depth + 1, None);
                    }
                    known[depth] = Some(n);
                    return env.clone();
                }
                let actual = self.size_of(arr, depth, loc);
                match env.get(*id) {
                    Some(Value::Leaf(n, _)) => {
                        let n = *n;
                        self.assert_same(n, actual, loc);
                        env.clone()
                    }
                    _ => env.bind(*id, Value::Leaf(actual, CType::Scalar(ScalarType::I64))),
                }
            }
        }
    }

    // ----- expressions ------------------------------------------------------

    fn expr<'a>(&mut self, env: &Env<'a>, e: &'a TExpr) -> Value<'a> {
        let loc = self.loc(e.file, &e.span);
        match &e.kind {
            TExprKind::Literal(lit) => match e.ty {
                Type::Scalar(s) => Value::Leaf(Atom::Const(lit.to_const(s)), CType::Scalar(s)),
                _ => unit(),
            },
            TExprKind::Var(id) => match env.get(*id) {
                Some(v) => v.clone(),
                None => self.default_value(&e.ty, loc),
            },
            TExprKind::Builtin(b) => Value::Func(Rc::new(Closure {
                callee: Callee::Builtin(*b),
                applied: Vec::new(),
            })),
            TExprKind::Lambda(lam) => Value::Func(Rc::new(Closure {
                callee: Callee::Lambda(lam, env.clone()),
                applied: Vec::new(),
            })),
            TExprKind::Tuple(es) => Value::Tuple(es.iter().map(|x| self.expr(env, x)).collect()),
            TExprKind::Record(fs) => {
                Value::Tuple(fs.iter().map(|(_, x)| self.expr(env, x)).collect())
            }
            TExprKind::ArrayLit(items) => self.array_lit(env, &e.ty, items, loc),
            TExprKind::Apply(f, args) => {
                let f = self.expr(env, f);
                let args = args.iter().map(|a| self.expr(env, a)).collect();
                self.apply(f, args, loc)
            }
            TExprKind::BinOp(op, a, b) => self.binop(env, *op, a, b, loc),
            TExprKind::UnOp(op, a) => {
                let (a, t) = Self::scalar(&self.expr(env, a));
                // A negative literal stays a constant (slice strides need it).
                if let (ast::UnOp::Neg, Atom::Const(c)) = (op, a) {
                    let negated = match c {
                        Const::F16(v) => Some(Const::F16(crate::types::half::F16(v.0 ^ 0x8000))),
                        Const::F32(v) => Some(Const::F32(-v)),
                        Const::F64(v) => Some(Const::F64(-v)),
                        Const::Bool(_) => None,
                        _ => c
                            .as_i128()
                            .map(|v| Const::int_wrapping(c.scalar_type(), v.wrapping_neg())),
                    };
                    if let Some(n) = negated {
                        return Value::Leaf(Atom::Const(n), t);
                    }
                }
                let op = match op {
                    ast::UnOp::Neg => UnOp::Neg,
                    ast::UnOp::Not => UnOp::Not,
                };
                Value::Leaf(self.let1("t", t, Exp::UnOp(op, a), loc), t)
            }
            TExprKind::Let(p, rhs, body) => {
                let v = self.expr(env, rhs);
                let env = self.bind(env, p, v, loc);
                self.expr(&env, body)
            }
            TExprKind::If(c, t, f) => {
                let (cond, _) = Self::scalar(&self.expr(env, c));
                self.if_(cond, loc, |s| s.expr(env, t), |s| s.expr(env, f))
            }
            TExprKind::Index(a, idx) => {
                let arr = self.expr(env, a);
                let indices: Vec<Atom> = idx
                    .iter()
                    .map(|i| Self::scalar(&self.expr(env, i)).0)
                    .collect();
                self.index(&arr, indices, loc)
            }
            TExprKind::Field(x, field) => {
                let v = self.expr(env, x);
                let i = match (&x.ty, field) {
                    (Type::Record(fs), Field::Name(n)) => fs.iter().position(|(f, _)| f == n),
                    (_, Field::Index(i)) => Some(*i),
                    _ => None,
                };
                match (v, i) {
                    (Value::Tuple(mut vs), Some(i)) if i < vs.len() => vs.swap_remove(i),
                    _ => self.default_value(&e.ty, loc),
                }
            }
            TExprKind::Ascribe(x, shape) => {
                let v = self.expr(env, x);
                self.check_shape(env, shape, &v, 0, loc);
                v
            }
            TExprKind::Assert(c, x) => {
                let (cond, _) = Self::scalar(&self.expr(env, c));
                self.stms.push(Stm {
                    pat: Vec::new(),
                    exp: Exp::Assert(cond),
                    loc,
                });
                self.expr(env, x)
            }
            TExprKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.loop_(env, pat, init, form, body, loc),
            TExprKind::Slice(a, dims) => {
                let arr = self.expr(env, a);
                self.slice(env, &arr, dims, loc)
            }
            TExprKind::Update(a, idx, v) => {
                let arr = self.expr(env, a);
                let indices: Vec<Atom> = idx
                    .iter()
                    .map(|i| Self::scalar(&self.expr(env, i)).0)
                    .collect();
                let v = self.expr(env, v);
                let mut values = leaves(&v).into_iter();
                self.per_array(&arr, loc, |s, id, t| {
                    let value = values.next().map_or(Atom::Const(Const::I64(0)), |x| x.0);
                    let dims = s.known_dims(Atom::Var(id));
                    let exp = Exp::Update {
                        array: id,
                        indices: indices.clone(),
                        value,
                    };
                    (t, exp, dims)
                })
            }
            TExprKind::RecordUpdate(r, path, v) => {
                let record = self.expr(env, r);
                let value = self.expr(env, v);
                replace_at(record, path, value)
            }
            // The checker resolves these; this keeps lowering total.
            TExprKind::TypeMember(..) => self.default_value(&e.ty, loc),
        }
    }

    /// Applies `f` to every array leaf of `arr`: `f` gives the result's
    /// type, its expression and its known sizes.
    fn per_array<'a>(
        &mut self,
        arr: &Value<'a>,
        loc: SrcLoc,
        mut f: impl FnMut(&mut Self, VarId, CType) -> (CType, Exp, Vec<Option<Atom>>),
    ) -> Value<'a> {
        let mut out = Vec::new();
        for (a, t) in leaves(arr) {
            let Atom::Var(id) = a else {
                out.push((a, t));
                continue;
            };
            let (rt, exp, dims) = f(self, id, t);
            let r = self.let1("a", rt, exp, loc);
            self.set_dims(r, dims);
            out.push((r, rt));
        }
        rebuild(arr, &mut out.into_iter())
    }

    fn loop_<'a>(
        &mut self,
        env: &Env<'a>,
        pat: &'a TPat,
        init: &'a TExpr,
        form: &'a TLoopForm,
        body: &'a TExpr,
        loc: SrcLoc,
    ) -> Value<'a> {
        let init_v = self.expr(env, init);
        let init_leaves = leaves(&init_v);
        let names = pat_leaf_names(pat);
        let params: Vec<Var> = init_leaves
            .iter()
            .enumerate()
            .map(|(i, (_, t))| self.fresh(names.get(i).map_or("acc", String::as_str), *t))
            .collect();
        let state = rebuild(&init_v, &mut params.iter().map(|v| (Atom::Var(v.id), v.ty)));
        // The bound, or the array iterated over, is computed before the loop.
        let i64_ = CType::Scalar(ScalarType::I64);
        let (index, bound, array) = match form {
            TLoopForm::For { name, bound, .. } => {
                let (b, t) = Self::scalar(&self.expr(env, bound));
                (Some(self.fresh(name, t)), b, None)
            }
            TLoopForm::ForIn { array, .. } => {
                let arr = self.expr(env, array);
                let n = match first_array(&arr) {
                    Some(id) => self.size_of(id, 0, loc),
                    None => Atom::Const(Const::I64(0)),
                };
                (Some(self.fresh("i", i64_)), n, Some(arr))
            }
            TLoopForm::While(_) => (None, Atom::Const(Const::I64(0)), None),
        };
        let cond = match form {
            TLoopForm::While(c) => {
                let (stms, c) = self.nested(|s| {
                    let env = s.bind(env, pat, state.clone(), loc);
                    Self::scalar(&s.expr(&env, c)).0
                });
                Some(Body {
                    stms,
                    result: vec![c],
                })
            }
            _ => None,
        };
        let (stms, next) = self.nested(|s| {
            let mut env = s.bind(env, pat, state.clone(), loc);
            match (form, &index) {
                (TLoopForm::For { index: lid, .. }, Some(i)) => {
                    env = env.bind(*lid, Value::Leaf(Atom::Var(i.id), i.ty));
                }
                (TLoopForm::ForIn { pat: xp, .. }, Some(i)) => {
                    let arr = array.clone().unwrap_or_else(unit);
                    let row = s.index(&arr, vec![Atom::Var(i.id)], loc);
                    env = s.bind(&env, xp, row, loc);
                }
                _ => {}
            }
            s.expr(&env, body)
        });
        let core_form = match (cond, index) {
            (Some(cond), _) => LoopForm::While { cond },
            (None, Some(index)) => LoopForm::For { index, bound },
            (None, None) => LoopForm::While {
                cond: Body {
                    stms: Vec::new(),
                    result: vec![Atom::Const(Const::Bool(false))],
                },
            },
        };
        let pat_vars: Vec<Var> = params.iter().map(|p| self.fresh(&p.name, p.ty)).collect();
        let outs: Vec<(Atom, CType)> = pat_vars.iter().map(|v| (Atom::Var(v.id), v.ty)).collect();
        self.stms.push(Stm {
            pat: pat_vars,
            exp: Exp::Loop {
                params: params
                    .into_iter()
                    .zip(init_leaves.iter().map(|(a, _)| *a))
                    .collect(),
                form: core_form,
                body: Body {
                    stms,
                    result: leaves(&next).into_iter().map(|(a, _)| a).collect(),
                },
            },
            loc,
        });
        rebuild(&init_v, &mut outs.into_iter())
    }

    fn i64_atom(v: i64) -> Atom {
        Atom::Const(Const::I64(v))
    }

    fn i64_op(&mut self, op: BinOp, a: Atom, b: Atom, loc: SrcLoc) -> Atom {
        self.let1(
            "t",
            CType::Scalar(ScalarType::I64),
            Exp::BinOp(op, a, b),
            loc,
        )
    }

    /// `a[d0, d1, ...]` with at least one range; Futhark's defaults for a
    /// missing start and end (`n-1` and "before 0" for a negative stride).
    fn slice<'a>(
        &mut self,
        env: &Env<'a>,
        arr: &Value<'a>,
        dims: &'a [TSlice],
        loc: SrcLoc,
    ) -> Value<'a> {
        let first = first_array(arr);
        let known = first.map_or_else(Vec::new, |f| self.known_dims(Atom::Var(f)));
        let mut slices = Vec::new();
        let mut out_dims = Vec::new();
        let mut fixed = 0;
        for (d, ds) in dims.iter().enumerate() {
            let (start, end, stride) = match ds {
                TSlice::Index(e) => {
                    slices.push(DimSlice::Index(Self::scalar(&self.expr(env, e)).0));
                    fixed += 1;
                    continue;
                }
                TSlice::Range { start, end, stride } => (start, end, stride),
            };
            let part = |s: &mut Self, e: &'a Option<TExpr>| {
                e.as_ref().map(|x| Self::scalar(&s.expr(env, x)).0)
            };
            let (start, end, stride) = (part(self, start), part(self, end), part(self, stride));
            let whole = start.is_none() && end.is_none() && stride.is_none();
            let stride = stride.unwrap_or(Self::i64_atom(1));
            let n = if start.is_none() || end.is_none() {
                match first {
                    Some(f) => self.size_of(f, d, loc),
                    None => Self::i64_atom(0),
                }
            } else {
                Self::i64_atom(0)
            };
            let (start, end) = match stride {
                Atom::Const(c) if c.as_i128().unwrap_or(1) < 0 => {
                    let start = match start {
                        Some(s) => s,
                        None => self.i64_op(BinOp::Sub, n, Self::i64_atom(1), loc),
                    };
                    (start, end.unwrap_or(Self::i64_atom(-1)))
                }
                Atom::Const(_) => (start.unwrap_or(Self::i64_atom(0)), end.unwrap_or(n)),
                Atom::Var(_) => {
                    // The IR requires a non-zero stride.
                    let ok = self.let1(
                        "ok",
                        CType::Scalar(ScalarType::Bool),
                        Exp::BinOp(BinOp::Neq, stride, Self::i64_atom(0)),
                        loc,
                    );
                    self.stms.push(Stm {
                        pat: Vec::new(),
                        exp: Exp::Assert(ok),
                        loc,
                    });
                    let neg = if start.is_none() || end.is_none() {
                        self.let1(
                            "neg",
                            CType::Scalar(ScalarType::Bool),
                            Exp::BinOp(BinOp::Lt, stride, Self::i64_atom(0)),
                            loc,
                        )
                    } else {
                        Atom::Const(Const::Bool(false))
                    };
                    let i64_ = CType::Scalar(ScalarType::I64);
                    let pick = |s: &mut Self, given: Option<Atom>, up: Atom, down: bool| {
                        given.unwrap_or_else(|| {
                            let v = s.if_(
                                neg,
                                loc,
                                |s| {
                                    let a = if down {
                                        s.i64_op(BinOp::Sub, n, Self::i64_atom(1), loc)
                                    } else {
                                        Self::i64_atom(-1)
                                    };
                                    Value::Leaf(a, i64_)
                                },
                                |_| Value::Leaf(up, i64_),
                            );
                            Self::scalar(&v).0
                        })
                    };
                    let start = pick(self, start, Self::i64_atom(0), true);
                    let end = pick(self, end, n, false);
                    (start, end)
                }
            };
            out_dims.push(if whole { Some(n) } else { None });
            slices.push(DimSlice::Range { start, end, stride });
        }
        out_dims.extend(known.iter().skip(dims.len()).cloned());
        self.per_array(arr, loc, |_, id, t| {
            let rank = t.rank().saturating_sub(fixed);
            let rt = if rank == 0 {
                CType::Scalar(t.elem())
            } else {
                CType::Array(t.elem(), rank)
            };
            let exp = Exp::Slice {
                array: id,
                dims: slices.clone(),
            };
            (rt, exp, out_dims.clone())
        })
    }

    fn binop<'a>(
        &mut self,
        env: &Env<'a>,
        op: ast::BinOp,
        a: &'a TExpr,
        b: &'a TExpr,
        loc: SrcLoc,
    ) -> Value<'a> {
        if op == ast::BinOp::Concat {
            let x = self.expr(env, a);
            let y = self.expr(env, b);
            return self.concat(x, y, loc);
        }
        let (x, t) = Self::scalar(&self.expr(env, a));
        let bool_leaf =
            |v: bool| Value::Leaf(Atom::Const(Const::Bool(v)), CType::Scalar(ScalarType::Bool));
        match op {
            ast::BinOp::LogAnd => self.if_(x, loc, |s| s.expr(env, b), |_| bool_leaf(false)),
            ast::BinOp::LogOr => self.if_(x, loc, |_| bool_leaf(true), |s| s.expr(env, b)),
            _ => {
                let (y, _) = Self::scalar(&self.expr(env, b));
                let Some(cop) = core_binop(op) else {
                    return self.default_value(&Type::Scalar(t.elem()), loc);
                };
                let rt = if cop.is_comparison() {
                    CType::Scalar(ScalarType::Bool)
                } else {
                    t
                };
                Value::Leaf(self.let1("t", rt, Exp::BinOp(cop, x, y), loc), rt)
            }
        }
    }

    fn if_<'a>(
        &mut self,
        cond: Atom,
        loc: SrcLoc,
        then_branch: impl FnOnce(&mut Self) -> Value<'a>,
        else_branch: impl FnOnce(&mut Self) -> Value<'a>,
    ) -> Value<'a> {
        let (then_stms, tv) = self.nested(then_branch);
        let (else_stms, ev) = self.nested(else_branch);
        let tl = leaves(&tv);
        let el = leaves(&ev);
        let pat: Vec<Var> = tl.iter().map(|(_, t)| self.fresh("r", *t)).collect();
        let results: Vec<(Atom, CType)> = pat.iter().map(|v| (Atom::Var(v.id), v.ty)).collect();
        self.stms.push(Stm {
            pat,
            exp: Exp::If {
                cond,
                then_body: Body {
                    stms: then_stms,
                    result: tl.iter().map(|(a, _)| *a).collect(),
                },
                else_body: Body {
                    stms: else_stms,
                    result: el.iter().map(|(a, _)| *a).collect(),
                },
            },
            loc,
        });
        rebuild(&tv, &mut results.into_iter())
    }

    fn index<'a>(&mut self, arr: &Value<'a>, indices: Vec<Atom>, loc: SrcLoc) -> Value<'a> {
        let k = indices.len();
        let mut out = Vec::new();
        for (a, t) in leaves(arr) {
            let Atom::Var(id) = a else {
                out.push((a, t));
                continue;
            };
            let rank = t.rank();
            let rt = if rank > k {
                CType::Array(t.elem(), rank - k)
            } else {
                CType::Scalar(t.elem())
            };
            let dims = self.known_dims(a);
            let r = self.let1(
                "elem",
                rt,
                Exp::Index {
                    array: id,
                    indices: indices.clone(),
                },
                loc,
            );
            if rank > k && dims.len() > k {
                self.set_dims(r, dims[k..].to_vec());
            }
            out.push((r, rt));
        }
        rebuild(arr, &mut out.into_iter())
    }

    fn array_lit<'a>(
        &mut self,
        env: &Env<'a>,
        ty: &Type,
        items: &'a [TExpr],
        loc: SrcLoc,
    ) -> Value<'a> {
        let Type::Array(elem) = ty else {
            return unit();
        };
        let rows: Vec<Vec<(Atom, CType)>> =
            items.iter().map(|x| leaves(&self.expr(env, x))).collect();
        let mut elem_tys = Vec::new();
        type_leaves(elem, 0, &mut elem_tys);
        let mut out = Vec::new();
        for (j, et) in elem_tys.into_iter().enumerate() {
            let column: Vec<Atom> = rows.iter().filter_map(|r| r.get(j).map(|x| x.0)).collect();
            // Rows that are arrays must all have the first row's shape.
            let mut row_dims = Vec::new();
            if let Some(Atom::Var(first)) = column.first().copied() {
                for d in 0..et.rank() {
                    let want = self.size_of(first, d, loc);
                    for other in &column[1..] {
                        if let Atom::Var(o) = other {
                            let got = self.size_of(*o, d, loc);
                            self.assert_same(want, got, loc);
                        }
                    }
                    row_dims.push(Some(want));
                }
            }
            let count = column.len() as i64;
            let r = self.let1(
                "arr",
                et.array_of(),
                Exp::ArrayLit {
                    elem: et,
                    items: column,
                },
                loc,
            );
            let mut dims = vec![Some(Atom::Const(Const::I64(count)))];
            dims.extend(row_dims);
            self.set_dims(r, dims);
            out.push((r, et.array_of()));
        }
        build_value(ty, &mut out.into_iter())
    }

    // ----- application ------------------------------------------------------

    fn apply<'a>(&mut self, f: Value<'a>, args: Vec<Value<'a>>, loc: SrcLoc) -> Value<'a> {
        if args.is_empty() {
            return f;
        }
        let Value::Func(closure) = f else {
            return unit();
        };
        let mut applied = closure.applied.clone();
        applied.extend(args);
        let arity = match &closure.callee {
            Callee::Lambda(lam, _) => lam.params.len(),
            Callee::Builtin(b) => b.arity(),
        };
        if applied.len() < arity {
            return Value::Func(Rc::new(Closure {
                callee: closure.callee.clone(),
                applied,
            }));
        }
        let rest = applied.split_off(arity);
        let result = match &closure.callee {
            Callee::Lambda(lam, env) => {
                let mut env = env.clone();
                for (p, v) in lam.params.iter().zip(applied) {
                    env = self.bind(&env, p, v, loc);
                }
                self.expr(&env, &lam.body)
            }
            Callee::Builtin(b) => self.builtin(*b, applied, loc),
        };
        self.apply(result, rest, loc)
    }

    /// Fresh variables for one element of each array in `arrays`.
    fn row_params<'a>(&mut self, arrays: &[Value<'a>]) -> (Vec<Value<'a>>, Vec<Var>) {
        let mut vars = Vec::new();
        let mut values = Vec::new();
        for arr in arrays {
            let mut rows = Vec::new();
            for (_, t) in leaves(arr) {
                let v = self.fresh("x", t.row());
                rows.push((Atom::Var(v.id), v.ty));
                vars.push(v);
            }
            values.push(rebuild(arr, &mut rows.into_iter()));
        }
        (values, vars)
    }

    /// Builds a SOAC's function: `body` computes its result in a new body
    /// with `params` bound.
    fn lambda_with<'a>(
        &mut self,
        params: Vec<Var>,
        body: impl FnOnce(&mut Self) -> Value<'a>,
    ) -> (Lambda, Value<'a>) {
        let (stms, result) = self.nested(body);
        let res = leaves(&result);
        let lambda = Lambda {
            params,
            body: Body {
                stms,
                result: res.iter().map(|(a, _)| *a).collect(),
            },
            ret: res.iter().map(|(_, t)| *t).collect(),
        };
        (lambda, result)
    }

    fn soac(&mut self, width: Atom, kind: SoacKind, args: Vec<VarId>, pat: Vec<Var>, loc: SrcLoc) {
        let label = SoacId(self.next_soac);
        self.next_soac += 1;
        self.stms.push(Stm {
            pat,
            exp: Exp::Soac(Soac {
                label,
                width,
                kind,
                args,
            }),
            loc,
        });
    }

    fn array_vars(arrays: &[Value]) -> Vec<VarId> {
        arrays
            .iter()
            .flat_map(leaves)
            .filter_map(|(a, _)| match a {
                Atom::Var(id) => Some(id),
                Atom::Const(_) => None,
            })
            .collect()
    }

    /// The common outer size of `arrays`, checked at run time unless known.
    fn common_width(&mut self, arrays: &[Value], loc: SrcLoc) -> Atom {
        let firsts: Vec<VarId> = arrays.iter().filter_map(first_array).collect();
        let Some(&first) = firsts.first() else {
            return Atom::Const(Const::I64(0));
        };
        let width = self.size_of(first, 0, loc);
        for &other in &firsts[1..] {
            let n = self.size_of(other, 0, loc);
            self.assert_same(width, n, loc);
        }
        width
    }

    /// Fresh variables of the given types, as a value shaped like `like`.
    fn fresh_like<'a>(
        &mut self,
        name: &str,
        tys: &[CType],
        like: &Value<'a>,
    ) -> (Vec<Var>, Value<'a>) {
        let vars: Vec<Var> = tys.iter().map(|t| self.fresh(name, *t)).collect();
        let value = rebuild(like, &mut vars.iter().map(|v| (Atom::Var(v.id), v.ty)));
        (vars, value)
    }

    /// A `map` of `width` over `arrays` whose function `body` makes from
    /// one row of each.
    fn map_with<'a>(
        &mut self,
        width: Atom,
        arrays: &[Value<'a>],
        loc: SrcLoc,
        body: impl FnOnce(&mut Self, Vec<Value<'a>>) -> Value<'a>,
    ) -> Value<'a> {
        let (rows, params) = self.row_params(arrays);
        let (lambda, result) = self.lambda_with(params, |s| body(s, rows));
        let tys: Vec<CType> = lambda.ret.iter().map(|t| t.array_of()).collect();
        let (pat, value) = self.fresh_like("m", &tys, &result);
        for v in &pat {
            self.set_dims(Atom::Var(v.id), vec![Some(width)]);
        }
        let args = Self::array_vars(arrays);
        self.soac(width, SoacKind::Map(lambda), args, pat, loc);
        value
    }

    fn map<'a>(&mut self, f: Value<'a>, arrays: Vec<Value<'a>>, loc: SrcLoc) -> Value<'a> {
        let width = self.common_width(&arrays, loc);
        self.map_with(width, &arrays, loc, |s, rows| s.apply(f, rows, loc))
    }

    /// `tabulate_kd n1 .. nk f`: nested maps over `iota`s made up front.
    fn tabulate<'a>(&mut self, sizes: Vec<Atom>, f: Value<'a>, loc: SrcLoc) -> Value<'a> {
        let arr = CType::Array(ScalarType::I64, 1);
        let iotas: Vec<Value<'a>> = sizes
            .iter()
            .map(|n| {
                let r = self.let1("iota", arr, Exp::Iota(*n), loc);
                self.set_dims(r, vec![Some(*n)]);
                Value::Leaf(r, arr)
            })
            .collect();
        let result = self.tabulate_level(&sizes, &iotas, Vec::new(), f, loc);
        for (a, _) in leaves(&result) {
            let mut dims: Vec<Option<Atom>> = sizes.iter().map(|n| Some(*n)).collect();
            dims.extend(self.known_dims(a).into_iter().skip(1));
            self.set_dims(a, dims);
        }
        result
    }

    fn tabulate_level<'a>(
        &mut self,
        sizes: &[Atom],
        iotas: &[Value<'a>],
        indices: Vec<Value<'a>>,
        f: Value<'a>,
        loc: SrcLoc,
    ) -> Value<'a> {
        let level = indices.len();
        match (sizes.get(level), iotas.get(level)) {
            (Some(n), Some(iota)) => {
                let arrays = [iota.clone()];
                self.map_with(*n, &arrays, loc, |s, rows| {
                    let mut indices = indices;
                    indices.extend(rows);
                    s.tabulate_level(sizes, iotas, indices, f, loc)
                })
            }
            _ => self.apply(f, indices, loc),
        }
    }

    /// An operator's function: accumulators, then elements, for `arr`'s rows.
    fn operator<'a>(&mut self, op: Value<'a>, arr: &Value<'a>, loc: SrcLoc) -> (Lambda, Value<'a>) {
        let arrays = [arr.clone()];
        let (mut accs, mut acc_vars) = self.row_params(&arrays);
        let (elems, elem_vars) = self.row_params(&arrays);
        acc_vars.extend(elem_vars);
        let acc = accs.pop().unwrap_or_else(unit);
        let elem = elems.into_iter().next().unwrap_or_else(unit);
        let (lambda, _) = self.lambda_with(acc_vars, |s| s.apply(op, vec![acc.clone(), elem], loc));
        (lambda, acc)
    }

    fn reduce_or_scan<'a>(
        &mut self,
        op: Value<'a>,
        neutral: Value<'a>,
        arr: Value<'a>,
        kind: Builtin,
        loc: SrcLoc,
    ) -> Value<'a> {
        let width = self.common_width(std::slice::from_ref(&arr), loc);
        let (lambda, acc) = self.operator(op, &arr, loc);
        let scan = matches!(kind, Builtin::Scan | Builtin::ScanRight);
        let tys: Vec<CType> = lambda
            .ret
            .iter()
            .map(|t| if scan { t.array_of() } else { *t })
            .collect();
        let (pat, value) = self.fresh_like(if scan { "s" } else { "r" }, &tys, &acc);
        if scan {
            for v in &pat {
                self.set_dims(Atom::Var(v.id), vec![Some(width)]);
            }
        }
        let neutral = leaves(&neutral).into_iter().map(|(a, _)| a).collect();
        let args = Self::array_vars(&[arr]);
        let kind = match kind {
            Builtin::Scan => SoacKind::Scan {
                op: lambda,
                neutral,
            },
            Builtin::ScanRight => SoacKind::ScanRight {
                op: lambda,
                neutral,
            },
            _ => SoacKind::Reduce {
                op: lambda,
                neutral,
            },
        };
        self.soac(width, kind, args, pat, loc);
        value
    }

    /// `filter` (one group of results) and `partition` (two).
    fn filter<'a>(
        &mut self,
        pred: Value<'a>,
        arr: Value<'a>,
        partition: bool,
        loc: SrcLoc,
    ) -> Value<'a> {
        let arrays = [arr];
        let width = self.common_width(&arrays, loc);
        let (rows, params) = self.row_params(&arrays);
        let (pred, _) = self.lambda_with(params, |s| s.apply(pred, rows, loc));
        let [arr] = arrays;
        let tys: Vec<CType> = leaves(&arr).into_iter().map(|(_, t)| t).collect();
        let (matches, first) = self.fresh_like("f", &tys, &arr);
        let (rest, second) = self.fresh_like("f", &tys, &arr);
        let mut pat = matches;
        let kind = if partition {
            pat.extend(rest);
            SoacKind::Partition { pred }
        } else {
            SoacKind::Filter { pred }
        };
        let args = Self::array_vars(std::slice::from_ref(&arr));
        self.soac(width, kind, args, pat, loc);
        // The arrays of one group share their size: read it once.
        for group in [&first, &second].iter().take(if partition { 2 } else { 1 }) {
            let ids: Vec<Atom> = leaves(group).into_iter().map(|(a, _)| a).collect();
            if let (Some(Atom::Var(f)), true) = (ids.first().copied(), ids.len() > 1) {
                let n = self.size_of(f, 0, loc);
                for a in &ids[1..] {
                    self.set_dims(*a, vec![Some(n)]);
                }
            }
        }
        if partition {
            Value::Tuple(vec![first, second])
        } else {
            first
        }
    }

    fn scatter<'a>(
        &mut self,
        dest: Value<'a>,
        is: Value<'a>,
        vs: Value<'a>,
        loc: SrcLoc,
    ) -> Value<'a> {
        let width = self.common_width(&[is.clone(), vs.clone()], loc);
        let dest_ids = Self::array_vars(std::slice::from_ref(&dest));
        let tys: Vec<CType> = leaves(&dest).into_iter().map(|(_, t)| t).collect();
        let (pat, value) = self.fresh_like("sc", &tys, &dest);
        for (v, d) in pat.iter().zip(&dest_ids) {
            let dims = self.known_dims(Atom::Var(*d));
            self.set_dims(Atom::Var(v.id), dims);
        }
        let args = Self::array_vars(&[is, vs]);
        self.soac(width, SoacKind::Scatter { dest: dest_ids }, args, pat, loc);
        value
    }

    /// `hist op ne m is vs`, and with `dest` `reduce_by_index dest op ne is vs`.
    #[allow(clippy::too_many_arguments)]
    fn hist<'a>(
        &mut self,
        dest: Option<Value<'a>>,
        op: Value<'a>,
        neutral: Value<'a>,
        bins: Atom,
        is: Value<'a>,
        vs: Value<'a>,
        loc: SrcLoc,
    ) -> Value<'a> {
        let width = self.common_width(&[is.clone(), vs.clone()], loc);
        let (lambda, acc) = self.operator(op, &vs, loc);
        let (bins, dest_ids) = match &dest {
            Some(d) => {
                let bins = match first_array(d) {
                    Some(f) => self.size_of(f, 0, loc),
                    None => Self::i64_atom(0),
                };
                (bins, Some(Self::array_vars(std::slice::from_ref(d))))
            }
            None => (bins, None),
        };
        let tys: Vec<CType> = lambda.ret.iter().map(|t| t.array_of()).collect();
        let (pat, value) = self.fresh_like("h", &tys, &acc);
        for v in &pat {
            self.set_dims(Atom::Var(v.id), vec![Some(bins)]);
        }
        let neutral = leaves(&neutral).into_iter().map(|(a, _)| a).collect();
        let args = Self::array_vars(&[is, vs]);
        let kind = SoacKind::Hist {
            op: lambda,
            neutral,
            bins,
            dest: dest_ids,
        };
        self.soac(width, kind, args, pat, loc);
        value
    }

    fn concat<'a>(&mut self, x: Value<'a>, y: Value<'a>, loc: SrcLoc) -> Value<'a> {
        let mut ys = leaves(&y).into_iter();
        self.per_array(&x, loc, |s, id, t| {
            let mut parts = vec![id];
            if let Some((Atom::Var(other), _)) = ys.next() {
                parts.push(other);
            }
            let mut dims = vec![None];
            dims.extend(s.known_dims(Atom::Var(id)).into_iter().skip(1));
            (t, Exp::Concat(parts), dims)
        })
    }

    /// Transpose, flatten, unflatten, reverse and rotate: one statement per
    /// array leaf.
    fn reshape<'a>(&mut self, b: Builtin, args: &[Value<'a>], loc: SrcLoc) -> Value<'a> {
        let scalar_arg = |i: usize| args.get(i).map_or(Self::i64_atom(0), |v| Self::scalar(v).0);
        let arr = args.last().cloned().unwrap_or_else(unit);
        match b {
            Builtin::Transpose => self.per_array(&arr, loc, |s, id, t| {
                let mut dims = s.known_dims(Atom::Var(id));
                dims.resize(t.rank().max(2), None);
                dims.swap(0, 1);
                (t, Exp::Transpose(id), dims)
            }),
            Builtin::Flatten => self.per_array(&arr, loc, |s, id, t| {
                let known = s.known_dims(Atom::Var(id));
                let mut dims = vec![match (known.first(), known.get(1)) {
                    (Some(Some(a)), Some(Some(b))) => Some(s.i64_op(BinOp::Mul, *a, *b, loc)),
                    _ => None,
                }];
                dims.extend(known.into_iter().skip(2));
                let rt = CType::Array(t.elem(), t.rank().saturating_sub(1).max(1));
                (rt, Exp::Flatten(id), dims)
            }),
            Builtin::Unflatten => {
                let (rows, cols) = (scalar_arg(0), scalar_arg(1));
                self.per_array(&arr, loc, |s, id, t| {
                    let mut dims = vec![Some(rows), Some(cols)];
                    dims.extend(s.known_dims(Atom::Var(id)).into_iter().skip(1));
                    let exp = Exp::Unflatten {
                        array: id,
                        rows,
                        cols,
                    };
                    (t.array_of(), exp, dims)
                })
            }
            Builtin::Reverse => self.per_array(&arr, loc, |s, id, t| {
                (t, Exp::Reverse(id), s.known_dims(Atom::Var(id)))
            }),
            _ => {
                let amount = scalar_arg(0);
                self.per_array(&arr, loc, |s, id, t| {
                    let exp = Exp::Rotate { array: id, amount };
                    (t, exp, s.known_dims(Atom::Var(id)))
                })
            }
        }
    }

    fn builtin<'a>(&mut self, b: Builtin, mut args: Vec<Value<'a>>, loc: SrcLoc) -> Value<'a> {
        let i64_ = CType::Scalar(ScalarType::I64);
        let mut take = |i: usize| {
            args.get_mut(i)
                .map_or_else(unit, |v| std::mem::replace(v, unit()))
        };
        match b {
            Builtin::Length => match first_array(&take(0)) {
                Some(arr) => Value::Leaf(self.size_of(arr, 0, loc), i64_),
                None => Value::Leaf(Atom::Const(Const::I64(0)), i64_),
            },
            Builtin::Iota => {
                let (n, _) = Self::scalar(&take(0));
                let r = self.let1("iota", CType::Array(ScalarType::I64, 1), Exp::Iota(n), loc);
                self.set_dims(r, vec![Some(n)]);
                Value::Leaf(r, CType::Array(ScalarType::I64, 1))
            }
            Builtin::Replicate => {
                let (n, _) = Self::scalar(&take(0));
                let v = take(1);
                let mut outs = Vec::new();
                for (a, t) in leaves(&v) {
                    let r = self.let1(
                        "rep",
                        t.array_of(),
                        Exp::Replicate { count: n, value: a },
                        loc,
                    );
                    let mut dims = vec![Some(n)];
                    dims.extend(self.known_dims(a));
                    self.set_dims(r, dims);
                    outs.push((r, t.array_of()));
                }
                rebuild(&v, &mut outs.into_iter())
            }
            Builtin::Map(_) => {
                let f = take(0);
                args.remove(0);
                self.map(f, args, loc)
            }
            Builtin::Tabulate(k) => {
                let k = k as usize;
                let sizes = (0..k).map(|i| Self::scalar(&take(i)).0).collect();
                let f = take(k);
                self.tabulate(sizes, f, loc)
            }
            Builtin::Reduce | Builtin::ReduceComm | Builtin::Scan | Builtin::ScanRight => {
                let (op, neutral, arr) = (take(0), take(1), take(2));
                self.reduce_or_scan(op, neutral, arr, b, loc)
            }
            Builtin::Filter | Builtin::Partition => {
                let (pred, arr) = (take(0), take(1));
                self.filter(pred, arr, b == Builtin::Partition, loc)
            }
            Builtin::Scatter => {
                let (dest, is, vs) = (take(0), take(1), take(2));
                self.scatter(dest, is, vs, loc)
            }
            Builtin::Hist => {
                let (op, ne, m, is, vs) = (take(0), take(1), take(2), take(3), take(4));
                let bins = Self::scalar(&m).0;
                self.hist(None, op, ne, bins, is, vs, loc)
            }
            Builtin::ReduceByIndex => {
                let (dest, op, ne, is, vs) = (take(0), take(1), take(2), take(3), take(4));
                self.hist(Some(dest), op, ne, Self::i64_atom(0), is, vs, loc)
            }
            Builtin::Concat => {
                let (x, y) = (take(0), take(1));
                self.concat(x, y, loc)
            }
            Builtin::Transpose
            | Builtin::Flatten
            | Builtin::Unflatten
            | Builtin::Reverse
            | Builtin::Rotate => self.reshape(b, &args, loc),
            Builtin::Zip(_) => {
                self.common_width(&args, loc);
                Value::Tuple(args)
            }
            Builtin::Unzip(_) => take(0),
            Builtin::Scalar(t, f) => {
                let xs: Vec<Atom> = (0..f.arity()).map(|i| Self::scalar(&take(i)).0).collect();
                self.scalar_fn(t, f, &xs, loc)
            }
        }
    }

    /// A member `f` of scalar module `t` applied to `xs`; the members
    /// beyond single operations are built from them here.
    fn scalar_fn<'a>(&mut self, t: ScalarType, f: ScalarFn, xs: &[Atom], loc: SrcLoc) -> Value<'a> {
        if let Some(v) = self.futhark_scalar_fn(t, f, xs, loc) {
            return v;
        }
        let ty = CType::Scalar(t);
        let rt = CType::Scalar(f.result(t));
        let bool_ = CType::Scalar(ScalarType::Bool);
        let int = |v: i128| Atom::Const(Const::int_wrapping(t, v));
        let x = xs[0];
        let leaf = |s: &mut Self, e: Exp| Value::Leaf(s.let1("t", rt, e, loc), rt);
        let exp = match f {
            ScalarFn::Convert(from) if from == t => return Value::Leaf(x, rt),
            ScalarFn::Convert(_) => Exp::Convert(t, x),
            ScalarFn::Min => Exp::BinOp(BinOp::Min, x, xs[1]),
            ScalarFn::Max => Exp::BinOp(BinOp::Max, x, xs[1]),
            ScalarFn::Pow => Exp::BinOp(BinOp::Pow, x, xs[1]),
            ScalarFn::Atan2 => Exp::BinOp(BinOp::Atan2, x, xs[1]),
            ScalarFn::Hypot => Exp::BinOp(BinOp::Hypot, x, xs[1]),
            ScalarFn::GetBit => {
                // Floats by their bits; the bit shifted down and masked.
                let (vt, value) = if t.is_float() {
                    let u = t.bits_type();
                    let bits = Exp::UnOp(UnOp::ToBits, xs[1]);
                    (u, self.let1("bits", CType::Scalar(u), bits, loc))
                } else {
                    (t, xs[1])
                };
                let vty = CType::Scalar(vt);
                let shift = self.let1("t", vty, Exp::Convert(vt, x), loc);
                let down = self.let1("t", vty, Exp::BinOp(BinOp::Shr, value, shift), loc);
                let one = Atom::Const(Const::int_wrapping(vt, 1));
                let bit = self.let1("t", vty, Exp::BinOp(BinOp::And, down, one), loc);
                Exp::Convert(ScalarType::I32, bit)
            }
            ScalarFn::SetBit => {
                let shift = self.let1("t", ty, Exp::Convert(t, x), loc);
                let mask = self.let1("t", ty, Exp::BinOp(BinOp::Shl, int(1), shift), loc);
                let keep = self.let1("t", ty, Exp::UnOp(UnOp::Not, mask), loc);
                let cleared = self.let1("t", ty, Exp::BinOp(BinOp::And, xs[1], keep), loc);
                let b = self.let1("t", ty, Exp::Convert(t, xs[2]), loc);
                let b = self.let1("t", ty, Exp::BinOp(BinOp::And, b, int(1)), loc);
                let b = self.let1("t", ty, Exp::BinOp(BinOp::Shl, b, shift), loc);
                Exp::BinOp(BinOp::Or, cleared, b)
            }
            ScalarFn::Ctz => {
                // The bits below the lowest set bit, counted (all of them for 0).
                let neg = self.let1("t", ty, Exp::UnOp(UnOp::Neg, x), loc);
                let lowest = self.let1("t", ty, Exp::BinOp(BinOp::And, x, neg), loc);
                let below = self.let1("t", ty, Exp::BinOp(BinOp::Sub, lowest, int(1)), loc);
                Exp::UnOp(UnOp::Popc, below)
            }
            ScalarFn::Sgn => {
                let zero = Atom::Const(Const::zero(t));
                let gt = self.let1("t", bool_, Exp::BinOp(BinOp::Gt, x, zero), loc);
                let lt = self.let1("t", bool_, Exp::BinOp(BinOp::Lt, x, zero), loc);
                let up = self.let1("t", ty, Exp::Convert(t, gt), loc);
                let down = self.let1("t", ty, Exp::Convert(t, lt), loc);
                let sign = self.let1("t", ty, Exp::BinOp(BinOp::Sub, up, down), loc);
                if !t.is_float() {
                    return Value::Leaf(sign, ty);
                }
                let nan = self.let1("t", bool_, Exp::UnOp(UnOp::IsNan, x), loc);
                return self.if_(nan, loc, |_| Value::Leaf(x, ty), |_| Value::Leaf(sign, ty));
            }
            ScalarFn::Mad => {
                let product = self.let1("t", ty, Exp::BinOp(BinOp::Mul, x, xs[1]), loc);
                Exp::BinOp(BinOp::Add, product, xs[2])
            }
            ScalarFn::Lerp => {
                let span = self.let1("t", ty, Exp::BinOp(BinOp::Sub, xs[1], x), loc);
                let part = self.let1("t", ty, Exp::BinOp(BinOp::Mul, span, xs[2]), loc);
                Exp::BinOp(BinOp::Add, x, part)
            }
            ScalarFn::IsFinite => {
                let nan = self.let1("t", bool_, Exp::UnOp(UnOp::IsNan, x), loc);
                let inf = self.let1("t", bool_, Exp::UnOp(UnOp::IsInf, x), loc);
                let either = self.let1("t", bool_, Exp::BinOp(BinOp::Or, nan, inf), loc);
                Exp::UnOp(UnOp::Not, either)
            }
            other => match scalar_unop(other) {
                Some(op) => Exp::UnOp(op, x),
                None => Exp::Atom(x),
            },
        };
        leaf(self, exp)
    }
}

/// Names for the leaves of a parameter pattern, in order.
fn pat_leaf_names(p: &TPat) -> Vec<String> {
    let count = |t: &Type| {
        let mut tys = Vec::new();
        type_leaves(t, 0, &mut tys);
        tys.len()
    };
    match p {
        TPat::Var { name, ty, .. } => vec![name.clone(); count(ty)],
        TPat::Wildcard(ty) => vec!["p".to_string(); count(ty)],
        TPat::Tuple(ps, _) => ps.iter().flat_map(pat_leaf_names).collect(),
        TPat::Ascribed(q, _) => pat_leaf_names(q),
    }
}

// Futhark's scalar-module members beyond the contract's list.
#[path = "lower_scalar.rs"]
mod scalar;

#[cfg(test)]
#[path = "lower_tests.rs"]
mod tests;
