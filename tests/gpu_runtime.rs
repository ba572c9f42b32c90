//! The GPU runtimes without a GPU. Hand-written kernels (tests/gpu/kernels.c,
//! written against the emulator's device ABI) run on the emulator through
//! the same host interface generated code will use, and their results are
//! compared with the same computations done here; the emulator must report
//! the kernels' run-time errors in sequential order with the CPU runtime's
//! messages, and the deliberate mistakes (a race in shared memory, a barrier
//! part of a block skips, warp operations a lane misses). The CUDA host
//! runtime is linked with the same entries and driven by a stand-in driver
//! (tests/gpu/fake_cuda.c) and by no driver at all (exit 3). The memory
//! pool has unit tests of its own (tests/gpu/pool_test.c).

mod support;

use arrc::runtime::gpu::{self, GpuRuntime};
use arrc::runtime::HOST_SOURCES;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn test_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gpu")
        .join(name)
}

fn cc(args: &[&std::ffi::OsStr]) {
    let out = Command::new("cc").args(args).output().expect("run cc");
    assert!(
        out.status.success(),
        "cc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The kernels and entries of tests/gpu/kernels.c linked with the runtime of
/// `kind` (embedded sources, as arrc would write them), strict C11.
fn build(kind: GpuRuntime) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let mut sources = gpu::write_sources(dir.path(), kind).unwrap();
    for (name, text) in HOST_SOURCES {
        std::fs::write(dir.path().join(name), text).unwrap();
        sources.push(dir.path().join(name));
    }
    sources.push(test_file("kernels.c"));
    let exe = dir.path().join("kernels");
    let mut args: Vec<std::ffi::OsString> =
        ["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror"]
            .iter()
            .map(Into::into)
            .collect();
    if kind == GpuRuntime::Cuda {
        args.push("-DKERNELS_NVPTX".into());
    }
    args.push("-I".into());
    args.push(dir.path().into());
    args.extend(sources.iter().map(Into::into));
    args.push("-o".into());
    args.push(exe.clone().into());
    args.extend(gpu::link_libraries(kind).iter().map(Into::into));
    cc(&args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
    (dir, exe)
}

fn emulator() -> &'static Path {
    static EXE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &EXE.get_or_init(|| build(GpuRuntime::Emulator)).1
}

fn cuda() -> &'static Path {
    static EXE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &EXE.get_or_init(|| build(GpuRuntime::Cuda)).1
}

/// The stand-in `libcuda.so.1`; `old` lacks cuOccupancyMaxPotentialBlockSize.
fn fake_driver(old: bool) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for (sub, define) in [("new", "-DFAKE_CUDA_NEW"), ("old", "-DFAKE_CUDA_OLD")] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
            let lib = dir.path().join(sub).join("libcuda.so.1");
            let src = test_file("fake_cuda.c");
            cc(&[
                "-std=c11".as_ref(),
                "-Wall".as_ref(),
                "-Wextra".as_ref(),
                "-Werror".as_ref(),
                "-shared".as_ref(),
                "-fPIC".as_ref(),
                define.as_ref(),
                src.as_os_str(),
                "-o".as_ref(),
                lib.as_os_str(),
            ]);
        }
        dir
    });
    dir.path()
        .join(if old { "old" } else { "new" })
        .join("libcuda.so.1")
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

