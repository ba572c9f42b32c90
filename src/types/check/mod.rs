//! The checker proper: parsed programs in, a `CheckedProgram` out.
//!
//! Inference is unification over one definition at a time. Each global
//! `def` is checked once on its own (type parameters rigid, unannotated
//! parameters open) and its signature generalised into a *scheme*: the types
//! still open at the end, with the scalar types a literal or an operator
//! allows them, become the scheme's variables. A use instantiates the scheme
//! with fresh variables, so checking never re-enters a callee's body (a chain
//! of definitions each calling the one before twice stays linear). Once an
//! entry point's types are final, every use is *elaborated*: the body is
//! checked again at the use's types, once per distinct instantiation
//! (`CheckedProgram::instances`), which is where operators and literals on a
//! type parameter meet the instantiated type (an error names the
//! instantiation). A definition whose scheme has no variables is its own
//! single instance. Local functions are templates checked at every use.
//!
//! Arguments that are not functions are checked before function arguments,
//! so a lambda's parameter types flow from the arrays a SOAC is applied to;
//! field accesses on a still unknown type wait until the type is known.

mod access;
mod apply;
mod consume;
mod defs;
mod exhaustive;
mod expr;
mod finalize;
mod forms;
mod implicit;
mod loops;
mod modules;
mod names;
mod patterns;
mod qualified;
mod sums;
mod unflatten;

use super::builtins::{scalar_member, type_member, Member, ARRAY_BUILTINS};
use super::infer::{bit, Infer, Mask, FLOAT, INT, NUM, SCALAR, SIGNED};
use super::pmap::PMap;
use super::scalar::ScalarType;
use super::ty::{Dim, LocalId, Shape, TyVar, Type};
use super::typed::{
    Builtin, CheckedProgram, Literal, ScalarFn, TAttr, TExpr, TExprKind, TLambda, TLoopForm, TPat,
    TSlice,
};
use crate::syntax::ast::{
    self, BinOp, Decl, Def, Expr, ExprKind, Field, FileId, Ident, IndexArg, ModExp, ModParam,
    ModTypeExp, Pattern, QualIdent, SizeExpr, Span, Spec, TypeArg, TypeExpr, TypeParam, UnOp,
};
use crate::syntax::{Diagnostic, SourceMap};
use modules::{ModEnv, ModValue, ValRef};
use names::{closest, plural};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

type Result<T> = std::result::Result<T, Diagnostic>;

/// A template's size parameters, parameters and body, checked at one use.
type Elaborated = (Vec<(LocalId, String)>, Vec<TPat>, TExpr);

/// Locals in scope, by name.
type Locals<'a> = PMap<Rc<str>, Binding<'a>>;

/// How many bodies the checker checked: tests use it to see that checking
/// stays linear in chains of definitions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CheckStats {
    /// Global definitions checked on their own (one scheme each).
    pub schemes: usize,
    /// Instances elaborated (bodies checked at one instantiation).
    pub instances: usize,
}

/// Type-checks `programs` (dependencies first, the main file last) and
/// elaborates the entry points of the main file.
pub fn check(
    sources: &SourceMap,
    programs: &[ast::Program],
) -> std::result::Result<CheckedProgram, Vec<Diagnostic>> {
    check_with_stats(sources, programs).0
}

