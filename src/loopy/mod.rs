//! `fusion::FusedProgram` in, `loopy::ir::Program` out: one parallel loop nest
//! per fusion cluster, target-neutral.

pub mod block;
pub mod bounds;
pub mod check;
pub mod generators;
pub mod hoist;
pub mod inplace;
pub mod ir;
pub mod lower;
pub mod par;
mod peel;
pub mod print;
mod rename;
pub mod rows;
pub mod tile;

pub use check::check;
pub use lower::lower;

#[cfg(test)]
pub(crate) mod tests;
