//! `core::ir::Program` in, an equivalent smaller `core::ir::Program` out.
//! (The passes are issue 4's; at present the program passes through.)

use crate::core::ir::Program;

pub fn simplify(program: Program) -> Program {
    program
}
