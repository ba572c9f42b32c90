//! `arrc test`: every case of every test block, run on the reference
//! interpreter and on the compiled executable (or on one of them, with
//! `--backend`), checked against the expected output or error (and against
//! each other), with `futhark test`'s meaning for every line of a block.

use super::backends;
use super::exactness;
use super::export::Export;
use super::pipeline::{self, Options};
use super::script;
use super::testblock::{self, Expect, Input, RandomSpec, TestCase};
use crate::codegen::Target;
use crate::core::ir::{Program, Type};
use crate::interp;
use crate::runtime::value::{self, Value};
use crate::types::half::F16;
use crate::types::ScalarType;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What `arrc test` runs, beyond the compiler's options.
#[derive(Clone, Debug)]
pub struct TestOptions {
    /// Run cases on the reference interpreter (not `compiled` ones).
    pub interpreter: bool,
    /// Build the program and run cases on the executable.
    pub compiled: bool,
    /// No `--target` was given: run compiled cases on every backend
    /// available here (`backends::backends`), not only the options' one.
    pub every_backend: bool,
    /// Run every compiled case with each of these thread counts (once with
    /// the binary's default when empty).
    pub threads: Vec<u32>,
    /// Blocks and cases with one of these tags are skipped (besides
    /// `disable` and `notest`, which always are).
    pub exclude: Vec<String>,
    /// Check `structure` expectations instead of running cases (Futhark's
    /// `futhark test -s`).
    pub structure: bool,
    /// The interpreter's checking mode (`interp::unspecified`): a case
    /// whose result depends on unspecified behaviour fails.
    pub check_unspecified: interp::CheckMode,
}

impl Default for TestOptions {
    fn default() -> Self {
        TestOptions {
            interpreter: true,
            compiled: true,
            every_backend: false,
            threads: Vec::new(),
            exclude: Vec::new(),
            structure: false,
            check_unspecified: interp::CheckMode::Off,
        }
    }
}

impl TestOptions {
    fn excluded(&self, tags: &[String]) -> bool {
        tags.iter()
            .any(|t| t == "disable" || t == "notest" || self.exclude.contains(t))
    }
}

/// Runs the tests under `paths` (files or directories of `.arr` and `.fut`
/// files) and prints one line per failure and a closing `N passed, N
/// failed` line (`, N skipped` when cases were excluded or disabled; files
/// skipped whole are named on `skipped:` lines).
pub fn run_tests(paths: &[PathBuf], options: &Options, test: &TestOptions) -> i32 {
    let mut files = Vec::new();
    for path in paths {
        if let Err(err) = collect_programs(path, &mut files) {
            eprintln!("Error: cannot read `{}`: {err}", path.display());
            return 1;
        }
    }
    let compiling = test.compiled && !test.structure;
    if compiling && !test.every_backend {
        if let Some(missing) = backends::missing_gpu(options) {
            eprintln!("{missing}");
            return 3;
        }
    }
    // The GPU is probed once a run, and only when cases are compiled.
    let explicit = (!test.every_backend).then_some(options.codegen.target);
    let targets = match compiling {
        true => backends::backends(explicit, || backends::gpu_usable(options)),
        false => vec![options.codegen.target],
    };
    let mut export = match Export::from_env() {
        Ok(e) => e,
        Err(why) => {
            eprintln!("Error: ARRC_TEST_EXPORT: {why}");
            return 1;
        }
    };
    let mut tally = Tally::default();
    for file in &files {
        // A compiler bug on one program must not hide the other results.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            test_file(file, options, &targets, test, &mut tally, export.as_mut())
        }));
        if outcome.is_err() {
            tally.record(
                &file.display().to_string(),
                Err("the compiler panicked".into()),
            );
        }
    }
    if tally.skipped > 0 {
        println!(
            "{} passed, {} failed, {} skipped",
            tally.passed, tally.failed, tally.skipped
        );
    } else {
        println!("{} passed, {} failed", tally.passed, tally.failed);
    }
    if tally.failed == 0 {
        0
    } else {
        1
    }
}

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    /// Cases of disabled files, excluded blocks and cases, and `compiled`
    /// cases when only the interpreter runs.
    skipped: usize,
}

