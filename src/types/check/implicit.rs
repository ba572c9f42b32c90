//! Size parameters that no parameter's shape gives, found at each call as
//! Futhark's size unification finds them: only in the result type (`def mat
//! [m] [n] (v: t) : [m][n]t`), only in a function parameter's type (`f: a
//! -> [m]b`), or only inside a size expression (`[2 ** k]t`, `[inc n]t`).
//!
//! Sizes are not part of arrc's types, so the checker reads them off the
//! program text around the call: the written type the result must have
//! (`let a: [3][4]f32 = mat 1`, an ascription, a declared return type), an
//! array of the same size beside it (`zip xs (mat 1)`), the written size of
//! an argument matched term by term against the parameter's (`xs :> [2 **
//! k]t` against `[2 ** k]t`), the result size of a function argument
//! (`replicate 3`, `\x -> [x, x]`), the size of an argument given to the
//! function the call returns, or the written type of the parameter the
//! call's value is given for (`coerce plus_comm xs`, the other arguments
//! giving that function's sizes). An argument whose size is that of a
//! name a `let` inside it binds has the `let` bound before the call. Those
//! the body uses become the instance's first parameters (`i64`s) and every
//! call passes them; those it does not use need no value (the declared
//! sizes that mention them are checked where they are bound). A size nothing gives is a located error.

use super::unflatten::{Factor, Written};
use super::*;
use crate::types::builtins::builtin_type;

/// A size parameter that no parameter's shape gives and that the body uses.
#[derive(Clone, Debug)]
pub(super) struct Implicit {
    /// Its position among the definition's size parameters.
    pub index: usize,
    pub name: String,
}

/// A size known at a call: as the program writes it there, or a computed
/// value.
#[derive(Clone)]
enum Known<'a> {
    Written(Factor<'a>),
    Value(Box<TExpr>),
    /// `a + b` of two known sizes (`xs ++ ys`).
    Op(BinOp, Box<Known<'a>>, Box<Known<'a>>),
    /// A function of known sizes (`inc n`, a callee's result size with
    /// its size parameters replaced): the head as the callee writes it.
    Call(&'a Expr, Vec<Known<'a>>),
}

/// The implicit size parameters (positions `at` among `size_params`) that
/// `body` reads as values.
pub(super) fn used_in_body(
    size_params: &[(LocalId, String)],
    at: &[usize],
    body: &mut TExpr,
) -> Vec<Implicit> {
    let mut read = Vec::new();
    body.walk_mut(&mut |x| {
        if let TExprKind::Var(id) = x.kind {
            read.push(id);
        }
    });
    at.iter()
        .filter(|&&i| read.contains(&size_params[i].0))
        .map(|&i| Implicit {
            index: i,
            name: size_params[i].1.clone(),
        })
        .collect()
}

/// An instance's parameters with its implicit sizes first.
pub(super) fn prepend(
    implicit: &[Implicit],
    size_params: &[(LocalId, String)],
    params: &mut Vec<TPat>,
) {
    let sizes = implicit.iter().filter_map(|imp| {
        let (id, name) = size_params.get(imp.index)?;
        Some(TPat::Var {
            id: *id,
            name: name.clone(),
            ty: i64_ty(),
        })
    });
    let mut all: Vec<TPat> = sizes.collect();
    all.append(params);
    *params = all;
}

/// Whether a parameter pattern's written type mentions size `name`.
pub(super) fn pattern_mentions(p: &Pattern, name: &str) -> bool {
    match p {
        Pattern::Ascribed(q, t, _) => type_mentions(t, name) || pattern_mentions(q, name),
        Pattern::Tuple(ps, _) | Pattern::Constructor(_, ps, _) => {
            ps.iter().any(|q| pattern_mentions(q, name))
        }
        Pattern::Record(fs, _) => fs.iter().any(|(_, q)| pattern_mentions(q, name)),
        Pattern::Id(_) | Pattern::Wildcard(_) | Pattern::Literal(_) => false,
    }
}

