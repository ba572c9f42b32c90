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

/// `vec3.-` written infix: the module's operator as a qualified name.
pub(crate) fn qual_op_var(text: String, l: usize, r: usize) -> BinOpOrName {
    let (path, op) = text.rsplit_once('.').unwrap_or(("", &text));
    let name = ident(op.to_string(), r - op.len(), r);
    let qualifier = Some(path.to_string());
    BinOpOrName::Name(Box::new(expr(ExprKind::Var { qualifier, name }, l, r)))
}

pub(crate) fn op_apply(op: BinOpOrName, a: Expr, b: Expr, l: usize, r: usize) -> Expr {
    match op {
        BinOpOrName::Op(op) => expr(ExprKind::BinOp(op, Box::new(a), Box::new(b)), l, r),
        BinOpOrName::Name(f) => match composes_sized(&f, &a, &b) {
            Some(true) => composed(a, b, l, r),
            Some(false) => composed(b, a, l, r),
            None => apply(*f, vec![a, b], l, r),
        },
    }
}

/// The built-ins whose sizes Futhark's newer signature reads off the
/// array's type (`unflatten xs : [n][m]t`); arrc reads them off the
/// argument of an application.
const SIZED_BUILTINS: [&str; 3] = ["unflatten", "unflatten_3d", "split"];

