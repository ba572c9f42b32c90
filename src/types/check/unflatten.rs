//! Sizes that Futhark's size unification finds and arrc reads off the
//! program text. Futhark's newer `unflatten xs`, `unflatten_3d xs` and
//! `split xs`: the sizes are read off the argument's outer size when the
//! program writes it as a product `n * m` (`n * m * l`) or a sum `n + m` (a
//! parameter's type `[n * m]t`, `sized (n * m) xs`, `replicate`, `iota`,
//! `take`, `tabulate`, a `:>` coercion, a `map` or `scatter` over such an
//! array, a `with` update or `let a[i] = v` of one, `flatten` of a name
//! declared `[n][m]t`, a call of a function whose declared result has the
//! size of one of its array parameters or a product of its value
//! parameters, or a name bound to one), and the call becomes arrc's
//! `unflatten n m xs`, `unflatten_3d n m l xs` or `split n xs`. Futhark's
//! `rep x` becomes `replicate (length xs) x` beside an array `xs` of the
//! same size (`map2 f xs (rep x)`), or `replicate n x` under a written type
//! `[n]t`.

use super::*;
use crate::types::builtins::builtin_type;

/// How the program writes an array's outer size.
#[derive(Clone, Copy)]
pub(super) enum Written<'a> {
    /// An expression: `n * m`, `k`.
    Expr(&'a Expr),
    /// A product of two written sizes: `flatten` of a `[n][m]t`.
    Mul(Factor<'a>, Factor<'a>),
}

