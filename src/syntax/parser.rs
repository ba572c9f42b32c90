//! One file's text in, `ast::Program` or syntax diagnostics out. Runs the
//! lexer, checks bracket nesting (so that an unclosed bracket is reported at
//! the bracket itself), then the LALRPOP parser generated from
//! `grammar/arr.lalrpop`. Also holds the tree-building helpers the grammar's
//! actions call.

use super::ast::*;
use super::diagnostic::{Diagnostic, SourceMap};
use super::lexer::{self, LexError, Spanned, Token};
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens)]
    grammar,
    "/arr.rs"
);

/// An error raised by a grammar action, e.g. an array size that does not fit
/// in 64 bits.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionError {
    pub span: Span,
    pub message: String,
}

type GrammarError = ParseError<usize, Token, ActionError>;

/// Parses one file of `sources`. Returns every lexical error, or else the
/// first syntax error.
pub fn parse_program(sources: &SourceMap, file: FileId) -> Result<Program, Vec<Diagnostic>> {
    let Some(source) = sources.files.get(file) else {
        return Err(vec![Diagnostic::new(file, 0..0, "no such source file")]);
    };
    let text = source.text.as_str();
    let (tokens, lex_errors) = lexer::lex(text);
    if !lex_errors.is_empty() {
        return Err(lex_errors.iter().map(|e| lex_diagnostic(file, e)).collect());
    }
    if let Some(d) = check_nesting(file, &tokens) {
        return Err(vec![d]);
    }
    let bracket_problem = check_brackets(file, &tokens);
    let stream = tokens.into_iter().map(Ok::<Spanned, ActionError>);
    match grammar::ProgramParser::new().parse(stream) {
        Ok(mut decls) => {
            for decl in &mut decls {
                resolve_type_params(decl);
            }
            Ok(Program { file, decls })
        }
        Err(error) => {
            let diagnostic = parse_diagnostic(file, text.len(), error);
            // A bracket problem that starts before the parse error most likely
            // caused it, and pointing at the bracket is more helpful.
            Err(vec![match bracket_problem {
                Some((anchor, d)) if anchor <= diagnostic.span.start => d,
                _ => diagnostic,
            }])
        }
    }
}

fn lex_diagnostic(file: FileId, e: &LexError) -> Diagnostic {
    let d = Diagnostic::new(file, e.span.clone(), e.to_string());
    match e.note() {
        Some(note) => d.with_note(note),
        None => d,
    }
}

fn parse_diagnostic(file: FileId, len: usize, error: GrammarError) -> Diagnostic {
    match error {
        ParseError::UnrecognizedToken {
            token: (l, t, r),
            expected,
        } => unexpected(file, l..r, &t.describe(), &expected),
        // At the end of the last token rather than after trailing comments.
        ParseError::UnrecognizedEof { location, expected } => {
            let at = location.min(len);
            unexpected(file, at..at, "end of file", &expected)
        }
        ParseError::ExtraToken { token: (l, t, r) } => {
            Diagnostic::new(file, l..r, format!("unexpected {}", t.describe()))
                .with_note("expected end of file")
        }
        ParseError::InvalidToken { location } => {
            Diagnostic::new(file, location..location, "invalid token")
        }
        ParseError::User { error } => Diagnostic::new(file, error.span, error.message),
    }
}

fn unexpected(file: FileId, span: Span, what: &str, expected: &[String]) -> Diagnostic {
    let d = Diagnostic::new(file, span, format!("unexpected {what}"));
    match describe_expected(expected) {
        Some(note) => d.with_note(note),
        None => d,
    }
}

/// Turns LALRPOP's terminal names into "expected one of `in`, an operator,
/// an expression": whole families of tokens are summarised by what they
/// start.
fn describe_expected(expected: &[String]) -> Option<String> {
    let names: Vec<String> = expected.iter().map(|t| terminal_name(t)).collect();
    let has = |t: &str| names.iter().any(|n| n == t);
    let has_all = |ts: &[&str]| ts.iter().all(|t| has(t));
    let mut drop: Vec<&str> = Vec::new();
    let mut summaries = Vec::new();
    if has_all(&["+", "*", "=="]) {
        summaries.push("an operator");
        drop.extend(BINARY_OPERATORS);
    }
    if has_all(&["Ident", "Int", "("]) {
        summaries.push("an expression");
        drop.extend(ATOM_STARTS);
        drop.extend(["!", "assert", "-"]);
        if has_all(&OPEN_STARTS) {
            drop.extend(OPEN_STARTS);
        }
    } else if has_all(&["Ident", "TyVar", "("]) {
        summaries.push("a type");
        drop.extend(["Ident", "TyVar", "(", "[", "{"]);
    } else if has_all(&["Ident", "_", "("]) {
        summaries.push("a pattern");
        drop.extend(["Ident", "_", "(", "{"]);
    }
    let mut items: Vec<String> = Vec::new();
    for n in &names {
        if drop.contains(&n.as_str()) {
            continue;
        }
        let item = readable(n);
        if !items.contains(&item) {
            items.push(item);
        }
    }
    items.extend(summaries.iter().map(|s| s.to_string()));
    match items.len() {
        0 => None,
        1 => Some(format!("expected {}", items[0])),
        _ => Some(format!("expected one of {}", items.join(", "))),
    }
}

