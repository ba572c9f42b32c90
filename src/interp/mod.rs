//! `core::ir::Program` plus argument values in, result values out: the
//! reference interpreter every test compares the compiled code against.
