//! The jam of a `while` loop per point (an escape time: `loop (zr, zi, k)
//! while k < limit && zr * zr + zi * zi < 4 do ...`): one `SeqLoop` of
//! `loopy::ir` in, run for one point, and one out that runs the lanes'
//! loops side by side under a mask.
//!
//! ```text
//! active_v = cond(init_v)                          -- v < L
//! seqloop (state_v = init_v, active_v) while active_0 || ... || active_L-1
//!   next_v = body(state_v)                         -- every lane
//!   state_v' = if active_v then next_v else state_v
//!   next (state_v', cond(state_v'))
//! ```
//!
//! A lane whose own condition has failed keeps its state, so it ends with
//! the values its own loop would have, bit for bit; its condition, a pure
//! function of that state, stays false. Running the body for such a lane
//! is safe only because nothing in the condition or the body can fail or
//! read memory (a read the bounds pass proved in range under the loop's
//! condition could be out of range past it): `escape_loop` checks this.
//! The branches of the condition and body (`&&` is one) become selects,
//! computing both sides, which LLVM's SLP vectoriser packs with the lanes'
//! arithmetic into vectors of `L` values.

use super::{float_let, scalar};
use crate::core::ir::{Atom, BinOp, Type};
use crate::loopy::block::let_bin;
use crate::loopy::ir::{Block, Param, ScalarExp, SeqForm, SeqLoop, SeqParam, Stmt};
use crate::loopy::rename::{Fresh, NameSource, Renaming};
use crate::types::ScalarType;

/// The `while` loop of `r`, if it is one the mask can run (see the module
/// comment): scalar parameters, a condition and a body of lets and
/// branches of lets that cannot fail.
pub(super) fn escape_loop(r: &Stmt) -> Option<(&SeqLoop, &Block, &Atom)> {
    let Stmt::SeqLoop(
        lp @ SeqLoop {
            form: SeqForm::While { cond, result },
            ..
        },
    ) = r
    else {
        return None;
    };
    let scalars = lp
        .params
        .iter()
        .all(|p| p.shape.is_empty() && scalar(p.var.ty));
    (scalars && pure(cond) && pure(&lp.body)).then_some((lp, cond, result))
}

fn pure(block: &[Stmt]) -> bool {
    block.iter().all(|stmt| match stmt {
        Stmt::Let { exp, .. } => !exp.may_fail() || float_let(stmt),
        Stmt::If {
            then_block,
            else_block,
            ..
        } => pure(then_block) && pure(else_block),
        _ => false,
    })
}

/// Appends a copy of `block` renamed by `env`, each branch's sides run one
/// after the other and its results chosen by a branch of no statements (a
/// select).
fn flattened(block: &[Stmt], env: &mut Renaming, fresh: &mut Fresh, out: &mut Block) {
    for stmt in block {
        match stmt {
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => {
                let cond = env.atom(cond);
                flattened(then_block, env, fresh, out);
                let then_results = env.atoms(then_results);
                flattened(else_block, env, fresh, out);
                let else_results = env.atoms(else_results);
                out.push(Stmt::If {
                    results: env.defs(fresh, results),
                    cond,
                    then_block: Vec::new(),
                    then_results,
                    else_block: Vec::new(),
                    else_results,
                });
            }
            _ => {
                let copy = env.stmt(fresh, stmt);
                out.push(copy);
            }
        }
    }
}

/// Each lane's condition on the state `state` (one atom per parameter of
/// `lp`), appended to `out`.
fn condition(
    lp: &SeqLoop,
    (cond, result): (&Block, &Atom),
    env: &Renaming,
    state: &[Atom],
    fresh: &mut Fresh,
    out: &mut Block,
) -> Atom {
    let mut env = env.clone();
    for (p, value) in lp.params.iter().zip(state) {
        let var = env.def(fresh, &p.var);
        out.push(Stmt::Let {
            var,
            exp: ScalarExp::Atom(*value),
            loc: crate::loopy::block::loc0(),
        });
    }
    flattened(cond, &mut env, fresh, out);
    env.atom(result)
}

/// Appends the masked loop of every lane of `envs` (their renamings, in
/// order) running `lp` (whose condition is `cond` with value `result`),
/// and defines each lane's results in its renaming.
pub(super) fn masked_loop(
    (lp, cond, result): (&SeqLoop, &Block, &Atom),
    envs: &mut [Renaming],
    fresh: &mut Fresh,
    out: &mut Block,
) {
    let boolean = Type::Scalar(ScalarType::Bool);
    let mut params = Vec::new();
    let mut actives = Vec::new();
    for env in envs.iter_mut() {
        let inits: Vec<Atom> = lp.params.iter().map(|p| env.atom(&p.init)).collect();
        let first = condition(lp, (cond, result), env, &inits, fresh, out);
        for (p, init) in lp.params.iter().zip(inits) {
            params.push(SeqParam {
                var: env.def(fresh, &p.var),
                shape: Vec::new(),
                init,
            });
        }
        let active = fresh.fresh_var("active", boolean);
        actives.push((active.clone(), first));
    }
    let mut while_block = Vec::new();
    let mut any = Atom::Var(actives[0].0.id);
    for (active, _) in &actives[1..] {
        let or = fresh.fresh_var("any_active", boolean);
        let_bin(&mut while_block, &or, BinOp::Or, any, Atom::Var(active.id));
        any = Atom::Var(or.id);
    }

    let mut body = Vec::new();
    let mut nexts = Vec::new();
    for env in envs.iter_mut() {
        flattened(&lp.body, env, fresh, &mut body);
        nexts.push(env.atoms(&lp.next));
    }
    let mut next = Vec::new();
    let mut next_actives = Vec::new();
    for ((env, (active, _)), stepped) in envs.iter_mut().zip(&actives).zip(nexts) {
        let kept: Vec<Atom> = lp
            .params
            .iter()
            .map(|p| Atom::Var(env.id(p.var.id)))
            .collect();
        let chosen: Vec<_> = lp
            .params
            .iter()
            .map(|p| fresh.fresh_var(&p.var.name, p.var.ty))
            .collect();
        body.push(Stmt::If {
            results: chosen.clone(),
            cond: Atom::Var(active.id),
            then_block: Vec::new(),
            then_results: stepped,
            else_block: Vec::new(),
            else_results: kept,
        });
        let chosen: Vec<Atom> = chosen.iter().map(|v| Atom::Var(v.id)).collect();
        next_actives.push(condition(
            lp,
            (cond, result),
            env,
            &chosen,
            fresh,
            &mut body,
        ));
        next.extend(chosen);
    }
    next.extend(next_actives);

    let mut results = Vec::new();
    for env in envs.iter_mut() {
        for r in &lp.results {
            results.push(Param {
                var: env.def(fresh, &r.var),
                shape: Vec::new(),
            });
        }
    }
    for (active, first) in actives {
        params.push(SeqParam {
            var: active,
            shape: Vec::new(),
            init: first,
        });
        results.push(Param {
            var: fresh.fresh_var("active_after", boolean),
            shape: Vec::new(),
        });
    }
    out.push(Stmt::SeqLoop(SeqLoop {
        params,
        form: SeqForm::While {
            cond: while_block,
            result: any,
        },
        body,
        next,
        results,
    }));
}