const BINARY_OPERATORS: [&str; 25] = [
    "|>", "<|", "||", "&&", "==", "!=", "<", "<=", ">", ">=", "|", "^", "&", "<<", ">>", ">>>",
    "+", "-", "++", "*", "/", "%", "//", "%%", "**",
];
const ATOM_STARTS: [&str; 9] = [
    "Ident", "QualName", "Int", "Float", "(", "[", "{", "true", "false",
];
const OPEN_STARTS: [&str; 4] = ["let", "if", "loop", "\\"];

/// LALRPOP spells quoted terminals with their quotes and escapes: `"\"in\""`.
fn terminal_name(t: &str) -> String {
    match t.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) => inner.replace("\\\\", "\\").replace("\\\"", "\""),
        None => t.to_string(),
    }
}

fn readable(name: &str) -> String {
    match name {
        "Ident" => "an identifier".into(),
        "QualName" => "a qualified name".into(),
        "TyVar" => "a type variable".into(),
        "Int" => "an integer literal".into(),
        "Float" => "a float literal".into(),
        "Str" => "a string literal".into(),
        "FieldName" | "FieldIndex" => "a field".into(),
        "index[" => "`[`".into(),
        other => format!("`{other}`"),
    }
}

fn is_opener(t: &Token) -> bool {
    matches!(
        t,
        Token::LParen | Token::LBracket | Token::IndexLBracket | Token::LBrace
    )
}

fn closer_of(t: &Token) -> Token {
    match t {
        Token::LParen => Token::RParen,
        Token::LBrace => Token::RBrace,
        _ => Token::RBracket,
    }
}

/// Deeper bracket nesting than any sensible program has; refusing it keeps
/// the recursive passes after parsing far from the end of the stack.
const MAX_NESTING: usize = 200;

fn check_nesting(file: FileId, tokens: &[Spanned]) -> Option<Diagnostic> {
    let mut depth = 0usize;
    for (l, t, r) in tokens {
        if is_opener(t) {
            depth += 1;
            if depth > MAX_NESTING {
                return Some(
                    Diagnostic::new(file, *l..*r, "brackets nested too deeply")
                        .with_note(format!("at most {MAX_NESTING} levels are allowed")),
                );
            }
        } else if matches!(t, Token::RParen | Token::RBracket | Token::RBrace) {
            depth = depth.saturating_sub(1);
        }
    }
    None
}

/// The first bracket that is unclosed or closed by the wrong kind, with the
/// offset from which the problem is certain (the opening bracket, or a
/// closing one that matches nothing).
fn check_brackets(file: FileId, tokens: &[Spanned]) -> Option<(usize, Diagnostic)> {
    let mut open: Vec<&Spanned> = Vec::new();
    for tok in tokens {
        let (l, t, r) = tok;
        if is_opener(t) {
            open.push(tok);
        } else if matches!(t, Token::RParen | Token::RBracket | Token::RBrace) {
            match open.pop() {
                Some((_, o, _)) if closer_of(o) == *t => {}
                Some((ol, o, or)) => {
                    let d = Diagnostic::new(file, *l..*r, format!("mismatched {}", t.describe()))
                        .with_label(format!("expected {}", closer_of(o).describe()))
                        .with_secondary(*ol..*or, format!("this {} is not closed", o.describe()));
                    return Some((*ol, d));
                }
                None => {
                    let d = Diagnostic::new(file, *l..*r, format!("unexpected {}", t.describe()))
                        .with_label("no matching opening bracket");
                    return Some((*l, d));
                }
            }
        }
    }
    // The innermost unclosed bracket is the one the user most likely forgot.
    open.last().map(|(l, o, r)| {
        let d = Diagnostic::new(file, *l..*r, format!("unclosed {}", o.describe()))
            .with_label(format!("this {} is never closed", o.describe()))
            .with_note(format!("expected {}", closer_of(o).describe()));
        (*l, d)
    })
}

