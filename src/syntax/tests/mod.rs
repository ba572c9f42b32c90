//! Parser tests. Expressions are compared through a compact S-expression
//! rendering so that precedence and associativity are visible at a glance;
//! this file holds the helpers and the renderer, the tests are split by
//! what they cover.

mod declarations;
mod errors;
mod expressions;

use super::ast::*;
use super::lexer::{lex, Token};
use super::{parse_program, Diagnostic, SourceMap};
use crate::types::ScalarType;

fn parse(src: &str) -> Result<Program, Vec<Diagnostic>> {
    let mut sources = SourceMap::default();
    let file = sources.add("test.arr".into(), src.into());
    parse_program(&sources, file)
}

fn parse_ok(src: &str) -> Program {
    match parse(src) {
        Ok(p) => p,
        Err(ds) => panic!("parse of {src:?} failed: {ds:#?}"),
    }
}

fn parse_err(src: &str) -> Diagnostic {
    match parse(src) {
        Ok(p) => panic!("parse of {src:?} should fail, got {p:#?}"),
        Err(mut ds) => {
            assert!(!ds.is_empty());
            ds.remove(0)
        }
    }
}

/// The body of `def x = <src>`.
fn parse_expr(src: &str) -> Expr {
    let program = parse_ok(&format!("def x = {src}"));
    match program.decls.into_iter().next() {
        Some(Decl::Def(d)) => d.body,
        other => panic!("expected a def, got {other:?}"),
    }
}

fn sexp_expr(src: &str) -> String {
    sexp(&parse_expr(src))
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join(" ")
}

fn sexp(e: &Expr) -> String {
    match &e.kind {
        ExprKind::IntLit(v, t) => format!("{v}{}", t.map_or("", |t| t.name())),
        ExprKind::FloatLit(v, t) => format!("{v:?}{}", t.map_or("", |t| t.name())),
        ExprKind::BoolLit(b) => b.to_string(),
        ExprKind::Var { qualifier, name } => match qualifier {
            Some(q) => format!("{q}.{}", name.name),
            None => name.name.clone(),
        },
        ExprKind::Tuple(es) => format!("(tuple {})", list(es.iter().map(sexp))),
        ExprKind::Record(fs) => format!(
            "(record {})",
            list(fs.iter().map(|(n, e)| format!("{}={}", n.name, sexp(e))))
        ),
        ExprKind::ArrayLit(es) => format!("[{}]", list(es.iter().map(sexp))),
        ExprKind::Apply(f, args) => format!("({} {})", sexp(f), list(args.iter().map(sexp))),
        ExprKind::BinOp(op, a, b) => format!("({} {} {})", op.symbol(), sexp(a), sexp(b)),
        ExprKind::UnOp(UnOp::Neg, a) => format!("(neg {})", sexp(a)),
        ExprKind::UnOp(UnOp::Not, a) => format!("(not {})", sexp(a)),
        ExprKind::OpSection(op) => format!("(section {})", op.symbol()),
        ExprKind::LeftSection(op, a) => format!("(section {} {})", sexp(a), op.symbol()),
        ExprKind::RightSection(op, b) => format!("(section {} {})", op.symbol(), sexp(b)),
        ExprKind::Lambda(ps, ret, body) => format!(
            "(fn [{}]{} {})",
            list(ps.iter().map(pat)),
            ret.as_ref()
                .map_or(String::new(), |t| format!(" : {}", ty(t))),
            sexp(body)
        ),
        ExprKind::Let(p, rhs, body) => {
            format!("(let {} {} {})", pat(p), sexp(rhs), sexp(body))
        }
        ExprKind::LetFun {
            name,
            type_params,
            params,
            ret,
            rhs,
            body,
        } => format!(
            "(letfun {} [{}] [{}]{} {} {})",
            name.name,
            list(type_params.iter().map(type_param)),
            list(params.iter().map(pat)),
            ret.as_ref()
                .map_or(String::new(), |t| format!(" : {}", ty(t))),
            sexp(rhs),
            sexp(body)
        ),
        ExprKind::If(c, t, f) => format!("(if {} {} {})", sexp(c), sexp(t), sexp(f)),
        ExprKind::Loop {
            pat: p,
            init,
            form,
            body,
        } => {
            let form = match form {
                LoopForm::For(i, n) => format!("for {} < {}", i.name, sexp(n)),
                LoopForm::ForIn(p, xs) => format!("for {} in {}", pat(p), sexp(xs)),
                LoopForm::While(c) => format!("while {}", sexp(c)),
            };
            let init = init.as_ref().map_or("_".to_string(), |e| sexp(e));
            format!("(loop {} {} {} {})", pat(p), init, form, sexp(body))
        }
        ExprKind::Index(a, idx) => format!("(index {} {})", sexp(a), indices(idx)),
        ExprKind::Update(a, idx, v, _) => {
            format!("(update {} {} {})", sexp(a), indices(idx), sexp(v))
        }
        ExprKind::Field(a, Field::Name(n)) => format!("(field {} {n})", sexp(a)),
        ExprKind::Field(a, Field::Index(i)) => format!("(field {} {i})", sexp(a)),
        ExprKind::Ascribe(e, t) => format!("(: {} {})", sexp(e), ty(t)),
        ExprKind::Assert(c, e) => format!("(assert {} {})", sexp(c), sexp(e)),
        ExprKind::RecordUpdate(r, path, v) => {
            let path: Vec<String> = path
                .iter()
                .map(|f| match f {
                    Field::Name(n) => n.clone(),
                    Field::Index(i) => i.to_string(),
                })
                .collect();
            format!("(record-update {} {} {})", sexp(r), path.join("."), sexp(v))
        }
        ExprKind::Coerce(e, t) => format!("(:> {} {})", sexp(e), ty(t)),
        ExprKind::Constructor(c, args) if args.is_empty() => format!("#{}", c.name),
        ExprKind::Constructor(c, args) => {
            format!("(#{} {})", c.name, list(args.iter().map(sexp)))
        }
        ExprKind::Match(e, cases) => format!(
            "(match {} {})",
            sexp(e),
            list(
                cases
                    .iter()
                    .map(|(p, b)| format!("(case {} {})", pat(p), sexp(b)))
            )
        ),
        ExprKind::Range {
            start,
            second,
            end,
            kind,
        } => {
            let k = match kind {
                RangeKind::Inclusive => "...",
                RangeKind::UpTo => "..<",
                RangeKind::DownTo => "..>",
            };
            match second {
                Some(s) => format!("(range {} {} {k} {})", sexp(start), sexp(s), sexp(end)),
                None => format!("(range {} {k} {})", sexp(start), sexp(end)),
            }
        }
        ExprKind::Attr(a, e) => format!("(#[{}] {})", a.name, sexp(e)),
        ExprKind::OpenIn(m, e) => format!("(open {} {})", m.text(), sexp(e)),
        ExprKind::LetSizes(ns, p, rhs, body) => format!(
            "(let [{}] {} {} {})",
            list(ns.iter().map(|n| n.name.clone())),
            pat(p),
            sexp(rhs),
            sexp(body)
        ),
    }
}

