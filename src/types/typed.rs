//! The checked program: one fully typed expression tree per entry point, and
//! one typed body per instance of a `def`.
//!
//! A use of a global `def` refers to its instance at the types of that use
//! (`TExprKind::Instance`): each definition is elaborated once per distinct
//! instantiation, and instances are closed (they use no locals of their
//! callers), so lowering may inline one body at many calls. A local function
//! is replaced by a typed copy of its body, checked at each use
//! (`TExprKind::Lambda`). Function values remain only as lambdas, instances
//! and builtins, which lowering applies by inlining. Records are kept with
//! fields in name order. Every type is resolved: no `Type::Var` or
//! `Type::Param`.

use super::scalar::{Const, ScalarType};
use super::ty::{LocalId, Shape, Type};
pub use crate::syntax::ast::RangeKind;
use crate::syntax::ast::{BinOp, Field, FileId, Span, UnOp};

#[derive(Clone, Debug, PartialEq)]
pub struct CheckedProgram {
    pub entries: Vec<Entry>,
    /// Instances of global definitions, indexed by `TExprKind::Instance`.
    /// One without parameters is a constant, lowered at each use.
    pub instances: Vec<TLambda>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub file: FileId,
    pub span: Span,
    /// `[n]` parameters: each an `i64` local bound by a dimension of a parameter.
    pub size_params: Vec<(LocalId, String)>,
    pub params: Vec<TPat>,
    pub ret: Type,
    pub body: TExpr,
    /// The names the source gives the parameters' types (`p: point`,
    /// `ps: []point`), one per parameter, and the result's (one per
    /// component of a tuple result): what a library calls its opaque types.
    pub param_type_names: Vec<Option<String>>,
    pub ret_type_names: Vec<Option<String>>,
    /// Set when the entry takes or returns a record, a sum type, a nested
    /// tuple or an array of those: a library passes them as opaque values,
    /// an executable cannot read or print them and reports this.
    pub opaque: Option<crate::syntax::diagnostic::Diagnostic>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TPat {
    Var {
        id: LocalId,
        name: String,
        ty: Type,
    },
    Wildcard(Type),
    /// Tuples, and records in field-name order.
    Tuple(Vec<TPat>, Type),
    /// A pattern with a type annotation whose sizes are bound or checked.
    Ascribed(Box<TPat>, Shape),
    /// `#c p1 p2` on a value of sum type `ty`.
    Ctor(String, Vec<TPat>, Type),
    /// A literal, matched by equality (a `Literal`, possibly negated).
    Lit(Box<TExpr>),
}

impl TPat {
    pub fn ty(&self) -> &Type {
        match self {
            TPat::Var { ty, .. }
            | TPat::Wildcard(ty)
            | TPat::Tuple(_, ty)
            | TPat::Ctor(_, _, ty) => ty,
            TPat::Ascribed(p, _) => p.ty(),
            TPat::Lit(e) => &e.ty,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TExpr {
    pub kind: TExprKind,
    pub ty: Type,
    /// Where the expression is written (inside an inlined function: there).
    pub file: FileId,
    pub span: Span,
}

/// A literal; its value in the type of its node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// Unsuffixed or suffixed integer literal, as written (non-negative).
    Int(u128),
    Float(f64),
    Bool(bool),
    /// A named constant such as `f32.pi` or `i32.lowest`.
    Const(Const),
}

impl Literal {
    /// The value at scalar type `t` (integers wrap, as the checker has
    /// verified the range).
    pub fn to_const(self, t: ScalarType) -> Const {
        match self {
            Literal::Int(v) => match t {
                ScalarType::F16 => Const::F16(super::half::F16::from_f64(v as f64)),
                ScalarType::F32 => Const::F32(v as f32),
                ScalarType::F64 => Const::F64(v as f64),
                _ => Const::int_wrapping(t, v as i128),
            },
            Literal::Float(v) => match t {
                ScalarType::F16 => Const::F16(super::half::F16::from_f64(v)),
                ScalarType::F32 => Const::F32(v as f32),
                _ => Const::F64(v),
            },
            Literal::Bool(b) => Const::Bool(b),
            Literal::Const(c) => c,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TLambda {
    /// The `def` this is an instance of, if any (for readable output).
    pub name: Option<String>,
    /// Bound, on application, by the dimensions of the arguments.
    pub size_params: Vec<(LocalId, String)>,
    pub params: Vec<TPat>,
    pub body: TExpr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TExprKind {
    Literal(Literal),
    Var(LocalId),
    /// A built-in function, to be applied to its arguments.
    Builtin(Builtin),
    Tuple(Vec<TExpr>),
    /// Fields in name order.
    Record(Vec<(String, TExpr)>),
    ArrayLit(Vec<TExpr>),
    Apply(Box<TExpr>, Vec<TExpr>),
    /// Operands of the same type; `&&`/`||` short-circuit.
    BinOp(BinOp, Box<TExpr>, Box<TExpr>),
    UnOp(UnOp, Box<TExpr>),
    Lambda(Box<TLambda>),
    Let(TPat, Box<TExpr>, Box<TExpr>),
    If(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    /// One `i64` index per dimension indexed.
    Index(Box<TExpr>, Vec<TExpr>),
    /// Tuple component or record field of the inner expression's type.
    Field(Box<TExpr>, Field),
    /// `e : t` where `t` declares sizes to check.
    Ascribe(Box<TExpr>, Shape),
    /// `#[attr] e` for the attributes that change how `e` runs (the others
    /// are dropped by the checker).
    Attr(TAttr, Box<TExpr>),
    Assert(Box<TExpr>, Box<TExpr>),
    /// `loop pat = init form do body`: the loop state is `pat`, its type the
    /// loop's.
    Loop {
        pat: TPat,
        init: Box<TExpr>,
        form: TLoopForm,
        body: Box<TExpr>,
    },
    /// `#c a b`: a sum type's constructor and its payload.
    Ctor(String, Vec<TExpr>),
    /// `match e case p -> e ...`: the first case whose pattern matches.
    Match(Box<TExpr>, Vec<(TPat, TExpr)>),
    /// `start..second...end` and the other ranges: an array of the
    /// integer type of `start`.
    Range {
        start: Box<TExpr>,
        second: Option<Box<TExpr>>,
        end: Box<TExpr>,
        kind: RangeKind,
    },
    /// Indexing with at least one range: one entry per dimension sliced.
    Slice(Box<TExpr>, Vec<TSlice>),
    /// `a with [i, j] = v`: one `i64` index per dimension indexed.
    Update(Box<TExpr>, Vec<TExpr>, Box<TExpr>),
    /// `r with a.b = v`: the position of each field of the path among its
    /// record's (sorted) fields or its tuple's components.
    RecordUpdate(Box<TExpr>, Vec<usize>, Box<TExpr>),
    /// `t.lowest`, `t.max`, `t.i64` ... on a type parameter `t`. Replaced by
    /// a `Literal` or a `Builtin` once the definition's types are final, so
    /// lowering never sees it.
    TypeMember(Type, String),
    /// A global definition at one instantiation: an index into
    /// `CheckedProgram::instances`.
    Instance(usize),
    /// A use of global definition `def` while types are inferred: the types
    /// of its scheme's variables at this use. Replaced by an `Instance` once
    /// they are final, so lowering never sees it.
    DefUse {
        def: usize,
        vars: Vec<Type>,
    },
}

impl TExpr {
    /// Calls `f` on this expression and then on every expression inside it
    /// (also inside lambdas), outermost first.
    pub fn walk_mut(&mut self, f: &mut impl FnMut(&mut TExpr)) {
        // An explicit stack: chains of `let`s nest as deep as they are long.
        let mut stack = vec![self];
        let mut children = Vec::new();
        while let Some(e) = stack.pop() {
            f(e);
            e.children_mut(&mut |c| children.push(c));
            stack.extend(children.drain(..).rev());
        }
    }

    /// Calls `f` on each direct subexpression, in evaluation order.
    pub fn children_mut<'s>(&'s mut self, f: &mut impl FnMut(&'s mut TExpr)) {
        match &mut self.kind {
            TExprKind::Literal(_)
            | TExprKind::Var(_)
            | TExprKind::Builtin(_)
            | TExprKind::TypeMember(..)
            | TExprKind::Instance(_)
            | TExprKind::DefUse { .. } => {}
            TExprKind::Tuple(es) | TExprKind::ArrayLit(es) | TExprKind::Ctor(_, es) => {
                es.iter_mut().for_each(f)
            }
            TExprKind::Match(e, cases) => {
                f(e);
                cases.iter_mut().for_each(|(_, b)| f(b));
            }
            TExprKind::Range {
                start, second, end, ..
            } => {
                f(start);
                if let Some(s) = second {
                    f(s);
                }
                f(end);
            }
            TExprKind::Record(fs) => fs.iter_mut().for_each(|(_, x)| f(x)),
            TExprKind::Apply(g, args) => {
                f(g);
                args.iter_mut().for_each(f);
            }
            TExprKind::BinOp(_, a, b)
            | TExprKind::Assert(a, b)
            | TExprKind::RecordUpdate(a, _, b)
            | TExprKind::Let(_, a, b) => {
                f(a);
                f(b);
            }
            TExprKind::UnOp(_, a)
            | TExprKind::Field(a, _)
            | TExprKind::Ascribe(a, _)
            | TExprKind::Attr(_, a) => f(a),
            TExprKind::Lambda(lam) => f(&mut lam.body),
            TExprKind::If(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            TExprKind::Index(a, idx) => {
                f(a);
                idx.iter_mut().for_each(f);
            }
            TExprKind::Update(a, idx, v) => {
                f(a);
                idx.iter_mut().for_each(&mut *f);
                f(v);
            }
            TExprKind::Slice(a, dims) => {
                f(a);
                for d in dims {
                    match d {
                        TSlice::Index(x) => f(x),
                        TSlice::Range { start, end, stride } => {
                            [start, end, stride].into_iter().flatten().for_each(&mut *f)
                        }
                    }
                }
            }
            TExprKind::Loop {
                init, form, body, ..
            } => {
                f(init);
                match form {
                    TLoopForm::For { bound, .. } => f(bound),
                    TLoopForm::ForIn { array, .. } => f(array),
                    TLoopForm::While(c) => f(c),
                }
                f(body);
            }
        }
    }
}

/// The attributes arrc honours (LANGUAGE.md section 11, docs/language.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TAttr {
    /// `#[unroll]`: a `for` loop with a constant trip count is unrolled.
    Unroll,
    /// `#[sequential]`: the expression's SOACs run in one thread.
    Sequential,
    /// `#[unsafe]`: the expression's index reads are not bounds-checked.
    Unsafe,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TLoopForm {
    /// `for i < bound`: `index` has the type of `bound`.
    For {
        index: LocalId,
        name: String,
        bound: Box<TExpr>,
    },
    /// `for pat in array`.
    ForIn { pat: TPat, array: Box<TExpr> },
    /// `while cond`, with the loop state in scope.
    While(Box<TExpr>),
}

/// One dimension of a slice: a fixed index, or `start:end:stride` with each
/// part optional (Futhark's defaults apply).
// Slices are few and short-lived; boxing their bounds buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum TSlice {
    Index(TExpr),
    Range {
        start: Option<TExpr>,
        end: Option<TExpr>,
        stride: Option<TExpr>,
    },
}

/// Built-in functions: array operations and scalar module members.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Length,
    Iota,
    Replicate,
    /// `map` (1) to `map5` (5): the number of arrays.
    Map(u8),
    Reduce,
    ReduceComm,
    Scan,
    /// `zip` (2) and `zip3` (3).
    Zip(u8),
    Unzip(u8),
    /// `tabulate` (1), `tabulate_2d` (2), `tabulate_3d` (3).
    Tabulate(u8),
    ScanRight,
    Filter,
    Partition,
    Scatter,
    Hist,
    ReduceByIndex,
    Transpose,
    Flatten,
    Unflatten,
    Reverse,
    Rotate,
    Concat,
    /// A member of a scalar module, e.g. `f32.sqrt`: the module's type and the function.
    Scalar(ScalarType, ScalarFn),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarFn {
    Min,
    Max,
    Abs,
    Sqrt,
    Exp,
    Log,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Floor,
    Ceil,
    Round,
    Trunc,
    Erf,
    IsNan,
    IsInf,
    Pow,
    Atan2,
    Popc,
    Clz,
    /// Futhark's `get_bit bit x`: bit `bit` of `x` as an `i32` 0 or 1.
    GetBit,
    /// Futhark's `set_bit bit x b`: `x` with bit `bit` set to `b`'s lowest bit.
    SetBit,
    /// Trailing zeros, as an `i32` (the bit width for 0).
    Ctz,
    /// -1, 0 or 1 (floats: NaN for NaN).
    Sgn,
    Neg,
    Cbrt,
    Log1p,
    Expm1,
    Asinh,
    Acosh,
    Atanh,
    Hypot,
    /// `mad a b c = a * b + c`, rounded twice.
    Mad,
    /// `lerp v0 v1 t = v0 + (v1 - v0) * t`.
    Lerp,
    IsFinite,
    /// The bits of a float as the unsigned integer of its width.
    ToBits,
    FromBits,
    /// Conversion from the given type into the module's type.
    Convert(ScalarType),
    /// Bitwise complement (Futhark's `i32.not`).
    Not,
    /// The high half of the double-width product.
    MulHi,
    /// `mul_hi a b + c`.
    MadHi,
    /// Conversions out of the module's type: `to_i32`, `to_i64`, `to_f64`.
    ToI32,
    ToI64,
    ToF64,
    /// Bits reinterpreted: `sign` from the unsigned type of the width to
    /// the signed one, `unsign` the other way.
    Sign,
    Unsign,
    /// `from_fraction x y = t.i64 x / t.i64 y`.
    FromFraction,
    Recip,
    Rsqrt,
    /// `sinpi x = sin (pi * x)`, and the others alike.
    SinPi,
    CosPi,
    TanPi,
    /// `asinpi x = asin x / pi`, and the others alike.
    AsinPi,
    AcosPi,
    AtanPi,
    Atan2Pi,
    Gamma,
    Lgamma,
    Erfc,
    /// `fma a b c = a * b + c`, always rounded once.
    Fma,
    NextAfter,
    /// `ldexp x n = x * 2**n`, exactly (one rounding).
    Ldexp,
    CopySign,
}

impl Builtin {
    /// The number of arguments after which the builtin computes.
    pub fn arity(self) -> usize {
        match self {
            Builtin::Length
            | Builtin::Iota
            | Builtin::Unzip(_)
            | Builtin::Transpose
            | Builtin::Flatten
            | Builtin::Reverse => 1,
            Builtin::Replicate
            | Builtin::Filter
            | Builtin::Partition
            | Builtin::Rotate
            | Builtin::Concat => 2,
            Builtin::Map(k) => k as usize + 1,
            Builtin::Tabulate(k) => k as usize + 1,
            Builtin::Reduce
            | Builtin::ReduceComm
            | Builtin::Scan
            | Builtin::ScanRight
            | Builtin::Scatter
            | Builtin::Unflatten => 3,
            Builtin::Hist | Builtin::ReduceByIndex => 5,
            Builtin::Zip(k) => k as usize,
            Builtin::Scalar(_, f) => f.arity(),
        }
    }
}

impl ScalarFn {
    pub fn arity(self) -> usize {
        match self {
            ScalarFn::Min
            | ScalarFn::Max
            | ScalarFn::Pow
            | ScalarFn::Atan2
            | ScalarFn::Hypot
            | ScalarFn::GetBit
            | ScalarFn::MulHi
            | ScalarFn::FromFraction
            | ScalarFn::Atan2Pi
            | ScalarFn::NextAfter
            | ScalarFn::Ldexp
            | ScalarFn::CopySign => 2,
            ScalarFn::SetBit | ScalarFn::Mad | ScalarFn::Lerp | ScalarFn::MadHi | ScalarFn::Fma => {
                3
            }
            _ => 1,
        }
    }

    /// Result type when the module's type is `t`.
    pub fn result(self, t: ScalarType) -> ScalarType {
        match self {
            ScalarFn::IsNan | ScalarFn::IsInf | ScalarFn::IsFinite => ScalarType::Bool,
            ScalarFn::Popc | ScalarFn::Clz | ScalarFn::Ctz | ScalarFn::GetBit => ScalarType::I32,
            ScalarFn::ToBits | ScalarFn::Unsign => t.bits_type(),
            ScalarFn::ToI32 => ScalarType::I32,
            ScalarFn::ToI64 => ScalarType::I64,
            ScalarFn::ToF64 => ScalarType::F64,
            ScalarFn::Sign => t.signed_type(),
            _ => t,
        }
    }

    /// Argument types, in order, when the module's type is `t`.
    pub fn params(self, t: ScalarType) -> Vec<ScalarType> {
        match self {
            ScalarFn::Convert(from) => vec![from],
            ScalarFn::FromBits => vec![t.bits_type()],
            ScalarFn::GetBit => vec![ScalarType::I32, t],
            ScalarFn::SetBit => vec![ScalarType::I32, t, ScalarType::I32],
            ScalarFn::Sign => vec![t.bits_type()],
            ScalarFn::Unsign => vec![t.signed_type()],
            ScalarFn::FromFraction => vec![ScalarType::I64; 2],
            ScalarFn::Ldexp => vec![t, ScalarType::I32],
            _ => vec![t; self.arity()],
        }
    }
}