impl Tally {
    fn record(&mut self, what: &str, result: Result<(), String>) {
        match result {
            Ok(()) => self.passed += 1,
            Err(why) => {
                self.failed += 1;
                println!("FAIL {what}: {why}");
            }
        }
    }
}

/// Whether `path` names a program: `.arr`, or Futhark's `.fut`.
pub fn is_program(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "arr" || e == "fut")
}

pub(crate) fn collect_programs(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for entry in entries {
            if entry.is_dir() || is_program(&entry) {
                collect_programs(&entry, out)?;
            }
        }
    } else {
        std::fs::metadata(path)?;
        out.push(path.to_path_buf());
    }
    Ok(())
}

fn test_file(
    file: &Path,
    options: &Options,
    targets: &[Target],
    test: &TestOptions,
    tally: &mut Tally,
    mut export: Option<&mut Export>,
) {
    let name = file.display().to_string();
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(err) => return tally.record(&name, Err(format!("cannot read: {err}"))),
    };
    let count = |blocks: &[testblock::TestBlock]| -> usize {
        blocks
            .iter()
            .flat_map(|b| &b.cases)
            .map(|c| c.entries.len())
            .sum()
    };
    let blocks = match testblock::parse_blocks(&source) {
        Ok(blocks) if blocks.is_empty() => {
            println!("skipped: {name}: no test block");
            return;
        }
        Ok(blocks) if testblock::has_tag(&blocks, &["disable".into(), "notest".into()]) => {
            println!("skipped: {name}: tagged disable or notest");
            tally.skipped += count(&blocks);
            return;
        }
        Ok(blocks) => blocks,
        Err(err) => return tally.record(&name, Err(err.to_string())),
    };
    // Blocks with an excluded tag are left out, the others still run.
    let (excluded, blocks): (Vec<_>, Vec<_>) =
        blocks.into_iter().partition(|b| test.excluded(&b.tags));
    tally.skipped += count(&excluded);
    if test.structure {
        return super::structure::test_structure(file, &blocks, options, |what, result| {
            tally.record(what, result)
        });
    }
    let program = pipeline::lowered(file);
    // `error:` in place of cases: the program must not compile.
    for block in &blocks {
        if let Some(pattern) = &block.compile_error {
            let what = format!("{name}:{}", block.line);
            tally.record(&what, check_compile_error(&program, pattern));
        }
    }
    let (cases, skipped): (Vec<&TestCase>, Vec<&TestCase>) = blocks
        .iter()
        .flat_map(|b| &b.cases)
        .partition(|c| !test.excluded(&c.tags) && (test.compiled || !c.compiled));
    tally.skipped += skipped.iter().map(|c| c.entries.len()).sum::<usize>();
    if cases.is_empty() {
        return;
    }
    let program = match program {
        Ok(p) => p,
        Err(failure) => return tally.record(&name, Err(failure.render())),
    };
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(err) => return tally.record(&name, Err(format!("no temporary directory: {err}"))),
    };
    // One executable per backend (none with the interpreter only).
    let mut builds: Vec<Build> = match test.compiled {
        true => targets
            .iter()
            .map(|&target| Build::new(file, options, target, dir.path()))
            .collect(),
        false => Vec::new(),
    };
    // The exported nvptx build's name, or why there is none.
    let exported = match (&mut export, builds.first().map(|b| &b.built)) {
        (Some(export), Some(Ok(()))) => Some(export.program(file, options)),
        _ => None,
    };
    let base = file.parent().unwrap_or(Path::new("."));
    let several = builds.len() > 1;
    let any_built = builds.is_empty() || builds.iter().any(|b| b.built.is_ok());
    for case in cases {
        for entry in &case.entries {
            let what = format!("{name}:{} ({entry})", case.line);
            let Some(function) = program.entries.iter().find(|f| &f.name == entry) else {
                tally.record(&what, Err(format!("no entry point `{entry}`")));
                continue;
            };
            // Where no backend compiled, its failure alone is reported.
            let interpreted = match any_built {
                true => match interpret_case(&program, entry, case, base, test) {
                    Ok(outcome) => outcome,
                    Err(why) => {
                        tally.record(&what, Err(why));
                        continue;
                    }
                },
                false => None,
            };
            if builds.is_empty() {
                let result = check_case(case, base, &function.ret, interpreted.as_ref(), None);
                tally.record(&what, result);
                continue;
            }
            let mut failures = Vec::new();
            for (i, build) in builds.iter_mut().enumerate() {
                // Only the first backend's run writes the export.
                let sink = match (i, &mut export, &exported) {
                    (0, Some(export), Some(Ok(name))) => Some((&mut **export, name.as_str())),
                    _ => None,
                };
                let run = Run {
                    program: &program,
                    entry,
                    case,
                    base,
                    test,
                    what: &what,
                    interpreted: interpreted.as_ref(),
                };
                if let Err(why) = build.check(&run, file, dir.path(), sink) {
                    failures.push(match several {
                        true => format!("{}: {why}", backends::name(build.target)),
                        false => why,
                    });
                }
            }
            let result = match failures.is_empty() {
                true => Ok(()),
                false => Err(failures.join("; ")),
            };
            tally.record(&what, result);
        }
    }
    if let Some(Err(why)) = exported {
        tally.record(&name, Err(why));
    }
}

