//! Consumption checking (Futhark's uniqueness types), over the checked
//! program: a `CheckedProgram` and the locals declared unique (`*t`) in,
//! diagnostics out.
//!
//! An argument passed to a unique parameter is *consumed*: the callee may
//! update it in place, so the caller may not use it, nor anything aliasing
//! it, afterwards. Aliases are tracked by the variables whose memory a
//! value may share (its *roots*): a variable, a `let` of it, its rows,
//! slices and fields, tuples holding it, its rearrangements (`transpose`,
//! `flatten`, `zip`, ...), and either branch of an `if` or `match`. A tuple written out and bound
//! to a tuple pattern gives each name its own component's roots. The
//! result of calling a function aliases the arguments that the function's
//! own result may alias (found by walking its body once); results of SOACs
//! and `with` count as fresh, and
//! `with` on its own consumes nothing (section 6 of the contract gives it
//! value semantics), so only programs that use `*` meet this check.
//!
//! `let a[i] = v` (Futhark's in-place update) consumes `a` too, once `v`
//! is computed, and so does binding a value to a pattern declared unique
//! (`let b: *[]t = a`, `loop (b: *[]t) = a`). What is consumed must be consumable, as in Futhark: not a
//! parameter of a function without `*`, nor a variable bound outside the
//! anonymous function that consumes it.
//!
//! A result declared unique (`: *t`, or components of `: (*t, u)`) may
//! alias neither a parameter declared without `*` nor another component
//! of the result.
//!
//! A loop body runs many times: after one pass, the body is walked again
//! with its state aliasing what the first pass returned, so that a body
//! consuming a variable bound outside the loop, or its state once that
//! aliases such a variable, is reported at its second use. A loop's result
//! aliases the variables bound outside it that its body may return.
//!
//! A top-level constant is shared by every use: it is a root of its own,
//! which nothing may consume and no function's result may alias (as in
//! Futhark), and it may not be declared unique (defs.rs).

use super::*;
use std::collections::HashSet;

/// Where a root was consumed.
#[derive(Clone)]
struct Consumed {
    file: FileId,
    span: Span,
}

type Roots = Vec<LocalId>;

/// What the type checker found that this check needs.
pub(super) struct Facts<'p> {
    /// Locals declared unique (`*t`).
    pub unique: &'p HashSet<LocalId>,
    /// The updates written `let a[i] = v`.
    pub in_place: &'p HashSet<(FileId, Span)>,
    /// Where each named local is bound.
    pub bound: &'p HashMap<LocalId, (FileId, Span)>,
    /// Instances whose return type is written unique (per component).
    pub unique_ret: &'p HashMap<usize, Vec<bool>>,
    /// The same for each entry point, in order.
    pub entry_unique_ret: &'p [Vec<bool>],
    /// The same for anonymous functions, by where they are written.
    pub lambda_unique_ret: &'p HashMap<(FileId, Span), Vec<bool>>,
}

struct Walk<'p> {
    program: &'p CheckedProgram,
    facts: &'p Facts<'p>,
    unique: &'p HashSet<LocalId>,
    /// The roots of each variable bound to an alias (absent: itself).
    aliases: HashMap<LocalId, Roots>,
    names: HashMap<LocalId, String>,
    consumed: HashMap<LocalId, Consumed>,
    /// How many consumptions were recorded, ever.
    consumptions: usize,
    errors: Vec<Diagnostic>,
    sources: &'p SourceMap,
    in_place: &'p HashSet<(FileId, Span)>,
    /// Parameters of entry points and functions declared without `*`.
    shared_params: HashSet<LocalId>,
    /// How many anonymous functions the walk is inside, and the depth at
    /// which each variable was bound.
    depth: usize,
    bound_at: HashMap<LocalId, usize>,
    /// Every variable bound so far, in order (a loop's body binds those
    /// after the mark taken before it).
    bound_log: Vec<LocalId>,
    /// Variables bound by destructuring (`let (a, b) = ...`, a loop's
    /// tuple): their roots are those of the whole value, so consuming one
    /// consumes only itself.
    destructured: HashSet<LocalId>,
    /// For each instance walked for it, the parameters (by position) whose
    /// roots its result may have; `summarising`: those being walked.
    summaries: HashMap<usize, Vec<usize>>,
    summarising: HashSet<usize>,
}

