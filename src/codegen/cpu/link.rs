//! The executable or shared library: the object file, the generated glue
//! (with the checks of the `arr_nest` layout, and a library's C API) and the
//! runtime's translation units, linked with the system `cc`.

use super::super::glue::{self, glue_c};
use crate::codegen::{CodegenError, CodegenOptions};
use crate::loopy;
use inkwell::targets::TargetMachine;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C runtime a binary links: headers and translation units, each a
/// file name and its text.
#[derive(Clone, Copy)]
pub(crate) struct RuntimeFiles<'a> {
    pub(crate) headers: &'a [(&'a str, &'a str)],
    pub(crate) sources: &'a [(&'a str, &'a str)],
}

impl RuntimeFiles<'static> {
    /// What every CPU binary links (`crate::runtime`).
    pub(crate) const CPU: RuntimeFiles<'static> = RuntimeFiles {
        headers: crate::runtime::HEADERS,
        sources: crate::runtime::CPU_SOURCES,
    };
    /// What a CPU library links: the C API instead of `main`.
    pub(crate) const CPU_LIBRARY: RuntimeFiles<'static> = RuntimeFiles {
        headers: crate::runtime::HEADERS,
        sources: crate::runtime::CPU_LIBRARY_SOURCES,
    };
}

/// What `link` writes.
#[derive(Clone, Copy)]
pub(crate) enum Linked<'a> {
    Executable,
    /// A shared library exporting only the C API (`arrc_*`): the runtime's
    /// and the program's own symbols stay local, so that two libraries in
    /// one process cannot bind to each other's. `wide`: the second object
    /// holds the entries for x86-64-v3 (`glue::WIDE_SUFFIX`).
    Library {
        wide: bool,
        api: &'a crate::codegen::Api,
    },
}

/// The linker's version script of a library.
pub(crate) const EXPORTS: &str = "{\n  global: arrc_*;\n  local: *;\n};\n";

pub(crate) fn link(
    program: &loopy::ir::Program,
    opts: &CodegenOptions,
    machine: &TargetMachine,
    objects: &[Vec<u8>],
    out: &Path,
    runtime: RuntimeFiles,
    linked: Linked,
) -> Result<(), CodegenError> {
    let library = match linked {
        Linked::Executable => None,
        Linked::Library { wide, api } => Some((wide, api)),
    };
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(CodegenError::Refused(format!(
                "cannot write `{}`: `{}` is not a directory",
                out.display(),
                parent.display()
            )));
        }
    }
    check_ranks(program)?;
    let io = |e: std::io::Error| CodegenError::Refused(format!("cannot write build files: {e}"));
    let dir = tempfile::tempdir().map_err(io)?;
    let path = |name: &str| dir.path().join(name);
    let mut programs = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        programs.push(path(&format!("program{i}.o")));
        std::fs::write(&programs[i], object).map_err(io)?;
    }
    let wide = library.is_some_and(|(wide, _)| wide);
    let mut glue = glue_c(program, wide);
    glue.push_str(&super::nest::descriptor_checks(machine)?);
    if opts.count_traffic {
        glue.push_str(glue::TRAFFIC_GLUE);
    }
    if let Some((_, api)) = library {
        glue.push_str(&super::super::library::library_glue(program, api));
        std::fs::write(path("exports.map"), EXPORTS).map_err(io)?;
    }
    std::fs::write(path("glue.c"), glue).map_err(io)?;
    for (name, text) in runtime.headers {
        std::fs::write(path(name), text).map_err(io)?;
    }
    let objects = runtime
        .sources
        .iter()
        .map(|&(name, text)| runtime_object(dir.path(), name, text, runtime.headers))
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
        .arg("-lm")
        .arg("-lpthread")
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| CodegenError::Refused(format!("cannot run `cc`: {e}")))?;
    check_cc(&output, "linking with `cc`")
}

/// The highest rank of an entry's parameter or result (`ARR_MAX_RANK` in
/// arr_runtime.h): the binary value format stores ranks in one byte.
pub(crate) const MAX_ENTRY_RANK: usize = crate::runtime::value::MAX_RANK;

fn check_ranks(program: &loopy::ir::Program) -> Result<(), CodegenError> {
    for f in &program.functions {
        let types = f
            .params
            .iter()
            .map(|p| p.var.ty)
            .chain(f.ret.iter().copied());
        if let Some(rank) = types.map(|t| t.rank()).find(|&r| r > MAX_ENTRY_RANK) {
            return Err(CodegenError::Refused(format!(
                "entry point `{}` takes or returns an array of rank {rank}; \
                 entry points allow ranks up to {MAX_ENTRY_RANK}",
                f.name
            )));
        }
    }
    Ok(())
}

