//! Indexing, slicing, `with` updates, and record fields (those on a type
//! still unknown wait in `Checker::pending`).

use super::*;

impl<'a> Checker<'a> {
    /// An index expression that must be an `i64`.
    pub(super) fn check_i64(&mut self, e: &'a Expr) -> Result<TExpr> {
        let te = self.check_expr(e)?;
        self.expect(&te.span, &i64_ty(), &te.ty)?;
        Ok(te)
    }

    /// An index into one dimension: as in Futhark, any signed integer type,
    /// widened to `i64`; a type still open (a literal) becomes `i64`.
    pub(super) fn check_index_value(&mut self, e: &'a Expr) -> Result<TExpr> {
        let te = self.check_expr(e)?;
        match self.inf.shallow(&te.ty) {
            Type::Scalar(t) if t.is_signed() && t != ScalarType::I64 => {
                let widen = Builtin::Scalar(ScalarType::I64, ScalarFn::Convert(t));
                let f_ty = Type::func(te.ty.clone(), i64_ty());
                let span = te.span.clone();
                let f = self.node(TExprKind::Builtin(widen), f_ty, &span);
                Ok(self.node(TExprKind::Apply(Box::new(f), vec![te]), i64_ty(), &span))
            }
            // A variable nothing has fixed yet (`\i -> a[i]` before `i`
            // meets an `i32`): any signed type, widened by `t.to_i64` once
            // the definition's types are final. A literal stays an `i64`.
            Type::Var(v)
                if !matches!(te.kind, TExprKind::Literal(_))
                    && self.inf.allowed(v).is_none_or(|m| m & SIGNED != 0) =>
            {
                self.constrain(
                    &te.span,
                    &te.ty,
                    SIGNED,
                    "a signed integer type for an index",
                )?;
                let span = te.span.clone();
                let f_ty = Type::func(te.ty.clone(), i64_ty());
                let widen = TExprKind::TypeMember(te.ty.clone(), "to_i64".into());
                let f = self.node(widen, f_ty, &span);
                Ok(self.node(TExprKind::Apply(Box::new(f), vec![te]), i64_ty(), &span))
            }
            _ => {
                self.expect(&te.span, &i64_ty(), &te.ty)?;
                Ok(te)
            }
        }
    }

    /// `Array` wrapped `k` times around `elem`.
    pub(super) fn wrap_array(elem: Type, k: usize) -> Type {
        (0..k).fold(elem, |t, _| Type::array(t))
    }

    /// Unifies `arr` with an array of at least `k` dimensions; returns the
    /// element type after `k` dimensions. `what` names the operation.
    pub(super) fn expect_rank(&mut self, arr: &TExpr, k: usize, what: &str) -> Result<Type> {
        let elem = self.inf.fresh();
        let want = Self::wrap_array(elem.clone(), k);
        if self.inf.unify(&want, &arr.ty).is_err() {
            let shown = self.inf.display(&arr.ty);
            let msg = if matches!(self.inf.shallow(&arr.ty), Type::Array(_)) {
                format!(
                    "too many indices for a value of type `{shown}`: {what} uses {}",
                    plural(k, "dimension")
                )
            } else {
                format!("cannot {what} a value of type `{shown}`: it is not an array")
            };
            return Err(self
                .error(&arr.span, msg)
                .with_label(format!("this has type `{shown}`")));
        }
        Ok(elem)
    }