/// One compiled backend of one program: its options, executable, and the
/// build without contraction, made when a case needs it.
struct Build {
    target: Target,
    options: Options,
    exe: PathBuf,
    built: Result<(), String>,
    strict: Option<Result<PathBuf, String>>,
}

/// One case of one entry point, as every backend checks it.
struct Run<'a> {
    program: &'a Program,
    entry: &'a str,
    case: &'a TestCase,
    base: &'a Path,
    test: &'a TestOptions,
    what: &'a str,
    /// The interpreter's outcome, unless it did not run the case.
    interpreted: Option<&'a Outcome>,
}

impl Build {
    fn new(file: &Path, options: &Options, target: Target, dir: &Path) -> Build {
        let mut options = options.clone();
        options.codegen.target = target;
        let exe = dir.join(format!("prog-{}", backends::name(target)));
        let built = pipeline::build_executable(file, &options, &exe).map_err(|f| f.render());
        Build {
            target,
            options,
            exe,
            built,
            strict: None,
        }
    }

    /// Runs the case on this backend's executable.
    fn check(
        &mut self,
        run: &Run,
        file: &Path,
        dir: &Path,
        sink: Option<(&mut Export, &str)>,
    ) -> Result<(), String> {
        if let Err(why) = &self.built {
            return Err(format!("compilation failed: {why}"));
        }
        let codegen = &self.options.codegen;
        let exact = exactness::floats_exact(
            run.program,
            run.entry,
            codegen.fast_math,
            !codegen.strict_fp,
        );
        let result = run_compiled(run, &self.exe, exact, sink);
        // A fused multiply-add may move a float across a comparison or a
        // conversion to an integer (LANGUAGE.md section 6), so a difference
        // is accepted when it is contraction's alone: the build without it
        // must agree exactly.
        let contracting = !codegen.strict_fp
            && !codegen.fast_math
            && exactness::may_contract(run.program, run.entry);
        if result.is_err() && contracting {
            let strict = self.strict.get_or_insert_with(|| {
                let exe = dir.join(format!("prog-{}-strict", backends::name(self.target)));
                let mut o = self.options.clone();
                o.codegen.strict_fp = true;
                pipeline::build_executable(file, &o, &exe)
                    .map(|()| exe)
                    .map_err(|f| f.render())
            });
            if let Ok(strict) = strict {
                let exact =
                    exactness::floats_exact(run.program, run.entry, codegen.fast_math, false);
                if run_compiled(run, strict, exact, None).is_ok() {
                    return Ok(());
                }
            }
        }
        result
    }
}

/// A block's `error: REGEX` without an input: the compiler's message must
/// match it (Futhark's test suite writes these for its own messages).
fn check_compile_error(
    program: &Result<Program, pipeline::Failure>,
    pattern: &str,
) -> Result<(), String> {
    let re = regex::Regex::new(pattern).map_err(|e| format!("bad error pattern: {e}"))?;
    match program {
        Ok(_) => Err(format!(
            "compiled, expected a compile error matching `{pattern}`"
        )),
        Err(failure) => {
            let message = failure.render();
            if re.is_match(&message) {
                Ok(())
            } else {
                let first = message.lines().next().unwrap_or("").trim();
                Err(format!(
                    "rejected with `{first}`, expected a compile error matching `{pattern}`"
                ))
            }
        }
    }
}

