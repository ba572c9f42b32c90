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
//! An argument given for a unique parameter may alias no other argument
//! of the call, and a tuple given for a parameter with unique components
//! (`(a: *[]t, b: *[]t)`, `t: ([]i32, *[]i32)`) no component of itself.
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
//! The components of a value that a loop or a call returns may alias each
//! other through memory made inside it (`let a = iota n in (a, a)`): such
//! a value gets a *joint* root of its own, shared by those components, so
//! that consuming one of them leaves the others unusable and a result
//! declared unique may not hold two of them. The new values a loop's body
//! gives its consumed (`*`) parameters may not alias each other.
//!
//! A top-level constant is shared by every use: it is a root of its own,
//! which nothing may consume and no function's result may alias (as in
//! Futhark), and it may not be declared unique (defs.rs).
//!
//! This module walks expressions and tracks roots; `calls` walks calls,
//! `uses` records consumptions and uses (and reports the bad ones), and
//! `results` checks what functions return and what unique parameters
//! receive.

use super::*;
use std::collections::HashSet;

mod calls;
mod results;
mod sizes;
mod uses;

pub(super) use sizes::consuming_sizes;

/// Where a root was consumed.
#[derive(Clone)]
struct Consumed {
    file: FileId,
    span: Span,
}

type Roots = Vec<LocalId>;

/// Where the components of a value came to alias each other: the tuple
/// written in a loop's or a function's body, and which of its components
/// share memory.
#[derive(Clone)]
struct Joint {
    file: FileId,
    span: Span,
    parts: Vec<usize>,
}

/// What a call's result may alias, from the callee's body walked once.
#[derive(Clone, Default)]
struct Summary {
    /// The parameters (by position) whose roots the result may have.
    aliased: Vec<usize>,
    /// Components of the result that alias each other, and the name of
    /// what they share.
    joint: Option<(Joint, String)>,
}

/// What the type checker found that this check needs.
pub(super) struct Facts<'p> {
    /// Locals declared unique (`*t`).
    pub unique: &'p HashSet<LocalId>,
    /// Locals of a tuple type with some components declared unique.
    pub unique_parts: &'p HashMap<LocalId, Vec<bool>>,
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
    /// Locals of a function type written out, and what it declares unique.
    pub fn_uniqueness: &'p HashMap<LocalId, FnUniqueness>,
}

/// What a function type written out declares unique: each parameter
/// (`*[]t -> b`) and the result (`a -> *[]t`).
#[derive(Clone, Debug)]
pub(super) struct FnUniqueness {
    pub params: Vec<bool>,
    pub result: bool,
}

