//! The checker proper: parsed programs in, a `CheckedProgram` out.
//!
//! Inference is unification over a whole entry point. A `def` (or local
//! function) is a template: every use checks a fresh copy of its body against
//! the argument types, which both instantiates polymorphism (operators on a
//! type parameter are valid where the instantiated type supports them) and
//! inlines the call. Each definition is also checked once on its own, with
//! rigid type parameters, so errors in unused code are reported too.
//!
//! Arguments that are not functions are checked before function arguments,
//! so a lambda's parameter types flow from the arrays a SOAC is applied to;
//! field accesses on a still unknown type wait until the type is known.

use super::builtins::{
    array_builtin, builtin_type, scalar_member, scalar_member_names, type_member, Member,
    ARRAY_BUILTINS,
};
use super::infer::{Infer, Mask, INT, NUM, SCALAR};
use super::scalar::ScalarType;
use super::ty::{Dim, LocalId, Shape, Type};
use super::typed::{
    Builtin, CheckedProgram, Entry, Literal, ScalarFn, TExpr, TExprKind, TLambda, TLoopForm, TPat,
    TSlice,
};
use crate::syntax::ast::{
    self, BinOp, Decl, Def, Expr, ExprKind, Field, FileId, Ident, IndexArg, Pattern, SizeExpr,
    Span, TypeExpr, TypeParam, UnOp,
};
use crate::syntax::{Diagnostic, SourceMap};
use std::collections::HashMap;
use std::rc::Rc;

type Result<T> = std::result::Result<T, Diagnostic>;

/// A template's size parameters, parameters and body, checked at one use.
type Elaborated = (Vec<(LocalId, String)>, Vec<TPat>, TExpr);

/// Type-checks `programs` (dependencies first, the main file last) and
/// elaborates the entry points of the main file.
pub fn check(
    sources: &SourceMap,
    programs: &[ast::Program],
) -> std::result::Result<CheckedProgram, Vec<Diagnostic>> {
    let mut checker = Checker::new(sources);
    let mut errors = checker.collect(programs);
    let main = programs.len().saturating_sub(1);
    let mut entries = Vec::new();
    for d in 0..checker.defs.len() {
        let info = &checker.defs[d];
        // As in Futhark, a top-level `def main` is an entry point too.
        let is_entry = info.def.is_entry || info.def.name.name == "main";
        let result = if is_entry && info.program == main {
            checker.check_entry(d).map(|e| entries.push(e))
        } else {
            checker.check_standalone(d)
        };
        if let Err(diag) = result {
            errors.push(diag);
        }
    }
    if errors.is_empty() {
        Ok(CheckedProgram { entries })
    } else {
        // The same mistake can surface in a definition and in its uses.
        let mut seen = Vec::new();
        errors.retain(|d| {
            let key = (d.file, d.span.clone(), d.message.clone());
            let new = !seen.contains(&key);
            seen.push(key);
            new
        });
        Err(errors)
    }
}

struct GlobalDef<'a> {
    def: &'a Def,
    program: usize,
    file: FileId,
    template: Rc<Template<'a>>,
}

struct GlobalType<'a> {
    decl: &'a ast::TypeDecl,
    program: usize,
    file: FileId,
}

/// Where code is being checked: the file, which programs' names are visible,
/// and the type parameters in scope.
#[derive(Clone)]
struct Ctx {
    file: FileId,
    program: usize,
    type_params: Vec<(String, Type)>,
    /// Size parameters of a type abbreviation: they check nothing.
    size_wildcards: Vec<String>,
}

#[derive(Clone)]
enum Binding<'a> {
    Local { id: LocalId, ty: Type },
    Fun(Rc<Template<'a>>),
}

/// A function definition, global or local, instantiated at each use.
struct Template<'a> {
    name: &'a Ident,
    type_params: &'a [TypeParam],
    params: &'a [Pattern],
    ret: Option<&'a TypeExpr>,
    body: &'a Expr,
    ctx: Ctx,
    /// For a local function: the number of locals in scope at its definition.
    scope_len: Option<usize>,
    /// For a global: its index, to detect recursion.
    def_index: Option<usize>,
}

/// A template's signature, instantiated, before its body is checked.
struct Instance<'a> {
    ctx: Ctx,
    locals: Vec<(String, Binding<'a>)>,
    type_args: Vec<(String, Type)>,
    size_params: Vec<(LocalId, String)>,
    params: Vec<TPat>,
    param_tys: Vec<Type>,
    ret: Type,
    /// The sizes the return type declares (checked on the body).
    ret_shape: Shape,
}

struct Pending {
    ty: Type,
    field: Field,
    result: Type,
    file: FileId,
    span: Span,
}

enum Head<'a> {
    Template(Rc<Template<'a>>),
    Builtin(Builtin),
    Other,
}

struct Checker<'a> {
    sources: &'a SourceMap,
    defs: Vec<GlobalDef<'a>>,
    def_names: HashMap<&'a str, Vec<usize>>,
    types: Vec<GlobalType<'a>>,
    type_names: HashMap<&'a str, Vec<usize>>,
    inf: Infer,
    ctx: Ctx,
    locals: Vec<(String, Binding<'a>)>,
    next_local: u32,
    inst_stack: Vec<usize>,
    abbrev_stack: Vec<usize>,
    pending: Vec<Pending>,
}

fn i64_ty() -> Type {
    Type::Scalar(ScalarType::I64)
}

