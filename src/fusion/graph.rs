//! The fusion graph of one body: a node per statement, an edge per data
//! dependency (fusible or fusion-preventing), and sibling pairs of SOACs that
//! read the same array. Built with petgraph; consumed by the clusterers.

use crate::core::free::{free_in_exp, free_in_exp_except_soac_args};
use crate::core::ir::{Atom, Body, Exp, SoacKind, Type, VarId};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The order in which a SOAC must read its input or produce its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Any order: element-wise.
    Any,
    LeftToRight,
    RightToLeft,
    /// Produces no array (a reduction's result is a scalar).
    Nothing,
}

#[derive(Clone, Debug)]
pub struct SoacNode {
    pub label: u32,
    pub kind: &'static str,
    pub in_order: Order,
    pub out_order: Order,
    /// Equal classes mean provably equal iteration counts.
    pub width: SizeClass,
    /// A filter, or a reduction or filter of a filter's family: its loop
    /// runs the family under the predicate, where maps fit but no other
    /// carried value (a scan, a reduction over every element) does.
    pub sparse: bool,
}

impl SoacNode {
    /// The kind of loop the SOAC needs beyond a plain map, if any. A loop
    /// nest is one of: carried values (reductions, scans, filters),
    /// histogram updates, or scattered writes; maps fit in any of them, but
    /// SOACs of two different classes never share a cluster.
    pub fn loop_class(&self) -> Option<&'static str> {
        if self.sparse {
            return Some("sparse");
        }
        match self.kind {
            "map" => None,
            "hist" | "scatter" => Some(self.kind),
            _ => Some("carried"),
        }
    }

    /// The two SOACs cannot share a loop nest: their loop classes or
    /// their directions differ.
    pub fn conflicts_with(&self, other: &SoacNode) -> bool {
        matches!((self.loop_class(), other.loop_class()), (Some(a), Some(b)) if a != b)
            || matches!((self.direction(), other.direction()), (Some(a), Some(b)) if a != b)
    }

    /// The order the SOAC must walk its iteration space in, if any: SOACs
    /// of two different orders never share a loop nest.
    pub fn direction(&self) -> Option<&'static str> {
        match (self.in_order, self.out_order) {
            (Order::LeftToRight, _) | (_, Order::LeftToRight) => Some("left to right"),
            (Order::RightToLeft, _) | (_, Order::RightToLeft) => Some("right to left"),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    /// Index of the statement in the body.
    pub stm: usize,
    /// `None` for statements that are not SOACs: they never fuse.
    pub soac: Option<SoacNode>,
}

#[derive(Clone, Debug)]
pub struct Edge {
    /// Producer and consumer may share a loop.
    pub fusible: bool,
    /// The arrays (for fusible edges) or variables flowing along the edge.
    pub vars: Vec<VarId>,
}

/// Two SOACs that read the same arrays and have the same width.
#[derive(Clone, Debug)]
pub struct Sibling {
    pub a: NodeIndex,
    pub b: NodeIndex,
    pub shared: Vec<VarId>,
}

/// What the traffic of one array depends on: a cluster that streams it from
/// memory reads it once, however many of its members stream it, and it is
/// written when its producer is a SOAC and a reader is in another cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayUse {
    /// Bytes of one pass over the array: every dimension times the
    /// element's size (see `ilp::SYMBOLIC_SIZE` for sizes unknown here).
    pub bytes: f64,
    /// The SOAC statement that produces it, when a fusible edge can carry
    /// it (then fusing all readers keeps it out of memory).
    pub producer: Option<usize>,
    /// The SOAC statements that stream it, in order, other than `producer`.
    pub readers: Vec<usize>,
}

/// A size: canonicalised so that equal classes are equal at run time.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SizeClass {
    Const(i64),
    /// Dimension `dim` of a function parameter, or the value of a scalar
    /// variable whose origin is unknown.
    Symbol(VarId, usize),
}

pub struct FusionGraph {
    pub graph: DiGraph<Node, Edge>,
    pub siblings: Vec<Sibling>,
    /// Arrays produced by a statement of this body that must be in memory
    /// whatever the clustering: body results and arrays read other than by
    /// streaming SOAC arguments.
    pub always_manifest: HashSet<VarId>,
    /// The size class of each array produced in the body, and of parameters.
    pub sizes: HashMap<VarId, SizeClass>,
    /// Which statement defines each variable of the body.
    pub definer: HashMap<VarId, usize>,
    /// Filter families: edges that fuse all together or not at all.
    pub sparse_groups: Vec<SparseGroup>,
    /// Every array a SOAC of the body streams (the objective's terms).
    pub arrays: BTreeMap<VarId, ArrayUse>,
}