/// One factor of a written size: an expression, or a size parameter's name
/// as a type writes it (`[n]`).
#[derive(Clone, Copy)]
pub(super) enum Factor<'a> {
    Expr(&'a Expr),
    Name(&'a Ident),
    /// `[3]`.
    Const(u64, &'a Span),
}

impl<'a> Factor<'a> {
    fn expr(self) -> Option<&'a Expr> {
        match self {
            Factor::Expr(e) => Some(e),
            Factor::Name(_) | Factor::Const(..) => None,
        }
    }
}

impl<'a> Checker<'a> {
    /// `e` as `a op b`.
    fn parts(e: &'a Expr, op: BinOp) -> Option<(&'a Expr, &'a Expr)> {
        match &e.kind {
            ExprKind::BinOp(o, a, b) if *o == op => Some((a, b)),
            _ => None,
        }
    }

    /// A written size as `a op b`.
    fn written_parts(w: Written<'a>, op: BinOp) -> Option<(Factor<'a>, Factor<'a>)> {
        match w {
            Written::Expr(e) => Self::parts(e, op).map(|(a, b)| (Factor::Expr(a), Factor::Expr(b))),
            Written::Mul(a, b) => (op == BinOp::Mul).then_some((a, b)),
        }
    }

    /// A written type's outer size as a factor.
    fn type_factor(t: &'a TypeExpr) -> Option<Factor<'a>> {
        match t {
            TypeExpr::Array(SizeExpr::Expr(e), _, _) => Some(Factor::Expr(e)),
            TypeExpr::Array(SizeExpr::Named(n), _, _) => Some(Factor::Name(n)),
            TypeExpr::Array(SizeExpr::Const(c, span), _, _) => Some(Factor::Const(*c, span)),
            TypeExpr::Unique(t, _) => Self::type_factor(t),
            _ => None,
        }
    }

    /// The checked `i64` a factor is.
    pub(super) fn check_factor(&mut self, f: Factor<'a>) -> Result<TExpr> {
        let e = match f {
            Factor::Expr(e) => self.check_expr(e)?,
            Factor::Name(n) => match self.lookup_local(&n.name) {
                Some(Binding::Local { id, ty }) => {
                    let (id, ty) = (*id, ty.clone());
                    self.node(TExprKind::Var(id), ty, &n.span)
                }
                _ => return Err(self.error(&n.span, format!("unknown size `{}`", n.name))),
            },
            Factor::Const(c, span) => self.node(
                TExprKind::Literal(Literal::Int(u128::from(c))),
                i64_ty(),
                span,
            ),
        };
        self.expect(&e.span, &i64_ty(), &e.ty)?;
        Ok(e)
    }

    /// The expression a written type's outer size is.
    pub(super) fn type_size(t: &'a TypeExpr) -> Option<&'a Expr> {
        match t {
            TypeExpr::Array(SizeExpr::Expr(e), _, _) => Some(e),
            TypeExpr::Unique(t, _) => Self::type_size(t),
            _ => None,
        }
    }

    /// A written array type's row size (`m` of `[n][m]t`).
    fn row_factor(t: &'a TypeExpr) -> Option<Factor<'a>> {
        match t {
            TypeExpr::Array(_, elem, _) => Self::type_factor(elem),
            TypeExpr::Unique(t, _) => Self::row_factor(t),
            _ => None,
        }
    }

    /// The written type of a local name, if its binding wrote one.
    pub(super) fn local_type_written(&self, e: &'a Expr) -> Option<&'a TypeExpr> {
        match &e.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } => match self.lookup_local(&name.name) {
                Some(Binding::Local { id, .. }) => self.types_written.get(id).copied(),
                _ => None,
            },
            ExprKind::Ascribe(_, t) | ExprKind::Coerce(_, t) => Some(t),
            _ => None,
        }
    }

    /// How the outer size of `e`'s value is written, if it is.
    pub(super) fn size_written(&self, e: &'a Expr) -> Option<Written<'a>> {
        match &e.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } => match self.lookup_local(&name.name) {
                Some(Binding::Local { id, .. }) => self.sizes_written.get(id).copied(),
                _ => None,
            },
            ExprKind::Ascribe(x, t) | ExprKind::Coerce(x, t) => Self::type_size(t)
                .map(Written::Expr)
                .or_else(|| self.size_written(x)),
            ExprKind::Update(a, ..) => self.size_written(a),
            // `let #a = a in ... scatter #a ...`: a slice update.
            ExprKind::Let(Pattern::Id(p), rhs, body) if Self::size_follows(body, &p.name) => {
                self.size_written(rhs)
            }
            ExprKind::Apply(..) => {
                let (head, args) = flatten_apply(e);
                let ExprKind::Var {
                    qualifier: None,
                    name,
                } = &head.kind
                else {
                    return None;
                };
                if let Some(binding) = self.lookup_local(&name.name) {
                    return match binding {
                        Binding::Fun(t) => self.result_size_written(t, &args),
                        Binding::Local { .. } => None,
                    };
                }
                let n = match (name.name.as_str(), args.as_slice()) {
                    ("sized" | "replicate" | "iota" | "take" | "tabulate" | "spread", [n, ..]) => n,
                    ("scatter" | "copy", [dest, ..]) => return self.size_written(dest),
                    ("hist", [_, _, k, ..]) => k,
                    ("reduce_by_index", [dest, ..]) => return self.size_written(dest),
                    ("map" | "map2" | "map3" | "map4" | "map5", [.., last]) => {
                        return self.size_written(last)
                    }
                    ("flatten", [xs]) => {
                        let t = self.local_type_written(xs)?;
                        return Some(Written::Mul(Self::type_factor(t)?, Self::row_factor(t)?));
                    }
                    _ => {
                        let d = self.lookup_def(&name.name)?;
                        let t = self.defs.get(d)?.template.clone();
                        return self.result_size_written(&t, &args);
                    }
                };
                Some(Written::Expr(n))
            }
            _ => None,
        }
    }

    /// Whether `e` has the outer size of the local `name` (an update or a
    /// `scatter` into it, possibly under `let`s binding other names).
    fn size_follows(e: &Expr, name: &str) -> bool {
        match &e.kind {
            ExprKind::Var {
                qualifier: None,
                name: n,
            } => n.name == name,
            ExprKind::Update(a, ..) => Self::size_follows(a, name),
            ExprKind::Let(Pattern::Id(q), _, body) => {
                q.name != name && Self::size_follows(body, name)
            }
            ExprKind::Apply(..) => {
                let (head, args) = flatten_apply(e);
                matches!(&head.kind, ExprKind::Var { qualifier: None, name: h }
                    if h.name == "scatter" && args.len() == 3)
                    && Self::size_follows(args[0], name)
            }
            _ => false,
        }
    }

    /// The written size of a call of `t` whose declared result is `[k]u`,
    /// `k` a size parameter that a parameter's type `[k]v` also gives (that
    /// argument's), or `[a * b]u`, `a` and `b` value parameters (`(n:
    /// i64)`: the product of those arguments).
    fn result_size_written(&self, t: &Template<'a>, args: &[&'a Expr]) -> Option<Written<'a>> {
        /// The size parameter a written type's outer size names.
        fn named(t: &TypeExpr) -> Option<&str> {
            match t {
                TypeExpr::Array(SizeExpr::Named(n), _, _) => Some(&n.name),
                TypeExpr::Unique(t, _) => named(t),
                _ => None,
            }
        }
        if args.len() != t.params.len() {
            return None;
        }
        let ret = t.ret?;
        if let Some(product) = Self::type_size(ret) {
            // A parameter named by a factor: its argument.
            let arg = |f: &Expr| {
                let ExprKind::Var {
                    qualifier: None,
                    name,
                } = &f.kind
                else {
                    return None;
                };
                let i = t.params.iter().position(|p| match p {
                    Pattern::Ascribed(q, _, _) => {
                        matches!(&**q, Pattern::Id(id) if id.name == name.name)
                    }
                    Pattern::Id(id) => id.name == name.name,
                    _ => false,
                })?;
                Some(Factor::Expr(args[i]))
            };
            let (a, b) = Self::parts(product, BinOp::Mul)?;
            return Some(Written::Mul(arg(a)?, arg(b)?));
        }
        let k = named(ret)?;
        let is_size_param = t
            .type_params
            .iter()
            .any(|p| matches!(p, TypeParam::Size(id) if id.name == k));
        if !is_size_param {
            return None;
        }
        let i = t
            .params
            .iter()
            .position(|p| matches!(p, Pattern::Ascribed(_, ty, _) if named(ty) == Some(k)))?;
        self.size_written(args[i])
    }

    /// Remembers the size expression of the value the names `p` binds: its
    /// type writes one, or `rhs` (a `let`'s) does.
    pub(super) fn note_size(
        &mut self,
        p: &'a Pattern,
        rhs: Option<&'a Expr>,
        binds: &[(String, Span, LocalId, Type)],
    ) {
        let (name, written_type) = match p {
            Pattern::Id(n) => (n, None),
            Pattern::Ascribed(q, t, _) => match &**q {
                Pattern::Id(n) => (n, Some(t)),
                _ => return,
            },
            _ => return,
        };
        let Some((_, _, id, _)) = binds.iter().find(|b| b.0 == name.name) else {
            return;
        };
        let found = written_type
            .and_then(Self::type_size)
            .map(Written::Expr)
            .or_else(|| rhs.and_then(|r| self.size_written(r)));
        if let Some(found) = found {
            self.sizes_written.insert(*id, found);
        }
        if let Some(t) = written_type.or_else(|| rhs.and_then(|r| self.local_type_written(r))) {
            self.types_written.insert(*id, t);
        }
    }

    /// Notes that written type `t` describes the value of `e`: of each of
    /// its tails (a `let`'s body, both branches of an `if`).
    pub(super) fn note_typed(&mut self, e: &'a Expr, t: &'a TypeExpr) {
        match &e.kind {
            ExprKind::Let(_, _, body) | ExprKind::LetFun { body, .. } | ExprKind::Attr(_, body) => {
                self.note_typed(body, t)
            }
            ExprKind::If(_, a, b) => {
                self.note_typed(a, t);
                self.note_typed(b, t);
            }
            // Each component of a tuple its type writes component by component.
            ExprKind::Tuple(es) if matches!(t, TypeExpr::Tuple(ts, _) if ts.len() == es.len()) => {
                self.typed_results.insert(e as *const Expr, t);
                if let TypeExpr::Tuple(ts, _) = t {
                    for (x, tx) in es.iter().zip(ts) {
                        self.note_typed(x, tx);
                    }
                }
            }
            _ => {
                self.typed_results.insert(e as *const Expr, t);
                // `copy x` has the size of `x`.
                if let ExprKind::Apply(f, args) = &e.kind {
                    let copy = matches!(&f.kind, ExprKind::Var { qualifier: None, name }
                        if name.name == "copy" && self.lookup_local("copy").is_none());
                    if let (true, [x]) = (copy, args.as_slice()) {
                        self.note_typed(x, t);
                    }
                }
            }
        }
    }

    /// `unflatten xs` (the application `e`) with the sizes read off `xs`,
    /// or off the written type of its result, as `unflatten n m xs`.
    pub(super) fn unflatten_one(
        &mut self,
        e: &'a Expr,
        head: &'a Expr,
        xs: &'a Expr,
    ) -> Option<Result<TExpr>> {
        let from_type = || {
            let t = *self.typed_results.get(&(e as *const Expr))?;
            Some((Self::type_factor(t)?, Self::row_factor(t)?))
        };
        let written = self
            .size_written(xs)
            .and_then(|w| Self::written_parts(w, BinOp::Mul))
            .or_else(from_type);
        let Some((n, m)) = written else {
            let (rank, ys) = self.flattened(xs)?;
            return Some(self.reflattened(ys, rank, rank - 2, &e.span));
        };
        let result = (|| {
            let targs = vec![
                Some(self.check_factor(n)?),
                Some(self.check_factor(m)?),
                Some(self.check_expr(xs)?),
            ];
            let ty = builtin_type(&mut self.inf, Builtin::Unflatten);
            let head_te = self.node(TExprKind::Builtin(Builtin::Unflatten), ty, &head.span);
            self.apply_generic(
                head_te,
                &e.span,
                &[xs, xs, xs],
                targs,
                Some(("unflatten", 0)),
            )
        })();
        Some(result)
    }

    /// `ys` and its rank when `xs` is `flatten ys` (2) or the prelude's
    /// `flatten_3d ys` (3).
    pub(super) fn flattened(&self, xs: &'a Expr) -> Option<(usize, &'a Expr)> {
        let (head, args) = flatten_apply(xs);
        let [ys] = args.as_slice() else {
            return None;
        };
        match self.classify_head(head) {
            Head::Builtin(Builtin::Flatten) => Some((2, ys)),
            Head::Template(t) if t.name.name == "flatten_3d" && t.params.len() == 1 => {
                Some((3, ys))
            }
            _ => None,
        }
    }

    /// `unflatten (flatten_3d ys)`, `unflatten (flatten ys)` and
    /// `unflatten_3d (flatten_3d ys)` where no written size gives the
    /// factors: Futhark unifies `[n * m]` with `[(a * b) * c]`, so `n = a *
    /// b` and `m = c`, and the result is `flatten ys` (`ys` itself where the
    /// ranks agree). `ys` is checked as an array of rank `rank` at least and
    /// flattened `times` times.
    pub(super) fn reflattened(
        &mut self,
        ys: &'a Expr,
        rank: usize,
        times: usize,
        span: &Span,
    ) -> Result<TExpr> {
        let mut y = self.check_expr(ys)?;
        let mut want = self.inf.fresh();
        for _ in 0..rank {
            want = Type::array(want);
        }
        self.expect(&ys.span, &want, &y.ty)?;
        for _ in 0..times {
            let ty = builtin_type(&mut self.inf, Builtin::Flatten);
            let head = self.node(TExprKind::Builtin(Builtin::Flatten), ty, span);
            y = self.apply_generic(head, span, &[ys], vec![Some(y)], Some(("flatten", 0)))?;
        }
        Ok(y)
    }

    /// The arguments of the prelude's `unflatten_3d n m l xs` or `split n
    /// xs` for a call `unflatten_3d xs` or `split xs` (a template of that
    /// name taking one more argument than given), read off `xs`'s size.
    pub(super) fn sizes_from_type(
        &self,
        t: &Template<'a>,
        args: &[&'a Expr],
    ) -> Option<Vec<&'a Expr>> {
        let [xs] = args else { return None };
        let size = || self.size_written(xs);
        match (t.name.name.as_str(), t.params.len()) {
            ("unflatten_3d", 4) => {
                let (nm, l) = Self::written_parts(size()?, BinOp::Mul)?;
                let (n, m) = Self::parts(nm.expr()?, BinOp::Mul)?;
                Some(vec![n, m, l.expr()?, xs])
            }
            ("split", 2) => {
                let (n, _) = Self::written_parts(size()?, BinOp::Add)?;
                Some(vec![n.expr()?, xs])
            }
            _ => None,
        }
    }
}

