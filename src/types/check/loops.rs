//! `loop` in its three forms.

use super::*;

impl<'a> Checker<'a> {
    /// `loop x for ...` starts from the variables the pattern names.
    pub(super) fn init_from_pattern(&mut self, p: &'a Pattern) -> Result<TExpr> {
        match p {
            Pattern::Id(id) => match self.lookup_local(&id.name) {
                Some(Binding::Local { id: lid, ty }) => {
                    let (lid, ty) = (*lid, ty.clone());
                    Ok(self.node(TExprKind::Var(lid), ty, &id.span))
                }
                _ => Err(self.error(
                    &id.span,
                    format!(
                        "`loop {0}` without `= init` needs a variable `{0}` in scope",
                        id.name
                    ),
                )),
            },
            Pattern::Wildcard(span) => Err(self.error(
                span,
                "`loop` without `= init` needs names in its pattern, not `_`",
            )),
            Pattern::Tuple(ps, span) => {
                let mut items = Vec::new();
                for q in ps {
                    items.push(self.init_from_pattern(q)?);
                }
                let ty = Type::Tuple(items.iter().map(|t| t.ty.clone()).collect());
                Ok(self.node(TExprKind::Tuple(items), ty, span))
            }
            Pattern::Record(fields, span) => {
                let mut items = Vec::new();
                for (name, q) in fields {
                    items.push((name.name.clone(), self.init_from_pattern(q)?));
                }
                items.sort_by(|a, b| a.0.cmp(&b.0));
                let ty = Type::Record(
                    items
                        .iter()
                        .map(|(n, t)| (n.clone(), t.ty.clone()))
                        .collect(),
                );
                Ok(self.node(TExprKind::Record(items), ty, span))
            }
            Pattern::Ascribed(q, ..) => self.init_from_pattern(q),
            Pattern::Constructor(_, _, span) => Err(self.error(
                span,
                "`loop` without `= init` needs names in its pattern, not a constructor",
            )),
            Pattern::Literal(e) => Err(self.error(
                &e.span,
                "`loop` without `= init` needs names in its pattern, not a literal",
            )),
        }
    }

    pub(super) fn check_loop(
        &mut self,
        pat: &'a Pattern,
        init: Option<&'a Expr>,
        form: &'a ast::LoopForm,
        body: &'a Expr,
        span: &Span,
    ) -> Result<TExpr> {
        let init = match init {
            Some(e) => self.check_expr(e)?,
            None => self.init_from_pattern(pat)?,
        };
        let mut binds = Vec::new();
        let tpat = self.check_pattern(pat, Some(&init.ty), &mut binds)?;
        self.expect(&init.span, tpat.ty(), &init.ty)?;
        self.process_pending()?;
        // The bound and the array are evaluated before the loop, outside
        // the scope of the loop state.
        let mut while_cond = None;
        let form_partial = match form {
            ast::LoopForm::For(i, bound) => {
                let bound = self.check_expr(bound)?;
                self.constrain(
                    &bound.span,
                    &bound.ty,
                    INT,
                    "an integer type for the `for` bound",
                )?;
                let lid = self.fresh_local();
                binds.push((i.name.clone(), i.span.clone(), lid, bound.ty.clone()));
                Some(TLoopForm::For {
                    index: lid,
                    name: i.name.clone(),
                    bound: Box::new(bound),
                })
            }
            ast::LoopForm::ForIn(p, xs) => {
                let xs = self.check_expr(xs)?;
                let elem = self.inf.fresh();
                if self.inf.unify(&Type::array(elem.clone()), &xs.ty).is_err() {
                    let shown = self.inf.display(&xs.ty);
                    return Err(self
                        .error(
                            &xs.span,
                            format!("`for ... in` needs an array, found `{shown}`"),
                        )
                        .with_label(format!("this has type `{shown}`")));
                }
                let tp = self.check_pattern(p, Some(&elem), &mut binds)?;
                self.expect(&p.span(), &elem, tp.ty())?;
                Some(TLoopForm::ForIn {
                    pat: tp,
                    array: Box::new(xs),
                })
            }
            ast::LoopForm::While(c) => {
                while_cond = Some(&**c);
                None
            }
        };
        check_duplicates(self, &binds)?;
        let scope = self.locals.clone();
        for (name, _, id, ty) in binds {
            self.bind_local(name, Binding::Local { id, ty });
        }
        let result = self.loop_body(tpat, init, form_partial, while_cond, body, span);
        self.locals = scope;
        result
    }

    /// The rest of `check_loop`, with the loop state and index in scope.
    pub(super) fn loop_body(
        &mut self,
        tpat: TPat,
        init: TExpr,
        form: Option<TLoopForm>,
        while_cond: Option<&'a Expr>,
        body: &'a Expr,
        span: &Span,
    ) -> Result<TExpr> {
        let form = match (form, while_cond) {
            (Some(f), _) => f,
            (None, Some(c)) => {
                let c = self.check_expr(c)?;
                if self.inf.unify(&bool_ty(), &c.ty).is_err() {
                    let shown = self.inf.display(&c.ty);
                    return Err(self
                        .error(
                            &c.span,
                            format!("the `while` condition must be `bool`, found `{shown}`"),
                        )
                        .with_label(format!("expected `bool`, found `{shown}`")));
                }
                TLoopForm::While(Box::new(c))
            }
            (None, None) => return Err(self.error(span, "malformed loop")),
        };
        let state = tpat.ty().clone();
        let b = self.check_hint(body, Some(&state))?;
        if self.inf.unify(&state, &b.ty).is_err() {
            return Err(self
                .mismatch(&b.span, &state, &b.ty)
                .with_note("the body of a loop must return the next value of the loop state"));
        }
        self.process_pending()?;
        Ok(self.node(
            TExprKind::Loop {
                pat: tpat,
                init: Box::new(init),
                form,
                body: Box::new(b),
            },
            state,
            span,
        ))
    }
}