/// A filter and the SOACs that read its outputs as a sparse stream: maps
/// whose outputs only such consumers read, and reductions and filters that
/// end the stream. Fused, they run in one loop over the filter's input with
/// the consumers under its predicate; then no array of the family exists in
/// memory (but those that are results, compacted in that loop), so fusing
/// only some of the edges is not allowed.
#[derive(Clone, Debug)]
pub struct SparseGroup {
    pub filter: usize,
    /// The family's fusible edges (statement index pairs).
    pub edges: Vec<(usize, usize)>,
    /// `(s, c)`: statement `s` is `size a 0` of a family array and member
    /// `c` uses it only as its width. Fused, `c` iterates over the filter's
    /// input and needs no `s`; unfused, `c` must run after `s`.
    pub width_uses: Vec<(usize, usize)>,
}

impl FusionGraph {
    pub fn node(&self, stm: usize) -> NodeIndex {
        NodeIndex::new(stm)
    }

    /// How many of the graph's nodes are SOACs (the others are statements
    /// that only order them).
    pub fn soac_count(&self) -> usize {
        super::decompose::soac_count(self, 0..self.graph.node_count())
    }

    /// Pairs of SOACs (earlier statement first) of conflicting loop classes
    /// that fusible edges and sibling pairs connect, so that a clustering
    /// could otherwise put them in one loop nest.
    pub fn conflicts(&self) -> Vec<(usize, usize)> {
        let n = self.graph.node_count();
        let mut sets = super::cluster::UnionFind::new(n);
        for e in self.graph.edge_references() {
            if e.weight().fusible {
                sets.union(e.source().index(), e.target().index());
            }
        }
        for s in &self.siblings {
            sets.union(s.a.index(), s.b.index());
        }
        let soac = |v: usize| self.graph[NodeIndex::new(v)].soac.as_ref();
        let mut pairs = Vec::new();
        for a in 0..n {
            let Some(sa) = soac(a) else { continue };
            if sa.loop_class().is_none() && sa.direction().is_none() {
                continue;
            }
            for b in a + 1..n {
                if soac(b).is_some_and(|sb| sa.conflicts_with(sb)) && sets.find(a) == sets.find(b) {
                    pairs.push((a, b));
                }
            }
        }
        pairs
    }

    /// A path of edges leads from statement `from` to statement `to`.
    pub fn reaches(&self, from: usize, to: usize) -> bool {
        petgraph::algo::has_path_connecting(&self.graph, self.node(from), self.node(to), None)
    }
}

/// Size classes of the outer dimension of arrays and of `i64` scalars that
/// hold sizes, following `size`, `iota`, `replicate` and SOAC widths.
pub fn size_classes(params: &[crate::core::ir::Var], body: &Body) -> HashMap<VarId, SizeClass> {
    let mut sizes: HashMap<VarId, SizeClass> = HashMap::new();
    for p in params {
        sizes.insert(p.id, SizeClass::Symbol(p.id, 0));
    }
    let mut rooted: HashSet<VarId> = params.iter().map(|p| p.id).collect();
    classify_body(body, &mut sizes, &mut rooted, &mut HashMap::new(), true);
    sizes
}