/// Whether a written type mentions size `name` (in a dimension, a size
/// expression or a type abbreviation's size argument).
pub(super) fn type_mentions(t: &TypeExpr, name: &str) -> bool {
    match t {
        TypeExpr::Array(size, elem, _) => size_mentions(size, name) || type_mentions(elem, name),
        TypeExpr::Tuple(ts, _) => ts.iter().any(|t| type_mentions(t, name)),
        TypeExpr::Record(fs, _) => fs.iter().any(|(_, t)| type_mentions(t, name)),
        TypeExpr::Func(_, a, b, _) => type_mentions(a, name) || type_mentions(b, name),
        TypeExpr::Apply(_, args, _) => args.iter().any(|a| match a {
            TypeArg::Type(t) => type_mentions(t, name),
            TypeArg::Size(s) => size_mentions(s, name),
        }),
        TypeExpr::Unique(t, _) => type_mentions(t, name),
        TypeExpr::Sum(cs, _) => cs
            .iter()
            .flat_map(|(_, ts)| ts)
            .any(|t| type_mentions(t, name)),
        TypeExpr::Exists(bound, t, _) => {
            !bound.iter().any(|b| b.name == name) && type_mentions(t, name)
        }
        TypeExpr::Scalar(..) | TypeExpr::Named(_) | TypeExpr::Var(_) => false,
    }
}

fn size_mentions(s: &SizeExpr, name: &str) -> bool {
    match s {
        SizeExpr::Named(id) => id.name == name,
        SizeExpr::Expr(e) => expr_mentions(e, name),
        SizeExpr::Const(..) | SizeExpr::Any(_) => false,
    }
}

/// Whether a size expression names `name` (the forms sizes are written in).
fn expr_mentions(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Var {
            qualifier: None,
            name: n,
        } => n.name == name,
        ExprKind::BinOp(_, a, b) => expr_mentions(a, name) || expr_mentions(b, name),
        ExprKind::UnOp(_, x) => expr_mentions(x, name),
        ExprKind::Apply(f, args) => {
            expr_mentions(f, name) || args.iter().any(|a| expr_mentions(a, name))
        }
        _ => false,
    }
}

/// The dimensions of a written array type, outer first, as factors.
fn type_dims(t: &TypeExpr) -> Vec<Option<Factor<'_>>> {
    let mut out = Vec::new();
    let mut t = t;
    loop {
        match t {
            TypeExpr::Unique(x, _) => t = x,
            TypeExpr::Array(size, elem, _) => {
                out.push(match size {
                    SizeExpr::Expr(e) => Some(Factor::Expr(e)),
                    SizeExpr::Named(n) => Some(Factor::Name(n)),
                    SizeExpr::Const(c, span) => Some(Factor::Const(*c, span)),
                    SizeExpr::Any(_) => None,
                });
                t = elem;
            }
            _ => return out,
        }
    }
}

/// Whether the outer dimension of written array type `t` is a size
/// expression (`[n + m]t`) that mentions one of `wanted`.
fn outer_is_expr_of(t: &TypeExpr, wanted: &[&str]) -> bool {
    match t {
        TypeExpr::Unique(x, _) => outer_is_expr_of(x, wanted),
        TypeExpr::Array(SizeExpr::Expr(e), _, _) => wanted.iter().any(|w| expr_mentions(e, w)),
        _ => false,
    }
}

/// The result type of a written function type (`a -> b -> [n]c`: `[n]c`).
fn func_result(t: &TypeExpr) -> &TypeExpr {
    match t {
        TypeExpr::Func(_, _, b, _) => func_result(b),
        TypeExpr::Unique(x, _) => func_result(x),
        _ => t,
    }
}

