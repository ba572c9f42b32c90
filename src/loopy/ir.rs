//! The loop-nest IR: target-neutral imperative code in which every parallel
//! loop is a `LoopNest` over `0..width` that stands for one fusion cluster (or
//! one array-building builtin such as `iota`).
//!
//! Invariants (asserted by `loopy::check`):
//! - every variable is defined once, before its uses, and is visible only in
//!   the block that defines it and the blocks nested in it;
//! - arrays are defined by a function parameter (with one `i64` variable per
//!   dimension), `Alloc`, `Row` (a view of part of another array) or an `If`;
//!   they are written only through `Write` and `Copy`, and only before they
//!   are read as results of the nest that fills them;
//! - a loop nest's body sees its index, the current value of each carried
//!   variable, and everything defined before the nest; it ends each iteration
//!   by giving every carried variable its `next` value;
//! - `LoopNest::par` agrees with what the nest carries: `Map` carries nothing,
//!   `Reduce` only reductions, `Scan` at least one scan.

use crate::core::ir::{Atom, BinOp, SizeParam, SrcLoc, Type, UnOp, Var, VarId};
use crate::fusion::ast::ClusterId;
use crate::types::ScalarType;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Program {
    /// Source file names, indexed by `SrcLoc::file`.
    pub files: Vec<String>,
    /// One per entry point, in source order.
    pub functions: Vec<Function>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    /// The entry's size parameters; each `var` is also the shape variable of
    /// the first dimension listed in its `uses`.
    pub size_params: Vec<SizeParam>,
    pub body: Block,
    /// Array results are never parameters, views or each other: each owns
    /// its memory, so the caller may free every one.
    pub results: Vec<Atom>,
    pub ret: Vec<Type>,
}

/// A parameter; an array comes with one `i64` variable per dimension.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Param {
    pub var: Var,
    pub shape: Vec<Var>,
}

pub type Block = Vec<Stmt>;

/// Scalar computations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ScalarExp {
    Atom(Atom),
    BinOp(BinOp, Atom, Atom),
    UnOp(UnOp, Atom),
    Convert(ScalarType, Atom),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Stmt {
    /// A scalar; `loc` names the expression for traps (division by zero).
    Let {
        var: Var,
        exp: ScalarExp,
        loc: SrcLoc,
    },
    /// A fresh row-major array of the given shape, contents undefined.
    Alloc {
        var: Var,
        shape: Vec<Atom>,
    },
    /// One element; `index` has one atom per dimension. `check` is `Some`
    /// where the index may be out of range, `None` where the enclosing loop
    /// bound proves it in range.
    Read {
        var: Var,
        array: VarId,
        index: Vec<Atom>,
        check: Option<SrcLoc>,
    },
    /// `array[index] = value`, one element.
    Write {
        array: VarId,
        index: Vec<Atom>,
        value: Atom,
    },
    /// A view of the sub-array at `index` (fewer indices than the rank),
    /// sharing memory with `array`; checked like `Read`.
    Row {
        var: Var,
        array: VarId,
        index: Vec<Atom>,
        check: Option<SrcLoc>,
    },
    /// Copies all of `src` into the sub-array of `array` at `index` (the
    /// whole of `array` when `index` is empty); shapes agree by construction.
    Copy {
        array: VarId,
        index: Vec<Atom>,
        src: VarId,
    },
    If {
        results: Vec<Var>,
        cond: Atom,
        then_block: Block,
        then_results: Vec<Atom>,
        else_block: Block,
        else_results: Vec<Atom>,
    },
    /// Stops with `size mismatch` unless the two `i64`s are equal.
    AssertEq {
        expected: Atom,
        found: Atom,
        loc: SrcLoc,
    },
    /// Stops with `assertion failed` unless the `bool` holds.
    Assert {
        cond: Atom,
        loc: SrcLoc,
    },
    Loop(LoopNest),
}

/// Why a loop nest exists (for dumps and, later, for profiling).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Origin {
    /// A fusion cluster.
    Cluster(ClusterId),
    /// A SOAC nested in a lambda (clusters exist only at the top of bodies).
    Nested(u32),
    Iota,
    Replicate,
}

/// How the iterations of a nest may be spread over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Parallelism {
    /// Iterations are independent.
    Map,
    /// Per-thread partial results combined with each reduction's operator.
    Reduce,
    /// A multi-phase scan: per-chunk totals, a scan of them, then a pass
    /// with each chunk's carry-in.
    Scan,
}

impl Parallelism {
    pub fn name(self) -> &'static str {
        match self {
            Parallelism::Map => "map",
            Parallelism::Reduce => "reduce",
            Parallelism::Scan => "scan",
        }
    }
}

/// One parallel loop `for index in 0..width`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopNest {
    pub origin: Origin,
    pub par: Parallelism,
    /// `i64`, bound in `body` only.
    pub index: Var,
    pub width: Atom,
    pub reductions: Vec<Reduction>,
    pub scans: Vec<ScanState>,
    pub body: Block,
}

/// A value carried from one iteration to the next.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Carried {
    /// The value at the start of an iteration (bound in the body).
    pub var: Var,
    /// Its value before the first iteration; evaluated outside the loop.
    pub init: Atom,
    /// Its value at the end of an iteration (defined by the body).
    pub next: Atom,
}

