//! `core::ir::Program` in, an equivalent smaller `core::ir::Program` out:
//! the same results for every input (floats included, unless `fast_math`),
//! the same run-time errors, A-normal form kept, ids still unique.
//!
//! Fusion only finds what this exposes, so it runs between lowering and
//! fusion. Each pass is one near-linear walk in its own file; `simplify_with`
//! runs them in turn until none changes anything (or the iteration cap):
//!
//! - `fold`: copy and constant propagation, constant folding, algebraic
//!   identities, index arithmetic, branch pruning, size forwarding;
//! - `cse`: common-subexpression elimination, scalars and arrays;
//! - `columns`: unused `map` results and unused array arguments;
//! - `dce`: dead code (never a statement that can fail);
//! - `inline`: a binding read in one branch only moves into it;
//! - `hoist`: lambda-invariant statements move out of the lambda.
//!
//! `facts` says what can fail and which sizes are known; `walk` holds the
//! shared traversals (and the node census); `synth` generates programs of a
//! given size for the benchmark and the property tests.

mod columns;
mod cse;
mod dce;
pub mod facts;
mod fold;
mod hoist;
mod inline;
pub mod synth;
pub mod walk;

#[cfg(test)]
mod tests;

use crate::core::ir::{Function, Program};
use facts::Facts;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimplifyOptions {
    /// Allow float rewrites that can change a value (reassociation, `x*0`).
    pub fast_math: bool,
    /// Rounds of all passes at most; each round is linear in program size.
    pub max_iterations: usize,
}

impl Default for SimplifyOptions {
    fn default() -> Self {
        SimplifyOptions {
            fast_math: false,
            max_iterations: 32,
        }
    }
}

pub fn simplify(program: Program) -> Program {
    simplify_with(program, &SimplifyOptions::default())
}

pub fn simplify_with(mut program: Program, options: &SimplifyOptions) -> Program {
    for f in &mut program.entries {
        for _ in 0..options.max_iterations {
            if !round(f, options) {
                break;
            }
        }
    }
    program
}

/// One round of every pass; true if any changed the function.
fn round(f: &mut Function, options: &SimplifyOptions) -> bool {
    let mut changed = fold::run(f, options.fast_math);
    changed |= cse::run(f);
    changed |= columns::run(f, &Facts::collect(f));
    changed |= dce::run(f, &Facts::collect(f));
    changed |= inline::run(f, &Facts::collect(f));
    changed |= hoist::run(f, &Facts::collect(f));
    changed
}