/// What one backend did with one case.
pub(crate) enum Outcome {
    Values(Vec<Value>),
    Failed(String),
}

/// The reference interpreter's outcome of one case of `entry`, or None
/// when it does not run the case (`--backend compiled`, `compiled` cases).
fn interpret_case(
    program: &Program,
    entry: &str,
    case: &TestCase,
    base: &Path,
    test: &TestOptions,
) -> Result<Option<Outcome>, String> {
    if !test.interpreter || case.compiled {
        return Ok(None);
    }
    // A case tagged `unspecified` accepts every allowed result itself.
    let check = match case.tags.iter().any(|t| t == "unspecified") {
        true => interp::CheckMode::Off,
        false => test.check_unspecified,
    };
    let mut call = |name: &str, bytes: &[u8]| match interpret(program, name, bytes, check)? {
        Outcome::Values(v) => Ok(v),
        Outcome::Failed(why) => Err(format!("script input: {name}: {why}")),
    };
    let input = case_input(&case.input, base, &mut call)?;
    interpret(program, entry, &input, check).map(Some)
}

/// Runs one case on the executable `exe`, at each thread count, against
/// the expected outcome and the interpreter's; with `export`, also writes
/// its input and the interpreter's outcome there, for the exported build
/// named.
fn run_compiled(
    run: &Run,
    exe: &Path,
    exact_floats: bool,
    mut export: Option<(&mut Export, &str)>,
) -> Result<(), String> {
    let (program, case, base) = (run.program, run.case, run.base);
    let function = program
        .entries
        .iter()
        .find(|f| f.name == run.entry)
        .ok_or_else(|| format!("no entry point `{}`", run.entry))?;
    let default = [None];
    let counts: Vec<Option<u32>> = if run.test.threads.is_empty() {
        default.to_vec()
    } else {
        run.test.threads.iter().map(|t| Some(*t)).collect()
    };
    for count in counts {
        let input = executable_input(program, exe, &case.input, base, count)?;
        if let (Some((export, name)), Some(expected)) = (export.take(), run.interpreted) {
            export.case(name, run.what, run.entry, &input, expected, exact_floats)?;
        }
        let compiled = run_executable(exe, run.entry, &input, &function.ret, count)?;
        check_case(case, base, &function.ret, run.interpreted, Some(&compiled))
            .and_then(|()| match run.interpreted {
                Some(interpreted) => agree(interpreted, &compiled, exact_floats),
                None => Ok(()),
            })
            .map_err(|why| match count {
                Some(n) => format!("--threads {n}: {why}"),
                None => why,
            })?;
    }
    Ok(())
}

/// The bytes of an input for the compiled program: a script's calls run
/// the executable.
pub(crate) fn executable_input(
    program: &Program,
    exe: &Path,
    input: &Input,
    base: &Path,
    threads: Option<u32>,
) -> Result<Vec<u8>, String> {
    let mut call = |name: &str, bytes: &[u8]| {
        let ret = &program
            .entries
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| format!("script input: no entry point `{name}`"))?
            .ret;
        match run_executable(exe, name, bytes, ret, threads)? {
            Outcome::Values(v) => Ok(v),
            Outcome::Failed(why) => Err(format!("script input: {name}: {why}")),
        }
    };
    case_input(input, base, &mut call)
}

/// The reference interpreter on one entry point; with `check`, in its
/// checking mode, where unspecified behaviour fails the case whatever it
/// expects.
fn interpret(
    program: &Program,
    entry: &str,
    input: &[u8],
    check: interp::CheckMode,
) -> Result<Outcome, String> {
    let Some(function) = program.entries.iter().find(|f| f.name == entry) else {
        return Ok(Outcome::Failed(format!("no entry point `{entry}`")));
    };
    let params: Vec<Type> = function.params.iter().map(|p| p.ty).collect();
    Ok(match value::read_values(input, &params) {
        Ok(args) => match interp::run_entry_checked(program, entry, args, check) {
            Ok(values) => Outcome::Values(values),
            Err(err @ interp::RunError::Unspecified(_)) => {
                return Err(format!("interpreter: {err}"))
            }
            Err(err) => Outcome::Failed(err.to_string()),
        },
        Err(err) => Outcome::Failed(err.to_string()),
    })
}