/// `check`, also saying how much checking it did.
pub fn check_with_stats(
    sources: &SourceMap,
    programs: &[ast::Program],
) -> (
    std::result::Result<CheckedProgram, Vec<Diagnostic>>,
    CheckStats,
) {
    let mut checker = Checker::new(sources);
    checker.collect(programs);
    let main = programs.len().saturating_sub(1);
    let mut entries = Vec::new();
    let mut entry_unique_ret = Vec::new();
    for d in 0..checker.defs.len() {
        let at = (checker.defs[d].file, checker.defs[d].def.name.span.clone());
        let scheme_ok = checker.scheme(d, at).is_ok();
        let info = &checker.defs[d];
        // As in Futhark, a top-level `def main` is an entry point too.
        let is_entry = info.def.is_entry || info.def.name.name == "main";
        if scheme_ok && is_entry && info.program == Some(main) {
            match checker.check_entry(d) {
                Ok(e) => {
                    entry_unique_ret.push(unique_ret(checker.defs[d].def.ret.as_ref()));
                    entries.push(e)
                }
                Err(diag) => checker.report(diag),
            }
        }
    }
    let defs: Vec<(&Def, FileId)> = checker.defs.iter().map(|g| (g.def, g.file)).collect();
    for d in consume::consuming_sizes(&defs) {
        checker.report(d);
    }
    let stats = checker.stats;
    let mut errors = std::mem::take(&mut checker.errors);
    if errors.is_empty() {
        let instances = checker
            .instances
            .into_iter()
            .map(|i| i.unwrap_or_else(unreachable_instance))
            .collect();
        let program = CheckedProgram { entries, instances };
        let facts = consume::Facts {
            unique: &checker.unique,
            unique_parts: &checker.unique_parts,
            in_place: &checker.in_place,
            bound: &checker.bound,
            unique_ret: &checker.unique_ret,
            lambda_unique_ret: &checker.lambda_unique_ret,
            fn_uniqueness: &checker.fn_uniqueness,
            entry_unique_ret: &entry_unique_ret,
        };
        errors = consume::check_consumption(checker.sources, &program, &facts);
        if errors.is_empty() {
            return (Ok(program), stats);
        }
    }
    // The same mistake can surface in a definition and in its uses.
    let mut seen = Vec::new();
    errors.retain(|d| {
        let key = (d.file, d.span.clone(), d.message.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    (Err(errors), stats)
}

/// An instance whose elaboration failed; only reachable with errors, which
/// stop before the program is returned.
fn unreachable_instance() -> TLambda {
    TLambda {
        name: None,
        size_params: Vec::new(),
        params: Vec::new(),
        body: TExpr {
            kind: TExprKind::Tuple(Vec::new()),
            ty: Type::unit(),
            file: 0,
            span: 0..0,
        },
    }
}

struct GlobalDef<'a> {
    def: &'a Def,
    /// The program whose top level defines it (entry points are those of
    /// the main program's top level).
    program: Option<usize>,
    file: FileId,
    template: Rc<Template<'a>>,
    scheme: SchemeState,
}

enum SchemeState {
    Todo,
    /// Being computed: a use now is a recursive call.
    Computing,
    Done(Rc<Scheme>),
    /// Its error is already reported.
    Failed,
}

/// A global definition's generalised signature.
struct Scheme {
    /// Variables instantiated afresh at every use (never unified themselves).
    vars: Vec<TyVar>,
    params: Vec<Type>,
    ret: Type,
    /// The sizes each parameter's pattern declares, for the checks of array
    /// literals passed to it.
    shapes: Vec<Shape>,
    /// The size parameters no parameter's shape gives (`def mat [m] [n]
    /// (v: t) : [m][n]t`) that the body uses: each call finds them and
    /// passes them first (implicit.rs).
    implicit: Vec<implicit::Implicit>,
}

struct GlobalType<'a> {
    decl: &'a ast::TypeDecl,
    ctx: Ctx<'a>,
}

/// Where code is being checked: the file, the global names in scope, and
/// the type parameters in scope.
#[derive(Clone)]
struct Ctx<'a> {
    file: FileId,
    env: ModEnv<'a>,
    /// Names defined later in the same declaration list.
    forward: Option<Rc<RefCell<ModEnv<'a>>>>,
    type_params: Vec<(String, Type)>,
    /// Size parameters of a type abbreviation, and sizes bound by `?[n].`
    /// or a function type's named parameter: they check nothing.
    size_wildcards: Vec<String>,
    /// Size parameters of a type abbreviation given an argument.
    size_args: Vec<(String, Dim)>,
    /// Modules opened by `M.(e)`, innermost last.
    opened: Vec<ModValue<'a>>,
}

