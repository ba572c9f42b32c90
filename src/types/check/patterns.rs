//! Patterns, type expressions, abbreviations and declared sizes.

use super::*;

impl<'a> Checker<'a> {
    /// Compares the sizes `shape` declares with those of `e` where both are
    /// known before running (array literals); `bound` holds the sizes of
    /// size variables seen so far in the same check.
    pub(super) fn static_sizes(
        &self,
        shape: &Shape,
        e: &TExpr,
        bound: &mut Vec<(LocalId, u64)>,
    ) -> Result<()> {
        let Some(dims) = static_shape(e) else {
            return Ok(());
        };
        let mut shape = shape;
        let mut depth = 0;
        while let (Shape::Array(dim, inner), Some(&actual)) = (shape, dims.get(depth)) {
            let expected = match dim {
                Dim::Const(k) => Some(*k),
                Dim::Var(id) => match bound.iter().find(|(b, _)| b == id) {
                    Some((_, k)) => Some(*k),
                    None => {
                        bound.push((*id, actual));
                        None
                    }
                },
                Dim::Any | Dim::Linear { .. } | Dim::Global(_) | Dim::Field { .. } => None,
            };
            if let Some(k) = expected.filter(|k| *k != actual) {
                let what = if depth == 0 {
                    "size".to_string()
                } else {
                    format!("size in dimension {}", depth + 1)
                };
                let msg = format!("size mismatch: expected {what} {k}, found {actual}");
                return Err(Diagnostic::new(e.file, e.span.clone(), msg)
                    .with_label(format!("this array has {what} {actual}")));
            }
            shape = inner;
            depth += 1;
        }
        Ok(())
    }

    // ----- patterns and types ---------------------------------------------

    /// Checks a pattern; its names go to `binds` (the caller brings them
    /// into scope).
    pub(super) fn check_pattern(
        &mut self,
        p: &'a Pattern,
        hint: Option<&Type>,
        binds: &mut Vec<(String, Span, LocalId, Type)>,
    ) -> Result<TPat> {
        let hint = hint.map(|t| self.inf.shallow(t));
        match p {
            Pattern::Id(id) => {
                let ty = hint.unwrap_or_else(|| self.inf.fresh());
                let lid = self.fresh_local();
                binds.push((id.name.clone(), id.span.clone(), lid, ty.clone()));
                self.bound.insert(lid, (self.ctx.file, id.span.clone()));
                Ok(TPat::Var {
                    id: lid,
                    name: id.name.clone(),
                    ty,
                })
            }
            Pattern::Wildcard(_) => Ok(TPat::Wildcard(hint.unwrap_or_else(|| self.inf.fresh()))),
            Pattern::Tuple(ps, _) => {
                let hints: Vec<Option<Type>> = match &hint {
                    Some(Type::Tuple(ts)) if ts.len() == ps.len() => {
                        ts.iter().cloned().map(Some).collect()
                    }
                    _ => vec![None; ps.len()],
                };
                let mut out = Vec::new();
                for (q, h) in ps.iter().zip(&hints) {
                    out.push(self.check_pattern(q, h.as_ref(), binds)?);
                }
                let ty = Type::Tuple(out.iter().map(|q| q.ty().clone()).collect());
                Ok(TPat::Tuple(out, ty))
            }
            Pattern::Record(fields, _) => {
                let mut sorted: Vec<&(Ident, Pattern)> = fields.iter().collect();
                sorted.sort_by(|a, b| a.0.name.cmp(&b.0.name));
                for w in sorted.windows(2) {
                    if w[0].0.name == w[1].0.name {
                        return Err(
                            self.error(&w[1].0.span, format!("duplicate field `{}`", w[1].0.name))
                        );
                    }
                }
                let mut out = Vec::new();
                let mut tys = Vec::new();
                for (name, q) in sorted {
                    let h = match &hint {
                        Some(Type::Record(fs)) => fs
                            .iter()
                            .find(|(f, _)| *f == name.name)
                            .map(|(_, t)| t.clone()),
                        _ => None,
                    };
                    let tp = self.check_pattern(q, h.as_ref(), binds)?;
                    tys.push((name.name.clone(), tp.ty().clone()));
                    out.push(tp);
                }
                Ok(TPat::Tuple(out, Type::Record(tys)))
            }
            Pattern::Ascribed(q, te, span) => {
                let (ty, shape) = self.resolve_type(te)?;
                let first = binds.len();
                let inner = self.check_pattern(q, Some(&ty), binds)?;
                if matches!(te, TypeExpr::Unique(..)) || unique_components(te, &ty) {
                    self.unique.extend(binds[first..].iter().map(|b| b.2));
                } else if let (Pattern::Id(_), TypeExpr::Tuple(tes, _)) = (&**q, te) {
                    if tes.iter().any(|t| matches!(t, TypeExpr::Unique(..))) {
                        let flags: Vec<bool> = tes
                            .iter()
                            .map(|t| matches!(t, TypeExpr::Unique(..)))
                            .collect();
                        self.unique_parts
                            .extend(binds[first..].iter().map(|b| (b.2, flags.clone())));
                    }
                }
                if let (Pattern::Id(_), TypeExpr::Func(..)) = (&**q, te) {
                    let declared = consume::FnUniqueness::of(te);
                    self.fn_uniqueness
                        .extend(binds[first..].iter().map(|b| (b.2, declared.clone())));
                }
                self.expect(span, &ty, inner.ty())?;
                if shape.is_trivial() {
                    Ok(inner)
                } else {
                    Ok(TPat::Ascribed(Box::new(inner), shape))
                }
            }
            Pattern::Constructor(name, ps, span) => {
                self.check_ctor_pattern(name, ps, hint.as_ref(), span, binds)
            }
            Pattern::Literal(e) => self.check_literal_pattern(e, hint.as_ref()),
        }
    }