/// A reduction: initialised before the loop, combined inside, and its final
/// value bound to `results` after the loop.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reduction {
    pub carried: Vec<Carried>,
    /// Bound after the loop, one per carried value.
    pub results: Vec<Var>,
    /// The associative operator, to combine per-thread partial results.
    pub op: Operator,
}

/// An inclusive scan: the carried value after each iteration is that
/// element's result, which the body writes to `outputs` (unless fused away).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScanState {
    pub carried: Vec<Carried>,
    /// The arrays the body writes scan results to (those a parallel scan
    /// must fix up with a carry-in).
    pub outputs: Vec<VarId>,
    pub op: Operator,
}

/// An associative operator kept apart from the loop body: `params` are the
/// left operands followed by the right ones.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Operator {
    pub params: Vec<Var>,
    pub body: Block,
    pub results: Vec<Atom>,
}

impl LoopNest {
    /// All carried values, reductions first, in order.
    pub fn carried(&self) -> impl Iterator<Item = &Carried> {
        self.reductions
            .iter()
            .flat_map(|r| r.carried.iter())
            .chain(self.scans.iter().flat_map(|s| s.carried.iter()))
    }

    /// What the carried state demands.
    pub fn required_parallelism(&self) -> Parallelism {
        if !self.scans.is_empty() {
            Parallelism::Scan
        } else if !self.reductions.is_empty() {
            Parallelism::Reduce
        } else {
            Parallelism::Map
        }
    }

    /// Variables the nest uses but does not define, in increasing id order:
    /// what an outlined loop function needs in its environment. `width` and
    /// the carried `init`s are evaluated by the caller and are not included.
    pub fn free_vars(&self) -> Vec<VarId> {
        let mut uses = std::collections::BTreeSet::new();
        let mut defs = std::collections::HashSet::new();
        nest_inner_vars(self, &mut uses, &mut defs);
        uses.into_iter().filter(|v| !defs.contains(v)).collect()
    }
}

/// The variables of a nest apart from `width` and the carried `init`s.
fn nest_inner_vars(
    nest: &LoopNest,
    uses: &mut std::collections::BTreeSet<VarId>,
    defs: &mut std::collections::HashSet<VarId>,
) {
    defs.insert(nest.index.id);
    for c in nest.carried() {
        defs.insert(c.var.id);
        atom_use(&c.next, uses);
    }
    for r in &nest.reductions {
        defs.extend(r.results.iter().map(|v| v.id));
    }
    block_vars(&nest.body, uses, defs);
    // The operators run in the combine phase of a parallel backend, so their
    // free variables belong in the environment too.
    let ops = nest.reductions.iter().map(|r| &r.op);
    for op in ops.chain(nest.scans.iter().map(|s| &s.op)) {
        defs.extend(op.params.iter().map(|p| p.id));
        block_vars(&op.body, uses, defs);
        op.results.iter().for_each(|a| atom_use(a, uses));
    }
}

fn atom_use(a: &Atom, uses: &mut std::collections::BTreeSet<VarId>) {
    if let Atom::Var(v) = a {
        uses.insert(*v);
    }
}

/// Collects every variable used and every variable defined in `block`.
fn block_vars(
    block: &Block,
    uses: &mut std::collections::BTreeSet<VarId>,
    defs: &mut std::collections::HashSet<VarId>,
) {
    for stmt in block {
        match stmt {
            Stmt::Let { var, exp, .. } => {
                match exp {
                    ScalarExp::Atom(a) | ScalarExp::UnOp(_, a) | ScalarExp::Convert(_, a) => {
                        atom_use(a, uses)
                    }
                    ScalarExp::BinOp(_, a, b) => {
                        atom_use(a, uses);
                        atom_use(b, uses);
                    }
                }
                defs.insert(var.id);
            }
            Stmt::Alloc { var, shape } => {
                shape.iter().for_each(|a| atom_use(a, uses));
                defs.insert(var.id);
            }
            Stmt::Read {
                var, array, index, ..
            }
            | Stmt::Row {
                var, array, index, ..
            } => {
                uses.insert(*array);
                index.iter().for_each(|a| atom_use(a, uses));
                defs.insert(var.id);
            }
            Stmt::Write {
                array,
                index,
                value,
            } => {
                uses.insert(*array);
                index.iter().for_each(|a| atom_use(a, uses));
                atom_use(value, uses);
            }
            Stmt::Copy { array, index, src } => {
                uses.insert(*array);
                uses.insert(*src);
                index.iter().for_each(|a| atom_use(a, uses));
            }
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => {
                atom_use(cond, uses);
                block_vars(then_block, uses, defs);
                block_vars(else_block, uses, defs);
                then_results
                    .iter()
                    .chain(else_results)
                    .for_each(|a| atom_use(a, uses));
                defs.extend(results.iter().map(|v| v.id));
            }
            Stmt::AssertEq {
                expected, found, ..
            } => {
                atom_use(expected, uses);
                atom_use(found, uses);
            }
            Stmt::Assert { cond, .. } => atom_use(cond, uses),
            Stmt::Loop(nest) => {
                atom_use(&nest.width, uses);
                nest.carried().for_each(|c| atom_use(&c.init, uses));
                nest_inner_vars(nest, uses, defs);
            }
        }
    }
}
