//! Which compiled backends `arrc test` runs cases on (LANGUAGE.md section
//! 8: "every compiled backend available on the machine"), and the probe
//! that tells whether a GPU is usable.

use super::pipeline::{self, Options};
use crate::codegen::Target;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The compiled backends to run cases on: the one `--target` names
/// (`explicit`), else x86-64 and, when `gpu_usable` says a GPU runs
/// programs here, `nvptx` too. `gpu_usable` is asked at most once.
pub(crate) fn backends(explicit: Option<Target>, gpu_usable: impl FnOnce() -> bool) -> Vec<Target> {
    match explicit {
        Some(target) => vec![target],
        None if gpu_usable() => vec![Target::X86_64, Target::NvPtx],
        None => vec![Target::X86_64],
    }
}

/// The name a failure line gives a backend when several run.
pub(crate) fn name(target: Target) -> &'static str {
    match target {
        Target::X86_64 => "x86_64",
        Target::NvPtx => "nvptx",
        Target::NvPtxEmu => "nvptx-emu",
    }
}

/// Whether a GPU runs `--target nvptx` programs here: a trivial program
/// built for it prints its result. Without an NVIDIA device node or a
/// driver named by `ARRC_CUDA_LIBRARY` (the usual machine) nothing is
/// built or run, so the answer costs nothing there.
pub(crate) fn gpu_usable(options: &Options) -> bool {
    driver_may_be_present(
        Path::new("/dev"),
        std::env::var_os("ARRC_CUDA_LIBRARY").as_deref(),
    ) && run_probe(options).is_some_and(|out| {
        out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "1i32"
    })
}

/// Whether a CUDA driver may be there: a device node of NVIDIA's driver
/// (`nvidiactl`, `nvidia0`) or WSL's (`dxg`) under `dev`, or a driver named
/// by `ARRC_CUDA_LIBRARY` (`cuda_library`, the programs' own override).
fn driver_may_be_present(dev: &Path, cuda_library: Option<&std::ffi::OsStr>) -> bool {
    cuda_library.is_some_and(|l| !l.is_empty())
        || ["nvidiactl", "nvidia0", "dxg"]
            .iter()
            .any(|node| dev.join(node).exists())
}

/// With `--target nvptx`, the line a GPU program prints when it finds no
/// usable GPU or CUDA driver (LANGUAGE.md section 9: exit 3), from a
/// trivial program built for the target: `arrc test` and `arrc bench`
/// then stop with that one line rather than fail every case with it.
pub(crate) fn missing_gpu(options: &Options) -> Option<String> {
    if options.codegen.target != Target::NvPtx {
        return None;
    }
    let output = run_probe(options)?;
    (output.status.code() == Some(3)).then(|| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        stderr
            .lines()
            .next()
            .unwrap_or("Error: no usable GPU")
            .to_string()
    })
}

/// Builds `entry main (x: i32) : i32 = x` for `--target nvptx` and runs it
/// on `1`; None when it cannot be built or started (a build that fails
/// here fails again, with its message, per program).
fn run_probe(options: &Options) -> Option<Output> {
    let dir = tempfile::tempdir().ok()?;
    let source = dir.path().join("gpu_probe.arr");
    std::fs::write(&source, "entry main (x: i32) : i32 = x\n").ok()?;
    let exe = dir.path().join("gpu_probe");
    let mut options = options.clone();
    options.codegen.target = Target::NvPtx;
    pipeline::build_executable(&source, &options, &exe).ok()?;
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let _ = child.stdin.take()?.write_all(b"1");
    child.wait_with_output().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_target_is_the_only_backend_and_no_gpu_is_probed() {
        for target in [Target::X86_64, Target::NvPtx, Target::NvPtxEmu] {
            let chosen = backends(Some(target), || panic!("probed with --target"));
            assert_eq!(chosen, vec![target]);
        }
    }

    #[test]
    fn without_a_target_x86_64_runs_and_nvptx_where_a_gpu_is_usable() {
        assert_eq!(backends(None, || false), vec![Target::X86_64]);
        assert_eq!(backends(None, || true), vec![Target::X86_64, Target::NvPtx]);
        let mut asked = 0;
        backends(None, || {
            asked += 1;
            true
        });
        assert_eq!(asked, 1);
    }

    #[test]
    fn a_driver_may_be_present_with_a_device_node_or_a_named_library() {
        let dev = tempfile::tempdir().unwrap();
        assert!(!driver_may_be_present(dev.path(), None));
        assert!(!driver_may_be_present(dev.path(), Some("".as_ref())));
        assert!(driver_may_be_present(
            dev.path(),
            Some("/x/libcuda.so.1".as_ref())
        ));
        for node in ["nvidiactl", "nvidia0", "dxg"] {
            let dev = tempfile::tempdir().unwrap();
            std::fs::write(dev.path().join(node), "").unwrap();
            assert!(driver_may_be_present(dev.path(), None), "{node}");
        }
    }

    #[test]
    fn backends_are_named_as_the_target_option_names_them() {
        assert_eq!(name(Target::X86_64), "x86_64");
        assert_eq!(name(Target::NvPtx), "nvptx");
        assert_eq!(name(Target::NvPtxEmu), "nvptx-emu");
    }
}
