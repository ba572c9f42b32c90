//! The PTX toolchain around the GPU runtime: where NVIDIA's assembler
//! `ptxas` and the math library `libdevice.10.bc` are, and assembling PTX
//! to check it and read each kernel's register and spill counts. Both come
//! from the PyPI package `nvidia-cuda-nvcc-cu12` (tests/deps.sh installs it;
//! no CUDA toolkit is needed), else from `ARRC_PTXAS` / `ARRC_LIBDEVICE`,
//! else from a `ptxas` on the `PATH`. Running a program needs neither: the
//! driver compiles the embedded PTX itself.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The GPU architectures arrc's PTX is checked for.
pub const ARCHS: [&str; 3] = ["sm_70", "sm_80", "sm_90"];

#[derive(Clone, Debug)]
pub struct CudaTools {
    pub ptxas: PathBuf,
    /// `nvvm/libdevice/libdevice.10.bc`, when found.
    pub libdevice: Option<PathBuf>,
}

/// What `ptxas -v` says of one kernel (`.entry`) or device function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionStats {
    pub name: String,
    pub is_kernel: bool,
    pub registers: u32,
    pub stack_frame_bytes: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

/// The directory of the `nvidia-cuda-nvcc-cu12` package that `python3` sees.
fn pip_package_dir() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])",
        ])
        .output()
        .ok()?;
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && dir.is_dir()).then_some(dir)
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}

/// Finds `ptxas` (and libdevice beside it); None when there is none.
pub fn find() -> Option<CudaTools> {
    let libdevice_env = std::env::var_os("ARRC_LIBDEVICE").map(PathBuf::from);
    if let Some(ptxas) = std::env::var_os("ARRC_PTXAS").map(PathBuf::from) {
        return ptxas.is_file().then_some(CudaTools {
            ptxas,
            libdevice: libdevice_env,
        });
    }
    let beside = |root: &Path| {
        libdevice_env.clone().or_else(|| {
            let bc = root.join("nvvm/libdevice/libdevice.10.bc");
            bc.is_file().then_some(bc)
        })
    };
    if let Some(dir) = pip_package_dir() {
        let ptxas = dir.join("bin/ptxas");
        if ptxas.is_file() {
            let libdevice = beside(&dir);
            return Some(CudaTools { ptxas, libdevice });
        }
    }
    let ptxas = on_path("ptxas")?;
    let root = ptxas.parent().and_then(Path::parent).map(Path::to_path_buf);
    let libdevice = root.as_deref().and_then(beside);
    Some(CudaTools { ptxas, libdevice })
}

/// Assembles `ptx` for `arch` (`sm_80`) with `ptxas -v`: the statistics of
/// every function, or ptxas's complaint.
pub fn assemble(tools: &CudaTools, ptx: &str, arch: &str) -> Result<Vec<FunctionStats>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let input = dir.path().join("module.ptx");
    std::fs::write(&input, ptx).map_err(|e| format!("writing PTX: {e}"))?;
    let out = Command::new(&tools.ptxas)
        .arg(format!("-arch={arch}"))
        .args(["-v", "-O3"])
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("module.cubin"))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tools.ptxas.display()))?;
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("ptxas -arch={arch} failed:\n{log}"));
    }
    Ok(parse_verbose(&log))
}

/// The numbers before `word` in `text` ("12 registers" -> 12).
fn number_before(text: &str, word: &str) -> Option<u32> {
    let at = text.find(word)?;
    text[..at].split_whitespace().last()?.parse().ok()
}

/// Reads `ptxas -v`'s report: "Compiling entry function 'k' for 'sm_80'",
/// "Function properties for k", "N bytes stack frame, N bytes spill stores,
/// N bytes spill loads", "Used N registers, ...".
fn parse_verbose(log: &str) -> Vec<FunctionStats> {
    let mut stats: Vec<FunctionStats> = Vec::new();
    let mut entries = Vec::new();
    let quoted = |line: &str| line.split('\'').nth(1).map(str::to_string);
    for line in log.lines() {
        if line.contains("Compiling entry function") {
            entries.extend(quoted(line));
        } else if let Some(name) = line.split("Function properties for ").nth(1) {
            let name = name.trim().to_string();
            stats.push(FunctionStats {
                is_kernel: entries.contains(&name),
                name,
                registers: 0,
                stack_frame_bytes: 0,
                spill_store_bytes: 0,
                spill_load_bytes: 0,
            });
        } else if let Some(last) = stats.last_mut() {
            if line.contains("stack frame") {
                last.stack_frame_bytes = number_before(line, "bytes stack frame").unwrap_or(0);
                last.spill_store_bytes = number_before(line, "bytes spill stores").unwrap_or(0);
                last.spill_load_bytes = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("Used ") {
                last.registers = number_before(line, "registers").unwrap_or(0);
            }
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ptxas_verbose_output() {
        let log = "ptxas info    : 0 bytes gmem\n\
            ptxas info    : Function properties for arr_gpu_fail\n    \
            0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
            ptxas info    : Compiling entry function 'reduce' for 'sm_80'\n\
            ptxas info    : Function properties for reduce\n    \
            16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
            ptxas info    : Used 23 registers, 380 bytes cmem[0]\n";
        let stats = parse_verbose(log);
        assert_eq!(stats.len(), 2);
        assert!(!stats[0].is_kernel);
        assert_eq!(
            stats[1],
            FunctionStats {
                name: "reduce".into(),
                is_kernel: true,
                registers: 23,
                stack_frame_bytes: 16,
                spill_store_bytes: 8,
                spill_load_bytes: 4,
            }
        );
    }
}
