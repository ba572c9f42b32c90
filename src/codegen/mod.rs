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
//! the runtime's `main` and the entry points; `library` a library's C API
//! (header and glue) and `python` its Python module.

mod backend;
mod cpu;
mod emit;
mod glue;
pub(crate) mod gpu;
pub(crate) mod library;
mod python;
mod runtime;
#[cfg(test)]
mod tests;

pub use glue::{glue_c, WIDE_SUFFIX};
pub use library::api::Api;
pub use library::{clashing_entry_names, library_header};
pub use python::python_module;

use crate::loopy;
use backend::Backend;
use cpu::link::{Linked, RuntimeFiles};
use cpu::CpuBackend;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{FileType, TargetMachine};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    X86_64,
    /// NVIDIA GPUs: host code for x86-64, kernels as PTX.
    NvPtx,
    /// The same kernels compiled for x86-64 and run by the GPU emulator.
    NvPtxEmu,
}

impl Target {
    pub fn is_gpu(self) -> bool {
        matches!(self, Target::NvPtx | Target::NvPtxEmu)
    }
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

/// A checking build (`--sanitize`): memory from the C library with no
/// rounding and no reuse (so that an overrun of even one byte leaves the
/// block), and the generated code and the runtime instrumented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sanitizer {
    /// AddressSanitizer: out-of-bounds accesses, use after free, leaks.
    Address,
    /// ThreadSanitizer: data races between the runtime's threads.
    Thread,
    /// Exact allocation only, for valgrind and other outside checkers.
    Alloc,
}

impl Sanitizer {
    /// What `cc` adds for the runtime, the glue and the link.
    pub(crate) fn cc_flags(self) -> &'static [&'static str] {
        match self {
            Sanitizer::Address => &["-DARR_EXACT_ALLOC", "-fsanitize=address"],
            Sanitizer::Thread => &["-DARR_EXACT_ALLOC", "-fsanitize=thread"],
            Sanitizer::Alloc => &["-DARR_EXACT_ALLOC"],
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
    /// the sign of zero may be ignored (see `emit::allow_float_rewrites`).
    pub fast_math: bool,
    /// `--gpu sm_XX`: the compute capability PTX is generated for (70 is
    /// sm_70).
    pub gpu_arch: u32,
    /// `--strict-fp`: no fused multiply-adds. Without it a float multiply
    /// feeding an add or subtract may be contracted (LANGUAGE.md section
    /// 6; see `emit::allow_contraction`).
    pub strict_fp: bool,
    /// This module is the exact-errors fallback of an executable: its
    /// entries get their own symbols (`arr_exact_entry_K`), which the glue
    /// hands the runtime to re-run after a run-time error (`link`).
    pub exact_fallback: bool,
    /// `--sanitize`: a checking build (CPU executables and libraries).
    pub sanitize: Option<Sanitizer>,
}

impl Default for CodegenOptions {
    fn default() -> Self {
        CodegenOptions {
            opt_level: 2,
            target: Target::X86_64,
            count_traffic: false,
            cpu: Cpu::Native,
            fast_math: false,
            gpu_arch: 70,
            strict_fp: false,
            exact_fallback: false,
            sanitize: None,
        }
    }
}

/// Why code generation stopped: a broken invariant of arrc's own
/// (`Internal`, an internal compiler error), or what cannot be done here
/// (`Refused`: a target not supported, `cc` missing or failing, an output
/// that cannot be written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodegenError {
    Internal(String),
    Refused(String),
}

impl std::fmt::Display for CodegenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodegenError::Internal(msg) | CodegenError::Refused(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for CodegenError {}

/// The fields of a module being compiled for a target, and the passes
/// over it the pass list runs (`driver::pipeline`): `emit` makes it,
/// `set_attributes`, `optimise` and `prefetch` change it, `object` and
/// `assembly` write it.
pub struct LlvmModule<'ctx> {
    context: &'ctx LlvmContext,
    module: Module<'ctx>,
    machine: TargetMachine,
    backend: Box<dyn Backend>,
    opt_level: u8,
    /// GPU targets: what the link needs.
    gpu: Option<gpu::Artifacts>,
    /// nvptx: the device module (optimised, as the PTX was made from it).
    device: Option<Module<'ctx>>,
}

pub use inkwell::context::Context as LlvmContext;

/// What the pass list asks of a target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetDesc {
    /// What the loopy passes tune for (and which CPU-tuned ones run).
    pub tuning: loopy::Tuning,
    /// Software prefetching after LLVM's optimisation (`cpu::prefetch`).
    pub prefetch: bool,
}

