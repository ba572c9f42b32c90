//! Compiles hand-built programs to executables linked with a small test
//! runtime (arguments from argv, one result per line) and checks their
//! output, run-time errors and exit codes.

use super::{link_with_runtime, CodegenOptions, Target};
use crate::core::ir::{Atom, BinOp, Body, Exp, Lambda, SoacKind, Type, UnOp};
use crate::driver::pipeline::{self, Goal, Options, Output};
use crate::fusion::ast::{FusionTree, Item};
use crate::loopy::ir::Program as Loops;
use crate::loopy::tests::*;
use crate::types::{Const, ScalarType};
use std::process::Command;

/// Reads rank-0 arguments as numbers and rank-1 ones as comma-separated
/// lists (empty string: empty array); prints scalars and `[a, b]` arrays.
const TEST_RUNTIME: &str = r#"
#include "arr_runtime.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int arr_num_threads = 0;
int (*arr_error_hook)(const char *message) = NULL;
/* One context for the whole run, holding the scheduler's pool. */
struct arr_ctx { void *backend; };
static arr_ctx the_ctx;
arr_ctx *arr_ctx_current(void) { return &the_ctx; }
void arr_ctx_set_current(arr_ctx *ctx) { (void)ctx; }
int arr_ctx_threads(const arr_ctx *ctx) { (void)ctx; return 0; }
void *arr_ctx_backend(const arr_ctx *ctx) { return ctx->backend; }
void arr_ctx_set_backend(arr_ctx *ctx, void *state, void (*free_state)(void *), void (*reset)(void)) {
    (void)free_state; (void)reset;
    ctx->backend = state;
}
void arr_raise(const char *message) {
    fflush(stdout);
    fputs(message, stderr);
    exit(1);
}
void arr_fail_bounds(int64_t i, int64_t n, const char *loc) {
    fprintf(stderr, "Error: index %" PRId64 " out of bounds for array of length %" PRId64 " at %s\n", i, n, loc);
    exit(1);
}
void arr_fail_size_mismatch(int64_t e, int64_t f, const char *loc) {
    fprintf(stderr, "Error: size mismatch (%" PRId64 " vs %" PRId64 ") at %s\n", e, f, loc);
    exit(1);
}
void arr_fail_division_by_zero(const char *loc) {
    fprintf(stderr, "Error: division by zero at %s\n", loc);
    exit(1);
}
void arr_fail_negative_exponent(const char *loc) {
    fprintf(stderr, "Error: negative exponent at %s\n", loc);
    exit(1);
}
void arr_fail_negative_size(int64_t n, const char *loc) {
    fprintf(stderr, "Error: negative size %" PRId64 " at %s\n", n, loc);
    exit(1);
}
void arr_fail_assert(const char *loc) {
    fprintf(stderr, "Error: assertion failed at %s\n", loc);
    exit(1);
}
void arr_fail_assert_condition(const char *cond, const char *loc) {
    fprintf(stderr, "Error: assertion failed at %s: Assertion is false: %s\n", loc, cond);
    exit(1);
}
void arr_fail_range(int64_t s, int64_t sec, int64_t e, int64_t form, const char *loc) {
    fprintf(stderr, "Error: Range %" PRId64 " %" PRId64 " %" PRId64 " (form %" PRId64 ") is invalid at %s\n", s, sec, e, form, loc);
    exit(1);
}
void arr_fail_slice(int64_t s, int64_t e, int64_t st, int64_t n, const char *loc) {
    fprintf(stderr, "Error: index %" PRId64 ":%" PRId64 ":%" PRId64 " out of bounds for array of length %" PRId64 " at %s\n", s, e, st, n, loc);
    exit(1);
}
void *arr_alloc(int64_t bytes) {
    void *p = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!p) exit(1);
    return p;
}
void arr_free(void *p) { free(p); }

static const int sizes[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 1};