/// Checks every entry point and instance; returns the errors found.
pub(super) fn check_consumption(
    sources: &SourceMap,
    program: &CheckedProgram,
    facts: &Facts,
) -> Vec<Diagnostic> {
    let mut w = Walk::new(sources, program, facts);
    for (k, entry) in program.entries.iter().enumerate() {
        w.consumed.clear();
        entry.params.iter().for_each(|p| w.bind_param(p));
        let parts = w.expr_parts(&entry.body);
        if let Some(flags) = facts.entry_unique_ret.get(k) {
            w.check_unique_result(flags, &parts);
        }
        if !entry.params.is_empty() {
            w.check_constant_result(&parts);
        }
    }
    for (k, inst) in program.instances.iter().enumerate() {
        w.consumed.clear();
        inst.params.iter().for_each(|p| w.bind_param(p));
        let parts = w.expr_parts(&inst.body);
        if let Some(flags) = facts.unique_ret.get(&k) {
            w.check_unique_result(flags, &parts);
        }
        if !inst.params.is_empty() {
            w.check_constant_result(&parts);
        }
    }
    let mut seen = HashSet::new();
    w.errors
        .retain(|d| seen.insert((d.file, d.span.clone(), d.message.clone())));
    w.errors
}

fn union(mut a: Roots, b: Roots) -> Roots {
    for r in b {
        if !a.contains(&r) {
            a.push(r);
        }
    }
    a
}

/// Whether a parameter's pattern declares its value unique.
fn is_unique(p: &TPat, unique: &HashSet<LocalId>) -> bool {
    match p {
        TPat::Var { id, .. } => unique.contains(id),
        TPat::Ascribed(q, _) => is_unique(q, unique),
        _ => false,
    }
}

/// The root standing for top-level constant `k` (instance `k` without
/// parameters): numbered down from the top, far from every local.
fn constant_root(k: usize) -> LocalId {
    LocalId(u32::MAX - k as u32)
}

/// The constant a root stands for, if it stands for one.
fn constant_of(r: LocalId) -> Option<usize> {
    let k = (u32::MAX - r.0) as usize;
    (k < CONSTANT_ROOTS).then_some(k)
}

/// How many instances `constant_root` can number.
const CONSTANT_ROOTS: usize = 1 << 24;

/// The variables a pattern binds.
fn pat_vars(p: &TPat, out: &mut Vec<LocalId>) {
    match p {
        TPat::Var { id, .. } => out.push(*id),
        TPat::Tuple(ps, _) | TPat::Ctor(_, ps, _) => ps.iter().for_each(|q| pat_vars(q, out)),
        TPat::Ascribed(q, _) => pat_vars(q, out),
        TPat::Wildcard(_) | TPat::Lit(_) => {}
    }
}

impl<'p> Walk<'p> {
    fn new(sources: &'p SourceMap, program: &'p CheckedProgram, facts: &'p Facts<'p>) -> Self {
        Walk {
            in_place: facts.in_place,
            shared_params: HashSet::new(),
            depth: 0,
            bound_at: HashMap::new(),
            bound_log: Vec::new(),
            destructured: HashSet::new(),
            program,
            facts,
            unique: facts.unique,
            aliases: HashMap::new(),
            names: HashMap::new(),
            consumed: HashMap::new(),
            consumptions: 0,
            errors: Vec::new(),
            sources,
            summaries: HashMap::new(),
            summarising: HashSet::new(),
        }
    }