impl Target {
    /// What the pass list asks of this target, generating code for `cpu`
    /// (on x86-64).
    pub fn describe(self, cpu: Cpu) -> TargetDesc {
        match self {
            Target::X86_64 => TargetDesc {
                tuning: cpu::tuning(cpu),
                prefetch: true,
            },
            // A GPU wants none of the CPU's cache tiling or prefetching.
            Target::NvPtx | Target::NvPtxEmu => TargetDesc {
                tuning: loopy::Tuning {
                    block: None,
                    transpose_tile: None,
                    jam_lanes: None,
                    merge_hists: false,
                    grain: None,
                    host_nests: true,
                },
                prefetch: false,
            },
        }
    }
}

/// Loop nests (which must pass `loopy::check` and carry their plans) to an
/// unoptimised module for `opts.target`.
pub fn emit<'ctx>(
    context: &'ctx LlvmContext,
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
) -> Result<LlvmModule<'ctx>, CodegenError> {
    let backend = backend(opts)?;
    let machine = backend.machine()?;
    if opts.target.is_gpu() && opts.count_traffic {
        return Err(CodegenError::Refused(
            "--count-traffic is not supported with a GPU target".into(),
        ));
    }
    if opts.target.is_gpu() && opts.sanitize.is_some() {
        return Err(CodegenError::Refused(
            "--sanitize is not supported with a GPU target (NVIDIA's compute-sanitizer checks GPU code)"
                .into(),
        ));
    }
    // Modules get their target's data layout before any code is built:
    // loads and stores take their alignment from it (without it an `i64`
    // is 4-byte aligned, and NVPTX splits each access in two).
    let device = match opts.target {
        Target::NvPtxEmu => Some(gpu::Device::new(context, true, &machine)),
        Target::NvPtx => {
            let nvptx = gpu::device::nvptx_machine(opts.gpu_arch, opts.opt_level)?;
            Some(gpu::Device::new(context, false, &nvptx))
        }
        _ => None,
    };
    let (module, device) = emit::build(context, program, backend.as_ref(), opts, &machine, device)?;
    let (gpu, device) = match device {
        Some(d) => {
            let (artifacts, device) =
                gpu::device::finish(context, &module, d, opts.gpu_arch, opts.opt_level)?;
            (Some(artifacts), device)
        }
        None => (None, None),
    };
    Ok(LlvmModule {
        context,
        module,
        machine,
        backend,
        opt_level: opts.opt_level,
        gpu,
        device,
    })
}

impl LlvmModule<'_> {
    /// The target's attributes on every function (before optimising).
    pub fn set_attributes(&mut self) -> Result<(), CodegenError> {
        self.backend.prepare(self.context, &self.module)
    }

    /// LLVM's `default<On>` pipeline for the target machine.
    pub fn optimise(&mut self) -> Result<(), CodegenError> {
        let passes = format!("default<O{}>", self.opt_level.min(3));
        self.module
            .run_passes(&passes, &self.machine, PassBuilderOptions::create())
            .map_err(|e| CodegenError::Internal(format!("LLVM optimisation failed: {e}")))
    }

    /// The sanitizer's instrumentation (`CodegenOptions::sanitize`), after
    /// optimisation as C compilers place it; nothing for `Alloc`.
    pub fn sanitize(&mut self, sanitizer: Sanitizer) -> Result<(), CodegenError> {
        let passes = match sanitizer {
            Sanitizer::Address => "asan",
            Sanitizer::Thread => "tsan-module,function(tsan)",
            Sanitizer::Alloc => return Ok(()),
        };
        self.module
            .run_passes(passes, &self.machine, PassBuilderOptions::create())
            .map_err(|e| CodegenError::Internal(format!("LLVM instrumentation failed: {e}")))
    }

    /// Prefetches ahead of the vector loads of vectorised loops (CPU).
    pub fn prefetch(&mut self) -> Result<(), CodegenError> {
        cpu::prefetch::prefetch_streams(self.context, &self.module)
    }

    /// The guarded stores' masks as bits (CPU; see `cpu::masked`).
    pub fn masks(&mut self) -> Result<(), CodegenError> {
        cpu::masked::masks_from_bits(self.context, &self.module)
    }

    /// Non-temporal stores in the stream variants of map nests (CPU; see
    /// `cpu::stream`).
    pub fn nontemporal(&mut self) -> Result<(), CodegenError> {
        cpu::stream::mark_nontemporal(self.context, &self.module)
    }

    /// Appends `suffix` to the names of the entry functions, so that a
    /// second copy of the program (for another processor level) links
    /// beside the first; everything else of a module is private to it.
    pub fn rename_entries(&mut self, suffix: &str) {
        for f in self.module.get_functions() {
            let name = f.get_name().to_string_lossy().into_owned();
            if f.count_basic_blocks() > 0 && name.starts_with("arr_entry_") {
                f.as_global_value().set_name(&format!("{name}{suffix}"));
            }
        }
    }

    /// The module's text (nvptx: the device module's).
    pub fn print(&self) -> String {
        match &self.device {
            Some(device) => device.print_to_string().to_string(),
            None => self.module.print_to_string().to_string(),
        }
    }

    /// What a GPU build leaves for the link.
    pub fn gpu_artifacts(&self) -> Option<&gpu::Artifacts> {
        self.gpu.as_ref()
    }

    /// Whether the code can still report a run-time error (a call to one of
    /// the runtime's `arr_fail_*` functions survived optimisation).
    pub fn can_fail(&self) -> bool {
        self.module.get_functions().any(|f| {
            f.get_name().to_bytes().starts_with(b"arr_fail_")
                && inkwell::values::BasicValue::get_first_use(
                    &f.as_global_value().as_pointer_value(),
                )
                .is_some()
        })
    }

    pub fn verify(&self) -> Result<(), String> {
        self.module
            .verify()
            .map_err(|e| format!("invalid LLVM module: {e}"))
    }

    /// Assembly (nvptx: the PTX).
    pub fn assembly(&self) -> Result<String, CodegenError> {
        if let Some(ptx) = self.gpu.as_ref().and_then(|g| g.ptx.clone()) {
            return Ok(ptx);
        }
        let buf = self
            .machine
            .write_to_memory_buffer(&self.module, FileType::Assembly)
            .map_err(|e| CodegenError::Internal(format!("LLVM could not emit assembly: {e}")))?;
        Ok(String::from_utf8_lossy(buf.as_slice()).into_owned())
    }

    pub fn object(&self) -> Result<Vec<u8>, CodegenError> {
        let buf = self
            .machine
            .write_to_memory_buffer(&self.module, FileType::Object)
            .map_err(|e| {
                CodegenError::Internal(format!("LLVM could not emit an object file: {e}"))
            })?;
        Ok(buf.as_slice().to_vec())
    }
}