impl FnUniqueness {
    pub(super) fn of(t: &TypeExpr) -> Self {
        let mut params = Vec::new();
        let mut t = t;
        while let TypeExpr::Func(_, a, b, _) = t {
            params.push(matches!(**a, TypeExpr::Unique(..)));
            t = b;
        }
        let result = matches!(t, TypeExpr::Unique(..));
        FnUniqueness { params, result }
    }
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
    summaries: HashMap<usize, Summary>,
    summarising: HashSet<usize>,
    /// The joint roots made so far (numbered down below the constants').
    joints: HashMap<LocalId, Joint>,
    /// Variables bound to anonymous functions (local definitions): what
    /// they declare unique.
    lambdas: HashMap<LocalId, (Vec<bool>, Option<bool>)>,
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

/// The `n`th joint root: numbered down below the constants' roots.
fn joint_root(n: usize) -> LocalId {
    LocalId(u32::MAX - (CONSTANT_ROOTS + n) as u32)
}

/// The first two parts (by position) sharing a root, and that root.
fn shared_pair(parts: &[Roots]) -> Option<(usize, usize, LocalId)> {
    for (i, a) in parts.iter().enumerate() {
        for (j, b) in parts.iter().enumerate().skip(i + 1) {
            if let Some(&r) = a.iter().find(|r| b.contains(r)) {
                return Some((i, j, r));
            }
        }
    }
    None
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
            joints: HashMap::new(),
            lambdas: HashMap::new(),
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
                if let (TPat::Var { id, .. }, TExprKind::Lambda(lam)) = (p, &rhs.kind) {
                    let declared = self.lambda_uniqueness(rhs, lam);
                    self.lambdas.insert(*id, declared);
                }
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
    /// are those of the whole value it came from, so only itself, and the
    /// joint roots its components share.
    fn precise(&self, e: &TExpr, roots: Roots) -> Roots {
        match &e.kind {
            TExprKind::Var(id) if self.destructured.contains(id) => {
                let joint = roots.into_iter().filter(|r| self.joints.contains_key(r));
                std::iter::once(*id).chain(joint).collect()
            }
            _ => roots,
        }
    }

    /// A new joint root for components `joint.parts` of a value, named
    /// after what they share.
    fn joint_root(&mut self, joint: Joint, name: String) -> LocalId {
        let r = joint_root(self.joints.len());
        self.joints.insert(r, joint);
        self.names.insert(r, name);
        self.bound_at.insert(r, self.depth);
        r
    }

    /// The joint of `parts` (a tuple written in `body`): the components
    /// that share a root `inside` says is made within, and its name.
    fn joint_of(
        &self,
        parts: &[(Roots, &TExpr)],
        inside: impl Fn(LocalId) -> bool,
    ) -> Option<(Joint, String)> {
        let roots: Vec<Roots> = parts
            .iter()
            .map(|(r, e)| {
                let r = self.precise(e, r.clone());
                r.into_iter().filter(|&x| inside(x)).collect()
            })
            .collect();
        let (i, _, shared) = shared_pair(&roots)?;
        let at = parts[i].1;
        let tuple_span = parts.iter().fold(at.span.clone(), |s, (_, e)| {
            s.start.min(e.span.start)..s.end.max(e.span.end)
        });
        let joint = Joint {
            file: at.file,
            span: tuple_span,
            parts: (0..parts.len())
                .filter(|&k| roots[k].contains(&shared))
                .collect(),
        };
        Some((joint, self.name(shared)))
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
                let parts = self.loop_pass(pat, &roots, form, body);
                self.loop_results_apart(pat, &parts);
                // What the body returns may alias variables bound outside
                // the loop (the state's roots are the initial value's), and
                // its components each other through what it makes.
                let inside: HashSet<LocalId> = self.bound_log[mark..].iter().copied().collect();
                let joint = self.joint_of(&parts, |r| inside.contains(&r));
                let result = parts.into_iter().fold(Vec::new(), |a, (r, _)| union(a, r));
                let outside: Roots = result.into_iter().filter(|r| !inside.contains(r)).collect();
                // Again, as the next iteration sees it, its state aliasing
                // what the body returned: anything consumed the first time
                // that the body still uses is reported.
                if self.consumptions > before {
                    self.loop_pass(pat, &outside, form, body);
                }
                match joint {
                    Some((joint, name)) => {
                        let r = self.joint_root(joint, name);
                        union(outside, vec![r])
                    }
                    None => outside,
                }
            }
        };
        if e.ty.may_share_memory() {
            roots
        } else {
            Vec::new()
        }
    }

    /// One pass over a loop's body; returns the roots of its result, per
    /// component where it is a tuple written out.
    fn loop_pass<'e>(
        &mut self,
        pat: &TPat,
        roots: &[LocalId],
        form: &TLoopForm,
        body: &'e TExpr,
    ) -> Vec<(Roots, &'e TExpr)> {
        self.bind(pat, roots);
        match form {
            TLoopForm::For { bound, .. } => drop(self.expr(bound)),
            TLoopForm::ForIn { pat: x, array } => {
                let r = self.expr(array);
                self.bind(x, &r);
            }
            TLoopForm::While(c) => drop(self.expr(c)),
        }
        self.expr_parts(body)
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
}
