//! Dead entry arguments updated in place. In: a lowered function whose
//! caller gives its array arguments up (a compiled executable's `main`
//! reads each argument, calls the entry and never reads the argument
//! again; a library's caller keeps its arrays, so a library never gets this
//! pass). Out: the function with fresh arrays that take over the memory of
//! parameters the function no longer needs (`Stmt::InPlace`), and those
//! parameters listed in `Function::overwritten`.
//!
//! Two shapes, both in the function's top-level block:
//! - a copy of a whole parameter (`let xs[i] = v` on it, a `scatter` into
//!   it): `Alloc new; Copy new = p` becomes `InPlace new = p`;
//! - the output of a nest that reads the parameter only at the element it
//!   writes, before writing it (saxpy's `map2 (\x y -> a*x + y) xs ys`):
//!   the output's `Alloc` goes, it takes `p`'s memory just before the
//!   nest, and the nest reads it in place of `p`. Each iteration then reads
//!   and writes one element of its own, through one pointer.
//!
//! Either way `p`, and everything sharing its memory, is unused after the
//! rewritten statement and not a result. Two more conditions:
//! - nothing from the first statement that writes the memory on may
//!   fail: after a run-time error the runtime re-runs the entry's
//!   exact-errors fallback on the same arguments, which must still hold
//!   the caller's values;
//! - nothing frees the memory, which stays the caller's: a top-level
//!   `Free` of the new array goes, any other `Free` of what shares it
//!   blocks the rewrite (a result that is the argument's memory is freed
//!   once: `free_results` in arr_main.c).
//!
//! The executable restores the overwritten arguments, untimed, before
//! every run after the first (`-r`; `arr_main.c`).

use super::inplace::{alias_edges, sharing};
use super::ir::*;
use super::par::can_fail;
use crate::core::ir::{Atom, VarId};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Rewrites `f` as the module comment says.
pub fn overwrite_dead_arguments(f: &mut Function) {
    let mut edges = HashMap::new();
    alias_edges(&f.body, &mut edges);
    let mut k = 0;
    while k < f.body.len() {
        let params = f
            .params
            .iter()
            .filter(|p| p.var.ty.rank() > 0 && !f.overwritten.contains(&p.var.id));
        let found = params.clone().find_map(|p| whole_copy(f, &edges, k, p));
        let found = found.or_else(|| params.clone().find_map(|p| elementwise(f, &edges, k, p)));
        if let Some(rewrite) = found {
            k = rewrite.apply(f, k);
            edges.entry(rewrite.param).or_default().push(rewrite.new);
        }
        k += 1;
    }
}

/// A rewrite found at a top-level position of a function's body.
struct Rewrite {
    param: VarId,
    new: VarId,
    /// Where the new array is allocated.
    alloc: usize,
    /// The nest that reads the parameter and writes the new array; `None`:
    /// the statement after the `Alloc` copies the parameter.
    nest: Option<usize>,
    /// The top-level `Free` of the new array, if any.
    free: Option<usize>,
}

impl Rewrite {
    /// Rewrites `f` (the rewrite was found at `at`); returns the position
    /// of the last statement rewritten.
    fn apply(&self, f: &mut Function, at: usize) -> usize {
        if let Some(free) = self.free {
            f.body.remove(free);
        }
        let Stmt::Alloc { var, .. } = f.body.remove(self.alloc) else {
            return at;
        };
        f.overwritten.push(self.param);
        let in_place = Stmt::InPlace {
            var,
            array: self.param,
        };
        match self.nest {
            None => {
                // The copy took the `Alloc`'s place.
                f.body[self.alloc] = in_place;
                self.alloc
            }
            Some(nest) => {
                let nest = nest - 1;
                if let Stmt::Loop(lp) = &mut f.body[nest] {
                    for stmt in &mut lp.body {
                        if let Stmt::Read { array, .. } = stmt {
                            if *array == self.param {
                                *array = self.new;
                            }
                        }
                    }
                }
                f.body.insert(nest, in_place);
                nest + 1
            }
        }
    }
}

