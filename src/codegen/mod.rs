//! `loopy::ir::Program` in, LLVM IR, assembly or an object file out (inkwell,
//! LLVM 19), plus the C glue that connects entry points to the runtime.