pub(crate) fn check_cc(output: &std::process::Output, what: &str) -> Result<(), CodegenError> {
    if output.status.success() {
        Ok(())
    } else {
        Err(CodegenError::Refused(format!(
            "{what} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )))
    }
}

/// How the runtime is compiled: position-independent, so that the same
/// objects serve executables and shared libraries.
const RUNTIME_CFLAGS: [&str; 3] = ["-O2", "-std=gnu11", "-fPIC"];

/// One translation unit of the runtime compiled to an object file.
/// Compiling the runtime takes longer than the rest of a build, so the
/// object is kept in `$XDG_CACHE_HOME/arrc` (or `~/.cache/arrc`) under a
/// hash of its source and the headers, written atomically; without a usable
/// cache it is compiled into `dir` (where the headers are).
pub(crate) fn runtime_object(
    dir: &Path,
    name: &str,
    text: &str,
    headers: &[(&str, &str)],
) -> Result<PathBuf, CodegenError> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (
        name,
        text,
        headers,
        RUNTIME_CFLAGS,
        env!("CARGO_PKG_VERSION"),
    )
        .hash(&mut hasher);
    let stem = name.strip_suffix(".c").unwrap_or(name);
    let cached_name = format!("{stem}-{:016x}.o", hasher.finish());
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|c| c.join("arrc"));
    if let Some(cached) = cache.as_ref().map(|c| c.join(&cached_name)) {
        if cached.is_file() {
            return Ok(cached);
        }
    }
    let io = |e: std::io::Error| CodegenError::Refused(format!("cannot write build files: {e}"));
    std::fs::write(dir.join(name), text).map_err(io)?;
    let object = dir.join(format!("{stem}.o"));
    let output = Command::new("cc")
        .args(RUNTIME_CFLAGS)
        .arg("-c")
        .arg("-I")
        .arg(dir)
        .arg(dir.join(name))
        .arg("-o")
        .arg(&object)
        .output()
        .map_err(|e| CodegenError::Refused(format!("cannot run `cc`: {e}")))?;
    check_cc(&output, "compiling the runtime with `cc`")?;
    if let Some(cache) = cache {
        // Best effort: a read-only home only costs the next build time.
        let temp = cache.join(format!("{cached_name}.{}.tmp", std::process::id()));
        let stored = std::fs::create_dir_all(&cache)
            .and_then(|_| std::fs::copy(&object, &temp))
            .and_then(|_| std::fs::rename(&temp, cache.join(&cached_name)));
        if stored.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::super::nest::descriptor_checks;
    use crate::codegen::backend::Backend;
    use crate::codegen::cpu::CpuBackend;
    use crate::codegen::Cpu;

    /// Compiles `checks` against `arr_parallel.h` as given.
    fn compiles(checks: &str, parallel_h: &str) -> bool {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("arr_runtime.h"), crate::runtime::RUNTIME_H).unwrap();
        std::fs::write(dir.path().join("arr_parallel.h"), parallel_h).unwrap();
        std::fs::write(dir.path().join("checks.c"), checks).unwrap();
        std::process::Command::new("cc")
            .args(["-std=gnu11", "-c", "-I"])
            .arg(dir.path())
            .arg(dir.path().join("checks.c"))
            .arg("-o")
            .arg(dir.path().join("checks.o"))
            .output()
            .unwrap()
            .status
            .success()
    }

    #[test]
    fn the_runtime_allows_the_ranks_the_compiler_does() {
        let define = format!("#define ARR_MAX_RANK {}", super::MAX_ENTRY_RANK);
        assert!(crate::runtime::RUNTIME_H.contains(&define));
    }

    #[test]
    fn the_glue_checks_the_nest_descriptor_against_the_header() {
        let backend = CpuBackend {
            opt_level: 2,
            cpu: Cpu::Native,
        };
        let checks = descriptor_checks(&backend.machine().unwrap()).unwrap();
        let header = crate::runtime::PARALLEL_H;
        assert!(compiles(&checks, header), "{checks}");
        let narrower = header.replace("int64_t grain;", "int32_t grain;");
        assert_ne!(narrower, header);
        assert!(!compiles(&checks, &narrower));
        let renumbered = header.replace("ARR_NEST_HIST = 3", "ARR_NEST_HIST = 5");
        assert_ne!(renumbered, header);
        assert!(!compiles(&checks, &renumbered));
    }
}