impl<'a> Ctx<'a> {
    fn new(file: FileId, env: ModEnv<'a>, forward: Option<Rc<RefCell<ModEnv<'a>>>>) -> Self {
        Ctx {
            file,
            env,
            forward,
            type_params: Vec::new(),
            size_wildcards: Vec::new(),
            size_args: Vec::new(),
            opened: Vec::new(),
        }
    }
}

#[derive(Clone)]
enum Binding<'a> {
    Local { id: LocalId, ty: Type },
    Fun(Rc<Template<'a>>),
}

/// A function definition, global or local.
struct Template<'a> {
    name: &'a Ident,
    type_params: &'a [TypeParam],
    params: &'a [Pattern],
    ret: Option<&'a TypeExpr>,
    body: &'a Expr,
    ctx: Ctx<'a>,
    /// For a local function: the locals in scope at its definition.
    scope: Option<Locals<'a>>,
    /// For a global: its index.
    def_index: Option<usize>,
}

/// An argument's call: the function, all its arguments, its position.
type ArgOfCall<'a> = (Rc<Template<'a>>, Rc<Vec<&'a Expr>>, usize);

/// A template's signature, instantiated, before its body is checked.
struct Signature<'a> {
    ctx: Ctx<'a>,
    locals: Locals<'a>,
    type_args: Vec<(String, Type)>,
    size_params: Vec<(LocalId, String)>,
    params: Vec<TPat>,
    param_tys: Vec<Type>,
    ret: Type,
    /// The sizes the return type declares (checked on the body).
    ret_shape: Shape,
    /// Size parameters (positions among `size_params`) that no
    /// parameter's shape gives: a call finds them (implicit.rs).
    implicit: Vec<usize>,
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
    /// Set by a signature with a size parameter no parameter's shape
    /// gives: an error for entry points.
    unbound_size: Option<(FileId, Span, String)>,
    /// Set by a signature with a size parameter only a size expression
    /// (`[2 * k]t`) gives: an error for entry points.
    linear_size: Option<(FileId, Span, String)>,
    /// Locals whose outer size is written as an expression such as `n * m`
    /// or `n + m` (unflatten.rs).
    sizes_written: HashMap<LocalId, unflatten::Written<'a>>,
    /// Locals bound with a written array type (`flatten` of one has the
    /// product of its two outer sizes).
    types_written: HashMap<LocalId, &'a TypeExpr>,
    /// Expressions whose value a written type describes: the tail of a
    /// body with a declared result type, of a `let` or of an ascription
    /// (`unflatten xs` and `rep x` there take their sizes from it).
    typed_results: HashMap<*const Expr, &'a TypeExpr>,
    /// Arguments of a built-in whose arrays must have one size (`zip xs
    /// ys`), with the other such arguments: a call there may take an
    /// implicit size from them (implicit.rs).
    size_hints: HashMap<*const Expr, Vec<&'a Expr>>,
    /// Arguments that use a global definition, with the function called,
    /// its arguments and the position: a call there may take an implicit
    /// size from the parameter's written type (implicit.rs).
    arg_of_call: HashMap<*const Expr, ArgOfCall<'a>>,
    defs: Vec<GlobalDef<'a>>,
    types: Vec<GlobalType<'a>>,
    /// The environment each `import` (by importing file and path) names.
    imports: HashMap<(FileId, String), ModEnv<'a>>,
    inf: Infer,
    ctx: Ctx<'a>,
    locals: Locals<'a>,
    next_local: u32,
    /// Definitions whose schemes are being computed, innermost last.
    scheme_stack: Vec<usize>,
    abbrev_stack: Vec<usize>,
    pending: Vec<Pending>,
    /// Elaborated instances (`None` while one is elaborated, or if it failed).
    instances: Vec<Option<TLambda>>,
    /// Instances by definition and the types of its scheme's variables
    /// (`None`: elaboration failed, its error reported).
    instance_keys: HashMap<(usize, Vec<Type>), Option<usize>>,
    /// Errors reported out of line (schemes and instances, each once).
    errors: Vec<Diagnostic>,
    stats: CheckStats,
    /// Locals declared unique (`*t`), for the consumption check.
    unique: std::collections::HashSet<LocalId>,
    /// Locals of a tuple type written with `*` on some components only
    /// (`t: ([]i32, *[]i32)`): which components.
    unique_parts: HashMap<LocalId, Vec<bool>>,
    /// The updates written `let a[i] = v`, which consume `a`.
    in_place: std::collections::HashSet<(FileId, Span)>,
    /// Where each named local is bound, for diagnostics naming it.
    bound: HashMap<LocalId, (FileId, Span)>,
    /// Instances whose definition's return type is written with `*`: per
    /// component of a written tuple, else one flag.
    unique_ret: HashMap<usize, Vec<bool>>,
    /// The same for anonymous functions with a written return type, by
    /// where they are written.
    lambda_unique_ret: HashMap<(FileId, Span), Vec<bool>>,
    /// Locals of a function type written out (`f: *[]t -> b`): which of
    /// its parameters and whether its result are declared unique.
    fn_uniqueness: HashMap<LocalId, consume::FnUniqueness>,
}

