//! The memory-traffic model of a clustering: per cluster, the loops it runs
//! and the array elements it reads and writes, as formulas in the sizes.
//!
//! A cluster reads each array it streams from outside once (fused readers
//! share the read), one element per iteration for every gather in its
//! functions, and each reduction result of another cluster it uses; it
//! writes every array that is still needed outside it and each reduction
//! result it produces. This is Figure 12's accounting in van Balen's thesis,
//! and what `--count-traffic` binaries count.

use super::ast::{FusedBody, FusedFunction, FusionTree, Item};
use super::graph::{size_classes, SizeClass};
use crate::core::free::free_in_exp;
use crate::core::ir::{Atom, Body, Exp, SoacId, SoacKind, VarId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

/// A polynomial over size symbols: a constant plus coefficients of
/// monomials, each a product of symbols written `a*b` (sorted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Formula {
    pub constant: i64,
    pub terms: BTreeMap<String, i64>,
}

impl Formula {
    fn add_size(&mut self, size: &str, k: i64) {
        match size.parse::<i64>() {
            Ok(c) => self.constant += c * k,
            Err(_) => *self.terms.entry(size.to_string()).or_insert(0) += k,
        }
    }
    pub fn add(&mut self, other: &Formula) {
        self.constant += other.constant;
        for (s, k) in &other.terms {
            *self.terms.entry(s.clone()).or_insert(0) += k;
        }
    }
    /// The formula times a size (a constant or a symbol).
    fn times(&self, size: &str) -> Formula {
        let factor = match size.parse::<i64>() {
            Ok(c) => return self.scaled(c),
            Err(_) => size,
        };
        let mut out = Formula::default();
        if self.constant != 0 {
            out.terms.insert(factor.to_string(), self.constant);
        }
        for (monomial, k) in &self.terms {
            let mut symbols: Vec<&str> = monomial.split('*').chain([factor]).collect();
            symbols.sort_unstable();
            *out.terms.entry(symbols.join("*")).or_insert(0) += k;
        }
        out
    }
    fn scaled(&self, c: i64) -> Formula {
        Formula {
            constant: self.constant * c,
            terms: self.terms.iter().map(|(s, k)| (s.clone(), k * c)).collect(),
        }
    }
    /// The value for concrete sizes (missing symbols count as 0).
    pub fn eval(&self, sizes: &HashMap<String, i64>) -> i64 {
        self.constant
            + self
                .terms
                .iter()
                .map(|(m, k)| {
                    k * m
                        .split('*')
                        .map(|s| sizes.get(s).copied().unwrap_or(0))
                        .product::<i64>()
                })
                .sum::<i64>()
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self
            .terms
            .iter()
            .filter(|(_, k)| **k != 0)
            .map(|(s, k)| {
                if *k == 1 {
                    s.clone()
                } else {
                    format!("{k}*{s}")
                }
            })
            .collect();
        if self.constant != 0 || parts.is_empty() {
            parts.push(self.constant.to_string());
        }
        f.write_str(&parts.join(" + "))
    }
}

#[derive(Clone, Debug, Default)]
pub struct ClusterTraffic {
    pub cluster: u32,
    pub reads: Formula,
    pub writes: Formula,
}

#[derive(Clone, Debug, Default)]
pub struct Traffic {
    pub loops: usize,
    pub reads: Formula,
    pub writes: Formula,
    pub clusters: Vec<ClusterTraffic>,
}

