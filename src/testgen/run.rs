//! Runs a generated program on the reference interpreter (`arrc run`) and
//! as binaries of every build configuration (target, `-O`, `--fusion`) at
//! every run configuration (threads, `ARRC_GRAIN=1`), and compares: values
//! exactly, or within the test tolerance where the generator marked a
//! result inexact; errors by their first line (message and location) and
//! exit code. Everything runs as child processes with a time limit, so a
//! crash or a hang of the compiler or a binary is a finding like any other.

use super::ast::Prog;
use crate::core::ir::Type;
use crate::runtime::value::{comparable_text, compare, read_values, write_binary, write_text};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a binary is built. `target` is one of arrc's `--target` values;
/// new targets (`nvptx-emu`) join the list without other changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Build {
    pub target: String,
    pub opt: u8,
    pub fusion: String,
    /// `arrc build --cpu`: `native` (the default, not passed) or a level.
    pub cpu: String,
}

impl Build {
    pub fn args(&self) -> Vec<String> {
        // `python`: the library path, a Python module over the C API
        // (x86-64) that `PY_RUNNER` calls.
        let target = if self.target == "python" {
            vec!["--python".into()]
        } else {
            vec!["--target".into(), self.target.clone()]
        };
        let mut args = vec![
            format!("-O{}", self.opt),
            "--fusion".into(),
            self.fusion.clone(),
        ];
        args.extend(target);
        // The library path keeps its own default (x86-64-v2).
        if self.cpu != "native" && self.target != "python" {
            args.extend(["--cpu".into(), self.cpu.clone()]);
        }
        // The generator marks float arithmetic exact, which holds only
        // without fused multiply-adds (the interpreter rounds twice).
        args.push("--strict-fp".into());
        args
    }
}

/// Runs the entry `main` of the module `sys.argv[1]` (in the working
/// folder) on the values on standard input and writes its results in the
/// binary format; an `Error` as a binary's message, exit 1; anything else
/// exit 70, a crash.
pub const PY_RUNNER: &str = r#"
import importlib, sys, traceback
try:
    import futhark_data
    prog = importlib.import_module(sys.argv[1])
    args = list(futhark_data.load(sys.stdin.buffer))
    try:
        r = prog.main(*args)
    except prog.Error as e:
        print("Error: " + str(e), file=sys.stderr)
        sys.exit(1)
    for v in (r if isinstance(r, tuple) else (r,)):
        futhark_data.dump(v, sys.stdout.buffer, True)
except SystemExit:
    raise
except BaseException:
    traceback.print_exc()
    sys.exit(70)
"#;

/// How a binary is run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConf {
    pub threads: u32,
    /// `ARRC_GRAIN=1`: even tiny loops take the parallel paths.
    pub tiny_grain: bool,
    /// Through the Python module of a `python` build (`ARRC_THREADS`).
    pub python: bool,
}

impl RunConf {
    pub fn describe(&self) -> String {
        let grain = if self.tiny_grain {
            "ARRC_GRAIN=1 ARRC_GPU_SHRINK=1 "
        } else {
            ""
        };
        if self.python {
            return format!("{grain}ARRC_THREADS={} python3 run.py prog", self.threads);
        }
        format!("{grain}./prog --threads {}", self.threads)
    }
}

#[derive(Clone, Debug)]
pub struct Settings {
    pub arrc: PathBuf,
    pub builds: Vec<Build>,
    /// How CPU binaries run.
    pub runs: Vec<RunConf>,
    /// How `nvptx-emu` binaries run: their thread count is the emulator's
    /// worker threads, whose useful values differ from the CPU's.
    pub emu_runs: Vec<RunConf>,
    /// How Python modules (`python` builds) run.
    pub lib_runs: Vec<RunConf>,
    pub timeout: Duration,
}

impl Settings {
    /// The run configurations of a binary built as `b`.
    pub fn runs_for(&self, b: &Build) -> &[RunConf] {
        match b.target.as_str() {
            "nvptx-emu" => &self.emu_runs,
            "python" => &self.lib_runs,
            _ => &self.runs,
        }
    }
}

