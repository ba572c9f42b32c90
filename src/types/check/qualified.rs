//! Names: locals, globals in scope, and names inside modules (`f32.sqrt`,
//! `M.N.x`, `(i32.+)`), which the parser leaves as field accesses or
//! qualified variables because it cannot tell a module from a record.

use super::modules::lookup_module_path;
use super::*;
use crate::types::builtins::{builtin_type, scalar_member_names};
use crate::types::typed::Literal;

/// What a qualified name denotes.
pub(super) enum Target {
    Def(usize),
    /// A scalar module's function or constant.
    Member(ScalarType, Member),
    /// `i64.sum` ...: the standard library's reduction at the module's type.
    Reduction(ScalarType, usize),
    /// `i32.+`: the operator at the module's type.
    Op(ScalarType, BinOp),
}

/// The operator a symbol names.
pub(super) fn binop_of_symbol(s: &str) -> Option<BinOp> {
    use BinOp::*;
    Some(match s {
        "+" => Add,
        "-" => Sub,
        "*" => Mul,
        "/" => Div,
        "%" => Mod,
        "//" => Quot,
        "%%" => Rem,
        "**" => Pow,
        "==" => Eq,
        "!=" => Neq,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "&&" => LogAnd,
        "||" => LogOr,
        "&" => BitAnd,
        "|" => BitOr,
        "^" => BitXor,
        "<<" => Shl,
        ">>" => Shr,
        ">>>" => UShr,
        _ => return None,
    })
}

impl<'a> Checker<'a> {
    /// Whether `name` names a module here. A local variable shadows a
    /// module; a global value does not (values and modules are separate
    /// namespaces, and `outer.x` means the module's `x` even though the
    /// prelude defines a function `outer`).
    fn is_module_name(&self, name: &str) -> bool {
        if self.lookup_local(name).is_some() {
            return false;
        }
        let opened = self.ctx.opened.iter().any(|m| match m {
            ModValue::Env(e) => e.modules.contains_key(name),
            _ => false,
        });
        opened || self.ctx.env.modules.contains_key(name) || ScalarType::from_name(name).is_some()
    }

    /// `e` as a module path and a name, if it is one: `f32.sqrt`, or field
    /// accesses on a name that is a module and no value.
    pub(super) fn qual_ref(&self, e: &Expr) -> Option<(Vec<String>, String)> {
        match &e.kind {
            ExprKind::Var {
                qualifier: Some(q),
                name,
            } => Some((q.split('.').map(String::from).collect(), name.name.clone())),
            ExprKind::Field(inner, Field::Name(n)) => {
                let path = self.module_path(inner)?;
                Some((path, n.clone()))
            }
            _ => None,
        }
    }