fn run_with(cmd: &mut Command, input: &str) -> Run {
    let out = support::feed_input(cmd, input.as_bytes(), true);
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `entry` of the emulator binary with binary output.
fn emu(entry: &str, input: &str, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(emulator());
    cmd.args(["-e", entry, "-b"]).envs(env.iter().copied());
    run_with(&mut cmd, input)
}

/// Environment variables of a run.
type Env<'a> = &'a [(&'a str, &'a str)];

/// The settings every emulator case runs under: the default launch sizes,
/// tiny blocks and grids (multi-block, look-back and atomic paths), one and
/// two CPU threads.
const SETTINGS: [&[(&str, &str)]; 4] = [
    &[],
    &[("ARRC_GPU_SHRINK", "1")],
    &[("ARRC_GPU_SHRINK", "1"), ("ARRC_THREADS", "1")],
    &[("ARRC_THREADS", "2")],
];

/// The values of a binary-format output, each as (shape, element bytes).
fn values(out: &[u8]) -> Vec<(Vec<usize>, Vec<u8>)> {
    let mut vals = Vec::new();
    let mut at = 0;
    while at < out.len() {
        if out[at] == b'\n' || out[at] == b' ' {
            at += 1;
            continue;
        }
        assert_eq!(&out[at..at + 2], b"b\x02", "binary value expected");
        let rank = out[at + 2] as usize;
        let size = match &out[at + 3..at + 7] {
            b"  i8" | b"  u8" | b"bool" => 1,
            b" i16" | b" u16" => 2,
            b" i32" | b" u32" | b" f32" => 4,
            _ => 8,
        };
        at += 7;
        let shape: Vec<usize> = (0..rank)
            .map(|d| {
                let b = &out[at + 8 * d..at + 8 * d + 8];
                u64::from_le_bytes(b.try_into().unwrap()) as usize
            })
            .collect();
        at += 8 * rank;
        let bytes = shape.iter().product::<usize>() * size;
        vals.push((shape, out[at..at + bytes].to_vec()));
        at += bytes;
    }
    vals
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn list<T: std::fmt::Display>(xs: &[T]) -> String {
    let items: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// Deterministic pseudo-random numbers in [0, m).
fn randoms(n: usize, m: u64, seed: u64) -> Vec<u64> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) % m
        })
        .collect()
}

fn ok(r: &Run, what: &str) {
    assert_eq!(r.code, 0, "{what}: {}", r.stderr);
}

#[test]
fn map_matches_the_host() {
    for n in [0usize, 1, 37, 1000, 5000] {
        let xs: Vec<f32> = randoms(n, 2001, 1)
            .iter()
            .map(|&r| r as f32 / 8.0 - 100.0)
            .collect();
        let want: Vec<f32> = xs.iter().map(|x| x * 2.0 + 1.0).collect();
        for env in SETTINGS {
            let r = emu("map", &list(&xs), env);
            ok(&r, "map");
            assert_eq!(f32s(&values(&r.stdout)[0].1), want, "n = {n}, {env:?}");
        }
    }
}

#[test]
fn reductions_by_shared_memory_tree_and_warp_shuffles() {
    for n in [1usize, 31, 64, 1000, 10000] {
        let xs: Vec<i64> = randoms(n, 1 << 31, 2)
            .iter()
            .map(|&r| r as i64 - (1 << 30))
            .collect();
        let sum = xs.iter().fold(0i32, |a, &x| a.wrapping_add(x as i32));
        let fs: Vec<f32> = xs.iter().map(|&x| (x % 1000) as f32 / 4.0).collect();
        let max = fs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let positive = fs.iter().filter(|&&x| x > 0.0).count() as i32;
        for env in SETTINGS {
            let r = emu(
                "sum",
                &list(&xs.iter().map(|&x| x as i32).collect::<Vec<_>>()),
                env,
            );
            ok(&r, "sum");
            assert_eq!(i32s(&values(&r.stdout)[0].1), [sum], "sum n = {n}, {env:?}");
            let r = emu("maxpos", &list(&fs), env);
            ok(&r, "maxpos");
            let v = values(&r.stdout);
            assert_eq!(f32s(&v[0].1), [max], "max n = {n}, {env:?}");
            assert_eq!(i32s(&v[1].1), [positive], "positives n = {n}, {env:?}");
        }
    }
}

#[test]
fn decoupled_look_back_scan_across_blocks() {
    for n in [0usize, 1, 255, 256, 257, 3000, 20000] {
        let xs: Vec<i64> = randoms(n, 1000, 3)
            .iter()
            .map(|&r| r as i64 - 400)
            .collect();
        let want: Vec<i64> = xs
            .iter()
            .scan(0i64, |s, &x| {
                *s += x;
                Some(*s)
            })
            .collect();
        for env in SETTINGS
            .iter()
            .chain([&[("ARRC_GPU_SHRINK", "1"), ("ARRC_THREADS", "3")][..]].iter())
        {
            let r = emu("scan", &list(&xs), env);
            ok(&r, "scan");
            assert_eq!(i64s(&values(&r.stdout)[0].1), want, "n = {n}, {env:?}");
        }
    }
}