/// The bytes of a case's input; a script's calls go to `call`.
fn case_input(input: &Input, base: &Path, call: &mut script::Call) -> Result<Vec<u8>, String> {
    match input {
        Input::Script(expr) => script::eval(expr, base, call),
        Input::ScriptFile(path) => {
            let path = base.join(path);
            let expr = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            script::eval(&expr, base, call)
        }
        other => input_bytes(other, base),
    }
}

/// Checks the outcomes of the backends that ran against the case's
/// expectation.
fn check_case(
    case: &TestCase,
    base: &Path,
    ret: &[Type],
    interpreted: Option<&Outcome>,
    compiled: Option<&Outcome>,
) -> Result<(), String> {
    let ran = [("interpreter", interpreted), ("compiled", compiled)];
    let mut ran = ran.iter().filter_map(|(b, o)| o.map(|o| (*b, o)));
    match &case.expect {
        Expect::Output(expected) => {
            let bytes = input_bytes(expected, base)?;
            let expected =
                value::read_values(&bytes, ret).map_err(|e| format!("expected output: {e}"))?;
            ran.try_for_each(|(backend, o)| check_values(backend, o, &expected))
        }
        Expect::Error(pattern) => {
            let re = regex::Regex::new(pattern).map_err(|e| format!("bad error pattern: {e}"))?;
            ran.try_for_each(|(backend, o)| check_error(backend, o, &re))
        }
        // As in Futhark, a case that states no result must run successfully;
        // both backends' results must agree.
        Expect::Agree => match (interpreted, compiled) {
            (Some(Outcome::Values(expected)), Some(compiled)) => {
                check_values("compiled", compiled, expected)
            }
            _ => ran.try_for_each(|(backend, o)| match o {
                Outcome::Values(_) => Ok(()),
                Outcome::Failed(why) => Err(format!("{backend}: unexpected error: {why}")),
            }),
        },
    }
}

