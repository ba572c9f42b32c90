//! `fusion::FusedProgram` in, `loopy::ir::Program` out: one parallel loop nest
//! per fusion cluster, target-neutral.

pub mod block;
pub mod borrow;
pub mod bounds;
pub mod check;
pub mod chunk;
pub mod donate;
pub mod generators;
pub mod hists;
pub mod hoist;
pub mod inplace;
pub mod ir;
pub mod jam;
pub mod lower;
pub mod memory;
pub mod outer;
pub mod par;
mod peel;
pub mod print;
mod rename;
pub mod rows;
pub mod scratch;
pub mod select;
pub mod tile;
pub mod unflat;
pub mod unroll;
mod vars;
pub mod wrap;

pub use check::check;
pub use lower::lower;

/// What a target tunes the loop-nest passes for (its description,
/// `codegen::Target::describe`): which of the CPU-tuned passes run, and
/// with what sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// `loopy::block`: register-block matrix products in blocks and tiles
    /// of these sizes; `None`: no blocking.
    pub block: Option<block::Blocking>,
    /// `loopy::tile`: run transposing nests in tiles of this many
    /// iterations a side; `None`: not tiled.
    pub transpose_tile: Option<usize>,
    /// `loopy::jam`: run a nest over an inner search (argmin per point) or
    /// a `while` loop per point this many values of its index at a time;
    /// `None`: not jammed.
    pub jam_lanes: Option<jam::JamLanes>,
    /// `loopy::hists`: a map of column histograms over the same points
    /// becomes one histogram of all their bins.
    pub merge_hists: bool,
    /// `loopy::par::grain`: what makes a parallel task worth handing to a
    /// thread; `None`: the target does not cut nests into tasks.
    pub grain: Option<par::Grain>,
    /// `loopy::memory`: host memory is not device memory (a GPU), so
    /// arrays only host code uses stay in host memory and light maps over
    /// them run in host code.
    pub host_nests: bool,
}

#[cfg(test)]
pub(crate) mod tests;