static void parse(arr_prim p, const char *s, void *dst) {
    switch (p) {
    case ARR_I8: *(int8_t *)dst = (int8_t)strtoll(s, NULL, 0); break;
    case ARR_I16: *(int16_t *)dst = (int16_t)strtoll(s, NULL, 0); break;
    case ARR_I32: *(int32_t *)dst = (int32_t)strtoll(s, NULL, 0); break;
    case ARR_I64: *(int64_t *)dst = (int64_t)strtoll(s, NULL, 0); break;
    case ARR_U8: *(uint8_t *)dst = (uint8_t)strtoull(s, NULL, 0); break;
    case ARR_U16: *(uint16_t *)dst = (uint16_t)strtoull(s, NULL, 0); break;
    case ARR_U32: *(uint32_t *)dst = (uint32_t)strtoull(s, NULL, 0); break;
    case ARR_U64: *(uint64_t *)dst = (uint64_t)strtoull(s, NULL, 0); break;
    case ARR_F32: *(float *)dst = strtof(s, NULL); break;
    case ARR_F64: *(double *)dst = strtod(s, NULL); break;
    case ARR_BOOL: *(uint8_t *)dst = strcmp(s, "true") == 0; break;
    }
}

static void show(arr_prim p, const void *src) {
    switch (p) {
    case ARR_I8: printf("%di8", *(const int8_t *)src); break;
    case ARR_I16: printf("%di16", *(const int16_t *)src); break;
    case ARR_I32: printf("%" PRId32 "i32", *(const int32_t *)src); break;
    case ARR_I64: printf("%" PRId64 "i64", *(const int64_t *)src); break;
    case ARR_U8: printf("%uu8", *(const uint8_t *)src); break;
    case ARR_U16: printf("%uu16", *(const uint16_t *)src); break;
    case ARR_U32: printf("%" PRIu32 "u32", *(const uint32_t *)src); break;
    case ARR_U64: printf("%" PRIu64 "u64", *(const uint64_t *)src); break;
    case ARR_F32: printf("%gf32", *(const float *)src); break;
    case ARR_F64: printf("%gf64", *(const double *)src); break;
    case ARR_BOOL: printf("%s", *(const uint8_t *)src ? "true" : "false"); break;
    }
}

int main(int argc, char **argv) {
    const arr_entry *e = &arr_entries[0];
    arr_value args[16], res[16];
    memset(args, 0, sizeof args);
    memset(res, 0, sizeof res);
    if (argc != e->num_params + 1) return 2;
    for (int i = 0; i < e->num_params; i++) {
        arr_type t = e->params[i];
        args[i].type = t;
        if (t.rank == 0) {
            parse(t.prim, argv[i + 1], &args[i].scalar);
            continue;
        }
        char *s = argv[i + 1];
        int64_t n = 0;
        if (*s) {
            n = 1;
            for (char *c = s; *c; c++) n += *c == ',';
        }
        char *data = arr_alloc(n * sizes[t.prim]);
        char *tok = strtok(s, ",");
        for (int64_t k = 0; k < n && tok; k++, tok = strtok(NULL, ","))
            parse(t.prim, tok, data + k * sizes[t.prim]);
        args[i].data = data;
        args[i].shape[0] = n;
    }
    e->run(args, res);
    for (int j = 0; j < e->num_results; j++) {
        arr_type t = res[j].type;
        if (t.rank == 0) {
            show(t.prim, &res[j].scalar);
        } else {
            printf("[");
            for (int64_t k = 0; k < res[j].shape[0]; k++) {
                if (k) printf(", ");
                show(t.prim, (const char *)res[j].data + k * sizes[t.prim]);
            }
            printf("]");
            arr_free(res[j].data);
        }
        printf("\n");
    }
    return 0;
}
"#;

struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

/// The back end of the pass list on `l` with `opts`, up to `goal`.
fn back_end(l: &Loops, opts: CodegenOptions, goal: Goal) -> Result<Output, String> {
    let options = Options {
        codegen: opts,
        ..Options::default()
    };
    pipeline::emit_loop_nests(l, &options, goal).map_err(|e| e.render())
}

fn llvm_text(l: &Loops, opts: CodegenOptions) -> String {
    match back_end(l, opts, Goal::Llvm) {
        Ok(Output::Text(text)) => text,
        Ok(_) => String::new(),
        Err(e) => e,
    }
}