/// Size classes of one body's statements, and of the bodies nested in them
/// (branches and loop bodies see the sizes of their surroundings).
///
/// `rooted` holds the variables whose class `Symbol(a, d)` means dimension
/// `d` of parameter `a` for the whole shape: parameters, and the elements
/// (rows) a map's function gets of rooted arrays, of class `Symbol(a, d + 1)`.
/// `rows` holds the class of the rows of matrices whose rows are vectors
/// of a known class other than that (transposed arrays, maps making rows).
///
/// In the body being clustered (`top`), `assert_eq_sizes a b` before any
/// SOAC makes `a`'s and `b`'s classes one: every SOAC runs after it
/// (`build` orders what follows a check after it), so their sizes are
/// equal wherever a SOAC runs (`fusion::checks` moves such checks there).
fn classify_body(
    body: &Body,
    sizes: &mut HashMap<VarId, SizeClass>,
    rooted: &mut HashSet<VarId>,
    rows: &mut HashMap<VarId, SizeClass>,
    top: bool,
) {
    let mut before_soacs = top;
    let class_of_atom = |sizes: &HashMap<VarId, SizeClass>, a: &Atom| match a {
        Atom::Const(c) => SizeClass::Const(c.as_i128().unwrap_or(-1) as i64),
        Atom::Var(v) => sizes
            .get(v)
            .cloned()
            .unwrap_or(SizeClass::Symbol(*v, usize::MAX)),
    };
    for stm in &body.stms {
        match &stm.exp {
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                classify_body(then_body, sizes, rooted, rows, false);
                classify_body(else_body, sizes, rooted, rows, false);
            }
            // A loop parameter has its initial value's class when the body
            // gives it back in the same class (by induction, every iteration
            // keeps the size); otherwise a class of its own.
            Exp::Loop { params, body, .. } => {
                for (p, init) in params {
                    let class = class_of_atom(sizes, init);
                    sizes.insert(p.id, class);
                }
                classify_body(body, sizes, rooted, rows, false);
                let mut changed = false;
                for ((p, _), next) in params.iter().zip(&body.result) {
                    if class_of_atom(sizes, next) != sizes[&p.id] {
                        sizes.insert(p.id, SizeClass::Symbol(p.id, 0));
                        changed = true;
                    }
                }
                if changed {
                    classify_body(body, sizes, rooted, rows, false);
                }
                for (v, (p, _)) in stm.pat.iter().zip(params) {
                    let class = sizes[&p.id].clone();
                    sizes.insert(v.id, class);
                }
            }
            // Nested SOACs: a map's function gets rows of its arguments.
            Exp::Soac(soac) => {
                if let SoacKind::Map(lam) = &soac.kind {
                    for (p, a) in lam.params.iter().zip(&soac.args) {
                        if let (Some(class), 1) = (rows.get(a), p.ty.rank()) {
                            sizes.insert(p.id, class.clone());
                            continue;
                        }
                        let row = match sizes.get(a) {
                            Some(SizeClass::Symbol(root, d))
                                if rooted.contains(a) && *d != usize::MAX =>
                            {
                                SizeClass::Symbol(*root, d + 1)
                            }
                            _ => SizeClass::Symbol(*a, 1),
                        };
                        sizes.insert(p.id, row);
                        rooted.insert(p.id);
                    }
                }
                if let Some(lam) = soac.kind.lambda() {
                    classify_body(&lam.body, sizes, rooted, rows, false);
                }
            }
            _ => {}
        }
        match &stm.exp {
            Exp::Soac(_) => before_soacs = false,
            Exp::AssertEqSizes(a, b) if before_soacs => {
                let (ca, cb) = (class_of_atom(sizes, a), class_of_atom(sizes, b));
                let consts = matches!((&ca, &cb), (SizeClass::Const(_), SizeClass::Const(_)));
                if ca != cb && !consts {
                    // The constant, if any, names the class.
                    let (keep, gone) = match cb {
                        SizeClass::Const(_) => (cb, ca),
                        _ => (ca, cb),
                    };
                    // An array whose class changes is no longer dimension
                    // `d` of its root: its rows get classes of their own
                    // (`Symbol(a, 1)`), not the root's next dimension.
                    for (v, class) in sizes.iter_mut() {
                        if *class == gone {
                            *class = keep.clone();
                            rooted.remove(v);
                        }
                    }
                    for class in rows.values_mut() {
                        if *class == gone {
                            *class = keep.clone();
                        }
                    }
                    // A variable from outside has its own class unstored.
                    if let SizeClass::Symbol(v, usize::MAX) = gone {
                        sizes.entry(v).or_insert(keep);
                    }
                }
            }
            _ => {}
        }
        match &stm.exp {
            Exp::Size { array, dim: 0 } => {
                let class = sizes
                    .get(array)
                    .cloned()
                    .unwrap_or(SizeClass::Symbol(*array, 0));
                sizes.insert(stm.pat[0].id, class);
            }
            Exp::Size { array, dim: 1 } if rows.contains_key(array) => {
                sizes.insert(stm.pat[0].id, rows[array].clone());
            }
            Exp::Size { array, dim } => {
                let class = match sizes.get(array) {
                    Some(SizeClass::Symbol(root, d))
                        if rooted.contains(array) && *d != usize::MAX =>
                    {
                        SizeClass::Symbol(*root, d + dim)
                    }
                    _ => SizeClass::Symbol(*array, *dim),
                };
                sizes.insert(stm.pat[0].id, class);
            }
            Exp::Atom(a) if stm.pat.len() == 1 => {
                let class = class_of_atom(sizes, a);
                sizes.insert(stm.pat[0].id, class);
            }
            // A transposed array's outer size is its source's second.
            Exp::Transpose(a) => {
                let class = match (sizes.get(a), rows.get(a)) {
                    (_, Some(row)) => row.clone(),
                    (Some(SizeClass::Symbol(root, d)), _) if rooted.contains(a) => {
                        SizeClass::Symbol(*root, d + 1)
                    }
                    _ => SizeClass::Symbol(*a, 1),
                };
                sizes.insert(stm.pat[0].id, class);
                if let (Some(outer), 2) = (sizes.get(a).cloned(), stm.pat[0].ty.rank()) {
                    rows.insert(stm.pat[0].id, outer);
                }
            }
            // `unflatten` gives `rows` rows of `cols` elements.
            Exp::Unflatten { rows: n, cols, .. } => {
                let class = class_of_atom(sizes, n);
                sizes.insert(stm.pat[0].id, class);
                if stm.pat[0].ty.rank() == 2 {
                    rows.insert(stm.pat[0].id, class_of_atom(sizes, cols));
                }
            }
            // A permutation keeps its array's size.
            Exp::Reverse(a) | Exp::Rotate { array: a, .. } => {
                let class = class_of_atom(sizes, &Atom::Var(*a));
                sizes.insert(stm.pat[0].id, class);
            }
            Exp::Iota(n) | Exp::Replicate { count: n, .. } => {
                let class = class_of_atom(sizes, n);
                sizes.insert(stm.pat[0].id, class);
            }
            Exp::Soac(soac)
                if matches!(
                    soac.kind,
                    SoacKind::Map(_) | SoacKind::Scan { .. } | SoacKind::ScanRight { .. }
                ) =>
            {
                let class = class_of_atom(sizes, &soac.width);
                for v in &stm.pat {
                    sizes.insert(v.id, class.clone());
                }
                // A matrix made of vectors: their class is its rows'.
                if let SoacKind::Map(lam) = &soac.kind {
                    for (v, row) in stm.pat.iter().zip(&lam.body.result) {
                        if let (2, Atom::Var(_)) = (v.ty.rank(), row) {
                            rows.insert(v.id, class_of_atom(sizes, row));
                        }
                    }
                }
            }
            // Scatter gives arrays of its destinations' sizes; hist arrays
            // of `bins` elements, or of its destinations' sizes.
            Exp::Soac(soac) => {
                let dest = match &soac.kind {
                    SoacKind::Scatter { dest, .. }
                    | SoacKind::Hist {
                        dest: Some(dest), ..
                    } => dest
                        .iter()
                        .map(|d| class_of_atom(sizes, &Atom::Var(*d)))
                        .collect(),
                    SoacKind::Hist { bins, .. } => vec![class_of_atom(sizes, bins); stm.pat.len()],
                    _ => Vec::new(),
                };
                for (v, class) in stm.pat.iter().zip(dest) {
                    sizes.insert(v.id, class);
                }
            }
            _ => {}
        }
    }
}

