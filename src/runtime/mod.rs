//! What compiled programs run on: the C runtime linked into every binary
//! (value input and output, run-time errors, `main`) and the Rust side of the
//! same value format, used by the interpreter and the test runner.

pub mod gpu;
pub mod ptx;
pub mod value;

/// The runtime linked into every compiled program (C11, with `-lm -lpthread`):
/// values, errors and `main`, then the thread pool, as one translation unit.
pub const RUNTIME_C: &str = concat!(
    include_str!("c/arr_runtime.c"),
    include_str!("c/arr_parallel.c")
);
/// The thread pool part of `RUNTIME_C` alone (for test runtimes).
pub const RUNTIME_PARALLEL_C: &str = include_str!("c/arr_parallel.c");
/// The contract between generated glue and code and `RUNTIME_C`.
pub const RUNTIME_H: &str = include_str!("c/arr_runtime.h");

#[cfg(test)]
mod tests;