/// `Alloc new` at `k` and `Copy new = p` after it, `p` dead from there.
fn whole_copy(
    f: &Function,
    edges: &HashMap<VarId, Vec<VarId>>,
    k: usize,
    p: &Param,
) -> Option<Rewrite> {
    let (Stmt::Alloc { var, .. }, Some(Stmt::Copy { array, index, src })) =
        (&f.body[k], f.body.get(k + 1))
    else {
        return None;
    };
    if *array != var.id || !index.is_empty() || *src != p.var.id {
        return None;
    }
    // The memory changes from the first statement that uses the copy on.
    let copies = sharing(edges, var.id);
    let first_use = (k + 2..f.body.len()).find(|&j| {
        let mut uses = BTreeSet::new();
        block_vars(
            std::slice::from_ref(&f.body[j]),
            &mut uses,
            &mut HashSet::new(),
        );
        uses.iter().any(|v| copies.contains(v))
    });
    let first_use = first_use.unwrap_or(f.body.len());
    if !dead_after(f, edges, k + 1, p.var.id, &HashSet::new(), first_use) {
        return None;
    }
    let free = caller_keeps(f, edges, var.id, k + 2)?;
    Some(Rewrite {
        param: p.var.id,
        new: var.id,
        alloc: k,
        nest: None,
        free,
    })
}

/// A nest at `k` that reads `p` only at the one element per iteration it
/// writes of an array allocated before it with `p`'s shape.
fn elementwise(
    f: &Function,
    edges: &HashMap<VarId, Vec<VarId>>,
    k: usize,
    p: &Param,
) -> Option<Rewrite> {
    let Stmt::Loop(nest) = &f.body[k] else {
        return None;
    };
    let param = p.var.id;
    // The index of every read of `p`; all at the top of the body.
    let mut index: Option<&Vec<Atom>> = None;
    let mut reads = 0;
    for stmt in &nest.body {
        if let Stmt::Read {
            array, index: i, ..
        } = stmt
        {
            if *array == param {
                if index.is_some_and(|seen| seen != i) {
                    return None;
                }
                index = Some(i);
                reads += 1;
            }
        }
    }
    let index = index?;
    if index.len() != p.shape.len() || index.first() != Some(&Atom::Var(nest.index.id)) {
        return None;
    }
    // The nest's other uses of `p`: none.
    let (uses, counts) = nest_uses(nest);
    if counts.get(&param) != Some(&reads) {
        return None;
    }
    // Arrays written at that index, after the last read of `p`.
    let last_read = nest
        .body
        .iter()
        .rposition(|s| matches!(s, Stmt::Read { array, .. } if *array == param))?;
    let shape: Vec<Atom> = p.shape.iter().map(|d| Atom::Var(d.id)).collect();
    let writes_at = |new: VarId| {
        let at = move |(j, s): (usize, &Stmt)| match s {
            Stmt::Write {
                array, index: i, ..
            } if *array == new => Some(i == index && j > last_read),
            _ => None,
        };
        nest.body.iter().enumerate().filter_map(at)
    };
    let written = nest.body.iter().filter_map(|s| match s {
        Stmt::Write { array, .. } => Some(*array),
        _ => None,
    });
    for new in written {
        // Every use of `new` in the nest is such a write.
        let writes: Vec<bool> = writes_at(new).collect();
        if !writes.iter().all(|ok| *ok) || counts.get(&new) != Some(&writes.len()) {
            continue;
        }
        let Some(alloc) = f.body[..k].iter().position(
            |s| matches!(s, Stmt::Alloc { var, shape: sh, .. } if var.id == new && var.ty == p.var.ty && *sh == shape),
        ) else {
            continue;
        };
        let mut between = BTreeSet::new();
        block_vars(&f.body[alloc + 1..k], &mut between, &mut HashSet::new());
        if between.contains(&new) {
            continue;
        }
        if !dead_after(f, edges, k, param, &uses, k) {
            return None;
        }
        let Some(free) = caller_keeps(f, edges, new, k + 1) else {
            continue;
        };
        return Some(Rewrite {
            param,
            new,
            alloc,
            nest: Some(k),
            free,
        });
    }
    None
}