pub fn build(params: &[crate::core::ir::Var], body: &Body) -> FusionGraph {
    let sizes = size_classes(params, body);
    let types = var_types(params, body);
    let mut definer = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        for v in &stm.pat {
            definer.insert(v.id, i);
        }
    }
    let mut graph = DiGraph::new();
    for (i, stm) in body.stms.iter().enumerate() {
        let soac = match &stm.exp {
            Exp::Soac(soac) => {
                // `partition` stays a single-SOAC cluster. Scatter
                // and hist consume element-wise but produce no stream; a hist
                // of rows runs sequentially, so nothing is fused into it.
                let rows_of_bins = stm.pat.iter().any(|p| p.ty.rank() > 1);
                let (kind, in_order, out_order) = match soac.kind {
                    SoacKind::Map(_) => ("map", Order::Any, Order::Any),
                    SoacKind::Reduce { .. } => ("reduce", Order::Any, Order::Nothing),
                    SoacKind::Scan { .. } => ("scan", Order::LeftToRight, Order::LeftToRight),
                    SoacKind::ScanRight { .. } => ("scanr", Order::RightToLeft, Order::RightToLeft),
                    SoacKind::Filter { .. } => ("filter", Order::Any, Order::Any),
                    SoacKind::Scatter { .. } => ("scatter", Order::Any, Order::Nothing),
                    SoacKind::Hist { .. } if !rows_of_bins => ("hist", Order::Any, Order::Nothing),
                    _ => {
                        graph.add_node(Node { stm: i, soac: None });
                        continue;
                    }
                };
                let width = match &soac.width {
                    Atom::Const(c) => SizeClass::Const(c.as_i128().unwrap_or(-1) as i64),
                    Atom::Var(v) => sizes
                        .get(v)
                        .cloned()
                        .unwrap_or(SizeClass::Symbol(*v, usize::MAX)),
                };
                Some(SoacNode {
                    label: soac.label.0,
                    kind,
                    in_order,
                    out_order,
                    width,
                    sparse: kind == "filter",
                })
            }
            _ => None,
        };
        graph.add_node(Node { stm: i, soac });
    }

    let groups = sparse_groups(body, &definer);
    // Edges a family allows (with its filter), and `size` statements of
    // family arrays: those read no element, so they keep nothing in memory.
    let mut group_edges: HashSet<(usize, usize)> = HashSet::new();
    let mut skipped_width: HashSet<(usize, usize)> = HashSet::new();
    let mut size_of_family: HashSet<usize> = HashSet::new();
    let mut family_members: HashSet<usize> = HashSet::new();
    for g in &groups {
        group_edges.extend(g.edges.iter().copied());
        family_members.extend(g.edges.iter().map(|&(_, m)| m));
        for &(s, c) in &g.width_uses {
            skipped_width.insert((s, c));
            size_of_family.insert(s);
        }
    }
    for &m in &family_members {
        if let Some(soac) = graph[NodeIndex::new(m)].soac.as_mut() {
            soac.sparse |= soac.kind == "reduce";
        }
    }
    let filters: HashSet<usize> = body
        .stms
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(&s.exp, Exp::Soac(soac) if matches!(soac.kind, SoacKind::Filter { .. })))
        .map(|(i, _)| i)
        .collect();

    let mut always_manifest: HashSet<VarId> = HashSet::new();
    for a in &body.result {
        if let Atom::Var(v) = a {
            always_manifest.insert(*v);
        }
    }
    let uses = super::permute::use_counts(body);
    // Edges, merged per (producer, consumer) pair; one preventing use makes
    // the whole edge preventing.
    let mut edges: BTreeMap<(usize, usize), Edge> = BTreeMap::new();
    for (consumer, stm) in body.stms.iter().enumerate() {
        let streamed: Vec<VarId> = match &stm.exp {
            Exp::Soac(soac) => soac.args.clone(),
            _ => Vec::new(),
        };
        let whole: HashSet<VarId> = free_in_exp_except_soac_args(&stm.exp).into_iter().collect();
        for v in free_in_exp(&stm.exp) {
            let Some(&producer) = definer.get(&v) else {
                continue;
            };
            if skipped_width.contains(&(producer, consumer)) {
                // The width of a family member: see `SparseGroup::width_uses`.
                continue;
            }
            let producer_is_array_soac = graph[NodeIndex::new(producer)]
                .soac
                .as_ref()
                .is_some_and(|s| s.out_order != Order::Nothing);
            // A filter's output streams only into its family; a filter reads
            // its family's arrays fused, and the vectors of a map of its own
            // width outside any family (the map computed in the filter's loop).
            let sparse = filters.contains(&producer) || filters.contains(&consumer);
            let same_width = |a: usize, b: usize| {
                let w = |v: usize| graph[NodeIndex::new(v)].soac.as_ref().map(|s| &s.width);
                w(a).is_some() && w(a) == w(b)
            };
            let map_into_filter = filters.contains(&consumer)
                && !filters.contains(&producer)
                && !family_members.contains(&producer)
                && matches!(&body.stms[producer].exp, Exp::Soac(p) if matches!(p.kind, SoacKind::Map(_)))
                && stm.pat.iter().all(|p| p.ty.rank() == 1)
                && same_width(producer, consumer);
            let product_operand =
                matches!(&stm.exp, Exp::Soac(soac) if super::rows::product_operand(soac, v));
            let fusible = (streamed.contains(&v)
                && !whole.contains(&v)
                && !product_operand
                && producer_is_array_soac
                && graph[NodeIndex::new(consumer)].soac.is_some()
                && (!sparse || group_edges.contains(&(producer, consumer)) || map_into_filter))
                || (scatter_chain(body, producer, consumer, v, &uses)
                    && same_width(producer, consumer));
            let size_only = size_of_family.contains(&consumer);
            if !fusible && !size_only && stm.pat.iter().all(|p| p.id != v) {
                // Read whole (or by a non-SOAC): it must exist in memory, unless
                // it is a scalar (scalars are registers, not traffic).
                if is_array(body, producer, v) {
                    always_manifest.insert(v);
                }
            }
            let edge = edges.entry((producer, consumer)).or_insert(Edge {
                fusible: true,
                vars: Vec::new(),
            });
            edge.fusible &= fusible;
            if !edge.vars.contains(&v) {
                edge.vars.push(v);
            }
        }
    }
    // `assert c e` checks `c` before anything of `e` runs, so what follows
    // an assertion stays after it (an order, not data: nothing flows). So
    // does what follows a size check, which reports the sizes in the order
    // the program compares them, unless it checks what a SOAC made (a
    // result's size against the return type): ordering that one would keep
    // the SOACs around it from fusing.
    let mut after_soac = vec![false; body.stms.len()];
    for &(producer, consumer) in edges.keys() {
        if graph[NodeIndex::new(producer)].soac.is_some() || after_soac[producer] {
            after_soac[consumer] = true;
        }
    }
    for (i, stm) in body.stms.iter().enumerate() {
        let ordered = match stm.exp {
            Exp::Assert(..) => true,
            Exp::AssertEqSizes(..) => !after_soac[i],
            _ => false,
        };
        if ordered {
            for later in i + 1..body.stms.len() {
                edges.entry((i, later)).or_insert(Edge {
                    fusible: false,
                    vars: Vec::new(),
                });
            }
        }
    }
    for ((producer, consumer), edge) in edges {
        graph.add_edge(NodeIndex::new(producer), NodeIndex::new(consumer), edge);
    }

    // Sibling pairs: SOACs of equal width streaming the same array.
    let mut readers: BTreeMap<VarId, Vec<usize>> = BTreeMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        // A filter never fuses horizontally: its output has another size.
        let fusible = graph[NodeIndex::new(i)].soac.is_some() && !filters.contains(&i);
        if let (Exp::Soac(soac), true) = (&stm.exp, fusible) {
            for a in &soac.args {
                let list = readers.entry(*a).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
            }
        }
    }
    let mut pairs: BTreeMap<(usize, usize), Vec<VarId>> = BTreeMap::new();
    let soac_of = |i: usize| match &body.stms[i].exp {
        Exp::Soac(soac) => Some(soac),
        _ => None,
    };
    for (array, list) in &readers {
        // SOACs over the rows of a matrix share its read only when their
        // functions are fused too: maps whose functions stream the row
        // (`fusion::rows` merges them when they share a cluster).
        let rows = types.get(array).is_some_and(|t| t.rank() > 1);
        let row_map = |i: usize| soac_of(i).is_some_and(|s| super::rows::row_streamed(s, *array));
        for (k, &a) in list.iter().enumerate() {
            if rows && !row_map(a) {
                continue;
            }
            for &b in &list[k + 1..] {
                if rows && !row_map(b) {
                    continue;
                }
                let wa = &graph[NodeIndex::new(a)]
                    .soac
                    .as_ref()
                    .expect("reader is a SOAC")
                    .width;
                let wb = &graph[NodeIndex::new(b)]
                    .soac
                    .as_ref()
                    .expect("reader is a SOAC")
                    .width;
                if wa == wb {
                    pairs.entry((a, b)).or_default().push(*array);
                }
            }
        }
    }
    let free_rows = super::rows::free_row_pairs(body, &graph, &definer, &readers, &mut pairs);
    let siblings = pairs
        .into_iter()
        .map(|((a, b), shared)| Sibling {
            a: NodeIndex::new(a),
            b: NodeIndex::new(b),
            shared,
        })
        .collect();
    let mut arrays = array_uses(body, &graph, &types, &sizes);
    arrays.extend(free_rows);
    FusionGraph {
        graph,
        siblings,
        always_manifest,
        sizes,
        definer,
        sparse_groups: groups,
        arrays,
    }
}