impl<'a> Checker<'a> {
    /// The sizes of `implicit` at a call of `t` (`site` the call, `args`
    /// its arguments, the first of them checked in `targs`). An argument
    /// whose size must be computed is bound first: `lets` receives the
    /// binding, and `targs` its name.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn implicit_sizes(
        &mut self,
        t: &Template<'a>,
        implicit: &[Implicit],
        site: Option<&'a Expr>,
        at: &Span,
        args: &[&'a Expr],
        targs: &mut [Option<TExpr>],
        lets: &mut Vec<(TPat, TExpr)>,
    ) -> Result<Vec<TExpr>> {
        let wanted: Vec<&str> = implicit.iter().map(|i| i.name.as_str()).collect();
        let mut solved: Vec<Option<Known<'a>>> = vec![None; wanted.len()];
        // The parameters' written types against the arguments'.
        for (j, (p, arg)) in t.params.iter().zip(args).enumerate() {
            let Pattern::Ascribed(_, te, _) = p else {
                continue;
            };
            let mut known = match func_result(te) {
                r if std::ptr::eq(r, te) => self.known_dims(arg),
                _ => self.known_result_dims(arg),
            };
            if known.first().is_none_or(Option::is_none)
                && outer_is_expr_of(te, &wanted)
                && !solved.iter().all(Option::is_some)
            {
                if let Some(targ) = targs[j].take() {
                    let (targ, outer) = self.checked_outer(targ, lets, at)?;
                    targs[j] = Some(targ);
                    known = vec![Some(outer)];
                }
            }
            Self::match_dims(func_result(te), &known, &wanted, &mut solved);
        }
        // The declared result against the type the call's value must have,
        // or an array of the same size beside it.
        if let (Some(ret), Some(site)) = (t.ret, site) {
            if let Some(expected) = self.typed_results.get(&(site as *const Expr)).copied() {
                let known = type_dims(expected)
                    .into_iter()
                    .map(|f| f.map(Known::Written))
                    .collect::<Vec<_>>();
                Self::match_dims(ret, &known, &wanted, &mut solved);
            }
            let siblings = self.size_hints.get(&(site as *const Expr)).cloned();
            for sib in siblings.unwrap_or_default() {
                let mut known = self.known_dims(sib);
                if known.first().is_none_or(Option::is_none)
                    && matches!(sib.kind, ExprKind::Var { .. } | ExprKind::Field(..))
                {
                    let arr = self.check_expr(sib)?;
                    known = vec![Some(Known::Value(Box::new(self.length_of(arr, at)?)))];
                }
                Self::match_dims(ret, &known, &wanted, &mut solved);
            }
        }
        // The declared result against the written type of the parameter
        // the call's value is given for (`coerce plus_comm xs` with `coerce
        // (_: eq [n] [m]) (a: [n]t)` and `plus_comm : eq [a + b] [b + a]`),
        // that function's sizes found from its other arguments.
        if let (Some(ret), Some(site)) = (t.ret, site) {
            if let Some((outer, outer_args, j)) = self.arg_of_call.get(&(site as *const Expr)) {
                let (outer, outer_args, j) = (outer.clone(), outer_args.clone(), *j);
                if let Some(Pattern::Ascribed(_, expected, _)) = outer.params.get(j) {
                    let subst = self.outer_sizes(&outer, &outer_args, j);
                    Self::match_types(ret, expected, &subst, &wanted, &mut solved);
                }
            }
        }
        // The parameters of the function the call returns against the
        // arguments given to it.
        let mut ret = t.ret;
        for j in t.params.len()..args.len() {
            let Some(TypeExpr::Func(_, param, rest, _)) = ret else {
                break;
            };
            let mut known = self.known_dims(args[j]);
            if known.first().is_none_or(Option::is_none) {
                if let Some(arg) = targs[j].take() {
                    let arg = self.bound(arg, lets);
                    targs[j] = Some(arg.clone());
                    known = vec![Some(Known::Value(Box::new(self.length_of(arg, at)?)))];
                }
            }
            Self::match_dims(param, &known, &wanted, &mut solved);
            ret = Some(rest);
        }
        let mut sizes = Vec::new();
        for (imp, found) in implicit.iter().zip(solved) {
            let value = match found {
                Some(k) => self.known_value(k, at)?,
                None => None,
            };
            match value {
                Some(v) => sizes.push(v),
                None => {
                    return Err(self
                        .error(
                            at,
                            format!(
                                "cannot tell the size `{}` of `{}` at this use",
                                imp.name, t.name.name
                            ),
                        )
                        .with_note(format!(
                            "no parameter's shape gives `{}`; arrc finds such a size from \
                             the type written for the result (`let a: [n]t = ...`, `: [n]t`, \
                             a declared return type), an array of the same size beside it \
                             (`zip xs (...)`), an argument's size written the same way, or an \
                             argument of the function the call returns",
                            imp.name
                        )));
                }
            }
        }
        Ok(sizes)
    }

