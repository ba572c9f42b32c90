//! arrc: an optimising compiler for Arr, a purely functional data-parallel
//! array language. `driver::pipeline` shows the stages in order.

pub mod codegen;
pub mod core;
pub mod driver;
pub mod fusion;
pub mod interp;
pub mod loopy;
pub mod runtime;
pub mod simplify;
pub mod syntax;
pub mod testgen;
pub mod types;