    /// The parameters of instance `k` (by position) whose roots its result
    /// may have: its body walked once on its own, its errors dropped (the
    /// instance's own walk reports them).
    fn summary(&mut self, k: usize) -> Vec<usize> {
        if let Some(s) = self.summaries.get(&k) {
            return s.clone();
        }
        let Some(lam) = self.program.instances.get(k) else {
            return Vec::new();
        };
        // The prelude's `copy` and `manifest` are the identity only because
        // arrays have value semantics: as in Futhark, their results are fresh.
        let fresh_copy = matches!(lam.name.as_deref(), Some("copy" | "manifest"))
            && self.sources.name(lam.body.file) == "stdlib/prelude.arr";
        if fresh_copy || !self.summarising.insert(k) {
            return Vec::new();
        }
        let mut sub = Walk::new(self.sources, self.program, self.facts);
        sub.summaries = std::mem::take(&mut self.summaries);
        sub.summarising = std::mem::take(&mut self.summarising);
        lam.params.iter().for_each(|p| sub.bind_param(p));
        let roots = sub.expr(&lam.body);
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
        self.summaries.insert(k, aliased.clone());
        aliased
    }

    /// Checks a result declared unique (`flags`: one per component of a
    /// tuple written as one, else one) against its parts' roots.
    fn check_unique_result(&mut self, flags: &[bool], parts: &[(Roots, &TExpr)]) {
        let separate = flags.len() > 1 && flags.len() == parts.len();
        let parts: Vec<(Roots, &TExpr)> = if flags.len() == parts.len() {
            parts.to_vec()
        } else {
            // A tuple result not written out: its roots as one.
            let all = parts
                .iter()
                .fold(Vec::new(), |a, (r, _)| union(a, r.clone()));
            match parts.last() {
                Some((_, e)) => vec![(all, *e); flags.len()],
                None => return,
            }
        };
        for (i, (&unique, (roots, e))) in flags.iter().zip(&parts).enumerate() {
            if !unique {
                continue;
            }
            if let Some(&p) = roots.iter().find(|r| self.shared_params.contains(r)) {
                let name = self.name(p);
                let mut d = Diagnostic::new(
                    e.file,
                    e.span.clone(),
                    format!(
                        "a unique result is aliased to `{name}`, a parameter without a unique \
                         type, which is not consumable"
                    ),
                )
                .with_label("returned here");
                d = self.with_place(d, p, format!("`{name}` is bound here, without `*`"));
                self.errors.push(d.with_note(
                    "a result declared `*` must not share memory with what the caller keeps: \
                     return a `copy`, or declare the parameter `*`",
                ));
                continue;
            }
            if !separate {
                continue;
            }
            // Names destructured from one value stand for themselves (their
            // roots are the whole value's), as when they are consumed.
            let roots = self.precise(e, roots.clone());
            for (j, (other, f)) in parts.iter().enumerate() {
                if j == i || (j < i && flags[j]) {
                    continue;
                }
                let other = self.precise(f, other.clone());
                if let Some(&r) = roots.iter().find(|r| other.contains(r)) {
                    let name = self.name(r);
                    let mut d = Diagnostic::new(
                        e.file,
                        e.span.clone(),
                        format!(
                            "component {} of a result declared unique is aliased to some other \
                             component (both share `{name}`)",
                            i + 1
                        ),
                    )
                    .with_label("this component");
                    if f.file == e.file && f.span != e.span {
                        d = d.with_secondary(f.span.clone(), format!("component {}", j + 1));
                    }
                    self.errors.push(d.with_note(
                        "a unique component must be the only reference to its memory: return a \
                         `copy` in one of them",
                    ));
                    break;
                }
            }
        }
    }