fn bool_ty() -> Type {
    Type::Scalar(ScalarType::Bool)
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

pub fn binop_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::Quot => "//",
        BinOp::Rem => "%%",
        BinOp::Pow => "**",
        BinOp::Eq => "==",
        BinOp::Neq => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::LogAnd => "&&",
        BinOp::LogOr => "||",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::UShr => ">>>",
        BinOp::Concat => "++",
    }
}

/// Optimal-string-alignment distance (an adjacent swap costs one).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The closest candidate within a third of the name's length (at least one edit).
pub fn closest<'b>(name: &str, candidates: impl IntoIterator<Item = &'b str>) -> Option<String> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.to_string()))
        .map(|(_, c)| c.to_string())
}

impl<'a> Checker<'a> {
    fn new(sources: &'a SourceMap) -> Self {
        Checker {
            sources,
            defs: Vec::new(),
            def_names: HashMap::new(),
            types: Vec::new(),
            type_names: HashMap::new(),
            inf: Infer::default(),
            ctx: Ctx {
                file: 0,
                program: 0,
                type_params: Vec::new(),
                size_wildcards: Vec::new(),
            },
            locals: Vec::new(),
            next_local: 0,
            inst_stack: Vec::new(),
            abbrev_stack: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Registers every declaration; reports duplicates within one file.
    fn collect(&mut self, programs: &'a [ast::Program]) -> Vec<Diagnostic> {
        let mut errors = Vec::new();
        for (p, program) in programs.iter().enumerate() {
            let mut seen: HashMap<&str, &Span> = HashMap::new();
            let mut seen_types: HashMap<&str, &Span> = HashMap::new();
            for decl in &program.decls {
                match decl {
                    Decl::Def(def) => {
                        if let Some(first) = seen.insert(&def.name.name, &def.name.span) {
                            errors.push(
                                Diagnostic::new(
                                    program.file,
                                    def.name.span.clone(),
                                    format!("duplicate definition of `{}`", def.name.name),
                                )
                                .with_secondary(first.clone(), "first defined here"),
                            );
                            continue;
                        }
                        let d = self.defs.len();
                        let template = Rc::new(Template {
                            name: &def.name,
                            type_params: &def.type_params,
                            params: &def.params,
                            ret: def.ret.as_ref(),
                            body: &def.body,
                            ctx: Ctx {
                                file: program.file,
                                program: p,
                                type_params: Vec::new(),
                                size_wildcards: Vec::new(),
                            },
                            scope_len: None,
                            def_index: Some(d),
                        });
                        self.defs.push(GlobalDef {
                            def,
                            program: p,
                            file: program.file,
                            template,
                        });
                        self.def_names.entry(&def.name.name).or_default().push(d);
                    }
                    Decl::Type(t) => {
                        if let Some(first) = seen_types.insert(&t.name.name, &t.name.span) {
                            errors.push(
                                Diagnostic::new(
                                    program.file,
                                    t.name.span.clone(),
                                    format!("duplicate definition of type `{}`", t.name.name),
                                )
                                .with_secondary(first.clone(), "first defined here"),
                            );
                            continue;
                        }
                        let i = self.types.len();
                        self.types.push(GlobalType {
                            decl: t,
                            program: p,
                            file: program.file,
                        });
                        self.type_names.entry(&t.name.name).or_default().push(i);
                    }
                    Decl::Import(..) => {}
                }
            }
        }
        errors
    }

    // ----- small helpers -------------------------------------------------

    fn error(&self, span: &Span, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.ctx.file, span.clone(), msg)
    }

    fn mismatch(&self, span: &Span, expected: &Type, found: &Type) -> Diagnostic {
        let shown = self.inf.display_all(&[expected, found]);
        let (e, f) = (&shown[0], &shown[1]);
        self.error(span, format!("type mismatch: expected `{e}`, found `{f}`"))
            .with_label(format!("expected `{e}`, found `{f}`"))
    }

    /// Unifies, blaming the expression at `span` (whose type is `found`).
    fn expect(&mut self, span: &Span, expected: &Type, found: &Type) -> Result<()> {
        self.inf
            .unify(expected, found)
            .map_err(|_| self.mismatch(span, expected, found))
    }

    fn constrain(&mut self, span: &Span, t: &Type, mask: Mask, what: &str) -> Result<()> {
        self.inf.constrain(t, mask).map_err(|_| {
            let shown = self.inf.display(t);
            self.error(
                span,
                format!("type mismatch: expected {what}, found `{shown}`"),
            )
            .with_label(format!("expected {what}, found `{shown}`"))
        })
    }

    fn fresh_local(&mut self) -> LocalId {
        self.next_local += 1;
        LocalId(self.next_local - 1)
    }

    fn node(&self, kind: TExprKind, ty: Type, span: &Span) -> TExpr {
        TExpr {
            kind,
            ty,
            file: self.ctx.file,
            span: span.clone(),
        }
    }

    fn loc_text(&self, file: FileId, span: &Span) -> String {
        match self.sources.files.get(file) {
            Some(f) => {
                let (line, col) = self.sources.line_col(file, span.start);
                format!("{}:{line}:{col}", f.name)
            }
            None => format!("byte {}", span.start),
        }
    }

    fn lookup_local(&self, name: &str) -> Option<&Binding<'a>> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b)
    }

    fn lookup_global(&self, name: &str) -> Option<usize> {
        let program = self.ctx.program;
        self.def_names
            .get(name)?
            .iter()
            .rev()
            .copied()
            .find(|&d| self.defs[d].program <= program)
    }