/// The object files of an executable or library: the program's (with a
/// library's wide copy), and the exact-errors fallback's
/// (`CodegenOptions::exact_fallback`) when it has one.
pub struct Objects<'a> {
    pub program: &'a [Vec<u8>],
    pub exact_fallback: Option<&'a [u8]>,
}

/// Links the object files from `LlvmModule::object` with their glue and the
/// runtime into the executable `out` (with the system `cc`).
pub fn link(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    objects: Objects,
    gpu: Option<&gpu::Artifacts>,
    out: &Path,
) -> Result<(), CodegenError> {
    match (gpu, objects.program) {
        (Some(artifacts), [object]) => gpu::link::link(
            program,
            artifacts,
            object,
            objects.exact_fallback,
            out,
            None,
        ),
        (Some(_), _) => Err(CodegenError::Internal(
            "a GPU executable links one host object".into(),
        )),
        (None, _) => link_with_runtime(program, opts, objects, out, RuntimeFiles::CPU),
    }
}

/// `link` with a given runtime (tests use a small one).
fn link_with_runtime(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    objects: Objects,
    out: &Path,
    runtime: RuntimeFiles,
) -> Result<(), CodegenError> {
    let machine = backend(opts)?.machine()?;
    cpu::link::link(
        program,
        opts,
        &machine,
        objects,
        out,
        runtime,
        Linked::Executable,
    )
}

/// Links object files from `LlvmModule::object` with the glue, the C API
/// and the runtime into the shared library `out` (`library_header` is its
/// header).
pub fn link_library(
    program: &loopy::ir::Program,
    api: &Api,
    opts: &CodegenOptions,
    objects: Objects,
    gpu: Option<&gpu::Artifacts>,
    wide: bool,
    out: &Path,
) -> Result<(), CodegenError> {
    if let Some((a, b)) = clashing_entry_names(program) {
        return Err(CodegenError::Refused(format!(
            "entry points `{a}` and `{b}` would have the same C name in a library"
        )));
    }
    if !api.matches(program) {
        return Err(CodegenError::Internal(
            "the library's API does not match its entry points".into(),
        ));
    }
    if let Some(artifacts) = gpu {
        let [object] = objects.program else {
            return Err(CodegenError::Internal(
                "a GPU library has one host object".into(),
            ));
        };
        return gpu::link::link(
            program,
            artifacts,
            object,
            objects.exact_fallback,
            out,
            Some(api),
        );
    }
    let machine = backend(opts)?.machine()?;
    cpu::link::link(
        program,
        opts,
        &machine,
        objects,
        out,
        RuntimeFiles::CPU_LIBRARY,
        Linked::Library { wide, api },
    )
}

/// The backend of `opts.target`.
fn backend(opts: &CodegenOptions) -> Result<Box<dyn Backend>, CodegenError> {
    match opts.target {
        Target::X86_64 => Ok(Box::new(CpuBackend {
            opt_level: opts.opt_level,
            cpu: opts.cpu,
            sanitize: opts.sanitize,
        })),
        Target::NvPtx | Target::NvPtxEmu => Ok(Box::new(gpu::GpuBackend {
            opt_level: opts.opt_level,
            cpu: opts.cpu,
        })),
    }
}
