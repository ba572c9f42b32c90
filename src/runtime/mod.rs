//! What compiled programs run on: the C runtime linked into every binary
//! (value input and output, run-time errors, `main`) and the Rust side of the
//! same value format, used by the interpreter and the test runner.