    fn lookup_type(&self, name: &str) -> Option<usize> {
        let program = self.ctx.program;
        self.type_names
            .get(name)?
            .iter()
            .rev()
            .copied()
            .find(|&t| self.types[t].program <= program)
    }

    fn swap_scope(
        &mut self,
        ctx: Ctx,
        locals: Vec<(String, Binding<'a>)>,
    ) -> (Ctx, Vec<(String, Binding<'a>)>) {
        (
            std::mem::replace(&mut self.ctx, ctx),
            std::mem::replace(&mut self.locals, locals),
        )
    }

    fn unknown_name(&self, span: &Span, name: &str) -> Diagnostic {
        let mut candidates: Vec<&str> = self.locals.iter().map(|(n, _)| n.as_str()).collect();
        let program = self.ctx.program;
        for (name, ds) in &self.def_names {
            if ds.iter().any(|&d| self.defs[d].program <= program) {
                candidates.push(name);
            }
        }
        candidates.extend(ARRAY_BUILTINS.iter().map(|(n, _)| *n));
        let diag = self.error(span, format!("unknown name `{name}`"));
        match closest(name, candidates) {
            Some(c) => diag.with_note(format!("did you mean `{c}`?")),
            None => diag,
        }
    }

    // ----- definitions ----------------------------------------------------

    /// Checks a definition on its own, with rigid type parameters.
    fn check_standalone(&mut self, d: usize) -> Result<()> {
        let template = self.defs[d].template.clone();
        self.pending.clear();
        let inst = self.instantiate_signature(&template, true)?;
        let (_, _, mut body) = self.instantiate_body(&template, inst, None)?;
        self.finish_pending()?;
        self.finalize_expr(&mut body)
    }

    fn check_entry(&mut self, d: usize) -> Result<Entry> {
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
        let inst = self.instantiate_signature(&template, false)?;
        let ret = inst.ret.clone();
        let (size_params, mut params, mut body) = self.instantiate_body(&template, inst, None)?;
        self.finish_pending()?;
        self.finalize_expr(&mut body)?;
        for p in &mut params {
            self.finalize_pat(p);
        }
        let ret = self.inf.finalize(&ret);
        let first_order =
            "entry points take and return only scalars, arrays of scalars, and tuples of those";
        for (p, pat) in def.params.iter().zip(&params) {
            if !pat.ty().is_first_order_entry_type() {
                return Err(self
                    .error(
                        &p.span(),
                        format!(
                            "entry point `{}` has a parameter of non-first-order type `{}`",
                            def.name.name,
                            pat.ty()
                        ),
                    )
                    .with_note(first_order));
            }
        }
        if !ret.is_first_order_entry_type() {
            let span = def.ret.as_ref().map_or(def.name.span.clone(), |t| t.span());
            return Err(self
                .error(
                    &span,
                    format!(
                        "entry point `{}` returns non-first-order type `{ret}`",
                        def.name.name
                    ),
                )
                .with_note(first_order));
        }
        Ok(Entry {
            name: def.name.name.clone(),
            file: self.defs[d].file,
            span: def.span.clone(),
            size_params,
            params,
            ret,
            body,
        })
    }

    /// Instantiates a template's type and size parameters and checks its
    /// parameter patterns and return type, in the template's own scope.
    fn instantiate_signature(&mut self, t: &Rc<Template<'a>>, rigid: bool) -> Result<Instance<'a>> {
        let locals = match t.scope_len {
            Some(n) => self.locals[..n.min(self.locals.len())].to_vec(),
            None => Vec::new(),
        };
        let saved = self.swap_scope(t.ctx.clone(), locals);
        let result = self.signature_in_scope(t, rigid);
        let (ctx, locals) = self.swap_scope(saved.0, saved.1);
        let (type_args, size_params, params, param_tys, (ret, ret_shape)) = result?;
        Ok(Instance {
            ctx,
            locals,
            type_args,
            size_params,
            params,
            param_tys,
            ret,
            ret_shape,
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
                    self.locals.push((
                        id.name.clone(),
                        Binding::Local {
                            id: lid,
                            ty: i64_ty(),
                        },
                    ));
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
            for (name, span, id, ty) in binds {
                if names.iter().any(|(n, _)| *n == name) {
                    return Err(self.error(&span, format!("duplicate parameter `{name}`")));
                }
                names.push((name.clone(), span));
                self.locals.push((name, Binding::Local { id, ty }));
            }
            param_tys.push(pat.ty().clone());
            params.push(pat);
        }
        let ret = match t.ret {
            Some(te) => self.resolve_type(te)?,
            None => (self.inf.fresh(), Shape::Other),
        };
        let mut used = Vec::new();
        for p in &params {
            pat_size_vars(p, &mut used);
        }
        for ((lid, name), span) in size_params.iter().zip(&size_spans) {
            if !used.contains(lid) {
                return Err(self.error(
                    span,
                    format!("size parameter `{name}` is not used in the type of any parameter"),
                ));
            }
        }
        Ok((type_args, size_params, params, param_tys, ret))
    }

    /// Checks a template's body in its instantiated scope. `used_at` is the
    /// use site (file, span) when instantiated by a use.
    fn instantiate_body(
        &mut self,
        t: &Rc<Template<'a>>,
        inst: Instance<'a>,
        used_at: Option<(FileId, Span)>,
    ) -> Result<Elaborated> {
        if let Some(d) = t.def_index {
            if let Some(pos) = self.inst_stack.iter().position(|&x| x == d) {
                let mut cycle: Vec<String> = self.inst_stack[pos..]
                    .iter()
                    .map(|&x| format!("`{}`", self.defs[x].def.name.name))
                    .collect();
                cycle.push(format!("`{}`", t.name.name));
                let (file, span) = used_at.unwrap_or((t.ctx.file, t.name.span.clone()));
                return Err(Diagnostic::new(
                    file,
                    span,
                    format!("recursive definition: {}", cycle.join(" -> ")),
                )
                .with_note("functions may not be recursive: every call is inlined"));
            }
            self.inst_stack.push(d);
        }
        let ret = inst.ret.clone();
        let ret_shape = inst.ret_shape.clone();
        let saved = self.swap_scope(inst.ctx.clone(), inst.locals);
        let result = self.check_expr(t.body).and_then(|body| {
            self.expect(&body.span, &ret, &body.ty)?;
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
        if t.def_index.is_some() {
            self.inst_stack.pop();
        }
        let body = result.map_err(|diag| match &used_at {
            Some((file, span))
                if t.def_index.is_some() && !diag.message.starts_with("recursive") =>
            {
                let args: Vec<String> = inst
                    .type_args
                    .iter()
                    .map(|(n, ty)| format!("'{n} = `{}`", self.inf.display(ty)))
                    .collect();
                let with = if args.is_empty() {
                    String::new()
                } else {
                    format!(" with {}", args.join(", "))
                };
                diag.with_note(format!(
                    "in the instantiation of `{}`{with} used at {}",
                    t.name.name,
                    self.loc_text(*file, span)
                ))
            }
            _ => diag,
        })?;
        Ok((inst.size_params, inst.params, body))
    }

    /// A use of a template applied to `args` (possibly none).
    fn apply_template(
        &mut self,
        t: Rc<Template<'a>>,
        whole: &Span,
        head_span: &Span,
        args: &[&'a Expr],
    ) -> Result<TExpr> {
        let mut targs = self.check_plain_args(args)?;
        let inst = self.instantiate_signature(&t, false)?;
        let n = inst.param_tys.len().min(args.len());
        for literals in [false, true] {
            for i in 0..n {
                if let Some(ta) = &targs[i] {
                    if is_bare_literal(args[i]) == literals {
                        self.expect(&ta.span, &inst.param_tys[i], &ta.ty)?;
                    }
                }
            }
        }
        for i in 0..n {
            if targs[i].is_none() {
                let ta = self.check_hint(args[i], Some(&inst.param_tys[i]))?;
                self.expect(&ta.span, &inst.param_tys[i], &ta.ty)?;
                targs[i] = Some(ta);
            }
        }
        self.process_pending()?;
        let mut bound = Vec::new();
        for (p, ta) in inst.params.iter().zip(&targs) {
            if let (TPat::Ascribed(_, shape), Some(ta)) = (p, ta) {
                self.static_sizes(shape, ta, &mut bound)?;
            }
        }
        let ty = Type::curried(inst.param_tys.clone(), inst.ret.clone());
        let nparams = inst.param_tys.len();
        let used_at = (self.ctx.file, head_span.clone());
        let (size_params, params, body) = self.instantiate_body(&t, inst, Some(used_at))?;
        let callee = if params.is_empty() {
            body
        } else {
            let lam = TLambda {
                name: Some(t.name.name.clone()),
                size_params,
                params,
                body,
            };
            self.node(TExprKind::Lambda(Box::new(lam)), ty.clone(), head_span)
        };
        let rest = targs.split_off(n);
        let now: Vec<TExpr> = targs.into_iter().flatten().collect();
        let result = if now.is_empty() {
            callee
        } else {
            let mut remaining = ty;
            for _ in 0..now.len() {
                remaining = match remaining {
                    Type::Func(_, r) => *r,
                    other => other,
                };
            }
            self.node(TExprKind::Apply(Box::new(callee), now), remaining, whole)
        };
        if args.len() > n {
            let extra = &args[n..];
            let name = (t.name.name.as_str(), nparams);
            self.apply_generic(result, whole, extra, rest, Some(name))
        } else {
            Ok(result)
        }
    }

    /// Checks the arguments that are not functions; functions come later,
    /// once the other arguments have fixed their parameter types.
    fn check_plain_args(&mut self, args: &[&'a Expr]) -> Result<Vec<Option<TExpr>>> {
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

    fn is_function_like(&self, e: &Expr) -> bool {
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

    fn classify_head(&self, head: &Expr) -> Head<'a> {
        match &head.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } => match self.lookup_local(&name.name) {
                Some(Binding::Local { .. }) => Head::Other,
                Some(Binding::Fun(t)) => Head::Template(t.clone()),
                None => match self.lookup_global(&name.name) {
                    Some(d) => Head::Template(self.defs[d].template.clone()),
                    None => match array_builtin(&name.name) {
                        Some(b) => Head::Builtin(b),
                        None => Head::Other,
                    },
                },
            },
            ExprKind::Var {
                qualifier: Some(q),
                name,
            } => match ScalarType::from_name(q).map(|t| (t, scalar_member(t, &name.name))) {
                Some((_, Some(Member::Func(b)))) => Head::Builtin(b),
                Some((t, None)) => match self.module_reduction(t, &name.name) {
                    Some(d) => Head::Template(self.defs[d].template.clone()),
                    None => Head::Other,
                },
                _ => Head::Other,
            },
            _ => Head::Other,
        }
    }

    /// Applies a checked function to arguments, some already checked.
    fn apply_generic(
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
    /// module's type. The definition `name`, if it is one of them.
    fn module_reduction(&self, module: ScalarType, name: &str) -> Option<usize> {
        let reductions = ["sum", "product", "maximum", "minimum"];
        if module == ScalarType::Bool || !reductions.contains(&name) {
            return None;
        }
        self.lookup_global(name)
    }

    fn check_apply(&mut self, e: &'a Expr) -> Result<TExpr> {
        let (head, args) = flatten_apply(e);
        match self.classify_head(head) {
            Head::Template(t) => {
                let te = self.apply_template(t, &e.span, &head.span, &args)?;
                if let ExprKind::Var {
                    qualifier: Some(q), ..
                } = &head.kind
                {
                    // `i64.sum xs`: a reduction of the module's type.
                    let module = ScalarType::from_name(q).map(Type::Scalar);
                    if let (Some(m), 1) = (module, args.len()) {
                        self.expect(&e.span, &m, &te.ty)?;
                    }
                }
                Ok(te)
            }
            Head::Builtin(b) => {
                let targs = self.check_plain_args(&args)?;
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

    // ----- expressions ----------------------------------------------------

    fn check_expr(&mut self, e: &'a Expr) -> Result<TExpr> {
        self.check_hint(e, None)
    }

    /// Checks `e`; `hint` is the type the context expects, used to give
    /// lambda parameters their types before the body is checked.
    fn check_hint(&mut self, e: &'a Expr, hint: Option<&Type>) -> Result<TExpr> {
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
                    None => self.inf.fresh_constrained(super::infer::FLOAT),
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
                        INT | super::infer::bit(ScalarType::Bool),
                        "`bool` or an integer type",
                    )?,
                }
                let ty = x.ty.clone();
                Ok(self.node(TExprKind::UnOp(*op, Box::new(x)), ty, span))
            }
            ExprKind::OpSection(op) => {
                let (xid, xty) = (self.fresh_local(), self.inf.fresh());
                let (yid, yty) = (self.fresh_local(), self.inf.fresh());
                let x = self.node(TExprKind::Var(xid), xty.clone(), span);
                let y = self.node(TExprKind::Var(yid), yty.clone(), span);
                let body = self.binop(*op, x, y, span)?;
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
            ExprKind::Let(pat, rhs, body) => {
                let mut binds = Vec::new();
                let tpat = self.check_pattern(pat, None, &mut binds)?;
                check_duplicates(self, &binds)?;
                let rhs = self.check_hint(rhs, Some(tpat.ty()))?;
                self.expect(&rhs.span, tpat.ty(), &rhs.ty)?;
                self.process_pending()?;
                let n = self.locals.len();
                for (name, _, id, ty) in binds {
                    self.locals.push((name, Binding::Local { id, ty }));
                }
                let body = self.check_hint(body, hint);
                self.locals.truncate(n);
                let body = body?;
                let ty = body.ty.clone();
                Ok(self.node(
                    TExprKind::Let(tpat, Box::new(rhs), Box::new(body)),
                    ty,
                    span,
                ))
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
                    scope_len: Some(self.locals.len()),
                    def_index: None,
                });
                // Checked once on its own so that errors in it show even if unused.
                let inst = self.instantiate_signature(&template, true)?;
                self.instantiate_body(&template, inst, None)?;
                let n = self.locals.len();
                self.locals
                    .push((name.name.clone(), Binding::Fun(template)));
                let body = self.check_hint(body, hint);
                self.locals.truncate(n);
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
            ExprKind::Update(arr, idx, v) => self.check_update(arr, idx, v, span),
            ExprKind::Index(arr, idx) => self.check_index(arr, idx, span),
            ExprKind::Field(x, field) => {
                if let Some(member) = self.type_param_member(x, field, span) {
                    return member;
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
            ExprKind::Ascribe(x, te) => {
                let (ty, shape) = self.resolve_type(te)?;
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
        }
    }

    /// An index expression that must be an `i64`.
    fn check_i64(&mut self, e: &'a Expr) -> Result<TExpr> {
        let te = self.check_expr(e)?;
        self.expect(&te.span, &i64_ty(), &te.ty)?;
        Ok(te)
    }

    /// An index into one dimension: as in Futhark, any signed integer type,
    /// widened to `i64`; a type still open (a literal) becomes `i64`.
    fn check_index_value(&mut self, e: &'a Expr) -> Result<TExpr> {
        let te = self.check_expr(e)?;
        match self.inf.shallow(&te.ty) {
            Type::Scalar(t) if t.is_signed() && t != ScalarType::I64 => {
                let widen = Builtin::Scalar(ScalarType::I64, ScalarFn::Convert(t));
                let f_ty = Type::func(te.ty.clone(), i64_ty());
                let span = te.span.clone();
                let f = self.node(TExprKind::Builtin(widen), f_ty, &span);
                Ok(self.node(TExprKind::Apply(Box::new(f), vec![te]), i64_ty(), &span))
            }
            _ => {
                self.expect(&te.span, &i64_ty(), &te.ty)?;
                Ok(te)
            }
        }
    }

    /// `Array` wrapped `k` times around `elem`.
    fn wrap_array(elem: Type, k: usize) -> Type {
        (0..k).fold(elem, |t, _| Type::array(t))
    }

    /// Unifies `arr` with an array of at least `k` dimensions; returns the
    /// element type after `k` dimensions. `what` names the operation.
    fn expect_rank(&mut self, arr: &TExpr, k: usize, what: &str) -> Result<Type> {
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
    fn check_index(&mut self, arr: &'a Expr, idx: &'a [IndexArg], span: &Span) -> Result<TExpr> {
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
    fn check_update(
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

    /// `loop x for ...` starts from the variables the pattern names.
    fn init_from_pattern(&mut self, p: &'a Pattern) -> Result<TExpr> {
        match p {
            Pattern::Id(id) => match self.lookup_local(&id.name) {
                Some(Binding::Local { id: lid, ty }) => {
                    let (lid, ty) = (*lid, ty.clone());
                    Ok(self.node(TExprKind::Var(lid), ty, &id.span))
                }
                _ => Err(self.error(
                    &id.span,
                    format!(
                        "`loop {0}` without `= init` needs a variable `{0}` in scope",
                        id.name
                    ),
                )),
            },
            Pattern::Wildcard(span) => Err(self.error(
                span,
                "`loop` without `= init` needs names in its pattern, not `_`",
            )),
            Pattern::Tuple(ps, span) => {
                let mut items = Vec::new();
                for q in ps {
                    items.push(self.init_from_pattern(q)?);
                }
                let ty = Type::Tuple(items.iter().map(|t| t.ty.clone()).collect());
                Ok(self.node(TExprKind::Tuple(items), ty, span))
            }
            Pattern::Record(fields, span) => {
                let mut items = Vec::new();
                for (name, q) in fields {
                    items.push((name.name.clone(), self.init_from_pattern(q)?));
                }
                items.sort_by(|a, b| a.0.cmp(&b.0));
                let ty = Type::Record(
                    items
                        .iter()
                        .map(|(n, t)| (n.clone(), t.ty.clone()))
                        .collect(),
                );
                Ok(self.node(TExprKind::Record(items), ty, span))
            }
            Pattern::Ascribed(q, ..) => self.init_from_pattern(q),
        }
    }

    fn check_loop(
        &mut self,
        pat: &'a Pattern,
        init: Option<&'a Expr>,
        form: &'a ast::LoopForm,
        body: &'a Expr,
        span: &Span,
    ) -> Result<TExpr> {
        let init = match init {
            Some(e) => self.check_expr(e)?,
            None => self.init_from_pattern(pat)?,
        };
        let mut binds = Vec::new();
        let tpat = self.check_pattern(pat, Some(&init.ty), &mut binds)?;
        self.expect(&init.span, tpat.ty(), &init.ty)?;
        self.process_pending()?;
        // The bound and the array are evaluated before the loop, outside
        // the scope of the loop state.
        let mut while_cond = None;
        let form_partial = match form {
            ast::LoopForm::For(i, bound) => {
                let bound = self.check_expr(bound)?;
                self.constrain(
                    &bound.span,
                    &bound.ty,
                    INT,
                    "an integer type for the `for` bound",
                )?;
                let lid = self.fresh_local();
                binds.push((i.name.clone(), i.span.clone(), lid, bound.ty.clone()));
                Some(TLoopForm::For {
                    index: lid,
                    name: i.name.clone(),
                    bound: Box::new(bound),
                })
            }
            ast::LoopForm::ForIn(p, xs) => {
                let xs = self.check_expr(xs)?;
                let elem = self.inf.fresh();
                if self.inf.unify(&Type::array(elem.clone()), &xs.ty).is_err() {
                    let shown = self.inf.display(&xs.ty);
                    return Err(self
                        .error(
                            &xs.span,
                            format!("`for ... in` needs an array, found `{shown}`"),
                        )
                        .with_label(format!("this has type `{shown}`")));
                }
                let tp = self.check_pattern(p, Some(&elem), &mut binds)?;
                self.expect(&p.span(), &elem, tp.ty())?;
                Some(TLoopForm::ForIn {
                    pat: tp,
                    array: Box::new(xs),
                })
            }
            ast::LoopForm::While(c) => {
                while_cond = Some(&**c);
                None
            }
        };
        check_duplicates(self, &binds)?;
        let n = self.locals.len();
        for (name, _, id, ty) in binds {
            self.locals.push((name, Binding::Local { id, ty }));
        }
        let result = self.loop_body(tpat, init, form_partial, while_cond, body, span);
        self.locals.truncate(n);
        result
    }

    /// The rest of `check_loop`, with the loop state and index in scope.
    fn loop_body(
        &mut self,
        tpat: TPat,
        init: TExpr,
        form: Option<TLoopForm>,
        while_cond: Option<&'a Expr>,
        body: &'a Expr,
        span: &Span,
    ) -> Result<TExpr> {
        let form = match (form, while_cond) {
            (Some(f), _) => f,
            (None, Some(c)) => {
                let c = self.check_expr(c)?;
                if self.inf.unify(&bool_ty(), &c.ty).is_err() {
                    let shown = self.inf.display(&c.ty);
                    return Err(self
                        .error(
                            &c.span,
                            format!("the `while` condition must be `bool`, found `{shown}`"),
                        )
                        .with_label(format!("expected `bool`, found `{shown}`")));
                }
                TLoopForm::While(Box::new(c))
            }
            (None, None) => return Err(self.error(span, "malformed loop")),
        };
        let state = tpat.ty().clone();
        let b = self.check_hint(body, Some(&state))?;
        if self.inf.unify(&state, &b.ty).is_err() {
            return Err(self
                .mismatch(&b.span, &state, &b.ty)
                .with_note("the body of a loop must return the next value of the loop state"));
        }
        self.process_pending()?;
        Ok(self.node(
            TExprKind::Loop {
                pat: tpat,
                init: Box::new(init),
                form,
                body: Box::new(b),
            },
            state,
            span,
        ))
    }

    /// `t.lowest`, `t.max`, `t.f64` ... where `t` is a type parameter in
    /// scope (and no value of that name is): `None` if `x.field` is not that.
    fn type_param_member(
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

    fn check_var(
        &mut self,
        e: &'a Expr,
        qualifier: Option<&str>,
        name: &'a Ident,
    ) -> Result<TExpr> {
        let span = &e.span;
        if let Some(q) = qualifier {
            let module = ScalarType::from_name(q)
                .ok_or_else(|| self.error(span, format!("unknown module `{q}`")))?;
            let member = scalar_member(module, &name.name);
            if let (None, Some(d)) = (&member, self.module_reduction(module, &name.name)) {
                let template = self.defs[d].template.clone();
                let te = self.apply_template(template, span, span, &[])?;
                let elem = Type::Scalar(module);
                let want = Type::func(Type::array(elem.clone()), elem);
                self.expect(span, &want, &te.ty)?;
                return Ok(te);
            }
            return match member {
                Some(Member::Func(b)) => {
                    let ty = builtin_type(&mut self.inf, b);
                    Ok(self.node(TExprKind::Builtin(b), ty, span))
                }
                Some(Member::Const(lit)) => {
                    let ty = match lit {
                        Literal::Const(c) => Type::Scalar(c.scalar_type()),
                        _ => Type::Scalar(module),
                    };
                    Ok(self.node(TExprKind::Literal(lit), ty, span))
                }
                None => {
                    let names = scalar_member_names(module);
                    let diag = self.error(span, format!("unknown name `{q}.{}`", name.name));
                    Err(
                        match closest(&name.name, names.iter().map(String::as_str)) {
                            Some(c) => diag.with_note(format!("did you mean `{q}.{c}`?")),
                            None => diag,
                        },
                    )
                }
            };
        }
        match self.classify_head(e) {
            Head::Template(t) => return self.apply_template(t, span, span, &[]),
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
        Err(self.unknown_name(span, &name.name))
    }

    fn binop(&mut self, op: BinOp, l: TExpr, r: TExpr, span: &Span) -> Result<TExpr> {
        let sym = binop_symbol(op);
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
            _ => {
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

    fn check_lambda(
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
        for (p, hp) in params.iter().zip(&hint_params) {
            let tp = self.check_pattern(p, hp.as_ref(), &mut binds)?;
            if let Some(hp) = hp {
                self.expect(&p.span(), hp, tp.ty())?;
            }
            tpats.push(tp);
        }
        check_duplicates(self, &binds)?;
        let n = self.locals.len();
        for (name, _, id, ty) in binds {
            self.locals.push((name, Binding::Local { id, ty }));
        }
        let body = self.check_expr(body);
        self.locals.truncate(n);
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

    /// Compares the sizes `shape` declares with those of `e` where both are
    /// known before running (array literals); `bound` holds the sizes of
    /// size variables seen so far in the same check.
    fn static_sizes(
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
                Dim::Any => None,
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

    /// The number of arrows of a function type, and whether its result is
    /// still unknown (so that it may take more parameters).
    fn arity(&self, t: &Type) -> (usize, bool) {
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

    /// `r with a.b = v`: `r`'s type must be known here (as Futhark asks);
    /// the field's type is `v`'s.
    fn check_record_update(
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

    fn field_type(&self, ty: &Type, field: &Field, file: FileId, span: &Span) -> Result<Type> {
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
    fn process_pending(&mut self) -> Result<()> {
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

    fn finish_pending(&mut self) -> Result<()> {
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

    // ----- patterns and types ---------------------------------------------

    /// Checks a pattern; its names go to `binds` (the caller brings them
    /// into scope).
    fn check_pattern(
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
                let inner = self.check_pattern(q, Some(&ty), binds)?;
                self.expect(span, &ty, inner.ty())?;
                if shape.is_trivial() {
                    Ok(inner)
                } else {
                    Ok(TPat::Ascribed(Box::new(inner), shape))
                }
            }
        }
    }

    fn resolve_type(&mut self, te: &'a TypeExpr) -> Result<(Type, Shape)> {
        match te {
            TypeExpr::Scalar(s, _) => Ok((Type::Scalar(*s), Shape::Other)),
            TypeExpr::Named(id) => self.expand_abbrev(id, &[]),
            TypeExpr::Apply(id, args, _) => self.expand_abbrev(id, args),
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
            TypeExpr::Func(a, b, _) => {
                let (a, _) = self.resolve_type(a)?;
                let (b, _) = self.resolve_type(b)?;
                Ok((Type::func(a, b), Shape::Other))
            }
        }
    }

    fn resolve_dim(&mut self, size: &SizeExpr) -> Result<Dim> {
        match size {
            SizeExpr::Any(_) => Ok(Dim::Any),
            SizeExpr::Const(k, _) => Ok(Dim::Const(*k)),
            SizeExpr::Named(id) => {
                if self.ctx.size_wildcards.contains(&id.name) {
                    return Ok(Dim::Any);
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
                    _ => {
                        let diag = self.error(&id.span, format!("unknown size `{}`", id.name));
                        let names = self.locals.iter().map(|(n, _)| n.as_str());
                        Err(match closest(&id.name, names) {
                            Some(c) => diag.with_note(format!("did you mean `{c}`?")),
                            None => diag,
                        })
                    }
                }
            }
        }
    }

    fn expand_abbrev(&mut self, id: &'a Ident, args: &'a [TypeExpr]) -> Result<(Type, Shape)> {
        let Some(t) = self.lookup_type(&id.name) else {
            let diag = self.error(&id.span, format!("unknown type `{}`", id.name));
            let program = self.ctx.program;
            let names = self
                .type_names
                .iter()
                .filter(|(_, ts)| ts.iter().any(|&t| self.types[t].program <= program))
                .map(|(n, _)| *n);
            return Err(match closest(&id.name, names) {
                Some(c) => diag.with_note(format!("did you mean `{c}`?")),
                None => diag,
            });
        };
        if self.abbrev_stack.contains(&t) {
            return Err(self.error(
                &id.span,
                format!("type `{}` is defined in terms of itself", id.name),
            ));
        }
        let decl = self.types[t].decl;
        let type_params: Vec<&Ident> = decl
            .params
            .iter()
            .filter_map(|p| match p {
                TypeParam::Type(i) => Some(i),
                TypeParam::Size(_) => None,
            })
            .collect();
        if type_params.len() != args.len() {
            return Err(self.error(
                &id.span,
                format!(
                    "type `{}` takes {}, but {} were given",
                    id.name,
                    plural(type_params.len(), "type argument"),
                    args.len()
                ),
            ));
        }
        let mut bound = Vec::new();
        for (p, a) in type_params.iter().zip(args) {
            bound.push((p.name.clone(), self.resolve_type(a)?.0));
        }
        let size_wildcards = decl
            .params
            .iter()
            .filter_map(|p| match p {
                TypeParam::Size(i) => Some(i.name.clone()),
                TypeParam::Type(_) => None,
            })
            .collect();
        let ctx = Ctx {
            file: self.types[t].file,
            program: self.types[t].program,
            type_params: bound,
            size_wildcards,
        };
        self.abbrev_stack.push(t);
        let saved = self.swap_scope(ctx, Vec::new());
        let result = self.resolve_type(&decl.ty);
        self.swap_scope(saved.0, saved.1);
        self.abbrev_stack.pop();
        result
    }

    // ----- the end of a definition: defaults and final checks ---------------

    fn finalize_pat(&mut self, p: &mut TPat) {
        match p {
            TPat::Var { ty, .. } | TPat::Wildcard(ty) => *ty = self.inf.finalize(ty),
            TPat::Tuple(ps, ty) => {
                *ty = self.inf.finalize(ty);
                ps.iter_mut().for_each(|q| self.finalize_pat(q));
            }
            TPat::Ascribed(q, _) => self.finalize_pat(q),
        }
    }

    fn finalize_expr(&mut self, e: &mut TExpr) -> Result<()> {
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
                    let limit = if pattern && s.is_signed() {
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
            TExprKind::UnOp(_, a) | TExprKind::Field(a, _) | TExprKind::Ascribe(a, _) => {
                self.finalize_expr(a)?
            }
            TExprKind::Lambda(lam) => {
                for p in &mut lam.params {
                    self.finalize_pat(p);
                }
                self.finalize_expr(&mut lam.body)?;
            }
            TExprKind::Let(p, a, b) => {
                self.finalize_pat(p);
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
                self.finalize_pat(pat);
                self.finalize_expr(init)?;
                match form {
                    TLoopForm::For { bound, .. } => self.finalize_expr(bound)?,
                    TLoopForm::ForIn { pat, array } => {
                        self.finalize_pat(pat);
                        self.finalize_expr(array)?;
                    }
                    TLoopForm::While(c) => self.finalize_expr(c)?,
                }
                self.finalize_expr(body)?;
            }
            TExprKind::TypeMember(..) => {}
        }
        Ok(())
    }
}

/// The sizes of an array known before running: those of an array literal
/// (as far as its first row shows them).
fn static_shape(e: &TExpr) -> Option<Vec<u64>> {
    match &e.kind {
        TExprKind::ArrayLit(items) => {
            let mut dims = vec![items.len() as u64];
            if let Some(inner) = items.first().and_then(static_shape) {
                dims.extend(inner);
            }
            Some(dims)
        }
        TExprKind::Ascribe(x, _) | TExprKind::Let(_, _, x) => static_shape(x),
        _ => None,
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

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

fn check_duplicates(ck: &Checker, binds: &[(String, Span, LocalId, Type)]) -> Result<()> {
    for (i, (name, span, _, _)) in binds.iter().enumerate() {
        if binds[..i].iter().any(|(n, ..)| n == name) {
            return Err(ck.error(span, format!("`{name}` is bound twice in this pattern")));
        }
    }
    Ok(())
}

fn is_bare_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::IntLit(_, None) | ExprKind::FloatLit(_, None) => true,
        ExprKind::UnOp(UnOp::Neg, x) => is_bare_literal(x),
        _ => false,
    }
}

/// `f a b` and `(f a) b` alike: the head and all arguments in order.
fn flatten_apply(e: &Expr) -> (&Expr, Vec<&Expr>) {
    let mut chunks = Vec::new();
    let mut head = e;
    while let ExprKind::Apply(f, args) = &head.kind {
        chunks.push(args);
        head = f;
    }
    let args = chunks.into_iter().rev().flat_map(|a| a.iter()).collect();
    (head, args)
}

fn pat_size_vars(p: &TPat, out: &mut Vec<LocalId>) {
    match p {
        TPat::Var { .. } | TPat::Wildcard(_) => {}
        TPat::Tuple(ps, _) => ps.iter().for_each(|q| pat_size_vars(q, out)),
        TPat::Ascribed(q, shape) => {
            shape.size_vars(out);
            pat_size_vars(q, out);
        }
    }
}