    /// Walks the body of anonymous function `e` (its parameters bound);
    /// returns its roots. A result declared unique (`\(xs: []t) : *[]t ->
    /// ...`) may not alias a parameter without `*`, as for a `def`.
    fn lambda_body(&mut self, e: &TExpr, lam: &TLambda) -> Roots {
        let parts = self.expr_parts(&lam.body);
        if let Some(flags) = self.facts.lambda_unique_ret.get(&(e.file, e.span.clone())) {
            let mut shared = Vec::new();
            for p in lam.params.iter().filter(|p| !is_unique(p, self.unique)) {
                pat_vars(p, &mut shared);
            }
            shared.retain(|v| self.shared_params.insert(*v));
            self.check_unique_result(flags, &parts);
            for v in &shared {
                self.shared_params.remove(v);
            }
        }
        parts.into_iter().fold(Vec::new(), |a, (r, _)| union(a, r))
    }

    /// For a tuple pattern with components declared unique, which are.
    fn unique_fields(&self, p: &TPat) -> Option<Vec<bool>> {
        match p {
            TPat::Tuple(ps, _) => {
                let flags: Vec<bool> = ps.iter().map(|q| is_unique(q, self.unique)).collect();
                flags.iter().any(|u| *u).then_some(flags)
            }
            TPat::Ascribed(q, _) => self.unique_fields(q),
            _ => None,
        }
    }

    /// The components of a tuple given for a unique parameter may not
    /// alias each other (`g (a[0], a)`): the callee would own one array
    /// twice.
    fn unique_parts_apart(&mut self, parts: &[(Roots, &TExpr)]) {
        for (i, (roots, e)) in parts.iter().enumerate() {
            let roots = self.precise(e, roots.clone());
            for (other, f) in &parts[i + 1..] {
                let other = self.precise(f, other.clone());
                if let Some(&r) = roots.iter().find(|r| other.contains(r)) {
                    let name = self.name(r);
                    let mut d = Diagnostic::new(
                        f.file,
                        f.span.clone(),
                        format!(
                            "an argument given for a unique parameter is self-aliased: two of \
                             its components share `{name}`"
                        ),
                    )
                    .with_label("this component");
                    if e.file == f.file {
                        d = d.with_secondary(e.span.clone(), "aliases this one");
                    }
                    self.errors.push(d.with_note(
                        "a unique parameter owns its whole argument: pass a `copy` of one \
                         component",
                    ));
                    return;
                }
            }
        }
    }

    /// The roots of a use of instance `k`: a constant (no parameters)
    /// holding arrays is one root of its own, shared by every use.
    fn constant_roots(&mut self, k: usize) -> Roots {
        match self.program.instances.get(k) {
            Some(lam) if lam.params.is_empty() && lam.body.ty.may_share_memory() => {
                let root = constant_root(k);
                let name = lam.name.clone().unwrap_or_else(|| "a constant".into());
                self.names.insert(root, name);
                vec![root]
            }
            _ => Vec::new(),
        }
    }

    /// A function's result may not alias a top-level constant, as in
    /// Futhark: the caller could then consume the constant through it.
    fn check_constant_result(&mut self, parts: &[(Roots, &TExpr)]) {
        for (roots, e) in parts {
            let Some((r, k)) = roots.iter().find_map(|&r| Some((r, constant_of(r)?))) else {
                continue;
            };
            let name = self.name(r);
            let d = Diagnostic::new(
                e.file,
                e.span.clone(),
                format!("a function's result aliases the top-level constant `{name}`"),
            )
            .with_label("returned here");
            let d = self.with_definition(d, k, format!("`{name}` is defined here"));
            self.errors.push(d.with_note(format!(
                "a caller could consume the result and so `{name}`: return a `copy` of it"
            )));
            return;
        }
    }

    /// `d` with the place where instance `k` is defined (its body).
    fn with_definition(&self, d: Diagnostic, k: usize, label: String) -> Diagnostic {
        let Some(lam) = self.program.instances.get(k) else {
            return d;
        };
        let (file, span) = (lam.body.file, lam.body.span.clone());
        if file == d.file {
            d.with_secondary(span, label)
        } else {
            let (line, col) = self.sources.line_col(file, span.start);
            let name = self.sources.name(file);
            d.with_note(format!("{label}: {name}:{line}:{col}"))
        }
    }