    pub(super) fn resolve_type(&mut self, te: &'a TypeExpr) -> Result<(Type, Shape)> {
        match te {
            TypeExpr::Scalar(s, _) => Ok((Type::Scalar(*s), Shape::Other)),
            TypeExpr::Named(id) => self.expand_abbrev(id, &[]),
            TypeExpr::Apply(id, args, _) => self.expand_abbrev(id, args),
            // Uniqueness matters to the consumption check, not to types.
            TypeExpr::Unique(t, _) => self.resolve_type(t),
            TypeExpr::Exists(names, t, _) => {
                let n = self.ctx.size_wildcards.len();
                self.ctx
                    .size_wildcards
                    .extend(names.iter().map(|i| i.name.clone()));
                let result = self.resolve_type(t);
                self.ctx.size_wildcards.truncate(n);
                result
            }
            TypeExpr::Sum(alts, _) => {
                let mut ctors: Vec<(String, Vec<Type>)> = Vec::new();
                for (name, ts) in alts {
                    if ctors.iter().any(|(n, _)| *n == name.name) {
                        return Err(self.error(
                            &name.span,
                            format!("duplicate constructor `#{}`", name.name),
                        ));
                    }
                    let mut payload = Vec::new();
                    for t in ts {
                        payload.push(self.resolve_type(t)?.0);
                    }
                    ctors.push((name.name.clone(), payload));
                }
                ctors.sort_by(|a, b| a.0.cmp(&b.0));
                Ok((Type::Sum(ctors), Shape::Other))
            }
            TypeExpr::Var(id) => match self
                .ctx
                .type_params
                .iter()
                .rev()
                .find(|(n, _)| *n == id.name)
            {
                Some((_, t)) => Ok((t.clone(), Shape::Other)),
                None => Err(self.error(&id.span, format!("unknown type parameter `'{}`", id.name))),
            },
            TypeExpr::Array(size, elem, _) => {
                let dim = self.resolve_dim(size)?;
                let (t, s) = self.resolve_type(elem)?;
                Ok((Type::array(t), Shape::Array(dim, Box::new(s))))
            }
            TypeExpr::Tuple(ts, _) => {
                if ts.len() == 1 {
                    return self.resolve_type(&ts[0]);
                }
                let mut tys = Vec::new();
                let mut shapes = Vec::new();
                for t in ts {
                    let (t, s) = self.resolve_type(t)?;
                    tys.push(t);
                    shapes.push(s);
                }
                Ok((Type::Tuple(tys), Shape::Tuple(shapes)))
            }
            TypeExpr::Record(fields, _) => {
                let mut sorted: Vec<&(Ident, TypeExpr)> = fields.iter().collect();
                sorted.sort_by(|a, b| a.0.name.cmp(&b.0.name));
                for w in sorted.windows(2) {
                    if w[0].0.name == w[1].0.name {
                        return Err(
                            self.error(&w[1].0.span, format!("duplicate field `{}`", w[1].0.name))
                        );
                    }
                }
                let mut tys = Vec::new();
                let mut shapes = Vec::new();
                for (name, t) in sorted {
                    let (t, s) = self.resolve_type(t)?;
                    tys.push((name.name.clone(), t));
                    shapes.push(s);
                }
                Ok((Type::Record(tys), Shape::Tuple(shapes)))
            }
            TypeExpr::Func(param, a, b, _) => {
                let (a, _) = self.resolve_type(a)?;
                // `(n: i64) -> [n]t`: sizes in function types check nothing.
                let n = self.ctx.size_wildcards.len();
                if let Some(p) = param {
                    self.ctx.size_wildcards.push(p.name.clone());
                }
                let b = self.resolve_type(b);
                self.ctx.size_wildcards.truncate(n);
                Ok((Type::func(a, b?.0), Shape::Other))
            }
        }
    }

