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

/// A name, possibly qualified by modules: `M.N.x` has `quals` `[M, N]`.
#[derive(Clone, Debug, PartialEq)]
pub struct QualIdent {
    pub quals: Vec<Ident>,
    pub name: Ident,
}

impl QualIdent {
    pub fn plain(name: Ident) -> Self {
        QualIdent {
            quals: Vec::new(),
            name,
        }
    }

    pub fn span(&self) -> Span {
        match self.quals.first() {
            Some(q) => q.span.start..self.name.span.end,
            None => self.name.span.clone(),
        }
    }

    /// As written: `M.N.x`.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for q in &self.quals {
            s += &q.name;
            s.push('.');
        }
        s + &self.name.name
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub file: FileId,
    pub decls: Vec<Decl>,
    /// Each `import` path as written, and the file it names (filled in by
    /// whoever loads the imports).
    pub imports: Vec<(String, FileId)>,
}

/// An attribute `#[name]` or `#[name(args, ...)]` (numbers are names too).
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    pub name: String,
    pub args: Vec<Attr>,
    pub span: Span,
}

// Few declarations per program; boxing `Def` would only burden its users.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    Def(Def),
    Type(TypeDecl),
    /// `import "path"`: path as written, without `.arr`.
    Import(String, Span),
    /// `module m (p: mt) : mt = e`
    Module(ModBind),
    /// `module type mt = e`
    ModType(ModTypeBind),
    /// `open e`
    Open(ModExp, Span),
    /// `local d`: `d`'s names are not visible outside the module.
    Local(Box<Decl>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModBind {
    pub name: Ident,
    /// A parametric module's parameters.
    pub params: Vec<ModParam>,
    pub sig: Option<ModTypeExp>,
    pub body: ModExp,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModParam {
    pub name: Ident,
    pub sig: ModTypeExp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModTypeBind {
    pub name: Ident,
    pub sig: ModTypeExp,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ModExp {
    Var(QualIdent),
    /// `{ decls }`
    Struct(Vec<Decl>, Span),
    /// `e : mt`
    Ascribe(Box<ModExp>, ModTypeExp, Span),
    /// `\(p: mt) ... : mt -> e`
    Lambda(Vec<ModParam>, Option<ModTypeExp>, Box<ModExp>, Span),
    /// `f e`
    Apply(Box<ModExp>, Box<ModExp>, Span),
    /// `import "path"`
    Import(String, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ModTypeExp {
    Var(QualIdent),
    /// `{ specs }`
    Specs(Vec<Spec>, Span),
    /// `mt with t 'a = t'`
    With(Box<ModTypeExp>, QualIdent, Vec<TypeParam>, TypeExpr, Span),
    /// `(p: mt) -> mt` or `mt -> mt`
    Arrow(Option<Ident>, Box<ModTypeExp>, Box<ModTypeExp>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// `val f 't : t -> t`
    Val(Ident, Vec<TypeParam>, TypeExpr, Span),
    /// `type t 'a` (abstract) or `type t 'a = ...`
    Type(Ident, Vec<TypeParam>, Option<TypeExpr>, Span),
    Module(Ident, ModTypeExp, Span),
    Include(ModTypeExp, Span),
}

impl ModExp {
    pub fn span(&self) -> Span {
        match self {
            ModExp::Var(q) => q.span(),
            ModExp::Struct(_, s)
            | ModExp::Ascribe(_, _, s)
            | ModExp::Lambda(_, _, _, s)
            | ModExp::Apply(_, _, s)
            | ModExp::Import(_, s) => s.clone(),
        }
    }
}

impl ModTypeExp {
    pub fn span(&self) -> Span {
        match self {
            ModTypeExp::Var(q) => q.span(),
            ModTypeExp::Specs(_, s) | ModTypeExp::With(.., s) | ModTypeExp::Arrow(.., s) => {
                s.clone()
            }
        }
    }
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
    Named(QualIdent),
    /// `'t`
    Var(Ident),
    /// `[size]elem`
    Array(SizeExpr, Box<TypeExpr>, Span),
    /// `()` is the empty tuple.
    Tuple(Vec<TypeExpr>, Span),
    Record(Vec<(Ident, TypeExpr)>, Span),
    /// `a -> b`, or `(n: a) -> b` where `b` may name `n` in its sizes.
    Func(Option<Ident>, Box<TypeExpr>, Box<TypeExpr>, Span),
    /// A parametric abbreviation applied to arguments: `vec f32` for
    /// `type vec 't = [3]t`, `vec [n]` for `type vec [n] = [n]f32`.
    Apply(QualIdent, Vec<TypeArg>, Span),
    /// `*t`: a unique (consumable) value.
    Unique(Box<TypeExpr>, Span),
    /// `#a t | #b`: constructors and their payloads.
    Sum(Vec<(Ident, Vec<TypeExpr>)>, Span),
    /// `?[n][m].t`: sizes known only at run time.
    Exists(Vec<Ident>, Box<TypeExpr>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeArg {
    Type(TypeExpr),
    /// `[n]`, `[3]`, `[]`
    Size(SizeExpr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum SizeExpr {
    Named(Ident),
    Const(u64, Span),
    /// `[]`
    Any(Span),
    /// `[n + 1]`: any `i64` expression.
    Expr(Box<Expr>),
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
    /// `#c p1 p2`
    Constructor(Ident, Vec<Pattern>, Span),
    /// A literal (in `case`): an `IntLit`, `FloatLit` or `BoolLit`
    /// expression, possibly negated.
    Literal(Box<Expr>),
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

impl BinOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Quot => "//",
            BinOp::Rem => "%%",
            BinOp::Pow => "**",
            BinOp::Eq => "==",
            BinOp::Neq => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::UShr => ">>>",
            BinOp::Concat => "++",
        }
    }
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
    /// `a with [i, j] = v`; `true` when written `let a[i, j] = v`, which
    /// consumes `a` (Futhark's meaning; `with` itself is a copy).
    Update(Box<Expr>, Vec<IndexArg>, Box<Expr>, bool),
    /// `r with a.b = v`: a copy of the record (or tuple) `r` with the field
    /// at the path replaced (Futhark's record update).
    RecordUpdate(Box<Expr>, Vec<Field>, Box<Expr>),
    Field(Box<Expr>, Field),
    Ascribe(Box<Expr>, TypeExpr),
    Assert(Box<Expr>, Box<Expr>),
    /// `e :> t`: `e` with the sizes of `t`, checked at run time.
    Coerce(Box<Expr>, TypeExpr),
    /// `#c a b`: a sum type's constructor applied to its payload.
    Constructor(Ident, Vec<Expr>),
    /// `match e case p -> e ...`
    Match(Box<Expr>, Vec<(Pattern, Expr)>),
    /// `start..end` ranges: `start .. second ... end` and its kinds.
    Range {
        start: Box<Expr>,
        second: Option<Box<Expr>>,
        end: Box<Expr>,
        kind: RangeKind,
    },
    /// `#[attr] e`
    Attr(Attr, Box<Expr>),
    /// `M.(e)`: `e` with the module `M` opened.
    OpenIn(QualIdent, Box<Expr>),
    /// `let [n] p = e in body`: `n` is bound to a size in `p`'s type.
    LetSizes(Vec<Ident>, Pattern, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    /// `a...b`: up to and including `b`.
    Inclusive,
    /// `a..<b`
    UpTo,
    /// `a..>b`
    DownTo,
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(q) => q.span(),
            TypeExpr::Var(id) => id.span.clone(),
            TypeExpr::Scalar(_, s)
            | TypeExpr::Array(_, _, s)
            | TypeExpr::Tuple(_, s)
            | TypeExpr::Record(_, s)
            | TypeExpr::Func(_, _, _, s)
            | TypeExpr::Apply(_, _, s)
            | TypeExpr::Unique(_, s)
            | TypeExpr::Sum(_, s)
            | TypeExpr::Exists(_, _, s) => s.clone(),
        }
    }
}

impl SizeExpr {
    pub fn span(&self) -> Span {
        match self {
            SizeExpr::Named(id) => id.span.clone(),
            SizeExpr::Const(_, s) | SizeExpr::Any(s) => s.clone(),
            SizeExpr::Expr(e) => e.span.clone(),
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
            | Pattern::Ascribed(_, _, s)
            | Pattern::Constructor(_, _, s) => s.clone(),
            Pattern::Literal(e) => e.span.clone(),
        }
    }
}

impl Decl {
    pub fn span(&self) -> Span {
        match self {
            Decl::Def(d) => d.span.clone(),
            Decl::Type(t) => t.span.clone(),
            Decl::Import(_, s) | Decl::Open(_, s) | Decl::Local(_, s) => s.clone(),
            Decl::Module(m) => m.span.clone(),
            Decl::ModType(m) => m.span.clone(),
        }
    }
}
