//! The explicit fusion AST: what the clusterer decides, in a form the loop-nest
//! lowering can follow without re-deriving anything.

use crate::core::ir::{
    Atom, Body, Exp, LoopForm, SizeParam, Soac, SoacId, SrcLoc, Stm, Type, Var, VarId,
};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClusterId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Every SOAC its own cluster.
    None,
    /// Vertical producer-into-consumer fusion only.
    Greedy,
    /// Optimal clustering by integer linear programming.
    Ilp,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::Greedy => "greedy",
            Strategy::Ilp => "ilp",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FusedProgram {
    pub files: Vec<String>,
    pub strategy: Strategy,
    pub entries: Vec<FusedFunction>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FusedFunction {
    pub name: String,
    pub params: Vec<Var>,
    pub size_params: Vec<SizeParam>,
    pub body: FusedBody,
    /// The bodies inside SOACs' functions (lambdas, and branches and loops
    /// in them, at any depth) that hold two SOACs or more, clustered like
    /// `body`, keyed by the label of their first SOAC: the loop-nest
    /// lowering runs such a body's clusters as nests inside the outer
    /// nest's iteration.
    pub nested: BTreeMap<SoacId, FusedBody>,
    pub ret: Vec<Type>,
}

/// A body with its SOACs grouped into clusters, in execution order.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedBody {
    pub items: Vec<Item>,
    pub result: Vec<Atom>,
}

/// The unfused structure between clusters.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A statement that is not a SOAC and holds none (scalar code, indexing,
    /// iota, replicate, ...).
    Stm(Stm),
    /// A conditional whose branches hold clusters of their own: no fusion
    /// crosses an `if`.
    If {
        pat: Vec<Var>,
        cond: Atom,
        then_body: FusedBody,
        else_body: FusedBody,
        loc: SrcLoc,
    },
    /// A sequential loop whose body (and `while` condition) are clustered on
    /// their own: no fusion crosses the loop boundary.
    Loop {
        pat: Vec<Var>,
        params: Vec<(Var, Atom)>,
        form: FusedLoopForm,
        body: FusedBody,
        loc: SrcLoc,
    },
    Cluster(Cluster),
}

#[derive(Clone, Debug, PartialEq)]
pub enum FusedLoopForm {
    For { index: Var, bound: Atom },
    While { cond: FusedBody },
}

/// One loop nest to be: a root over a fusion tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    pub id: ClusterId,
    pub tree: FusionTree,
}

/// A SOAC statement of the core IR, taken out of its body.
#[derive(Clone, Debug, PartialEq)]
pub struct SoacStm {
    pub pat: Vec<Var>,
    pub soac: Soac,
    pub loc: SrcLoc,
}

impl SoacStm {
    pub fn into_stm(self) -> Stm {
        Stm {
            pat: self.pat,
            exp: Exp::Soac(self.soac),
            loc: self.loc,
        }
    }
}

// Most nodes of a tree are leaves, so boxing the leaf would only add a hop.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum FusionTree {
    Leaf(SoacStm),
    /// `consumer` runs with `producer`'s results in scope, element by element;
    /// the arrays in `fused` are never written to memory.
    Vertical {
        producer: Box<FusionTree>,
        consumer: Box<FusionTree>,
        fused: Vec<VarId>,
    },
    /// Independent, same iteration space, one loop.
    Horizontal(Box<FusionTree>, Box<FusionTree>),
    /// As vertical, but the arrays in `fused` are still written (they are
    /// read outside the cluster or are results); only their re-read is saved.
    Diagonal {
        producer: Box<FusionTree>,
        consumer: Box<FusionTree>,
        fused: Vec<VarId>,
    },
}

impl FusionTree {
    /// The arrays the tree fuses vertically: never written to memory.
    pub fn vertically_fused(&self) -> std::collections::HashSet<VarId> {
        let mut out = std::collections::HashSet::new();
        self.collect_vertical(&mut out);
        out
    }

    fn collect_vertical(&self, out: &mut std::collections::HashSet<VarId>) {
        match self {
            FusionTree::Leaf(_) => {}
            FusionTree::Vertical {
                producer,
                consumer,
                fused,
            } => {
                out.extend(fused.iter().copied());
                producer.collect_vertical(out);
                consumer.collect_vertical(out);
            }
            FusionTree::Diagonal {
                producer, consumer, ..
            } => {
                producer.collect_vertical(out);
                consumer.collect_vertical(out);
            }
            FusionTree::Horizontal(a, b) => {
                a.collect_vertical(out);
                b.collect_vertical(out);
            }
        }
    }

    /// The SOAC statements of the tree, producers before consumers.
    pub fn leaves(&self) -> Vec<&SoacStm> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves<'a>(&'a self, out: &mut Vec<&'a SoacStm>) {
        match self {
            FusionTree::Leaf(stm) => out.push(stm),
            FusionTree::Vertical {
                producer, consumer, ..
            }
            | FusionTree::Diagonal {
                producer, consumer, ..
            } => {
                producer.collect_leaves(out);
                consumer.collect_leaves(out);
            }
            FusionTree::Horizontal(a, b) => {
                a.collect_leaves(out);
                b.collect_leaves(out);
            }
        }
    }
}

impl Item {
    /// The core statements this item stands for, in execution order.
    pub fn to_core(&self) -> Vec<Stm> {
        match self {
            Item::Stm(stm) => vec![stm.clone()],
            Item::If {
                pat,
                cond,
                then_body,
                else_body,
                loc,
            } => vec![Stm {
                pat: pat.clone(),
                exp: Exp::If {
                    cond: *cond,
                    then_body: then_body.to_core(),
                    else_body: else_body.to_core(),
                },
                loc: *loc,
            }],
            Item::Loop {
                pat,
                params,
                form,
                body,
                loc,
            } => vec![Stm {
                pat: pat.clone(),
                exp: Exp::Loop {
                    params: params.clone(),
                    form: match form {
                        FusedLoopForm::For { index, bound } => LoopForm::For {
                            index: index.clone(),
                            bound: *bound,
                        },
                        FusedLoopForm::While { cond } => LoopForm::While {
                            cond: cond.to_core(),
                        },
                    },
                    body: body.to_core(),
                },
                loc: *loc,
            }],
            Item::Cluster(cluster) => cluster
                .tree
                .leaves()
                .into_iter()
                .map(|s| s.clone().into_stm())
                .collect(),
        }
    }
}

impl FusedBody {
    /// Back to a plain core body (what `--fusion=none` started from).
    pub fn to_core(&self) -> Body {
        Body {
            stms: self.items.iter().flat_map(Item::to_core).collect(),
            result: self.result.clone(),
        }
    }
}