/// Whether `consumer` continues the scatter `producer` into `v`, one of its
/// results that nothing else reads: two parts of one scatter
/// (`simplify::scatter_split`). In one loop each iteration writes the
/// producer's element, then the consumer's, into the one buffer; of two
/// writes to one index the one that lands last then depends on the order,
/// which the contract leaves open (of duplicates one value is stored). Two
/// scatters of the program are never fused so: the second's writes must
/// all land after the first's.
fn scatter_chain(
    body: &Body,
    producer: usize,
    consumer: usize,
    v: VarId,
    uses: &HashMap<VarId, usize>,
) -> bool {
    let scatter = |i: usize| match &body.stms[i].exp {
        Exp::Soac(soac) => match &soac.kind {
            SoacKind::Scatter { dest, continues } => Some((dest, *continues, &soac.args)),
            _ => None,
        },
        _ => None,
    };
    let (Some(_), Some((dest, true, args))) = (scatter(producer), scatter(consumer)) else {
        return false;
    };
    dest.contains(&v) && !args.contains(&v) && uses.get(&v) == Some(&1)
}

/// The types of the body's variables and parameters, and of the arrays its
/// SOACs stream (from their functions' parameters, when defined outside).
fn var_types(params: &[crate::core::ir::Var], body: &Body) -> HashMap<VarId, Type> {
    let mut types: HashMap<VarId, Type> = params.iter().map(|p| (p.id, p.ty)).collect();
    for stm in &body.stms {
        for v in &stm.pat {
            types.insert(v.id, v.ty);
        }
    }
    for stm in &body.stms {
        let Exp::Soac(soac) = &stm.exp else { continue };
        let element_params = match &soac.kind {
            SoacKind::Map(lam)
            | SoacKind::Filter { pred: lam }
            | SoacKind::Partition { pred: lam } => &lam.params[..],
            SoacKind::Reduce { op, .. }
            | SoacKind::Scan { op, .. }
            | SoacKind::ScanRight { op, .. } => &op.params[op.params.len() / 2..],
            _ => &[],
        };
        for (a, p) in soac.args.iter().zip(element_params) {
            types
                .entry(*a)
                .or_insert(Type::Array(p.ty.elem(), p.ty.rank() + 1));
        }
    }
    types
}

