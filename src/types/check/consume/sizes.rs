//! Size expressions do not consume, as in Futhark: a size in a type (`xs:
//! [consume ns]f32`) is evaluated wherever the size is checked, so it may
//! not pass anything to a unique (`*`) parameter. Unlike the rest of this
//! module, this check reads the parsed definitions (also those no entry
//! point uses): in, every definition and its file; out, a diagnostic for
//! each call in a size that consumes, naming the argument and the
//! callee's unique parameter.

use super::super::flatten_apply;
use crate::syntax::ast::{Def, Expr, ExprKind, FileId, Pattern, SizeExpr, Span, TypeArg, TypeExpr};
use crate::syntax::Diagnostic;
use std::collections::HashMap;

/// The calls in the size expressions of the parameters' and the declared
/// result's types of `defs` that give an argument to a unique parameter.
pub(in crate::types::check) fn consuming_sizes(defs: &[(&Def, FileId)]) -> Vec<Diagnostic> {
    let mut by_name: HashMap<&str, Vec<(&Def, FileId)>> = HashMap::new();
    for &(d, file) in defs {
        by_name
            .entry(d.name.name.as_str())
            .or_default()
            .push((d, file));
    }
    let mut w = SizeWalk {
        by_name,
        file: 0,
        errors: Vec::new(),
    };
    for &(d, file) in defs {
        w.file = file;
        d.params.iter().for_each(|p| w.pattern(p));
        if let Some(t) = &d.ret {
            w.ty(t);
        }
    }
    w.errors
}

struct SizeWalk<'d> {
    by_name: HashMap<&'d str, Vec<(&'d Def, FileId)>>,
    file: FileId,
    errors: Vec<Diagnostic>,
}

impl SizeWalk<'_> {
    fn pattern(&mut self, p: &Pattern) {
        match p {
            Pattern::Ascribed(q, t, _) => {
                self.pattern(q);
                self.ty(t);
            }
            Pattern::Tuple(ps, _) | Pattern::Constructor(_, ps, _) => {
                ps.iter().for_each(|q| self.pattern(q))
            }
            Pattern::Record(fs, _) => fs.iter().for_each(|(_, q)| self.pattern(q)),
            Pattern::Id(_) | Pattern::Wildcard(_) | Pattern::Literal(_) => {}
        }
    }

    fn ty(&mut self, t: &TypeExpr) {
        match t {
            TypeExpr::Array(s, elem, _) => {
                self.size(s);
                self.ty(elem);
            }
            TypeExpr::Tuple(ts, _) => ts.iter().for_each(|u| self.ty(u)),
            TypeExpr::Record(fs, _) => fs.iter().for_each(|(_, u)| self.ty(u)),
            TypeExpr::Func(_, a, b, _) => {
                self.ty(a);
                self.ty(b);
            }
            TypeExpr::Apply(_, args, _) => {
                for a in args {
                    match a {
                        TypeArg::Type(u) => self.ty(u),
                        TypeArg::Size(s) => self.size(s),
                    }
                }
            }
            TypeExpr::Unique(u, _) | TypeExpr::Exists(_, u, _) => self.ty(u),
            TypeExpr::Sum(cs, _) => cs.iter().flat_map(|(_, ts)| ts).for_each(|u| self.ty(u)),
            TypeExpr::Scalar(..) | TypeExpr::Named(_) | TypeExpr::Var(_) => {}
        }
    }

    fn size(&mut self, s: &SizeExpr) {
        if let SizeExpr::Expr(e) = s {
            self.expr(e);
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Apply(..) => {
                let (head, args) = flatten_apply(e);
                if let ExprKind::Var {
                    qualifier: None,
                    name,
                } = &head.kind
                {
                    for (j, arg) in args.iter().enumerate() {
                        self.argument(&name.name, j, arg);
                    }
                }
                args.iter().for_each(|a| self.expr(a));
            }
            ExprKind::BinOp(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::UnOp(_, a) => self.expr(a),
            _ => {}
        }
    }

    /// Argument `j` of a call of `callee`: an error when it names a
    /// variable and every definition of that name takes it as a unique
    /// parameter.
    fn argument(&mut self, callee: &str, j: usize, arg: &Expr) {
        let Some(defs) = self.by_name.get(callee) else {
            return;
        };
        let uniques: Vec<Option<(FileId, Span)>> = defs
            .iter()
            .map(|(d, file)| match d.params.get(j) {
                Some(Pattern::Ascribed(_, TypeExpr::Unique(..), s)) => Some((*file, s.clone())),
                _ => None,
            })
            .collect();
        if uniques.is_empty() || uniques.iter().any(Option::is_none) {
            return;
        }
        // A value made in the size itself (`consume (iota 10)`) is fresh.
        let ExprKind::Var {
            qualifier: None,
            name,
        } = &arg.kind
        else {
            return;
        };
        let what = format!("`{}`", name.name);
        let mut d = Diagnostic::new(
            self.file,
            arg.span.clone(),
            format!("a size expression consumes {what}, which is not consumable there"),
        )
        .with_label(format!("given to a unique parameter of `{callee}`"));
        if let Some(Some((file, span))) = uniques.first() {
            if *file == self.file {
                d = d.with_secondary(span.clone(), "this parameter is declared `*`");
            }
        }
        self.errors.push(d.with_note(
            "a size is evaluated wherever it is checked, so it may not update anything: give \
             the function a `copy`",
        ));
    }
}
