//! Tree building for the grammar's actions: small constructors and the
//! desugarings done while parsing (pipes, sections, `let a[i] = v`, string
//! literals, operators a program defines, qualified names).

use super::ast::*;
use super::parser::{ActionError, GrammarError};
use crate::types::ScalarType;
use lalrpop_util::ParseError;

fn action_error(span: Span, message: impl Into<String>) -> GrammarError {
    ParseError::User {
        error: ActionError {
            span,
            message: message.into(),
        },
    }
}

pub(crate) fn expr(kind: ExprKind, l: usize, r: usize) -> Expr {
    Expr { kind, span: l..r }
}

pub(crate) fn ident(name: String, l: usize, r: usize) -> Ident {
    Ident { name, span: l..r }
}

fn var(name: Ident) -> Expr {
    let span = name.span.clone();
    Expr {
        kind: ExprKind::Var {
            qualifier: None,
            name,
        },
        span,
    }
}

pub(crate) fn apply(f: Expr, args: Vec<Expr>, l: usize, r: usize) -> Expr {
    expr(ExprKind::Apply(Box::new(f), args), l, r)
}

/// A binary operator: a built-in one, or a function (an operator the
/// program defines, or a name in backticks).
pub enum BinOpOrName {
    Op(BinOp),
    Name(Box<Expr>),
}

pub(crate) fn user_op_var(op: String, l: usize, r: usize) -> BinOpOrName {
    BinOpOrName::Name(Box::new(var(ident(op, l, r))))
}

pub(crate) fn op_apply(op: BinOpOrName, a: Expr, b: Expr, l: usize, r: usize) -> Expr {
    match op {
        BinOpOrName::Op(op) => expr(ExprKind::BinOp(op, Box::new(a), Box::new(b)), l, r),
        BinOpOrName::Name(f) => apply(*f, vec![a, b], l, r),
    }
}

/// `(+)` and `(+^)`.
pub(crate) fn op_section(op: BinOpOrName, l: usize, r: usize) -> Expr {
    match op {
        BinOpOrName::Op(op) => expr(ExprKind::OpSection(op), l, r),
        BinOpOrName::Name(f) => *f,
    }
}

/// `x |> f` and `f <| x` are `f x`; `x |> f a` becomes the single
/// application `f a x`, as if written so.
pub(crate) fn pipe(f: Expr, x: Expr, l: usize, r: usize) -> Expr {
    match f.kind {
        ExprKind::Apply(g, mut args) => {
            args.push(x);
            apply(*g, args, l, r)
        }
        _ => apply(f, vec![x], l, r),
    }
}

/// A parameter name no program can write.
fn hidden_param(name: &str, l: usize, r: usize) -> Ident {
    ident(format!("#{name}"), l, r)
}

/// `(.x.0)` is `\r -> r.x.0`.
pub(crate) fn field_section(fields: Vec<(Field, Span)>, l: usize, r: usize) -> Expr {
    let param = hidden_param("r", l, r);
    let mut body = var(param.clone());
    for (field, span) in fields {
        body = expr(ExprKind::Field(Box::new(body), field), l, span.end);
    }
    expr(
        ExprKind::Lambda(vec![Pattern::Id(param)], None, Box::new(body)),
        l,
        r,
    )
}

/// `(.[i, j])` is `\x -> x[i, j]`.
pub(crate) fn index_section(idx: Vec<IndexArg>, l: usize, r: usize) -> Expr {
    let param = hidden_param("x", l, r);
    let body = expr(ExprKind::Index(Box::new(var(param.clone())), idx), l, r);
    expr(
        ExprKind::Lambda(vec![Pattern::Id(param)], None, Box::new(body)),
        l,
        r,
    )
}

pub(crate) fn left_section(op: BinOpOrName, a: Expr, l: usize, r: usize) -> Expr {
    match op {
        BinOpOrName::Op(op) => expr(ExprKind::LeftSection(op, Box::new(a)), l, r),
        BinOpOrName::Name(f) => apply(*f, vec![a], l, r),
    }
}

pub(crate) fn right_section(op: BinOpOrName, b: Expr, l: usize, r: usize) -> Expr {
    match op {
        BinOpOrName::Op(op) => expr(ExprKind::RightSection(op, Box::new(b)), l, r),
        // `(+^ y)` is `\x -> x +^ y`.
        BinOpOrName::Name(f) => {
            let param = hidden_param("x", l, r);
            let body = apply(*f, vec![var(param.clone()), b], l, r);
            expr(
                ExprKind::Lambda(vec![Pattern::Id(param)], None, Box::new(body)),
                l,
                r,
            )
        }
    }
}

/// `let a[i] = v in body` is `let a = a with [i] = v in body`.
pub(crate) fn let_update(
    name: Ident,
    idx: Vec<IndexArg>,
    rhs: Expr,
    body: Expr,
    l: usize,
    r: usize,
) -> Expr {
    let update_span = name.span.start..rhs.span.end;
    let update = Expr {
        kind: ExprKind::Update(Box::new(var(name.clone())), idx, Box::new(rhs)),
        span: update_span,
    };
    expr(
        ExprKind::Let(Pattern::Id(name), Box::new(update), Box::new(body)),
        l,
        r,
    )
}

