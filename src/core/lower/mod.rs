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

mod bind;
mod expr;
// Futhark's scalar-module members beyond the contract's list.
mod futhark_scalar;
mod scalar;
mod soacs;
mod sums;

/// The type of a sum type's tag: the constructor's position in name order.
const TAG: ScalarType = ScalarType::U8;

use super::ir::{
    condition_text, range_form, AssertReport, Atom, BinOp, Body, DimSlice, Exp, Function, Lambda,
    LoopForm, Program, SizeParam, Soac, SoacId, SoacKind, SrcLoc, Stm, Type as CType, UnOp, Var,
    VarId,
};
use crate::syntax::ast::{self, Field, FileId, Span};
use crate::syntax::SourceMap;
use crate::types::pmap::PMap;
use crate::types::{
    Builtin, CheckedProgram, Const, Dim, Entry, LocalId, ScalarFn, ScalarType, Shape, TAttr, TExpr,
    TExprKind, TLambda, TLoopForm, TPat, TSlice, Type,
};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Lowers every entry point of `checked` to a core IR function.
pub fn lower(checked: &CheckedProgram, sources: &SourceMap) -> Program {
    let mut lowerer = Lowerer::new(sources, &checked.instances);
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

/// Locals' values: a persistent map, so closures capture their scope for
/// free and lookups stay logarithmic in long chains of `let`s.
#[derive(Clone, Default)]
struct Env<'a>(PMap<LocalId, Value<'a>>);

impl<'a> Env<'a> {
    fn bind(&self, id: LocalId, value: Value<'a>) -> Env<'a> {
        Env(self.0.insert(id, value))
    }

    fn get(&self, id: LocalId) -> Option<&Value<'a>> {
        self.0.get(&id)
    }
}

fn unit<'a>() -> Value<'a> {
    Value::Tuple(Vec::new())
}

/// The leaf that stands for `()`, `{}` and other fieldless values: a value
/// with no leaf would make an array of them lose its length, so each such
/// value is a `false` (an array of them a `bool` array of its shape). Entry
/// points neither read nor print it (`bind::entry`).
const UNIT_LEAF: ScalarType = ScalarType::Bool;

fn unit_leaf<'a>() -> Value<'a> {
    Value::Leaf(Atom::Const(Const::Bool(false)), CType::Scalar(UNIT_LEAF))
}