    /// Records the arguments of a call of global `t` that use a global
    /// definition themselves (`coerce plus_comm xs`): their implicit sizes
    /// may come from the parameter's written type.
    pub(super) fn note_args_of_call(&mut self, t: &Rc<Template<'a>>, args: &[&'a Expr]) {
        if t.def_index.is_none() {
            return;
        }
        let mut all = None;
        for (j, arg) in args.iter().enumerate() {
            let (head, _) = flatten_apply(arg);
            let global = matches!(&head.kind, ExprKind::Var { qualifier: None, name }
                if self.lookup_local(&name.name).is_none());
            if global && matches!(t.params.get(j), Some(Pattern::Ascribed(..))) {
                let all = all.get_or_insert_with(|| Rc::new(args.to_vec())).clone();
                self.arg_of_call
                    .insert(*arg as *const Expr, (t.clone(), all, j));
            }
        }
    }

    /// The size parameters of `outer` that its arguments other than the
    /// `j`th give, by name.
    fn outer_sizes(
        &self,
        outer: &Template<'a>,
        args: &[&'a Expr],
        j: usize,
    ) -> Vec<(&'a str, Known<'a>)> {
        let names: Vec<&'a str> = outer
            .type_params
            .iter()
            .filter_map(|p| match p {
                TypeParam::Size(n) => Some(n.name.as_str()),
                TypeParam::Type(_) => None,
            })
            .collect();
        let mut solved: Vec<Option<Known<'a>>> = vec![None; names.len()];
        for (i, (p, arg)) in outer.params.iter().zip(args).enumerate() {
            if let (true, Pattern::Ascribed(_, te, _)) = (i != j, p) {
                let mut known = self.known_dims(arg);
                if known.first().is_none_or(Option::is_none) {
                    known = vec![self.outer_known(arg)];
                }
                Self::match_dims(te, &known, &names, &mut solved);
            }
        }
        names
            .into_iter()
            .zip(solved)
            .filter_map(|(n, k)| Some((n, k?)))
            .collect()
    }

    /// Matches the sizes of written type `decl` (the callee's result) with
    /// those of `expected`, a written type whose size names stand for
    /// what `subst` gives them, solving the `wanted` names; type
    /// abbreviations match by their size arguments (`eq [a + b] [b + a]`
    /// against `eq [n] [m]`).
    fn match_types(
        decl: &'a TypeExpr,
        expected: &'a TypeExpr,
        subst: &[(&'a str, Known<'a>)],
        wanted: &[&str],
        solved: &mut [Option<Known<'a>>],
    ) {
        match (decl, expected) {
            (TypeExpr::Unique(d, _), _) => Self::match_types(d, expected, subst, wanted, solved),
            (_, TypeExpr::Unique(x, _)) => Self::match_types(decl, x, subst, wanted, solved),
            (TypeExpr::Array(s1, e1, _), TypeExpr::Array(s2, e2, _)) => {
                Self::match_size(s1, s2, subst, wanted, solved);
                Self::match_types(e1, e2, subst, wanted, solved);
            }
            (TypeExpr::Apply(n1, a1, _), TypeExpr::Apply(n2, a2, _))
                if n1.name.name == n2.name.name
                    && n1.quals.len() == n2.quals.len()
                    && n1
                        .quals
                        .iter()
                        .zip(&n2.quals)
                        .all(|(a, b)| a.name == b.name)
                    && a1.len() == a2.len() =>
            {
                for pair in a1.iter().zip(a2) {
                    match pair {
                        (TypeArg::Size(s1), TypeArg::Size(s2)) => {
                            Self::match_size(s1, s2, subst, wanted, solved)
                        }
                        (TypeArg::Type(t1), TypeArg::Type(t2)) => {
                            Self::match_types(t1, t2, subst, wanted, solved)
                        }
                        _ => {}
                    }
                }
            }
            (TypeExpr::Tuple(t1, _), TypeExpr::Tuple(t2, _)) if t1.len() == t2.len() => {
                for (a, b) in t1.iter().zip(t2) {
                    Self::match_types(a, b, subst, wanted, solved);
                }
            }
            _ => {}
        }
    }

    /// One size of the callee's result against one of the expected type.
    fn match_size(
        decl: &'a SizeExpr,
        expected: &'a SizeExpr,
        subst: &[(&'a str, Known<'a>)],
        wanted: &[&str],
        solved: &mut [Option<Known<'a>>],
    ) {
        let known = match expected {
            SizeExpr::Named(n) => subst
                .iter()
                .find(|(m, _)| *m == n.name)
                .map(|(_, k)| k.clone()),
            SizeExpr::Const(c, span) => Some(Known::Written(Factor::Const(*c, span))),
            SizeExpr::Expr(e) => Self::substituted(e, subst),
            SizeExpr::Any(_) => None,
        };
        let Some(k) = known else {
            return;
        };
        match decl {
            SizeExpr::Named(n) => Self::solve(&n.name, &k, wanted, solved),
            SizeExpr::Expr(e) => Self::match_expr(e, &k, wanted, solved),
            SizeExpr::Const(..) | SizeExpr::Any(_) => {}
        }
    }

    /// The `i64` a known size is, where it can be computed at the call.
    fn known_value(&mut self, k: Known<'a>, at: &Span) -> Result<Option<TExpr>> {
        Ok(match k {
            Known::Written(f) => Some(self.check_factor(f)?),
            Known::Value(v) => Some(*v),
            Known::Op(op, a, b) => {
                let (Some(a), Some(b)) = (self.known_value(*a, at)?, self.known_value(*b, at)?)
                else {
                    return Ok(None);
                };
                let kind = TExprKind::BinOp(op, Box::new(a), Box::new(b));
                Some(self.node(kind, i64_ty(), at))
            }
            Known::Call(..) => None,
        })
    }

    /// The outer size of a checked argument whose size the program text
    /// does not give, and the argument to pass in its place: a `let`
    /// around it is bound before the call, since the size may be that of
    /// a name it binds (`f (let ys = filter p xs in ys ++ xs)` against
    /// `[n + m]t`, as Futhark's unification finds it); `a ++ b` is the sum
    /// of its operands' sizes; anything else is bound and its length taken.
    fn checked_outer(
        &mut self,
        arg: TExpr,
        lets: &mut Vec<(TPat, TExpr)>,
        at: &Span,
    ) -> Result<(TExpr, Known<'a>)> {
        let TExpr {
            kind,
            ty,
            file,
            span,
        } = arg;
        match kind {
            TExprKind::Let(pat, rhs, body) => {
                lets.push((pat, *rhs));
                self.checked_outer(*body, lets, at)
            }
            TExprKind::BinOp(BinOp::Concat, a, b) => {
                let (a, ka) = self.checked_outer(*a, lets, at)?;
                let (b, kb) = self.checked_outer(*b, lets, at)?;
                let kind = TExprKind::BinOp(BinOp::Concat, Box::new(a), Box::new(b));
                let sum = Known::Op(BinOp::Add, Box::new(ka), Box::new(kb));
                Ok((
                    TExpr {
                        kind,
                        ty,
                        file,
                        span,
                    },
                    sum,
                ))
            }
            kind => {
                let arg = self.bound(
                    TExpr {
                        kind,
                        ty,
                        file,
                        span,
                    },
                    lets,
                );
                let len = self.length_of(arg.clone(), at)?;
                Ok((arg, Known::Value(Box::new(len))))
            }
        }
    }

    /// `arg`, or a name bound to it in `lets` when it is not one already.
    fn bound(&mut self, arg: TExpr, lets: &mut Vec<(TPat, TExpr)>) -> TExpr {
        if matches!(arg.kind, TExprKind::Var(_)) {
            return arg;
        }
        let id = self.fresh_local();
        let (ty, span) = (arg.ty.clone(), arg.span.clone());
        lets.push((
            TPat::Var {
                id,
                name: "arg".to_string(),
                ty: ty.clone(),
            },
            arg,
        ));
        self.node(TExprKind::Var(id), ty, &span)
    }

    /// `length arr`.
    pub(super) fn length_of(&mut self, arr: TExpr, span: &Span) -> Result<TExpr> {
        let len_ty = builtin_type(&mut self.inf, Builtin::Length);
        self.expect(span, &len_ty, &Type::func(arr.ty.clone(), i64_ty()))?;
        let head = self.node(TExprKind::Builtin(Builtin::Length), len_ty, span);
        Ok(self.node(TExprKind::Apply(Box::new(head), vec![arr]), i64_ty(), span))
    }

    /// The sizes of `e`'s value as the program writes them, outer first.
    fn known_dims(&self, e: &'a Expr) -> Vec<Option<Known<'a>>> {
        if let Some(t) = self.local_type_written(e) {
            return type_dims(t)
                .into_iter()
                .map(|f| f.map(Known::Written))
                .collect();
        }
        if let Some(k) = self.call_result_size(e) {
            return vec![Some(k)];
        }
        match (&e.kind, self.size_written(e)) {
            (_, Some(Written::Expr(x))) => vec![Some(Known::Written(Factor::Expr(x)))],
            (ExprKind::BinOp(BinOp::Concat, a, b), _) => {
                let (a, b) = (self.outer_known(a), self.outer_known(b));
                match (a, b) {
                    (Some(a), Some(b)) => {
                        vec![Some(Known::Op(BinOp::Add, Box::new(a), Box::new(b)))]
                    }
                    _ => Vec::new(),
                }
            }
            (ExprKind::ArrayLit(items), _) => {
                let mut out = vec![Some(Known::Written(Factor::Const(
                    items.len() as u64,
                    &e.span,
                )))];
                if let Some(first) = items.first() {
                    out.extend(self.known_dims(first));
                }
                out
            }
            _ => Vec::new(),
        }
    }

    /// The outer size of `e`: as written, or the length of a name.
    fn outer_known(&self, e: &'a Expr) -> Option<Known<'a>> {
        if let Some(Some(k)) = self.known_dims(e).into_iter().next() {
            return Some(k);
        }
        let ExprKind::Var {
            qualifier: None,
            name,
        } = &e.kind
        else {
            return None;
        };
        match self.lookup_local(&name.name) {
            Some(Binding::Local { id, ty }) if matches!(self.inf.shallow(ty), Type::Array(_)) => {
                let arr = self.node(TExprKind::Var(*id), ty.clone(), &e.span);
                let len = self.node(
                    TExprKind::Builtin(Builtin::Length),
                    Type::func(ty.clone(), i64_ty()),
                    &e.span,
                );
                let kind = TExprKind::Apply(Box::new(len), vec![arr]);
                Some(Known::Value(Box::new(self.node(kind, i64_ty(), &e.span))))
            }
            _ => None,
        }
    }

    /// The outer size of a call of a global function whose declared result
    /// writes it as an expression (`cons x xs : [inc n]t`), with the
    /// callee's size parameters and value parameters replaced by what the
    /// arguments give them.
    fn call_result_size(&self, e: &'a Expr) -> Option<Known<'a>> {
        let (head, args) = flatten_apply(e);
        let ExprKind::Var {
            qualifier: None,
            name,
        } = &head.kind
        else {
            return None;
        };
        if self.lookup_local(&name.name).is_some() {
            return None;
        }
        let t = self
            .defs
            .get(self.lookup_def(&name.name)?)?
            .template
            .clone();
        if args.len() != t.params.len() {
            return None;
        }
        let term = match t.ret? {
            TypeExpr::Array(SizeExpr::Expr(x), _, _) => &**x,
            TypeExpr::Unique(u, _) => match &**u {
                TypeExpr::Array(SizeExpr::Expr(x), _, _) => &**x,
                _ => return None,
            },
            _ => return None,
        };
        // What each of the callee's names stands for at this call.
        let mut subst: Vec<(&'a str, Known<'a>)> = Vec::new();
        for (p, arg) in t.params.iter().zip(&args) {
            match p {
                Pattern::Ascribed(q, te, _) => {
                    if let Pattern::Id(id) = &**q {
                        subst.push((&id.name, Known::Written(Factor::Expr(arg))));
                    }
                    let mut dims = self.known_dims(arg);
                    if dims.first().is_none_or(Option::is_none) {
                        dims = vec![self.outer_known(arg)];
                    }
                    let mut te = te;
                    let mut i = 0;
                    loop {
                        match te {
                            TypeExpr::Unique(x, _) => te = x,
                            TypeExpr::Array(size, elem, _) => {
                                if let (SizeExpr::Named(n), Some(Some(k))) = (size, dims.get(i)) {
                                    subst.push((&n.name, k.clone()));
                                }
                                i += 1;
                                te = elem;
                            }
                            _ => break,
                        }
                    }
                }
                Pattern::Id(id) => subst.push((&id.name, Known::Written(Factor::Expr(arg)))),
                _ => {}
            }
        }
        Self::substituted(term, &subst)
    }

    /// A callee's size term with its names replaced by `subst`.
    fn substituted(term: &'a Expr, subst: &[(&'a str, Known<'a>)]) -> Option<Known<'a>> {
        match &term.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } => subst
                .iter()
                .find(|(n, _)| *n == name.name)
                .map(|(_, k)| k.clone()),
            ExprKind::IntLit(..) => Some(Known::Written(Factor::Expr(term))),
            ExprKind::BinOp(op, a, b) => Some(Known::Op(
                *op,
                Box::new(Self::substituted(a, subst)?),
                Box::new(Self::substituted(b, subst)?),
            )),
            ExprKind::Apply(..) => {
                let (head, args) = flatten_apply(term);
                let args = args
                    .into_iter()
                    .map(|a| Self::substituted(a, subst))
                    .collect::<Option<Vec<_>>>()?;
                Some(Known::Call(head, args))
            }
            _ => None,
        }
    }

    /// The sizes of the result of the function `e`, outer first: a
    /// partial application of `replicate n`, or a lambda whose result type
    /// or array literal gives constants (its other names are its own).
    fn known_result_dims(&self, e: &'a Expr) -> Vec<Option<Known<'a>>> {
        match &e.kind {
            ExprKind::Lambda(_, ret, body) => {
                let dims = match ret {
                    Some(r) => type_dims(r)
                        .into_iter()
                        .map(|f| f.map(Known::Written))
                        .collect(),
                    None => self.known_dims(body),
                };
                dims.into_iter()
                    .map(|k| k.filter(|k| matches!(k, Known::Written(Factor::Const(..)))))
                    .collect()
            }
            _ => self.known_dims(e),
        }
    }

    /// Matches the dimensions of written type `decl` (the callee's) with
    /// the sizes `known` at the call, solving the `wanted` names.
    fn match_dims(
        decl: &'a TypeExpr,
        known: &[Option<Known<'a>>],
        wanted: &[&str],
        solved: &mut [Option<Known<'a>>],
    ) {
        let mut t = decl;
        let mut i = 0;
        loop {
            match t {
                TypeExpr::Unique(x, _) => t = x,
                TypeExpr::Array(size, elem, _) => {
                    if let Some(Some(k)) = known.get(i) {
                        match size {
                            SizeExpr::Named(n) => Self::solve(&n.name, k, wanted, solved),
                            SizeExpr::Expr(e) => Self::match_expr(e, k, wanted, solved),
                            SizeExpr::Const(..) | SizeExpr::Any(_) => {}
                        }
                    }
                    i += 1;
                    t = elem;
                }
                _ => return,
            }
        }
    }

    fn solve(name: &str, k: &Known<'a>, wanted: &[&str], solved: &mut [Option<Known<'a>>]) {
        if let Some(i) = wanted.iter().position(|w| *w == name) {
            if solved[i].is_none() {
                solved[i] = Some(k.clone());
            }
        }
    }

    /// Matches a size expression of the callee with one written at the
    /// call, term by term (`2 ** k` with `2 ** (i + 1)` gives `k = i + 1`;
    /// `inc n` with `inc m` gives `n = m`).
    fn match_expr(
        decl: &'a Expr,
        k: &Known<'a>,
        wanted: &[&str],
        solved: &mut [Option<Known<'a>>],
    ) {
        if let ExprKind::Var {
            qualifier: None,
            name,
        } = &decl.kind
        {
            return Self::solve(&name.name, k, wanted, solved);
        }
        let written = match k {
            Known::Written(Factor::Expr(written)) => written,
            Known::Op(o2, ka, kb) => {
                if let ExprKind::BinOp(o1, a, b) = &decl.kind {
                    if o1 == o2 {
                        Self::match_expr(a, ka, wanted, solved);
                        Self::match_expr(b, kb, wanted, solved);
                    }
                }
                return;
            }
            Known::Call(h2, kargs) => {
                let (h1, a1) = flatten_apply(decl);
                if same_name(h1, h2) && a1.len() == kargs.len() {
                    for (d, k) in a1.into_iter().zip(kargs) {
                        Self::match_expr(d, k, wanted, solved);
                    }
                }
                return;
            }
            _ => return,
        };
        let pairs: Vec<(&'a Expr, &'a Expr)> = match (&decl.kind, &written.kind) {
            (ExprKind::BinOp(o1, a1, b1), ExprKind::BinOp(o2, a2, b2)) if o1 == o2 => {
                vec![(&**a1, &**a2), (&**b1, &**b2)]
            }
            (ExprKind::UnOp(o1, x1), ExprKind::UnOp(o2, x2)) if o1 == o2 => vec![(&**x1, &**x2)],
            (ExprKind::Apply(..), ExprKind::Apply(..)) => {
                let (h1, a1) = flatten_apply(decl);
                let (h2, a2) = flatten_apply(written);
                if !same_name(h1, h2) || a1.len() != a2.len() {
                    return;
                }
                a1.into_iter().zip(a2).collect()
            }
            _ => return,
        };
        for (d, w) in pairs {
            Self::match_expr(d, &Known::Written(Factor::Expr(w)), wanted, solved);
        }
    }
}

/// Whether two heads of applications name the same function.
fn same_name(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (
            ExprKind::Var {
                qualifier: q1,
                name: n1,
            },
            ExprKind::Var {
                qualifier: q2,
                name: n2,
            },
        ) => q1 == q2 && n1.name == n2.name,
        _ => false,
    }
}
