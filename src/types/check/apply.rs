//! Applications: uses of definitions and builtins applied to arguments.

use super::defs::top_shape;
use super::qualified::Target;
use super::unflatten::same_size_positions;
use super::*;
use crate::types::builtins::{array_builtin, builtin_type};

impl<'a> Checker<'a> {
    /// A use of a template applied to `args` (possibly none): a global's
    /// scheme instantiated, or a local function's body checked here.
    /// `site` is the whole call (or the name), where the sizes its
    /// result must have are known.
    pub(super) fn apply_template(
        &mut self,
        t: Rc<Template<'a>>,
        site: Option<&'a Expr>,
        whole: &Span,
        head_span: &Span,
        args: &[&'a Expr],
    ) -> Result<TExpr> {
        let mut targs = self.check_plain_args(args)?;
        // Implicit sizes passed first, and arguments bound before the call
        // to compute one (implicit.rs).
        let mut sizes = Vec::new();
        let mut lets = Vec::new();
        let (callee, nparams) = match t.def_index {
            Some(d) => {
                let scheme = self.scheme(d, (self.ctx.file, head_span.clone()))?;
                let (vars, param_tys, ret) = self.instantiate_scheme(&scheme);
                self.unify_args(args, &mut targs, &param_tys, &scheme.shapes)?;
                if !scheme.implicit.is_empty() {
                    sizes = self.implicit_sizes(
                        &t,
                        &scheme.implicit,
                        site,
                        head_span,
                        args,
                        &mut targs,
                        &mut lets,
                    )?;
                }
                let all_params = vec![i64_ty(); sizes.len()].into_iter().chain(param_tys);
                let ty = Type::curried(all_params.collect(), ret);
                let use_ = TExprKind::DefUse { def: d, vars };
                (self.node(use_, ty, head_span), scheme.params.len())
            }
            None => {
                let sig = self.instantiate_signature(&t, false)?;
                let shapes: Vec<Shape> = sig.params.iter().map(top_shape).collect();
                let param_tys = sig.param_tys.clone();
                self.unify_args(args, &mut targs, &param_tys, &shapes)?;
                let ty = Type::curried(param_tys, sig.ret.clone());
                let (size_params, params, body) = self.instantiate_body(&t, sig)?;
                let callee = if params.is_empty() {
                    body
                } else {
                    let lam = TLambda {
                        name: Some(t.name.name.clone()),
                        size_params,
                        params,
                        body,
                    };
                    // What a local function declares its result, as for
                    // an anonymous function (consume/results.rs).
                    if let Some(ret) = t.ret {
                        let key = (self.ctx.file, head_span.clone());
                        self.lambda_unique_ret.insert(key, unique_ret(Some(ret)));
                    }
                    self.node(TExprKind::Lambda(Box::new(lam)), ty, head_span)
                };
                (callee, shapes.len())
            }
        };
        let n = nparams.min(args.len());
        let rest = targs.split_off(n);
        let now: Vec<TExpr> = sizes
            .into_iter()
            .chain(targs.into_iter().flatten())
            .collect();
        let result = if now.is_empty() {
            callee
        } else {
            let mut remaining = callee.ty.clone();
            for _ in 0..now.len() {
                remaining = match remaining {
                    Type::Func(_, r) => *r,
                    other => other,
                };
            }
            self.node(TExprKind::Apply(Box::new(callee), now), remaining, whole)
        };
        let mut result = if args.len() > n {
            let extra = &args[n..];
            let name = (t.name.name.as_str(), nparams);
            self.apply_generic(result, whole, extra, rest, Some(name))?
        } else {
            result
        };
        for (pat, rhs) in lets.into_iter().rev() {
            let ty = result.ty.clone();
            let kind = TExprKind::Let(pat, Box::new(rhs), Box::new(result));
            result = self.node(kind, ty, whole);
        }
        Ok(result)
    }

    /// Unifies the first arguments with the parameter types (plain ones
    /// first, bare literals last, then functions, which get the parameter
    /// type as a hint) and compares declared sizes with literal arrays.
    fn unify_args(
        &mut self,
        args: &[&'a Expr],
        targs: &mut [Option<TExpr>],
        param_tys: &[Type],
        shapes: &[Shape],
    ) -> Result<()> {
        let n = param_tys.len().min(args.len());
        for literals in [false, true] {
            for i in 0..n {
                if let Some(ta) = &targs[i] {
                    if is_bare_literal(args[i]) == literals {
                        self.expect(&ta.span, &param_tys[i], &ta.ty)?;
                    }
                }
            }
        }
        for i in 0..n {
            if targs[i].is_none() {
                let ta = self.check_hint(args[i], Some(&param_tys[i]))?;
                self.expect(&ta.span, &param_tys[i], &ta.ty)?;
                targs[i] = Some(ta);
            }
        }
        self.process_pending()?;
        let mut bound = Vec::new();
        for (shape, ta) in shapes.iter().zip(targs.iter()) {
            if let Some(ta) = ta {
                self.static_sizes(shape, ta, &mut bound)?;
            }
        }
        Ok(())
    }

    /// Checks the arguments that are not functions; functions come later,
    /// once the other arguments have fixed their parameter types.
    pub(super) fn check_plain_args(&mut self, args: &[&'a Expr]) -> Result<Vec<Option<TExpr>>> {
        // Unsuffixed literals go after the other arguments, so that a
        // mismatch is blamed on the literal rather than on the array.
        let mut out: Vec<Option<TExpr>> = vec![None; args.len()];
        for literals in [false, true] {
            for (i, a) in args.iter().enumerate() {
                if is_bare_literal(a) == literals && !self.is_function_like(a) {
                    out[i] = Some(self.check_expr(a)?);
                }
            }
        }
        Ok(out)
    }

    pub(super) fn is_function_like(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lambda(..)
            | ExprKind::OpSection(_)
            | ExprKind::LeftSection(..)
            | ExprKind::RightSection(..) => true,
            ExprKind::Var { .. } | ExprKind::Apply(..) => {
                let (head, args) = flatten_apply(e);
                let arity = match self.classify_head(head) {
                    Head::Template(t) => t.params.len(),
                    Head::Builtin(b) => b.arity(),
                    Head::Other => return false,
                };
                args.len() < arity
            }
            _ => false,
        }
    }

    pub(super) fn classify_head(&self, head: &Expr) -> Head<'a> {
        if let ExprKind::Var {
            qualifier: None,
            name,
        } = &head.kind
        {
            return match self.lookup_local(&name.name) {
                Some(Binding::Local { .. }) => Head::Other,
                Some(Binding::Fun(t)) => Head::Template(t.clone()),
                None => match self.lookup_global(&name.name) {
                    Some(ValRef::Def(d)) => Head::Template(self.defs[d].template.clone()),
                    Some(ValRef::Scalar(t)) => match scalar_member(t, &name.name) {
                        Some(Member::Func(b)) => Head::Builtin(b),
                        _ => Head::Other,
                    },
                    None => match array_builtin(&name.name) {
                        Some(b) => Head::Builtin(b),
                        None => Head::Other,
                    },
                },
            };
        }
        let Some((path, name)) = self.qual_ref(head) else {
            return Head::Other;
        };
        match self.resolve_qual(&path, &name) {
            Ok(Target::Def(d) | Target::Reduction(_, d)) => {
                Head::Template(self.defs[d].template.clone())
            }
            Ok(Target::Member(_, Member::Func(b))) => Head::Builtin(b),
            _ => Head::Other,
        }
    }

    /// Applies a checked function to arguments, some already checked.
    pub(super) fn apply_generic(
        &mut self,
        head: TExpr,
        whole: &Span,
        args: &[&'a Expr],
        mut targs: Vec<Option<TExpr>>,
        name: Option<(&str, usize)>,
    ) -> Result<TExpr> {
        let mut fty = head.ty.clone();
        let mut param_tys = Vec::new();
        for (i, _) in args.iter().enumerate() {
            match self.inf.shallow(&fty) {
                Type::Func(p, r) => {
                    param_tys.push(*p);
                    fty = *r;
                }
                Type::Var(_) => {
                    let (p, r) = (self.inf.fresh(), self.inf.fresh());
                    let f = Type::func(p.clone(), r.clone());
                    self.inf
                        .unify(&fty, &f)
                        .map_err(|_| self.mismatch(&head.span, &f, &fty))?;
                    param_tys.push(p);
                    fty = r;
                }
                other => {
                    return Err(match name {
                        Some((n, k)) => self.error(
                            whole,
                            format!(
                                "wrong number of arguments: `{n}` takes {}, but {} were given",
                                plural(k + i, "argument"),
                                k + args.len()
                            ),
                        ),
                        None => self.error(
                            &head.span,
                            format!(
                                "cannot apply a value of type `{}` to an argument",
                                self.inf.display(&other)
                            ),
                        ),
                    });
                }
            }
        }
        for literals in [false, true] {
            for (i, a) in args.iter().enumerate() {
                if let Some(ta) = &targs[i] {
                    if is_bare_literal(a) == literals {
                        self.expect(&ta.span, &param_tys[i], &ta.ty)?;
                    }
                }
            }
        }
        for (i, a) in args.iter().enumerate() {
            if targs[i].is_none() {
                let ta = self.check_hint(a, Some(&param_tys[i]))?;
                self.expect(&ta.span, &param_tys[i], &ta.ty)?;
                targs[i] = Some(ta);
            }
        }
        self.process_pending()?;
        let targs = targs.into_iter().flatten().collect();
        Ok(self.node(TExprKind::Apply(Box::new(head), targs), fty, whole))
    }

    /// `i64.sum`, `f32.maximum` ...: Futhark's numeric modules carry the
    /// standard reductions; here they are the standard library's, at the
    /// module's type. The definition `name`, if it is one of them: the
    /// standard library's (the first program's), also where the program
    /// defines its own `sum`, which does not change what `f64.sum` means.
    pub(super) fn module_reduction(&self, module: ScalarType, name: &str) -> Option<usize> {
        let reductions = ["sum", "product", "maximum", "minimum"];
        if module == ScalarType::Bool || !reductions.contains(&name) {
            return None;
        }
        let top_level = (0..self.defs.len())
            .filter(|&d| self.defs[d].def.name.name == name)
            .filter_map(|d| self.defs[d].program.map(|p| (p, d)))
            .min_by_key(|&(p, d)| (p, std::cmp::Reverse(d)));
        top_level.map(|(_, d)| d).or_else(|| self.lookup_def(name))
    }

    pub(super) fn check_apply(&mut self, e: &'a Expr) -> Result<TExpr> {
        let (head, _) = flatten_apply(e);
        let result = self.check_apply_head(e);
        // Futhark's newer `unflatten xs` and `split xs` take their sizes
        // from the type; arrc's take them as arguments.
        let sized = ["unflatten", "unflatten_3d", "unflatten_4d", "split"];
        match (&head.kind, result) {
            (ExprKind::Var { name, .. }, Err(d))
                if sized.contains(&name.name.as_str())
                    && d.message.starts_with("type mismatch: expected `i64`") =>
            {
                let n = &name.name;
                let how = if n == "split" {
                    "`split i xs` splits at `i`".to_string()
                } else {
                    format!("`{n}` takes the sizes first, as in `unflatten n m xs`")
                };
                let newer = match n.as_str() {
                    "split" => {
                        "is accepted only where the argument's size is written as a sum \
                         `n + m` (a parameter's type, `sized`, `replicate`, `iota`, `:>`)"
                    }
                    "unflatten_4d" => "is not supported",
                    _ => {
                        "is accepted only where the argument's size is written as a product \
                         (`n * m`, `n * m * l`: a parameter's type, `sized`, `replicate`, \
                         `iota`, `:>`, `flatten_3d ys`)"
                    }
                };
                Err(d.with_note(format!(
                    "{how}; Futhark's newer form `{n} xs`, whose sizes come from the \
                     type, {newer}"
                )))
            }
            (_, result) => result,
        }
    }

    fn check_apply_head(&mut self, e: &'a Expr) -> Result<TExpr> {
        if let Some(r) = self.rep_sized(e) {
            return r;
        }
        let (head, args) = flatten_apply(e);
        match self.classify_head(head) {
            Head::Template(t) => {
                let sized = self.sizes_from_type(&t, &args);
                if let (None, "unflatten_3d", 4, [xs]) = (
                    &sized,
                    t.name.name.as_str(),
                    t.params.len(),
                    args.as_slice(),
                ) {
                    if let Some((3, ys)) = self.flattened(xs) {
                        return self.reflattened(ys, 3, 0, &e.span);
                    }
                }
                let args = sized.unwrap_or(args);
                self.note_args_of_call(&t, &args);
                let te = self.apply_template(t, Some(e), &e.span, &head.span, &args)?;
                // `i64.sum xs`: a reduction of the module's type.
                let reduction = self.qual_ref(head).and_then(|(path, name)| {
                    match self.resolve_qual(&path, &name) {
                        Ok(Target::Reduction(m, _)) => Some(m),
                        _ => None,
                    }
                });
                if let (Some(m), 1) = (reduction, args.len()) {
                    self.expect(&e.span, &Type::Scalar(m), &te.ty)?;
                }
                Ok(te)
            }
            Head::Builtin(b) => {
                let same = same_size_positions(b, args.len());
                for i in same.clone() {
                    let others = same.clone().filter(|&j| j != i).map(|j| args[j]).collect();
                    self.size_hints.insert(args[i] as *const Expr, others);
                }
                if let (Builtin::Unflatten, [xs]) = (b, args.as_slice()) {
                    if let Some(r) = self.unflatten_one(e, head, xs) {
                        return r;
                    }
                }
                let (args, targs) = match self.rep_args(b, &args) {
                    Some(r) => r?,
                    None => {
                        let targs = self.check_plain_args(&args)?;
                        (args, targs)
                    }
                };
                let ty = builtin_type(&mut self.inf, b);
                let name = match &head.kind {
                    ExprKind::Var { name, .. } => name.name.clone(),
                    _ => String::new(),
                };
                let head_te = self.node(TExprKind::Builtin(b), ty, &head.span);
                self.apply_generic(head_te, &e.span, &args, targs, Some((&name, 0)))
            }
            Head::Other => {
                let targs = self.check_plain_args(&args)?;
                let head_te = self.check_expr(head)?;
                self.apply_generic(head_te, &e.span, &args, targs, None)
            }
        }
    }
}
