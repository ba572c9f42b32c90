//! Definitions: schemes (each global checked once on its own), instances
//! (each checked once per distinct instantiation), entry points, and the
//! signatures and bodies of templates.

use super::*;
use crate::types::typed::Entry;

/// A type variable of a definition's signature as it is generalised.
#[derive(PartialEq, Eq, Hash)]
enum Open {
    Var(TyVar),
    Param(String),
}

impl<'a> Checker<'a> {
    /// The scheme of global definition `d`, computed on first use. `used_at`
    /// is where it is needed (a recursive use is reported there).
    pub(super) fn scheme(&mut self, d: usize, used_at: (FileId, Span)) -> Result<Rc<Scheme>> {
        match &self.defs[d].scheme {
            SchemeState::Done(s) => return Ok(s.clone()),
            SchemeState::Failed => return Err(reported()),
            SchemeState::Computing => {
                let pos = self.scheme_stack.iter().position(|&x| x == d).unwrap_or(0);
                let mut cycle: Vec<String> = self.scheme_stack[pos..]
                    .iter()
                    .map(|&x| format!("`{}`", self.defs[x].def.name.name))
                    .collect();
                cycle.push(format!("`{}`", self.defs[d].def.name.name));
                return Err(Diagnostic::new(
                    used_at.0,
                    used_at.1,
                    format!("recursive definition: {}", cycle.join(" -> ")),
                )
                .with_note("functions may not be recursive: every call is inlined"));
            }
            SchemeState::Todo => {}
        }
        self.defs[d].scheme = SchemeState::Computing;
        self.scheme_stack.push(d);
        self.stats.schemes += 1;
        // This may interrupt the check of another definition: keep its state.
        let pending = std::mem::take(&mut self.pending);
        let saved = self.swap_scope(self.ctx.clone(), PMap::new());
        let result = self.compute_scheme(d);
        self.swap_scope(saved.0, saved.1);
        self.pending = pending;
        self.scheme_stack.pop();
        match result {
            Ok(s) => {
                let s = Rc::new(s);
                self.defs[d].scheme = SchemeState::Done(s.clone());
                Ok(s)
            }
            Err(diag) => {
                self.defs[d].scheme = SchemeState::Failed;
                self.report(diag);
                Err(reported())
            }
        }
    }

    /// Checks `d` on its own (type parameters rigid) and generalises its
    /// signature. A definition with nothing to generalise is elaborated here
    /// as its one instance.
    fn compute_scheme(&mut self, d: usize) -> Result<Scheme> {
        let template = self.defs[d].template.clone();
        self.unbound_size = None;
        self.linear_size = None;
        let sig = self.instantiate_signature(&template, true)?;
        let unbound_size = self.unbound_size.take();
        if let (Some((file, span, msg)), true) = (&unbound_size, self.defs[d].def.is_entry) {
            let name = &self.defs[d].def.name.name;
            return Err(Diagnostic::new(
                *file,
                span.clone(),
                format!("entry point `{name}`: {msg}"),
            )
            .with_note(ENTRY_SIZES));
        }
        if let (Some((file, span, msg)), true) =
            (self.linear_size.take(), self.defs[d].def.is_entry)
        {
            return Err(Diagnostic::new(file, span, msg).with_note(
                "an entry point reads each size parameter from a dimension of an argument \
                 written as that name alone (`[k]t`)",
            ));
        }
        let (param_tys, ret) = (sig.param_tys.clone(), sig.ret.clone());
        let shapes = sig.params.iter().map(top_shape).collect();
        let implicit_at = sig.implicit.clone();
        let (size_params, mut params, mut body) = self.instantiate_body(&template, sig)?;
        self.finish_pending()?;
        let implicit = implicit::used_in_body(&size_params, &implicit_at, &mut body);
        // Generalise before the defaults of `finalize` fix what is open.
        let mut open = Vec::new();
        let params_g = param_tys
            .iter()
            .map(|t| self.generalise(t, &mut open))
            .collect();
        let ret_g = self.generalise(&ret, &mut open);
        let vars = open.into_iter().map(|(_, v)| v).collect::<Vec<TyVar>>();
        self.finalize_expr(&mut body)?;
        for p in &mut params {
            self.finalize_pat(p)?;
            self.irrefutable(p, template.ctx.file, &template.name.span)?;
        }
        let has_type_params = template
            .type_params
            .iter()
            .any(|p| matches!(p, TypeParam::Type(_)));
        if vars.is_empty() && !has_type_params {
            self.resolve_uses(&mut body)?;
            implicit::prepend(&implicit, &size_params, &mut params);
            let lam = TLambda {
                name: Some(template.name.name.clone()),
                size_params,
                params,
                body,
            };
            let id = self.instances.len();
            self.instances.push(Some(lam));
            self.note_unique_ret(d, id);
            self.instance_keys.insert((d, Vec::new()), Some(id));
            self.stats.instances += 1;
        }
        Ok(Scheme {
            vars,
            params: params_g,
            ret: ret_g,
            shapes,
            implicit,
        })
    }

