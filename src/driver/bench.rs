//! `arrc bench`: times the compiled executables on the cases of their test
//! blocks. Each case runs once as a warm-up and then `runs` times inside one
//! process (`-r`), which reports each run's time without input and output.

use super::pipeline::{self, Options};
use super::test_runner::{check_values, collect_programs, executable_input, input_bytes, Outcome};
use super::testblock::{self, Expect, Input, RandomSpec, TestCase};
use crate::runtime::value;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The timings of one case on one entry point and thread count.
pub struct Measurement {
    /// `FILE:ENTRY`, the key of Futhark's benchmark reports.
    pub program: String,
    /// The dataset's name in the report: its `"name"`, its file, or
    /// `#N (...)` after its position and a summary of its values.
    pub dataset: String,
    /// `--threads` given to the binary (`None`: its default, all cores).
    pub threads: Option<u32>,
    pub runs_us: Vec<u64>,
}

impl Measurement {
    /// Median, minimum and maximum of the runs (there is at least one).
    fn stats(&self) -> (u64, u64, u64) {
        let mut sorted = self.runs_us.clone();
        sorted.sort_unstable();
        (
            sorted[sorted.len() / 2],
            sorted[0],
            sorted[sorted.len() - 1],
        )
    }
}

#[derive(Serialize)]
struct DatasetReport {
    runtimes: Vec<u64>,
    stderr: String,
    median_us: u64,
    min_us: u64,
    max_us: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<u32>,
}

#[derive(Serialize)]
struct ProgramReport {
    datasets: BTreeMap<String, DatasetReport>,
}

/// Futhark's `--json` layout: `{"FILE:ENTRY": {"datasets": {NAME:
/// {"runtimes": [us...], ...}}}}`, so its tools read arrc's reports.
fn report(measurements: Vec<Measurement>) -> BTreeMap<String, ProgramReport> {
    let mut programs: BTreeMap<String, ProgramReport> = BTreeMap::new();
    for m in measurements {
        let (median_us, min_us, max_us) = m.stats();
        let name = match m.threads {
            Some(n) => format!("{} (--threads {n})", m.dataset),
            None => m.dataset,
        };
        let dataset = DatasetReport {
            median_us,
            min_us,
            max_us,
            runtimes: m.runs_us,
            stderr: String::new(),
            threads: m.threads,
        };
        programs
            .entry(m.program)
            .or_insert_with(|| ProgramReport {
                datasets: BTreeMap::new(),
            })
            .datasets
            .insert(name, dataset);
    }
    programs
}

