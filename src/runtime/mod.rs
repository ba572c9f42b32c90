//! What compiled programs run on: the C runtime linked into every binary
//! and the Rust side of the same value format, used by the interpreter and
//! the test runner.
//!
//! The C runtime is the host-common part, `arr_runtime.c` (`main`,
//! options, run-time errors, memory; interface `arr_runtime.h`) with
//! `arr_values.c` (value input and output; `arr_values.h`, internal to the
//! two), and the multicore scheduler `arr_parallel.c` (the thread pool that
//! runs loop nests; `arr_parallel.h`), each a translation unit of its own.
//! The host part does not depend on the scheduler: the scheduler sets its
//! hooks.

pub mod gpu;
pub mod ptx;
pub mod value;

/// The host-common runtime (C11, with `-lm -lpthread`): `main`, options,
/// run-time errors and memory.
pub const RUNTIME_C: &str = include_str!("c/arr_runtime.c");
/// Value input and output, for `RUNTIME_C`.
pub const VALUES_C: &str = include_str!("c/arr_values.c");
pub const VALUES_H: &str = include_str!("c/arr_values.h");
/// The host-common interface between generated glue and code and
/// `RUNTIME_C`.
pub const RUNTIME_H: &str = include_str!("c/arr_runtime.h");
/// The multicore scheduler: the thread pool and the strategies that run
/// loop nests on it.
pub const PARALLEL_C: &str = include_str!("c/arr_parallel.c");
/// The interface of `PARALLEL_C`, with the `arr_nest` descriptor.
pub const PARALLEL_H: &str = include_str!("c/arr_parallel.h");

/// The headers (file name, text) generated code and the runtime include.
pub const HEADERS: &[(&str, &str)] = &[
    ("arr_runtime.h", RUNTIME_H),
    ("arr_values.h", VALUES_H),
    ("arr_parallel.h", PARALLEL_H),
];

/// The host-common translation units (file name, text): what every binary
/// links, whatever runs its loop nests (the GPU runtimes link these too).
pub const HOST_SOURCES: &[(&str, &str)] =
    &[("arr_runtime.c", RUNTIME_C), ("arr_values.c", VALUES_C)];

/// The translation units (file name, text) a CPU binary links: the
/// host-common two and the scheduler.
pub const CPU_SOURCES: &[(&str, &str)] = &[
    ("arr_runtime.c", RUNTIME_C),
    ("arr_values.c", VALUES_C),
    ("arr_parallel.c", PARALLEL_C),
];

#[cfg(test)]
mod tests;
