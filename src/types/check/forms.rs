//! Futhark's further expression forms: ranges, `M.(e)`, `let [n] p = e`,
//! and what they need of the scalar modules.

use super::*;

impl<'a> Checker<'a> {
    /// `a..<b`, `a..b...c` and the others: an array of `a`'s integer type.
    pub(super) fn check_range(
        &mut self,
        start: &'a Expr,
        second: Option<&'a Expr>,
        end: &'a Expr,
        kind: ast::RangeKind,
        span: &Span,
    ) -> Result<TExpr> {
        let start = self.check_expr(start)?;
        self.constrain(&start.span, &start.ty, INT, "an integer type for a range")?;
        let second = match second {
            Some(s) => {
                let s = self.check_expr(s)?;
                self.expect(&s.span, &start.ty, &s.ty)?;
                Some(Box::new(s))
            }
            None => None,
        };
        let end = self.check_expr(end)?;
        self.expect(&end.span, &start.ty, &end.ty)?;
        let ty = Type::array(start.ty.clone());
        Ok(self.node(
            TExprKind::Range {
                start: Box::new(start),
                second,
                end: Box::new(end),
                kind,
            },
            ty,
            span,
        ))
    }

    /// `M.(e)`: `e` with the names of module `M` in scope.
    pub(super) fn check_open_in(
        &mut self,
        m: &'a QualIdent,
        x: &'a Expr,
        hint: Option<&Type>,
    ) -> Result<TExpr> {
        let mut path: Vec<String> = m.quals.iter().map(|q| q.name.clone()).collect();
        path.push(m.name.name.clone());
        let module = self
            .resolve_module(&path)
            .map_err(|msg| self.error(&m.span(), msg))?;
        // The module's names shadow the locals bound outside `M.(...)`.
        let outer = self.locals.clone();
        if let ModValue::Env(env) = &module {
            let mut inner = Locals::new();
            for (name, b) in outer.iter() {
                if !env.values.contains_key(name) {
                    inner = inner.insert(name.clone(), b.clone());
                }
            }
            self.locals = inner;
        }
        self.ctx.opened.push(module);
        let result = self.check_hint(x, hint);
        self.ctx.opened.pop();
        self.locals = outer;
        result
    }

    /// The innermost scalar module opened by `f32.(e)`, if any.
    pub(super) fn opened_scalar(&self) -> Option<ScalarType> {
        match self.ctx.opened.last()? {
            ModValue::Scalar(t) => Some(*t),
            _ => None,
        }
    }

    /// Whether scalar module `t` has operator `op` (floats have no bitwise
    /// operators).
    pub(super) fn scalar_has_op(&self, t: ScalarType, op: BinOp) -> bool {
        match op {
            BinOp::LogAnd | BinOp::LogOr | BinOp::Concat => false,
            BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor
            | BinOp::Shl
            | BinOp::Shr
            | BinOp::UShr
            | BinOp::Quot
            | BinOp::Rem => t.is_int(),
            BinOp::Eq | BinOp::Neq => true,
            _ => t != ScalarType::Bool,
        }
    }

    /// Tuples, records, sum types and arrays: `==` compares them
    /// component-wise (arrays: shape, then every element, as Futhark does).
    pub(super) fn is_compound(&self, t: &Type) -> bool {
        match self.inf.shallow(t) {
            Type::Tuple(ts) => !ts.is_empty(),
            Type::Record(_) | Type::Sum(_) | Type::Array(_) => true,
            other => self.inf.has_ctors(&other),
        }
    }

    /// `let [n] p = e in body`: `n` is bound to a size in `p`'s type.
    pub(super) fn check_let_sizes(
        &mut self,
        sizes: &'a [Ident],
        pat: &'a Pattern,
        rhs: &'a Expr,
        body: &'a Expr,
        hint: Option<&Type>,
        span: &Span,
    ) -> Result<TExpr> {
        let scope = self.locals.clone();
        let result = (|| {
            let rhs = self.check_expr(rhs)?;
            for n in sizes {
                let id = self.fresh_local();
                self.bind_local(n.name.clone(), Binding::Local { id, ty: i64_ty() });
            }
            let mut binds = Vec::new();
            let tpat = self.check_pattern(pat, Some(&rhs.ty), &mut binds)?;
            check_duplicates(self, &binds)?;
            self.expect(&rhs.span, tpat.ty(), &rhs.ty)?;
            self.process_pending()?;
            for (name, _, id, ty) in binds {
                self.bind_local(name, Binding::Local { id, ty });
            }
            let body = self.check_hint(body, hint)?;
            let ty = body.ty.clone();
            Ok(self.node(
                TExprKind::Let(tpat, Box::new(rhs), Box::new(body)),
                ty,
                span,
            ))
        })();
        self.locals = scope;
        result
    }
}