pub fn run_benchmarks(
    paths: &[PathBuf],
    options: &Options,
    runs: usize,
    threads: &[u32],
    exclude: &[String],
    json: Option<&Path>,
) -> i32 {
    let mut files = Vec::new();
    for path in paths {
        if let Err(err) = collect_programs(path, &mut files) {
            eprintln!("Error: cannot read `{}`: {err}", path.display());
            return 1;
        }
    }
    if let Some(missing) = super::backends::missing_gpu(options) {
        eprintln!("{missing}");
        return 3;
    }
    let mut measurements = Vec::new();
    let mut failures = 0;
    for file in &files {
        failures += bench_file(file, options, runs, threads, exclude, &mut measurements);
    }
    if let Some(path) = json {
        let text =
            serde_json::to_string_pretty(&report(measurements)).expect("measurements serialise");
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

/// Times every case of `file`; a failing case is reported and the others
/// still run. Returns the number of failures.
fn bench_file(
    file: &Path,
    options: &Options,
    runs: usize,
    threads: &[u32],
    exclude: &[String],
    out: &mut Vec<Measurement>,
) -> usize {
    let excluded = |tags: &[String]| {
        tags.iter()
            .any(|t| t == "disable" || t == "nobench" || exclude.contains(t))
    };
    let fail = |what: String, why: String| {
        println!("FAIL {what}: {why}");
        1
    };
    let name = file.display().to_string();
    let prepared = (|| {
        let source = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
        let blocks = testblock::parse_blocks(&source).map_err(|e| e.to_string())?;
        let runnable = blocks.iter().flat_map(|b| &b.cases).next().is_some();
        if !runnable || blocks.iter().any(|b| excluded(&b.tags)) {
            return Ok(None);
        }
        let program = pipeline::lowered(file).map_err(|f| f.render())?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let exe = dir.path().join("prog");
        pipeline::build_executable(file, options, &exe).map_err(|f| f.render())?;
        Ok(Some((blocks, program, dir, exe)))
    })();
    let (blocks, program, dir, exe) = match prepared {
        Ok(Some(p)) => p,
        Ok(None) => return 0,
        Err(why) => return fail(name, why),
    };
    let counts: Vec<Option<u32>> = if threads.is_empty() {
        vec![None]
    } else {
        threads.iter().map(|t| Some(*t)).collect()
    };
    let base = file.parent().unwrap_or(Path::new("."));
    let mut failures = 0;
    let cases = blocks.iter().flat_map(|b| &b.cases);
    for (position, case) in cases.enumerate() {
        if case.nobench || excluded(&case.tags) || matches!(case.expect, Expect::Error(_)) {
            continue;
        }
        for entry in &case.entries {
            for &count in &counts {
                let times = dir.path().join("times");
                let run = time_case(&program, &exe, entry, case, base, runs, count, &times);
                let runs_us = match run {
                    Ok(runs_us) => runs_us,
                    Err(why) => {
                        failures += fail(format!("{name}:{} ({entry})", case.line), why);
                        continue;
                    }
                };
                let m = Measurement {
                    program: format!("{name}:{entry}"),
                    dataset: dataset_name(case, position),
                    threads: count,
                    runs_us,
                };
                let (median, min, max) = m.stats();
                let on = count.map(|n| format!(", {n} threads")).unwrap_or_default();
                println!(
                    "{name}:{} ({entry}{on}): {median} us median (min {min}, max {max}, {} runs)",
                    case.line,
                    m.runs_us.len()
                );
                out.push(m);
            }
        }
    }
    failures
}

fn dataset_name(case: &TestCase, position: usize) -> String {
    if let Some(name) = &case.name {
        return name.clone();
    }
    let summary = match &case.input {
        Input::File(path) | Input::ScriptFile(path) => return path.clone(),
        Input::Script(expr) => expr.split_whitespace().collect::<Vec<_>>().join(" "),
        Input::Text(text) => text.split_whitespace().collect::<Vec<_>>().join(" "),
        Input::Random(specs) => specs
            .iter()
            .map(|s| match s {
                RandomSpec::Random { shape, elem } => {
                    let dims: String = shape.iter().map(|n| format!("[{n}]")).collect();
                    format!("{dims}{}", elem.name())
                }
                RandomSpec::Constant(text) => text.clone(),
            })
            .collect::<Vec<_>>()
            .join(" "),
    };
    let short: String = summary.chars().take(40).collect();
    let more = if short.len() < summary.len() {
        "..."
    } else {
        ""
    };
    format!("#{position} (\"{short}{more}\")")
}

/// Runs one case, checks its output if the case states one, and returns
/// the run times in microseconds.
#[allow(clippy::too_many_arguments)]
fn time_case(
    program: &crate::core::ir::Program,
    exe: &Path,
    entry: &str,
    case: &TestCase,
    base: &Path,
    runs: usize,
    threads: Option<u32>,
    times: &Path,
) -> Result<Vec<u64>, String> {
    let function = program
        .entries
        .iter()
        .find(|f| f.name == *entry)
        .ok_or_else(|| format!("no entry point `{entry}`"))?;
    let input = executable_input(program, exe, &case.input, base, threads)?;
    let output = run_timed(exe, entry, &input, runs, threads, times)?;
    if let Expect::Output(expected) = &case.expect {
        let expected = value::read_values(&input_bytes(expected, base)?, &function.ret)
            .map_err(|e| format!("expected output: {e}"))?;
        let actual = value::read_values(&output, &function.ret)
            .map_err(|e| format!("unreadable output: {e}"))?;
        check_values("compiled", &Outcome::Values(actual), &expected)?;
    }
    let text = std::fs::read_to_string(times).map_err(|e| e.to_string())?;
    let runs_us: Vec<u64> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    if runs_us.is_empty() {
        return Err("no timings recorded".into());
    }
    Ok(runs_us)
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
