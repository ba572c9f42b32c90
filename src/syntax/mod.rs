//! Source text in, `ast::Program` out: the logos lexer (`lexer`), the LALRPOP
//! grammar (`grammar/arr.lalrpop`) and ariadne diagnostics for syntax errors.

pub mod ast;
pub mod diagnostic;

pub use diagnostic::{Diagnostic, SourceFile, SourceMap};