#[test]
fn histograms_with_shared_and_global_atomics() {
    for (n, bins) in [(0usize, 3i64), (100, 1), (5000, 10), (3000, 20000)] {
        let xs: Vec<i32> = randoms(n, bins as u64 + 4, 4)
            .iter()
            .map(|&r| r as i32 - 2)
            .collect();
        let ws: Vec<f32> = randoms(n, 8, 5).iter().map(|&r| r as f32).collect();
        let mut counts = vec![0i32; bins as usize];
        let mut sums = vec![0f32; bins as usize];
        let mut firsts = vec![-1i32; bins as usize];
        for (i, &x) in xs.iter().enumerate() {
            if x >= 0 && (x as i64) < bins {
                counts[x as usize] += 1;
                sums[x as usize] += ws[i];
                if firsts[x as usize] < 0 {
                    firsts[x as usize] = i as i32;
                }
            }
        }
        for env in SETTINGS {
            let r = emu("hist", &format!("{} {bins}", list(&xs)), env);
            ok(&r, "hist");
            assert_eq!(
                i32s(&values(&r.stdout)[0].1),
                counts,
                "n = {n}, bins = {bins}"
            );
            let r = emu("histf", &format!("{} {} {bins}", list(&xs), list(&ws)), env);
            ok(&r, "histf");
            let v = values(&r.stdout);
            assert_eq!(f32s(&v[0].1), sums, "n = {n}, bins = {bins}");
            assert_eq!(i32s(&v[1].1), firsts, "n = {n}, bins = {bins}");
        }
    }
}

#[test]
fn kernel_errors_come_in_sequential_order_with_the_cpu_messages() {
    // Bad indices at 300, 1700 and 2500: whichever block meets one first,
    // the one a sequential run meets (300) is reported.
    let xs: Vec<i32> = (0..10).collect();
    let mut is: Vec<i64> = (0..3000).map(|i| i % 10).collect();
    is[2500] = -1;
    is[1700] = 99;
    is[300] = 12;
    for env in SETTINGS {
        let r = emu("gather", &format!("{} {}", list(&xs), list(&is)), env);
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert_eq!(
            r.stderr,
            "Error: index 12 out of bounds for array of length 10 at kernels.arr:3:14\n"
        );
        assert!(r.stdout.is_empty());
    }
    // Two kernels: the first kernel's error comes first even where the
    // second fails at an earlier iteration.
    let ds: Vec<i32> = (0..3000).map(|i| if i == 5 { 0 } else { 1 }).collect();
    let r = emu(
        "twostep",
        &format!("{} {} {}", list(&xs), list(&is), list(&ds)),
        &[],
    );
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "Error: index 12 out of bounds for array of length 10 at kernels.arr:3:14\n"
        )
    );
    is[300] = 3;
    is[1700] = 3;
    is[2500] = 3;
    let r = emu(
        "twostep",
        &format!("{} {} {}", list(&xs), list(&is), list(&ds)),
        &[("ARRC_GPU_SHRINK", "1")],
    );
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (1, "Error: division by zero at kernels.arr:7:20\n")
    );
}

/// Shuffles (with clamps and segments), votes and reducing barriers give
/// what CUDA defines, for each of 64 threads in two warps.
#[test]
fn warp_and_block_operations_follow_ptx() {
    let mut want = Vec::new();
    for t in 0..64i32 {
        let (lane, base) = (t % 32, t - t % 32);
        let warp: Vec<i32> = (base..base + 32).collect();
        let ballot_mask: u32 = 0xffff << (t & 16);
        let ballot = warp
            .iter()
            .filter(|&&u| ballot_mask >> (u % 32) & 1 == 1 && u % 4 == 1)
            .fold(0u32, |b, &u| b | 1 << (u % 32));
        want.extend([
            if lane < 3 { t * 10 } else { (t - 3) * 10 },
            base + (lane ^ 5),
            base + 7,
            t - t % 8 + 2,
            if lane % 16 + 4 <= 15 { t + 4 } else { t },
            0,
            1,
            // uni(t < 32) holds in each warp; uni(t odd) in neither.
            1,
            (0..64).filter(|u| u % 3 == 0).count() as i32,
            2,
            ballot as i32,
        ]);
    }
    for env in SETTINGS {
        let r = emu("warpops", "0", env);
        ok(&r, "warpops");
        assert_eq!(i32s(&values(&r.stdout)[0].1), want, "{env:?}");
    }
}

