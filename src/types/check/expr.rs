//! Expressions: literals, operators, sections, lambdas, `let` chains and
//! the other forms that are not applications.

use super::patterns::static_shape;
use super::*;
use crate::types::builtins::scalar_member_names;

impl<'a> Checker<'a> {
    // ----- expressions ----------------------------------------------------

    pub(super) fn check_expr(&mut self, e: &'a Expr) -> Result<TExpr> {
        self.check_hint(e, None)
    }

    /// Checks `e`; `hint` is the type the context expects, used to give
    /// lambda parameters their types before the body is checked.
    pub(super) fn check_hint(&mut self, e: &'a Expr, hint: Option<&Type>) -> Result<TExpr> {
        let span = &e.span;
        match &e.kind {
            ExprKind::IntLit(v, suffix) => {
                let ty = match suffix {
                    Some(s) => Type::Scalar(*s),
                    None => self.inf.fresh_constrained(NUM),
                };
                Ok(self.node(TExprKind::Literal(Literal::Int(*v)), ty, span))
            }
            ExprKind::FloatLit(v, suffix) => {
                let ty = match suffix {
                    Some(s) if s.is_float() => Type::Scalar(*s),
                    Some(s) => {
                        return Err(
                            self.error(span, format!("a float literal cannot have type `{s}`"))
                        )
                    }
                    None => self.inf.fresh_constrained(FLOAT),
                };
                Ok(self.node(TExprKind::Literal(Literal::Float(*v)), ty, span))
            }
            ExprKind::BoolLit(b) => {
                Ok(self.node(TExprKind::Literal(Literal::Bool(*b)), bool_ty(), span))
            }
            ExprKind::Var { qualifier, name } => self.check_var(e, qualifier.as_deref(), name),
            ExprKind::Tuple(items) => {
                let mut tes = Vec::new();
                for item in items {
                    tes.push(self.check_expr(item)?);
                }
                let ty = Type::Tuple(tes.iter().map(|t| t.ty.clone()).collect());
                Ok(self.node(TExprKind::Tuple(tes), ty, span))
            }
            ExprKind::Record(fields) => {
                let mut tes: Vec<(String, TExpr)> = Vec::new();
                for (name, fe) in fields {
                    if tes.iter().any(|(n, _)| *n == name.name) {
                        return Err(
                            self.error(&name.span, format!("duplicate field `{}`", name.name))
                        );
                    }
                    tes.push((name.name.clone(), self.check_expr(fe)?));
                }
                tes.sort_by(|a, b| a.0.cmp(&b.0));
                let ty = Type::Record(tes.iter().map(|(n, t)| (n.clone(), t.ty.clone())).collect());
                Ok(self.node(TExprKind::Record(tes), ty, span))
            }
            ExprKind::ArrayLit(items) => {
                let elem = self.inf.fresh();
                let mut tes = Vec::new();
                let mut first_shape: Option<Vec<u64>> = None;
                for item in items {
                    let te = self.check_expr(item)?;
                    self.expect(&te.span, &elem, &te.ty)?;
                    // Arrays are regular: rows written out must agree.
                    if let Some(shape) = static_shape(&te) {
                        match &first_shape {
                            None => first_shape = Some(shape),
                            Some(first) => {
                                if let Some(d) = first.iter().zip(&shape).position(|(a, b)| a != b)
                                {
                                    let msg = if d == 0 {
                                        format!(
                                            "irregular array literal: this row has {}, \
                                             but the first row has {}",
                                            plural(shape[0] as usize, "element"),
                                            first[0]
                                        )
                                    } else {
                                        format!(
                                            "irregular array literal: this row has size {} \
                                             in dimension {}, but the first row has size {}",
                                            shape[d],
                                            d + 1,
                                            first[d]
                                        )
                                    };
                                    return Err(self.error(&te.span, msg).with_note(
                                        "arrays are regular: all rows must have the same shape",
                                    ));
                                }
                            }
                        }
                    }
                    tes.push(te);
                }
                Ok(self.node(TExprKind::ArrayLit(tes), Type::array(elem), span))
            }
            ExprKind::Apply(..) => self.check_apply(e),
            ExprKind::BinOp(op, l, r) => {
                let l = self.check_expr(l)?;
                let r = self.check_expr(r)?;
                self.binop(*op, l, r, span)
            }
            ExprKind::UnOp(op, x) => {
                let x = self.check_expr(x)?;
                match op {
                    UnOp::Neg => self.constrain(&x.span, &x.ty, NUM, "a numeric type")?,
                    UnOp::Not => self.constrain(
                        &x.span,
                        &x.ty,
                        INT | bit(ScalarType::Bool),
                        "`bool` or an integer type",
                    )?,
                }
                let ty = x.ty.clone();
                Ok(self.node(TExprKind::UnOp(*op, Box::new(x)), ty, span))
            }
            ExprKind::OpSection(op) => self.op_section(*op, span, false),
            ExprKind::LeftSection(op, given) | ExprKind::RightSection(op, given) => {
                let left_given = matches!(e.kind, ExprKind::LeftSection(..));
                let given = self.check_expr(given)?;
                let (gid, gty) = (self.fresh_local(), given.ty.clone());
                let (pid, pty) = (self.fresh_local(), self.inf.fresh());
                let g = self.node(TExprKind::Var(gid), gty.clone(), &given.span);
                let p = self.node(TExprKind::Var(pid), pty.clone(), span);
                let body = if left_given {
                    self.binop(*op, g, p, span)?
                } else {
                    self.binop(*op, p, g, span)?
                };
                let fty = Type::func(pty.clone(), body.ty.clone());
                let lam = TLambda {
                    name: None,
                    size_params: Vec::new(),
                    params: vec![TPat::Var {
                        id: pid,
                        name: "x".into(),
                        ty: pty,
                    }],
                    body,
                };
                let lam = self.node(TExprKind::Lambda(Box::new(lam)), fty.clone(), span);
                let pat = TPat::Var {
                    id: gid,
                    name: "operand".into(),
                    ty: gty,
                };
                Ok(self.node(
                    TExprKind::Let(pat, Box::new(given), Box::new(lam)),
                    fty,
                    span,
                ))
            }
            ExprKind::Lambda(params, ret, body) => {
                self.check_lambda(params, ret.as_ref(), body, hint, span)
            }
            ExprKind::Let(..) => {
                let scope = self.locals.clone();
                let result = self.check_lets(e, hint);
                self.locals = scope;
                result
            }
            ExprKind::LetFun {
                name,
                type_params,
                params,
                ret,
                rhs,
                body,
            } => {
                let template = Rc::new(Template {
                    name,
                    type_params,
                    params,
                    ret: ret.as_ref(),
                    body: rhs,
                    ctx: self.ctx.clone(),
                    scope: Some(self.locals.clone()),
                    def_index: None,
                });
                // Checked once on its own so that errors in it show even if
                // unused. A field access on a parameter whose type only a
                // call gives (`let dot a b = a.0 * b.0`) stays open here;
                // every call checks the body again with its argument types,
                // as Futhark's inference does.
                let outer_pending = std::mem::take(&mut self.pending);
                let inst = self.instantiate_signature(&template, true)?;
                self.instantiate_body(&template, inst)?;
                self.pending = outer_pending;
                let scope = self.locals.clone();
                self.bind_local(name.name.clone(), Binding::Fun(template));
                let body = self.check_hint(body, hint);
                self.locals = scope;
                body
            }
            ExprKind::If(c, t, f) => {
                let c = self.check_expr(c)?;
                self.expect(&c.span, &bool_ty(), &c.ty)?;
                let t = self.check_hint(t, hint)?;
                let f = self.check_hint(f, hint)?;
                self.expect(&f.span, &t.ty, &f.ty)?;
                let ty = t.ty.clone();
                Ok(self.node(
                    TExprKind::If(Box::new(c), Box::new(t), Box::new(f)),
                    ty,
                    span,
                ))
            }
            ExprKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.check_loop(pat, init.as_deref(), form, body, span),
            ExprKind::Update(arr, idx, v, in_place) => {
                let te = self.check_update(arr, idx, v, span)?;
                if *in_place {
                    self.in_place.insert((self.ctx.file, span.clone()));
                }
                Ok(te)
            }
            ExprKind::Index(arr, idx) => self.check_index(arr, idx, span),
            ExprKind::Field(x, field) => {
                if let Some(member) = self.type_param_member(x, field, span) {
                    return member;
                }
                if let Some(qualified) = self.qualified_field(e) {
                    return qualified;
                }
                let x = self.check_expr(x)?;
                let ty = match self.inf.shallow(&x.ty) {
                    Type::Var(_) => {
                        let result = self.inf.fresh();
                        self.pending.push(Pending {
                            ty: x.ty.clone(),
                            field: field.clone(),
                            result: result.clone(),
                            file: self.ctx.file,
                            span: span.clone(),
                        });
                        result
                    }
                    other => self.field_type(&other, field, self.ctx.file, span)?,
                };
                Ok(self.node(TExprKind::Field(Box::new(x), field.clone()), ty, span))
            }
            ExprKind::Ascribe(x, te) | ExprKind::Coerce(x, te) => {
                let (ty, shape) = self.resolve_type(te)?;
                self.note_typed(x, te);
                let x = self.check_hint(x, Some(&ty))?;
                self.expect(&x.span, &ty, &x.ty)?;
                self.static_sizes(&shape, &x, &mut Vec::new())?;
                if shape.is_trivial() {
                    Ok(x)
                } else {
                    Ok(self.node(TExprKind::Ascribe(Box::new(x), shape), ty, span))
                }
            }
            ExprKind::RecordUpdate(r, path, v) => self.check_record_update(r, path, v, span),
            ExprKind::Assert(c, x) => {
                let c = self.check_expr(c)?;
                self.expect(&c.span, &bool_ty(), &c.ty)?;
                let x = self.check_hint(x, hint)?;
                let ty = x.ty.clone();
                Ok(self.node(TExprKind::Assert(Box::new(c), Box::new(x)), ty, span))
            }
            // Attributes change how code runs, never what it computes; the
            // three arrc honours stay in the tree (docs/language.md).
            ExprKind::Attr(attr, x) => {
                let x = self.check_hint(x, hint)?;
                let honoured = match attr.name.as_str() {
                    "unroll" => Some(TAttr::Unroll),
                    "sequential" => Some(TAttr::Sequential),
                    "unsafe" => Some(TAttr::Unsafe),
                    _ => None,
                };
                Ok(match honoured {
                    Some(a) if attr.args.is_empty() => {
                        let ty = x.ty.clone();
                        self.node(TExprKind::Attr(a, Box::new(x)), ty, span)
                    }
                    _ => x,
                })
            }
            ExprKind::Constructor(name, args) => self.check_ctor(name, args, span),
            ExprKind::Match(x, cases) => self.check_match(x, cases, hint, span),
            ExprKind::Range {
                start,
                second,
                end,
                kind,
            } => self.check_range(start, second.as_deref(), end, *kind, span),
            ExprKind::OpenIn(m, x) => self.check_open_in(m, x, hint),
            ExprKind::LetSizes(sizes, pat, rhs, body) => {
                self.check_let_sizes(sizes, pat, rhs, body, hint, span)
            }
        }
    }