// ---------------------------------------------------------------- type parameters

/// A type parameter `'t` is written `t` where it is used, which the grammar
/// cannot tell from an abbreviation's name. Within the scope of a type
/// parameter, this turns `TypeExpr::Named(t)` into `TypeExpr::Var(t)`, so that
/// `Var` always means a type parameter (which shadows an abbreviation).
fn resolve_type_params(decl: &mut Decl) {
    let mut scope = Vec::new();
    match decl {
        Decl::Def(d) => {
            push_type_params(&mut scope, &d.type_params);
            for p in &mut d.params {
                resolve_pattern(&scope, p);
            }
            if let Some(t) = &mut d.ret {
                resolve_type(&scope, t);
            }
            resolve_expr(&mut scope, &mut d.body);
        }
        Decl::Type(t) => {
            push_type_params(&mut scope, &t.params);
            resolve_type(&scope, &mut t.ty);
        }
        Decl::Import(..) => {}
    }
}

fn push_type_params(scope: &mut Vec<String>, params: &[TypeParam]) {
    for p in params {
        if let TypeParam::Type(id) = p {
            scope.push(id.name.clone());
        }
    }
}

fn resolve_type(scope: &[String], t: &mut TypeExpr) {
    match t {
        TypeExpr::Named(id) if scope.contains(&id.name) => *t = TypeExpr::Var(id.clone()),
        TypeExpr::Scalar(..) | TypeExpr::Named(_) | TypeExpr::Var(_) => {}
        TypeExpr::Array(_, elem, _) => resolve_type(scope, elem),
        TypeExpr::Tuple(ts, _) | TypeExpr::Apply(_, ts, _) => {
            ts.iter_mut().for_each(|t| resolve_type(scope, t))
        }
        TypeExpr::Record(fields, _) => fields.iter_mut().for_each(|(_, t)| resolve_type(scope, t)),
        TypeExpr::Func(a, b, _) => {
            resolve_type(scope, a);
            resolve_type(scope, b);
        }
    }
}

fn resolve_pattern(scope: &[String], p: &mut Pattern) {
    match p {
        Pattern::Id(_) | Pattern::Wildcard(_) => {}
        Pattern::Tuple(ps, _) => ps.iter_mut().for_each(|p| resolve_pattern(scope, p)),
        Pattern::Record(fields, _) => fields
            .iter_mut()
            .for_each(|(_, p)| resolve_pattern(scope, p)),
        Pattern::Ascribed(p, t, _) => {
            resolve_pattern(scope, p);
            resolve_type(scope, t);
        }
    }
}

fn resolve_expr(scope: &mut Vec<String>, e: &mut Expr) {
    match &mut e.kind {
        ExprKind::IntLit(..)
        | ExprKind::FloatLit(..)
        | ExprKind::BoolLit(_)
        | ExprKind::Var { .. }
        | ExprKind::OpSection(_) => {}
        ExprKind::Tuple(es) | ExprKind::ArrayLit(es) => {
            es.iter_mut().for_each(|e| resolve_expr(scope, e))
        }
        ExprKind::Record(fields) => fields.iter_mut().for_each(|(_, e)| resolve_expr(scope, e)),
        ExprKind::Apply(f, args) => {
            resolve_expr(scope, f);
            args.iter_mut().for_each(|e| resolve_expr(scope, e));
        }
        ExprKind::BinOp(_, a, b) | ExprKind::Assert(a, b) | ExprKind::RecordUpdate(a, _, b) => {
            resolve_expr(scope, a);
            resolve_expr(scope, b);
        }
        ExprKind::UnOp(_, a)
        | ExprKind::LeftSection(_, a)
        | ExprKind::RightSection(_, a)
        | ExprKind::Field(a, _) => resolve_expr(scope, a),
        ExprKind::Lambda(params, ret, body) => {
            params.iter_mut().for_each(|p| resolve_pattern(scope, p));
            if let Some(t) = ret {
                resolve_type(scope, t);
            }
            resolve_expr(scope, body);
        }
        ExprKind::Let(p, rhs, body) => {
            resolve_pattern(scope, p);
            resolve_expr(scope, rhs);
            resolve_expr(scope, body);
        }
        ExprKind::LetFun {
            type_params,
            params,
            ret,
            rhs,
            body,
            ..
        } => {
            let outer = scope.len();
            push_type_params(scope, type_params);
            params.iter_mut().for_each(|p| resolve_pattern(scope, p));
            if let Some(t) = ret {
                resolve_type(scope, t);
            }
            resolve_expr(scope, rhs);
            scope.truncate(outer);
            resolve_expr(scope, body);
        }
        ExprKind::If(c, t, f) => {
            resolve_expr(scope, c);
            resolve_expr(scope, t);
            resolve_expr(scope, f);
        }
        ExprKind::Loop {
            pat,
            init,
            form,
            body,
        } => {
            resolve_pattern(scope, pat);
            if let Some(init) = init {
                resolve_expr(scope, init);
            }
            match form {
                LoopForm::For(_, n) => resolve_expr(scope, n),
                LoopForm::ForIn(p, xs) => {
                    resolve_pattern(scope, p);
                    resolve_expr(scope, xs);
                }
                LoopForm::While(c) => resolve_expr(scope, c),
            }
            resolve_expr(scope, body);
        }
        ExprKind::Index(a, idx) => {
            resolve_expr(scope, a);
            resolve_indices(scope, idx);
        }
        ExprKind::Update(a, idx, v) => {
            resolve_expr(scope, a);
            resolve_indices(scope, idx);
            resolve_expr(scope, v);
        }
        ExprKind::Ascribe(e, t) => {
            resolve_expr(scope, e);
            resolve_type(scope, t);
        }
    }
}