#[test]
fn emulator_reports_races_divergent_barriers_and_broken_warp_operations() {
    let cases = [
        "kernel racy, block (0,0,0): shared-memory race: thread 1 writes byte 0, which thread 0 wrote since the last barrier",
        "kernel divergent_barrier, block (0,0,0): barrier reached by only part of the block: thread 0 waits at it, thread 16 has finished without reaching it",
        "kernel shuffle_outside_mask, block (0,0,0): thread 8 shuffles from lane 16, which is outside the mask 0x0000ffff",
        "kernel warp_op_exited, block (0,0,0): thread 0 waits at a warp operation for thread 5, which has finished",
    ];
    for (k, want) in cases.iter().enumerate() {
        let r = emu("mistake", &k.to_string(), &[]);
        assert_eq!(r.code, 70, "{}", r.stderr);
        assert_eq!(
            r.stderr,
            format!("internal compiler error: GPU emulator: {want}\n")
        );
    }
    // Warp-synchronous code in shared memory: correct with __syncwarp
    // between the steps, a race without.
    let xs: Vec<i32> = (0..100).collect();
    let want: Vec<i32> = xs.chunks(32).map(|c| c.iter().sum()).collect();
    let r = emu("warpsums", &format!("{} true", list(&xs)), &[]);
    ok(&r, "warpsums");
    assert_eq!(i32s(&values(&r.stdout)[0].1), want);
    let r = emu("warpsums", &format!("{} false", list(&xs)), &[]);
    assert_eq!(r.code, 70);
    assert!(
        r.stderr
            .contains("shared-memory race: thread 1 writes byte 4, which thread 0 read"),
        "{}",
        r.stderr
    );
}

#[test]
fn device_memory_pool_serves_a_loop_without_the_driver() {
    let allocs = |iters: u32| {
        let r = emu("pool", &format!("1000 {iters}"), &[]);
        ok(&r, "pool");
        let v = values(&r.stdout);
        (f32s(&v[0].1)[0], i64s(&v[1].1)[0])
    };
    // x -> 2x + 1 from 1: 2^(k+1) - 1; two blocks whatever the iterations.
    assert_eq!(allocs(1), (3.0, 2));
    assert_eq!(allocs(20), (2097151.0, 2));
}

#[test]
fn pool_bucketing_unit_tests() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("pool_test");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime/c/gpu");
    let pool = include.join("arr_gpu_pool.c");
    let test = test_file("pool_test.c");
    cc(&[
        "-std=c11".as_ref(),
        "-Wall".as_ref(),
        "-Wextra".as_ref(),
        "-Werror".as_ref(),
        "-I".as_ref(),
        include.as_os_str(),
        test.as_os_str(),
        pool.as_os_str(),
        "-o".as_ref(),
        exe.as_os_str(),
    ]);
    let out = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(", 0 failed"), "{stdout}");
}

fn valgrind_available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The emulator and the CUDA runtime (on the stand-in driver) neither touch
/// memory they do not own nor leak, fibers and worker threads included.
#[test]
fn runtimes_are_valgrind_clean() {
    if !valgrind_available() {
        eprintln!("valgrind is not installed (tests/deps.sh installs it): skipped");
        return;
    }
    let scan: Vec<i64> = (0..700).collect();
    let cases: [(&Path, &str, String, Env); 5] = [
        (emulator(), "scan", list(&scan), &[("ARRC_GPU_SHRINK", "1")]),
        (emulator(), "maxpos", "[1.0, -2.0, 3.5]".into(), &[]),
        (
            emulator(),
            "hist",
            "[0, 1, 1, 7, 2] 3".into(),
            &[("ARRC_THREADS", "2")],
        ),
        (emulator(), "pool", "100 5".into(), &[]),
        (cuda(), "pool", "100 5".into(), &[]),
    ];
    for (exe, entry, input, env) in cases {
        let mut cmd = Command::new("valgrind");
        cmd.args([
            "-q",
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,possible",
        ])
        .arg(exe)
        .args(["-e", entry])
        .env("ARRC_CUDA_LIBRARY", fake_driver(false))
        .envs(env.iter().copied());
        let r = run_with(&mut cmd, &input);
        assert_eq!(r.code, 0, "{entry}: {}", r.stderr);
    }
}

