//! The end of a definition: defaults fixed, literals checked against their
//! final types, and what lowering must never see ruled out.

use super::*;

impl<'a> Checker<'a> {
    // ----- the end of a definition: defaults and final checks ---------------

    pub(super) fn finalize_pat(&mut self, p: &mut TPat) -> Result<()> {
        match p {
            TPat::Var { ty, .. } | TPat::Wildcard(ty) => *ty = self.inf.finalize(ty),
            TPat::Tuple(ps, ty) | TPat::Ctor(_, ps, ty) => {
                *ty = self.inf.finalize(ty);
                for q in ps {
                    self.finalize_pat(q)?;
                }
            }
            TPat::Ascribed(q, _) => self.finalize_pat(q)?,
            TPat::Lit(e) => self.finalize_expr(e)?,
        }
        Ok(())
    }

    /// A pattern that binds (in `let`, a parameter, a loop) must match
    /// every value of its type.
    pub(super) fn irrefutable(&self, p: &TPat, file: FileId, span: &Span) -> Result<()> {
        match exhaustive::unmatched(p.ty(), &[p]) {
            None => Ok(()),
            Some(w) => Err(Diagnostic::new(
                file,
                span.clone(),
                format!("refutable pattern: it does not match `{w}`"),
            )
            .with_note("use `match` for patterns that may not match")),
        }
    }