    /// `t` with its open variables and rigid type parameters replaced by
    /// scheme variables (the same one for the same variable), which keep
    /// the scalar types an open variable allows.
    fn generalise(&mut self, t: &Type, open: &mut Vec<(Open, TyVar)>) -> Type {
        match self.inf.shallow(t) {
            // A variable known by its constructors is their sum type.
            Type::Var(v) if self.inf.has_ctors(&Type::Var(v)) => {
                let sum = self.inf.close_sum(&Type::Var(v)).unwrap_or(Type::Var(v));
                self.generalise(&sum, open)
            }
            Type::Var(v) => self.scheme_var(Open::Var(v), self.inf.allowed(v), open),
            Type::Param(name) => self.scheme_var(Open::Param(name), None, open),
            Type::Array(e) => Type::array(self.generalise(&e, open)),
            Type::Tuple(ts) => Type::Tuple(ts.iter().map(|t| self.generalise(t, open)).collect()),
            Type::Record(fs) => Type::Record(
                fs.iter()
                    .map(|(n, t)| (n.clone(), self.generalise(t, open)))
                    .collect(),
            ),
            Type::Func(a, b) => Type::func(self.generalise(&a, open), self.generalise(&b, open)),
            Type::Sum(cs) => Type::Sum(
                cs.iter()
                    .map(|(n, ts)| {
                        (
                            n.clone(),
                            ts.iter().map(|t| self.generalise(t, open)).collect(),
                        )
                    })
                    .collect(),
            ),
            s @ Type::Scalar(_) => s,
        }
    }

    fn scheme_var(&mut self, key: Open, mask: Option<Mask>, open: &mut Vec<(Open, TyVar)>) -> Type {
        if let Some((_, v)) = open.iter().find(|(k, _)| *k == key) {
            return Type::Var(*v);
        }
        let Type::Var(v) = self.inf.fresh_with(mask) else {
            unreachable!("fresh_with makes a variable")
        };
        open.push((key, v));
        Type::Var(v)
    }

    /// A scheme's variables replaced by `args` in `t`.
    fn substitute(vars: &[TyVar], args: &[Type], t: &Type) -> Type {
        match t {
            Type::Var(v) => match vars.iter().position(|x| x == v) {
                Some(i) => args[i].clone(),
                None => t.clone(),
            },
            Type::Array(e) => Type::array(Self::substitute(vars, args, e)),
            Type::Tuple(ts) => {
                Type::Tuple(ts.iter().map(|t| Self::substitute(vars, args, t)).collect())
            }
            Type::Record(fs) => Type::Record(
                fs.iter()
                    .map(|(n, t)| (n.clone(), Self::substitute(vars, args, t)))
                    .collect(),
            ),
            Type::Func(a, b) => Type::func(
                Self::substitute(vars, args, a),
                Self::substitute(vars, args, b),
            ),
            Type::Sum(cs) => Type::Sum(
                cs.iter()
                    .map(|(n, ts)| {
                        (
                            n.clone(),
                            ts.iter().map(|t| Self::substitute(vars, args, t)).collect(),
                        )
                    })
                    .collect(),
            ),
            Type::Scalar(_) | Type::Param(_) => t.clone(),
        }
    }

    /// Fresh variables for a scheme's, and its parameter and result types
    /// in terms of them.
    pub(super) fn instantiate_scheme(&mut self, s: &Scheme) -> (Vec<Type>, Vec<Type>, Type) {
        let args: Vec<Type> = s
            .vars
            .iter()
            .map(|v| self.inf.fresh_with(self.inf.allowed(*v)))
            .collect();
        let params = s
            .params
            .iter()
            .map(|t| Self::substitute(&s.vars, &args, t))
            .collect();
        let ret = Self::substitute(&s.vars, &args, &s.ret);
        (args, params, ret)
    }

