//! The fusion graph of one body: a node per statement, an edge per data
//! dependency (fusible or fusion-preventing), and sibling pairs of SOACs that
//! read the same array. Built with petgraph; consumed by the clusterers.

use crate::core::free::{free_in_exp, free_in_exp_except_soac_args};
use crate::core::ir::{Atom, Body, Exp, SoacKind, VarId};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The order in which a SOAC must read its input or produce its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Any order: element-wise.
    Any,
    LeftToRight,
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
    /// `b` is the next reader of a shared array after `a`: fusing them saves
    /// a read (the model rewards only these, so k readers save k - 1 reads).
    pub consecutive: bool,
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
}

impl FusionGraph {
    pub fn node(&self, stm: usize) -> NodeIndex {
        NodeIndex::new(stm)
    }
}

/// Size classes of the outer dimension of arrays and of `i64` scalars that
/// hold sizes, following `size`, `iota`, `replicate` and SOAC widths.
pub fn size_classes(params: &[crate::core::ir::Var], body: &Body) -> HashMap<VarId, SizeClass> {
    let mut sizes: HashMap<VarId, SizeClass> = HashMap::new();
    for p in params {
        sizes.insert(p.id, SizeClass::Symbol(p.id, 0));
    }
    classify_body(body, &mut sizes);
    sizes
}

/// Size classes of one body's statements, and of the bodies nested in them
/// (branches and loop bodies see the sizes of their surroundings).
fn classify_body(body: &Body, sizes: &mut HashMap<VarId, SizeClass>) {
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
                classify_body(then_body, sizes);
                classify_body(else_body, sizes);
            }
            Exp::Loop { body, .. } => classify_body(body, sizes),
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
            Exp::Size { array, dim } => {
                sizes.insert(stm.pat[0].id, SizeClass::Symbol(*array, *dim));
            }
            Exp::Atom(a) if stm.pat.len() == 1 => {
                let class = class_of_atom(sizes, a);
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
            }
            _ => {}
        }
    }
}

pub fn build(params: &[crate::core::ir::Var], body: &Body) -> FusionGraph {
    let sizes = size_classes(params, body);
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
                // Size-changing and random-access SOACs (filter, scatter, hist,
                // scanr) are not fused yet: they stay single-SOAC clusters.
                let (kind, in_order, out_order) = match soac.kind {
                    SoacKind::Map(_) => ("map", Order::Any, Order::Any),
                    SoacKind::Reduce { .. } => ("reduce", Order::Any, Order::Nothing),
                    SoacKind::Scan { .. } => ("scan", Order::LeftToRight, Order::LeftToRight),
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
                })
            }
            _ => None,
        };
        graph.add_node(Node { stm: i, soac });
    }

    let mut always_manifest: HashSet<VarId> = HashSet::new();
    for a in &body.result {
        if let Atom::Var(v) = a {
            always_manifest.insert(*v);
        }
    }
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
            let producer_is_array_soac = graph[NodeIndex::new(producer)]
                .soac
                .as_ref()
                .is_some_and(|s| s.out_order != Order::Nothing);
            let fusible = streamed.contains(&v)
                && !whole.contains(&v)
                && producer_is_array_soac
                && graph[NodeIndex::new(consumer)].soac.is_some();
            if !fusible && stm.pat.iter().all(|p| p.id != v) {
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
    for ((producer, consumer), edge) in edges {
        graph.add_edge(NodeIndex::new(producer), NodeIndex::new(consumer), edge);
    }

    // Sibling pairs: SOACs of equal width streaming the same array.
    let mut readers: BTreeMap<VarId, Vec<usize>> = BTreeMap::new();
    for (i, stm) in body.stms.iter().enumerate() {
        let fusible = graph[NodeIndex::new(i)].soac.is_some();
        if let (Exp::Soac(soac), true) = (&stm.exp, fusible) {
            for a in &soac.args {
                let list = readers.entry(*a).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
            }
        }
    }
    let mut pairs: BTreeMap<(usize, usize), (Vec<VarId>, bool)> = BTreeMap::new();
    for (array, list) in &readers {
        for (k, &a) in list.iter().enumerate() {
            for (step, &b) in list[k + 1..].iter().enumerate() {
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
                    let pair = pairs.entry((a, b)).or_default();
                    pair.0.push(*array);
                    pair.1 |= step == 0;
                }
            }
        }
    }
    let siblings = pairs
        .into_iter()
        .map(|((a, b), (shared, consecutive))| Sibling {
            a: NodeIndex::new(a),
            b: NodeIndex::new(b),
            shared,
            consecutive,
        })
        .collect();
    FusionGraph {
        graph,
        siblings,
        always_manifest,
        sizes,
        definer,
    }
}

fn is_array(body: &Body, stm: usize, v: VarId) -> bool {
    body.stms[stm]
        .pat
        .iter()
        .any(|p| p.id == v && p.ty.rank() > 0)
}