    pub(super) fn finalize_expr(&mut self, mut e: &mut TExpr) -> Result<()> {
        // The bodies of `let` chains in a loop: long chains would take as
        // much stack.
        while matches!(e.kind, TExprKind::Let(..)) {
            e.ty = self.inf.finalize(&e.ty);
            let TExprKind::Let(p, a, b) = &mut e.kind else {
                return Ok(());
            };
            self.finalize_pat(p)?;
            self.irrefutable(p, e.file, &e.span)?;
            self.finalize_expr(a)?;
            e = b;
        }
        e.ty = self.inf.finalize(&e.ty);
        if let TExprKind::TypeMember(t, member) = &e.kind {
            let (t, member) = (t.clone(), member.clone());
            // A rigid parameter (a definition checked on its own) stays.
            if let Type::Scalar(s) = self.inf.finalize(&t) {
                e.kind = match scalar_member(s, &member) {
                    Some(Member::Func(b)) => TExprKind::Builtin(b),
                    Some(Member::Const(lit)) => TExprKind::Literal(lit),
                    None => {
                        let msg = format!("type `{s}` has no member `{member}`");
                        return Err(Diagnostic::new(e.file, e.span.clone(), msg));
                    }
                };
            }
            return Ok(());
        }
        let fail = |msg: String| Diagnostic::new(e.file, e.span.clone(), msg);
        if e.ty.has_array_of_func() {
            return Err(fail("arrays of functions are not allowed".into()));
        }
        match &mut e.kind {
            TExprKind::Literal(Literal::Int(v)) => {
                if let Type::Scalar(s) = e.ty {
                    // A hexadecimal or binary literal is a bit pattern: it may
                    // fill a signed type's width (`0xFFi8` is -1, `0x9E3779B9`
                    // an i32 hash constant), as Futhark's parser allows.
                    let text = &self.sources.files[e.file].text;
                    let digits = text.get(e.span.clone()).unwrap_or("");
                    let pattern = ["0x", "0X", "0b", "0B"]
                        .iter()
                        .any(|p| digits.starts_with(p));
                    // A literal with its type's suffix wraps to the type's
                    // width, as Futhark's lexer reads it (`255i8` is -1).
                    let suffixed = s.is_int() && digits.ends_with(&s.to_string());
                    if suffixed {
                        *v &= u128::MAX >> (128 - s.bits());
                    }
                    let limit = if (pattern || suffixed) && s.is_signed() {
                        u128::MAX >> (128 - s.bits())
                    } else {
                        int_literal_limit(s, false)
                    };
                    if s.is_int() && *v > limit {
                        return Err(fail(format!("literal `{v}` does not fit in type `{s}`")));
                    }
                }
            }
            // `-128i8` fits although `128i8` does not.
            TExprKind::UnOp(UnOp::Neg, a)
                if matches!(a.kind, TExprKind::Literal(Literal::Int(_))) =>
            {
                a.ty = self.inf.finalize(&a.ty);
                if let (TExprKind::Literal(Literal::Int(v)), Type::Scalar(s)) = (&a.kind, &a.ty) {
                    if s.is_int() && *v > int_literal_limit(*s, true) {
                        return Err(fail(format!("literal `-{v}` does not fit in type `{s}`")));
                    }
                }
            }
            TExprKind::Literal(_) | TExprKind::Var(_) | TExprKind::Builtin(_) => {}
            TExprKind::Tuple(es) | TExprKind::ArrayLit(es) => {
                for x in es {
                    self.finalize_expr(x)?;
                }
            }
            TExprKind::Record(fs) => {
                for (_, x) in fs {
                    self.finalize_expr(x)?;
                }
            }
            TExprKind::Apply(f, args) => {
                self.finalize_expr(f)?;
                for x in args {
                    self.finalize_expr(x)?;
                }
            }
            TExprKind::BinOp(_, a, b)
            | TExprKind::Assert(a, b)
            | TExprKind::RecordUpdate(a, _, b) => {
                self.finalize_expr(a)?;
                self.finalize_expr(b)?;
            }
            TExprKind::UnOp(_, a)
            | TExprKind::Field(a, _)
            | TExprKind::Ascribe(a, _)
            | TExprKind::Attr(_, a) => self.finalize_expr(a)?,
            TExprKind::Lambda(lam) => {
                for p in &mut lam.params {
                    self.finalize_pat(p)?;
                    self.irrefutable(p, e.file, &e.span)?;
                }
                self.finalize_expr(&mut lam.body)?;
            }
            TExprKind::Let(p, a, b) => {
                self.finalize_pat(p)?;
                self.finalize_expr(a)?;
                self.finalize_expr(b)?;
            }
            TExprKind::If(c, a, b) => {
                if e.ty.contains_func() {
                    return Err(fail("a conditional cannot return a function".into()));
                }
                self.finalize_expr(c)?;
                self.finalize_expr(a)?;
                self.finalize_expr(b)?;
            }
            TExprKind::Index(a, idx) => {
                self.finalize_expr(a)?;
                for x in idx {
                    self.finalize_expr(x)?;
                }
            }
            TExprKind::Update(a, idx, v) => {
                self.finalize_expr(a)?;
                for x in idx {
                    self.finalize_expr(x)?;
                }
                self.finalize_expr(v)?;
            }
            TExprKind::Slice(a, dims) => {
                self.finalize_expr(a)?;
                for d in dims {
                    match d {
                        TSlice::Index(x) => self.finalize_expr(x)?,
                        TSlice::Range { start, end, stride } => {
                            for x in [start, end, stride].into_iter().flatten() {
                                self.finalize_expr(x)?;
                            }
                        }
                    }
                }
            }
            TExprKind::Loop {
                pat,
                init,
                form,
                body,
            } => {
                if e.ty.contains_func() {
                    return Err(fail("the state of a loop cannot contain a function".into()));
                }
                self.finalize_pat(pat)?;
                self.irrefutable(pat, e.file, &e.span)?;
                self.finalize_expr(init)?;
                match form {
                    TLoopForm::For { bound, .. } => self.finalize_expr(bound)?,
                    TLoopForm::ForIn { pat, array } => {
                        self.finalize_pat(pat)?;
                        self.irrefutable(pat, e.file, &e.span)?;
                        self.finalize_expr(array)?;
                    }
                    TLoopForm::While(c) => self.finalize_expr(c)?,
                }
                self.finalize_expr(body)?;
            }
            TExprKind::DefUse { vars, .. } => {
                for v in vars {
                    *v = self.inf.finalize(v);
                }
            }
            TExprKind::TypeMember(..) | TExprKind::Instance(_) => {}
            TExprKind::Ctor(_, args) => {
                for x in args {
                    self.finalize_expr(x)?;
                }
            }
            TExprKind::Range {
                start, second, end, ..
            } => {
                self.finalize_expr(start)?;
                if let Some(x) = second {
                    self.finalize_expr(x)?;
                }
                self.finalize_expr(end)?;
            }
            TExprKind::Match(x, cases) => {
                if e.ty.contains_func() {
                    return Err(fail("a `match` cannot return a function".into()));
                }
                self.finalize_expr(x)?;
                for (p, b) in cases.iter_mut() {
                    self.finalize_pat(p)?;
                    self.finalize_expr(b)?;
                }
                let pats: Vec<&TPat> = cases.iter().map(|(p, _)| p).collect();
                if let Some(w) = exhaustive::unmatched(&x.ty, &pats) {
                    return Err(fail(format!(
                        "this `match` is not exhaustive: no case matches `{w}`"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The largest literal value of integer type `t`, written after a `-` or not.
fn int_literal_limit(t: ScalarType, negated: bool) -> u128 {
    let bits = t.bits();
    if t.is_signed() {
        (1u128 << (bits - 1)) - u128::from(!negated)
    } else {
        u128::MAX >> (128 - bits)
    }
}