/// What a process did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Values(String),
    /// Exit code and the first line of standard error.
    Error(i32, String),
    /// Killed by a signal, or an exit code no program may give.
    Crash(String),
    Timeout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The interpreter crashed (it may fail, never crash).
    InterpreterCrash,
    /// A program that type-checks failed to build.
    BuildFailed,
    Crash,
    Timeout,
    WrongValue,
    /// Both failed, with different messages, locations or exit codes.
    WrongError,
    /// The binary failed where the interpreter did not.
    UnexpectedError,
    /// The interpreter failed where the binary did not.
    MissingError,
}

#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: Kind,
    pub build: Option<Build>,
    pub run: Option<RunConf>,
    pub input: usize,
    pub detail: String,
}

pub enum Verdict {
    Pass,
    /// Not a test: the generator made a program that does not type-check,
    /// or the interpreter ran out of time.
    Skipped(String),
    Fail(Failure),
}

/// Runs `cmd` with `stdin`, killing it after `timeout`.
pub fn run_command(
    cmd: &mut Command,
    stdin: &[u8],
    timeout: Duration,
) -> (Option<i32>, bool, Vec<u8>, Vec<u8>) {
    let child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return (None, false, Vec::new(), e.to_string().into_bytes()),
    };
    let mut input = child.stdin.take().expect("piped");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let ereader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                timed_out = true;
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    let _ = writer.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = ereader.join().unwrap_or_default();
    (status.and_then(|s| s.code()), timed_out, stdout, stderr)
}

fn outcome(code: Option<i32>, timed_out: bool, stdout: Vec<u8>, stderr: &[u8]) -> Outcome {
    let err = String::from_utf8_lossy(stderr);
    let first = err.lines().next().unwrap_or("").to_string();
    match code {
        _ if timed_out => Outcome::Timeout,
        Some(0) => Outcome::Values(String::from_utf8_lossy(&stdout).into_owned()),
        Some(c @ (1 | 2)) if !internal(&err) => Outcome::Error(c, first),
        Some(c) => Outcome::Crash(format!("exit {c}: {err}")),
        None => Outcome::Crash(format!("killed by a signal: {err}")),
    }
}

/// A report of a bug in arrc rather than in the program.
fn internal(stderr: &str) -> bool {
    let lower = stderr.to_lowercase();
    lower.contains("panicked")
        || lower.contains("internal error")
        || lower.contains("internal compiler error")
}

/// Runs in the program's folder, so that messages name `prog.arr` alone.
fn in_dir<'a>(cmd: &'a mut Command, src: &Path) -> &'a mut Command {
    cmd.current_dir(src.parent().unwrap_or(Path::new(".")))
}

/// The interpreter's outcome on `input` (`src` is `DIR/prog.arr`).
pub fn interpret(s: &Settings, src: &Path, input: &str) -> Outcome {
    let mut cmd = Command::new(&s.arrc);
    in_dir(&mut cmd, src).arg("run").arg("prog.arr");
    let (code, t, out, err) = run_command(&mut cmd, input.as_bytes(), s.timeout);
    outcome(code, t, out, &err)
}

/// Builds `src` into `exe`: `Err` with the report when that fails.
pub fn build(s: &Settings, b: &Build, src: &Path, exe: &Path) -> Result<(), String> {
    let mut cmd = Command::new(&s.arrc);
    in_dir(&mut cmd, src)
        .arg("build")
        .args(b.args())
        .arg("prog.arr")
        .arg("-o")
        .arg(exe);
    let (code, t, _, err) = run_command(&mut cmd, b"", s.timeout * 4);
    match code {
        Some(0) if !t => Ok(()),
        _ if t => Err("the build timed out".into()),
        c => Err(format!(
            "exit {c:?}: {}",
            String::from_utf8_lossy(&err).trim_end()
        )),
    }
}

pub fn run_binary(s: &Settings, prog: &Prog, exe: &Path, r: &RunConf, input: &str) -> Outcome {
    if r.python {
        return run_module(s, prog, exe, r, input);
    }
    let mut cmd = Command::new(exe);
    cmd.args(["--threads", &r.threads.to_string()]);
    // Tiny grains on the CPU; tiny launches (many blocks for few
    // elements) on the GPU emulator.
    if r.tiny_grain {
        cmd.env("ARRC_GRAIN", "1").env("ARRC_GPU_SHRINK", "1");
    } else {
        cmd.env_remove("ARRC_GRAIN").env_remove("ARRC_GPU_SHRINK");
    }
    let (code, t, out, err) = run_command(&mut cmd, input.as_bytes(), s.timeout);
    outcome(code, t, out, &err)
}

