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
//!
//! With `host_nests` (GPU targets, where host memory is a different
//! memory) arrays that can share memory (views, rows, updates in place,
//! a sequential loop's carried array with its initial, next and final
//! values, a branch's result with the branches') form one class, which
//! is device memory when a launched nest, the entry's parameters or its
//! results use any of them, and host memory otherwise; and a launched map
//! whose body is light (no allocation, nest or loop inside) and touches
//! only host classes runs in host code (`Launch::Inline`), so that an
//! array only host code uses stays in host memory instead of being read
//! and written on the device element by element.

use super::ir::{
    for_each_binder, Block, Function, Launch, LoopNest, MemSpace, Parallelism, SeqForm, Stmt,
};
use crate::core::ir::{Atom, Type, VarId};
use std::collections::{HashMap, HashSet};

/// The most statements a map's body may have to run in host code.
const LIGHT_BODY: usize = 8;

pub fn assign_spaces(f: &mut Function, host_nests: bool) {
    let mut aliases = HashMap::new();
    base_arrays(&f.body, &mut aliases);
    if host_nests {
        same_memory(f, &mut aliases);
        let inline = host_maps(f, &aliases);
        mark_inline(&mut f.body, &inline);
    }
    let mut on_device = HashSet::new();
    launched_uses(&mut f.body, &mut on_device);
    if host_nests {
        let outside = f.params.iter().map(|p| p.var.id);
        on_device.extend(outside.chain(atom_vars(&f.results)));
        let mut nests = Vec::new();
        top_nests(&f.body, &mut nests);
        for n in nests.into_iter().filter(|n| n.launch == Launch::Host) {
            on_device.extend(nest_uses(n));
        }
    }
    let on_device: HashSet<VarId> = on_device.into_iter().map(|v| base(v, &aliases)).collect();
    set_spaces(&mut f.body, &on_device, &aliases, false);
}

/// The variables among `atoms`.
fn atom_vars(atoms: &[Atom]) -> impl Iterator<Item = VarId> + '_ {
    atoms.iter().filter_map(|a| match a {
        Atom::Var(v) => Some(*v),
        Atom::Const(_) => None,
    })
}

/// What a launched nest uses from outside: its free variables and its
/// carried values' initial values (a carried array's buffer, which the
/// iterations update in place).
fn nest_uses(nest: &LoopNest) -> Vec<VarId> {
    let mut uses = nest.free_vars();
    let inits: Vec<Atom> = nest.carried().map(|c| c.init).collect();
    uses.extend(atom_vars(&inits));
    uses
}

/// Joins the classes of `a` and `b` (their bases; the later one points to
/// the earlier, so that `base` still ends).
fn join(aliases: &mut HashMap<VarId, VarId>, a: VarId, b: VarId) {
    let (a, b) = (base(a, aliases), base(b, aliases));
    if a != b {
        aliases.insert(a.max(b), a.min(b));
    }
}

/// Joins the values that may hold the same memory in host code: a
/// sequential loop's carried variables with their initial, next and final
/// values, a branch's results with the branches'.
fn same_memory(f: &Function, aliases: &mut HashMap<VarId, VarId>) {
    fn walk(block: &Block, aliases: &mut HashMap<VarId, VarId>) {
        for stmt in block {
            match stmt {
                Stmt::SeqLoop(lp) => {
                    for (k, p) in lp.params.iter().enumerate() {
                        let mut joined = vec![p.var.id];
                        joined.extend(atom_vars(std::slice::from_ref(&p.init)));
                        joined.extend(atom_vars(lp.next.get(k..k + 1).unwrap_or_default()));
                        joined.extend(lp.results.get(k).map(|r| r.var.id));
                        for v in &joined[1..] {
                            join(aliases, joined[0], *v);
                        }
                    }
                }
                Stmt::If {
                    results,
                    then_results,
                    else_results,
                    ..
                } => {
                    for (k, r) in results.iter().enumerate() {
                        for side in [then_results, else_results] {
                            if let Some(v) =
                                atom_vars(side.get(k..k + 1).unwrap_or_default()).next()
                            {
                                join(aliases, r.id, v);
                            }
                        }
                    }
                }
                Stmt::Loop(nest) => {
                    // A carried array is its buffer, and a reduction's result
                    // takes the buffer over.
                    for c in nest.carried() {
                        if let Atom::Var(v) = c.init {
                            join(aliases, c.var.id, v);
                        }
                    }
                    for r in &nest.reductions {
                        for (res, c) in r.results.iter().zip(&r.carried) {
                            join(aliases, res.id, c.var.id);
                        }
                    }
                }
                _ => {}
            }
            for inner in stmt.inner_blocks() {
                walk(inner, aliases);
            }
        }
    }
    walk(&f.body, aliases);
}