    /// `e` as `scale * var + offset` with `var` a local `i64` (a size
    /// parameter or parameter) and integer literals.
    fn linear(&mut self, e: &Expr) -> Option<(LocalId, i64, i64)> {
        let lit = |x: &Expr| match x.kind {
            ExprKind::IntLit(v, None | Some(ScalarType::I64)) => i64::try_from(v).ok(),
            _ => None,
        };
        match &e.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } => {
                if self.ctx.size_wildcards.contains(&name.name) {
                    return None;
                }
                match self.lookup_local(&name.name) {
                    Some(Binding::Local { id, ty }) => {
                        let (id, ty) = (*id, ty.clone());
                        self.inf.unify(&i64_ty(), &ty).ok()?;
                        Some((id, 1, 0))
                    }
                    _ => None,
                }
            }
            ExprKind::BinOp(BinOp::Mul, a, b) => {
                let (c, x) = match (lit(a), lit(b)) {
                    (Some(c), None) => (c, b),
                    (None, Some(c)) => (c, a),
                    _ => return None,
                };
                let (v, s, o) = self.linear(x)?;
                Some((v, s.checked_mul(c)?, o.checked_mul(c)?))
            }
            ExprKind::BinOp(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let (c, x) = match (lit(a), lit(b), op) {
                    (None, Some(c), BinOp::Add) => (c, a),
                    (None, Some(c), _) => (c.checked_neg()?, a),
                    (Some(c), None, BinOp::Add) => (c, b),
                    _ => return None,
                };
                let (v, s, o) = self.linear(x)?;
                Some((v, s, o.checked_add(c)?))
            }
            _ => None,
        }
    }

    /// `s.0`, `r.n.m`: a local variable, the positions of the fields taken
    /// from it (in its type's order, which its value's parts follow) and the
    /// type of the last; `None` where a type is not yet a known tuple or
    /// record.
    fn field_of_local(&mut self, e: &Expr) -> Option<(LocalId, Vec<usize>, Type)> {
        let (var, mut path, ty, field) = match &e.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } => {
                if self.ctx.size_wildcards.contains(&name.name) {
                    return None;
                }
                return match self.lookup_local(&name.name) {
                    Some(Binding::Local { id, ty }) => Some((*id, Vec::new(), ty.clone())),
                    _ => None,
                };
            }
            // `r.n` may read as `n` of a module `r`.
            ExprKind::Var {
                qualifier: Some(q),
                name,
            } if !q.contains('.') => match self.lookup_local(q) {
                Some(Binding::Local { id, ty }) => {
                    (*id, Vec::new(), ty.clone(), Field::Name(name.name.clone()))
                }
                _ => return None,
            },
            ExprKind::Field(x, field) => {
                let (var, path, ty) = self.field_of_local(x)?;
                (var, path, ty, field.clone())
            }
            _ => return None,
        };
        let (i, t) = match (self.inf.shallow(&ty), &field) {
            (Type::Tuple(ts), Field::Index(i)) => (*i, ts.get(*i)?.clone()),
            (Type::Record(fs), Field::Name(n)) => {
                let i = fs.iter().position(|(f, _)| f == n)?;
                (i, fs[i].1.clone())
            }
            _ => return None,
        };
        path.push(i);
        Some((var, path, t))
    }

    pub(super) fn resolve_dim(&mut self, size: &'a SizeExpr) -> Result<Dim> {
        match size {
            SizeExpr::Any(_) => Ok(Dim::Any),
            SizeExpr::Const(k, _) => Ok(Dim::Const(*k)),
            // `[2 * k]t`, `[n + 1]t`: checked, and solved for `k` where that
            // is the only use of `k`; other expressions are accepted and not
            // checked (docs/language.md).
            SizeExpr::Expr(e) => Ok(match self.linear(e) {
                Some((var, 1, 0)) => Dim::Var(var),
                Some((var, scale, offset)) if scale != 0 => Dim::Linear { var, scale, offset },
                _ => match self.field_of_local(e) {
                    Some((var, path, ty))
                        if !path.is_empty() && self.inf.unify(&i64_ty(), &ty).is_ok() =>
                    {
                        Dim::Field { var, path }
                    }
                    _ => Dim::Any,
                },
            }),
            SizeExpr::Named(id) => {
                if self.ctx.size_wildcards.contains(&id.name) {
                    return Ok(Dim::Any);
                }
                if let Some((_, d)) = self.ctx.size_args.iter().rev().find(|(n, _)| *n == id.name) {
                    return Ok(d.clone());
                }
                match self.lookup_local(&id.name) {
                    Some(Binding::Local { id: lid, ty }) => {
                        let (lid, ty) = (*lid, ty.clone());
                        self.inf.unify(&i64_ty(), &ty).map_err(|_| {
                            self.error(
                                &id.span,
                                format!(
                                    "size `{}` must have type `i64`, but has type `{}`",
                                    id.name,
                                    self.inf.display(&ty)
                                ),
                            )
                        })?;
                        Ok(Dim::Var(lid))
                    }
                    // A global constant (`def r = 37` then `[r]t`, as
                    // diku-dk/cpprandom does): one defined by a literal is
                    // that size; another is computed and checked at run
                    // time.
                    None if matches!(self.lookup_global(&id.name), Some(ValRef::Def(_))) => {
                        let Some(ValRef::Def(d)) = self.lookup_global(&id.name) else {
                            return Ok(Dim::Any);
                        };
                        let def = self.defs[d].def;
                        let mut body = &def.body;
                        while let ExprKind::Ascribe(x, _) = &body.kind {
                            body = x;
                        }
                        match body.kind {
                            ExprKind::IntLit(v, _) if def.params.is_empty() => {
                                return Ok(u64::try_from(v).map_or(Dim::Any, Dim::Const))
                            }
                            _ => {}
                        }
                        self.global_size(d, id)
                    }
                    _ => {
                        let diag = self.error(&id.span, format!("unknown size `{}`", id.name));
                        let names = self.locals.iter().map(|(n, _)| &**n);
                        Err(match closest(&id.name, names) {
                            Some(c) => diag.with_note(format!("did you mean `{c}`?")),
                            None => diag,
                        })
                    }
                }
            }
        }
    }

    /// A size naming global definition `d`: its instance, when `d` is an
    /// `i64` constant (a function is a type error).
    fn global_size(&mut self, d: usize, id: &Ident) -> Result<Dim> {
        let used_at = (self.ctx.file, id.span.clone());
        let scheme = self.scheme(d, used_at.clone())?;
        // `def n = 10 + 10` is an `i64` here whatever its literals default to.
        let (args, params, ret) = self.instantiate_scheme(&scheme);
        if !params.is_empty() || self.inf.unify(&i64_ty(), &ret).is_err() {
            return Err(self.error(
                &id.span,
                format!(
                    "size `{}` must be an `i64` constant, but has type `{}`",
                    id.name,
                    self.inf.display(&Type::curried(params, ret))
                ),
            ));
        }
        let args = args.iter().map(|t| self.inf.finalize(t)).collect();
        Ok(Dim::Global(self.instance(d, args, used_at)?))
    }

    pub(super) fn expand_abbrev(
        &mut self,
        q: &'a QualIdent,
        args: &'a [TypeArg],
    ) -> Result<(Type, Shape)> {
        let id = &q.name;
        let found = if q.quals.is_empty() {
            self.lookup_type(&id.name).ok_or(None)
        } else {
            let path: Vec<String> = q.quals.iter().map(|i| i.name.clone()).collect();
            match self.resolve_module(&path) {
                Ok(ModValue::Env(e)) => e.types.get(id.name.as_str()).copied().ok_or(None),
                // A scalar module's type `t` is the scalar type.
                Ok(ModValue::Scalar(t)) if id.name == "t" => {
                    return Ok((Type::Scalar(t), Shape::Other))
                }
                Ok(_) => Err(None),
                Err(msg) => Err(Some(msg)),
            }
        };
        let t = match found {
            Ok(t) => t,
            Err(Some(msg)) => return Err(self.error(&q.span(), msg)),
            Err(None) => {
                let diag = self.error(&q.span(), format!("unknown type `{}`", q.text()));
                let names = self.ctx.env.types.iter().map(|(n, _)| &**n);
                return Err(match closest(&id.name, names) {
                    Some(c) if q.quals.is_empty() => diag.with_note(format!("did you mean `{c}`?")),
                    _ => diag,
                });
            }
        };
        if self.abbrev_stack.contains(&t) {
            return Err(self.error(
                &id.span,
                format!("type `{}` is defined in terms of itself", id.name),
            ));
        }
        let decl = self.types[t].decl;
        let n_type_args = args
            .iter()
            .filter(|a| matches!(a, TypeArg::Type(_)))
            .count();
        let n_type_params = decl
            .params
            .iter()
            .filter(|p| matches!(p, TypeParam::Type(_)))
            .count();
        if n_type_params != n_type_args || (!args.is_empty() && args.len() != decl.params.len()) {
            return Err(self.error(
                &id.span,
                format!(
                    "type `{}` takes {}, but {} were given",
                    id.name,
                    plural(decl.params.len(), "argument"),
                    args.len()
                ),
            ));
        }
        let mut bound = Vec::new();
        let mut size_args = Vec::new();
        let mut size_wildcards = Vec::new();
        for (i, p) in decl.params.iter().enumerate() {
            match (p, args.get(i)) {
                (TypeParam::Type(p), Some(TypeArg::Type(a))) => {
                    bound.push((p.name.clone(), self.resolve_type(a)?.0));
                }
                (TypeParam::Size(p), Some(TypeArg::Size(s))) => {
                    let d = self.resolve_dim(s)?;
                    size_args.push((p.name.clone(), d));
                }
                (TypeParam::Size(p), None) => size_wildcards.push(p.name.clone()),
                (_, Some(a)) => {
                    let span = match a {
                        TypeArg::Type(t) => t.span(),
                        TypeArg::Size(s) => s.span(),
                    };
                    return Err(self.error(
                        &span,
                        format!(
                            "this argument does not fit parameter {} of type `{}`",
                            i + 1,
                            id.name
                        ),
                    ));
                }
                (TypeParam::Type(_), None) => {}
            }
        }
        let mut ctx = self.types[t].ctx.clone();
        ctx.type_params = bound;
        ctx.size_wildcards = size_wildcards;
        ctx.size_args = size_args;
        self.abbrev_stack.push(t);
        let saved = self.swap_scope(ctx, PMap::new());
        let result = self.resolve_type(&decl.ty);
        self.swap_scope(saved.0, saved.1);
        self.abbrev_stack.pop();
        result
    }
}

/// The sizes of an array known before running: those of an array literal
/// (as far as its first row shows them).
pub(super) fn static_shape(e: &TExpr) -> Option<Vec<u64>> {
    match &e.kind {
        TExprKind::ArrayLit(items) => {
            let mut dims = vec![items.len() as u64];
            if let Some(inner) = items.first().and_then(static_shape) {
                dims.extend(inner);
            }
            Some(dims)
        }
        TExprKind::Ascribe(x, _) | TExprKind::Attr(_, x) | TExprKind::Let(_, _, x) => {
            static_shape(x)
        }
        _ => None,
    }
}

/// Whether a tuple type written with `*` on some components has it on
/// every component that can share memory (`(i32, *[]f32)`): consuming the
/// whole value then consumes exactly what Futhark consumes.
fn unique_components(te: &TypeExpr, ty: &Type) -> bool {
    let (TypeExpr::Tuple(tes, _), Type::Tuple(tys)) = (te, ty) else {
        return false;
    };
    tes.len() == tys.len()
        && tes.iter().any(|t| matches!(t, TypeExpr::Unique(..)))
        && tes
            .iter()
            .zip(tys)
            .all(|(t, ty)| matches!(t, TypeExpr::Unique(..)) || !ty.may_share_memory())
}
