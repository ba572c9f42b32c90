//! A type parameter `'t` is written `t` where it is used, which the grammar
//! cannot tell from an abbreviation's name. Within the scope of a type
//! parameter, this pass turns `TypeExpr::Named(t)` into `TypeExpr::Var(t)`,
//! so that `Var` always means a type parameter (which shadows an
//! abbreviation).

use super::ast::*;

pub(super) fn resolve_decl(decl: &mut Decl) {
    let mut scope = Vec::new();
    match decl {
        Decl::Def(d) => {
            push_type_params(&mut scope, &d.type_params);
            for p in &mut d.params {
                pattern(&mut scope, p);
            }
            if let Some(t) = &mut d.ret {
                ty(&mut scope, t);
            }
            expr(&mut scope, &mut d.body);
        }
        Decl::Type(t) => {
            push_type_params(&mut scope, &t.params);
            ty(&mut scope, &mut t.ty);
        }
        Decl::Import(..) => {}
        Decl::Module(m) => {
            for p in &mut m.params {
                mod_type(&mut p.sig);
            }
            if let Some(s) = &mut m.sig {
                mod_type(s);
            }
            mod_exp(&mut m.body);
        }
        Decl::ModType(m) => mod_type(&mut m.sig),
        Decl::Open(m, _) => mod_exp(m),
        Decl::Local(d, _) => resolve_decl(d),
    }
}

fn mod_exp(m: &mut ModExp) {
    match m {
        ModExp::Var(_) | ModExp::Import(..) => {}
        ModExp::Struct(decls, _) => decls.iter_mut().for_each(resolve_decl),
        ModExp::Ascribe(m, t, _) => {
            mod_exp(m);
            mod_type(t);
        }
        ModExp::Lambda(params, sig, body, _) => {
            for p in params {
                mod_type(&mut p.sig);
            }
            if let Some(s) = sig {
                mod_type(s);
            }
            mod_exp(body);
        }
        ModExp::Apply(f, a, _) => {
            mod_exp(f);
            mod_exp(a);
        }
    }
}

fn mod_type(t: &mut ModTypeExp) {
    match t {
        ModTypeExp::Var(_) => {}
        ModTypeExp::Specs(specs, _) => {
            for s in specs {
                let mut scope = Vec::new();
                match s {
                    Spec::Val(_, params, t, _) => {
                        push_type_params(&mut scope, params);
                        ty(&mut scope, t);
                    }
                    Spec::Type(_, params, Some(t), _) => {
                        push_type_params(&mut scope, params);
                        ty(&mut scope, t);
                    }
                    Spec::Type(_, _, None, _) => {}
                    Spec::Module(_, t, _) | Spec::Include(t, _) => mod_type(t),
                }
            }
        }
        ModTypeExp::With(m, _, params, t, _) => {
            mod_type(m);
            let mut scope = Vec::new();
            push_type_params(&mut scope, params);
            ty(&mut scope, t);
        }
        ModTypeExp::Arrow(_, a, b, _) => {
            mod_type(a);
            mod_type(b);
        }
    }
}

fn push_type_params(scope: &mut Vec<String>, params: &[TypeParam]) {
    for p in params {
        if let TypeParam::Type(id) = p {
            scope.push(id.name.clone());
        }
    }
}

fn ty(scope: &mut Vec<String>, t: &mut TypeExpr) {
    match t {
        TypeExpr::Named(q) if q.quals.is_empty() && scope.contains(&q.name.name) => {
            *t = TypeExpr::Var(q.name.clone())
        }
        TypeExpr::Scalar(..) | TypeExpr::Named(_) | TypeExpr::Var(_) => {}
        TypeExpr::Array(size, elem, _) => {
            size_expr(scope, size);
            ty(scope, elem);
        }
        TypeExpr::Tuple(ts, _) => ts.iter_mut().for_each(|t| ty(scope, t)),
        TypeExpr::Apply(_, args, _) => {
            for a in args {
                match a {
                    TypeArg::Type(t) => ty(scope, t),
                    TypeArg::Size(s) => size_expr(scope, s),
                }
            }
        }
        TypeExpr::Record(fields, _) => fields.iter_mut().for_each(|(_, t)| ty(scope, t)),
        TypeExpr::Func(_, a, b, _) => {
            ty(scope, a);
            ty(scope, b);
        }
        TypeExpr::Unique(t, _) | TypeExpr::Exists(_, t, _) => ty(scope, t),
        TypeExpr::Sum(alts, _) => {
            for (_, ts) in alts {
                ts.iter_mut().for_each(|t| ty(scope, t));
            }
        }
    }
}