/// Runs the Python module built as `exe` (`exe.py` beside it) through
/// `PY_RUNNER`; its binary results become text.
fn run_module(s: &Settings, prog: &Prog, exe: &Path, r: &RunConf, input: &str) -> Outcome {
    let name = exe.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut cmd = Command::new("python3");
    cmd.current_dir(exe.parent().unwrap_or(Path::new(".")))
        .arg("-c")
        .arg(PY_RUNNER)
        .arg(name.unwrap_or_default())
        .env("ARRC_THREADS", r.threads.to_string());
    if r.tiny_grain {
        cmd.env("ARRC_GRAIN", "1");
    } else {
        cmd.env_remove("ARRC_GRAIN");
    }
    // In the binary format: futhark-data reads no `f32.nan` in text.
    let params: Vec<Type> = prog.params.iter().filter_map(|p| p.ty.core()).collect();
    let mut bytes = Vec::new();
    match read_values(input.as_bytes(), &params) {
        Ok(vs) => vs.iter().for_each(|v| write_binary(v, &mut bytes)),
        Err(e) => return Outcome::Crash(format!("unreadable input: {e}")),
    }
    let (code, t, out, err) = run_command(&mut cmd, &bytes, s.timeout);
    if code != Some(0) || t {
        return outcome(code, t, out, &err);
    }
    let types: Vec<Type> = prog.results.iter().filter_map(|r| r.ty.core()).collect();
    match read_values(&out, &types) {
        Ok(vs) => Outcome::Values(vs.iter().map(|v| write_text(v) + "\n").collect()),
        Err(e) => Outcome::Crash(format!("unreadable results of the module: {e}")),
    }
}

/// Compares a binary's outcome with the interpreter's.
pub fn judge(prog: &Prog, want: &Outcome, got: &Outcome) -> Option<(Kind, String)> {
    match (want, got) {
        (_, Outcome::Crash(why)) => Some((Kind::Crash, why.clone())),
        (_, Outcome::Timeout) => Some((Kind::Timeout, "timed out".into())),
        (Outcome::Values(a), Outcome::Values(b)) => compare_values(prog, a, b)
            .err()
            .map(|why| (Kind::WrongValue, why)),
        (Outcome::Error(c, a), Outcome::Error(d, b)) if c == d && a == b => None,
        (Outcome::Error(..), Outcome::Error(d, b)) => Some((
            Kind::WrongError,
            format!("binary: exit {d}: {b}; interpreter: {}", show(want)),
        )),
        (Outcome::Values(_), Outcome::Error(d, b)) => {
            Some((Kind::UnexpectedError, format!("binary: exit {d}: {b}")))
        }
        (Outcome::Error(..), Outcome::Values(v)) => Some((
            Kind::MissingError,
            format!(
                "binary printed {}; interpreter: {}",
                v.trim_end(),
                show(want)
            ),
        )),
        _ => None,
    }
}

fn show(o: &Outcome) -> String {
    match o {
        Outcome::Values(v) => v.trim_end().to_string(),
        Outcome::Error(c, l) => format!("exit {c}: {l}"),
        Outcome::Crash(w) => w.clone(),
        Outcome::Timeout => "timed out".into(),
    }
}

/// Exact for results the generator did not mark inexact, within the
/// test tolerance for the others.
fn compare_values(prog: &Prog, want: &str, got: &str) -> Result<(), String> {
    let types: Vec<Type> = prog.results.iter().filter_map(|r| r.ty.core()).collect();
    let w = read_values(want.as_bytes(), &types).map_err(|e| format!("interpreter output: {e}"))?;
    let g = read_values(got.as_bytes(), &types).map_err(|e| format!("binary output: {e}"))?;
    for (i, ((a, b), r)) in w.iter().zip(&g).zip(&prog.results).enumerate() {
        let (ta, tb) = (write_text(a), write_text(b));
        if r.inexact {
            compare(b, a).map_err(|why| format!("result {}: {why}: {tb} vs {ta}", i + 1))?;
        } else if comparable_text(a) != comparable_text(b) {
            return Err(format!("result {}: binary {tb}, interpreter {ta}", i + 1));
        }
    }
    Ok(())
}

