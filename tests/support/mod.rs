#![allow(dead_code)] // each test crate uses some of these
//! What several test crates share: running arrc, a command that must
//! succeed, C test programs, a compiled program on binary values, and a
//! Python script.

use arrc::runtime::value::{self, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A C test program for the library `header` names: the standard headers,
/// `report` (which prints the context's error when a call returns
/// non-zero, and returns the call's code), then `main_c`.
pub fn c_program(header: &str, main_c: &str) -> String {
    format!(
        "#include \"{header}\"\n#include <stdio.h>\n#include <stdlib.h>\n\n\
         static int report(struct arrc_context *ctx, int rc) {{\n    \
             if (rc != 0) {{\n        \
                 char *e = arrc_context_get_error(ctx);\n        \
                 printf(\"%s\", e ? e : \"no message\\n\");\n        \
                 free(e);\n    \
             }}\n    \
             return rc;\n\
         }}\n{main_c}"
    )
}

pub fn arrc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arrc"))
}

/// `arrc`, verifying the IR after every pass (as debug builds do).
pub fn arrc_verified() -> Command {
    let mut cmd = arrc();
    cmd.env("ARRC_VERIFY", "1");
    cmd
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn python(dir: &Path, script: &str) -> Output {
    Command::new("python3")
        .current_dir(dir)
        .arg("-c")
        .arg(script)
        .output()
        .expect("python3 runs")
}

/// `arrc build ARGS...` in `dir`, which must succeed.
pub fn build(dir: &Path, args: &[&str]) {
    let out = arrc()
        .current_dir(dir)
        .arg("build")
        .args(args)
        .output()
        .unwrap();
    ok(out, &format!("arrc build {}", args.join(" ")));
}

/// Writes `source` as `dir/NAME.arr` and builds it with `flags` (a library
/// or a Python module), and, given one, compiles the C program `main_c`
/// as `dir/main` against the library `libNAME.so`.
pub fn library(dir: &Path, name: &str, source: &str, flags: &[&str], main_c: Option<&str>) {
    let file = format!("{name}.arr");
    std::fs::write(dir.join(&file), source).unwrap();
    let mut args = flags.to_vec();
    args.push(&file);
    build(dir, &args);
    if let Some(c) = main_c {
        std::fs::write(dir.join("main.c"), c).unwrap();
        ok(
            Command::new("cc")
                .current_dir(dir)
                .args(["-std=c11", "-Wall", "-Werror", "-o", "main", "main.c"])
                .arg("-I.")
                .arg("-L.")
                .arg(format!("-l{name}"))
                .arg("-Wl,-rpath,$ORIGIN")
                .output()
                .unwrap(),
            "cc main.c",
        );
    }
}

/// Runs `dir/main` under valgrind (errors and leaks fail it) with `env`;
/// its output.
pub fn valgrind(dir: &Path, env: &[(&str, &str)]) -> String {
    ok(
        Command::new("valgrind")
            .current_dir(dir)
            .args(["-q", "--error-exitcode=9", "--leak-check=full"])
            .args(["--errors-for-leak-kinds=definite,indirect", "./main"])
            .envs(env.iter().copied())
            .output()
            .unwrap(),
        "valgrind ./main",
    )
}

/// Runs `dir/main` with `env`, which must succeed; its output.
pub fn run_main(dir: &Path, env: &[(&str, &str)]) -> String {
    let out = Command::new(dir.join("main"))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    ok(out, "./main")
}

/// Runs `cmd` with `input` on its standard input (written from another
/// thread, so that a large input cannot block on a full output pipe);
/// its status and output, whatever they are.
pub fn feed(cmd: &mut Command, input: &[u8]) -> Output {
    feed_input(cmd, input, false)
}

/// `feed`, where `may_stop_reading` allows the program to exit before it
/// has read all of `input` (a run that fails early): the broken pipe is
/// then no error.
pub fn feed_input(cmd: &mut Command, input: &[u8], may_stop_reading: bool) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || match stdin.write_all(&input) {
        Err(e) if may_stop_reading && e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().expect("write the program's input");
    out
}

/// Runs a compiled program (`cmd`, to which `-b` is added) on `args` in
/// the binary value format; its results, which must come.
pub fn run_values(cmd: &mut Command, args: &[Value]) -> Vec<Value> {
    let mut input = Vec::new();
    for a in args {
        value::write_binary(a, &mut input);
    }
    let out = feed(cmd.arg("-b"), &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    value::read_values_untyped(&out.stdout).unwrap()
}

/// `cmd` on the textual `input`, which must succeed: its output.
pub fn run_ok(cmd: &mut Command, input: &str) -> String {
    let out = feed(cmd, input.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Writes `program` to `dir/name.arr`, builds it at -O3 and checks the
/// executable against the interpreter on each `n` (an `i64` input), on
/// several thread counts.
pub fn built_at_o3_agrees_for_sizes(dir: &Path, name: &str, program: &str, sizes: &[i64]) {
    let src = dir.join(format!("{name}.arr"));
    std::fs::write(&src, program).unwrap();
    let exe = dir.join(name);
    let built = arrc()
        .args(["build", "-O3"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    ok(built, program);
    for n in sizes {
        let input = format!("{n}i64");
        let expected = run_ok(arrc().arg("run").arg(&src), &input);
        agrees_on_threads(&exe, &input, &expected, &format!("{program}: n = {n}"));
    }
}

/// Runs the executable `exe` on `input` with 1, 2, 3 and 5 threads (the
/// last two with tiny grains, so chunks split mid-way) and checks each
/// prints `expected`; `what` names the case in a failure.
pub fn agrees_on_threads(exe: &Path, input: &str, expected: &str, what: &str) {
    for (threads, grain) in [("1", None), ("2", None), ("3", Some("1")), ("5", Some("7"))] {
        let mut cmd = Command::new(exe);
        cmd.env("ARRC_THREADS", threads);
        if let Some(g) = grain {
            cmd.env("ARRC_GRAIN", g);
        }
        assert_eq!(
            run_ok(&mut cmd, input),
            expected,
            "{what}: {threads} threads, grain {grain:?}"
        );
    }
}

/// `cmd` with `stdin` as its standard input; its status and output. A
/// program that stops at a bad option or a missing driver exits before
/// reading its input: the broken pipe that may cause is no failure.
pub fn run_with_stdin(mut cmd: Command, stdin: &[u8]) -> Output {
    feed_input(&mut cmd, stdin, true)
}
