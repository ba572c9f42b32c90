//! `ast::Program`s in (dependencies first, the main file last), a
//! `CheckedProgram` out: type inference over whole definitions (literal types
//! fixed by later uses, defaults at the end), every `def` use checked per
//! instantiation and inlined, and errors pointing at spans.

mod builtins;
mod check;
pub mod half;
mod infer;
pub mod scalar;
pub mod ty;
pub mod typed;

#[cfg(test)]
mod tests;

pub use check::check;
pub use scalar::{Const, ScalarType};
pub use ty::{Dim, LocalId, Shape, Type};
pub use typed::{
    Builtin, CheckedProgram, Entry, Literal, ScalarFn, TExpr, TExprKind, TLambda, TLoopForm, TPat,
    TSlice,
};
