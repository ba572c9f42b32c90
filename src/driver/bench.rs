//! `arrc bench`: times the compiled executables on the cases of their test
//! blocks. Each case runs once as a warm-up and then `runs` times inside one
//! process (`-r`), which reports each run's time without input and output.

use super::pipeline::{self, Options};
use super::test_runner::{check_values, collect_programs, input_bytes, Outcome};
use super::testblock::{self, Expect};
use crate::runtime::value;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Serialize)]
pub struct Measurement {
    pub program: String,
    pub entry: String,
    /// Source line of the case in the test block.
    pub line: usize,
    /// `--threads` given to the binary (`None`: its default, all cores).
    pub threads: Option<u32>,
    pub runs_us: Vec<u64>,
    pub median_us: u64,
    pub min_us: u64,
    pub max_us: u64,
}

pub fn run_benchmarks(
    paths: &[PathBuf],
    options: &Options,
    runs: usize,
    threads: &[u32],
    json: Option<&Path>,
) -> i32 {
    let mut files = Vec::new();
    for path in paths {
        if let Err(err) = collect_programs(path, &mut files) {
            eprintln!("Error: cannot read `{}`: {err}", path.display());
            return 1;
        }
    }
    let mut measurements = Vec::new();
    let mut failures = 0;
    for file in &files {
        if let Err(why) = bench_file(file, options, runs, threads, &mut measurements) {
            println!("FAIL {}: {why}", file.display());
            failures += 1;
        }
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&measurements).expect("measurements serialise");
        if let Err(err) = std::fs::write(path, text + "\n") {
            eprintln!("Error: cannot write `{}`: {err}", path.display());
            return 2;
        }
    }
    if failures == 0 {
        0
    } else {
        1
    }
}

fn bench_file(
    file: &Path,
    options: &Options,
    runs: usize,
    threads: &[u32],
    out: &mut Vec<Measurement>,
) -> Result<(), String> {
    let counts: Vec<Option<u32>> = if threads.is_empty() {
        vec![None]
    } else {
        threads.iter().map(|t| Some(*t)).collect()
    };
    let source = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let blocks = testblock::parse_blocks(&source).map_err(|e| e.to_string())?;
    if blocks.is_empty() {
        return Ok(());
    }
    let program = pipeline::frontend(file).map_err(|f| f.render())?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let exe = dir.path().join("prog");
    pipeline::build_executable(file, options, &exe).map_err(|f| f.render())?;
    let base = file.parent().unwrap_or(Path::new("."));
    for block in &blocks {
        for entry in &block.entries {
            let function = program
                .entries
                .iter()
                .find(|f| f.name == *entry)
                .ok_or_else(|| format!("no entry point `{entry}`"))?;
            for case in &block.cases {
                if matches!(case.expect, Expect::Error(_)) {
                    continue;
                }
                let input = input_bytes(&case.input, base)?;
                for &count in &counts {
                    let times = dir.path().join("times");
                    let output = run_timed(&exe, entry, &input, runs, count, &times)?;
                    if let Expect::Output(expected) = &case.expect {
                        let expected =
                            value::read_values(&input_bytes(expected, base)?, &function.ret)
                                .map_err(|e| format!("expected output: {e}"))?;
                        let actual = value::read_values(&output, &function.ret)
                            .map_err(|e| format!("unreadable output: {e}"))?;
                        check_values("compiled", &Outcome::Values(actual), &expected)
                            .map_err(|e| format!("line {}: {e}", case.line))?;
                    }
                    let text = std::fs::read_to_string(&times).map_err(|e| e.to_string())?;
                    let mut runs_us: Vec<u64> =
                        text.lines().filter_map(|l| l.trim().parse().ok()).collect();
                    if runs_us.is_empty() {
                        return Err(format!("line {}: no timings recorded", case.line));
                    }
                    let mut sorted = runs_us.clone();
                    sorted.sort_unstable();
                    let m = Measurement {
                        program: file.display().to_string(),
                        entry: entry.clone(),
                        line: case.line,
                        threads: count,
                        median_us: sorted[sorted.len() / 2],
                        min_us: sorted[0],
                        max_us: sorted[sorted.len() - 1],
                        runs_us: std::mem::take(&mut runs_us),
                    };
                    let on = count.map(|n| format!(", {n} threads")).unwrap_or_default();
                    println!(
                        "{}:{} ({}{on}): {} us median (min {}, max {}, {} runs)",
                        m.program,
                        m.line,
                        m.entry,
                        m.median_us,
                        m.min_us,
                        m.max_us,
                        m.runs_us.len()
                    );
                    out.push(m);
                }
            }
        }
    }
    Ok(())
}

/// Runs the executable `runs` times after a warm-up in one process; returns its output.
fn run_timed(
    exe: &Path,
    entry: &str,
    input: &[u8],
    runs: usize,
    threads: Option<u32>,
    times: &Path,
) -> Result<Vec<u8>, String> {
    let mut command = Command::new(exe);
    if let Some(n) = threads {
        command.args(["--threads", &n.to_string()]);
    }
    let mut child = command
        .arg("-e")
        .arg(entry)
        .arg("-r")
        .arg(runs.to_string())
        .arg("-t")
        .arg(times)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if !output.status.success() {
        return Err(format!(
            "exit status {:?}: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}
