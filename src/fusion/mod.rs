//! `core::ir::Program` in, `fusion::ast::FusedProgram` out: SOACs grouped into
//! clusters, each an explicit fusion tree (leaf, vertical, horizontal,
//! diagonal) under a cluster root, with unfused structure between clusters.

pub mod ast;
