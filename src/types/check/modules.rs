//! The module system, resolved before any type is inferred: files,
//! `module` bindings, `open`, `local`, `import`, module types and parametric
//! modules (functors) become *environments* that map names to global
//! definitions, type abbreviations and modules. Every definition is checked
//! in the environment of its declaration, so nothing of a module reaches the
//! checked program: a functor's body is elaborated anew at every application
//! (its definitions become global definitions of their own).
//!
//! Ascription to a module type is transparent (abstract types stay equal to
//! their definitions; a program Futhark accepts means the same) but hides
//! the names the module type does not list.

use super::*;
use std::cell::RefCell;

/// What a value name means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum ValRef {
    Def(usize),
    /// A member of a scalar module brought in by `open f32`.
    Scalar(ScalarType),
}

/// A module: an environment, a built-in scalar module, or a functor.
#[derive(Clone)]
pub(super) enum ModValue<'a> {
    Env(ModEnv<'a>),
    Scalar(ScalarType),
    Functor(Rc<Functor<'a>>),
}

/// The names a scope, or a module, defines.
#[derive(Clone, Default)]
pub(super) struct ModEnv<'a> {
    pub(super) values: PMap<Rc<str>, ValRef>,
    pub(super) types: PMap<Rc<str>, usize>,
    pub(super) modules: PMap<Rc<str>, ModValue<'a>>,
    pub(super) modtypes: PMap<Rc<str>, Rc<ModTypeVal<'a>>>,
}

/// A module type: its expression and where it was written.
pub(super) struct ModTypeVal<'a> {
    exp: &'a ModTypeExp,
    env: ModEnv<'a>,
}

/// A parametric module, with the environment of its definition.
pub(super) struct Functor<'a> {
    params: Vec<&'a ModParam>,
    sig: Option<&'a ModTypeExp>,
    body: &'a ModExp,
    env: ModEnv<'a>,
    file: FileId,
}

impl<'a> ModEnv<'a> {
    /// `other`'s names added to (and shadowing) these.
    fn extend(&mut self, other: &ModEnv<'a>) {
        for (k, v) in other.values.iter() {
            self.values = self.values.insert(k.clone(), *v);
        }
        for (k, v) in other.types.iter() {
            self.types = self.types.insert(k.clone(), *v);
        }
        for (k, v) in other.modules.iter() {
            self.modules = self.modules.insert(k.clone(), v.clone());
        }
        for (k, v) in other.modtypes.iter() {
            self.modtypes = self.modtypes.insert(k.clone(), v.clone());
        }
    }
}

/// The scope a declaration list is processed in, and what it exports.
struct Scope<'a> {
    env: ModEnv<'a>,
    exported: ModEnv<'a>,
    /// Filled with the final scope once the list is done: a name not yet
    /// defined where it is used is looked up there (so a recursive cycle is
    /// reported as such, not as an unknown name).
    forward: Rc<RefCell<ModEnv<'a>>>,
}

/// Names in one declaration list, to report duplicates.
#[derive(Default)]
struct Seen<'a> {
    defs: HashMap<&'a str, Span>,
    types: HashMap<&'a str, Span>,
}

impl<'a> Checker<'a> {
    /// Builds the environment of every file, registering every definition
    /// (also those in modules and functor applications) as a global one.
    /// Errors go to `self.errors`.
    pub(super) fn collect(&mut self, programs: &'a [ast::Program]) {
        // Every file sees what the files before it export (the standard
        // library, and its own imports, come first); `import` adds nothing
        // then, but `module m = import "x"` names one file's definitions.
        let mut earlier = ModEnv::default();
        let mut file_envs: HashMap<FileId, ModEnv<'a>> = HashMap::new();
        for (p, program) in programs.iter().enumerate() {
            for (path, file) in &program.imports {
                if let Some(e) = file_envs.get(file) {
                    self.imports.insert((program.file, path.clone()), e.clone());
                }
            }
            let mut env = earlier.clone();
            let exported = self.collect_decls(&program.decls, &mut env, program.file, Some(p));
            earlier.extend(&exported);
            file_envs.insert(program.file, exported);
        }
    }