    /// The instance of `d` where its scheme's variables are `args` (final
    /// types), elaborated on first request; `used_at` is the first use, which
    /// an error in the instance names.
    pub(super) fn instance(
        &mut self,
        d: usize,
        args: Vec<Type>,
        used_at: (FileId, Span),
    ) -> Result<usize> {
        let key = (d, args);
        if let Some(known) = self.instance_keys.get(&key) {
            return known.ok_or_else(reported);
        }
        let scheme = match &self.defs[d].scheme {
            SchemeState::Done(s) => s.clone(),
            _ => return Err(reported()),
        };
        self.stats.instances += 1;
        let pending = std::mem::take(&mut self.pending);
        let saved = self.swap_scope(self.ctx.clone(), PMap::new());
        let result = self.elaborate(d, &scheme, &key.1, &used_at);
        self.swap_scope(saved.0, saved.1);
        self.pending = pending;
        match result {
            Ok(lam) => {
                let id = self.instances.len();
                self.instances.push(Some(lam));
                self.note_unique_ret(d, id);
                self.instance_keys.insert(key, Some(id));
                Ok(id)
            }
            Err(diag) => {
                self.instance_keys.insert(key, None);
                self.report(diag);
                Err(reported())
            }
        }
    }

    fn elaborate(
        &mut self,
        d: usize,
        scheme: &Scheme,
        args: &[Type],
        used_at: &(FileId, Span),
    ) -> Result<TLambda> {
        let template = self.defs[d].template.clone();
        let sig = self.instantiate_signature(&template, false)?;
        let type_args = sig.type_args.clone();
        // The signature is at least as general as the scheme made from it.
        for (p, s) in sig.param_tys.iter().zip(&scheme.params) {
            let want = Self::substitute(&scheme.vars, args, s);
            self.inf.unify(p, &want).map_err(|_| reported())?;
        }
        let want = Self::substitute(&scheme.vars, args, &scheme.ret);
        self.inf.unify(&sig.ret, &want).map_err(|_| reported())?;
        let result = self.instantiate_body(&template, sig).and_then(
            |(size_params, mut params, mut body)| {
                self.finish_pending()?;
                self.finalize_expr(&mut body)?;
                for p in &mut params {
                    self.finalize_pat(p)?;
                }
                Ok((size_params, params, body))
            },
        );
        let (size_params, params, mut body) = result.map_err(|diag| {
            if is_reported(&diag) || diag.message.starts_with("recursive") {
                return diag;
            }
            let shown: Vec<String> = type_args
                .iter()
                .map(|(n, ty)| format!("'{n} = `{}`", self.inf.display(ty)))
                .collect();
            let with = if shown.is_empty() {
                String::new()
            } else {
                format!(" with {}", shown.join(", "))
            };
            diag.with_note(format!(
                "in the instantiation of `{}`{with} used at {}",
                template.name.name,
                self.loc_text(used_at.0, &used_at.1)
            ))
        })?;
        self.resolve_uses(&mut body)?;
        let mut params = params;
        self.same_sizes_for_type_param(&template, &type_args, &mut params);
        implicit::prepend(&scheme.implicit, &size_params, &mut params);
        Ok(TLambda {
            name: Some(template.name.name.clone()),
            size_params,
            params,
            body,
        })
    }