/// Bytes of one pass over an array of type `ty` whose outer size has class
/// `outer`: inner dimensions are not tracked, so each counts as a symbol.
pub fn array_bytes(ty: Option<&Type>, outer: Option<&SizeClass>) -> f64 {
    let (elem, rank) = match ty {
        Some(t) => (t.elem().bytes().max(1) as f64, t.rank().max(1)),
        None => (4.0, 1),
    };
    let outer = match outer {
        Some(SizeClass::Const(k)) => (*k).max(0) as f64,
        _ => super::ilp::SYMBOLIC_SIZE,
    };
    elem * outer * super::ilp::SYMBOLIC_SIZE.powi(rank as i32 - 1)
}

/// The arrays the body's SOACs stream: see `ArrayUse`.
fn array_uses(
    body: &Body,
    graph: &DiGraph<Node, Edge>,
    types: &HashMap<VarId, Type>,
    sizes: &HashMap<VarId, SizeClass>,
) -> BTreeMap<VarId, ArrayUse> {
    let mut arrays: BTreeMap<VarId, ArrayUse> = BTreeMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        let Exp::Soac(soac) = &stm.exp else { continue };
        if graph[NodeIndex::new(i)].soac.is_none() {
            continue;
        }
        let whole: HashSet<VarId> = free_in_exp_except_soac_args(&stm.exp).into_iter().collect();
        for a in soac.args.iter().filter(|a| !whole.contains(a)) {
            let entry = arrays.entry(*a).or_insert_with(|| ArrayUse {
                bytes: array_bytes(types.get(a), sizes.get(a)),
                producer: None,
                readers: Vec::new(),
            });
            if !entry.readers.contains(&i) {
                entry.readers.push(i);
            }
        }
    }
    for e in graph.edge_references().filter(|e| e.weight().fusible) {
        for v in &e.weight().vars {
            if let Some(entry) = arrays.get_mut(v) {
                entry.producer = Some(e.source().index());
            }
        }
    }
    arrays
}