/// Whether `a op b` is `f >-> unflatten` (`Some(true)`: `a` runs first) or
/// `unflatten <-< f` (`Some(false)`), also with `unflatten_3d` and `split`.
fn composes_sized(op: &Expr, a: &Expr, b: &Expr) -> Option<bool> {
    let is_sized = |e: &Expr| {
        matches!(&e.kind, ExprKind::Var { qualifier: None, name }
            if SIZED_BUILTINS.contains(&name.name.as_str()))
    };
    match &op.kind {
        ExprKind::Var {
            qualifier: None,
            name,
        } => match name.name.as_str() {
            ">->" if is_sized(b) => Some(true),
            "<-<" if is_sized(a) => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// `first >-> then` as `\x -> then (first x)`: the application reads its
/// sizes off `first x` (`sized (n * m) >-> unflatten`), which a bare
/// `unflatten` passed to the prelude's composition could not.
fn composed(first: Expr, then: Expr, l: usize, r: usize) -> Expr {
    let param = hidden_param("x", l, r);
    let inner = apply(first, vec![var(param.clone())], l, r);
    let body = apply(then, vec![inner], l, r);
    expr(
        ExprKind::Lambda(vec![Pattern::Id(param)], None, Box::new(body)),
        l,
        r,
    )
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

/// One step of a postfix section: a field or an index.
pub enum Postfix {
    Field(Field, Span),
    Index(Vec<IndexArg>),
}

/// `(.x.0)` is `\r -> r.x.0`, `(.[i, j])` is `\x -> x[i, j]`, and the
/// steps chain: `(.a[0].f)`.
pub(crate) fn postfix_section(steps: Vec<Postfix>, l: usize, r: usize) -> Expr {
    let param = hidden_param("x", l, r);
    let mut body = var(param.clone());
    for step in steps {
        body = match step {
            Postfix::Field(field, span) => {
                expr(ExprKind::Field(Box::new(body), field), l, span.end)
            }
            Postfix::Index(idx) => expr(ExprKind::Index(Box::new(body), idx), l, r),
        };
    }
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

/// `a with [i, j] = v`; `in_place` when written `let a[i, j] = v`.
///
/// With a slice among the indices (Futhark's slice update) the copy is made
/// by `scatter`: `a with [s:e] = v` is `scatter a ((iota (length a))[s:e])
/// v`, a fixed index updates that row so, and a slice followed by more
/// indices updates each selected row. The parts are bound once to names no
/// program can write.
pub(crate) fn update(
    a: Expr,
    idx: Vec<IndexArg>,
    v: Expr,
    in_place: bool,
    l: usize,
    r: usize,
) -> Expr {
    if !idx.iter().any(|i| matches!(i, IndexArg::Slice(..))) {
        return expr(
            ExprKind::Update(Box::new(a), idx, Box::new(v), in_place),
            l,
            r,
        );
    }
    let (ha, hv) = (hidden_param("a", l, r), hidden_param("v", l, r));
    let body = slice_update(var(ha.clone()), &idx, var(hv.clone()), 0, l, r);
    let bind = |name: Ident, rhs: Expr, body: Expr| {
        expr(
            ExprKind::Let(Pattern::Id(name), Box::new(rhs), Box::new(body)),
            l,
            r,
        )
    };
    bind(ha, a, bind(hv, v, body))
}

/// `a with idx = v` for a variable `a`, built from `scatter` where `idx`
/// has a slice; `depth` keeps the names of nested rows apart.
fn slice_update(a: Expr, idx: &[IndexArg], v: Expr, depth: usize, l: usize, r: usize) -> Expr {
    let name = |n: &str| ident(format!("#{n}{depth}"), l, r);
    let plain = |n: &str| var(ident(n.to_string(), l, r));
    let index = |a: Expr, i: IndexArg| expr(ExprKind::Index(Box::new(a), vec![i]), l, r);
    let has_slice = |idx: &[IndexArg]| idx.iter().any(|i| matches!(i, IndexArg::Slice(..)));
    match idx.split_first() {
        None => v,
        Some(_) if !has_slice(idx) => expr(
            ExprKind::Update(Box::new(a), idx.to_vec(), Box::new(v), false),
            l,
            r,
        ),
        Some((IndexArg::Index(i), rest)) => {
            let hi = name("i");
            let row = index(a.clone(), IndexArg::Index(var(hi.clone())));
            let new_row = slice_update(row, rest, v, depth + 1, l, r);
            let upd = ExprKind::Update(
                Box::new(a),
                vec![IndexArg::Index(var(hi.clone()))],
                Box::new(new_row),
                false,
            );
            let body = expr(upd, l, r);
            expr(
                ExprKind::Let(Pattern::Id(hi), Box::new(i.clone()), Box::new(body)),
                l,
                r,
            )
        }
        Some((slice @ IndexArg::Slice(..), rest)) => {
            let length = apply(plain("length"), vec![a.clone()], l, r);
            let all = apply(plain("iota"), vec![length], l, r);
            let positions = index(all, slice.clone());
            let values = if rest.is_empty() {
                v
            } else {
                let (hr, hw) = (name("r"), name("w"));
                let row = slice_update(var(hr.clone()), rest, var(hw.clone()), depth + 1, l, r);
                let params = vec![Pattern::Id(hr), Pattern::Id(hw)];
                let f = expr(ExprKind::Lambda(params, None, Box::new(row)), l, r);
                let rows = index(a.clone(), slice.clone());
                apply(plain("map2"), vec![f, rows, v], l, r)
            };
            apply(plain("scatter"), vec![a, positions, values], l, r)
        }
    }
}

/// `a with path = v`: a chain of indices and fields, updated from the
/// inside out (`a with [0].f = v` is `a with [0] = (a[0] with f = v)`).
/// Adjacent indices merge (`[0][1]` is `[0, 1]`), as do adjacent fields.
pub(crate) fn path_update(
    a: Expr,
    path: Vec<Postfix>,
    v: Expr,
    in_place: bool,
    l: usize,
    r: usize,
) -> Expr {
    path_update_at(a, path, v, in_place, 0, l, r)
}

fn path_update_at(
    a: Expr,
    path: Vec<Postfix>,
    v: Expr,
    in_place: bool,
    depth: usize,
    l: usize,
    r: usize,
) -> Expr {
    let mut steps = path.into_iter().peekable();
    let Some(first) = steps.next() else {
        return v;
    };
    let is_slice = |i: &IndexArg| matches!(i, IndexArg::Slice(..));
    let head = match first {
        Postfix::Index(mut idx) => {
            while let Some(Postfix::Index(more)) = steps.peek() {
                if idx.iter().chain(more).any(is_slice) {
                    break;
                }
                let Some(Postfix::Index(more)) = steps.next() else {
                    break;
                };
                idx.extend(more);
            }
            Postfix::Index(idx)
        }
        Postfix::Field(f, span) => {
            let mut fields = vec![(f, span)];
            while let Some(Postfix::Field(..)) = steps.peek() {
                if let Some(Postfix::Field(f, span)) = steps.next() {
                    fields.push((f, span));
                }
            }
            return field_steps(a, fields, steps.collect(), v, in_place, depth, l, r);
        }
    };
    let rest: Vec<Postfix> = steps.collect();
    let Postfix::Index(idx) = head else {
        return v;
    };
    if rest.is_empty() {
        return update(a, idx, v, in_place, l, r);
    }
    let name = ident(format!("#p{depth}"), l, r);
    let inner = expr(
        ExprKind::Index(Box::new(var(name.clone())), idx.clone()),
        l,
        r,
    );
    let new_inner = path_update_at(inner, rest, v, false, depth + 1, l, r);
    let body = update(var(name.clone()), idx, new_inner, in_place, l, r);
    expr(
        ExprKind::Let(Pattern::Id(name), Box::new(a), Box::new(body)),
        l,
        r,
    )
}

/// `a with f.g rest = v`, the fields `f.g` first.
#[allow(clippy::too_many_arguments)]
fn field_steps(
    a: Expr,
    fields: Vec<(Field, Span)>,
    rest: Vec<Postfix>,
    v: Expr,
    in_place: bool,
    depth: usize,
    l: usize,
    r: usize,
) -> Expr {
    let path: Vec<Field> = fields.into_iter().map(|(f, _)| f).collect();
    if rest.is_empty() {
        return expr(ExprKind::RecordUpdate(Box::new(a), path, Box::new(v)), l, r);
    }
    let name = ident(format!("#p{depth}"), l, r);
    let mut inner = var(name.clone());
    for f in &path {
        inner = expr(ExprKind::Field(Box::new(inner), f.clone()), l, r);
    }
    let new_inner = path_update_at(inner, rest, v, in_place, depth + 1, l, r);
    let upd = ExprKind::RecordUpdate(Box::new(var(name.clone())), path, Box::new(new_inner));
    let body = expr(upd, l, r);
    expr(
        ExprKind::Let(Pattern::Id(name), Box::new(a), Box::new(body)),
        l,
        r,
    )
}

/// `let a[i] = v in body` is `let a = a with [i] = v in body`; `let r.f[1]
/// = v` likewise.
pub(crate) fn let_update(
    name: Ident,
    path: Vec<Postfix>,
    rhs: Expr,
    body: Expr,
    l: usize,
    r: usize,
) -> Expr {
    let (start, end) = (name.span.start, rhs.span.end);
    let update = path_update(var(name.clone()), path, rhs, true, start, end);
    expr(
        ExprKind::Let(Pattern::Id(name), Box::new(update), Box::new(body)),
        l,
        r,
    )
}

/// A definition. `def f ... : a -> b = unflatten` (also `unflatten_3d`,
/// `split`) is eta-expanded to `def f ... (xs: a) : b = unflatten xs`, so
/// that the call reads its sizes off the parameter's type as Futhark's
/// newer signature does; passed bare, arrc's `unflatten` would want the
/// sizes as arguments.
#[allow(clippy::too_many_arguments)]
pub(crate) fn def_decl(
    is_entry: bool,
    name: Ident,
    type_params: Vec<TypeParam>,
    mut params: Vec<Pattern>,
    mut ret: Option<TypeExpr>,
    mut body: Expr,
    l: usize,
    r: usize,
) -> Decl {
    let bare_sized = matches!(&body.kind, ExprKind::Var { qualifier: None, name }
        if SIZED_BUILTINS.contains(&name.name.as_str()));
    if let (true, Some(TypeExpr::Func(arg, a, b, _))) = (bare_sized, &ret) {
        let span = body.span.clone();
        let arg = arg
            .clone()
            .unwrap_or_else(|| ident("#eta".to_string(), span.start, span.end));
        let a_span = a.span();
        params.push(Pattern::Ascribed(
            Box::new(Pattern::Id(arg.clone())),
            (**a).clone(),
            a_span,
        ));
        let b = (**b).clone();
        ret = Some(b);
        body = expr(
            ExprKind::Apply(Box::new(body), vec![var(arg)]),
            span.start,
            span.end,
        );
    }
    Decl::Def(Def {
        is_entry,
        name,
        type_params,
        params,
        ret,
        body,
        span: l..r,
    })
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