    /// `a[i]`, `a[i, j]`, and slices mixed per dimension: `a[i:j:s, k]`.
    pub(super) fn check_index(
        &mut self,
        arr: &'a Expr,
        idx: &'a [IndexArg],
        span: &Span,
    ) -> Result<TExpr> {
        let arr = self.check_expr(arr)?;
        let mut dims = Vec::new();
        let mut ranges = 0;
        for arg in idx {
            match arg {
                IndexArg::Index(i) => dims.push(TSlice::Index(self.check_index_value(i)?)),
                IndexArg::Slice(start, end, stride) => {
                    ranges += 1;
                    let mut part = |e: &'a Option<Expr>| -> Result<Option<TExpr>> {
                        e.as_ref().map(|x| self.check_i64(x)).transpose()
                    };
                    let (start, end, stride) = (part(start)?, part(end)?, part(stride)?);
                    if let Some(st) = &stride {
                        if matches!(st.kind, TExprKind::Literal(Literal::Int(0))) {
                            return Err(self.error(&st.span, "the stride of a slice cannot be 0"));
                        }
                    }
                    dims.push(TSlice::Range { start, end, stride });
                }
            }
        }
        let what = if ranges == 0 { "index" } else { "slice" };
        let elem = self.expect_rank(&arr, idx.len(), what)?;
        if ranges == 0 {
            let indices = dims
                .into_iter()
                .filter_map(|d| match d {
                    TSlice::Index(i) => Some(i),
                    TSlice::Range { .. } => None,
                })
                .collect();
            return Ok(self.node(TExprKind::Index(Box::new(arr), indices), elem, span));
        }
        let ty = Self::wrap_array(elem, ranges);
        Ok(self.node(TExprKind::Slice(Box::new(arr), dims), ty, span))
    }

    /// `a with [i, j] = v`: a copy of `a` with one element (or row) replaced.
    pub(super) fn check_update(
        &mut self,
        arr: &'a Expr,
        idx: &'a [IndexArg],
        v: &'a Expr,
        span: &Span,
    ) -> Result<TExpr> {
        let arr = self.check_expr(arr)?;
        let mut indices = Vec::new();
        for arg in idx {
            match arg {
                IndexArg::Index(i) => indices.push(self.check_index_value(i)?),
                IndexArg::Slice(..) => {
                    return Err(self
                        .error(span, "a slice in `with` is not supported")
                        .with_note("update one element or row at a time: `a with [i] = v`"))
                }
            }
        }
        let elem = self.expect_rank(&arr, indices.len(), "update")?;
        let v = self.check_hint(v, Some(&elem))?;
        self.expect(&v.span, &elem, &v.ty)?;
        let ty = arr.ty.clone();
        Ok(self.node(
            TExprKind::Update(Box::new(arr), indices, Box::new(v)),
            ty,
            span,
        ))
    }

    /// `r with a.b = v`: `r`'s type must be known here (as Futhark asks);
    /// the field's type is `v`'s.
    pub(super) fn check_record_update(
        &mut self,
        r: &'a Expr,
        path: &[Field],
        v: &'a Expr,
        span: &Span,
    ) -> Result<TExpr> {
        let r = self.check_expr(r)?;
        let mut ty = r.ty.clone();
        let mut positions = Vec::new();
        for field in path {
            let known = self.inf.shallow(&ty);
            if let Type::Var(_) = known {
                return Err(self.error(
                    span,
                    "the type of a record updated with `with` must be known here; \
                     annotate it"
                        .to_string(),
                ));
            }
            ty = self.field_type(&known, field, self.ctx.file, span)?;
            let position = match (&known, field) {
                (Type::Record(fs), Field::Name(n)) => fs.iter().position(|(f, _)| f == n),
                (_, Field::Index(i)) => Some(*i),
                _ => None,
            };
            positions.push(position.unwrap_or(0));
        }
        let v = self.check_hint(v, Some(&ty))?;
        self.expect(&v.span, &ty, &v.ty)?;
        let result = r.ty.clone();
        Ok(self.node(
            TExprKind::RecordUpdate(Box::new(r), positions, Box::new(v)),
            result,
            span,
        ))
    }

    pub(super) fn field_type(
        &self,
        ty: &Type,
        field: &Field,
        file: FileId,
        span: &Span,
    ) -> Result<Type> {
        let shown = self.inf.display(ty);
        let err = |msg: String| Diagnostic::new(file, span.clone(), msg);
        match (ty, field) {
            (Type::Tuple(ts), Field::Index(i)) => ts
                .get(*i)
                .cloned()
                .ok_or_else(|| err(format!("a value of type `{shown}` has no component {i}"))),
            (Type::Record(fs), Field::Name(n)) => match fs.iter().find(|(f, _)| f == n) {
                Some((_, t)) => Ok(t.clone()),
                None => {
                    let diag = err(format!("a value of type `{shown}` has no field `{n}`"));
                    Err(match closest(n, fs.iter().map(|(f, _)| f.as_str())) {
                        Some(c) => diag.with_note(format!("did you mean `{c}`?")),
                        None => diag,
                    })
                }
            },
            (_, Field::Index(i)) => Err(err(format!(
                "a value of type `{shown}` has no component {i}"
            ))),
            (_, Field::Name(n)) => {
                Err(err(format!("a value of type `{shown}` has no field `{n}`")))
            }
        }
    }

    /// Resolves field accesses whose record type has become known.
    pub(super) fn process_pending(&mut self) -> Result<()> {
        loop {
            let mut progress = false;
            let pending = std::mem::take(&mut self.pending);
            for p in pending {
                match self.inf.shallow(&p.ty) {
                    Type::Var(_) => self.pending.push(p),
                    ty => {
                        progress = true;
                        let ft = self.field_type(&ty, &p.field, p.file, &p.span)?;
                        self.inf.unify(&p.result, &ft).map_err(|_| {
                            Diagnostic::new(p.file, p.span.clone(), {
                                let (e, f) = (self.inf.display(&p.result), self.inf.display(&ft));
                                format!("type mismatch: expected `{e}`, found `{f}`")
                            })
                        })?;
                    }
                }
            }
            if !progress {
                return Ok(());
            }
        }
    }

    pub(super) fn finish_pending(&mut self) -> Result<()> {
        self.process_pending()?;
        match self.pending.first() {
            Some(p) => Err(Diagnostic::new(
                p.file,
                p.span.clone(),
                "cannot infer the type of this field access; add a type annotation",
            )),
            None => Ok(()),
        }
    }
}