    /// `(+)`: the operator as a function of two arguments; with `builtin`
    /// the built-in one even where the program redefines the symbol (`T.*`
    /// with `T` = `f32` inside a module that defines its own `*`).
    pub(super) fn op_section(&mut self, op: BinOp, span: &Span, builtin: bool) -> Result<TExpr> {
        let (xid, xty) = (self.fresh_local(), self.inf.fresh());
        let (yid, yty) = (self.fresh_local(), self.inf.fresh());
        let x = self.node(TExprKind::Var(xid), xty.clone(), span);
        let y = self.node(TExprKind::Var(yid), yty.clone(), span);
        let body = if builtin {
            self.builtin_binop(op, x, y, span)?
        } else {
            self.binop(op, x, y, span)?
        };
        let ty = Type::curried(vec![xty.clone(), yty.clone()], body.ty.clone());
        let lam = TLambda {
            name: None,
            size_params: Vec::new(),
            params: vec![
                TPat::Var {
                    id: xid,
                    name: "x".into(),
                    ty: xty,
                },
                TPat::Var {
                    id: yid,
                    name: "y".into(),
                    ty: yty,
                },
            ],
            body,
        };
        Ok(self.node(TExprKind::Lambda(Box::new(lam)), ty, span))
    }

    /// A chain of `let`s, checked in a loop rather than by recursion (long
    /// chains would otherwise take as much stack). Leaves the names bound.
    fn check_lets(&mut self, e: &'a Expr, hint: Option<&Type>) -> Result<TExpr> {
        let mut lets = Vec::new();
        let mut cur = e;
        while let ExprKind::Let(pat, rhs, body) = &cur.kind {
            let rhs_expr: &'a Expr = rhs;
            let mut binds = Vec::new();
            let tpat = self.check_pattern(pat, None, &mut binds)?;
            check_duplicates(self, &binds)?;
            if let Pattern::Ascribed(_, t, _) = pat {
                self.note_typed(rhs, t);
            }
            let rhs = self.check_hint(rhs, Some(tpat.ty()))?;
            self.expect(&rhs.span, tpat.ty(), &rhs.ty)?;
            self.process_pending()?;
            self.note_size(pat, Some(rhs_expr), &binds);
            for (name, _, id, ty) in binds {
                self.bind_local(name, Binding::Local { id, ty });
            }
            lets.push((tpat, rhs, &cur.span));
            cur = body;
        }
        let mut body = self.check_hint(cur, hint)?;
        for (tpat, rhs, span) in lets.into_iter().rev() {
            let ty = body.ty.clone();
            body = self.node(
                TExprKind::Let(tpat, Box::new(rhs), Box::new(body)),
                ty,
                span,
            );
        }
        Ok(body)
    }