/// `()`, `{}`: the types lowering gives the unit leaf.
fn is_unit(t: &Type) -> bool {
    matches!(t, Type::Tuple(ts) if ts.is_empty()) || matches!(t, Type::Record(fs) if fs.is_empty())
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
fn value_leaves(t: &Type, depth: usize, out: &mut Vec<CType>) {
    let mut marked = Vec::new();
    marked_leaves(t, depth, &mut marked);
    out.extend(marked.into_iter().map(|(t, _)| t));
}

/// The leaves an entry point takes or returns for a value of type `t`: its
/// value's, but for the scalar unit leaves, which entries neither read nor
/// print (an array of units keeps its `bool` array: its length).
pub(crate) fn type_leaves(t: &Type, depth: usize, out: &mut Vec<CType>) {
    let mut marked = Vec::new();
    marked_leaves(t, depth, &mut marked);
    out.extend(
        marked
            .into_iter()
            .filter(|&(t, unit)| !(unit && t.rank() == 0))
            .map(|(t, _)| t),
    );
}

/// `type_leaves`, each marked with whether it is a unit leaf.
fn marked_leaves(t: &Type, depth: usize, out: &mut Vec<(CType, bool)>) {
    let leaf = |s: ScalarType| {
        if depth == 0 {
            CType::Scalar(s)
        } else {
            CType::Array(s, depth)
        }
    };
    match t {
        Type::Scalar(s) => out.push((leaf(*s), false)),
        _ if is_unit(t) => out.push((leaf(UNIT_LEAF), true)),
        Type::Array(e) => marked_leaves(e, depth + 1, out),
        Type::Tuple(ts) => ts.iter().for_each(|t| marked_leaves(t, depth, out)),
        Type::Record(fs) => fs.iter().for_each(|(_, t)| marked_leaves(t, depth, out)),
        // A sum type: its tag, then every constructor's payload.
        Type::Sum(cs) => {
            marked_leaves(&Type::Scalar(TAG), depth, out);
            cs.iter()
                .flat_map(|(_, ts)| ts)
                .for_each(|t| marked_leaves(t, depth, out));
        }
        Type::Func(..) | Type::Var(_) | Type::Param(_) => {}
    }
}

/// A value of type `t` whose leaves are taken, in order, from `atoms`.
fn build_value<'a>(t: &Type, atoms: &mut impl Iterator<Item = (Atom, CType)>) -> Value<'a> {
    match t {
        Type::Scalar(_) => atoms.next().map_or_else(unit, |(a, t)| Value::Leaf(a, t)),
        _ if is_unit(t) => atoms.next().map_or_else(unit, |(a, t)| Value::Leaf(a, t)),
        Type::Array(e) => {
            let mut inner = &**e;
            while let Type::Array(x) = inner {
                inner = x;
            }
            // An array of tuples is a tuple of arrays.
            build_value(inner, atoms)
        }
        Type::Tuple(ts) => Value::Tuple(ts.iter().map(|t| build_value(t, atoms)).collect()),
        Type::Record(fs) => Value::Tuple(fs.iter().map(|(_, t)| build_value(t, atoms)).collect()),
        Type::Sum(cs) => {
            let mut parts = vec![build_value(&Type::Scalar(TAG), atoms)];
            for (_, ts) in cs {
                parts.push(Value::Tuple(
                    ts.iter().map(|t| build_value(t, atoms)).collect(),
                ));
            }
            Value::Tuple(parts)
        }
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

struct Lowerer<'a> {
    sources: &'a SourceMap,
    /// The checked program's instances of global definitions.
    instances: &'a [TLambda],
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
    /// Inside how many `#[sequential]` and `#[unsafe]` attributes the
    /// expression being lowered is.
    sequential: u32,
    unchecked: u32,
    /// Arrays of rank >= 2 made by an empty literal `[]`: their row shape is
    /// whatever the type they are ascribed says (`[] : [0][n]t`).
    empty_literals: HashSet<VarId>,
}

/// The most iterations `#[unroll]` copies out (docs/language.md).
const MAX_UNROLL: i128 = 256;

impl<'a> Lowerer<'a> {
    fn new(sources: &'a SourceMap, instances: &'a [TLambda]) -> Self {
        Lowerer {
            sources,
            instances,
            next_var: 0,
            next_soac: 0,
            stms: Vec::new(),
            dims: HashMap::new(),
            entry_sizes: HashMap::new(),
            entry_uses: Vec::new(),
            entry_fixed: Vec::new(),
            param_index: HashMap::new(),
            sequential: 0,
            unchecked: 0,
            empty_literals: HashSet::new(),
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

    /// The source text of `span` in `file`, where the file is known.
    fn source_text(&self, file: FileId, span: &Span) -> Option<&'a str> {
        let sources: &'a SourceMap = self.sources;
        sources.files.get(file)?.text.get(span.start..span.end)
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
    fn default_value(&mut self, t: &Type, loc: SrcLoc) -> Value<'a> {
        let mut tys = Vec::new();
        value_leaves(t, 0, &mut tys);
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
}

/// Names for the leaves of a parameter pattern, in order.
fn pat_leaf_names(p: &TPat) -> Vec<String> {
    let count = |t: &Type| {
        let mut tys = Vec::new();
        value_leaves(t, 0, &mut tys);
        tys.len()
    };
    match p {
        TPat::Var { name, ty, .. } => vec![name.clone(); count(ty)],
        TPat::Wildcard(ty) | TPat::Ctor(_, _, ty) => vec!["p".to_string(); count(ty)],
        TPat::Lit(e) => vec!["p".to_string(); count(&e.ty)],
        TPat::Tuple(ps, _) => ps.iter().flat_map(pat_leaf_names).collect(),
        TPat::Ascribed(q, _) => pat_leaf_names(q),
    }
}

#[cfg(test)]
mod tests;
