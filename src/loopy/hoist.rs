//! Loop-invariant scalars: a pass over lowered functions that moves `Let`s
//! whose operands are all defined outside a loop (a parallel nest or a
//! sequential loop) to just before it, innermost loops first, so that a
//! value hoisted out of an inner nest can leave the outer one too.
//!
//! The lowering computes `n - 1` or `i - 1` where the source wrote them,
//! often inside the innermost loop and inside a branch. Hoisted, they are
//! computed once, and an index built from them is loop-invariant for the
//! code generator's loop versioning (`codegen::cpu::loops`), which only
//! recognises variables from outside the loop.
//!
//! Only operations that cannot fail move (not `/`, `%`, `//`, `rem`): a
//! hoisted statement may now run when its branch or loop would not have.

use super::ir::{block_vars, Block, Function, ScalarExp, Stmt};
use crate::core::ir::{Atom, VarId};
use std::collections::{BTreeSet, HashSet};

/// Hoists the loop-invariant scalars of `f`; see the module comment.
pub fn hoist_invariants(f: &mut Function) {
    block(&mut f.body);
}

fn block(stmts: &mut Block) {
    let mut k = 0;
    while k < stmts.len() {
        let hoisted = match &mut stmts[k] {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                block(then_block);
                block(else_block);
                Vec::new()
            }
            Stmt::SeqLoop(lp) => {
                block(&mut lp.body);
                let inside = defined_in(&stmts[k]);
                let Stmt::SeqLoop(lp) = &mut stmts[k] else {
                    unreachable!()
                };
                take_invariant(&mut lp.body, &inside)
            }
            Stmt::Loop(nest) => {
                block(&mut nest.body);
                let inside = defined_in(&stmts[k]);
                let Stmt::Loop(nest) = &mut stmts[k] else {
                    unreachable!()
                };
                take_invariant(&mut nest.body, &inside)
            }
            _ => Vec::new(),
        };
        let count = hoisted.len();
        for (j, stmt) in hoisted.into_iter().enumerate() {
            stmts.insert(k + j, stmt);
        }
        k += count + 1;
    }
}

fn defined_in(stmt: &Stmt) -> HashSet<VarId> {
    let mut uses = BTreeSet::new();
    let mut defs = HashSet::new();
    block_vars(std::slice::from_ref(stmt), &mut uses, &mut defs);
    defs
}

/// Removes from `body` (and the branches of its `if`s, not from inner
/// loops) the `Let`s that use nothing in `inside` and cannot fail, in
/// order; each one taken counts as outside for those after it.
fn take_invariant(body: &mut Block, inside: &HashSet<VarId>) -> Vec<Stmt> {
    let mut inside = inside.clone();
    let mut taken = Vec::new();
    take_from(body, &mut inside, &mut taken);
    taken
}

fn take_from(body: &mut Block, inside: &mut HashSet<VarId>, taken: &mut Vec<Stmt>) {
    let mut k = 0;
    while k < body.len() {
        match &mut body[k] {
            Stmt::Let { var, exp, .. } if !exp.may_fail() && operands_outside(exp, inside) => {
                inside.remove(&var.id);
                taken.push(body.remove(k));
                continue;
            }
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                take_from(then_block, inside, taken);
                take_from(else_block, inside, taken);
            }
            _ => {}
        }
        k += 1;
    }
}

fn operands_outside(exp: &ScalarExp, inside: &HashSet<VarId>) -> bool {
    let outside = |a: &Atom| match a {
        Atom::Var(v) => !inside.contains(v),
        Atom::Const(_) => true,
    };
    match exp {
        ScalarExp::Atom(a) | ScalarExp::UnOp(_, a) | ScalarExp::Convert(_, a) => outside(a),
        ScalarExp::BinOp(_, a, b) => outside(a) && outside(b),
        ScalarExp::Fma(a, b, c) => outside(a) && outside(b) && outside(c),
    }
}

#[cfg(test)]
mod tests {
    use crate::loopy::print::print_program;

    #[test]
    fn invariant_scalars_leave_both_nests() {
        let program = crate::loopy::tests::lowered_source(
            "entry main [n] [m] (g: [n][m]f32) : [n][m]f32 =\n  \
             tabulate_2d n m (\\i j -> if j == m - 1 then g[i, j] else g[i - 1, j + 1])\n",
        );
        let text = print_program(&program);
        let first_loop = text.find("loop map").expect("a loop nest");
        // `m - 1` leaves both nests; `i - 1` leaves the inner one only, and
        // `j + 1` stays.
        let m_minus_1 = text.find("sub m_").expect("m - 1");
        assert!(m_minus_1 < first_loop, "{text}");
        let i_minus_1 = text.find("sub i_").expect("i - 1");
        let inner_loop = text[first_loop + 1..].find("loop map").expect("inner nest") + first_loop;
        assert!(first_loop < i_minus_1 && i_minus_1 < inner_loop, "{text}");
        let j_plus_1 = text.find("add i_").expect("j + 1");
        assert!(j_plus_1 > inner_loop, "{text}");
    }
}
