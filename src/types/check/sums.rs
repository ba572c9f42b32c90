//! Sum types: constructors, `match`, and the patterns only `match` allows
//! (constructors of several, and literals).

use super::*;

impl<'a> Checker<'a> {
    /// `#c a b`: a value of some sum type with constructor `c`; which one
    /// is inferred from the uses (or is exactly the constructors used).
    pub(super) fn check_ctor(
        &mut self,
        name: &'a Ident,
        args: &'a [Expr],
        span: &Span,
    ) -> Result<TExpr> {
        let mut targs = Vec::new();
        for a in args {
            targs.push(self.check_expr(a)?);
        }
        let payload: Vec<Type> = targs.iter().map(|a| a.ty.clone()).collect();
        let ty = self.inf.fresh();
        self.ctor_constraint(&ty, &name.name, &payload, span)?;
        Ok(self.node(TExprKind::Ctor(name.name.clone(), targs), ty, span))
    }

    pub(super) fn ctor_constraint(
        &mut self,
        ty: &Type,
        name: &str,
        payload: &[Type],
        span: &Span,
    ) -> Result<()> {
        self.inf.constrain_ctor(ty, name, payload).map_err(|_| {
            let shown = self.inf.display(ty);
            let args: Vec<String> = payload.iter().map(|t| self.inf.display(t)).collect();
            let what = if args.is_empty() {
                format!("#{name}")
            } else {
                format!("#{name} {}", args.join(" "))
            };
            self.error(
                span,
                format!("type mismatch: `{what}` is not a constructor of `{shown}`"),
            )
        })
    }

    /// `match x case p -> e ...`; exhaustiveness is checked once the types
    /// are final.
    pub(super) fn check_match(
        &mut self,
        x: &'a Expr,
        cases: &'a [(Pattern, Expr)],
        hint: Option<&Type>,
        span: &Span,
    ) -> Result<TExpr> {
        let scrutinee = self.check_expr(x)?;
        let result = self.inf.fresh();
        if let Some(h) = hint {
            // A hint only guides lambdas; a mismatch is reported later.
            let _ = self.inf.unify(&result, h);
        }
        let mut tcases = Vec::new();
        for (p, body) in cases {
            let mut binds = Vec::new();
            let tp = self.check_pattern(p, Some(&scrutinee.ty), &mut binds)?;
            self.expect(&p.span(), &scrutinee.ty, tp.ty())?;
            check_duplicates(self, &binds)?;
            self.process_pending()?;
            let scope = self.locals.clone();
            for (name, _, id, ty) in binds {
                self.bind_local(name, Binding::Local { id, ty });
            }
            let b = self.check_hint(body, Some(&result));
            self.locals = scope;
            let b = b?;
            self.expect(&b.span, &result, &b.ty)?;
            tcases.push((tp, b));
        }
        Ok(self.node(TExprKind::Match(Box::new(scrutinee), tcases), result, span))
    }

    /// `#c p1 p2` as a pattern.
    pub(super) fn check_ctor_pattern(
        &mut self,
        name: &'a Ident,
        ps: &'a [Pattern],
        hint: Option<&Type>,
        span: &Span,
        binds: &mut Vec<(String, Span, LocalId, Type)>,
    ) -> Result<TPat> {
        let hints: Vec<Option<Type>> = match hint.map(|h| self.inf.shallow(h)) {
            Some(Type::Sum(cs)) => match cs.iter().find(|(n, _)| *n == name.name) {
                Some((_, ts)) if ts.len() == ps.len() => ts.iter().cloned().map(Some).collect(),
                _ => vec![None; ps.len()],
            },
            _ => vec![None; ps.len()],
        };
        let mut args = Vec::new();
        for (q, h) in ps.iter().zip(&hints) {
            args.push(self.check_pattern(q, h.as_ref(), binds)?);
        }
        let ty = hint.cloned().unwrap_or_else(|| self.inf.fresh());
        let payload: Vec<Type> = args.iter().map(|a| a.ty().clone()).collect();
        self.ctor_constraint(&ty, &name.name, &payload, span)?;
        Ok(TPat::Ctor(name.name.clone(), args, ty))
    }

    /// A literal as a pattern: matched by equality.
    pub(super) fn check_literal_pattern(
        &mut self,
        e: &'a Expr,
        hint: Option<&Type>,
    ) -> Result<TPat> {
        let lit = self.check_expr(e)?;
        if let Some(h) = hint {
            self.expect(&lit.span, h, &lit.ty)?;
        }
        Ok(TPat::Lit(Box::new(lit)))
    }
}