fn size_expr(scope: &mut Vec<String>, s: &mut SizeExpr) {
    if let SizeExpr::Expr(e) = s {
        expr(scope, e);
    }
}

fn pattern(scope: &mut Vec<String>, p: &mut Pattern) {
    match p {
        Pattern::Id(_) | Pattern::Wildcard(_) | Pattern::Literal(_) => {}
        Pattern::Tuple(ps, _) | Pattern::Constructor(_, ps, _) => {
            ps.iter_mut().for_each(|p| pattern(scope, p))
        }
        Pattern::Record(fields, _) => fields.iter_mut().for_each(|(_, p)| pattern(scope, p)),
        Pattern::Ascribed(p, t, _) => {
            pattern(scope, p);
            ty(scope, t);
        }
    }
}

fn expr(scope: &mut Vec<String>, e: &mut Expr) {
    match &mut e.kind {
        ExprKind::IntLit(..)
        | ExprKind::FloatLit(..)
        | ExprKind::BoolLit(_)
        | ExprKind::Var { .. }
        | ExprKind::OpSection(_) => {}
        ExprKind::Tuple(es) | ExprKind::ArrayLit(es) | ExprKind::Constructor(_, es) => {
            es.iter_mut().for_each(|e| expr(scope, e))
        }
        ExprKind::Record(fields) => fields.iter_mut().for_each(|(_, e)| expr(scope, e)),
        ExprKind::Apply(f, args) => {
            expr(scope, f);
            args.iter_mut().for_each(|e| expr(scope, e));
        }
        ExprKind::BinOp(_, a, b) | ExprKind::Assert(a, b) | ExprKind::RecordUpdate(a, _, b) => {
            expr(scope, a);
            expr(scope, b);
        }
        ExprKind::UnOp(_, a)
        | ExprKind::LeftSection(_, a)
        | ExprKind::RightSection(_, a)
        | ExprKind::Field(a, _)
        | ExprKind::Attr(_, a)
        | ExprKind::OpenIn(_, a) => expr(scope, a),
        ExprKind::Lambda(params, ret, body) => {
            params.iter_mut().for_each(|p| pattern(scope, p));
            if let Some(t) = ret {
                ty(scope, t);
            }
            expr(scope, body);
        }
        ExprKind::Let(p, rhs, body) | ExprKind::LetSizes(_, p, rhs, body) => {
            pattern(scope, p);
            expr(scope, rhs);
            expr(scope, body);
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
            params.iter_mut().for_each(|p| pattern(scope, p));
            if let Some(t) = ret {
                ty(scope, t);
            }
            expr(scope, rhs);
            scope.truncate(outer);
            expr(scope, body);
        }
        ExprKind::If(c, t, f) => {
            expr(scope, c);
            expr(scope, t);
            expr(scope, f);
        }
        ExprKind::Loop {
            pat,
            init,
            form,
            body,
        } => {
            pattern(scope, pat);
            if let Some(init) = init {
                expr(scope, init);
            }
            match form {
                LoopForm::For(_, n) => expr(scope, n),
                LoopForm::ForIn(p, xs) => {
                    pattern(scope, p);
                    expr(scope, xs);
                }
                LoopForm::While(c) => expr(scope, c),
            }
            expr(scope, body);
        }
        ExprKind::Index(a, idx) => {
            expr(scope, a);
            indices(scope, idx);
        }
        ExprKind::Update(a, idx, v, _) => {
            expr(scope, a);
            indices(scope, idx);
            expr(scope, v);
        }
        ExprKind::Ascribe(e, t) | ExprKind::Coerce(e, t) => {
            expr(scope, e);
            ty(scope, t);
        }
        ExprKind::Match(e, cases) => {
            expr(scope, e);
            for (p, body) in cases {
                pattern(scope, p);
                expr(scope, body);
            }
        }
        ExprKind::Range {
            start, second, end, ..
        } => {
            expr(scope, start);
            if let Some(s) = second {
                expr(scope, s);
            }
            expr(scope, end);
        }
    }
}

fn indices(scope: &mut Vec<String>, idx: &mut [IndexArg]) {
    for i in idx {
        match i {
            IndexArg::Index(e) => expr(scope, e),
            IndexArg::Slice(a, b, c) => {
                for e in [a, b, c].into_iter().flatten() {
                    expr(scope, e);
                }
            }
        }
    }
}
