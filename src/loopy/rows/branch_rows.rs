//! Rows an `if` returns, written in place where their shape allows.
//!
//! `map (\i -> if c then g[i] else tabulate m f) (iota n)` is lowered with
//! each branch filling an array of its own, which the iteration checks
//! against the result's row size (taken from row 0, `Lowerer::row_shape`),
//! copies into its result row and frees:
//!
//! ```text
//! let r, r_d = if c then (alloc a [s1]; ...; in (a, s1)) else (alloc b [s2]; ...; in (b, s2))
//! assert_eq_sizes row_size r_d
//! copy out[i] = r
//! free r
//! ```
//!
//! The branch sizes (`g`'s row size, `m`) are not known to be equal, so
//! `loopy::rows` cannot make `r` a view of `out[i]`. Here each branch
//! compares its array's shape with the output row's (both usually loop
//! invariant, so `loopy-hoist` and LLVM take the test out of the loop):
//! when equal, the array is a view of `out[i]` and the branch writes
//! there; otherwise the branch runs as lowered (a renamed copy), followed
//! by the checks and the copy it had after the `if`. The checks after the
//! `if` stay, so errors are the same, in the same order, on both paths.

use super::super::ir::{block_vars, Block, Stmt};
use super::super::rename::{NameSource, Renaming};
use super::{escapes, row_copy, sole_free_after, Context};
use crate::core::ir::{Atom, BinOp, SrcLoc, Type, Var, VarId};
use crate::loopy::ir::ScalarExp;
use crate::types::ScalarType;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Statements (counted into nests and branches) a branch may have for its
/// copy on the slow path: bounds the code this duplicates.
const MAX_COPIED_STMTS: usize = 400;

/// Rewrites the copy at `k` of a row an `if` returns, if it qualifies; true
/// when it did (the copy is gone, so `k` names the next statement).
pub(super) fn rewrite_at(stmts: &mut Block, k: usize, cx: &mut Context) -> bool {
    let Some((out, index, src)) = row_copy(&stmts[k], &cx.results) else {
        return false;
    };
    let Some(out_shape) = cx.shapes.get(&out) else {
        return false;
    };
    let row_shape = out_shape[index.len().min(out_shape.len())..].to_vec();
    let Some(def) = stmts[..k]
        .iter()
        .position(|s| matches!(s, Stmt::If { results, .. } if results.iter().any(|r| r.id == src)))
    else {
        return false;
    };
    // Between the `if` and the copy only the row's size checks.
    if !stmts[def + 1..k]
        .iter()
        .all(|s| matches!(s, Stmt::AssertEq { .. }))
    {
        return false;
    }
    // `src` is used nowhere else; the output is not touched from the `if`
    // to the copy; the row's index is known before the `if`.
    let Some(free) = sole_free_after(stmts, k, src) else {
        return false;
    };
    let (mut uses, mut defs) = (BTreeSet::new(), HashSet::new());
    block_vars(&stmts[def..k], &mut uses, &mut defs);
    let index_ready = index
        .iter()
        .all(|a| !matches!(a, Atom::Var(v) if defs.contains(v)));
    if uses.contains(&out) || defs.contains(&out) || !index_ready {
        return false;
    }
    let checks: Vec<Stmt> = stmts[def + 1..k].to_vec();
    let Stmt::If {
        results,
        then_block,
        then_results,
        else_block,
        else_results,
        ..
    } = &stmts[def]
    else {
        return false;
    };
    let p = results.iter().position(|r| r.id == src).unwrap_or(0);
    let target = Target {
        out,
        index: &index,
        row_shape: &row_shape,
        if_results: results,
        p,
        checks: &checks,
    };
    let Some(new_then) = target.branch(then_block, then_results, cx) else {
        return false;
    };
    let Some(new_else) = target.branch(else_block, else_results, cx) else {
        return false;
    };
    let Stmt::If {
        results,
        then_block,
        then_results,
        else_block,
        else_results,
        ..
    } = &mut stmts[def]
    else {
        return false;
    };
    results.remove(p);
    (*then_block, *then_results) = new_then;
    (*else_block, *else_results) = new_else;
    stmts.remove(free);
    stmts.remove(k);
    true
}

/// The output row an `if`'s result `p` is copied into, and the checks
/// between the `if` and the copy.
struct Target<'a> {
    out: VarId,
    index: &'a [Atom],
    row_shape: &'a [Atom],
    if_results: &'a [Var],
    p: usize,
    checks: &'a [Stmt],
}