    /// Parameters written as one type parameter (`(x: t) (y: t)`) hold
    /// values of one type, so where `t` is an array type their arguments
    /// must have the same sizes, as in Futhark: each dimension becomes a
    /// size that the first such argument gives and the others are checked
    /// against at the call (`size mismatch`).
    fn same_sizes_for_type_param(
        &mut self,
        template: &Template<'a>,
        type_args: &[(String, Type)],
        params: &mut [TPat],
    ) {
        for (name, ty) in type_args {
            let mut rank = 0;
            let mut t = self.inf.finalize(ty);
            while let Type::Array(elem) = t {
                rank += 1;
                t = *elem;
            }
            let written: Vec<usize> = template
                .params
                .iter()
                .enumerate()
                .filter(|(_, p)| match p {
                    Pattern::Ascribed(_, TypeExpr::Var(v), _) => v.name == *name,
                    Pattern::Ascribed(_, TypeExpr::Named(q), _) => {
                        q.quals.is_empty() && q.name.name == *name
                    }
                    _ => false,
                })
                .map(|(i, _)| i)
                .collect();
            if rank == 0 || written.len() < 2 || written.iter().any(|&i| i >= params.len()) {
                continue;
            }
            let shape = (0..rank).fold(Shape::Other, |inner, _| {
                Shape::Array(Dim::Var(self.fresh_local()), Box::new(inner))
            });
            for i in written {
                if !matches!(params[i], TPat::Ascribed(..)) {
                    let p = std::mem::replace(&mut params[i], TPat::Wildcard(Type::unit()));
                    params[i] = TPat::Ascribed(Box::new(p), shape.clone());
                }
            }
        }
    }

    /// Replaces every use of a global definition in a finalised tree by its
    /// instance, elaborating those not yet made.
    pub(super) fn resolve_uses(&mut self, e: &mut TExpr) -> Result<()> {
        let mut result = Ok(());
        e.walk_mut(&mut |x| {
            if result.is_err() {
                return;
            }
            if let TExprKind::DefUse { def, vars } = &mut x.kind {
                let (def, vars) = (*def, std::mem::take(vars));
                match self.instance(def, vars, (x.file, x.span.clone())) {
                    Ok(id) => x.kind = TExprKind::Instance(id),
                    Err(diag) => result = Err(diag),
                }
            }
        });
        result
    }

    pub(super) fn check_entry(&mut self, d: usize) -> Result<Entry> {
        let template = self.defs[d].template.clone();
        let def = self.defs[d].def;
        self.ctx = template.ctx.clone();
        if let Some(TypeParam::Type(id)) = def
            .type_params
            .iter()
            .find(|p| matches!(p, TypeParam::Type(_)))
        {
            return Err(self.error(
                &id.span,
                format!(
                    "entry point `{}` cannot have type parameters",
                    def.name.name
                ),
            ));
        }
        self.pending.clear();
        let sig = self.instantiate_signature(&template, false)?;
        if let Some(&i) = sig.implicit.first() {
            let name = &sig.size_params[i].1;
            return Err(self
                .error(
                    &def.name.span,
                    format!(
                        "entry point `{}`: size parameter `{name}` is not used in the type \
                         of any parameter",
                        def.name.name
                    ),
                )
                .with_note(ENTRY_SIZES));
        }
        let ret = sig.ret.clone();
        let (size_params, mut params, mut body) = self.instantiate_body(&template, sig)?;
        self.finish_pending()?;
        self.finalize_expr(&mut body)?;
        for p in &mut params {
            self.finalize_pat(p)?;
            self.irrefutable(p, template.ctx.file, &template.name.span)?;
        }
        let mut ret = self.inf.finalize(&ret);
        let declared = declared_params(def.ret.as_ref());
        self.eta_expand(&mut params, &mut ret, &mut body, &declared);
        let first_order =
            "entry points take and return only scalars, arrays of scalars, and tuples of those";
        // A type without functions that is not first-order is an opaque
        // value: a library takes it, an executable reports `opaque`.
        let mut opaque = None;
        for (p, pat) in def.params.iter().zip(&params) {
            if !pat.ty().is_first_order_entry_type() {
                let diag = self
                    .error(
                        &p.span(),
                        format!(
                            "entry point `{}` has a parameter of non-first-order type `{}`",
                            def.name.name,
                            pat.ty()
                        ),
                    )
                    .with_note(first_order);
                if pat.ty().contains_func() {
                    return Err(diag);
                }
                opaque.get_or_insert(diag);
            }
        }
        if !ret.is_first_order_entry_type() {
            let span = def.ret.as_ref().map_or(def.name.span.clone(), |t| t.span());
            let diag = self
                .error(
                    &span,
                    format!(
                        "entry point `{}` returns non-first-order type `{ret}`",
                        def.name.name
                    ),
                )
                .with_note(first_order);
            if ret.contains_func() {
                return Err(diag);
            }
            opaque.get_or_insert(diag);
        }
        let mut param_type_names: Vec<Option<String>> = def
            .params
            .iter()
            .map(|p| match p {
                Pattern::Ascribed(_, t, _) => written_type_name(t),
                _ => None,
            })
            .collect();
        param_type_names.resize(params.len(), None);
        let ret_type_names = match (&ret, &def.ret) {
            (Type::Tuple(ts), Some(TypeExpr::Tuple(written, _))) if ts.len() == written.len() => {
                written.iter().map(written_type_name).collect()
            }
            (Type::Tuple(ts), _) => vec![None; ts.len()],
            (_, written) => vec![written.as_ref().and_then(written_type_name)],
        };
        self.resolve_uses(&mut body)?;
        Ok(Entry {
            name: def.name.name.clone(),
            file: self.defs[d].file,
            span: def.span.clone(),
            size_params,
            params,
            ret,
            body,
            param_type_names,
            ret_type_names,
            opaque,
        })
    }

