//! `loopy::ir::Program` in, LLVM IR, assembly or an object file out (inkwell,
//! LLVM 19), plus the C glue that connects entry points to the runtime and
//! the link step that makes an executable with the system `cc`.

mod glue;
mod llvm;
mod prefetch;
#[cfg(test)]
mod tests;

pub use glue::glue_c;

use crate::loopy;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine,
};
use inkwell::OptimizationLevel;
use std::path::{Path, PathBuf};
use std::process::Command;

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

impl Cpu {
    fn llvm_name(self) -> String {
        match self {
            Cpu::Native => TargetMachine::get_host_cpu_name().to_string(),
            Cpu::Level(1) => "x86-64".to_string(),
            Cpu::Level(n) => format!("x86-64-v{n}"),
        }
    }

    /// Whether the CPU has 512-bit vector registers.
    fn has_avx512(self) -> bool {
        match self {
            Cpu::Native => TargetMachine::get_host_cpu_features()
                .to_string()
                .split(',')
                .any(|f| f == "+avx512f"),
            Cpu::Level(n) => n >= 4,
        }
    }

    fn llvm_features(self) -> String {
        match self {
            Cpu::Native => TargetMachine::get_host_cpu_features().to_string(),
            Cpu::Level(_) => String::new(),
        }
    }
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
    link_with_runtime(
        program,
        opts,
        out,
        crate::runtime::RUNTIME_C,
        crate::runtime::RUNTIME_H,
    )
}

/// `link_executable` with a given runtime (tests use a small one).
fn link_with_runtime(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    out: &Path,
    runtime_c: &str,
    runtime_h: &str,
) -> Result<(), CodegenError> {
    let object = emit_object(program, opts)?;
    link_object_with_runtime(program, opts, &object, out, runtime_c, runtime_h)
}

/// Links an object file from `emit_object` with its glue and the runtime.
pub fn link_object(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    object: &[u8],
    out: &Path,
) -> Result<(), CodegenError> {
    link_object_with_runtime(
        program,
        opts,
        object,
        out,
        crate::runtime::RUNTIME_C,
        crate::runtime::RUNTIME_H,
    )
}

fn link_object_with_runtime(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    object: &[u8],
    out: &Path,
    runtime_c: &str,
    runtime_h: &str,
) -> Result<(), CodegenError> {
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(CodegenError(format!(
                "cannot write `{}`: `{}` is not a directory",
                out.display(),
                parent.display()
            )));
        }
    }
    let io = |e: std::io::Error| CodegenError(format!("cannot write build files: {e}"));
    let dir = tempfile::tempdir().map_err(io)?;
    let path = |name: &str| dir.path().join(name);
    std::fs::write(path("program.o"), object).map_err(io)?;
    let mut glue = glue_c(program);
    if opts.count_traffic {
        glue.push_str(glue::TRAFFIC_GLUE);
    }
    std::fs::write(path("glue.c"), glue).map_err(io)?;
    std::fs::write(path("arr_runtime.h"), runtime_h).map_err(io)?;
    let runtime = runtime_object(dir.path(), runtime_c, runtime_h)?;
    let output = Command::new("cc")
        .arg("-O2")
        .arg("-std=gnu11")
        .arg("-I")
        .arg(dir.path())
        .arg(path("glue.c"))
        .arg(&runtime)
        .arg(path("program.o"))
        .arg("-lm")
        .arg("-lpthread")
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| CodegenError(format!("cannot run `cc`: {e}")))?;
    check_cc(&output, "linking with `cc`")
}

