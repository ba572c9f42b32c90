//! Random differential testing (test support, not a pipeline stage).
//!
//! In: a seed. Out: a verdict. `stms::generate` makes a well-typed Arr
//! program (an entry point over random arrays, a chain of `let`s using the
//! SOACs, library functions, slices, updates, loops, tuples and records of
//! the language on every scalar type, with deliberate out-of-range
//! indices, zero divisors, bad sizes and failing assertions) and inputs for
//! it; `run::test` runs it on the interpreter and as binaries of every
//! configuration and compares; `shrink::shrink` cuts a failing program down
//! by delta debugging over its tree. `arrc random` (hidden) drives it; the
//! fixed-seed run in `tests/random.rs` is part of the test suite.
//!
//! To grow it with the language, add an option to the generator (the
//! shrinker and printer need nothing) or a target to `Settings::builds`.

pub mod arrays;
pub mod ast;
pub mod chunks;
pub mod consume;
pub mod contract;
pub mod cuts;
pub mod extras;
pub mod gen;
pub mod grown;
pub mod idioms;
pub mod kernels;
pub mod nests;
pub mod prelude;
pub mod ranked;
pub mod rewrites;
pub mod rng;
pub mod run;
pub mod shrink;
pub mod slices;
pub mod stms;
pub mod wraps;

use run::{Failure, Settings, Verdict};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What `arrc random` was asked to do.
#[derive(Clone, Debug)]
pub struct Campaign {
    pub settings: Settings,
    pub seed: u64,
    /// Programs to test; with `seconds`, as many as fit.
    pub count: Option<u64>,
    pub seconds: Option<u64>,
    pub jobs: usize,
    pub shrink_seconds: u64,
    /// Where failing programs are written (one folder each).
    pub save: Option<PathBuf>,
    pub verbose: bool,
    /// Long programs, arrays of `()` (`stms::Shape`).
    pub shape: stms::Shape,
    /// Seeds known to fail (tests/random-found): their failures count as
    /// skipped, and a pass is reported so that the list can shrink.
    pub known: Vec<u64>,
}

/// Writes `text` to standard output, where `print!` would panic on a
/// closed pipe (a reader such as `head` that has seen enough).
pub fn say(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

#[derive(Default)]
struct Tally {
    passed: AtomicUsize,
    failed: AtomicUsize,
    skipped: AtomicUsize,
}

/// Runs the campaign; prints one report per failure and a closing line
/// `random: P passed, F failed, S skipped`. Returns the exit code (1 when
/// a program failed). When standard output is closed, the campaign stops
/// quietly after the programs under test.
pub fn campaign(c: &Campaign) -> i32 {
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let tally = Tally::default();
    let print = Mutex::new(());
    let closed = AtomicBool::new(false);
    let tell = |text: String| {
        let _g = print.lock();
        if say(&(text + "\n")).is_err() {
            closed.store(true, Ordering::Relaxed);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..c.jobs.max(1) {
            scope.spawn(|| {
                let Ok(dir) = tempfile::tempdir() else { return };
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let more = match (c.count, c.seconds) {
                        (Some(n), _) => k < n,
                        (None, Some(s)) => start.elapsed() < Duration::from_secs(s),
                        (None, None) => k < 100,
                    };
                    if !more || closed.load(Ordering::Relaxed) {
                        return;
                    }
                    let seed = c.seed.wrapping_add(k);
                    let prog = stms::generate_with(seed, c.shape);
                    match run::test(&c.settings, &prog, dir.path()) {
                        Verdict::Skipped(why) => {
                            tally.skipped.fetch_add(1, Ordering::Relaxed);
                            if c.verbose {
                                tell(format!("skipped seed {seed}: {why}\n{}", prog.source()));
                            }
                        }
                        Verdict::Fail(f) if c.known.contains(&seed) => {
                            tally.skipped.fetch_add(1, Ordering::Relaxed);
                            tell(format!(
                                "known failure, seed {seed}: {:?}: {}",
                                f.kind, f.detail
                            ));
                        }
                        Verdict::Pass if c.known.contains(&seed) => {
                            tally.passed.fetch_add(1, Ordering::Relaxed);
                            tell(format!(
                                "seed {seed} passes now: drop it from the known failures"
                            ));
                        }
                        Verdict::Pass => {
                            tally.passed.fetch_add(1, Ordering::Relaxed);
                        }
                        Verdict::Fail(f) => {
                            tally.failed.fetch_add(1, Ordering::Relaxed);
                            let small = minimise(c, &prog, &f, dir.path());
                            tell(report(c, seed, &prog, &small, &f));
                        }
                    }
                }
            });
        }
    });
    let (p, f, s) = (
        tally.passed.load(Ordering::Relaxed),
        tally.failed.load(Ordering::Relaxed),
        tally.skipped.load(Ordering::Relaxed),
    );
    tell(format!("random: {p} passed, {f} failed, {s} skipped"));
    i32::from(f > 0)
}

fn minimise(c: &Campaign, prog: &ast::Prog, f: &Failure, dir: &Path) -> ast::Prog {
    let mut one = prog.clone();
    one.inputs = vec![prog.inputs[f.input].clone()];
    let f1 = Failure {
        input: 0,
        ..f.clone()
    };
    if c.shrink_seconds == 0 {
        return one;
    }
    let sub = dir.join("shrink");
    let _ = std::fs::create_dir_all(&sub);
    let mut fails = |p: &ast::Prog| run::reproduces(&c.settings, p, &f1, &sub);
    shrink::shrink(&one, &mut fails, Duration::from_secs(c.shrink_seconds))
}

/// The failure with the shrunk program, its input and the commands that
/// show it; saved under `c.save` when given.
fn report(c: &Campaign, seed: u64, orig: &ast::Prog, small: &ast::Prog, f: &Failure) -> String {
    let input = small
        .inputs
        .first()
        .map(|i| i.join(" "))
        .unwrap_or_default();
    let mut cmds = String::from("arrc run prog.arr < input.txt\n");
    if let (Some(b), Some(r)) = (&f.build, &f.run) {
        cmds.push_str(&format!(
            "arrc build {} prog.arr -o prog && {} < input.txt\n",
            b.args().join(" "),
            r.describe()
        ));
    } else if let Some(b) = &f.build {
        cmds.push_str(&format!(
            "arrc build {} prog.arr -o prog\n",
            b.args().join(" ")
        ));
    }
    let mut text = format!(
        "FAIL seed {seed}: {:?}: {}\n--- prog.arr (shrunk from {} to {} lines)\n{}--- input.txt\n{input}\n--- commands\n{cmds}",
        f.kind,
        f.detail,
        orig.source().lines().count(),
        small.source().lines().count(),
        small.source(),
    );
    if let Some(dir) = &c.save {
        let d = dir.join(format!("seed-{seed}"));
        let saved = std::fs::create_dir_all(&d)
            .and_then(|_| std::fs::write(d.join("prog.arr"), small.source()))
            .and_then(|_| std::fs::write(d.join("input.txt"), format!("{input}\n")))
            .and_then(|_| std::fs::write(d.join("original.arr"), orig.source()))
            .and_then(|_| std::fs::write(d.join("commands.txt"), &cmds))
            .and_then(|_| match &f.run {
                Some(r) if r.python => std::fs::write(d.join("run.py"), run::PY_RUNNER),
                _ => Ok(()),
            });
        if saved.is_ok() {
            text.push_str(&format!("(saved in {})\n", d.display()));
        }
    }
    text
}