/// Every variable the nest uses (its `width` and carried `init`s too), and
/// how many statements or fields use each.
fn nest_uses(nest: &LoopNest) -> (HashSet<VarId>, HashMap<VarId, usize>) {
    let mut counts: HashMap<VarId, usize> = HashMap::new();
    let mut count = |uses: BTreeSet<VarId>| {
        for v in uses {
            *counts.entry(v).or_default() += 1;
        }
    };
    for stmt in &nest.body {
        let mut uses = BTreeSet::new();
        block_vars(std::slice::from_ref(stmt), &mut uses, &mut HashSet::new());
        count(uses);
    }
    let rest = LoopNest {
        body: Vec::new(),
        ..nest.clone()
    };
    let mut uses: BTreeSet<VarId> = rest.free_vars().into_iter().collect();
    let atoms = std::iter::once(&nest.width).chain(nest.carried().map(|c| &c.init));
    uses.extend(atoms.filter_map(|a| match a {
        Atom::Var(v) => Some(*v),
        Atom::Const(_) => None,
    }));
    count(uses);
    let all = counts.keys().copied().collect();
    (all, counts)
}

/// Whether `param` and everything sharing its memory are unused after
/// top-level statement `at` and not results, the views among them unused
/// in `at_uses` (what the statement at `at` uses), and nothing from
/// `first_write` (the first statement that may change the memory) on can
/// fail.
fn dead_after(
    f: &Function,
    edges: &HashMap<VarId, Vec<VarId>>,
    at: usize,
    param: VarId,
    at_uses: &HashSet<VarId>,
    first_write: usize,
) -> bool {
    let sharing = sharing(edges, param);
    let mut uses = BTreeSet::new();
    block_vars(&f.body[at + 1..], &mut uses, &mut HashSet::new());
    uses.extend(f.results.iter().filter_map(|a| match a {
        Atom::Var(v) => Some(*v),
        Atom::Const(_) => None,
    }));
    let views_used = at_uses.iter().any(|v| *v != param && sharing.contains(v));
    !views_used
        && !uses.iter().any(|v| sharing.contains(v))
        && !f.body[first_write..].iter().any(can_fail)
}

/// `Some(free)` when nothing frees `new` or what shares its memory except,
/// maybe, one top-level `Free(new)` at or after `from` (its position).
fn caller_keeps(
    f: &Function,
    edges: &HashMap<VarId, Vec<VarId>>,
    new: VarId,
    from: usize,
) -> Option<Option<usize>> {
    let sharing = sharing(edges, new);
    let top = f.body[from..]
        .iter()
        .position(|s| *s == Stmt::Free(new))
        .map(|j| j + from);
    let mut others = 0;
    for (j, stmt) in f.body.iter().enumerate() {
        if Some(j) != top {
            others += frees(std::slice::from_ref(stmt), &sharing);
        }
    }
    (others == 0).then_some(top)
}

