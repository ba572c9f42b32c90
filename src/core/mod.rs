//! The checked program in, `core::ir::Program` out: every definition inlined,
//! tuples flattened, every SOAC a labelled A-normal-form statement.

pub mod check;
pub mod free;
pub mod fresh;
pub mod ir;
pub mod lower;
pub mod print;

pub use lower::lower;
