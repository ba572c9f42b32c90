//! `fusion::FusedProgram` in, `loopy::ir::Program` out: one parallel loop nest
//! per fusion cluster, target-neutral.
