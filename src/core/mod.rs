//! The checked program in, `core::ir::Program` out: every definition inlined,
//! tuples flattened, every SOAC a labelled A-normal-form statement.

pub mod ir;
pub mod print;
pub mod free;
pub mod lower;

pub use lower::lower;