    /// Processes a declaration list in `env`; returns what it exports.
    /// `top` is the program index when these are a file's top level (its
    /// definitions may be entry points).
    fn collect_decls(
        &mut self,
        decls: &'a [Decl],
        env: &mut ModEnv<'a>,
        file: FileId,
        top: Option<usize>,
    ) -> ModEnv<'a> {
        let mut scope = Scope {
            env: env.clone(),
            exported: ModEnv::default(),
            forward: Rc::new(RefCell::new(ModEnv::default())),
        };
        let mut seen = Seen::default();
        for decl in decls {
            self.collect_decl(decl, &mut scope, &mut seen, file, top, true);
        }
        *scope.forward.borrow_mut() = scope.env.clone();
        *env = scope.env;
        scope.exported
    }

    fn collect_decl(
        &mut self,
        decl: &'a Decl,
        scope: &mut Scope<'a>,
        seen: &mut Seen<'a>,
        file: FileId,
        top: Option<usize>,
        export: bool,
    ) {
        match decl {
            Decl::Def(def) => {
                if let Some(first) = seen.defs.insert(&def.name.name, def.name.span.clone()) {
                    self.errors.push(
                        Diagnostic::new(
                            file,
                            def.name.span.clone(),
                            format!("duplicate definition of `{}`", def.name.name),
                        )
                        .with_secondary(first, "first defined here"),
                    );
                    return;
                }
                let d = self.defs.len();
                let template = Rc::new(Template {
                    name: &def.name,
                    type_params: &def.type_params,
                    params: &def.params,
                    ret: def.ret.as_ref(),
                    body: &def.body,
                    ctx: Ctx::new(file, scope.env.clone(), Some(scope.forward.clone())),
                    scope: None,
                    def_index: Some(d),
                });
                self.defs.push(GlobalDef {
                    def,
                    program: top,
                    file,
                    template,
                    scheme: SchemeState::Todo,
                });
                let name: Rc<str> = Rc::from(def.name.name.as_str());
                scope.env.values = scope.env.values.insert(name.clone(), ValRef::Def(d));
                if export {
                    scope.exported.values = scope.exported.values.insert(name, ValRef::Def(d));
                }
            }
            Decl::Type(t) => {
                if let Some(first) = seen.types.insert(&t.name.name, t.name.span.clone()) {
                    self.errors.push(
                        Diagnostic::new(
                            file,
                            t.name.span.clone(),
                            format!("duplicate definition of type `{}`", t.name.name),
                        )
                        .with_secondary(first, "first defined here"),
                    );
                    return;
                }
                let i = self.types.len();
                self.types.push(GlobalType {
                    decl: t,
                    ctx: Ctx::new(file, scope.env.clone(), Some(scope.forward.clone())),
                });
                let name: Rc<str> = Rc::from(t.name.name.as_str());
                scope.env.types = scope.env.types.insert(name.clone(), i);
                if export {
                    scope.exported.types = scope.exported.types.insert(name, i);
                }
            }
            Decl::Import(path, _) => {
                // `import "x"` is `local open import "x"`.
                if let Some(e) = self.imports.get(&(file, path.clone())).cloned() {
                    scope.env.extend(&e);
                }
            }
            Decl::Module(m) => {
                let value = if m.params.is_empty() {
                    self.eval_module(&m.body, &scope.env, file)
                        .and_then(|v| match &m.sig {
                            Some(sig) => self.ascribe(v, sig, &scope.env, file),
                            None => Ok(v),
                        })
                } else {
                    Ok(ModValue::Functor(Rc::new(Functor {
                        params: m.params.iter().collect(),
                        sig: m.sig.as_ref(),
                        body: &m.body,
                        env: scope.env.clone(),
                        file,
                    })))
                };
                match value {
                    Ok(v) => {
                        let name: Rc<str> = Rc::from(m.name.name.as_str());
                        scope.env.modules = scope.env.modules.insert(name.clone(), v.clone());
                        if export {
                            scope.exported.modules = scope.exported.modules.insert(name, v);
                        }
                    }
                    Err(d) => self.errors.push(d),
                }
            }
            Decl::ModType(m) => {
                let v = Rc::new(ModTypeVal {
                    exp: &m.sig,
                    env: scope.env.clone(),
                });
                let name: Rc<str> = Rc::from(m.name.name.as_str());
                scope.env.modtypes = scope.env.modtypes.insert(name.clone(), v.clone());
                if export {
                    scope.exported.modtypes = scope.exported.modtypes.insert(name, v);
                }
            }
            Decl::Open(m, span) => match self.eval_module(m, &scope.env, file) {
                Ok(ModValue::Env(e)) => {
                    scope.env.extend(&e);
                    if export {
                        scope.exported.extend(&e);
                    }
                }
                Ok(ModValue::Scalar(t)) => {
                    let e = scalar_env(t);
                    scope.env.extend(&e);
                    if export {
                        scope.exported.extend(&e);
                    }
                }
                Ok(ModValue::Functor(_)) => self.errors.push(Diagnostic::new(
                    file,
                    span.clone(),
                    "cannot open a parametric module",
                )),
                Err(d) => self.errors.push(d),
            },
            Decl::Local(d, _) => self.collect_decl(d, scope, seen, file, top, false),
        }
    }

    /// The module a module expression denotes.
    fn eval_module(
        &mut self,
        m: &'a ModExp,
        env: &ModEnv<'a>,
        file: FileId,
    ) -> Result<ModValue<'a>> {
        match m {
            ModExp::Var(q) => {
                lookup_module(env, q).map_err(|msg| Diagnostic::new(file, q.span(), msg))
            }
            ModExp::Struct(decls, _) => {
                let mut inner = env.clone();
                Ok(ModValue::Env(
                    self.collect_decls(decls, &mut inner, file, None),
                ))
            }
            ModExp::Ascribe(m, sig, _) => {
                let v = self.eval_module(m, env, file)?;
                self.ascribe(v, sig, env, file)
            }
            ModExp::Lambda(params, sig, body, _) => Ok(ModValue::Functor(Rc::new(Functor {
                params: params.iter().collect(),
                sig: sig.as_ref(),
                body,
                env: env.clone(),
                file,
            }))),
            ModExp::Apply(f, a, span) => {
                let f = self.eval_module(f, env, file)?;
                let a = self.eval_module(a, env, file)?;
                match f {
                    ModValue::Functor(func) => self.apply_functor(&func, a),
                    _ => Err(Diagnostic::new(
                        file,
                        span.clone(),
                        "only a parametric module can be applied to a module",
                    )),
                }
            }
            ModExp::Import(path, span) => match self.imports.get(&(file, path.clone())) {
                Some(e) => Ok(ModValue::Env(e.clone())),
                None => Err(Diagnostic::new(
                    file,
                    span.clone(),
                    format!("cannot find the file imported as `{path}`"),
                )),
            },
        }
    }

    /// A functor applied to one module: its first parameter bound; the body
    /// elaborated when no parameter is left.
    fn apply_functor(&mut self, f: &Functor<'a>, arg: ModValue<'a>) -> Result<ModValue<'a>> {
        let Some((first, rest)) = f.params.split_first() else {
            return Err(Diagnostic::new(
                f.file,
                f.body.span(),
                "this module takes no more arguments",
            ));
        };
        let arg = self.ascribe(arg, &first.sig, &f.env, f.file)?;
        let mut env = f.env.clone();
        let name: Rc<str> = Rc::from(first.name.name.as_str());
        env.modules = env.modules.insert(name, arg);
        if !rest.is_empty() {
            return Ok(ModValue::Functor(Rc::new(Functor {
                params: rest.to_vec(),
                sig: f.sig,
                body: f.body,
                env,
                file: f.file,
            })));
        }
        let result = self.eval_module(f.body, &env, f.file)?;
        match f.sig {
            Some(sig) => self.ascribe(result, sig, &env, f.file),
            None => Ok(result),
        }
    }

    /// `m : sig`: the module with only the names `sig` lists (types stay
    /// transparent).
    fn ascribe(
        &mut self,
        m: ModValue<'a>,
        sig: &'a ModTypeExp,
        env: &ModEnv<'a>,
        file: FileId,
    ) -> Result<ModValue<'a>> {
        let ModValue::Env(menv) = m else {
            return Ok(m);
        };
        let mut names = SigNames::default();
        if !self.sig_names(sig, env, file, &mut names, 0)? {
            return Ok(ModValue::Env(menv));
        }
        // Every name the module type lists must be there (types of values
        // are not compared: a wrong one fails where it is used).
        let missing = |kind: &str, wanted: &[String], has: &dyn Fn(&str) -> bool| {
            wanted.iter().find(|n| !has(n)).map(|n| {
                format!("the module does not define {kind} `{n}`, which its module type requires")
            })
        };
        let lacks = missing("value", &names.values, &|n| menv.values.get(n).is_some())
            .or_else(|| missing("type", &names.types, &|n| menv.types.get(n).is_some()))
            .or_else(|| missing("module", &names.modules, &|n| menv.modules.get(n).is_some()));
        if let Some(msg) = lacks {
            return Err(
                Diagnostic::new(file, sig.span(), msg).with_label("this module type lists it")
            );
        }
        let mut out = ModEnv::default();
        for (k, v) in menv.values.iter() {
            if names.values.iter().any(|n| **n == **k) {
                out.values = out.values.insert(k.clone(), *v);
            }
        }
        for (k, v) in menv.types.iter() {
            if names.types.iter().any(|n| **n == **k) {
                out.types = out.types.insert(k.clone(), *v);
            }
        }
        for (k, v) in menv.modules.iter() {
            if names.modules.iter().any(|n| **n == **k) {
                out.modules = out.modules.insert(k.clone(), v.clone());
            }
        }
        out.modtypes = menv.modtypes.clone();
        Ok(ModValue::Env(out))
    }

    /// Collects the names a module type lists; `false` for a parametric
    /// module's type (nothing is hidden then).
    fn sig_names(
        &mut self,
        sig: &'a ModTypeExp,
        env: &ModEnv<'a>,
        file: FileId,
        names: &mut SigNames,
        depth: usize,
    ) -> Result<bool> {
        if depth > 100 {
            return Err(Diagnostic::new(
                file,
                sig.span(),
                "module type defined in terms of itself",
            ));
        }
        match sig {
            ModTypeExp::Var(q) => {
                let mt =
                    lookup_modtype(env, q).map_err(|msg| Diagnostic::new(file, q.span(), msg))?;
                let inner_env = mt.env.clone();
                self.sig_names(mt.exp, &inner_env, file, names, depth + 1)
            }
            ModTypeExp::Specs(specs, _) => {
                for spec in specs {
                    match spec {
                        Spec::Val(n, ..) => {
                            names.values.push(n.name.clone());
                        }
                        Spec::Type(n, ..) => names.types.push(n.name.clone()),
                        Spec::Module(n, ..) => names.modules.push(n.name.clone()),
                        Spec::Include(t, _) => {
                            self.sig_names(t, env, file, names, depth + 1)?;
                        }
                    }
                }
                Ok(true)
            }
            ModTypeExp::With(m, ..) => self.sig_names(m, env, file, names, depth + 1),
            ModTypeExp::Arrow(..) => Ok(false),
        }
    }
}

