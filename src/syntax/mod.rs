//! Source text in, `ast::Program` out: the logos lexer (`lexer`), the LALRPOP
//! grammar (`grammar/arr.lalrpop`) and ariadne diagnostics for syntax errors.

pub mod ast;
pub(crate) mod build;
pub mod diagnostic;
pub mod lexer;
mod parser;
mod typeparams;

#[cfg(test)]
mod tests;

pub use diagnostic::{Diagnostic, SourceFile, SourceMap};
pub use parser::parse_program;
