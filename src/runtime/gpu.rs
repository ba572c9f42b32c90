//! The GPU runtimes' C sources (`c/gpu/`), embedded like the CPU runtime so
//! that an installed arrc needs no other files: what a `--target nvptx` or
//! `--target nvptx-emu` binary links besides `HOST_SOURCES` (which still
//! supply `main`, value input and output and the `arr_fail_*` messages),
//! and the device library an nvptx module links. docs/gpu.md ("runtime and
//! emulator") describes both sides of the interface.
//!
//! Each `.c` file is a translation unit of its own; they include their
//! headers, and `arr_runtime.h`, by file name, so all of them are written
//! into one directory.

/// Which implementation serves the host interface `arr_gpu.h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuRuntime {
    /// The CUDA driver, opened with `dlopen` at run time.
    Cuda,
    /// The GPU emulator, running kernels compiled for x86-64.
    Emulator,
}

/// Headers: the host interface, the device ABI, and internals.
pub const HEADERS: &[(&str, &str)] = &[
    ("arr_gpu.h", include_str!("c/gpu/arr_gpu.h")),
    ("arr_gpu_device.h", include_str!("c/gpu/arr_gpu_device.h")),
    (
        "arr_gpu_internal.h",
        include_str!("c/gpu/arr_gpu_internal.h"),
    ),
    ("arr_gpu_pool.h", include_str!("c/gpu/arr_gpu_pool.h")),
    ("arr_gpu_emu.h", include_str!("c/gpu/arr_gpu_emu.h")),
];

/// Linked into both kinds of binary.
const COMMON: &[(&str, &str)] = &[
    ("arr_gpu_common.c", include_str!("c/gpu/arr_gpu_common.c")),
    ("arr_gpu_pool.c", include_str!("c/gpu/arr_gpu_pool.c")),
];

const CUDA: &[(&str, &str)] = &[("arr_gpu_cuda.c", include_str!("c/gpu/arr_gpu_cuda.c"))];

const EMULATOR: &[(&str, &str)] = &[
    ("arr_gpu_emu.c", include_str!("c/gpu/arr_gpu_emu.c")),
    (
        "arr_gpu_emu_device.c",
        include_str!("c/gpu/arr_gpu_emu_device.c"),
    ),
];

/// What a GPU library links besides `sources`: its device for the C API
/// (arrays in device memory, arr_library.c's `arr_lib_device`).
pub const LIBRARY: &[(&str, &str)] =
    &[("arr_gpu_library.c", include_str!("c/gpu/arr_gpu_library.c"))];

/// The nvptx device library (LLVM IR text, triple `nvptx64-nvidia-cuda`):
/// `arr_gpu_fail`, which kernels call where emulated ones call
/// `arr_emu_fail`. Parse it into the device module and link before
/// optimising.
pub const DEVICE_LIBRARY_LL: &str = include_str!("c/gpu/arr_gpu_device.ll");

/// The C files (name, text) a binary of `kind` compiles, each on its own.
pub fn sources(kind: GpuRuntime) -> Vec<(&'static str, &'static str)> {
    let specific = match kind {
        GpuRuntime::Cuda => CUDA,
        GpuRuntime::Emulator => EMULATOR,
    };
    COMMON.iter().chain(specific).copied().collect()
}

/// Libraries to link, after the objects (`-ldl` for glibc before 2.34).
pub fn link_libraries(kind: GpuRuntime) -> &'static [&'static str] {
    match kind {
        GpuRuntime::Cuda => &["-ldl", "-lpthread", "-lm"],
        GpuRuntime::Emulator => &["-lpthread", "-lm"],
    }
}

/// Writes the headers, the host-common runtime's headers and the sources of
/// `kind` into `dir`; returns the paths of the `.c` files to compile.
pub fn write_sources(
    dir: &std::path::Path,
    kind: GpuRuntime,
) -> std::io::Result<Vec<std::path::PathBuf>> {
    for (name, text) in super::HEADERS.iter().chain(HEADERS) {
        std::fs::write(dir.join(name), text)?;
    }
    sources(kind)
        .into_iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).map(|_| path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Every GPU runtime source compiles as strict C11 without a warning.
    #[test]
    fn gpu_runtime_compiles_warning_free() {
        let dir = tempfile::tempdir().unwrap();
        for kind in [GpuRuntime::Cuda, GpuRuntime::Emulator] {
            for source in write_sources(dir.path(), kind).unwrap() {
                let out = Command::new("cc")
                    .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-c", "-I"])
                    .arg(dir.path())
                    .arg(&source)
                    .arg("-o")
                    .arg(dir.path().join("out.o"))
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}: {}",
                    source.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }

    #[test]
    fn each_kind_links_its_own_backend() {
        let names = |k| sources(k).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert!(names(GpuRuntime::Cuda).contains(&"arr_gpu_cuda.c"));
        assert!(!names(GpuRuntime::Cuda).contains(&"arr_gpu_emu.c"));
        assert!(names(GpuRuntime::Emulator).contains(&"arr_gpu_emu_device.c"));
        assert!(DEVICE_LIBRARY_LL.contains("define void @arr_gpu_fail("));
    }
}