    /// Records which parts of instance `id`'s result `d` declares unique.
    fn note_unique_ret(&mut self, d: usize, id: usize) {
        let def = self.defs[d].def;
        let flags = unique_ret(def.ret.as_ref());
        if flags.iter().any(|u| *u) {
            self.unique_ret.insert(id, flags);
            // Every use of a constant shares one value: none may own it.
            if let (true, Some(ret)) = (def.params.is_empty(), &def.ret) {
                let file = self.defs[d].file;
                let name = &def.name;
                let d = Diagnostic::new(
                    file,
                    ret.span(),
                    format!(
                        "the top-level constant `{}` cannot have a unique type",
                        name.name
                    ),
                )
                .with_label("declared unique here")
                .with_secondary(name.span.clone(), "a constant: no parameters")
                .with_note("every use of a constant shares its memory: drop the `*`");
                self.report(d);
            }
        }
    }

    /// A point-free entry point (`def main = map f32.atanh`) takes the
    /// parameters of the function it returns, as long as they are
    /// first-order: its body is applied to them. Each is unique unless
    /// the declared type (`declared`, per parameter) writes it without
    /// `*` (`entry g : []f32 -> f32 = f`), as Futhark reads it: then a
    /// body consuming it is an error.
    fn eta_expand(
        &mut self,
        params: &mut Vec<TPat>,
        ret: &mut Type,
        body: &mut TExpr,
        declared: &[(bool, Span)],
    ) {
        let mut args = Vec::new();
        while let Type::Func(a, b) = ret {
            if !a.is_first_order_entry_type() {
                break;
            }
            let id = self.fresh_local();
            // Without a declared type, the function's own parameter says
            // whether it is consumed: the entry point's argument is the
            // caller's to give.
            match declared.get(args.len()) {
                Some((false, span)) => drop(self.bound.insert(id, (body.file, span.clone()))),
                _ => drop(self.unique.insert(id)),
            }
            let name = format!("arg{}", params.len());
            let arg = TExpr {
                kind: TExprKind::Var(id),
                ty: (**a).clone(),
                file: body.file,
                span: body.span.clone(),
            };
            args.push(arg);
            params.push(TPat::Var {
                id,
                name,
                ty: (**a).clone(),
            });
            *ret = (**b).clone();
        }
        if !args.is_empty() {
            let (file, span) = (body.file, body.span.clone());
            let inner = std::mem::replace(body, unreachable_instance().body);
            *body = TExpr {
                kind: TExprKind::Apply(Box::new(inner), args),
                ty: ret.clone(),
                file,
                span,
            };
        }
    }