/// The compiled program against the interpreter: the same error, or the
/// same values, bit for bit where `exactness` says no backend may differ
/// (but for the sign of a zero, `value::comparable_text`).
fn agree(interpreted: &Outcome, compiled: &Outcome, exact_floats: bool) -> Result<(), String> {
    match (interpreted, compiled) {
        (Outcome::Failed(a), Outcome::Failed(b)) if a != b => {
            Err(format!("compiled: error `{b}`, the interpreter's `{a}`"))
        }
        (Outcome::Values(want), Outcome::Values(got)) => {
            for (i, (w, g)) in want.iter().zip(got).enumerate() {
                let exact = exact_floats || !w.ty().elem().is_float();
                let (w, g) = (value::comparable_text(w), value::comparable_text(g));
                if exact && w != g {
                    return Err(format!(
                        "compiled: result {} is {g}, the interpreter's {w} (compared exactly)",
                        i + 1
                    ));
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

pub(crate) fn check_values(
    backend: &str,
    outcome: &Outcome,
    expected: &[Value],
) -> Result<(), String> {
    match outcome {
        Outcome::Failed(err) => Err(format!("{backend}: unexpected error: {err}")),
        Outcome::Values(actual) => {
            if actual.len() != expected.len() {
                return Err(format!(
                    "{backend}: {} results, expected {}",
                    actual.len(),
                    expected.len()
                ));
            }
            for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
                value::compare(a, e)
                    .map_err(|why| format!("{backend}: result {}: {why}", i + 1))?;
            }
            Ok(())
        }
    }
}

/// Futhark matches `error:`'s pattern against the whole message, which
/// starts with `Error: `; a pattern written for the message after it
/// (`^index`) is accepted too.
fn check_error(backend: &str, outcome: &Outcome, pattern: &regex::Regex) -> Result<(), String> {
    match outcome {
        Outcome::Failed(message)
            if pattern.is_match(&format!("Error: {message}")) || pattern.is_match(message) =>
        {
            Ok(())
        }
        Outcome::Failed(message) => Err(format!(
            "{backend}: error `{message}` does not match `{pattern}`"
        )),
        Outcome::Values(_) => Err(format!("{backend}: succeeded, expected an error")),
    }
}

fn run_executable(
    exe: &Path,
    entry: &str,
    input: &[u8],
    ret: &[Type],
    threads: Option<u32>,
) -> Result<Outcome, String> {
    // `ARRC_TEST_VALGRIND=1`: every compiled run under valgrind's memcheck,
    // failing on invalid accesses and on leaks (except at a run-time error
    // exit, which abandons its arrays by design). Build with `--cpu` at most
    // `x86-64-v3`: valgrind does not decode AVX-512.
    let valgrind = std::env::var_os("ARRC_TEST_VALGRIND").is_some_and(|v| v == "1");
    let mut command = if valgrind {
        let mut c = Command::new("valgrind");
        c.args([
            "-q",
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,possible",
        ])
        .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    command.args(["-e", entry]);
    if let Some(n) = threads {
        command.args(["--threads", &n.to_string()]);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    // Write from another thread: a large input must not deadlock against a full stdout pipe.
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child
        .wait_with_output()
        .map_err(|e| format!("running {}: {e}", exe.display()))?;
    let _ = writer.join();
    if output.status.success() {
        let values = value::read_values(&output.stdout, ret)
            .map_err(|e| format!("compiled: unreadable output: {e}"))?;
        return Ok(Outcome::Values(values));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Valgrind's lines start with `==PID==`.
    let mut own = stderr.lines().filter(|l| !l.starts_with("=="));
    let line = own.next().unwrap_or("").trim();
    let failed = || Outcome::Failed(line.strip_prefix("Error: ").unwrap_or(line).to_string());
    match output.status.code() {
        // 1: a run-time error; 2: input that does not fit the entry point.
        Some(1) | Some(2) => Ok(failed()),
        Some(99) if valgrind && line.starts_with("Error: ") && !stderr.contains("Invalid") => {
            Ok(failed())
        }
        code => Err(format!("compiled: exit status {code:?}: {stderr}")),
    }
}

pub(crate) fn input_bytes(input: &Input, base: &Path) -> Result<Vec<u8>, String> {
    match input {
        Input::Text(text) => Ok(text.as_bytes().to_vec()),
        Input::File(path) => {
            let path = base.join(path);
            std::fs::read(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
        }
        Input::Random(specs) => Ok(random_input(specs)),
        Input::Script(_) | Input::ScriptFile(_) => {
            Err("a script input needs an entry point to run".into())
        }
    }
}

/// Random arguments in the binary value format, the same on every run: floats
/// uniform in [0, 1), integers uniform over their type's range.
pub fn random_input(specs: &[RandomSpec]) -> Vec<u8> {
    let mut rng = SplitMix64(0x5eed_a11c_e5ee_d5ee);
    let mut out = Vec::new();
    for spec in specs {
        let (shape, elem) = match spec {
            RandomSpec::Constant(text) => {
                out.extend_from_slice(text.as_bytes());
                out.push(b'\n');
                continue;
            }
            RandomSpec::Random { shape, elem } => (shape, *elem),
        };
        out.push(b'b');
        out.push(2);
        out.push(shape.len() as u8);
        out.extend_from_slice(value::binary_name(elem));
        for &n in shape {
            out.extend_from_slice(&(n as i64).to_le_bytes());
        }
        let count: usize = shape.iter().product();
        for _ in 0..count {
            let bits = rng.next();
            match elem {
                ScalarType::F16 => out.extend_from_slice(
                    // k / 2048: every one is a half, all below 1.
                    &F16::from_f64((bits >> 53) as f64 / 2048.0).0.to_le_bytes(),
                ),
                ScalarType::F32 => out
                    .extend_from_slice(&((bits >> 40) as f32 / (1u64 << 24) as f32).to_le_bytes()),
                ScalarType::F64 => out
                    .extend_from_slice(&((bits >> 11) as f64 / (1u64 << 53) as f64).to_le_bytes()),
                ScalarType::Bool => out.push((bits & 1) as u8),
                t => out.extend_from_slice(&bits.to_le_bytes()[..t.bytes()]),
            }
        }
    }
    out
}

/// Small, fast and deterministic; statistical quality is ample for test data.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}
