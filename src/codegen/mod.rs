//! `loopy::ir::Program` in, LLVM IR, assembly, an object file or an
//! executable out (inkwell, LLVM 19).
//!
//! `emit` generates target-neutral code (entry points, statements, scalar
//! expressions) and asks the target's `Backend` (`backend`) for what is its
//! own: loop nests, run-time errors, allocation, the target machine and the
//! attributes of a module. `cpu` is the multicore x86-64 target (thread
//! pool nests, prefetching, the `cc` link); a GPU target goes in `gpu/`
//! beside it, implementing the same trait. `runtime` is the typed table of
//! the C runtime functions generated code calls; `glue` the C glue between
//! the runtime's `main` and the entry points.

mod backend;
mod cpu;
mod emit;
mod glue;
mod runtime;
#[cfg(test)]
mod tests;

pub use glue::glue_c;

use crate::loopy;
use backend::Backend;
use cpu::link::RuntimeFiles;
use cpu::CpuBackend;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{FileType, TargetMachine};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    X86_64,
    NvPtx,
}

/// The x86-64 processor code is tuned and restricted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cpu {
    /// The machine compiling (all its vector extensions).
    Native,
    /// A microarchitecture level: 1 is baseline SSE2, 2 adds SSE4.2, 3 AVX2
    /// and FMA, 4 AVX-512.
    Level(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodegenOptions {
    /// 0 to 3, as `-O0`..`-O3`.
    pub opt_level: u8,
    pub target: Target,
    /// Instrument array loads, stores and copies, and make the binary print
    /// `traffic: reads=R writes=W` (language contract, section 9).
    pub count_traffic: bool,
    pub cpu: Cpu,
    /// `--fast-math`: the program's float operations may be reassociated,
    /// contracted into fused multiply-adds and divided by reciprocals, and
    /// the sign of zero may be ignored (see `llvm::allow_float_rewrites`).
    pub fast_math: bool,
}

impl Default for CodegenOptions {
    fn default() -> Self {
        CodegenOptions {
            opt_level: 2,
            target: Target::X86_64,
            count_traffic: false,
            cpu: Cpu::Native,
            fast_math: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenError(pub String);

impl std::fmt::Display for CodegenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CodegenError {}

/// Textual LLVM IR after optimisation.
pub fn emit_llvm(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
) -> Result<String, CodegenError> {
    with_module(program, opts, |module, _| {
        Ok(module.print_to_string().to_string())
    })
}

/// Assembly for the target, after optimisation.
pub fn emit_asm(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
) -> Result<String, CodegenError> {
    with_module(program, opts, |module, machine| {
        let buf = machine
            .write_to_memory_buffer(module, FileType::Assembly)
            .map_err(|e| CodegenError(format!("LLVM could not emit assembly: {e}")))?;
        Ok(String::from_utf8_lossy(buf.as_slice()).into_owned())
    })
}

/// A relocatable object file for the target, after optimisation.
pub fn emit_object(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
) -> Result<Vec<u8>, CodegenError> {
    with_module(program, opts, |module, machine| {
        let buf = machine
            .write_to_memory_buffer(module, FileType::Object)
            .map_err(|e| CodegenError(format!("LLVM could not emit an object file: {e}")))?;
        Ok(buf.as_slice().to_vec())
    })
}

/// Compiles `program`, writes it with its glue and the runtime into a
/// temporary directory, and links `out` with the system `cc`.
pub fn link_executable(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    out: &Path,
) -> Result<(), CodegenError> {
    link_with_runtime(program, opts, out, RuntimeFiles::CPU)
}

/// `link_executable` with a given runtime (tests use a small one).
fn link_with_runtime(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    out: &Path,
    runtime: RuntimeFiles,
) -> Result<(), CodegenError> {
    let object = emit_object(program, opts)?;
    let machine = backend(opts)?.machine()?;
    cpu::link::link(program, opts, &machine, &object, out, runtime)
}

/// Links an object file from `emit_object` with its glue and the runtime.
pub fn link_object(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    object: &[u8],
    out: &Path,
) -> Result<(), CodegenError> {
    let machine = backend(opts)?.machine()?;
    cpu::link::link(program, opts, &machine, object, out, RuntimeFiles::CPU)
}

/// The backend of `opts.target`.
fn backend(opts: &CodegenOptions) -> Result<Box<dyn Backend>, CodegenError> {
    match opts.target {
        Target::X86_64 => Ok(Box::new(CpuBackend {
            opt_level: opts.opt_level,
            cpu: opts.cpu,
        })),
        Target::NvPtx => Err(CodegenError(
            "the nvptx target is not supported yet".to_string(),
        )),
    }
}

/// Builds, verifies and optimises the module, then hands it to `f` with the
/// target machine it was optimised for.
fn with_module<T>(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    f: impl FnOnce(&Module, &TargetMachine) -> Result<T, CodegenError>,
) -> Result<T, CodegenError> {
    let backend = backend(opts)?;
    loopy::check(program).map_err(CodegenError)?;
    let machine = backend.machine()?;
    let context = Context::create();
    let module = emit::build(
        &context,
        program,
        backend.as_ref(),
        opts.count_traffic,
        opts.fast_math,
    )?;
    backend.prepare(&context, &module)?;
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let passes = format!("default<O{}>", opts.opt_level.min(3));
    module
        .run_passes(&passes, &machine, PassBuilderOptions::create())
        .map_err(|e| CodegenError(format!("LLVM optimisation failed: {e}")))?;
    if std::env::var_os("ARRC_NO_PREFETCH").is_none() {
        cpu::prefetch::prefetch_streams(&context, &module)?;
    }
    f(&module, &machine)
}