pub fn function_traffic(f: &FusedFunction) -> Traffic {
    let core = f.body.to_core();
    let classes = size_classes(&f.params, &core);
    // Outer sizes print as `n_xs` for parameter `xs`, or as the size parameter's name.
    let mut names: HashMap<VarId, String> = f
        .params
        .iter()
        .map(|p| (p.id, format!("n_{}", p.name)))
        .collect();
    // Inner dimensions: `m` for a size parameter, else `n_xs_1`.
    let mut inner: HashMap<(VarId, usize), String> = HashMap::new();
    for sp in &f.size_params {
        for &(param, dim) in &sp.uses {
            if let Some(p) = f.params.get(param) {
                if dim == 0 {
                    names.insert(p.id, sp.var.name.clone());
                } else {
                    inner.insert((p.id, dim), sp.var.name.clone());
                }
            }
        }
        names.insert(sp.var.id, sp.var.name.clone());
    }
    let size_name = |v: &VarId| -> String {
        match classes.get(v) {
            Some(SizeClass::Const(k)) => k.to_string(),
            Some(SizeClass::Symbol(s, d)) if *d >= 1 && *d != usize::MAX => {
                inner.get(&(*s, *d)).cloned().unwrap_or_else(|| {
                    let base = names
                        .get(s)
                        .cloned()
                        .unwrap_or_else(|| format!("n_{}", s.0));
                    format!("{base}_{d}")
                })
            }
            Some(SizeClass::Symbol(s, _)) => names
                .get(s)
                .cloned()
                .unwrap_or_else(|| format!("n_{}", s.0)),
            None => names
                .get(v)
                .cloned()
                .unwrap_or_else(|| format!("n_{}", v.0)),
        }
    };
    let reduce_results = reduce_results(&core);
    let mut ranks = HashMap::new();
    for p in &f.params {
        ranks.insert(p.id, p.ty.rank());
    }
    collect_ranks(&core, &mut ranks);
    let model = Model {
        size_name: &size_name,
        reduce_results: &reduce_results,
        ranks: &ranks,
        nested_bodies: &f.nested,
        nested: false,
    };
    let mut traffic = Traffic::default();
    body_traffic(&f.body, &model, &mut traffic);
    traffic
}

/// What the model needs to know about a function's variables.
#[derive(Clone, Copy)]
struct Model<'a> {
    size_name: &'a dyn Fn(&VarId) -> String,
    reduce_results: &'a HashSet<VarId>,
    /// The rank of every variable (parameters, statements, functions'
    /// parameters at any depth).
    ranks: &'a HashMap<VarId, usize>,
    /// The clustered bodies inside SOACs' functions
    /// (`FusedFunction::nested`), which the lowering runs as clustered.
    nested_bodies: &'a BTreeMap<SoacId, FusedBody>,
    /// Inside a lambda body: a reduction's result stays in a register and a
    /// gather is one read per iteration.
    nested: bool,
}

fn collect_ranks(body: &Body, out: &mut HashMap<VarId, usize>) {
    for stm in &body.stms {
        for v in &stm.pat {
            out.insert(v.id, v.ty.rank());
        }
        match &stm.exp {
            Exp::Soac(soac) => {
                if let Some(lam) = soac.kind.lambda() {
                    for p in &lam.params {
                        out.insert(p.id, p.ty.rank());
                    }
                    collect_ranks(&lam.body, out);
                }
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                collect_ranks(then_body, out);
                collect_ranks(else_body, out);
            }
            Exp::Loop { params, body, .. } => {
                for (p, _) in params {
                    out.insert(p.id, p.ty.rank());
                }
                collect_ranks(body, out);
            }
            _ => {}
        }
    }
}

fn reduce_results(body: &Body) -> HashSet<VarId> {
    let mut out = HashSet::new();
    for stm in &body.stms {
        match &stm.exp {
            Exp::Soac(soac) if matches!(soac.kind, SoacKind::Reduce { .. }) => {
                out.extend(stm.pat.iter().map(|v| v.id));
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                out.extend(reduce_results(then_body));
                out.extend(reduce_results(else_body));
            }
            _ => {}
        }
    }
    out
}

/// The variables an item reads (free in it).
fn item_uses(item: &Item) -> Vec<VarId> {
    item.to_core()
        .iter()
        .flat_map(|stm| free_in_exp(&stm.exp))
        .collect()
}

/// A vector made by permuting another (`reverse`, `rotate`, a strided
/// slice): a loop of its own that reads and writes each element, unless
/// only clusters stream it (then they read the source at the composed index).
fn permuted_vector(stm: &crate::core::ir::Stm) -> bool {
    let permutes = match &stm.exp {
        Exp::Reverse(_) | Exp::Rotate { .. } => true,
        Exp::Slice { dims, .. } => matches!(
            dims.as_slice(),
            [crate::core::ir::DimSlice::Range { stride, .. }]
                if *stride != Atom::Const(crate::types::Const::I64(1))
        ),
        _ => false,
    };
    permutes && stm.pat.iter().all(|v| v.ty.rank() == 1)
}

