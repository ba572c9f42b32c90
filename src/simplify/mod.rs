//! `core::ir::Program` in, an equivalent smaller `core::ir::Program` out:
//! the same results for every input (floats included, unless `fast_math`),
//! the same run-time errors, A-normal form kept, ids still unique.
//!
//! Fusion only finds what this exposes, so it runs between lowering and
//! fusion. Each pass is one near-linear walk in its own file; the pass list
//! (`driver::pipeline::SIMPLIFY`) runs them in turn until none changes
//! anything (or the iteration cap):
//!
//! - `fold`: copy and constant propagation, constant folding, algebraic
//!   identities, index arithmetic, branch pruning, size forwarding;
//! - `cse`: common-subexpression elimination, scalars and arrays;
//! - `columns`: unused `map` results and unused array arguments;
//! - `dce`: dead code (never a statement that can fail);
//! - `inline`: a binding read in one branch only moves into it;
//! - `hoist`: lambda-invariant statements move out of the lambda;
//! - `tabulate`: `a[i]` in a `map` over `iota n` streams `a` (of `n` rows);
//! - `element`: an element of a map read nowhere else is computed alone;
//! - `regular`: sizes of a map's rows are the array's, and their
//!   assertions leave the map;
//! - `flat_index`: a map over `iota (n * m)` dividing its index by `m` is
//!   a nest over `iota n` and `iota m`, flattened (`unflatten n m` of it
//!   is the nest);
//! - `scatter_split`: a scatter over concatenations is one scatter per
//!   part, in order, and `size (a ++ b) 0` the sum of the parts' sizes;
//! - `compaction`: a `scatter` of each flagged element to its prefix sum
//!   minus one, into a destination of the flags' total, is a `filter`, as
//!   is a `partition` of which one half is unused.
//!
//! `facts` says what can fail and which sizes are known; `walk` holds the
//! shared traversals (and the node census); `synth` generates programs of a
//! given size for the benchmark and the property tests.

mod columns;
mod compaction;
mod cse;
mod dce;
mod element;
pub mod facts;
mod flat_index;
mod fold;
mod hoist;
mod inline;
mod regular;
mod scatter_split;
pub mod synth;
mod tabulate;
pub mod walk;

#[cfg(test)]
mod tests;

use crate::core::fresh::Fresh;
use crate::core::ir::Function;
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

/// One simplifier pass over one function: true if it changed anything.
/// The pass list (`driver::pipeline::SIMPLIFY`) runs them in rounds. New
/// names come from `Fresh`, which is above every id of the whole program:
/// ids are unique across entries, not only within one.
pub type Pass = fn(&mut Function, &SimplifyOptions, &mut Fresh) -> bool;

pub fn fold(f: &mut Function, options: &SimplifyOptions, _: &mut Fresh) -> bool {
    fold::run(f, options.fast_math)
}

pub fn cse(f: &mut Function, _: &SimplifyOptions, _: &mut Fresh) -> bool {
    cse::run(f)
}

pub fn columns(f: &mut Function, _: &SimplifyOptions, _: &mut Fresh) -> bool {
    columns::run(f, &Facts::collect(f))
}

pub fn dce(f: &mut Function, _: &SimplifyOptions, _: &mut Fresh) -> bool {
    dce::run(f, &Facts::collect(f))
}

pub fn inline(f: &mut Function, _: &SimplifyOptions, _: &mut Fresh) -> bool {
    inline::run(f, &Facts::collect(f))
}

pub fn hoist(f: &mut Function, _: &SimplifyOptions, _: &mut Fresh) -> bool {
    hoist::run(f, &Facts::collect(f))
}

pub fn tabulate(f: &mut Function, _: &SimplifyOptions, _: &mut Fresh) -> bool {
    tabulate::run(f, &Facts::collect(f))
}

pub fn element(f: &mut Function, _: &SimplifyOptions, _: &mut Fresh) -> bool {
    element::run(f, &Facts::collect(f))
}

pub fn regular(f: &mut Function, _: &SimplifyOptions, fresh: &mut Fresh) -> bool {
    regular::run(f, &Facts::collect(f), fresh)
}

pub fn flat_index(f: &mut Function, _: &SimplifyOptions, fresh: &mut Fresh) -> bool {
    flat_index::run(f, fresh)
}

pub fn scatter_split(f: &mut Function, _: &SimplifyOptions, fresh: &mut Fresh) -> bool {
    scatter_split::run(f, &Facts::collect(f), fresh)
}

pub fn compaction(f: &mut Function, _: &SimplifyOptions, fresh: &mut Fresh) -> bool {
    compaction::run(f, &Facts::collect(f), fresh)
}