    /// Instantiates a template's type and size parameters and checks its
    /// parameter patterns and return type, in the template's own scope.
    pub(super) fn instantiate_signature(
        &mut self,
        t: &Rc<Template<'a>>,
        rigid: bool,
    ) -> Result<Signature<'a>> {
        let locals = t.scope.clone().unwrap_or_default();
        let saved = self.swap_scope(t.ctx.clone(), locals);
        let result = self.signature_in_scope(t, rigid);
        let (ctx, locals) = self.swap_scope(saved.0, saved.1);
        let (type_args, size_params, params, param_tys, (ret, ret_shape), implicit) = result?;
        Ok(Signature {
            ctx,
            locals,
            type_args,
            size_params,
            params,
            param_tys,
            ret,
            ret_shape,
            implicit,
        })
    }

    #[allow(clippy::type_complexity)]
    fn signature_in_scope(
        &mut self,
        t: &Template<'a>,
        rigid: bool,
    ) -> Result<(
        Vec<(String, Type)>,
        Vec<(LocalId, String)>,
        Vec<TPat>,
        Vec<Type>,
        (Type, Shape),
        Vec<usize>,
    )> {
        let mut type_args = Vec::new();
        let mut size_params = Vec::new();
        let mut size_spans = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for tp in t.type_params {
            let id = match tp {
                TypeParam::Type(id) | TypeParam::Size(id) => id,
            };
            if seen.contains(&id.name.as_str()) {
                return Err(self.error(&id.span, format!("duplicate parameter `{}`", id.name)));
            }
            seen.push(&id.name);
            match tp {
                TypeParam::Type(id) => {
                    let ty = if rigid {
                        Type::Param(id.name.clone())
                    } else {
                        self.inf.fresh()
                    };
                    self.ctx.type_params.push((id.name.clone(), ty.clone()));
                    type_args.push((id.name.clone(), ty));
                }
                TypeParam::Size(id) => {
                    let lid = self.fresh_local();
                    self.bind_local(
                        id.name.clone(),
                        Binding::Local {
                            id: lid,
                            ty: i64_ty(),
                        },
                    );
                    size_params.push((lid, id.name.clone()));
                    size_spans.push(id.span.clone());
                }
            }
        }
        let mut params = Vec::new();
        let mut param_tys = Vec::new();
        let mut names: Vec<(String, Span)> = Vec::new();
        for p in t.params {
            let mut binds = Vec::new();
            let pat = self.check_pattern(p, None, &mut binds)?;
            self.note_size(p, None, &binds);
            for (name, span, id, ty) in binds {
                if names.iter().any(|(n, _)| *n == name) {
                    return Err(self.error(&span, format!("duplicate parameter `{name}`")));
                }
                names.push((name.clone(), span));
                self.bind_local(name, Binding::Local { id, ty });
            }
            param_tys.push(pat.ty().clone());
            params.push(pat);
        }
        let ret = match t.ret {
            Some(te) => self.resolve_type(te)?,
            None => (self.inf.fresh(), Shape::Other),
        };
        let (mut used, mut solvable) = (Vec::new(), Vec::new());
        for p in &params {
            pat_size_vars(p, false, &mut used);
            pat_size_vars(p, true, &mut solvable);
        }
        let mut implicit = Vec::new();
        for (i, ((lid, name), span)) in size_params.iter().zip(&size_spans).enumerate() {
            if !used.contains(lid) && solvable.contains(lid) && !t.params.is_empty() {
                // `[2 * k]t`: each call solves `k` from the argument's size,
                // which an entry point's caller cannot.
                let msg = format!(
                    "size parameter `{name}` of an entry point is used only inside a size \
                     expression"
                );
                let file = self.ctx.file;
                self.linear_size.get_or_insert((file, span.clone(), msg));
                continue;
            }
            if used.contains(lid) {
                continue;
            }
            let msg = format!("size parameter `{name}` is not used in the type of any parameter");
            // A size the written types mention (the result's, a function
            // parameter's, a size expression) is found at each call of a
            // global (implicit.rs); one they do not mention has none to
            // give it (Futhark: a size-polymorphic value binding).
            let mentioned = t.params.iter().any(|p| implicit::pattern_mentions(p, name))
                || t.ret.is_some_and(|r| implicit::type_mentions(r, name));
            if !mentioned && t.params.is_empty() {
                return Err(self.error(
                    span,
                    format!(
                        "size-polymorphic value binding `{}`: size parameter `{name}` is not \
                         used in its type",
                        t.name.name
                    ),
                ));
            }
            // Without a declared return type, the inferred one may give it
            // (`def resize [n] [m] (g: gen [n]) = {size = witness m, ...}`).
            let inferred = t.ret.is_none() && !t.params.is_empty();
            if !(mentioned || inferred) || (!rigid && t.def_index.is_none()) {
                return Err(self.error(span, msg));
            }
            let file = self.ctx.file;
            self.unbound_size.get_or_insert((file, span.clone(), msg));
            implicit.push(i);
        }
        Ok((type_args, size_params, params, param_tys, ret, implicit))
    }

    /// Checks a template's body in its instantiated scope.
    pub(super) fn instantiate_body(
        &mut self,
        t: &Rc<Template<'a>>,
        sig: Signature<'a>,
    ) -> Result<Elaborated> {
        let ret = sig.ret.clone();
        let ret_shape = sig.ret_shape.clone();
        let saved = self.swap_scope(sig.ctx.clone(), sig.locals);
        if let Some(rt) = t.ret {
            self.note_typed(t.body, rt);
        }
        let result = self.check_expr(t.body).and_then(|body| {
            self.expect(&body.span, &ret, &body.ty)
                .map_err(|d| sized_builtin_value(t.body, d))?;
            self.process_pending()?;
            if ret_shape.is_trivial() {
                return Ok(body);
            }
            // Declared result sizes: proved here for literals, else checked
            // at run time.
            self.static_sizes(&ret_shape, &body, &mut Vec::new())?;
            let (ty, span) = (body.ty.clone(), body.span.clone());
            Ok(self.node(TExprKind::Ascribe(Box::new(body), ret_shape), ty, &span))
        });
        self.swap_scope(saved.0, saved.1);
        Ok((sig.size_params, sig.params, result?))
    }
}