/// The `iota` and scalar `replicate` arrays of `body` that only clusters
/// stream, and the permuted vectors they stream: the lowering computes
/// their elements in the readers' loops and never makes the arrays
/// (`loopy::generators`).
fn fused_generators(body: &FusedBody, uses: &[Vec<VarId>]) -> HashMap<VarId, Vec<VarId>> {
    let mut out = HashMap::new();
    for (index, item) in body.items.iter().enumerate() {
        let Item::Stm(stm) = item else { continue };
        let Some(v) = stm.pat.first().map(|v| v.id) else {
            continue;
        };
        // What a reader streams instead: nothing (computed), the array
        // itself (a permutation of a vector of the same size), or the parts.
        let instead = match &stm.exp {
            Exp::Iota(_) => Vec::new(),
            Exp::Replicate { .. } if stm.pat.iter().all(|v| v.ty.rank() == 1) => Vec::new(),
            Exp::Concat(parts) if parts.len() == 2 => parts.clone(),
            _ if permuted_vector(stm) => vec![v],
            // Its rows are columns of the source, read in place by maps
            // that stream them (`loopy::lower`'s `Generated::Column`).
            Exp::Transpose(_) if stm.pat.iter().all(|v| v.ty.rank() == 2) => vec![v],
            _ => continue,
        };
        let columns_streamed = !matches!(stm.exp, Exp::Transpose(_))
            || body.items.iter().all(|other| match other {
                Item::Cluster(cluster) => cluster.tree.leaves().iter().all(|leaf| {
                    !leaf.soac.args.contains(&v) || super::rows::row_streamed(&leaf.soac, v)
                }),
                _ => true,
            });
        if !columns_streamed {
            continue;
        }
        let only_streamed = !body.result.contains(&Atom::Var(v))
            && body.items.iter().enumerate().all(|(j, other)| {
                j == index
                    || match other {
                        Item::Cluster(cluster) => cluster.tree.leaves().iter().all(|leaf| {
                            !crate::core::free::free_in_exp_except_soac_args(&Exp::Soac(
                                leaf.soac.clone(),
                            ))
                            .contains(&v)
                        }),
                        // Asking for its size reads no element.
                        Item::Stm(stm) if matches!(stm.exp, Exp::Size { .. }) => true,
                        _ => !uses[j].contains(&v),
                    }
            });
        if only_streamed {
            out.insert(v, instead);
        }
    }
    out
}