fn check_cc(output: &std::process::Output, what: &str) -> Result<(), CodegenError> {
    if output.status.success() {
        Ok(())
    } else {
        Err(CodegenError(format!(
            "{what} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )))
    }
}

/// The runtime compiled to an object file. Compiling it takes longer than
/// the rest of a build, so the object is kept in `$XDG_CACHE_HOME/arrc` (or
/// `~/.cache/arrc`) under a hash of its source, written atomically; without
/// a usable cache it is compiled into `dir`.
fn runtime_object(dir: &Path, runtime_c: &str, runtime_h: &str) -> Result<PathBuf, CodegenError> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (runtime_c, runtime_h, env!("CARGO_PKG_VERSION")).hash(&mut hasher);
    let name = format!("arr_runtime-{:016x}.o", hasher.finish());
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|c| c.join("arrc"));
    if let Some(cached) = cache.as_ref().map(|c| c.join(&name)) {
        if cached.is_file() {
            return Ok(cached);
        }
    }
    let io = |e: std::io::Error| CodegenError(format!("cannot write build files: {e}"));
    std::fs::write(dir.join("arr_runtime.c"), runtime_c).map_err(io)?;
    std::fs::write(dir.join("arr_runtime.h"), runtime_h).map_err(io)?;
    let object = dir.join("arr_runtime.o");
    let output = Command::new("cc")
        .args(["-O2", "-std=gnu11", "-c"])
        .arg("-I")
        .arg(dir)
        .arg(dir.join("arr_runtime.c"))
        .arg("-o")
        .arg(&object)
        .output()
        .map_err(|e| CodegenError(format!("cannot run `cc`: {e}")))?;
    check_cc(&output, "compiling the runtime with `cc`")?;
    if let Some(cache) = cache {
        // Best effort: a read-only home only costs the next build time.
        let temp = cache.join(format!("{name}.{}.tmp", std::process::id()));
        let stored = std::fs::create_dir_all(&cache)
            .and_then(|_| std::fs::copy(&object, &temp))
            .and_then(|_| std::fs::rename(&temp, cache.join(&name)));
        if stored.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
    }
    Ok(object)
}

/// Builds, verifies and optimises the module, then hands it to `f` with the
/// target machine it was optimised for.
fn with_module<T>(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    f: impl FnOnce(&Module, &TargetMachine) -> Result<T, CodegenError>,
) -> Result<T, CodegenError> {
    if opts.target == Target::NvPtx {
        return Err(CodegenError(
            "the nvptx target is not supported yet".to_string(),
        ));
    }
    loopy::check(program).map_err(CodegenError)?;
    let machine = host_machine(opts.opt_level, opts.cpu)?;
    let context = Context::create();
    let module = llvm::build(&context, program, opts.count_traffic, opts.fast_math)?;
    if opts.cpu.has_avx512() {
        prefer_512_bit_vectors(&context, &module);
    }
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let passes = format!("default<O{}>", opts.opt_level.min(3));
    module
        .run_passes(&passes, &machine, PassBuilderOptions::create())
        .map_err(|e| CodegenError(format!("LLVM optimisation failed: {e}")))?;
    if std::env::var_os("ARRC_NO_PREFETCH").is_none() {
        prefetch::prefetch_streams(&context, &module)?;
    }
    f(&module, &machine)
}

/// LLVM vectorises with 256-bit vectors even where 512-bit ones exist,
/// because early AVX-512 cores lower their clock for wide code. Measured
/// on this project's machine (2 threads), 512-bit loops run Black-Scholes
/// in 64 ms instead of 97 and matmul in 22 ms instead of 24.5, and no
/// benchmark got slower, so arrc asks for them.
fn prefer_512_bit_vectors(context: &Context, module: &inkwell::module::Module) {
    let attribute = context.create_string_attribute("prefer-vector-width", "512");
    let mut function = module.get_first_function();
    while let Some(f) = function {
        f.add_attribute(inkwell::attributes::AttributeLoc::Function, attribute);
        function = f.get_next_function();
    }
}

/// A target machine for x86-64 tuned for `cpu`.
fn host_machine(opt_level: u8, cpu: Cpu) -> Result<TargetMachine, CodegenError> {
    LlvmTarget::initialize_x86(&InitializationConfig::default());
    let triple = TargetMachine::get_default_triple();
    let target = LlvmTarget::from_triple(&triple)
        .map_err(|e| CodegenError(format!("unknown target {triple}: {e}")))?;
    let level = match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    let features = cpu.llvm_features();
    let cpu = cpu.llvm_name();
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            level,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| CodegenError(format!("LLVM has no target machine for {triple}")))
}