    fn module_path(&self, e: &Expr) -> Option<Vec<String>> {
        match &e.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } if self.is_module_name(&name.name) => Some(vec![name.name.clone()]),
            ExprKind::Var {
                qualifier: Some(q),
                name,
            } => {
                let mut path: Vec<String> = q.split('.').map(String::from).collect();
                path.push(name.name.clone());
                Some(path)
            }
            ExprKind::Field(inner, Field::Name(n)) => {
                let mut path = self.module_path(inner)?;
                path.push(n.clone());
                Some(path)
            }
            _ => None,
        }
    }

    /// The module a path names, from the modules opened by `M.(e)` or the
    /// scope.
    pub(super) fn resolve_module(
        &self,
        path: &[String],
    ) -> std::result::Result<ModValue<'a>, String> {
        let idents: Vec<Ident> = path
            .iter()
            .map(|n| Ident {
                name: n.clone(),
                span: 0..0,
            })
            .collect();
        let refs: Vec<&Ident> = idents.iter().collect();
        for m in self.ctx.opened.iter().rev() {
            if let ModValue::Env(e) = m {
                if let Ok(v) = lookup_module_path(e, &refs) {
                    return Ok(v);
                }
            }
        }
        let forward = self.ctx.forward.as_ref().map(|f| f.borrow().clone());
        lookup_module_path(&self.ctx.env, &refs).or_else(|err| match &forward {
            Some(f) => lookup_module_path(f, &refs).map_err(|_| err),
            None => Err(err),
        })
    }

    pub(super) fn resolve_qual(
        &self,
        path: &[String],
        name: &str,
    ) -> std::result::Result<Target, String> {
        let shown = format!("{}.{name}", path.join("."));
        match self.resolve_module(path)? {
            ModValue::Env(e) => match e.values.get(name) {
                Some(ValRef::Def(d)) => Ok(Target::Def(*d)),
                Some(ValRef::Scalar(t)) => scalar_member(*t, name)
                    .map(|m| Target::Member(*t, m))
                    .ok_or_else(|| format!("unknown name `{shown}`")),
                None => Err(format!("unknown name `{shown}`")),
            },
            ModValue::Scalar(t) => {
                if let Some(m) = scalar_member(t, name) {
                    return Ok(Target::Member(t, m));
                }
                if let Some(d) = self.module_reduction(t, name) {
                    return Ok(Target::Reduction(t, d));
                }
                match binop_of_symbol(name) {
                    Some(op) => Ok(Target::Op(t, op)),
                    None => Err(format!("unknown name `{shown}`")),
                }
            }
            ModValue::Functor(_) => Err(format!(
                "`{}` is a parametric module: apply it to a module first",
                path.join(".")
            )),
        }
    }

    /// A qualified name as a value.
    fn check_qualified(
        &mut self,
        site: Option<&'a Expr>,
        path: &[String],
        name: &str,
        span: &Span,
    ) -> Result<TExpr> {
        let target = self.resolve_qual(path, name).map_err(|msg| {
            let diag = self.error(span, msg);
            match self.resolve_module(path) {
                Ok(ModValue::Scalar(t)) => {
                    let names = scalar_member_names(t);
                    match closest(name, names.iter().map(String::as_str)) {
                        Some(c) => {
                            diag.with_note(format!("did you mean `{}.{c}`?", path.join(".")))
                        }
                        None => diag,
                    }
                }
                _ => diag,
            }
        })?;
        match target {
            Target::Def(d) => {
                let template = self.defs[d].template.clone();
                self.apply_template(template, site, span, span, &[])
            }
            Target::Reduction(module, d) => {
                let template = self.defs[d].template.clone();
                let te = self.apply_template(template, site, span, span, &[])?;
                let elem = Type::Scalar(module);
                let want = Type::func(Type::array(elem.clone()), elem);
                self.expect(span, &want, &te.ty)?;
                Ok(te)
            }
            Target::Member(module, m) => Ok(self.member(module, m, span)),
            Target::Op(module, op) => {
                // The operator as a function on the module's type.
                let section = self.op_section(op, span, true)?;
                let t = Type::Scalar(module);
                let want = match op {
                    BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        Type::curried(vec![t.clone(), t], bool_ty())
                    }
                    _ => Type::curried(vec![t.clone(), t.clone()], t),
                };
                self.expect(span, &want, &section.ty)?;
                Ok(section)
            }
        }
    }

    fn member(&mut self, module: ScalarType, m: Member, span: &Span) -> TExpr {
        match m {
            Member::Func(b) => {
                let ty = builtin_type(&mut self.inf, b);
                self.node(TExprKind::Builtin(b), ty, span)
            }
            Member::Const(lit) => {
                let ty = match lit {
                    Literal::Const(c) => Type::Scalar(c.scalar_type()),
                    _ => Type::Scalar(module),
                };
                self.node(TExprKind::Literal(lit), ty, span)
            }
        }
    }

    /// A name (possibly qualified) used as a value.
    pub(super) fn check_var(
        &mut self,
        e: &'a Expr,
        qualifier: Option<&str>,
        name: &'a Ident,
    ) -> Result<TExpr> {
        let span = &e.span;
        if let Some(q) = qualifier {
            let path: Vec<String> = q.split('.').map(String::from).collect();
            return self.check_qualified(Some(e), &path, &name.name, span);
        }
        match self.classify_head(e) {
            Head::Template(t) => return self.apply_template(t, Some(e), span, span, &[]),
            Head::Builtin(b) => {
                let ty = builtin_type(&mut self.inf, b);
                return Ok(self.node(TExprKind::Builtin(b), ty, span));
            }
            Head::Other => {}
        }
        if let Some(Binding::Local { id, ty }) = self.lookup_local(&name.name) {
            let (id, ty) = (*id, ty.clone());
            return Ok(self.node(TExprKind::Var(id), ty, span));
        }
        if let Some(ValRef::Scalar(t)) = self.lookup_global(&name.name) {
            if let Some(m) = scalar_member(t, &name.name) {
                return Ok(self.member(t, m, span));
            }
        }
        if self.is_module_name(&name.name) {
            return Err(self.error(span, format!("`{}` is a module, not a value", name.name)));
        }
        Err(self.unknown_name(span, &name.name))
    }

    /// `M.x` written as a field access on a module name, if `x` is that.
    pub(super) fn qualified_field(&mut self, e: &'a Expr) -> Option<Result<TExpr>> {
        let (path, name) = self.qual_ref(e)?;
        Some(self.check_qualified(Some(e), &path, &name, &e.span))
    }
}