fn body_traffic(body: &FusedBody, model: &Model, traffic: &mut Traffic) {
    let size_name = model.size_name;
    let reduce_results = model.reduce_results;
    let uses: Vec<Vec<VarId>> = body.items.iter().map(item_uses).collect();
    let generators = fused_generators(body, &uses);
    for (index, item) in body.items.iter().enumerate() {
        match item {
            // `iota` and `replicate` run a loop of their own that writes their
            // array, unless only clusters stream it (then they fuse).
            Item::Stm(stm) => match &stm.exp {
                Exp::Index { .. } if model.nested => traffic.reads.constant += 1,
                _ if stm.pat.iter().any(|v| generators.contains_key(&v.id)) => {}
                // `a ++ b`: a loop per part copying it (rows count by the
                // outer size, as for `replicate`).
                Exp::Concat(parts) if parts.len() == 2 => {
                    for part in parts {
                        traffic.loops += 1;
                        traffic.reads.add_size(&size_name(part), 1);
                        traffic.writes.add_size(&size_name(part), 1);
                    }
                }
                // A strided slice's size has no name in the model: left out.
                Exp::Reverse(_) | Exp::Rotate { .. } if permuted_vector(stm) => {
                    traffic.loops += 1;
                    for v in &stm.pat {
                        traffic.reads.add_size(&size_name(&v.id), 1);
                        traffic.writes.add_size(&size_name(&v.id), 1);
                    }
                }
                // A transposed copy: every element read and written.
                Exp::Transpose(a) if stm.pat.iter().all(|v| v.ty.rank() == 2) => {
                    traffic.loops += 1;
                    let mut elements = Formula::default();
                    elements.add_size(&size_name(a), 1);
                    let elements = elements.times(&size_name(&stm.pat[0].id));
                    traffic.reads.add(&elements);
                    traffic.writes.add(&elements);
                }
                Exp::Iota(_) | Exp::Replicate { .. } => {
                    traffic.loops += 1;
                    // Outer sizes only, as everywhere in the model: replicating
                    // rows writes n rows, counted as n.
                    for v in &stm.pat {
                        traffic.writes.add_size(&size_name(&v.id), 1);
                    }
                }
                _ => {}
            },
            Item::If {
                then_body,
                else_body,
                ..
            } => {
                body_traffic(then_body, model, traffic);
                body_traffic(else_body, model, traffic);
            }
            // A `for` loop's body runs `bound` times; a `while` loop's count
            // is unknown, so its body (and condition) count once.
            Item::Loop {
                params,
                form,
                body: inner,
                ..
            } => {
                let mut each = Traffic::default();
                let trips = match form {
                    super::ast::FusedLoopForm::While { cond } => {
                        body_traffic(cond, model, &mut each);
                        None
                    }
                    super::ast::FusedLoopForm::For { bound, .. } => {
                        Some(atom_size(bound, size_name))
                    }
                };
                body_traffic(inner, model, &mut each);
                let (reads, writes) = match &trips {
                    Some(t) => (each.reads.times(t), each.writes.times(t)),
                    None => (each.reads, each.writes),
                };
                traffic.loops += each.loops;
                traffic.reads.add(&reads);
                traffic.writes.add(&writes);
                traffic.clusters.extend(each.clusters);
                // The loop starts from a copy of each initial array it does
                // not own (see `copied`), unless a `for` loop only reads it
                // (`loopy::borrow`: the first iteration reads the initial
                // array itself; x86-64 only, the GPU targets keep the copy).
                let core_inner = inner.to_core();
                let counted = trips.is_some();
                for (p, init) in params {
                    if let (true, Atom::Var(v)) = (p.ty.rank() > 0, init) {
                        if copied(*v, index, body, &uses)
                            && !(counted && only_read(p.id, &core_inner))
                        {
                            traffic.reads.add_size(&size_name(v), 1);
                            traffic.writes.add_size(&size_name(v), 1);
                        }
                    }
                }
            }
            Item::Cluster(cluster) => {
                let leaves = cluster.tree.leaves();
                let produced: HashSet<VarId> = leaves
                    .iter()
                    .flat_map(|l| l.pat.iter().map(|v| v.id))
                    .collect();
                let mut reads = Formula::default();
                let mut writes = Formula::default();
                let mut streamed = HashSet::new();
                let mut scalars = HashSet::new();
                let width = leaves.first().map(|l| atom_size(&l.soac.width, size_name));
                for leaf in &leaves {
                    for a in &leaf.soac.args {
                        // Streaming rows reads nothing by itself (a row is a
                        // view); what the function does with them counts.
                        let vector = model.ranks.get(a).is_none_or(|&r| r <= 1);
                        if !produced.contains(a) && streamed.insert(*a) && vector {
                            match generators.get(a) {
                                Some(instead) => {
                                    for part in instead {
                                        reads.add_size(&size_name(part), 1);
                                    }
                                }
                                None => reads.add_size(&size_name(a), 1),
                            }
                        }
                    }
                    let exp = Exp::Soac(leaf.soac.clone());
                    for v in crate::core::free::free_in_exp_except_soac_args(&exp) {
                        if !model.nested
                            && reduce_results.contains(&v)
                            && !produced.contains(&v)
                            && scalars.insert(v)
                        {
                            reads.constant += 1;
                        }
                    }
                    if let Some(width) = &width {
                        let (r, w) = per_iteration(&leaf.soac.kind, model);
                        reads.add(&r.times(width));
                        writes.add(&w.times(width));
                    }
                }
                let fused_away = cluster.tree.vertically_fused();
                for leaf in &leaves {
                    // A filter whose outputs never reach memory counts its
                    // kept elements instead: one reduction result.
                    let is_filter = matches!(leaf.soac.kind, SoacKind::Filter { .. });
                    if is_filter && leaf.pat.iter().all(|v| fused_away.contains(&v.id)) {
                        if !model.nested {
                            writes.constant += 1;
                        }
                        continue;
                    }
                    // A scatter writes one element per index into its
                    // destination, which it copies first unless it owns it.
                    // A scatter continuing one of this loop writes its
                    // buffer (`fusion::graph::scatter_chain`).
                    if let SoacKind::Scatter { dest, .. } = &leaf.soac.kind {
                        for d in dest {
                            writes.add_size(&atom_size(&leaf.soac.width, size_name), 1);
                            let chained = leaves.iter().any(|l| l.pat.iter().any(|p| p.id == *d));
                            if !chained && copied(*d, index, body, &uses) {
                                reads.add_size(&size_name(d), 1);
                                writes.add_size(&size_name(d), 1);
                            }
                        }
                        continue;
                    }
                    for v in &leaf.pat {
                        let is_reduction = matches!(leaf.soac.kind, SoacKind::Reduce { .. });
                        if is_reduction {
                            if !model.nested {
                                writes.constant += 1;
                            }
                        } else if needed_outside(v.id, index, &uses, body, &cluster.tree)
                            && !rows_made_inside(leaf, v.id)
                        {
                            writes.add_size(&size_name(&v.id), 1);
                        }
                    }
                }
                traffic.loops += 1;
                traffic.reads.add(&reads);
                traffic.writes.add(&writes);
                traffic.clusters.push(ClusterTraffic {
                    cluster: cluster.id.0,
                    reads,
                    writes,
                });
            }
        }
    }
}