/// The families of the body's filters whose outputs only sparse consumers
/// read (see `SparseGroup`); a filter with any other reader has none.
fn sparse_groups(body: &Body, definer: &HashMap<VarId, usize>) -> Vec<SparseGroup> {
    let mut readers: HashMap<VarId, Vec<usize>> = HashMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        for v in free_in_exp(&stm.exp) {
            readers.entry(v).or_default().push(i);
        }
    }
    let mut groups = Vec::new();
    for (f, stm) in body.stms.iter().enumerate() {
        let Exp::Soac(soac) = &stm.exp else { continue };
        if !matches!(soac.kind, SoacKind::Filter { .. }) {
            continue;
        }
        if let Some(g) = family(body, f, definer, &readers) {
            groups.push(g);
        }
    }
    groups
}

fn family(
    body: &Body,
    f: usize,
    definer: &HashMap<VarId, usize>,
    readers: &HashMap<VarId, Vec<usize>>,
) -> Option<SparseGroup> {
    let mut arrays: Vec<VarId> = body.stms[f].pat.iter().map(|p| p.id).collect();
    let mut members: Vec<usize> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    let mut k = 0;
    while k < arrays.len() {
        let a = arrays[k];
        k += 1;
        // A family array that is a result is compacted in the fused loop.
        // Only families over scalar elements: rows allocated under the guard
        // are not handled by the fused lowering yet.
        let rank = definer
            .get(&a)
            .and_then(|&d| body.stms[d].pat.iter().find(|p| p.id == a))
            .map(|p| p.ty.rank());
        if rank != Some(1) {
            return None;
        }
        for &r in readers.get(&a).map(Vec::as_slice).unwrap_or_default() {
            if members.contains(&r) || sizes.contains(&r) {
                continue;
            }
            match &body.stms[r].exp {
                Exp::Size { array, dim: 0 } if *array == a => sizes.push(r),
                Exp::Soac(soac)
                    if matches!(
                        soac.kind,
                        SoacKind::Map(_) | SoacKind::Reduce { .. } | SoacKind::Filter { .. }
                    ) =>
                {
                    let whole = free_in_exp_except_soac_args(&body.stms[r].exp);
                    // Every streamed argument is of the family, none is also
                    // read whole, and the width is a family array's size.
                    let args_ok = soac.args.iter().all(|x| arrays.contains(x))
                        && !soac.args.iter().any(|x| whole.contains(x));
                    let width_ok = match soac.width {
                        Atom::Var(w) => definer.get(&w).is_some_and(|&s| {
                            matches!(&body.stms[s].exp,
                                Exp::Size { array, dim: 0 } if arrays.contains(array))
                        }),
                        Atom::Const(_) => false,
                    };
                    if !args_ok || !width_ok {
                        return None;
                    }
                    members.push(r);
                    if matches!(soac.kind, SoacKind::Map(_)) {
                        arrays.extend(body.stms[r].pat.iter().map(|p| p.id));
                    }
                }
                _ => return None,
            }
        }
    }
    if members.is_empty() {
        return None;
    }
    let mut edges = Vec::new();
    let mut width_uses = Vec::new();
    for &m in &members {
        let Exp::Soac(soac) = &body.stms[m].exp else {
            continue;
        };
        for a in &soac.args {
            let p = definer.get(a).copied()?;
            if !edges.contains(&(p, m)) {
                edges.push((p, m));
            }
        }
        if let Atom::Var(w) = soac.width {
            let s = definer.get(&w).copied()?;
            // The width may also be read in the member's functions; then the
            // member needs `s` even when fused, which the graph cannot order.
            let mut without_width = soac.clone();
            without_width.width = Atom::Const(crate::types::Const::I64(0));
            let in_functions = free_in_exp_except_soac_args(&Exp::Soac(without_width)).contains(&w);
            if in_functions {
                return None;
            }
            width_uses.push((s, m));
        }
    }
    Some(SparseGroup {
        filter: f,
        edges,
        width_uses,
    })
}

fn is_array(body: &Body, stm: usize, v: VarId) -> bool {
    body.stms[stm]
        .pat
        .iter()
        .any(|p| p.id == v && p.ty.rank() > 0)
}
