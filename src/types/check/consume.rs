//! Consumption checking (Futhark's uniqueness types), over the checked
//! program: a `CheckedProgram` and the locals declared unique (`*t`) in,
//! diagnostics out.
//!
//! An argument passed to a unique parameter is *consumed*: the callee may
//! update it in place, so the caller may not use it, nor anything aliasing
//! it, afterwards. Aliases are tracked by the variables whose memory a
//! value may share (its *roots*): a variable, a `let` of it, its rows,
//! slices and fields, tuples holding it, its rearrangements (`transpose`,
//! `flatten`, `zip`, ...), and either branch of an `if` or `match`. Results of function calls, SOACs and `with` count as fresh, and
//! `with` on its own consumes nothing (section 6 of the contract gives it
//! value semantics), so only programs that use `*` meet this check.
//!
//! `let a[i] = v` (Futhark's in-place update) consumes `a` too, once `v`
//! is computed. What is consumed must be consumable, as in Futhark: not a
//! parameter of a function without `*`, nor a variable bound outside the
//! anonymous function that consumes it.
//!
//! A loop body runs many times: after one pass, the body is walked again
//! with its state fresh, so that a body consuming a variable bound outside
//! the loop is reported at its second use.

use super::*;
use std::collections::HashSet;

/// Where a root was consumed.
#[derive(Clone)]
struct Consumed {
    file: FileId,
    span: Span,
}

type Roots = Vec<LocalId>;

struct Walk<'p> {
    program: &'p CheckedProgram,
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
    /// Variables bound by destructuring (`let (a, b) = ...`, a loop's
    /// tuple): their roots are those of the whole value, so consuming one
    /// consumes only itself.
    destructured: HashSet<LocalId>,
}

/// Checks every entry point and instance; returns the errors found.
pub(super) fn check_consumption(
    sources: &SourceMap,
    program: &CheckedProgram,
    unique: &HashSet<LocalId>,
    in_place: &HashSet<(FileId, Span)>,
) -> Vec<Diagnostic> {
    let mut w = Walk {
        in_place,
        shared_params: HashSet::new(),
        depth: 0,
        bound_at: HashMap::new(),
        destructured: HashSet::new(),
        program,
        unique,
        aliases: HashMap::new(),
        names: HashMap::new(),
        consumed: HashMap::new(),
        consumptions: 0,
        errors: Vec::new(),
        sources,
    };
    for entry in &program.entries {
        w.consumed.clear();
        entry.params.iter().for_each(|p| w.bind_param(p));
        w.expr(&entry.body);
    }
    for inst in &program.instances {
        w.consumed.clear();
        inst.params.iter().for_each(|p| w.bind_param(p));
        w.expr(&inst.body);
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

/// The variables a pattern binds.
fn pat_vars(p: &TPat, out: &mut Vec<LocalId>) {
    match p {
        TPat::Var { id, .. } => out.push(*id),
        TPat::Tuple(ps, _) | TPat::Ctor(_, ps, _) => ps.iter().for_each(|q| pat_vars(q, out)),
        TPat::Ascribed(q, _) => pat_vars(q, out),
        TPat::Wildcard(_) | TPat::Lit(_) => {}
    }
}

impl Walk<'_> {
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
                self.errors.push(
                    Diagnostic::new(
                        at.file,
                        at.span.clone(),
                        format!("consuming `{name}`, which is not consumable"),
                    )
                    .with_label("consumed here")
                    .with_note(format!(
                        "`{name}` is a parameter without a unique type: declare it `*` \
                         or consume a `copy` of it"
                    )),
                );
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
            let roots = self.expr(rhs);
            self.bind(p, &roots);
            e = body;
        }
        let roots = match &e.kind {
            TExprKind::Let(..) => unreachable!("walked above"),
            TExprKind::Var(id) => {
                self.use_var(*id, e);
                self.roots_of(*id)
            }
            TExprKind::Literal(_)
            | TExprKind::Builtin(_)
            | TExprKind::Instance(_)
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
                self.expr(&lam.body);
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
                let before = self.consumptions;
                self.loop_pass(pat, &roots, form, body);
                // Again, as the next iteration sees it: anything consumed
                // the first time that the body still uses is reported.
                if self.consumptions > before {
                    self.loop_pass(pat, &[], form, body);
                }
                Vec::new()
            }
        };
        if e.ty.may_share_memory() {
            roots
        } else {
            Vec::new()
        }
    }

    fn loop_pass(&mut self, pat: &TPat, roots: &[LocalId], form: &TLoopForm, body: &TExpr) {
        self.bind(pat, roots);
        match form {
            TLoopForm::For { bound, .. } => drop(self.expr(bound)),
            TLoopForm::ForIn { pat: x, array } => {
                let r = self.expr(array);
                self.bind(x, &r);
            }
            TLoopForm::While(c) => drop(self.expr(c)),
        }
        self.expr(body);
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
        let arg_roots: Vec<Roots> = args.iter().map(|a| self.expr(a)).collect();
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
        // arguments, before the call consumes them.
        if let TExprKind::Lambda(lam) = &f.kind {
            for (p, roots) in lam.params.iter().zip(&arg_roots) {
                self.bind(p, roots);
            }
            self.expr(&lam.body);
        }
        for ((p, a), roots) in params.iter().zip(args).zip(&arg_roots) {
            if is_unique(p, self.unique) {
                let roots = self.precise(a, roots.clone());
                self.consume(&roots, a);
            }
        }
        Vec::new()
    }
}
