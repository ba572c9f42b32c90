//! `ast::Program` in, a checked program out: type inference (literal types
//! fixed by later uses), size checking, and errors pointing at spans.

pub mod scalar;

pub use scalar::{Const, ScalarType};