/// `let r.a.b = v in body` is `let r = r with a.b = v in body`.
pub(crate) fn let_field_update(
    name: Ident,
    path: Vec<(Field, Span)>,
    rhs: Expr,
    body: Expr,
    l: usize,
    r: usize,
) -> Expr {
    let update_span = name.span.start..rhs.span.end;
    let path = path.into_iter().map(|(f, _)| f).collect();
    let update = Expr {
        kind: ExprKind::RecordUpdate(Box::new(var(name.clone())), path, Box::new(rhs)),
        span: update_span,
    };
    expr(
        ExprKind::Let(Pattern::Id(name), Box::new(update), Box::new(body)),
        l,
        r,
    )
}

/// `def (x: t) +^ (y: t) = e` is `def (+^) (x: t) (y: t) = e`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn infix_def(
    is_entry: bool,
    name: Ident,
    p1: Pattern,
    p2: Pattern,
    ret: Option<TypeExpr>,
    body: Expr,
    l: usize,
    r: usize,
) -> Decl {
    Decl::Def(Def {
        is_entry,
        name,
        type_params: Vec::new(),
        params: vec![p1, p2],
        ret,
        body,
        span: l..r,
    })
}

pub(crate) fn qual_ident(first: Ident, rest: Vec<Ident>) -> QualIdent {
    let mut names = vec![first];
    names.extend(rest);
    let name = names.pop().expect("at least one name");
    QualIdent { quals: names, name }
}

/// The module path an atom spells (`M`, `M.N`), if it is one.
fn module_path(a: &Expr) -> Option<Vec<Ident>> {
    match &a.kind {
        ExprKind::Var {
            qualifier: None,
            name,
        } => Some(vec![name.clone()]),
        // `f32.x` comes as a qualified name from the lexer.
        ExprKind::Var {
            qualifier: Some(q),
            name,
        } => Some(vec![
            ident(q.clone(), a.span.start, a.span.start + q.len()),
            name.clone(),
        ]),
        ExprKind::Field(inner, Field::Name(n)) => {
            let mut path = module_path(inner)?;
            path.push(ident(n.clone(), a.span.end - n.len(), a.span.end));
            Some(path)
        }
        _ => None,
    }
}

/// `M.(e)` (with `open` set) or `(M.op)` (with `op` set).
pub(crate) fn qualified_var(
    module: Expr,
    op: Option<Ident>,
    open: Option<Expr>,
    l: usize,
    r: usize,
) -> Result<Expr, GrammarError> {
    let Some(path) = module_path(&module) else {
        return Err(action_error(
            module.span.clone(),
            "expected a module name before `.`",
        ));
    };
    if let Some(e) = open {
        let mut path = path;
        let name = path.pop().expect("a path has a name");
        let q = QualIdent { quals: path, name };
        return Ok(expr(ExprKind::OpenIn(q, Box::new(e)), l, r));
    }
    let qualifier = path
        .iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(".");
    let name = op.expect("an operator or an opened expression");
    Ok(expr(
        ExprKind::Var {
            qualifier: Some(qualifier),
            name,
        },
        l,
        r,
    ))
}

/// A character literal is an integer literal of its code point, as in
/// Futhark.
pub(crate) fn char_lit(c: u32, l: usize, r: usize) -> Expr {
    expr(ExprKind::IntLit(u128::from(c), None), l, r)
}

/// A string literal is its UTF-8 bytes as a `[]u8`.
pub(crate) fn string_lit(s: String, l: usize, r: usize) -> Expr {
    let items = s
        .bytes()
        .map(|b| expr(ExprKind::IntLit(u128::from(b), Some(ScalarType::U8)), l, r))
        .collect();
    let array = expr(ExprKind::ArrayLit(items), l, r);
    let ty = TypeExpr::Array(
        SizeExpr::Any(l..r),
        Box::new(TypeExpr::Scalar(ScalarType::U8, l..r)),
        l..r,
    );
    expr(ExprKind::Ascribe(Box::new(array), ty), l, r)
}

pub(crate) fn attr_int(v: u128, l: usize, r: usize) -> Attr {
    Attr {
        name: v.to_string(),
        args: Vec::new(),
        span: l..r,
    }
}

pub(crate) fn array_type(
    size: Option<SizeExpr>,
    brackets: Span,
    elem: TypeExpr,
    span: Span,
) -> TypeExpr {
    let size = size.unwrap_or(SizeExpr::Any(brackets));
    TypeExpr::Array(size, Box::new(elem), span)
}

/// A size in a type: a name, a constant, or any other expression.
pub(crate) fn size_expr(e: Expr) -> Result<SizeExpr, GrammarError> {
    match e.kind {
        ExprKind::Var {
            qualifier: None,
            name,
        } => Ok(SizeExpr::Named(name)),
        ExprKind::IntLit(v, None | Some(ScalarType::I64)) => match u64::try_from(v) {
            Ok(n) => Ok(SizeExpr::Const(n, e.span)),
            Err(_) => Err(action_error(e.span, "array size too large")),
        },
        _ => Ok(SizeExpr::Expr(Box::new(e))),
    }
}
