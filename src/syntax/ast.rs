//! The surface syntax tree, exactly as written, with byte spans into the file.

use crate::types::ScalarType;

/// Byte range in a source file.
pub type Span = std::ops::Range<usize>;

/// Index into `SourceMap::files`.
pub type FileId = usize;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub file: FileId,
    pub decls: Vec<Decl>,
}

// Few declarations per program; boxing `Def` would only burden its users.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    Def(Def),
    Type(TypeDecl),
    /// `import "path"`: path as written, without `.arr`.
    Import(String, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    pub is_entry: bool,
    pub name: Ident,
    /// Size `[n]` and type `'t` parameters, in the order written.
    pub type_params: Vec<TypeParam>,
    pub params: Vec<Pattern>,
    pub ret: Option<TypeExpr>,
    pub body: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeParam {
    Size(Ident),
    Type(Ident),
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeDecl {
    pub name: Ident,
    pub params: Vec<TypeParam>,
    pub ty: TypeExpr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeExpr {
    Scalar(ScalarType, Span),
    /// A type abbreviation's name.
    Named(Ident),
    /// `'t`
    Var(Ident),
    /// `[size]elem`
    Array(SizeExpr, Box<TypeExpr>, Span),
    /// `()` is the empty tuple.
    Tuple(Vec<TypeExpr>, Span),
    Record(Vec<(Ident, TypeExpr)>, Span),
    Func(Box<TypeExpr>, Box<TypeExpr>, Span),
    /// A parametric abbreviation applied to type arguments: `vec f32` for
    /// `type vec 't = [3]t`.
    Apply(Ident, Vec<TypeExpr>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum SizeExpr {
    Named(Ident),
    Const(u64, Span),
    /// `[]`
    Any(Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Id(Ident),
    Wildcard(Span),
    /// `()` is the empty tuple pattern.
    Tuple(Vec<Pattern>, Span),
    /// `{x = p, y}`; a punned field has `Pattern::Id` with the field's name.
    Record(Vec<(Ident, Pattern)>, Span),
    Ascribed(Box<Pattern>, TypeExpr, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`: rounds towards negative infinity on signed integers.
    Div,
    /// `%`: takes the divisor's sign.
    Mod,
    /// `//`: truncates towards zero.
    Quot,
    /// `%%`: remainder of `//`.
    Rem,
    Pow,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&&`, short-circuit.
    LogAnd,
    /// `||`, short-circuit.
    LogOr,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    /// `>>`: arithmetic on signed types.
    Shr,
    /// `>>>`: logical.
    UShr,
    /// `++`
    Concat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    /// `!`: logical on bool, bitwise on integers.
    Not,
}

// Slices are rare and short-lived; boxing their bounds buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum IndexArg {
    Index(Expr),
    /// `a[start:end:stride]`, each part optional.
    Slice(Option<Expr>, Option<Expr>, Option<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    Name(String),
    /// `t.0`
    Index(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `for i < n`
    For(Ident, Box<Expr>),
    /// `for x in xs`
    ForIn(Pattern, Box<Expr>),
    /// `while cond`
    While(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer literal; the value as written (always non-negative), optional suffix.
    IntLit(u128, Option<ScalarType>),
    FloatLit(f64, Option<ScalarType>),
    BoolLit(bool),
    /// A name, optionally qualified by a scalar module: `f32.sqrt` has
    /// `qualifier = Some("f32")`.
    Var {
        qualifier: Option<String>,
        name: Ident,
    },
    Tuple(Vec<Expr>),
    Record(Vec<(Ident, Expr)>),
    ArrayLit(Vec<Expr>),
    /// `f a b`, also `x |> f` and `f <| x` after desugaring.
    Apply(Box<Expr>, Vec<Expr>),
    BinOp(BinOp, Box<Expr>, Box<Expr>),
    UnOp(UnOp, Box<Expr>),
    /// `(+)`
    OpSection(BinOp),
    /// `(x +)`: the left operand is given.
    LeftSection(BinOp, Box<Expr>),
    /// `(+ x)`: the right operand is given.
    RightSection(BinOp, Box<Expr>),
    Lambda(Vec<Pattern>, Option<TypeExpr>, Box<Expr>),
    Let(Pattern, Box<Expr>, Box<Expr>),
    /// `let f x y : t = e1 in e2`
    LetFun {
        name: Ident,
        type_params: Vec<TypeParam>,
        params: Vec<Pattern>,
        ret: Option<TypeExpr>,
        rhs: Box<Expr>,
        body: Box<Expr>,
    },
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Loop {
        pat: Pattern,
        /// `None` for `loop x for ...`, which initialises from the variable `x` in scope.
        init: Option<Box<Expr>>,
        form: LoopForm,
        body: Box<Expr>,
    },
    Index(Box<Expr>, Vec<IndexArg>),
    /// `a with [i, j] = v`
    Update(Box<Expr>, Vec<IndexArg>, Box<Expr>),
    /// `r with a.b = v`: a copy of the record (or tuple) `r` with the field
    /// at the path replaced (Futhark's record update).
    RecordUpdate(Box<Expr>, Vec<Field>, Box<Expr>),
    Field(Box<Expr>, Field),
    Ascribe(Box<Expr>, TypeExpr),
    Assert(Box<Expr>, Box<Expr>),
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(id) | TypeExpr::Var(id) => id.span.clone(),
            TypeExpr::Scalar(_, s)
            | TypeExpr::Array(_, _, s)
            | TypeExpr::Tuple(_, s)
            | TypeExpr::Record(_, s)
            | TypeExpr::Func(_, _, s)
            | TypeExpr::Apply(_, _, s) => s.clone(),
        }
    }
}

impl SizeExpr {
    pub fn span(&self) -> Span {
        match self {
            SizeExpr::Named(id) => id.span.clone(),
            SizeExpr::Const(_, s) | SizeExpr::Any(s) => s.clone(),
        }
    }
}

impl Pattern {
    pub fn span(&self) -> Span {
        match self {
            Pattern::Id(id) => id.span.clone(),
            Pattern::Wildcard(s)
            | Pattern::Tuple(_, s)
            | Pattern::Record(_, s)
            | Pattern::Ascribed(_, _, s) => s.clone(),
        }
    }
}

impl Decl {
    pub fn span(&self) -> Span {
        match self {
            Decl::Def(d) => d.span.clone(),
            Decl::Type(t) => t.span.clone(),
            Decl::Import(_, s) => s.clone(),
        }
    }
}