impl Target<'_> {
    /// The branch `block` (returning `returned`) rewritten to write result
    /// `p` into the output row, and its results without it; `None` when
    /// its array is not one it allocates and fills element-wise.
    fn branch(
        &self,
        block: &Block,
        returned: &[Atom],
        cx: &mut Context,
    ) -> Option<(Block, Vec<Atom>)> {
        let Atom::Var(array) = returned.get(self.p)? else {
            return None;
        };
        let array = *array;
        let at = block
            .iter()
            .position(|s| matches!(s, Stmt::Alloc { var, .. } if var.id == array))?;
        let Stmt::Alloc { var, shape, .. } = &block[at] else {
            return None;
        };
        let others_return_it = returned
            .iter()
            .enumerate()
            .any(|(j, a)| j != self.p && *a == Atom::Var(array));
        if others_return_it
            || shape.len() != self.row_shape.len()
            || block[at + 1..].iter().any(|s| escapes(s, array))
        {
            return None;
        }
        let mut kept = returned.to_vec();
        kept.remove(self.p);
        let view = Stmt::Row {
            var: var.clone(),
            array: self.out,
            index: self.index.to_vec(),
            check: None,
        };
        let unequal: Vec<(Atom, Atom)> = self
            .row_shape
            .iter()
            .zip(shape)
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (*a, *b))
            .collect();
        let mut fast = block[..at].to_vec();
        if unequal.is_empty() {
            fast.push(view);
            fast.extend(block[at + 1..].iter().cloned());
            return Some((fast, kept));
        }
        if count(&block[at..]) > MAX_COPIED_STMTS {
            return None;
        }
        // The test: every dimension of the array equals the row's.
        let boolean = Type::Scalar(ScalarType::Bool);
        let mut same: Option<Atom> = None;
        for (a, b) in unequal {
            let eq = cx.fresh.fresh_var("same_row_size", boolean);
            let eq_id = eq.id;
            fast.push(let_binop(eq, BinOp::Eq, a, b));
            same = Some(match same {
                None => Atom::Var(eq_id),
                Some(prev) => {
                    let both = cx.fresh.fresh_var("same_row_shape", boolean);
                    let both_id = both.id;
                    fast.push(let_binop(both, BinOp::And, prev, Atom::Var(eq_id)));
                    Atom::Var(both_id)
                }
            });
        }
        let mut in_place = vec![view];
        in_place.extend(block[at + 1..].iter().cloned());
        // As lowered: the branch's own array, then the checks and the copy
        // that followed the `if`, on this branch's values.
        let mut renaming = Renaming::default();
        let mut as_lowered = renaming.block(cx.fresh, &block[at..]);
        let own = renaming.atoms(returned);
        let by_result: HashMap<VarId, Atom> = self
            .if_results
            .iter()
            .zip(&own)
            .map(|(r, a)| (r.id, *a))
            .collect();
        let subst = |a: &Atom| match a {
            Atom::Var(v) => by_result.get(v).copied().unwrap_or(*a),
            Atom::Const(_) => *a,
        };
        for check in self.checks {
            if let Stmt::AssertEq {
                expected,
                found,
                loc,
            } = check
            {
                as_lowered.push(Stmt::AssertEq {
                    expected: subst(expected),
                    found: subst(found),
                    loc: *loc,
                });
            }
        }
        let copied = renaming.id(array);
        as_lowered.push(Stmt::Copy {
            array: self.out,
            index: self.index.to_vec(),
            src: copied,
        });
        as_lowered.push(Stmt::Free(copied));
        let mut slow_kept = own;
        slow_kept.remove(self.p);
        let results: Vec<Var> = self
            .if_results
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != self.p)
            .map(|(_, r)| cx.fresh.fresh_var(&r.name, r.ty))
            .collect();
        let atoms = results.iter().map(|r| Atom::Var(r.id)).collect();
        fast.push(Stmt::If {
            results,
            cond: same?,
            then_block: in_place,
            then_results: kept,
            else_block: as_lowered,
            else_results: slow_kept,
        });
        Some((fast, atoms))
    }
}

fn let_binop(var: Var, op: BinOp, a: Atom, b: Atom) -> Stmt {
    Stmt::Let {
        var,
        exp: ScalarExp::BinOp(op, a, b),
        loc: SrcLoc::default(),
    }
}

/// Statements in `block`, those inside nests and branches included.
fn count(block: &[Stmt]) -> usize {
    block
        .iter()
        .map(|s| 1 + s.inner_blocks().iter().map(|b| count(b)).sum::<usize>())
        .sum()
}