/// Whether the program type-checks (`Ok(false)` when it does not), or a
/// crash of the checker.
pub fn check(s: &Settings, src: &Path) -> Result<bool, String> {
    let mut cmd = Command::new(&s.arrc);
    in_dir(&mut cmd, src).arg("check").arg("prog.arr");
    let (code, t, _, err) = run_command(&mut cmd, b"", s.timeout);
    let err = String::from_utf8_lossy(&err);
    match code {
        Some(0) => Ok(true),
        Some(1) if !t && !err.contains("panicked") => Ok(false),
        c => Err(format!("arrc check: exit {c:?}: {err}")),
    }
}

/// Every configuration on every input.
pub fn test(s: &Settings, prog: &Prog, dir: &Path) -> Verdict {
    let src = dir.join("prog.arr");
    if std::fs::write(&src, prog.source()).is_err() {
        return Verdict::Skipped("cannot write the program".into());
    }
    match check(s, &src) {
        Ok(true) => {}
        Ok(false) => return Verdict::Skipped("does not type-check".into()),
        Err(why) => {
            return Verdict::Fail(Failure {
                kind: Kind::InterpreterCrash,
                build: None,
                run: None,
                input: 0,
                detail: why,
            })
        }
    }
    let mut expected = Vec::new();
    for (i, input) in prog.inputs.iter().enumerate() {
        let text = input.join("\n");
        match interpret(s, &src, &text) {
            Outcome::Timeout => return Verdict::Skipped("the interpreter timed out".into()),
            Outcome::Crash(why) => {
                return Verdict::Fail(Failure {
                    kind: Kind::InterpreterCrash,
                    build: None,
                    run: None,
                    input: i,
                    detail: why,
                })
            }
            o => expected.push(o),
        }
    }
    let exe = dir.join("prog");
    for b in &s.builds {
        if let Err(why) = build(s, b, &src, &exe) {
            return Verdict::Fail(Failure {
                kind: Kind::BuildFailed,
                build: Some(b.clone()),
                run: None,
                input: 0,
                detail: why,
            });
        }
        for (i, input) in prog.inputs.iter().enumerate() {
            let text = input.join("\n");
            for r in s.runs_for(b) {
                let mut got = run_binary(s, prog, &exe, r, &text);
                if got == Outcome::Timeout {
                    // A loaded machine is slow: a hang must hang again with
                    // more time.
                    let patient = Settings {
                        timeout: s.timeout * 3,
                        ..s.clone()
                    };
                    got = run_binary(&patient, prog, &exe, r, &text);
                }
                if let Some((kind, detail)) = judge(prog, &expected[i], &got) {
                    return Verdict::Fail(Failure {
                        kind,
                        build: Some(b.clone()),
                        run: Some(r.clone()),
                        input: i,
                        detail,
                    });
                }
            }
        }
    }
    Verdict::Pass
}

/// Whether `prog` (on its input `f.input`) still fails as `f` did, under
/// `f`'s configuration only.
pub fn reproduces(s: &Settings, prog: &Prog, f: &Failure, dir: &Path) -> bool {
    let src = dir.join("prog.arr");
    if std::fs::write(&src, prog.source()).is_err() || check(s, &src) != Ok(true) {
        return f.kind == Kind::InterpreterCrash && check(s, &src).is_err();
    }
    let Some(input) = prog.inputs.get(f.input) else {
        return false;
    };
    let text = input.join("\n");
    let want = interpret(s, &src, &text);
    match (&want, f.kind) {
        (Outcome::Crash(_), Kind::InterpreterCrash) => return true,
        (Outcome::Crash(_) | Outcome::Timeout, _) | (_, Kind::InterpreterCrash) => return false,
        _ => {}
    }
    let Some(b) = &f.build else { return false };
    let exe = dir.join("prog");
    if build(s, b, &src, &exe).is_err() {
        return f.kind == Kind::BuildFailed;
    }
    let Some(r) = &f.run else { return false };
    let got = run_binary(s, prog, &exe, r, &text);
    judge(prog, &want, &got).is_some_and(|(k, _)| k == f.kind)
}