    /// `t.lowest`, `t.max`, `t.f64` ... where `t` is a type parameter in
    /// scope (and no value of that name is): `None` if `x.field` is not that.
    pub(super) fn type_param_member(
        &mut self,
        x: &'a Expr,
        field: &Field,
        span: &Span,
    ) -> Option<Result<TExpr>> {
        let (
            ExprKind::Var {
                qualifier: None,
                name,
            },
            Field::Name(member),
        ) = (&x.kind, field)
        else {
            return None;
        };
        if self.lookup_local(&name.name).is_some() || self.lookup_global(&name.name).is_some() {
            return None;
        }
        if self.ctx.env.modules.contains_key(name.name.as_str()) {
            return None;
        }
        let (_, t) = self
            .ctx
            .type_params
            .iter()
            .rev()
            .find(|(n, _)| *n == name.name)?;
        let t = t.clone();
        Some(match type_member(&t, member) {
            Some((mask, ty)) => self
                .constrain(span, &t, mask, &format!("a type that has `{member}`"))
                .map(|()| self.node(TExprKind::TypeMember(t, member.clone()), ty, span)),
            None => {
                let mut names = scalar_member_names(ScalarType::F64);
                names.extend(scalar_member_names(ScalarType::I32));
                let diag = self.error(
                    span,
                    format!(
                        "unknown member `{member}` of type parameter `{}`",
                        name.name
                    ),
                );
                Err(match closest(member, names.iter().map(String::as_str)) {
                    Some(c) => diag.with_note(format!("did you mean `{}.{c}`?", name.name)),
                    None => diag,
                })
            }
        })
    }

