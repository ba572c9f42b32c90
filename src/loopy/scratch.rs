//! The `loopy-scratch` pass, memory expansion: no heap allocation per
//! iteration of a parallel loop (a `loopy::ir::Function` whose spaces
//! `loopy::memory` assigned in; the same with some `Scratch` allocations
//! made `Thread` out).
//!
//! An array a nest's iteration allocates and frees again (a `map` inside
//! the nest's function whose result is reduced, searched or indexed, but
//! not kept) is one allocation per element of the nest. When its shape is
//! the same in every iteration (constants, and variables defined outside
//! the nest), one buffer per thread serves every iteration: the
//! allocation's space becomes `MemSpace::Thread`, which a backend allocates
//! once per run of the nest's loop (the CPU: per chunk, on the stack when
//! small and constant; a GPU: a slice per thread before the launch). The
//! array must be freed in the block that allocates it, so that no two
//! iterations' arrays are alive at once: one that escapes the block (a
//! loop's carried array, a branch's result) keeps its own allocation.
//! Each nest decides for the allocations of its own body, not for those of
//! a nest inside it (that nest's loop allocates them). A shape the body
//! checks (a slice's count, a computed size) keeps its allocation too: it
//! may be negative, which the check inside reports in order, or not at all
//! when the nest runs no iteration, where an allocation before the nest
//! would fail first.

use super::ir::{Block, Function, MemSpace, Stmt};
use crate::core::ir::{Atom, VarId};
use crate::types::Const;
use std::collections::HashSet;

pub fn expand_scratch(f: &mut Function) {
    visit(&mut f.body);
}

/// Finds the nests in `block` (at any depth).
fn visit(block: &mut Block) {
    for stmt in block {
        if let Stmt::Loop(nest) = stmt {
            let mut inside = nest.defined_vars();
            inside.extend(checked_sizes(&nest.body));
            mark(&mut nest.body, &inside);
        }
        for inner in stmt.inner_blocks_mut() {
            visit(inner);
        }
    }
}

/// The sizes that `SizeCheck`s and `SliceCheck`s in `block` (at any
/// depth) validate.
fn checked_sizes(block: &Block) -> HashSet<VarId> {
    let mut out = HashSet::new();
    for stmt in block {
        match stmt {
            Stmt::SizeCheck {
                size: Atom::Var(v), ..
            }
            | Stmt::SliceCheck {
                count: Atom::Var(v),
                ..
            } => {
                out.insert(*v);
            }
            _ => {}
        }
        for inner in stmt.inner_blocks() {
            out.extend(checked_sizes(inner));
        }
    }
    out
}

/// Marks the scratch allocations of one nest's body (through branches and
/// sequential loops, not into nests) whose shape avoids `inside` and which
/// their block frees.
fn mark(block: &mut Block, inside: &HashSet<VarId>) {
    let freed: HashSet<VarId> = block
        .iter()
        .filter_map(|s| match s {
            Stmt::Free(v) => Some(*v),
            _ => None,
        })
        .collect();
    for stmt in block.iter_mut() {
        match stmt {
            Stmt::Alloc { var, shape, space } => {
                // A negative constant is checked in the body too.
                let invariant = shape.iter().all(|a| match a {
                    Atom::Var(v) => !inside.contains(v),
                    Atom::Const(c) => !matches!(c, Const::I64(n) if *n < 0),
                });
                if *space == MemSpace::Scratch && invariant && freed.contains(&var.id) {
                    *space = MemSpace::Thread;
                }
            }
            Stmt::Loop(_) => {}
            _ => {
                for inner in stmt.inner_blocks_mut() {
                    mark(inner, inside);
                }
            }
        }
    }
}