/// `v`, an array of rows a map makes, is made row by row by SOACs in the
/// map's function, whose writes (straight into `v`'s rows,
/// `loopy::rows`) are counted with the function's traffic.
fn rows_made_inside(leaf: &super::ast::SoacStm, v: VarId) -> bool {
    let SoacKind::Map(lam) = &leaf.soac.kind else {
        return false;
    };
    let Some(k) = leaf.pat.iter().position(|p| p.id == v) else {
        return false;
    };
    let Some(Atom::Var(row)) = lam.body.result.get(k) else {
        return false;
    };
    leaf.pat[k].ty.rank() >= 2
        && lam.body.stms.iter().any(|s| {
            matches!(&s.exp, Exp::Soac(soac) if !matches!(soac.kind, SoacKind::Reduce { .. }))
                && s.pat.iter().any(|p| p.id == *row)
        })
}

/// The size an atom gives (a constant or a size's name).
fn atom_size(a: &Atom, size_name: &dyn Fn(&VarId) -> String) -> String {
    match a {
        Atom::Var(v) => size_name(v),
        Atom::Const(c) => c.as_i128().unwrap_or(0).to_string(),
    }
}

/// The lowering copies an array that item `index` updates (a scatter
/// destination, a loop's initial value) unless the body owns it (an earlier
/// item defines it) and nothing after the item, nor the body's result, reads
/// it (`loopy::inplace`; views sharing its memory are not followed here).
fn copied(v: VarId, index: usize, body: &FusedBody, uses: &[Vec<VarId>]) -> bool {
    let owned = body.items[..index].iter().any(|item| {
        item.to_core()
            .iter()
            .any(|stm| stm.pat.iter().any(|p| p.id == v))
    });
    !owned
        || body.result.contains(&Atom::Var(v))
        || uses[index + 1..].iter().any(|u| u.contains(&v))
}

/// Whether `body` only reads `v`: no update, scatter or histogram into it,
/// no alias of it (a copy, a slice, a loop's initial value, a result), in
/// any nested `if` or loop either. Lambdas cannot write what they capture.
fn only_read(v: VarId, body: &Body) -> bool {
    let is_v = |a: &Atom| *a == Atom::Var(v);
    !body.result.iter().any(is_v)
        && body.stms.iter().all(|stm| match &stm.exp {
            Exp::Atom(a) => !is_v(a),
            Exp::Slice { array, .. } => *array != v,
            Exp::Update { array, .. } => *array != v,
            Exp::If {
                then_body,
                else_body,
                ..
            } => only_read(v, then_body) && only_read(v, else_body),
            Exp::Loop { params, body, .. } => {
                !params.iter().any(|(_, init)| is_v(init)) && only_read(v, body)
            }
            Exp::Soac(soac) => match &soac.kind {
                SoacKind::Scatter { dest, .. } => !dest.contains(&v),
                SoacKind::Hist {
                    dest: Some(dest), ..
                } => !dest.contains(&v),
                _ => true,
            },
            _ => true,
        })
}