/// The top-level maps (by their index variable) that run in host code: a
/// light body whose arrays are in classes no kernel, parameter or result
/// uses. A map that cannot (it touches a device class) becomes a kernel and
/// makes every class it touches device memory, until nothing changes.
fn host_maps(f: &Function, aliases: &HashMap<VarId, VarId>) -> HashSet<VarId> {
    let mut nests = Vec::new();
    top_nests(&f.body, &mut nests);
    // Only arrays have a memory (a scalar a kernel reads is its argument).
    let mut arrays: HashSet<VarId> = f
        .params
        .iter()
        .filter(|p| matches!(p.var.ty, Type::Array(..)))
        .map(|p| p.var.id)
        .collect();
    for_each_binder(&f.body, &mut |v| {
        if matches!(v.ty, Type::Array(..)) {
            arrays.insert(v.id);
        }
    });
    let memory = |vars: Vec<VarId>| {
        vars.into_iter()
            .filter(|v| arrays.contains(v))
            .map(|v| base(v, aliases))
            .collect::<Vec<_>>()
    };
    let mut device: HashSet<VarId> = memory(f.params.iter().map(|p| p.var.id).collect())
        .into_iter()
        .collect();
    device.extend(memory(atom_vars(&f.results).collect()));
    let mut inline: HashSet<VarId> = nests
        .iter()
        .filter(|n| light_map(n))
        .map(|n| n.index.id)
        .collect();
    loop {
        for n in nests.iter().filter(|n| !inline.contains(&n.index.id)) {
            device.extend(memory(nest_uses(n)));
        }
        let before = inline.len();
        inline.retain(|index| {
            let n = nests.iter().find(|n| n.index.id == *index);
            n.is_some_and(|n| memory(nest_uses(n)).iter().all(|v| !device.contains(v)))
        });
        if inline.len() == before {
            return inline;
        }
    }
}

/// The nests host code reaches.
fn top_nests<'a>(block: &'a Block, out: &mut Vec<&'a LoopNest>) {
    for stmt in block {
        match stmt {
            Stmt::Loop(nest) => out.push(nest),
            other => other
                .inner_blocks()
                .into_iter()
                .for_each(|b| top_nests(b, out)),
        }
    }
}

/// A map whose body is a few statements without allocations, nests or
/// loops.
fn light_map(nest: &LoopNest) -> bool {
    nest.par == Parallelism::Map
        && nest.carried().next().is_none()
        && nest.body.len() <= LIGHT_BODY
        && nest.body.iter().all(|s| {
            !matches!(
                s,
                Stmt::Alloc { .. } | Stmt::Loop(_) | Stmt::SeqLoop(_) | Stmt::If { .. }
            )
        })
}

/// Marks the host-code maps of `inline` (by index variable).
fn mark_inline(block: &mut Block, inline: &HashSet<VarId>) {
    for stmt in block {
        match stmt {
            Stmt::Loop(nest) => {
                if inline.contains(&nest.index.id) {
                    nest.launch = Launch::Inline;
                }
            }
            other => other
                .inner_blocks_mut()
                .into_iter()
                .for_each(|b| mark_inline(b, inline)),
        }
    }
}

/// The arrays of `f` in host memory on a GPU target: every array whose
/// class (see the module's doc) holds an allocation in `MemSpace::Host`.
pub fn host_arrays(f: &Function) -> HashSet<VarId> {
    let mut aliases = HashMap::new();
    base_arrays(&f.body, &mut aliases);
    same_memory(f, &mut aliases);
    let mut allocs = HashSet::new();
    host_allocs(&f.body, &mut allocs);
    // By class: a class's base may be a loop's variable, not the allocation.
    let host: HashSet<VarId> = allocs.into_iter().map(|v| base(v, &aliases)).collect();
    let mut out = HashSet::new();
    for_each_binder(&f.body, &mut |v| {
        if matches!(v.ty, Type::Array(..)) && host.contains(&base(v.id, &aliases)) {
            out.insert(v.id);
        }
    });
    out
}

/// The allocations in host memory (in host code: those in nests are
/// scratch).
fn host_allocs(block: &Block, out: &mut HashSet<VarId>) {
    for stmt in block {
        match stmt {
            Stmt::Alloc {
                var,
                space: MemSpace::Host,
                ..
            } => {
                out.insert(var.id);
            }
            Stmt::Loop(_) => {}
            other => other
                .inner_blocks()
                .into_iter()
                .for_each(|b| host_allocs(b, out)),
        }
    }
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
                // A map host code runs (`mark_inline`) touches host memory.
                if nest.launch != Launch::Inline {
                    nest.launch = Launch::Host;
                    uses.extend(nest.free_vars());
                }
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