fn indices(idx: &[IndexArg]) -> String {
    let opt = |e: &Option<Expr>| e.as_ref().map_or(String::new(), sexp);
    let parts = idx.iter().map(|i| match i {
        IndexArg::Index(e) => sexp(e),
        IndexArg::Slice(a, b, None) => format!("{}:{}", opt(a), opt(b)),
        IndexArg::Slice(a, b, Some(s)) => format!("{}:{}:{}", opt(a), opt(b), sexp(s)),
    });
    format!("[{}]", parts.collect::<Vec<_>>().join(", "))
}

fn pat(p: &Pattern) -> String {
    match p {
        Pattern::Id(i) => i.name.clone(),
        Pattern::Wildcard(_) => "_".into(),
        Pattern::Tuple(ps, _) => format!("(tuple {})", list(ps.iter().map(pat))),
        Pattern::Record(fs, _) => format!(
            "(record {})",
            list(fs.iter().map(|(n, p)| format!("{}={}", n.name, pat(p))))
        ),
        Pattern::Ascribed(p, t, _) => format!("(: {} {})", pat(p), ty(t)),
        Pattern::Constructor(c, ps, _) if ps.is_empty() => format!("#{}", c.name),
        Pattern::Constructor(c, ps, _) => format!("(#{} {})", c.name, list(ps.iter().map(pat))),
        Pattern::Literal(e) => sexp(e),
    }
}

fn type_param(tp: &TypeParam) -> String {
    match tp {
        TypeParam::Size(n) => format!("[{}]", n.name),
        TypeParam::Type(n) => format!("'{}", n.name),
    }
}

fn ty(t: &TypeExpr) -> String {
    match t {
        TypeExpr::Scalar(s, _) => s.name().to_string(),
        TypeExpr::Named(n) => format!("@{}", n.text()),
        TypeExpr::Var(n) => format!("'{}", n.name),
        TypeExpr::Array(s, elem, _) => {
            let size = match s {
                SizeExpr::Named(n) => n.name.clone(),
                SizeExpr::Const(c, _) => c.to_string(),
                SizeExpr::Any(_) => String::new(),
                SizeExpr::Expr(e) => sexp(e),
            };
            format!("[{size}]{}", ty(elem))
        }
        TypeExpr::Tuple(ts, _) => format!("({})", ts.iter().map(ty).collect::<Vec<_>>().join(", ")),
        TypeExpr::Record(fs, _) => format!(
            "{{{}}}",
            fs.iter()
                .map(|(n, t)| format!("{}: {}", n.name, ty(t)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TypeExpr::Func(_, a, b, _) => format!("({} -> {})", ty(a), ty(b)),
        TypeExpr::Apply(n, args, _) => {
            let args = args.iter().map(|a| match a {
                TypeArg::Type(t) => ty(t),
                TypeArg::Size(SizeExpr::Named(n)) => format!("[{}]", n.name),
                TypeArg::Size(SizeExpr::Const(c, _)) => format!("[{c}]"),
                TypeArg::Size(SizeExpr::Any(_)) => "[]".into(),
                TypeArg::Size(SizeExpr::Expr(e)) => format!("[{}]", sexp(e)),
            });
            format!("(@{} {})", n.text(), list(args))
        }
        TypeExpr::Unique(t, _) => format!("*{}", ty(t)),
        TypeExpr::Sum(alts, _) => alts
            .iter()
            .map(|(c, ts)| {
                let mut s = format!("#{}", c.name);
                for t in ts {
                    s += &format!(" {}", ty(t));
                }
                s
            })
            .collect::<Vec<_>>()
            .join(" | "),
        TypeExpr::Exists(ns, t, _) => format!(
            "?{}.{}",
            ns.iter()
                .map(|n| format!("[{}]", n.name))
                .collect::<String>(),
            ty(t)
        ),
    }
}