/// An array of a cluster must be written when another item or the body's
/// result reads it, or a member reads it other than as a streamed argument.
fn needed_outside(
    v: VarId,
    index: usize,
    uses: &[Vec<VarId>],
    body: &FusedBody,
    tree: &FusionTree,
) -> bool {
    body.result.contains(&Atom::Var(v))
        || uses
            .iter()
            .enumerate()
            .any(|(i, u)| i != index && u.contains(&v))
        || tree.leaves().iter().any(|leaf| {
            crate::core::free::free_in_exp_except_soac_args(&Exp::Soac(leaf.soac.clone()))
                .contains(&v)
        })
}

/// The traffic of one iteration of a SOAC's function: one read per
/// indexing (a gather), and for each nested SOAC (not clustered: a loop of
/// its own in every iteration) its width times its own function's traffic,
/// one read per element of each vector it streams and one write per element
/// of each array it makes (a nested reduction's result stays in a register).
/// Of an `if`, the branch that moves more counts.
fn per_iteration(kind: &SoacKind, model: &Model) -> (Formula, Formula) {
    let mut reads = Formula::default();
    let mut writes = Formula::default();
    if let Some(lam) = kind.lambda() {
        nested_traffic(&lam.body, model, &mut reads, &mut writes);
    }
    (reads, writes)
}

fn nested_traffic(body: &Body, model: &Model, reads: &mut Formula, writes: &mut Formula) {
    let first_soac = body.stms.iter().find_map(|s| match &s.exp {
        Exp::Soac(soac) => Some(soac.label),
        _ => None,
    });
    if let Some(fused) = first_soac.and_then(|label| model.nested_bodies.get(&label)) {
        // Clustered by the fusion stage, run so by the lowering.
        let inner = Model {
            nested: true,
            ..*model
        };
        let mut traffic = Traffic::default();
        body_traffic(fused, &inner, &mut traffic);
        reads.add(&traffic.reads);
        writes.add(&traffic.writes);
        return;
    }
    for stm in &body.stms {
        match &stm.exp {
            Exp::Index { .. } => reads.constant += 1,
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                let mut then_rw = (Formula::default(), Formula::default());
                let mut else_rw = (Formula::default(), Formula::default());
                nested_traffic(then_body, model, &mut then_rw.0, &mut then_rw.1);
                nested_traffic(else_body, model, &mut else_rw.0, &mut else_rw.1);
                // Compared at a size of 1000 for every symbol.
                let at = |(r, w): &(Formula, Formula)| {
                    let all = |f: &Formula| {
                        let sizes = f.terms.keys().flat_map(|m| m.split('*'));
                        sizes.map(|s| (s.to_string(), 1000)).collect()
                    };
                    r.eval(&all(r)) + w.eval(&all(w))
                };
                let (r, w) = if at(&then_rw) >= at(&else_rw) {
                    then_rw
                } else {
                    else_rw
                };
                reads.add(&r);
                writes.add(&w);
            }
            Exp::Soac(soac) => {
                let width = atom_size(&soac.width, model.size_name);
                let (r, w) = per_iteration(&soac.kind, model);
                reads.add(&r.times(&width));
                writes.add(&w.times(&width));
                for a in &soac.args {
                    if model.ranks.get(a).is_none_or(|&r| r <= 1) {
                        reads.add_size(&width, 1);
                    }
                }
                if !matches!(soac.kind, SoacKind::Reduce { .. }) {
                    for v in stm.pat.iter().filter(|v| v.ty.rank() == 1) {
                        writes.add_size(&(model.size_name)(&v.id), 1);
                    }
                }
            }
            _ => {}
        }
    }
}