#[derive(Default)]
struct SigNames {
    values: Vec<String>,
    types: Vec<String>,
    modules: Vec<String>,
}

/// The environment `open f32` brings in: the module's functions and
/// constants.
fn scalar_env<'a>(t: ScalarType) -> ModEnv<'a> {
    let mut e = ModEnv::default();
    for name in super::super::builtins::scalar_member_names(t) {
        e.values = e.values.insert(Rc::from(name.as_str()), ValRef::Scalar(t));
    }
    e
}

/// The module a path names: user modules first, then the scalar modules.
pub(super) fn lookup_module<'a>(
    env: &ModEnv<'a>,
    q: &QualIdent,
) -> std::result::Result<ModValue<'a>, String> {
    let mut path: Vec<&Ident> = q.quals.iter().collect();
    path.push(&q.name);
    lookup_module_path(env, &path)
}

pub(super) fn lookup_module_path<'a>(
    env: &ModEnv<'a>,
    path: &[&Ident],
) -> std::result::Result<ModValue<'a>, String> {
    let mut current: Option<ModValue<'a>> = None;
    for (i, name) in path.iter().enumerate() {
        let found = match &current {
            None => env
                .modules
                .get(name.name.as_str())
                .cloned()
                .or_else(|| ScalarType::from_name(&name.name).map(ModValue::Scalar)),
            Some(ModValue::Env(e)) => e.modules.get(name.name.as_str()).cloned(),
            Some(_) => None,
        };
        match found {
            Some(v) => current = Some(v),
            None => {
                if let (0, Some(feature)) = (i, super::unsupported_feature(&name.name)) {
                    return Err(format!("{feature} is not supported"));
                }
                let so_far: Vec<&str> = path[..=i].iter().map(|n| n.name.as_str()).collect();
                return Err(format!("unknown module `{}`", so_far.join(".")));
            }
        }
    }
    current.ok_or_else(|| "empty module path".to_string())
}

fn lookup_modtype<'a>(
    env: &ModEnv<'a>,
    q: &QualIdent,
) -> std::result::Result<Rc<ModTypeVal<'a>>, String> {
    let scope = if q.quals.is_empty() {
        env.clone()
    } else {
        let path: Vec<&Ident> = q.quals.iter().collect();
        match lookup_module_path(env, &path)? {
            ModValue::Env(e) => e,
            _ => return Err(format!("unknown module type `{}`", q.text())),
        }
    };
    scope
        .modtypes
        .get(q.name.name.as_str())
        .cloned()
        .ok_or_else(|| format!("unknown module type `{}`", q.text()))
}