    /// `d` with the place where `id` is bound (a label when in the same
    /// file, else a note).
    fn with_place(&self, d: Diagnostic, id: LocalId, label: String) -> Diagnostic {
        match self.facts.bound.get(&id) {
            Some((file, span)) if *file == d.file => d.with_secondary(span.clone(), label),
            Some((file, span)) => {
                let (line, col) = self.sources.line_col(*file, span.start);
                let name = self.sources.name(*file);
                d.with_note(format!("{label}: {name}:{line}:{col}"))
            }
            None => d,
        }
    }

    /// Walks `e` as `expr` does, keeping the roots of each component apart
    /// where its value is a tuple written out (after its `let`s).
    fn expr_parts<'e>(&mut self, e: &'e TExpr) -> Vec<(Roots, &'e TExpr)> {
        let mut e = e;
        loop {
            match &e.kind {
                TExprKind::Let(p, rhs, body) => {
                    self.let_binding(p, rhs);
                    e = body;
                }
                // Walked as what they hold (see `expr`).
                TExprKind::Ascribe(a, _) | TExprKind::Attr(_, a) => e = a,
                _ => break,
            }
        }
        match &e.kind {
            TExprKind::Tuple(es) if es.len() > 1 => es.iter().map(|x| (self.expr(x), x)).collect(),
            _ => vec![(self.expr(e), e)],
        }
    }

    /// `let p = rhs`: a tuple written out bound to a tuple pattern gives
    /// each name its component's roots; a pattern declared unique
    /// consumes what it binds.
    fn let_binding(&mut self, p: &TPat, rhs: &TExpr) {
        match p {
            TPat::Tuple(ps, _) => {
                let parts = self.expr_parts(rhs);
                if parts.len() == ps.len() {
                    for (q, (roots, _)) in ps.iter().zip(parts) {
                        self.let_component(q, &roots, rhs);
                    }
                } else {
                    let all = parts.into_iter().fold(Vec::new(), |a, (r, _)| union(a, r));
                    self.bind(p, &all);
                }
            }
            _ => {
                let roots = self.expr(rhs);
                self.let_component(p, &roots, rhs);
            }
        }
    }

    fn let_component(&mut self, p: &TPat, roots: &[LocalId], rhs: &TExpr) {
        if is_unique(p, self.unique) {
            let roots = self.precise(rhs, roots.to_vec());
            self.consume(&roots, rhs);
        }
        self.bind(p, roots);
    }

    /// A parameter of an entry point or a function.
    fn bind_param(&mut self, p: &TPat) {
        self.bind(p, &[]);
        if !is_unique(p, self.unique) {
            let mut vars = Vec::new();
            pat_vars(p, &mut vars);
            self.shared_params.extend(vars);
        }
    }

    /// The roots consuming `e` consumes: a destructured variable's roots
    /// are those of the whole value it came from, so only itself.
    fn precise(&self, e: &TExpr, roots: Roots) -> Roots {
        match &e.kind {
            TExprKind::Var(id) if self.destructured.contains(id) => vec![*id],
            _ => roots,
        }
    }

    /// Records that `roots` are consumed by `at`, reporting those that may
    /// not be.
    fn consume(&mut self, roots: &[LocalId], at: &TExpr) {
        for &r in roots {
            let name = self.name(r);
            if self.shared_params.contains(&r) {
                let d = Diagnostic::new(
                    at.file,
                    at.span.clone(),
                    format!("consuming `{name}`, which is not consumable"),
                )
                .with_label("consumed here");
                let d = self.with_place(d, r, format!("`{name}` is bound here, without `*`"));
                self.errors.push(d.with_note(format!(
                    "`{name}` is a parameter without a unique type: declare it `*` \
                     or consume a `copy` of it"
                )));
            } else if let Some(k) = constant_of(r) {
                let d = Diagnostic::new(
                    at.file,
                    at.span.clone(),
                    format!("consuming `{name}`, a top-level constant, which is not consumable"),
                )
                .with_label("consumed here");
                let d = self.with_definition(d, k, format!("`{name}` is defined here"));
                self.errors.push(d.with_note(format!(
                    "every use of `{name}` shares its memory: consume a `copy` of it"
                )));
            } else if self.bound_at.get(&r).is_some_and(|d| *d < self.depth) {
                self.errors.push(
                    Diagnostic::new(
                        at.file,
                        at.span.clone(),
                        format!(
                            "consuming `{name}`, which is bound outside this anonymous \
                             function, so it is not consumable here"
                        ),
                    )
                    .with_label("consumed here")
                    .with_note("consume a `copy` of it, or pass it as an argument"),
                );
            }
            self.consumptions += 1;
            self.consumed.insert(
                r,
                Consumed {
                    file: at.file,
                    span: at.span.clone(),
                },
            );
        }
    }

    fn bind(&mut self, p: &TPat, roots: &[LocalId]) {
        match p {
            TPat::Var { id, name, ty } => {
                self.bound_at.insert(*id, self.depth);
                self.bound_log.push(*id);
                self.shared_params.remove(id);
                self.destructured.remove(id);
                // A new value (a loop body walked again rebinds its names).
                self.consumed.remove(id);
                self.names.insert(*id, name.clone());
                // Roots consumed already are not shared with the new name
                // (`let x = if c then a else f a` gives a usable `x`).
                let live: Roots = roots
                    .iter()
                    .filter(|r| !self.consumed.contains_key(r))
                    .copied()
                    .collect();
                if ty.may_share_memory() && !live.is_empty() {
                    self.aliases.insert(*id, live);
                } else {
                    self.aliases.remove(id);
                }
            }
            TPat::Tuple(ps, _) | TPat::Ctor(_, ps, _) => {
                ps.iter().for_each(|q| self.bind(q, roots));
                let mut vars = Vec::new();
                pat_vars(p, &mut vars);
                self.destructured.extend(vars);
            }
            TPat::Ascribed(q, _) => self.bind(q, roots),
            TPat::Wildcard(_) | TPat::Lit(_) => {}
        }
    }

    fn roots_of(&self, id: LocalId) -> Roots {
        self.aliases.get(&id).cloned().unwrap_or_else(|| vec![id])
    }

    fn name(&self, id: LocalId) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| "a value".into())
    }

    fn use_var(&mut self, id: LocalId, e: &TExpr) {
        for r in self.roots_of(id) {
            let Some(c) = self.consumed.get(&r).cloned() else {
                continue;
            };
            let (used, root) = (self.name(id), self.name(r));
            let msg = if used == root {
                format!("`{used}` is used after it was consumed")
            } else {
                format!("`{used}` is used after `{root}`, which it aliases, was consumed")
            };
            let same_place = c.file == e.file && c.span == e.span;
            let msg = if same_place {
                format!("`{root}` is consumed in a loop body and used again by its next iteration")
            } else {
                msg
            };
            let mut d = Diagnostic::new(e.file, e.span.clone(), msg).with_label("used here");
            if same_place {
                d = d.with_label("consumed here, in every iteration");
            } else if c.file == e.file {
                d = d.with_secondary(c.span.clone(), format!("`{root}` is consumed here"));
            } else {
                let (line, col) = self.sources.line_col(c.file, c.span.start);
                let file = self.sources.name(c.file);
                d = d.with_note(format!("`{root}` is consumed at {file}:{line}:{col}"));
            }
            let d = d.with_note(
                "an argument passed to a unique (`*`) parameter, or an array updated by \
                 `let a[i] = v`, may be updated in place; use a `copy` to keep using it",
            );
            self.errors.push(d);
            return;
        }
    }

    /// Walks `e` in evaluation order; returns the roots its value may alias.
    fn expr(&mut self, e: &TExpr) -> Roots {
        let mut e = e;
        // `let` chains in a loop: they nest as deep as they are long.
        while let TExprKind::Let(p, rhs, body) = &e.kind {
            self.let_binding(p, rhs);
            e = body;
        }
        let roots = match &e.kind {
            TExprKind::Let(..) => unreachable!("walked above"),
            TExprKind::Var(id) => {
                self.use_var(*id, e);
                self.roots_of(*id)
            }
            TExprKind::Instance(k) => self.constant_roots(*k),
            TExprKind::Literal(_)
            | TExprKind::Builtin(_)
            | TExprKind::TypeMember(..)
            | TExprKind::DefUse { .. } => Vec::new(),
            TExprKind::Tuple(es) | TExprKind::Ctor(_, es) => {
                let mut roots = Vec::new();
                for x in es {
                    let r = self.expr(x);
                    roots = union(roots, r);
                }
                roots
            }
            TExprKind::Record(fs) => {
                let mut roots = Vec::new();
                for (_, x) in fs {
                    let r = self.expr(x);
                    roots = union(roots, r);
                }
                roots
            }
            TExprKind::ArrayLit(es) => {
                es.iter().for_each(|x| drop(self.expr(x)));
                Vec::new()
            }
            TExprKind::Apply(f, args) => self.apply(f, args),
            TExprKind::BinOp(_, a, b) => {
                self.expr(a);
                self.expr(b);
                Vec::new()
            }
            TExprKind::UnOp(_, a) => {
                self.expr(a);
                Vec::new()
            }
            TExprKind::Lambda(lam) => {
                self.depth += 1;
                lam.params.iter().for_each(|p| self.bind(p, &[]));
                self.lambda_body(e, lam);
                self.depth -= 1;
                Vec::new()
            }
            TExprKind::If(c, a, b) => {
                self.expr(c);
                self.branches([&**a, &**b].into_iter())
            }
            TExprKind::Match(x, cases) => {
                let roots = self.expr(x);
                for (p, _) in cases {
                    self.bind(p, &roots);
                }
                self.branches(cases.iter().map(|(_, b)| b))
            }
            TExprKind::Index(a, idx) => {
                let roots = self.expr(a);
                idx.iter().for_each(|i| drop(self.expr(i)));
                roots
            }
            TExprKind::Slice(a, dims) => {
                let roots = self.expr(a);
                for d in dims {
                    match d {
                        TSlice::Index(x) => drop(self.expr(x)),
                        TSlice::Range { start, end, stride } => {
                            for x in [start, end, stride].into_iter().flatten() {
                                self.expr(x);
                            }
                        }
                    }
                }
                roots
            }
            TExprKind::Field(a, _) | TExprKind::Ascribe(a, _) | TExprKind::Attr(_, a) => {
                self.expr(a)
            }
            TExprKind::Assert(c, a) => {
                self.expr(c);
                self.expr(a)
            }
            TExprKind::Range {
                start, second, end, ..
            } => {
                self.expr(start);
                if let Some(s) = second {
                    self.expr(s);
                }
                self.expr(end);
                Vec::new()
            }
            TExprKind::Update(a, idx, v) => {
                let roots = self.expr(a);
                idx.iter().for_each(|i| drop(self.expr(i)));
                self.expr(v);
                if self.in_place.contains(&(e.file, e.span.clone())) {
                    let roots = self.precise(a, roots);
                    self.consume(&roots, e);
                }
                Vec::new()
            }
            TExprKind::RecordUpdate(a, _, v) => {
                let r = self.expr(a);
                let s = self.expr(v);
                union(r, s)
            }
            TExprKind::Loop {
                pat,
                init,
                form,
                body,
            } => {
                let roots = self.expr(init);
                if is_unique(pat, self.unique) {
                    let roots = self.precise(init, roots.clone());
                    self.consume(&roots, init);
                }
                let before = self.consumptions;
                let mark = self.bound_log.len();
                let result = self.loop_pass(pat, &roots, form, body);
                // What the body returns may alias variables bound outside
                // the loop (the state's roots are the initial value's).
                let inside = &self.bound_log[mark..];
                let outside: Roots = result.into_iter().filter(|r| !inside.contains(r)).collect();
                // Again, as the next iteration sees it, its state aliasing
                // what the body returned: anything consumed the first time
                // that the body still uses is reported.
                if self.consumptions > before {
                    self.loop_pass(pat, &outside, form, body);
                }
                outside
            }
        };
        if e.ty.may_share_memory() {
            roots
        } else {
            Vec::new()
        }
    }

    /// One pass over a loop's body; returns the roots of its result.
    fn loop_pass(
        &mut self,
        pat: &TPat,
        roots: &[LocalId],
        form: &TLoopForm,
        body: &TExpr,
    ) -> Roots {
        self.bind(pat, roots);
        match form {
            TLoopForm::For { bound, .. } => drop(self.expr(bound)),
            TLoopForm::ForIn { pat: x, array } => {
                let r = self.expr(array);
                self.bind(x, &r);
            }
            TLoopForm::While(c) => drop(self.expr(c)),
        }
        self.expr(body)
    }

    /// Alternatives: each starts from the same consumption; afterwards,
    /// whatever any of them consumed is consumed.
    fn branches<'e>(&mut self, alts: impl Iterator<Item = &'e TExpr>) -> Roots {
        let start = self.consumed.clone();
        let mut all = HashMap::new();
        let mut roots = Vec::new();
        for alt in alts {
            self.consumed = start.clone();
            let r = self.expr(alt);
            roots = union(roots, r);
            all.extend(std::mem::take(&mut self.consumed));
        }
        self.consumed = if all.is_empty() { start } else { all };
        roots
    }

    /// A call: the arguments in order, then those passed to unique
    /// parameters consumed. Its result counts as fresh.
    fn apply(&mut self, f: &TExpr, args: &[TExpr]) -> Roots {
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
                &[]
            }
        };
        let mut arg_roots: Vec<Roots> = Vec::new();
        let mut field_consumed: Vec<(usize, Roots)> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let parts = self.expr_parts(a);
            if params.get(i).is_some_and(|p| is_unique(p, self.unique)) {
                self.unique_parts_apart(&parts);
            } else if let Some(flags) = params.get(i).and_then(|p| self.unique_fields(p)) {
                // `(ar: *[]t, a: *[][]t)`: a tuple written out for it gives
                // each unique component its own roots, consumed below.
                if flags.len() == parts.len() {
                    let unique_parts: Vec<(Roots, &TExpr)> = parts
                        .iter()
                        .zip(&flags)
                        .filter(|(_, u)| **u)
                        .map(|(part, _)| part.clone())
                        .collect();
                    self.unique_parts_apart(&unique_parts);
                    let roots = unique_parts
                        .into_iter()
                        .fold(Vec::new(), |acc, (r, _)| union(acc, r));
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
        let mut result = Vec::new();
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
            for i in self.summary(k) {
                if let (Some(p), Some(roots)) = (params.get(i), arg_roots.get(i)) {
                    if !is_unique(p, self.unique) {
                        let roots = roots.iter().filter(|r| constant_of(**r).is_none());
                        result = union(result, roots.copied().collect());
                    }
                }
            }
        }
        for ((p, a), roots) in params.iter().zip(args).zip(&arg_roots) {
            if is_unique(p, self.unique) {
                let roots = self.precise(a, roots.clone());
                self.consume(&roots, a);
            }
        }
        for (i, roots) in field_consumed {
            self.consume(&roots, &args[i]);
        }
        result
    }
}
