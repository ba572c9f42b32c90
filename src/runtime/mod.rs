//! What compiled programs run on: the C runtime linked into every binary
//! and the Rust side of the same value format, used by the interpreter and
//! the test runner.
//!
//! The C runtime is the host-common part, `arr_runtime.c` (contexts, the
//! boundary every entry point runs through, run-time errors, memory;
//! interface `arr_runtime.h`), the executable's `arr_main.c` (`main`,
//! options) with `arr_values.c` (value input and output; `arr_values.h`,
//! internal to the two), a library's `arr_library.c` (the C API;
//! `arr_library.h`), and the multicore scheduler `arr_parallel.c` (a
//! thread pool per context that runs loop nests; `arr_parallel.h`), each a
//! translation unit of its own. The host part does not depend on the
//! scheduler: the scheduler keeps its pool in the context.

pub mod gpu;
pub mod ptx;
pub mod value;

/// The host-common runtime (C11, with `-lm -lpthread`): contexts, the
/// boundary of entry points, run-time errors and memory.
pub const RUNTIME_C: &str = include_str!("c/arr_runtime.c");
/// An executable's `main`: options, reading arguments, printing results.
pub const MAIN_C: &str = include_str!("c/arr_main.c");
/// Value input and output, for `MAIN_C`.
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
/// The C API of a library (`arrc build --library`): configs, contexts,
/// errors, and the generic array and entry functions the glue calls.
pub const LIBRARY_C: &str = include_str!("c/arr_library.c");
pub const LIBRARY_H: &str = include_str!("c/arr_library.h");

/// The headers (file name, text) generated code and the runtime include.
pub const HEADERS: &[(&str, &str)] = &[
    ("arr_runtime.h", RUNTIME_H),
    ("arr_values.h", VALUES_H),
    ("arr_parallel.h", PARALLEL_H),
    ("arr_library.h", LIBRARY_H),
];

/// The host-common translation units (file name, text) of an executable:
/// what every binary links, whatever runs its loop nests (the GPU runtimes
/// link these too).
pub const HOST_SOURCES: &[(&str, &str)] = &[
    ("arr_runtime.c", RUNTIME_C),
    ("arr_main.c", MAIN_C),
    ("arr_values.c", VALUES_C),
];

/// The translation units (file name, text) a CPU binary links: the
/// host-common ones and the scheduler.
pub const CPU_SOURCES: &[(&str, &str)] = &[
    ("arr_runtime.c", RUNTIME_C),
    ("arr_main.c", MAIN_C),
    ("arr_values.c", VALUES_C),
    ("arr_parallel.c", PARALLEL_C),
];

/// The translation units of a CPU library: no `main` and no value format,
/// the C API instead.
pub const CPU_LIBRARY_SOURCES: &[(&str, &str)] = &[
    ("arr_runtime.c", RUNTIME_C),
    ("arr_parallel.c", PARALLEL_C),
    ("arr_library.c", LIBRARY_C),
];

#[cfg(test)]
mod tests;