/// The argument positions of a built-in whose arrays must have one size
/// (`map2 f xs ys`, `zip xs ys`, `scatter dest is vs`: `is` and `vs`).
pub(super) fn same_size_positions(b: Builtin, args: usize) -> std::ops::Range<usize> {
    match b {
        Builtin::Map(k) if k >= 2 => 1..args.min(usize::from(k) + 1),
        Builtin::Zip(_) => 0..args,
        Builtin::Scatter => 1..args.min(3),
        Builtin::Hist | Builtin::ReduceByIndex => 3..args.min(5),
        _ => 0..0,
    }
}

/// Arguments and those of them checked (`apply_generic`'s).
type CheckedArgs<'a> = (Vec<&'a Expr>, Vec<Option<TExpr>>);

impl<'a> Checker<'a> {
    /// `x` if `e` is `rep x`: Futhark's `replicate` whose size comes from
    /// the type (not a name the program defines).
    fn rep_of(&self, e: &'a Expr) -> Option<&'a Expr> {
        let ExprKind::Apply(f, args) = &e.kind else {
            return None;
        };
        let (
            ExprKind::Var {
                qualifier: None,
                name,
            },
            [x],
        ) = (&f.kind, args.as_slice())
        else {
            return None;
        };
        let defined = self.lookup_local("rep").is_some() || self.lookup_global("rep").is_some();
        (name.name == "rep" && !defined && !self.is_function_like(x)).then_some(x)
    }

    /// The arguments of built-in `b` where one of its same-size arrays is
    /// `rep x` and another is a name (`map2 f xs (rep 0)`, `scatter d is
    /// (rep true)`): as Futhark's size unification gives it that array's
    /// size, it becomes `replicate (length xs) x`. `None` when no argument
    /// is such a `rep`.
    pub(super) fn rep_args(
        &mut self,
        b: Builtin,
        args: &[&'a Expr],
    ) -> Option<Result<CheckedArgs<'a>>> {
        let positions = same_size_positions(b, args.len());
        let reps: Vec<usize> = positions
            .clone()
            .filter(|&i| self.rep_of(args[i]).is_some())
            .collect();
        let sibling = positions.clone().find(|&i| {
            !reps.contains(&i)
                && matches!(&args[i].kind, ExprKind::Var { .. } | ExprKind::Field(..))
        });
        let (false, Some(sibling)) = (reps.is_empty(), sibling) else {
            return None;
        };
        let mut plain = args.to_vec();
        for &i in &reps {
            plain[i] = self.rep_of(args[i])?;
        }
        Some(self.check_plain_args(&plain).and_then(|mut targs| {
            let sib = self.check_expr(args[sibling])?;
            for &i in &reps {
                let Some(x) = targs[i].take() else { continue };
                let span = args[i].span.clone();
                let len_ty = builtin_type(&mut self.inf, Builtin::Length);
                self.expect(&span, &len_ty, &Type::func(sib.ty.clone(), i64_ty()))?;
                let len_head = self.node(TExprKind::Builtin(Builtin::Length), len_ty, &span);
                let len = self.node(
                    TExprKind::Apply(Box::new(len_head), vec![sib.clone()]),
                    i64_ty(),
                    &span,
                );
                targs[i] = Some(self.replicate_node(len, x, &span)?);
            }
            Ok((plain, targs))
        }))
    }
}

impl<'a> Checker<'a> {
    /// `replicate n x`.
    fn replicate_node(&mut self, n: TExpr, x: TExpr, span: &Span) -> Result<TExpr> {
        let arr = Type::array(x.ty.clone());
        let rep_ty = builtin_type(&mut self.inf, Builtin::Replicate);
        let want = Type::curried(vec![i64_ty(), x.ty.clone()], arr.clone());
        self.expect(span, &rep_ty, &want)?;
        let head = self.node(TExprKind::Builtin(Builtin::Replicate), rep_ty, span);
        Ok(self.node(TExprKind::Apply(Box::new(head), vec![n, x]), arr, span))
    }

    /// `rep x` (the application `e`) where a written type gives its size
    /// (`rep x : [n]u`, `let a: [n]u = rep x`, a body whose declared result
    /// is `[n]u`): `replicate n x`.
    pub(super) fn rep_sized(&mut self, e: &'a Expr) -> Option<Result<TExpr>> {
        let x = self.rep_of(e)?;
        let t = *self.typed_results.get(&(e as *const Expr))?;
        let n = Self::type_factor(t)?;
        Some(self.check_factor(n).and_then(|n| {
            let x = self.check_expr(x)?;
            self.replicate_node(n, x, &e.span)
        }))
    }
}
