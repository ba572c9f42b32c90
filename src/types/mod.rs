//! `ast::Program`s in (dependencies first, the main file last), a
//! `CheckedProgram` out: type inference over whole definitions (literal types
//! fixed by later uses, defaults at the end), each global `def` checked once
//! on its own and elaborated once per distinct instantiation, and errors
//! pointing at spans.

mod builtins;
mod check;
pub mod half;
mod infer;
pub mod pmap;
pub mod scalar;
pub mod ty;
pub mod typed;

#[cfg(test)]
mod scaling_tests;
#[cfg(test)]
mod tests;

pub use check::{check, check_with_stats, CheckStats};
pub use scalar::{Const, ScalarType};
pub use ty::{Dim, LocalId, Shape, Type};
pub use typed::{
    Builtin, CheckedProgram, Entry, Literal, ScalarFn, TAttr, TExpr, TExprKind, TLambda, TLoopForm,
    TPat, TSlice,
};