fn resolve_indices(scope: &mut Vec<String>, idx: &mut [IndexArg]) {
    for i in idx {
        match i {
            IndexArg::Index(e) => resolve_expr(scope, e),
            IndexArg::Slice(a, b, c) => {
                for e in [a, b, c].into_iter().flatten() {
                    resolve_expr(scope, e);
                }
            }
        }
    }
}

// ---------------------------------------------------------------- tree building

pub(crate) fn expr(kind: ExprKind, l: usize, r: usize) -> Expr {
    Expr { kind, span: l..r }
}

pub(crate) fn ident(name: String, l: usize, r: usize) -> Ident {
    Ident { name, span: l..r }
}

pub(crate) fn binop(op: BinOp, a: Expr, b: Expr, l: usize, r: usize) -> Expr {
    expr(ExprKind::BinOp(op, Box::new(a), Box::new(b)), l, r)
}

pub(crate) fn apply(f: Expr, args: Vec<Expr>, l: usize, r: usize) -> Expr {
    expr(ExprKind::Apply(Box::new(f), args), l, r)
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

/// `(.x.0)` is `\r -> r.x.0`, with a parameter name no program can write.
pub(crate) fn field_section(fields: Vec<(Field, Span)>, l: usize, r: usize) -> Expr {
    let param = ident("#r".into(), l, r);
    let mut body = expr(
        ExprKind::Var {
            qualifier: None,
            name: param.clone(),
        },
        l,
        r,
    );
    for (field, span) in fields {
        body = expr(ExprKind::Field(Box::new(body), field), l, span.end);
    }
    expr(
        ExprKind::Lambda(vec![Pattern::Id(param)], None, Box::new(body)),
        l,
        r,
    )
}

pub(crate) fn left_section(op: BinOp, a: Expr, l: usize, r: usize) -> Expr {
    expr(ExprKind::LeftSection(op, Box::new(a)), l, r)
}

pub(crate) fn right_section(op: BinOp, b: Expr, l: usize, r: usize) -> Expr {
    expr(ExprKind::RightSection(op, Box::new(b)), l, r)
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
    let array = Expr {
        span: name.span.clone(),
        kind: ExprKind::Var {
            qualifier: None,
            name: name.clone(),
        },
    };
    let update_span = name.span.start..rhs.span.end;
    let update = Expr {
        kind: ExprKind::Update(Box::new(array), idx, Box::new(rhs)),
        span: update_span,
    };
    expr(
        ExprKind::Let(Pattern::Id(name), Box::new(update), Box::new(body)),
        l,
        r,
    )
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

pub(crate) fn int_size(v: u128, l: usize, r: usize) -> Result<SizeExpr, GrammarError> {
    match u64::try_from(v) {
        Ok(n) => Ok(SizeExpr::Const(n, l..r)),
        Err(_) => Err(ParseError::User {
            error: ActionError {
                span: l..r,
                message: "array size too large".into(),
            },
        }),
    }
}