    /// The program's own definition of an operator's symbol in scope (`def
    /// (+)`, a local `let (+)`, one of a module opened by `M.(...)`), as a
    /// function value; `None` when the symbol means the built-in operator.
    fn user_operator(&mut self, op: BinOp, span: &Span) -> Option<Result<TExpr>> {
        let sym = op.symbol();
        match self.lookup_local(sym) {
            Some(Binding::Local { id, ty }) => {
                let (id, ty) = (*id, ty.clone());
                return Some(Ok(self.node(TExprKind::Var(id), ty, span)));
            }
            Some(Binding::Fun(t)) => {
                let t = t.clone();
                return Some(self.apply_template(t, None, span, span, &[]));
            }
            None => {}
        }
        // An opened module's operator comes first; a scalar module's is
        // the built-in one (`T.(a * b)` with `T` = `f32`).
        let mut found = None;
        for m in self.ctx.opened.iter().rev() {
            match m {
                ModValue::Env(e) => {
                    if let Some(v) = e.values.get(sym) {
                        found = Some(*v);
                        break;
                    }
                }
                ModValue::Scalar(t) if self.scalar_has_op(*t, op) => return None,
                _ => {}
            }
        }
        // Definitions are not recursive: in `def (+) a b = ... + ...` the
        // body's `+` is the one before it.
        match found.or_else(|| self.ctx.env.values.get(sym).copied()) {
            Some(ValRef::Def(d)) => {
                let t = self.defs[d].template.clone();
                Some(self.apply_template(t, None, span, span, &[]))
            }
            _ => None,
        }
    }

