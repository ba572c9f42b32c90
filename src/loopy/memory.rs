//! The `loopy-memory` pass: the boundary between host code and parallel
//! nests, and where each allocation lives (a `loopy::ir::Function` in, the
//! same with `LoopNest::launch` and `Stmt::Alloc`'s space set).
//!
//! A nest that host code reaches (in a function's body, a branch, a
//! sequential loop, outside every nest) is launched (`Launch::Host`: a
//! kernel on a GPU); a nest inside another's iteration runs in the thread
//! of that iteration (`Launch::Nested`). An allocation inside a nest's
//! iteration (or in an operator, which combines iterations' values) is that
//! iteration's scratch; one in host code is device memory
//! when a launched nest reads or writes it, directly or through a view, a
//! row or an array that took its memory over, and host memory otherwise.
//! The CPU has one memory for all three; a GPU backend keeps device arrays
//! on the device from one kernel to the next.

use super::ir::{Block, Function, Launch, LoopNest, MemSpace, SeqForm, Stmt};
use crate::core::ir::VarId;
use std::collections::{HashMap, HashSet};

pub fn assign_spaces(f: &mut Function) {
    let mut aliases = HashMap::new();
    base_arrays(&f.body, &mut aliases);
    let mut on_device = HashSet::new();
    launched_uses(&mut f.body, &mut on_device);
    let on_device: HashSet<VarId> = on_device.into_iter().map(|v| base(v, &aliases)).collect();
    set_spaces(&mut f.body, &on_device, &aliases, false);
}

/// The array whose memory `v` uses (itself, unless a view, a row or an
/// update in place of another).
fn base(mut v: VarId, aliases: &HashMap<VarId, VarId>) -> VarId {
    // Aliases point to earlier definitions, so this ends.
    while let Some(&of) = aliases.get(&v) {
        v = of;
    }
    v
}

/// Records, for every array defined as part of another, that other.
fn base_arrays(block: &Block, aliases: &mut HashMap<VarId, VarId>) {
    for stmt in block {
        match stmt {
            Stmt::Row { var, array, .. }
            | Stmt::View { var, array, .. }
            | Stmt::InPlace { var, array } => {
                aliases.insert(var.id, *array);
            }
            _ => {}
        }
        for inner in blocks_and_operators(stmt) {
            base_arrays(inner, aliases);
        }
    }
}

/// Marks the nests host code reaches as launched (and those in them as
/// nested), collecting what the launched ones use from outside.
fn launched_uses(block: &mut Block, uses: &mut HashSet<VarId>) {
    for stmt in block {
        match stmt {
            Stmt::Loop(nest) => {
                nest.launch = Launch::Host;
                uses.extend(nest.free_vars());
                mark_nested(&mut nest.body);
            }
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                launched_uses(then_block, uses);
                launched_uses(else_block, uses);
            }
            Stmt::SeqLoop(lp) => {
                if let SeqForm::While { cond, .. } = &mut lp.form {
                    launched_uses(cond, uses);
                }
                launched_uses(&mut lp.body, uses);
            }
            _ => {}
        }
    }
}

fn mark_nested(block: &mut Block) {
    for stmt in block {
        if let Stmt::Loop(nest) = stmt {
            nest.launch = Launch::Nested;
        }
        for inner in blocks_and_operators_mut(stmt) {
            mark_nested(inner);
        }
    }
}

fn set_spaces(
    block: &mut Block,
    on_device: &HashSet<VarId>,
    aliases: &HashMap<VarId, VarId>,
    in_nest: bool,
) {
    for stmt in block {
        if let Stmt::Alloc { var, space, .. } = stmt {
            *space = if in_nest {
                MemSpace::Scratch
            } else if on_device.contains(&base(var.id, aliases)) {
                MemSpace::Device
            } else {
                MemSpace::Host
            };
        }
        let inside = in_nest || matches!(stmt, Stmt::Loop(_));
        for inner in blocks_and_operators_mut(stmt) {
            set_spaces(inner, on_device, aliases, inside);
        }
    }
}

/// The statement's inner blocks and, for a nest, its operators' bodies.
fn blocks_and_operators(stmt: &Stmt) -> Vec<&Block> {
    let mut blocks = stmt.inner_blocks();
    if let Stmt::Loop(nest) = stmt {
        blocks.extend(nest.operators().map(|op| &op.body));
    }
    blocks
}

fn blocks_and_operators_mut(stmt: &mut Stmt) -> Vec<&mut Block> {
    match stmt {
        Stmt::Loop(nest) => {
            let LoopNest {
                body,
                reductions,
                scans,
                hists,
                ..
            } = nest;
            let ops = reductions.iter_mut().map(|r| &mut r.op.body);
            let ops = ops
                .chain(scans.iter_mut().map(|s| &mut s.op.body))
                .chain(hists.iter_mut().map(|h| &mut h.op.body));
            std::iter::once(body).chain(ops).collect()
        }
        other => other.inner_blocks_mut(),
    }
}