/// Lowers, lints, compiles at `-O<level>`, links and runs with `args`.
fn run_at(p: &crate::fusion::ast::FusedProgram, level: u8, args: &[&str]) -> Run {
    let l = lowered(p);
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = dir.path().join("prog");
    let opts = CodegenOptions {
        opt_level: level,
        target: Target::X86_64,
        count_traffic: false,
        cpu: super::Cpu::Native,
        fast_math: false,
        gpu_arch: 70,
        strict_fp: false,
        exact_fallback: false,
        sanitize: None,
    };
    let runtime = super::RuntimeFiles {
        headers: crate::runtime::HEADERS,
        sources: &[
            ("test_runtime.c", TEST_RUNTIME),
            ("arr_parallel.c", crate::runtime::PARALLEL_C),
        ],
    };
    let object = match back_end(&l, opts, Goal::Object) {
        Ok(Output::Object(object)) => object,
        _ => panic!("no object file\n{}", llvm_text(&l, opts)),
    };
    if let Err(e) = link_with_runtime(
        &l,
        &opts,
        super::Objects {
            program: std::slice::from_ref(&object),
            exact_fallback: None,
        },
        &exe,
        runtime,
    ) {
        panic!("{e}\n{}", llvm_text(&l, opts));
    }
    let out = Command::new(&exe).args(args).output().expect("run");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

/// Runs at `-O0` and `-O2`; both must agree.
fn run(p: &crate::fusion::ast::FusedProgram, args: &[&str]) -> Run {
    let r0 = run_at(p, 0, args);
    let r2 = run_at(p, 2, args);
    assert_eq!(r0.stdout, r2.stdout, "-O0 and -O2 disagree");
    assert_eq!(r0.code, r2.code);
    r2
}

fn ok(p: &crate::fusion::ast::FusedProgram, args: &[&str]) -> String {
    let r = run(p, args);
    assert_eq!(r.code, Some(0), "stderr: {}", r.stderr);
    r.stdout
}

/// Builds `p` with the real runtime and runs it with `stdin`.
fn run_real(p: &crate::fusion::ast::FusedProgram, stdin: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = dir.path().join("prog");
    pipeline::link_loop_nests(&lowered(p), &Options::default(), &exe)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    let mut child = Command::new(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run");
    if let Some(mut input) = child.stdin.take() {
        use std::io::Write;
        input.write_all(stdin.as_bytes()).expect("stdin");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Compiles Arr source (front end, fusion with `strategy`, loop nests,
/// codegen with the real runtime) into `dir`; returns the executable.
fn build_source(
    src: &str,
    strategy: crate::fusion::ast::Strategy,
    dir: &std::path::Path,
) -> std::path::PathBuf {
    let path = dir.join("prog.arr");
    std::fs::write(&path, src).expect("write source");
    let core = crate::driver::pipeline::lowered(&path)
        .unwrap_or_else(|e| panic!("front end: {}", e.render()));
    let options = crate::fusion::FusionOptions::new(strategy);
    let fused = crate::fusion::fuse(&core, &options).program;
    let loops = lowered(&fused);
    let exe = dir.join(format!("prog_{}", strategy.name()));
    pipeline::link_loop_nests(&loops, &Options::default(), &exe)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    exe
}

/// Runs `exe -e entry` on `stdin` under a shell command prefix.
fn run_exe(
    prefix: &str,
    exe: &std::path::Path,
    entry: &str,
    stdin: &str,
) -> (String, String, Option<i32>) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{prefix} exec \"$0\" -e \"$1\"",))
        .arg(exe)
        .arg(entry)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run");
    if let Some(mut input) = child.stdin.take() {
        use std::io::Write;
        input.write_all(stdin.as_bytes()).expect("stdin");
    }
    let out = child.wait_with_output().expect("wait");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// Runs entry `entry` of Arr source on `stdin`, compiled with every fusion
/// strategy (which must agree): (stdout, stderr, exit code).
fn run_source(src: &str, entry: &str, stdin: &str) -> (String, String, Option<i32>) {
    use crate::fusion::ast::Strategy;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut outcome: Option<(String, String, Option<i32>)> = None;
    for strategy in [Strategy::None, Strategy::Greedy, Strategy::Ilp] {
        let exe = build_source(src, strategy, dir.path());
        let got = run_exe("", &exe, entry, stdin);
        if let Some(prev) = &outcome {
            assert_eq!(prev, &got, "fusion {} disagrees", strategy.name());
        }
        outcome = Some(got);
    }
    outcome.unwrap_or_default()
}

fn source_ok(src: &str, entry: &str, stdin: &str) -> String {
    let (out, err, code) = run_source(src, entry, stdin);
    assert_eq!(code, Some(0), "stderr: {err}");
    out
}

mod hand_built;
mod source;