    /// Applies a checked function value to checked arguments.
    fn apply_values(&mut self, f: TExpr, args: Vec<TExpr>, span: &Span) -> Result<TExpr> {
        let mut fty = f.ty.clone();
        for a in &args {
            let (p, r) = (self.inf.fresh(), self.inf.fresh());
            let want = Type::func(p.clone(), r.clone());
            if self.inf.unify(&fty, &want).is_err() {
                let shown = self.inf.display(&fty);
                return Err(self.error(
                    span,
                    format!("this operator has type `{shown}`, which takes no more arguments"),
                ));
            }
            self.expect(&a.span, &p, &a.ty)?;
            fty = r;
        }
        Ok(self.node(TExprKind::Apply(Box::new(f), args), fty, span))
    }

    pub(super) fn binop(&mut self, op: BinOp, l: TExpr, r: TExpr, span: &Span) -> Result<TExpr> {
        if let Some(f) = self.user_operator(op, span) {
            let f = f?;
            return self.apply_values(f, vec![l, r], span);
        }
        self.builtin_binop(op, l, r, span)
    }

    /// The built-in operator, whatever the program defines.
    fn builtin_binop(&mut self, op: BinOp, l: TExpr, r: TExpr, span: &Span) -> Result<TExpr> {
        let sym = op.symbol();
        let ty = match op {
            BinOp::Concat => {
                let elem = self.inf.fresh();
                if self.inf.unify(&Type::array(elem), &l.ty).is_err() {
                    let shown = self.inf.display(&l.ty);
                    return Err(self
                        .error(&l.span, format!("`++` needs arrays, found `{shown}`"))
                        .with_label(format!("this has type `{shown}`")));
                }
                self.expect(&r.span, &l.ty, &r.ty)?;
                l.ty.clone()
            }
            BinOp::LogAnd | BinOp::LogOr => {
                self.expect(&l.span, &bool_ty(), &l.ty)?;
                self.expect(&r.span, &bool_ty(), &r.ty)?;
                bool_ty()
            }
            BinOp::Eq | BinOp::Neq if self.is_compound(&l.ty) || self.is_compound(&r.ty) => {
                self.expect(&r.span, &l.ty, &r.ty)?;
                bool_ty()
            }
            _ => {
                // In `f32.(x + y)` the operators are the module's.
                if let Some(t) = self.opened_scalar() {
                    if self.scalar_has_op(t, op) {
                        self.expect(&l.span, &Type::Scalar(t), &l.ty)?;
                    }
                }
                // The operator's own requirement first: `b + x` on a bool `b`
                // is an error about `+`, not about `x`.
                let (mask, what) = match op {
                    BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        (SCALAR, format!("a scalar type for `{sym}`"))
                    }
                    BinOp::BitAnd
                    | BinOp::BitOr
                    | BinOp::BitXor
                    | BinOp::Shl
                    | BinOp::Shr
                    | BinOp::UShr => (INT, format!("an integer type for `{sym}`")),
                    _ => (NUM, format!("a numeric type for `{sym}`")),
                };
                self.constrain(&l.span, &l.ty, mask, &what)?;
                self.expect(&r.span, &l.ty, &r.ty)?;
                if is_comparison(op) {
                    bool_ty()
                } else {
                    l.ty.clone()
                }
            }
        };
        Ok(self.node(TExprKind::BinOp(op, Box::new(l), Box::new(r)), ty, span))
    }

    pub(super) fn check_lambda(
        &mut self,
        params: &'a [Pattern],
        ret: Option<&'a TypeExpr>,
        body: &'a Expr,
        hint: Option<&Type>,
        span: &Span,
    ) -> Result<TExpr> {
        let arity = hint.map(|t| self.arity(t));
        let arity_error = |ck: &Self, expected: usize| {
            let n = plural(params.len(), "parameter");
            let m = match expected {
                1 => "1 is".to_string(),
                k => format!("{k} are"),
            };
            ck.error(
                span,
                format!("this function takes {n}, but {m} expected here"),
            )
        };
        if let Some((arrows, false)) = arity {
            if params.len() > arrows {
                return Err(arity_error(self, arrows));
            }
        }
        let mut hint_params = Vec::new();
        let mut h = hint.map(|t| self.inf.shallow(t));
        for _ in params {
            match h {
                Some(Type::Func(p, r)) => {
                    hint_params.push(Some(*p));
                    h = Some(self.inf.shallow(&r));
                }
                _ => {
                    hint_params.push(None);
                    h = None;
                }
            }
        }
        let mut binds = Vec::new();
        let mut tpats = Vec::new();
        let scope = self.locals.clone();
        // Each parameter is in scope in the types of the later ones:
        // `\n (xs: [n]t) -> e`.
        let params_ok = params.iter().zip(&hint_params).try_for_each(|(p, hp)| {
            let first = binds.len();
            let tp = self.check_pattern(p, hp.as_ref(), &mut binds)?;
            if let Some(hp) = hp {
                self.expect(&p.span(), hp, tp.ty())?;
            }
            tpats.push(tp);
            for (name, _, id, ty) in &binds[first..] {
                self.bind_local(
                    name.clone(),
                    Binding::Local {
                        id: *id,
                        ty: ty.clone(),
                    },
                );
            }
            Ok(())
        });
        let body = params_ok
            .and_then(|()| check_duplicates(self, &binds))
            .and_then(|()| self.check_expr(body));
        self.locals = scope;
        let body = body?;
        if let Some((arrows, _)) = arity {
            let body_ty = self.inf.shallow(&body.ty);
            if params.len() < arrows && !matches!(body_ty, Type::Func(..) | Type::Var(_)) {
                return Err(arity_error(self, arrows));
            }
        }
        // Blame the body, not the whole lambda, for a wrong result type.
        if let Some(rt) = &h {
            self.expect(&body.span, rt, &body.ty)?;
        }
        if let Some(te) = ret {
            let (rt, _) = self.resolve_type(te)?;
            self.expect(&body.span, &rt, &body.ty)?;
            // Also when nothing is unique: a function given for a
            // parameter whose type declares a unique result must have one.
            self.lambda_unique_ret
                .insert((self.ctx.file, span.clone()), unique_ret(Some(te)));
        }
        let ty = Type::curried(
            tpats.iter().map(|p| p.ty().clone()).collect(),
            body.ty.clone(),
        );
        let lam = TLambda {
            name: None,
            size_params: Vec::new(),
            params: tpats,
            body,
        };
        Ok(self.node(TExprKind::Lambda(Box::new(lam)), ty, span))
    }

    /// The number of arrows of a function type, and whether its result is
    /// still unknown (so that it may take more parameters).
    pub(super) fn arity(&self, t: &Type) -> (usize, bool) {
        let mut t = self.inf.shallow(t);
        let mut n = 0;
        loop {
            match t {
                Type::Func(_, r) => {
                    n += 1;
                    t = self.inf.shallow(&r);
                }
                Type::Var(_) => return (n, true),
                _ => return (n, false),
            }
        }
    }
}