fn i64_ty() -> Type {
    Type::Scalar(ScalarType::I64)
}

fn bool_ty() -> Type {
    Type::Scalar(ScalarType::Bool)
}

/// The error of a use whose definition's own error is reported already:
/// it unwinds the check of the use and is dropped from the output.
fn reported() -> Diagnostic {
    Diagnostic::new(0, 0..0, "")
}

fn is_reported(d: &Diagnostic) -> bool {
    d.message.is_empty()
}

impl<'a> Checker<'a> {
    fn new(sources: &'a SourceMap) -> Self {
        Checker {
            unbound_size: None,
            linear_size: None,
            sizes_written: HashMap::new(),
            types_written: HashMap::new(),
            typed_results: HashMap::new(),
            size_hints: HashMap::new(),
            arg_of_call: HashMap::new(),
            sources,
            defs: Vec::new(),
            types: Vec::new(),
            imports: HashMap::new(),
            inf: Infer::default(),
            ctx: Ctx::new(0, ModEnv::default(), None),
            locals: PMap::new(),
            next_local: 0,
            scheme_stack: Vec::new(),
            abbrev_stack: Vec::new(),
            pending: Vec::new(),
            instances: Vec::new(),
            instance_keys: HashMap::new(),
            errors: Vec::new(),
            stats: CheckStats::default(),
            unique: Default::default(),
            unique_parts: HashMap::new(),
            in_place: Default::default(),
            bound: HashMap::new(),
            unique_ret: HashMap::new(),
            lambda_unique_ret: HashMap::new(),
            fn_uniqueness: HashMap::new(),
        }
    }

    // ----- small helpers -------------------------------------------------