/// Runs `entry` of the CUDA binary on the stand-in driver in `mode`.
fn on_fake(old: bool, mode: &str, entry: &str, input: &str) -> Run {
    let mut cmd = Command::new(cuda());
    cmd.args(["-e", entry])
        .env("ARRC_CUDA_LIBRARY", fake_driver(old))
        .env("FAKE_CUDA", mode);
    run_with(&mut cmd, input)
}

fn one_line_exit_3(r: &Run, start: &str) {
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.starts_with(start), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

#[test]
fn cuda_runtime_without_a_driver_exits_3() {
    let mut cmd = Command::new(cuda());
    cmd.args(["-e", "map"])
        .env("ARRC_CUDA_LIBRARY", "/nonexistent/libcuda.so.1");
    let r = run_with(&mut cmd, "[1.0]");
    one_line_exit_3(
        &r,
        "Error: no CUDA driver: cannot load /nonexistent/libcuda.so.1 (",
    );
    // The default library, where this machine has none (CI has no GPU).
    let ldconfig = Command::new("ldconfig").arg("-p").output();
    if ldconfig.is_ok_and(|o| !String::from_utf8_lossy(&o.stdout).contains("libcuda.so.1")) {
        let mut cmd = Command::new(cuda());
        cmd.args(["-e", "map"]).env_remove("ARRC_CUDA_LIBRARY");
        let r = run_with(&mut cmd, "[1.0]");
        one_line_exit_3(&r, "Error: no CUDA driver: cannot load libcuda.so.1 (");
    }
}

#[test]
fn cuda_runtime_names_what_is_missing() {
    let r = on_fake(false, "nodevice", "map", "[1.0]");
    one_line_exit_3(
        &r,
        "Error: no CUDA GPU found (cuInit: CUDA_ERROR_NO_DEVICE 100",
    );
    let r = on_fake(false, "olddriver", "map", "[1.0]");
    one_line_exit_3(
        &r,
        "Error: the CUDA driver is too old: it supports CUDA 11.2, this program's PTX (ISA 7.8) needs CUDA 11.8 or newer",
    );
    let r = on_fake(false, "oldgpu", "map", "[1.0]");
    one_line_exit_3(
        &r,
        "Error: the GPU is too old: Fake GPU has compute capability 6.0, this program needs sm_70 or newer",
    );
    let r = on_fake(true, "", "map", "[1.0]");
    one_line_exit_3(&r, "Error: the CUDA driver is too old: ");
    assert!(r.stderr.contains("has no cuOccupancyMaxPotentialBlockSize"));
    // PTX the driver rejects is arrc's fault: the JIT log's first line.
    let r = on_fake(false, "badptx", "map", "[1.0]");
    assert_eq!(r.code, 70);
    assert_eq!(
        r.stderr,
        "internal compiler error: CUDA: the driver rejected the PTX: CUDA_ERROR_INVALID_PTX 218 (fake error): ptxas fatal   : bad PTX, line 3\n"
    );
}

#[test]
fn cuda_runtime_moves_data_launches_and_reports_errors() {
    let r = on_fake(false, "", "map", "[1.0, 2.5, -4.0]");
    ok(&r, "map");
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        "[3.0f32, 6.0f32, -7.0f32]\n"
    );
    let r = on_fake(false, "", "gather", "[1, 2, 3] [0, 2, 7, 1, -1]");
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "Error: index 7 out of bounds for array of length 3 at kernels.arr:3:14\n"
        )
    );
    let r = on_fake(false, "", "pool", "50 30");
    ok(&r, "pool");
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        "2147483600.0f32\n2i64\n"
    );
}
