//! The executable of a GPU target: the host object, the glue (entry
//! points, as for the CPU, and the program descriptor `arr_gpu_desc`: the
//! PTX, the kernels and the locations of device checks), the host-common
//! runtime and the GPU runtime of the target (CUDA driver or emulator),
//! linked with the system `cc`.

use super::{Artifacts, DESCRIPTOR};
use crate::codegen::cpu::link::{check_cc, runtime_object};
use crate::codegen::glue::{c_string, glue_c};
use crate::codegen::CodegenError;
use crate::loopy;
use crate::runtime::gpu::{self, GpuRuntime};
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// C for the program descriptor.
pub(crate) fn descriptor_c(artifacts: &Artifacts) -> String {
    let mut out = String::from("\n/* The GPU program: kernels, PTX, check locations. */\n");
    out.push_str("#include \"arr_gpu.h\"\n");
    if artifacts.emulated {
        for (name, _) in &artifacts.kernels {
            let _ = writeln!(out, "void {name}(void **params);");
        }
    }
    let ptx = artifacts.ptx.as_deref().unwrap_or("");
    // Long string literals are split by lines (C's limit on one literal is
    // generous in gcc and clang, but lines keep the glue readable).
    out.push_str("static const char arr_gpu_ptx[] =\n");
    if ptx.is_empty() {
        out.push_str("    \"\"");
    }
    for line in ptx.split_inclusive('\n') {
        let _ = writeln!(out, "    {}", c_string(line));
    }
    out.push_str(";\n");
    let _ = writeln!(
        out,
        "static const arr_gpu_kernel_def arr_gpu_kernels[{}] = {{",
        artifacts.kernels.len().max(1)
    );
    for (name, params) in &artifacts.kernels {
        let emu = if artifacts.emulated {
            name.as_str()
        } else {
            "NULL"
        };
        let _ = writeln!(out, "    {{{}, {params}, {emu}}},", c_string(name));
    }
    out.push_str("};\n");
    let _ = writeln!(
        out,
        "static const char *const arr_gpu_locations[{}] = {{",
        artifacts.locations.len().max(1)
    );
    for loc in &artifacts.locations {
        let _ = writeln!(out, "    {},", c_string(loc));
    }
    out.push_str("};\n");
    let _ = writeln!(
        out,
        "const arr_gpu_program {DESCRIPTOR} = {{arr_gpu_ptx, {}, arr_gpu_kernels, {}, \
         arr_gpu_locations}};",
        artifacts.kernels.len(),
        artifacts.locations.len()
    );
    out
}

/// Links the executable `out`, or with `library` (its API) the shared
/// library `out` whose C API keeps arrays on the device.
pub(crate) fn link(
    program: &loopy::ir::Program,
    artifacts: &Artifacts,
    object: &[u8],
    exact_fallback: Option<&[u8]>,
    out: &Path,
    library: Option<&crate::codegen::Api>,
) -> Result<(), CodegenError> {
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(CodegenError::Refused(format!(
                "cannot write `{}`: `{}` is not a directory",
                out.display(),
                parent.display()
            )));
        }
    }
    let kind = if artifacts.emulated {
        GpuRuntime::Emulator
    } else {
        GpuRuntime::Cuda
    };
    let io = |e: std::io::Error| CodegenError::Refused(format!("cannot write build files: {e}"));
    let dir = tempfile::tempdir().map_err(io)?;
    let path = |name: &str| dir.path().join(name);
    std::fs::write(path("program.o"), object).map_err(io)?;
    // The exact-errors fallback: the unfused entries for the CPU, which the
    // runtime re-runs after an error (docs/runtime.md).
    let mut programs = vec![path("program.o")];
    if let Some(fallback) = exact_fallback {
        std::fs::write(path("exact.o"), fallback).map_err(io)?;
        programs.push(path("exact.o"));
    }
    let mut glue = glue_c(program, false, exact_fallback.is_some());
    glue.push_str(&descriptor_c(artifacts));
    if let Some(api) = library {
        glue.push_str(&crate::codegen::library::library_glue(program, api));
        std::fs::write(path("exports.map"), crate::codegen::cpu::link::EXPORTS).map_err(io)?;
    }
    std::fs::write(path("glue.c"), glue).map_err(io)?;
    let headers: Vec<(&str, &str)> = crate::runtime::HEADERS
        .iter()
        .chain(gpu::HEADERS)
        .copied()
        .collect();
    for (name, text) in &headers {
        std::fs::write(path(name), text).map_err(io)?;
    }
    // A library has the C API where an executable has `main`.
    let host: &[(&str, &str)] = if library.is_some() {
        &[
            ("arr_runtime.c", crate::runtime::RUNTIME_C),
            ("arr_library.c", crate::runtime::LIBRARY_C),
        ]
    } else {
        crate::runtime::HOST_SOURCES
    };
    let extra: &[(&str, &str)] = if library.is_some() { gpu::LIBRARY } else { &[] };
    // The fallback's nests run on the CPU's thread pool.
    let parallel: &[(&str, &str)] = if exact_fallback.is_some() {
        &[("arr_parallel.c", crate::runtime::PARALLEL_C)]
    } else {
        &[]
    };
    let sources: Vec<(&str, &str)> = host
        .iter()
        .copied()
        .chain(gpu::sources(kind))
        .chain(extra.iter().copied())
        .chain(parallel.iter().copied())
        .collect();
    let objects = sources
        .iter()
        .map(|&(name, text)| runtime_object(dir.path(), name, text, &headers, &[]))
        .collect::<Result<Vec<_>, _>>()?;
    let mut cc = Command::new("cc");
    cc.args(["-O2", "-std=gnu11", "-fPIC"]);
    if library.is_some() {
        cc.arg("-shared").arg(format!(
            "-Wl,--version-script={}",
            path("exports.map").display()
        ));
    }
    let output = cc
        .arg("-I")
        .arg(dir.path())
        .arg(path("glue.c"))
        .args(&objects)
        .args(&programs)
        .args(gpu::link_libraries(kind))
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| CodegenError::Refused(format!("cannot run `cc`: {e}")))?;
    check_cc(&output, "linking with `cc`")
}