    /// Keeps an error for the output (unless it stands for one kept already).
    fn report(&mut self, diag: Diagnostic) {
        if !is_reported(&diag) {
            self.errors.push(diag);
        }
    }

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
        self.locals.get(name)
    }

    fn bind_local(&mut self, name: String, binding: Binding<'a>) {
        self.locals = self.locals.insert(Rc::from(name), binding);
    }

    /// A global value: in a module opened by `M.(e)`, in scope, or
    /// defined later in the same declaration list.
    fn lookup_global(&self, name: &str) -> Option<ValRef> {
        self.lookup_earlier(name).or_else(|| {
            // A built-in is what a name means before a later definition of
            // it (`def stdreplicate = replicate` ahead of `def replicate`).
            if crate::types::builtins::array_builtin(name).is_some() {
                return None;
            }
            let forward = self.ctx.forward.as_ref()?.borrow();
            forward.values.get(name).copied()
        })
    }

    /// A global value defined before this point (not a later definition).
    fn lookup_earlier(&self, name: &str) -> Option<ValRef> {
        for m in self.ctx.opened.iter().rev() {
            match m {
                ModValue::Env(e) => {
                    if let Some(v) = e.values.get(name) {
                        return Some(*v);
                    }
                }
                ModValue::Scalar(t) => {
                    if scalar_member(*t, name).is_some() {
                        return Some(ValRef::Scalar(*t));
                    }
                }
                ModValue::Functor(_) => {}
            }
        }
        self.ctx.env.values.get(name).copied()
    }

    /// A global definition by name (not a scalar module's member).
    fn lookup_def(&self, name: &str) -> Option<usize> {
        match self.lookup_global(name)? {
            ValRef::Def(d) => Some(d),
            ValRef::Scalar(_) => None,
        }
    }

    fn lookup_type(&self, name: &str) -> Option<usize> {
        for m in self.ctx.opened.iter().rev() {
            if let ModValue::Env(e) = m {
                if let Some(t) = e.types.get(name) {
                    return Some(*t);
                }
            }
        }
        if let Some(t) = self.ctx.env.types.get(name) {
            return Some(*t);
        }
        let forward = self.ctx.forward.as_ref()?.borrow();
        forward.types.get(name).copied()
    }

    fn swap_scope(&mut self, ctx: Ctx<'a>, locals: Locals<'a>) -> (Ctx<'a>, Locals<'a>) {
        (
            std::mem::replace(&mut self.ctx, ctx),
            std::mem::replace(&mut self.locals, locals),
        )
    }

    fn unknown_name(&self, span: &Span, name: &str) -> Diagnostic {
        if let Some(feature) = unsupported_feature(name) {
            return self.error(span, format!("{feature} is not supported"));
        }
        if name == "rep" {
            // unflatten.rs: where arrc reads its size off the program.
            return self
                .error(
                    span,
                    "`rep x` (a `replicate` whose size comes from the type) is not supported here",
                )
                .with_note(
                    "arrc reads the size of `rep x` only from an array of the same size beside \
                     it (`map2 f xs (rep x)`, `zip`, `scatter`) or from a type that writes it \
                     (`rep x : [n]t`, `let a: [n]t = rep x`); elsewhere write `replicate n x`",
                );
        }
        let mut candidates: Vec<&str> = self.locals.iter().map(|(n, _)| &**n).collect();
        candidates.extend(self.ctx.env.values.iter().map(|(n, _)| &**n));
        candidates.extend(ARRAY_BUILTINS.iter().map(|(n, _)| *n));
        let diag = self.error(span, format!("unknown name `{name}`"));
        match closest(name, candidates) {
            Some(c) => diag.with_note(format!("did you mean `{c}`?")),
            None => diag,
        }
    }
}

/// Futhark's features arrc does not have, by a name a program uses for
/// them: the message says so rather than that the name is unknown.
fn unsupported_feature(name: &str) -> Option<&'static str> {
    Some(match name {
        "vjp" | "jvp" | "vjp2" | "jvp2" => "automatic differentiation (`vjp`, `jvp`)",
        "intrinsics" => "the module of Futhark's compiler intrinsics (`intrinsics.*`)",
        "stream_map" | "stream_red" | "stream_map_per" | "stream_red_per" | "stream_seq" => {
            "the `stream_*` operations"
        }
        _ => return None,
    })
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

fn pat_size_vars(p: &TPat, linear: bool, out: &mut Vec<LocalId>) {
    match p {
        TPat::Var { .. } | TPat::Wildcard(_) | TPat::Lit(_) => {}
        TPat::Tuple(ps, _) | TPat::Ctor(_, ps, _) => {
            ps.iter().for_each(|q| pat_size_vars(q, linear, out))
        }
        TPat::Ascribed(q, shape) => {
            shape.size_vars(linear, out);
            pat_size_vars(q, linear, out);
        }
    }
}

/// Which parts of a return type are written unique (`*t`): one flag per
/// component of a tuple written as one, else one flag.
fn unique_ret(ret: Option<&TypeExpr>) -> Vec<bool> {
    match ret {
        Some(TypeExpr::Tuple(ts, _)) => ts
            .iter()
            .map(|t| matches!(t, TypeExpr::Unique(..)))
            .collect(),
        Some(t) => vec![matches!(t, TypeExpr::Unique(..))],
        None => vec![false],
    }
}