/// The `Free`s in `block`, at any depth, of variables in `vars`.
fn frees(block: &[Stmt], vars: &HashSet<VarId>) -> usize {
    block
        .iter()
        .map(|stmt| match stmt {
            Stmt::Free(v) => usize::from(vars.contains(v)),
            Stmt::Loop(nest) => {
                frees(&nest.body, vars)
                    + nest
                        .operators()
                        .map(|op| frees(&op.body, vars))
                        .sum::<usize>()
            }
            _ => stmt
                .inner_blocks()
                .into_iter()
                .map(|b| frees(b, vars))
                .sum(),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use crate::core::ir::Atom;
    use crate::driver::pipeline::{compile, Goal, Options, Output, Session};
    use crate::loopy::ir::{Function, Program, Stmt};

    fn loop_nests(src: &str, donate: bool) -> Program {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prog.arr");
        std::fs::write(&path, src).unwrap();
        let options = Options {
            donate,
            ..Options::default()
        };
        match compile(&path, &options, Goal::Loopy, &mut Session::new(None)) {
            Ok(Output::Loopy(program)) => program,
            _ => panic!("no loop nests"),
        }
    }

    fn allocs(f: &Function) -> usize {
        f.body
            .iter()
            .filter(|s| matches!(s, Stmt::Alloc { .. }))
            .count()
    }

    const SAXPY: &str = "entry main [n] (a: f32) (xs: [n]f32) (ys: [n]f32) : [n]f32 =\n  \
        map2 (\\x y -> a * x + y) xs ys\n";

    #[test]
    fn a_map_writes_its_output_over_a_dead_argument() {
        let program = loop_nests(SAXPY, true);
        let f = &program.functions[0];
        let xs = f.params[1].var.id;
        assert_eq!(f.overwritten, vec![xs]);
        assert_eq!(allocs(f), 0);
        // The output takes `xs`'s memory just before the nest, which reads
        // and writes it at its index; the result is that memory.
        let k = f
            .body
            .iter()
            .position(|s| matches!(s, Stmt::InPlace { array, .. } if *array == xs))
            .expect("an update in place of xs");
        let Stmt::InPlace { var, .. } = &f.body[k] else {
            unreachable!()
        };
        let Some(Stmt::Loop(nest)) = f.body.get(k + 1) else {
            panic!("no nest after the update in place");
        };
        let reads = |array| {
            let read = |s: &&Stmt| matches!(s, Stmt::Read { array: a, .. } if *a == array);
            nest.body.iter().filter(read).count()
        };
        assert_eq!((reads(var.id), reads(xs)), (1, 0));
        assert!(nest
            .body
            .iter()
            .any(|s| matches!(s, Stmt::Write { array, .. } if *array == var.id)));
        assert_eq!(f.results, vec![Atom::Var(var.id)]);
        // A library's caller keeps its arguments.
        let program = loop_nests(SAXPY, false);
        let f = &program.functions[0];
        assert!(f.overwritten.is_empty());
        assert_eq!(allocs(f), 1);
    }

    #[test]
    fn an_argument_updated_in_place_is_not_copied() {
        let program = loop_nests(
            "entry main (xs: *[]i32) (i: i64) : []i32 =\n  let xs[i] = 7\n  in xs\n",
            true,
        );
        let f = &program.functions[0];
        assert_eq!(f.overwritten, vec![f.params[0].var.id]);
        assert!(!f.body.iter().any(|s| matches!(s, Stmt::Copy { .. })));
    }

    #[test]
    fn arguments_read_later_or_elsewhere_or_freed_are_kept() {
        for src in [
            // Read again after the map.
            "entry main [n] (xs: [n]i32) : ([n]i32, [n]i32) =\n  \
             let ys = map (+ 1) xs\n  \
             let zs = map (\\i -> xs[(i + n - 1) % n]) (iota n)\n  in (ys, zs)\n",
            // Read at the element before.
            "entry main [n] (xs: [n]i32) : [n]i32 =\n  \
             map (\\i -> xs[i] + xs[(i + n - 1) % n]) (iota n)\n",
            // Carried by a loop that frees each value.
            "entry main (xs: []i32) (n: i64) : []i32 =\n  \
             loop acc = xs for i < n do map (+ 1) acc\n",
            // An index check after the map: the fallback would re-run on
            // the overwritten argument.
            "entry main (xs: []i32) (k: i64) : ([]i32, i32) =\n  \
             let ys = map (+ 1) xs\n  in (ys, ys[k])\n",
        ] {
            let program = loop_nests(src, true);
            assert!(program.functions[0].overwritten.is_empty(), "{src}");
        }
    }
}
