//! Calls: the arguments walked in order, those given for unique
//! parameters (or unique components of a tuple parameter) consumed after
//! them, and the roots of the call's result, from a summary of which
//! parameters the callee's body may return (the callee walked once on its
//! own). In: a call of the checked program; out: its result's roots, and
//! the consumptions recorded in `Walk`.

use super::*;

impl Walk<'_> {
    /// What the result of instance `k` may alias: the parameters (by
    /// position) whose roots it may have, and its components that alias
    /// each other; its body walked once on its own, its errors dropped
    /// (the instance's own walk reports them).
    fn summary(&mut self, k: usize) -> Summary {
        if let Some(s) = self.summaries.get(&k) {
            return s.clone();
        }
        let Some(lam) = self.program.instances.get(k) else {
            return Summary::default();
        };
        // The prelude's `copy` and `manifest` are the identity only because
        // arrays have value semantics: as in Futhark, their results are fresh.
        let fresh_copy = matches!(lam.name.as_deref(), Some("copy" | "manifest"))
            && self.sources.name(lam.body.file) == "stdlib/prelude.arr";
        if fresh_copy || !self.summarising.insert(k) {
            return Summary::default();
        }
        let mut sub = Walk::new(self.sources, self.program, self.facts);
        sub.summaries = std::mem::take(&mut self.summaries);
        sub.summarising = std::mem::take(&mut self.summarising);
        lam.params.iter().for_each(|p| sub.bind_param(p));
        let parts = sub.expr_parts(&lam.body);
        let joint = sub.joint_of(&parts, |_| true);
        let roots = parts.into_iter().fold(Vec::new(), |a, (r, _)| union(a, r));
        let aliased = lam
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                let mut vars = Vec::new();
                pat_vars(p, &mut vars);
                vars.iter().any(|v| roots.contains(v))
            })
            .map(|(i, _)| i)
            .collect::<Vec<_>>();
        self.summaries = sub.summaries;
        self.summarising = sub.summarising;
        self.summarising.remove(&k);
        let summary = Summary { aliased, joint };
        self.summaries.insert(k, summary.clone());
        summary
    }

    /// A call: the arguments in order, then those passed to unique
    /// parameters consumed. Its result counts as fresh.
    pub(super) fn apply(&mut self, f: &TExpr, args: &[TExpr]) -> Roots {
        let mut callee_roots = Vec::new();
        let instance = match &f.kind {
            TExprKind::Instance(k) => Some(*k),
            _ => None,
        };
        let params: &[TPat] = match &f.kind {
            TExprKind::Instance(k) => match self.program.instances.get(*k) {
                Some(lam) => &lam.params,
                None => &[],
            },
            TExprKind::Lambda(lam) => &lam.params,
            _ => {
                self.expr(f);
                // A parameter of a function type written out: as in
                // Futhark, the result of calling it may alias anything it
                // captured, so it aliases the parameter (which is not
                // consumable), unless the type declares the result unique.
                if let TExprKind::Var(id) = f.kind {
                    let shared = self.shared_params.contains(&id);
                    if shared && self.facts.fn_uniqueness.get(&id).is_some_and(|u| !u.result) {
                        callee_roots = vec![id];
                    }
                }
                &[]
            }
        };
        let mut arg_roots: Vec<Roots> = Vec::new();
        let mut field_consumed: Vec<(usize, Roots)> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let before = self.consumptions;
            let parts = self.expr_parts(a);
            if self.consumptions > before && is_built_function(a) {
                self.consuming_function_argument(a);
            }
            if let Some(TPat::Var { id, name, .. }) = params.get(i).map(strip_ascription) {
                self.function_argument_uniqueness(*id, name, a);
            }
            if params.get(i).is_some_and(|p| is_unique(p, self.unique)) {
                self.unique_parts_apart(&parts);
            } else if let Some(flags) = params.get(i).and_then(|p| self.unique_fields(p)) {
                // `(ar: *[]t, a: *[][]t)`: a tuple written out for it gives
                // each unique component its own roots, consumed below.
                // The other components may not alias them either, as
                // Futhark checks the whole argument of a consuming tuple.
                if flags.len() == parts.len() {
                    self.unique_parts_apart(&parts);
                    let roots = parts
                        .iter()
                        .zip(&flags)
                        .filter(|(_, u)| **u)
                        .fold(Vec::new(), |acc, ((r, _), _)| union(acc, r.clone()));
                    field_consumed.push((i, roots));
                }
            }
            arg_roots.push(
                parts
                    .into_iter()
                    .fold(Vec::new(), |acc, (r, _)| union(acc, r)),
            );
        }
        // Rearrangements are views of their arguments, as in Futhark (whose
        // prelude gives them non-unique results): `transpose a` aliases `a`.
        if let TExprKind::Builtin(
            Builtin::Transpose
            | Builtin::Flatten
            | Builtin::Unflatten
            | Builtin::Reverse
            | Builtin::Rotate
            | Builtin::Zip(_)
            | Builtin::Unzip(_),
        ) = f.kind
        {
            return arg_roots.into_iter().fold(Vec::new(), union);
        }
        // A local function's body runs here, its parameters bound to the
        // arguments, before the call consumes them; its result aliases
        // what the body's does.
        let mut result = callee_roots;
        if let TExprKind::Lambda(lam) = &f.kind {
            for (p, roots) in lam.params.iter().zip(&arg_roots) {
                self.bind(p, roots);
            }
            result = self.lambda_body(f, lam);
        }
        // A function's result aliases the arguments its body may return.
        // One declared unique is fresh, as in Futhark.
        let unique_result = instance
            .and_then(|k| self.facts.unique_ret.get(&k))
            .is_some_and(|flags| flags.iter().all(|u| *u));
        // Not a constant given as an argument: the summary does not say
        // which component of a tuple result aliases what, and Futhark,
        // which knows, accepts `(f table x).0` where `.0` is fresh.
        if let Some(k) = instance.filter(|_| !unique_result) {
            let summary = self.summary(k);
            for &i in &summary.aliased {
                if let (Some(p), Some(roots)) = (params.get(i), arg_roots.get(i)) {
                    if !is_unique(p, self.unique) {
                        let roots = roots.iter().filter(|r| constant_of(**r).is_none());
                        result = union(result, roots.copied().collect());
                    }
                }
            }
            // Its components aliasing each other (`(a, a)`) share a root
            // of their own, whatever the arguments were.
            if let Some((joint, name)) = summary.joint {
                let r = self.joint_root(joint, name);
                result = union(result, vec![r]);
            }
        }
        let mut consumed: Vec<(usize, Roots)> = params
            .iter()
            .zip(args)
            .zip(&arg_roots)
            .enumerate()
            .filter(|(_, ((p, _), _))| is_unique(p, self.unique))
            .map(|(i, ((_, a), roots))| (i, self.precise(a, roots.clone())))
            .collect();
        consumed.extend(field_consumed);
        self.consumed_apart(args, &arg_roots, &consumed);
        for (i, roots) in consumed {
            self.consume(&roots, &args[i]);
        }
        result
    }

    /// A function given as an argument consumed something when it was
    /// built (`map (f a) xs`, `f` consuming `a`): as in Futhark, an error,
    /// since the callee may call it many times, consuming `a` each time.
    fn consuming_function_argument(&mut self, arg: &TExpr) {
        let inside = |c: &Consumed| {
            c.file == arg.file && arg.span.start <= c.span.start && c.span.end <= arg.span.end
        };
        let Some((&r, c)) = self.consumed.iter().find(|(_, c)| inside(c)) else {
            return;
        };
        let (name, span) = (self.name(r), c.span.clone());
        let mut d = Diagnostic::new(
            arg.file,
            arg.span.clone(),
            format!("an argument of function type consumes `{name}`, which is not allowed"),
        )
        .with_label("this function is called by the callee, maybe many times");
        if span != arg.span {
            d = d.with_secondary(span, format!("`{name}` is consumed here"));
        }
        self.errors.push(d.with_note(
            "each call would consume it again: write an anonymous function that passes a \
             `copy` (`\\i -> f (copy a) i`), so that every call consumes its own",
        ));
    }

    /// What function value `e` declares unique: its parameters, and its
    /// result where its type is written (`None`: inferred).
    fn function_uniqueness(&self, e: &TExpr) -> Option<(Vec<bool>, Option<bool>)> {
        match &e.kind {
            TExprKind::Instance(k) => {
                let lam = self.program.instances.get(*k)?;
                let params = lam
                    .params
                    .iter()
                    .map(|p| is_unique(p, self.unique))
                    .collect();
                let result = self.facts.unique_ret.get(k).map(|f| f.iter().all(|u| *u));
                Some((params, result.filter(|u| *u)))
            }
            TExprKind::Lambda(lam) => Some(self.lambda_uniqueness(e, lam)),
            TExprKind::Var(id) => match self.facts.fn_uniqueness.get(id) {
                Some(f) => Some((f.params.clone(), Some(f.result))),
                None => self.lambdas.get(id).cloned(),
            },
            _ => None,
        }
    }

    /// What anonymous function `e` declares unique.
    pub(super) fn lambda_uniqueness(&self, e: &TExpr, lam: &TLambda) -> (Vec<bool>, Option<bool>) {
        let params = lam
            .params
            .iter()
            .map(|p| is_unique(p, self.unique))
            .collect();
        let result = self
            .facts
            .lambda_unique_ret
            .get(&(e.file, e.span.clone()))
            .map(|f| f.iter().all(|u| *u));
        (params, result)
    }

    /// A function given for parameter `param` of a function type written
    /// out, as in Futhark: it may consume only what that type declares
    /// unique (else the callee could call it on what it must keep), and
    /// where the type declares its result unique, its own result must be
    /// declared unique too.
    fn function_argument_uniqueness(&mut self, param: LocalId, name: &str, arg: &TExpr) {
        let Some(expected) = self.facts.fn_uniqueness.get(&param) else {
            return;
        };
        let Some((consumes, result)) = self.function_uniqueness(arg) else {
            return;
        };
        let what = match &arg.kind {
            TExprKind::Var(id) => format!("`{}`", self.name(*id)),
            TExprKind::Instance(k) => {
                match self.program.instances.get(*k).and_then(|l| l.name.clone()) {
                    Some(n) => format!("`{n}`"),
                    None => "this function".into(),
                }
            }
            TExprKind::Lambda(lam) => match &lam.name {
                Some(n) => format!("`{n}`"),
                None => "this function".into(),
            },
            _ => "this function".into(),
        };
        let consumed = consumes
            .iter()
            .zip(&expected.params)
            .position(|(c, e)| *c && !*e);
        let (message, label, note) = if let Some(m) = consumed {
            (
                format!(
                    "{what} consumes its argument {}, but is given for `{name}`, whose type \
                     does not declare that parameter `*`",
                    m + 1
                ),
                "a consuming function",
                "the callee may call it on a value it still uses: declare the parameter's \
                 type `*` there, or give a function that consumes a `copy`",
            )
        } else if expected.result && result == Some(false) {
            (
                format!(
                    "{what} returns a value not declared unique, but is given for `{name}`, \
                     whose type declares its result `*`"
                ),
                "its result may alias what it captures",
                "the callee may update the result in place: declare the function's result \
                 `*` and return a fresh value (a `copy`)",
            )
        } else {
            return;
        };
        let d = Diagnostic::new(arg.file, arg.span.clone(), message).with_label(label);
        let d = self.with_place(d, param, format!("`{name}`'s type is written here"));
        self.errors.push(d.with_note(note));
    }

    /// An argument consumed by a call may not alias another argument of
    /// the same call (`f a a`, `f a b` where `b` aliases `a`), as in
    /// Futhark: the callee would see the memory it updates through the
    /// other one.
    fn consumed_apart(&mut self, args: &[TExpr], arg_roots: &[Roots], consumed: &[(usize, Roots)]) {
        for (i, roots) in consumed {
            for (j, other) in arg_roots.iter().enumerate() {
                let Some(&r) = roots.iter().find(|r| j != *i && other.contains(r)) else {
                    continue;
                };
                let (a, b) = (&args[*i], &args[j]);
                let name = self.name(r);
                let mut d = Diagnostic::new(
                    a.file,
                    a.span.clone(),
                    format!(
                        "an argument given for a unique parameter aliases `{name}`, which \
                         another argument of the same call also aliases"
                    ),
                )
                .with_label("consumed here");
                if b.file == a.file {
                    d = d.with_secondary(b.span.clone(), format!("also `{name}`, given here"));
                }
                self.errors.push(d.with_note(
                    "the callee may update its unique argument in place, under the other \
                     one: pass a `copy` of one of them",
                ));
                return;
            }
        }
    }
}

/// Whether `e` builds a function value by a call (a partial application,
/// `f a`) rather than writing one (`\x -> ...`, a name).
fn is_built_function(e: &TExpr) -> bool {
    matches!(e.ty, Type::Func(..)) && matches!(e.kind, TExprKind::Apply(..))
}

/// A parameter's pattern without its ascription.
fn strip_ascription(p: &TPat) -> &TPat {
    match p {
        TPat::Ascribed(q, _) => strip_ascription(q),
        _ => p,
    }
}