const ENTRY_SIZES: &str = "an entry point's caller gives every size through an argument's shape";

/// The sizes a parameter pattern declares at its top.
pub(super) fn top_shape(p: &TPat) -> Shape {
    match p {
        TPat::Ascribed(_, shape) => shape.clone(),
        _ => Shape::Other,
    }
}

/// The name a written type gives a library's opaque type: the abbreviation
/// it names (`M.point` as `M_point`), and `arr_NAME_Nd` for an array of one.
fn written_type_name(t: &TypeExpr) -> Option<String> {
    match t {
        TypeExpr::Named(q) | TypeExpr::Apply(q, _, _) => Some(
            q.quals
                .iter()
                .chain(std::iter::once(&q.name))
                .map(|i| i.name.as_str())
                .collect::<Vec<_>>()
                .join("_"),
        ),
        TypeExpr::Unique(t, _) => written_type_name(t),
        TypeExpr::Array(..) => {
            let (mut inner, mut rank) = (t, 0);
            while let TypeExpr::Array(_, e, _) | TypeExpr::Unique(e, _) = inner {
                rank += usize::from(matches!(inner, TypeExpr::Array(..)));
                inner = e;
            }
            written_type_name(inner).map(|n| format!("arr_{n}_{rank}d"))
        }
        _ => None,
    }
}

/// Explains a mismatch on a body that is `unflatten` (or another built-in
/// whose sizes Futhark's newer signature reads off the array) passed as a
/// function value: arrc's takes the sizes as arguments, and reads them off
/// the array only in an application (the parser eta-expands a body whose
/// declared type is written as a function, syntax::build::def_decl).
fn sized_builtin_value(body: &Expr, d: Diagnostic) -> Diagnostic {
    let ExprKind::Var { name, .. } = &body.kind else {
        return d;
    };
    let n = name.name.as_str();
    let how = match n {
        "unflatten" => "\\xs -> unflatten n m xs",
        "unflatten_3d" => "\\xs -> unflatten_3d n m l xs",
        "unflatten_4d" => "\\xs -> unflatten_4d n m l k xs",
        "split" => "\\xs -> split i xs",
        _ => return d,
    };
    if !d.message.starts_with("type mismatch") {
        return d;
    }
    d.with_note(format!(
        "arrc's `{n}` takes its sizes as arguments; Futhark's newer `{n} xs`, whose sizes \
         come from the type, must be applied to its array, or be a definition's whole body \
         where the declared type is written out as a function (`: [n * m]t -> [n][m]t`), \
         not an abbreviation: write `{how}` with the sizes"
    ))
}

/// For each parameter of the function type a definition's declared result
/// is written as (`: []f32 -> f32`), whether it is written unique, and
/// where.
fn declared_params(ret: Option<&TypeExpr>) -> Vec<(bool, Span)> {
    let mut out = Vec::new();
    let mut t = ret;
    while let Some(TypeExpr::Func(_, a, b, _)) = t {
        out.push((matches!(**a, TypeExpr::Unique(..)), a.span()));
        t = Some(b);
    }
    out
}
