//! The Rust value format, and the C runtime against it: a hand-written glue
//! file is compiled with `cc` together with the runtime, and its outputs and
//! messages must be identical to `value`'s.

use super::value::*;
use super::{CPU_SOURCES, HEADERS};
use crate::core::ir::Type;
use crate::types::half::F16;
use crate::types::{Const, ScalarType};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn a(t: ScalarType, r: usize) -> Type {
    Type::Array(t, r)
}

fn s(t: ScalarType) -> Type {
    Type::Scalar(t)
}

fn text(input: &str, types: &[Type]) -> Vec<String> {
    read_values(input.as_bytes(), types)
        .unwrap_or_else(|e| panic!("{input}: {e}"))
        .iter()
        .map(write_text)
        .collect()
}

fn err(input: &[u8], types: &[Type]) -> String {
    read_values(input, types).unwrap_err().to_string()
}

#[test]
fn reads_text_values() {
    use ScalarType::*;
    assert_eq!(text("1i32", &[s(I32)]), ["1i32"]);
    assert_eq!(text(" -2.5f32 ", &[s(F32)]), ["-2.5f32"]);
    assert_eq!(text("true false", &[s(Bool), s(Bool)]), ["true", "false"]);
    assert_eq!(text("[1, 2, 3]", &[a(I64, 1)]), ["[1i64, 2i64, 3i64]"]);
    assert_eq!(
        text("[[1.0, 2.0], [3.0, 4.0]]", &[a(F64, 2)]),
        ["[[1.0f64, 2.0f64], [3.0f64, 4.0f64]]"]
    );
    assert_eq!(text("empty([0]i32)", &[a(I32, 1)]), ["empty([0]i32)"]);
    assert_eq!(
        text("empty([2][0]bool)", &[a(Bool, 2)]),
        ["empty([2][0]bool)"]
    );
    assert_eq!(text("[]", &[a(U8, 1)]), ["empty([0]u8)"]);
    assert_eq!(text("[[], []]", &[a(U8, 2)]), ["empty([2][0]u8)"]);
    assert_eq!(
        text("f32.inf -f64.inf f32.nan", &[s(F32), s(F64), s(F32)]),
        ["f32.inf", "-f64.inf", "f32.nan"]
    );
    assert_eq!(
        text(
            "0x2A 0b101 1_000_000 -128i8 255u8",
            &[s(I32), s(I64), s(I32), s(I8), s(U8)]
        ),
        ["42i32", "5i64", "1000000i32", "-128i8", "255u8"]
    );
    assert_eq!(
        text("1e3 2.5E-1 7 -0.0", &[s(F64), s(F32), s(F32), s(F64)]),
        ["1000.0f64", "0.25f32", "7.0f32", "-0.0f64"]
    );
    assert_eq!(
        text(
            "-- a comment\n[1, -- inside\n 2]\n\t-- trailing\n",
            &[a(I16, 1)]
        ),
        ["[1i16, 2i16]"]
    );
    assert_eq!(
        text(
            "18446744073709551615 -9223372036854775808",
            &[s(U64), s(I64)]
        ),
        ["18446744073709551615u64", "-9223372036854775808i64"]
    );
    assert_eq!(
        text("[empty([0]i32), empty([0]i32)]", &[a(I32, 2)]),
        ["empty([2][0]i32)"]
    );
}

#[test]
fn reports_bad_text_input() {
    use ScalarType::*;
    assert_eq!(
        err(b"1.5", &[s(I32)]),
        "argument 1: expected i32, found '1.5' at line 1, column 1"
    );
    assert_eq!(
        err(b"1 2i64", &[s(I32), s(I32)]),
        "argument 2: expected i32, found '2i64' at line 1, column 3"
    );
    assert_eq!(
        err(b"300", &[s(U8)]),
        "argument 1: '300' is out of range for u8 at line 1, column 1"
    );
    assert_eq!(
        err(b"-1", &[s(U32)]),
        "argument 1: '-1' is out of range for u32 at line 1, column 1"
    );
    assert_eq!(
        err(b"[1, 2]\n[[1], [2, 3]]", &[a(I32, 1), a(I32, 2)]),
        "argument 2: irregular array: 2 elements where 1 were expected at line 2, column 7"
    );
    assert_eq!(
        err(b"[1, 2]", &[a(I32, 2)]),
        "argument 1: expected []i32, found '1' at line 1, column 2"
    );
    assert_eq!(
        err(b"[[1, 2]]", &[a(I32, 1)]),
        "argument 1: expected i32, found '[' at line 1, column 2"
    );
    assert_eq!(
        err(b"1", &[s(I32), a(F32, 1)]),
        "argument 2: missing argument of type []f32 at line 1, column 2"
    );
    assert_eq!(
        err(b"1 2", &[s(I32)]),
        "argument 2: expected end of input, found '2' at line 1, column 3"
    );
    assert_eq!(
        err(b"[1, 2", &[a(I32, 1)]),
        "argument 1: expected ',' or ']', found end of input at line 1, column 6"
    );
    assert_eq!(
        err(b"empty([2]i32)", &[a(I32, 1)]),
        "argument 1: empty array of type [2]i32 has elements at line 1, column 1"
    );
    assert_eq!(
        err(b"empty([0]f32)", &[a(I32, 1)]),
        "argument 1: expected []i32, found empty array of type [0]f32 at line 1, column 1"
    );
    assert_eq!(
        err(b"1f32", &[s(F64)]),
        "argument 1: expected f64, found '1f32' at line 1, column 1"
    );
    assert_eq!(
        err(b"f32.inf", &[s(F64)]),
        "argument 1: expected f64, found 'f32.inf' at line 1, column 1"
    );
    assert_eq!(
        err(b"tru", &[s(Bool)]),
        "argument 1: expected bool, found 'tru' at line 1, column 1"
    );
    assert_eq!(
        err(b"\xff", &[s(Bool)]),
        "argument 1: expected bool, found byte 0xff at line 1, column 1"
    );
    assert!(err(b"", &[s(I8)]).starts_with("argument 1: missing argument of type i8"));
}

#[test]
fn reads_and_writes_binary() {
    let vals = vec![
        Value::Scalar(Const::I32(-7)),
        Value::Array(
            ArrayValue::new(vec![2, 2], ArrayData::F32(vec![1.0, 2.5, -0.0, 1e-7])).unwrap(),
        ),
        Value::Array(ArrayValue::new(vec![3], ArrayData::Bool(vec![true, false, true])).unwrap()),
        Value::Array(ArrayValue::new(vec![0, 3], ArrayData::U16(vec![])).unwrap()),
    ];
    let types: Vec<Type> = vals.iter().map(Value::ty).collect();
    let mut bytes = Vec::new();
    for v in &vals {
        write_binary(v, &mut bytes);
    }
    assert_eq!(&bytes[..7], b"b\x02\x00 i32");
    assert_eq!(read_values(&bytes, &types).unwrap(), vals);
    // Mixed with text, argument by argument.
    let mut mixed = b"-7 ".to_vec();
    write_binary(&vals[1], &mut mixed);
    mixed.extend_from_slice(b" [true, false, true] -- done\n");
    write_binary(&vals[3], &mut mixed);
    assert_eq!(read_values(&mixed, &types).unwrap(), vals);
    // Errors.
    assert_eq!(
        err(&bytes, &[s(ScalarType::I64)]),
        "argument 1: expected i64, found binary value of type i32 at line 1, column 1"
    );
    assert_eq!(
        err(&bytes[..20], &types[..2]),
        "argument 2: unexpected end of input in binary value at line 1, column 12"
    );
    assert_eq!(
        err(b"b\x01\x00 i32", &types[..1]),
        "argument 1: unsupported binary format version 1 at line 1, column 1"
    );
    assert_eq!(
        err(b"b\x02\x00 i33\x00\x00\x00\x00", &types[..1]),
        "argument 1: unknown element type ' i33' in binary value at line 1, column 1"
    );
}

#[test]
fn writes_floats_in_shortest_form() {
    let f64s = [
        (1.0, "1.0"),
        (0.1, "0.1"),
        (-2.5, "-2.5"),
        (100.0, "100.0"),
        (1e16, "10000000000000000.0"),
        (1e17, "1.0e17"),
        (1.5e-7, "1.5e-7"),
        (0.0001, "0.0001"),
        (0.00001, "0.00001"),
        (0.000001, "1.0e-6"),
        (123456.789, "123456.789"),
        (f64::MAX, "1.7976931348623157e308"),
        (5e-324, "5.0e-324"),
        (0.30000000000000004, "0.30000000000000004"),
        (-0.1, "-0.1"),
        (-1.0e-300, "-1.0e-300"),
        (-123456.789, "-123456.789"),
    ];
    for (v, want) in f64s {
        assert_eq!(format_float(v, false), want);
        assert_eq!(want.parse::<f64>().unwrap(), v);
    }
    assert_eq!(format_float(0.1f32 as f64, true), "0.1");
    assert_eq!(format_float(16777216.0, true), "16777216.0");
    assert_eq!(format_float(f32::MAX as f64, true), "3.4028235e38");
    assert_eq!(format_float(1e-7f32 as f64, true), "1.0e-7");
    assert_eq!(format_float(-2.5e-7f32 as f64, true), "-2.5e-7");
    assert_eq!(format_float(-0.1f32 as f64, true), "-0.1");
}

#[test]
fn untyped_values() {
    let vs =
        read_values_untyped(b"1 2.5 [1, 2] [1.0, 2] [1u8] empty([0][2]f32) true -3i64 [[1e3]]")
            .unwrap();
    let got: Vec<String> = vs.iter().map(write_text).collect();
    assert_eq!(
        got,
        [
            "1i32",
            "2.5f64",
            "[1i32, 2i32]",
            "[1.0f64, 2.0f64]",
            "[1u8]",
            "empty([0][2]f32)",
            "true",
            "-3i64",
            "[[1000.0f64]]"
        ]
    );
    // Unsuffixed expectations match other numeric types.
    let exp = read_values_untyped(b"[1, 2] 2.5").unwrap();
    let act = read_values(b"[1, 2] 2.5", &[a(ScalarType::I64, 1), s(ScalarType::F32)]).unwrap();
    assert_eq!(compare(&act[0], &exp[0]), Ok(()));
    assert_eq!(compare(&act[1], &exp[1]), Ok(()));
}

#[test]
fn compare_follows_the_tolerance_rule() {
    let f = |t: &str| {
        read_values(t.as_bytes(), &[a(ScalarType::F32, 1)])
            .unwrap()
            .remove(0)
    };
    assert_eq!(compare(&f("[1.0, 1000.0]"), &f("[1.5, 1000.0]")), Ok(()));
    assert!(compare(&f("[1.0, 10.0]"), &f("[1.5, 10.0]")).is_err());
    assert_eq!(compare(&f("[f32.nan]"), &f("[f32.nan]")), Ok(()));
    assert!(compare(&f("[1.0]"), &f("[f32.nan]")).is_err());
    assert_eq!(compare(&f("[f32.inf, 1]"), &f("[f32.inf, 1]")), Ok(()));
    assert!(compare(&f("[-f32.inf]"), &f("[f32.inf]")).is_err());
    assert_eq!(
        compare(&f("[1, 2]"), &f("[1, 2, 3]")),
        Err("got an array of shape [2] where [3] was expected".to_string())
    );
    let i = |t: &str| {
        read_values(t.as_bytes(), &[a(ScalarType::I32, 2)])
            .unwrap()
            .remove(0)
    };
    assert_eq!(
        compare(&i("[[1, 2], [3, 4]]"), &i("[[1, 2], [3, 5]]")),
        Err("at index [1][1]: got 4i32 where 5i32 was expected".to_string())
    );
    assert!(compare(&i("[[1]]"), &f("[1]")).is_err());
}

// ------------------------------------------------------------- C runtime

const GLUE: &str = r#"
#include "arr_runtime.h"
#include <string.h>

static void copy_value(const arr_value *in, arr_value *out, int size) {
    int64_t n = 1;
    *out = *in;
    if (in->type.rank == 0) return;
    for (int i = 0; i < in->type.rank; i++) n *= in->shape[i];
    out->data = arr_alloc(n * size);
    memcpy(out->data, in->data, (size_t)(n * size));
}

#define ECHO(name, prim, rank, size)                                        \
    static void run_##name(const arr_value *args, arr_value *results) {     \
        copy_value(&args[0], &results[0], size);                            \
    }                                                                       \
    static const arr_type ty_##name[] = {{prim, rank}};

ECHO(echo_i8, ARR_I8, 1, 1)
ECHO(echo_i16, ARR_I16, 1, 2)
ECHO(echo_i32, ARR_I32, 1, 4)
ECHO(echo_i64, ARR_I64, 1, 8)
ECHO(echo_u8, ARR_U8, 1, 1)
ECHO(echo_u16, ARR_U16, 1, 2)
ECHO(echo_u32, ARR_U32, 1, 4)
ECHO(echo_u64, ARR_U64, 1, 8)
ECHO(echo_f32, ARR_F32, 1, 4)
ECHO(echo_f64, ARR_F64, 1, 8)
ECHO(echo_bool, ARR_BOOL, 1, 1)
ECHO(echo_f32_2, ARR_F32, 2, 4)
ECHO(echo_bool_3, ARR_BOOL, 3, 1)
ECHO(echo_u16_5, ARR_U16, 5, 2)
ECHO(echo_f64_8, ARR_F64, 8, 8)
ECHO(echo_i32_0, ARR_I32, 0, 4)
ECHO(echo_f64_0, ARR_F64, 0, 8)
ECHO(echo_f16, ARR_F16, 1, 2)

static void run_sum(const arr_value *args, arr_value *results) {
    uint32_t s = 0;
    const int32_t *xs = args[0].data;
    for (int64_t i = 0; i < args[0].shape[0]; i++) s += (uint32_t)xs[i];
    results[0].type = (arr_type){ARR_I32, 0};
    results[0].scalar.i32 = (int32_t)s;
}
static const arr_type sum_params[] = {{ARR_I32, 1}};
static const arr_type sum_results[] = {{ARR_I32, 0}};

/* (xs: []f64) (b: bool) : ([]f64, bool) = (map (*2) xs, !b) */
static void run_pair(const arr_value *args, arr_value *results) {
    int64_t n = args[0].shape[0];
    double *out = arr_alloc(n * 8);
    for (int64_t i = 0; i < n; i++) out[i] = ((const double *)args[0].data)[i] * 2;
    results[0].type = (arr_type){ARR_F64, 1};
    results[0].shape[0] = n;
    results[0].data = out;
    results[1].type = (arr_type){ARR_BOOL, 0};
    results[1].scalar.b = !args[1].scalar.b;
}
static const arr_type pair_params[] = {{ARR_F64, 1}, {ARR_BOOL, 0}};
static const arr_type pair_results[] = {{ARR_F64, 1}, {ARR_BOOL, 0}};

/* [n] (xs: [n]f32) (m: [][n]f32) : f32 = xs[0] + m[0][0] */
static void run_sized(const arr_value *args, arr_value *results) {
    results[0].type = (arr_type){ARR_F32, 0};
    results[0].scalar.f32 = ((const float *)args[0].data)[0] + ((const float *)args[1].data)[0];
}
static const arr_type sized_params[] = {{ARR_F32, 1}, {ARR_F32, 2}};
static const arr_type sized_results[] = {{ARR_F32, 0}};
static const arr_size_constraint sized_constraints[] = {{0, 0, 1, 1, -1}};

/* (xs: []i32) (i: i64) : i32 = xs[i] */
static void run_index(const arr_value *args, arr_value *results) {
    int64_t i = args[1].scalar.i64;
    if (i < 0 || i >= args[0].shape[0]) arr_fail_bounds(i, args[0].shape[0], "prog.arr:12:7");
    results[0].type = (arr_type){ARR_I32, 0};
    results[0].scalar.i32 = ((const int32_t *)args[0].data)[i];
}
static const arr_type index_params[] = {{ARR_I32, 1}, {ARR_I64, 0}};

/* Returns its argument's array itself: the runtime must not free it twice. */
static void run_alias(const arr_value *args, arr_value *results) {
    results[0] = args[0];
    results[1] = args[0];
}
static const arr_type alias_results[] = {{ARR_I32, 1}, {ARR_I32, 1}};

#define E(name) {#name, 1, ty_##name, 1, ty_##name, 0, NULL, run_##name, NULL, NULL}
const arr_entry arr_entries[] = {
    {"main", 1, sum_params, 1, sum_results, 0, NULL, run_sum, NULL, NULL},
    {"pair", 2, pair_params, 2, pair_results, 0, NULL, run_pair, NULL, NULL},
    {"sized", 2, sized_params, 1, sized_results, 1, sized_constraints, run_sized, NULL, NULL},
    {"index", 2, index_params, 1, sum_results, 0, NULL, run_index, NULL, NULL},
    {"alias", 1, sum_params, 2, alias_results, 0, NULL, run_alias, NULL, NULL},
    E(echo_i8), E(echo_i16), E(echo_i32), E(echo_i64), E(echo_u8), E(echo_u16),
    E(echo_u32), E(echo_u64), E(echo_f32), E(echo_f64), E(echo_bool),
    E(echo_f32_2), E(echo_bool_3), E(echo_u16_5), E(echo_f64_8), E(echo_i32_0), E(echo_f64_0),
    E(echo_f16),
};
const int arr_num_entries = sizeof arr_entries / sizeof arr_entries[0];
"#;

/// The test binary, built once per test run.
fn binary() -> &'static PathBuf {
    static BIN: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &BIN.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path();
        for (name, text) in HEADERS.iter().chain(CPU_SOURCES) {
            std::fs::write(p.join(name), text).unwrap();
        }
        std::fs::write(p.join("glue.c"), GLUE).unwrap();
        let exe = p.join("prog");
        let out = Command::new("cc")
            .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(p)
            .args(CPU_SOURCES.iter().map(|(name, _)| p.join(name)))
            .arg(p.join("glue.c"))
            .arg("-o")
            .arg(&exe)
            .args(["-lm", "-lpthread"])
            .output()
            .expect("cc");
        assert!(
            out.status.success(),
            "cc failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        (dir, exe)
    })
    .1
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

fn run(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(binary())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // The program may exit before reading everything (an early error).
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn stdout(r: &Run) -> String {
    String::from_utf8_lossy(&r.stdout).into_owned()
}

/// Each translation unit compiles on its own, without a warning.
#[test]
fn c_runtime_compiles_warning_free() {
    let dir = tempfile::tempdir().unwrap();
    let sources = || CPU_SOURCES.iter().chain(super::CPU_LIBRARY_SOURCES);
    for (name, text) in HEADERS.iter().chain(sources()) {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    for (name, _) in sources() {
        let out = Command::new("cc")
            .args(["-O2", "-Wall", "-Wextra", "-Werror", "-c"])
            .arg(dir.path().join(name))
            .arg("-o")
            .arg(dir.path().join("rt.o"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn c_runs_entries() {
    let r = run(&[], b"[1, 2, 3]");
    assert_eq!(
        (r.code, stdout(&r).as_str(), r.stderr.as_str()),
        (0, "6i32\n", "")
    );
    let r = run(&["-e", "pair"], b"[1.5, -0.25] true");
    assert_eq!(stdout(&r), "[3.0f64, -0.5f64]\nfalse\n");
    let r = run(&["-e", "pair", "-n"], b"[1.5] true");
    assert_eq!((r.code, stdout(&r).as_str()), (0, ""));
    let r = run(&["-e", "alias"], b"[1, 2]");
    assert_eq!(
        (r.code, stdout(&r).as_str()),
        (0, "[1i32, 2i32]\n[1i32, 2i32]\n")
    );
    let r = run(&["-e", "alias", "-r", "3"], b"[1, 2]");
    assert_eq!(r.code, 0);
    let r = run(&["--threads", "4", "-e", "echo_f32_2"], b"empty([0][3]f32)");
    assert_eq!(stdout(&r), "empty([0][3]f32)\n");
    let r = run(&["--help"], b"");
    assert_eq!(r.code, 0);
    assert!(stdout(&r).contains("--entry-point NAME"));
}

#[test]
fn c_binary_output_reads_back() {
    let r = run(&["-e", "pair", "-b"], b"[1.5, 2] false");
    assert_eq!(r.code, 0);
    let vals = read_values(&r.stdout, &[a(ScalarType::F64, 1), s(ScalarType::Bool)]).unwrap();
    assert_eq!(
        vals.iter().map(write_text).collect::<Vec<_>>(),
        ["[3.0f64, 4.0f64]", "true"]
    );
    // Binary input, and binary mixed with text.
    let mut input = Vec::new();
    write_binary(
        &read_values(b"[1.0, 2.0]", &[a(ScalarType::F64, 1)]).unwrap()[0],
        &mut input,
    );
    input.extend_from_slice(b" true");
    let r = run(&["-e", "pair"], &input);
    assert_eq!(stdout(&r), "[2.0f64, 4.0f64]\nfalse\n");
}

/// `-b` prints exactly `write_binary`'s bytes, for every element type and
/// rank, empty arrays included.
#[test]
fn c_and_rust_agree_on_binary_output() {
    use ScalarType::*;
    let cases: Vec<(&str, Type, &str)> = vec![
        ("echo_i8", a(I8, 1), "[-128, 127]"),
        ("echo_i16", a(I16, 1), "[-32768, 1]"),
        ("echo_i32", a(I32, 1), "empty([0]i32)"),
        ("echo_i64", a(I64, 1), "[-9223372036854775808]"),
        ("echo_u8", a(U8, 1), "[255, 0]"),
        ("echo_u16", a(U16, 1), "[65535]"),
        ("echo_u32", a(U32, 1), "[4294967295, 7]"),
        ("echo_u64", a(U64, 1), "[18446744073709551615]"),
        ("echo_f32", a(F32, 1), "[f32.nan, -0.0, 1e-45, -f32.inf]"),
        ("echo_f64", a(F64, 1), "[f64.nan, -0.0, 5e-324, f64.inf]"),
        ("echo_bool", a(Bool, 1), "[true, false, true]"),
        ("echo_f32_2", a(F32, 2), "[[1, 2, 3], [4, 5, 6]]"),
        ("echo_f32_2", a(F32, 2), "empty([3][0]f32)"),
        ("echo_bool_3", a(Bool, 3), "empty([2][0][5]bool)"),
        ("echo_bool_3", a(Bool, 3), "[[[true], [false]]]"),
        ("echo_u16_5", a(U16, 5), "[[[[[1, 2]]], [[[3, 65535]]]]]"),
        (
            "echo_f64_8",
            a(F64, 8),
            "empty([2][1][0][1][1][1][1][3]f64)",
        ),
        ("echo_i32_0", s(I32), "-5"),
        ("echo_f64_0", s(F64), "f64.nan"),
    ];
    for (entry, ty, input) in cases {
        let r = run(&["-e", entry, "-b"], input.as_bytes());
        let v = read_values(input.as_bytes(), &[ty]).unwrap();
        let mut want = Vec::new();
        write_binary(&v[0], &mut want);
        // Each value ends with a newline, as Futhark's programs write it.
        want.push(b'\n');
        assert_eq!(
            (r.code, &r.stdout),
            (0, &want),
            "{entry} {input}: {}",
            r.stderr
        );
        // And it reads back as the same value.
        let back = read_values(&r.stdout, &[ty]).unwrap();
        assert_eq!(write_text(&back[0]), write_text(&v[0]));
    }
}

#[test]
fn c_timing_options() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let ts = t.to_str().unwrap();
    let r = run(&["-t", ts], b"[1]");
    assert_eq!(r.code, 0);
    let lines = std::fs::read_to_string(&t).unwrap();
    assert_eq!(lines.lines().count(), 1);
    assert!(lines.trim().parse::<u64>().is_ok());
    let r = run(&["-t", ts, "-r", "5"], b"[1]");
    assert_eq!(stdout(&r), "1i32\n");
    assert_eq!(std::fs::read_to_string(&t).unwrap().lines().count(), 5);
    for bad in [
        &["-r", "0"][..],
        &["-r", "x"],
        &["--threads", "0"],
        &["-q"],
        &["-e"],
    ] {
        let r = run(bad, b"[1]");
        assert_eq!(r.code, 2, "{bad:?}");
        assert!(r.stderr.starts_with("Error: "), "{bad:?}: {}", r.stderr);
    }
}

#[test]
fn c_errors() {
    let r = run(&["-e", "nope"], b"");
    assert_eq!(r.code, 2);
    assert!(r.stderr.starts_with("Error: unknown entry point 'nope'"));
    let r = run(&["-e", "index"], b"[1, 2, 3, 4, 5] 10");
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "Error: index 10 out of bounds for array of length 5 at prog.arr:12:7\n"
    );
    let r = run(&["-e", "sized"], b"[1, 2] [[1, 2], [3, 4]]");
    assert_eq!((r.code, stdout(&r).as_str()), (0, "2.0f32\n"));
    let r = run(&["-e", "sized"], b"[1, 2] [[1, 2, 3]]");
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "Error: argument 2: size mismatch: dimension 2 is 3, but dimension 1 of argument 1 is 2\n"
    );
}

/// Every input is read by the C runtime (through an echo entry point of the
/// given type) and by `read_values`: outputs, or error messages, must agree.
#[test]
fn c_and_rust_agree_on_text() {
    use ScalarType::*;
    let cases: Vec<(&str, Type, &str)> = vec![
        ("echo_i8", a(I8, 1), "[1, -128, 127, 0x7f, 0b1]"),
        ("echo_i8", a(I8, 1), "[128]"),
        ("echo_i16", a(I16, 1), "[1_000i16, -32768]"),
        ("echo_i32", a(I32, 1), "[2147483647, -2147483648, 0x7FFF_FFFF]"),
        ("echo_i32", a(I32, 1), "[2147483648]"),
        ("echo_i32", a(I32, 1), "[1, 2.0]"),
        ("echo_i32", a(I32, 1), "[1, 2"),
        ("echo_i32", a(I32, 1), "[1,, 2]"),
        ("echo_i32", a(I32, 1), "[1i64]"),
        ("echo_i32", a(I32, 1), "empty([0]i64)"),
        ("echo_i32", a(I32, 1), "empty([1]i32)"),
        ("echo_i32", a(I32, 1), "empty(0)"),
        ("echo_i32", a(I32, 1), "empty([x]i32)"),
        ("echo_i32", a(I32, 1), "[1] [2]"),
        ("echo_i32", a(I32, 1), "-- only a comment"),
        ("echo_i32", a(I32, 1), "[1]\n  -- c\n\n  junk"),
        ("echo_i64", a(I64, 1), "[9223372036854775807, -9223372036854775808]"),
        ("echo_i64", a(I64, 1), "[99999999999999999999]"),
        ("echo_u8", a(U8, 1), "[255, 0, 0xFF]"),
        ("echo_u8", a(U8, 1), "[256]"),
        ("echo_u8", a(U8, 1), "[-1]"),
        ("echo_u16", a(U16, 1), "[65535u16]"),
        ("echo_u32", a(U32, 1), "[4294967295]"),
        ("echo_u64", a(U64, 1), "[18446744073709551615, 0x_ff]"),
        ("echo_u64", a(U64, 1), "[18446744073709551616]"),
        (
            "echo_f32",
            a(F32, 1),
            "[0.1, 1e-7, 3.4028235e38, 1.17549435e-38, 1e-45, 16777217, 0.3, 2.5e10f32, -0.0, f32.inf, -f32.inf, f32.nan, 123456789, 1_0.5]",
        ),
        ("echo_f32", a(F32, 1), "[1e39, 1e-50, 0.1f64]"),
        ("echo_f32", a(F32, 1), "[1.]"),
        ("echo_f32", a(F32, 1), "[0x10]"),
        (
            "echo_f64",
            a(F64, 1),
            "[0.1, 0.30000000000000004, 1e-300, 5e-324, 1.7976931348623157e308, 1e16, 1e17, 123456.789, 2.2250738585072014e-308, 1e23, 9007199254740993, 1E+5]",
        ),
        ("echo_f64", a(F64, 1), "[-f64.inf, f64.nan, 1e400]"),
        (
            "echo_f64",
            a(F64, 1),
            "[1e99999999999999999999, 1e-99999999999999999999, 0.000000000000000000000000000001e30]",
        ),
        ("echo_f64", a(F64, 1), "[1.5f32]"),
        ("echo_bool", a(Bool, 1), "[true, false]"),
        ("echo_bool", a(Bool, 1), "[1]"),
        ("echo_bool", a(Bool, 1), "[truefalse]"),
        ("echo_f32_2", a(F32, 2), "[[1, 2], [3, 4]]"),
        ("echo_f32_2", a(F32, 2), "[[1, 2], [3]]"),
        ("echo_f32_2", a(F32, 2), "[[1, 2], []]"),
        ("echo_f32_2", a(F32, 2), "[1, 2]"),
        ("echo_f32_2", a(F32, 2), "[[]]"),
        ("echo_f32_2", a(F32, 2), "empty([3][0]f32)"),
        ("echo_bool_3", a(Bool, 3), "[[[true], [false]], [[true], [true]]]"),
        ("echo_bool_3", a(Bool, 3), "empty([2][0][5]bool)"),
        ("echo_bool_3", a(Bool, 3), "[empty([0][1]bool), empty([0][1]bool)]"),
        ("echo_bool_3", a(Bool, 3), "[empty([0][1]bool), empty([0][2]bool)]"),
        ("echo_u16_5", a(U16, 5), "[[[[[1, 2]]], [[[3, 65535]]]]]"),
        ("echo_u16_5", a(U16, 5), "empty([1][2][0][4][5]u16)"),
        ("echo_u16_5", a(U16, 5), "[[[[[1, 2]]], [[[3]]]]]"),
        ("echo_f64_8", a(F64, 8), "[[[[[[[[-0.5, 1e300]]]]]]]]"),
        ("echo_f64_8", a(F64, 8), "empty([0][0][0][0][0][0][0][0]f64)"),
        ("echo_f64_8", a(F64, 8), "[[[[[[[1.5]]]]]]]"),
        ("echo_i32_0", s(I32), "-5"),
        ("echo_i32_0", s(I32), "- 5"),
        ("echo_i32_0", s(I32), "--5"),
        ("echo_i32_0", s(I32), "\u{e9}"),
        ("echo_i32_0", s(I32), "1i32 -- trailing comment"),
        ("echo_f64_0", s(F64), "1e-3"),
        ("echo_f64_0", s(F64), "1e"),
        ("echo_f64_0", s(F64), "aVeryLongTokenThatGoesOnAndOnAndOnAndOnForever"),
    ];
    for (entry, ty, input) in cases {
        let r = run(&["-e", entry], input.as_bytes());
        match read_values(input.as_bytes(), &[ty]) {
            Ok(vs) => {
                let want = format!("{}\n", write_text(&vs[0]));
                assert_eq!((r.code, stdout(&r)), (0, want), "{input}: {}", r.stderr);
            }
            Err(e) => {
                assert_eq!(
                    (r.code, r.stderr.clone()),
                    (2, format!("Error: {e}\n")),
                    "{input}"
                );
            }
        }
    }
}

/// Tricky floats through binary input: the C text output must be exactly
/// `write_text`'s.
#[test]
fn c_and_rust_agree_on_float_text() {
    let mut f64s: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        0.1,
        0.2,
        0.3,
        1.0 / 3.0,
        2.0 / 3.0,
        1e-5,
        1e-6,
        1e15,
        1e16,
        1e17,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        f64::EPSILON,
        std::f64::consts::PI,
        9007199254740993.0,
        123456789012345680.0,
        0.1 + 0.2,
        1e21,
        1e22,
        1e23,
    ];
    // A deterministic spread of bit patterns.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = f64::from_bits(x);
        if v.is_finite() {
            f64s.push(v);
        }
        f64s.push((x >> 11) as f64 / (1u64 << 53) as f64 * 1000.0);
    }
    let f32s: Vec<f32> = f64s
        .iter()
        .map(|&v| v as f32)
        .chain(f64s.iter().map(|&v| f32::from_bits(v.to_bits() as u32)))
        .filter(|v| v.is_finite())
        .collect();
    let v64 = Value::Array(ArrayValue::new(vec![f64s.len()], ArrayData::F64(f64s)).unwrap());
    let v32 = Value::Array(ArrayValue::new(vec![f32s.len()], ArrayData::F32(f32s)).unwrap());
    // Every finite half.
    let f16s: Vec<F16> = (0..=u16::MAX)
        .map(F16)
        .filter(|h| h.to_f32().is_finite())
        .collect();
    let v16 = Value::Array(ArrayValue::new(vec![f16s.len()], ArrayData::F16(f16s)).unwrap());
    for (entry, v) in [("echo_f64", &v64), ("echo_f32", &v32), ("echo_f16", &v16)] {
        let mut input = Vec::new();
        write_binary(v, &mut input);
        let r = run(&["-e", entry], &input);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let want = write_text(v);
        let got = stdout(&r);
        for (g, w) in got.trim_end().split(", ").zip(want.split(", ")) {
            assert_eq!(g, w);
        }
        assert_eq!(got, format!("{want}\n"));
        // And the text reads back to the same bits.
        let back = read_values(got.as_bytes(), &[v.ty()]).unwrap();
        assert_eq!(write_text(&back[0]), want);
        let mut b1 = Vec::new();
        let mut b2 = Vec::new();
        write_binary(&back[0], &mut b1);
        write_binary(v, &mut b2);
        assert!(b1 == b2, "text does not read back to the same floats");
    }
}

#[test]
fn c_and_rust_agree_on_binary_errors() {
    let mut good = Vec::new();
    write_binary(
        &Value::Array(ArrayValue::new(vec![2], ArrayData::I32(vec![1, 2])).unwrap()),
        &mut good,
    );
    let cases: Vec<Vec<u8>> = vec![
        good.clone(),
        good[..good.len() - 1].to_vec(),
        good[..10].to_vec(),
        good[..2].to_vec(),
        b"b".to_vec(),
        b"b\x03".to_vec(),
        [&good[..], b" 5"].concat(),
        {
            let mut g = good.clone();
            g[2] = 2;
            g
        },
        {
            let mut g = good.clone();
            g[7] = 0xff;
            g.truncate(20);
            g
        },
        {
            let mut g = good.clone();
            g[3..7].copy_from_slice(b" f32");
            g
        },
    ];
    for input in cases {
        let r = run(&["-e", "echo_i32"], &input);
        match read_values(&input, &[a(ScalarType::I32, 1)]) {
            Ok(vs) => assert_eq!(stdout(&r), format!("{}\n", write_text(&vs[0]))),
            Err(e) => assert_eq!(
                (r.code, r.stderr),
                (2, format!("Error: {e}\n")),
                "{input:?}"
            ),
        }
    }
}

/// Random inputs built from the grammar's characters: the Rust reader never
/// panics, and the C runtime agrees with it on every one.
#[test]
fn c_and_rust_agree_on_random_input() {
    use ScalarType::*;
    const PIECES: &[&str] = &[
        "[", "]", ", ", "1", "-", "0x", "f", "2.5", "e", "-3", "_", "i32", "f32", "u8", " ", "\n",
        "--c\n", "true", "empty(", "[0]", "[2]", ")", ".", "9", "b", "f32.nan", "i64", "\t",
    ];
    let types = [
        ("echo_i32", a(I32, 1)),
        ("echo_f32_2", a(F32, 2)),
        ("echo_u8", a(U8, 1)),
        ("echo_i32_0", s(I32)),
        ("echo_f64_0", s(F64)),
        ("echo_bool", a(Bool, 1)),
    ];
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    for round in 0..600 {
        let len = 1 + next(12);
        let input: String = (0..len).map(|_| PIECES[next(PIECES.len())]).collect();
        let (entry, ty) = &types[round % types.len()];
        let _ = read_values_untyped(input.as_bytes());
        let r = run(&["-e", entry], input.as_bytes());
        match read_values(input.as_bytes(), &[*ty]) {
            Ok(vs) => assert_eq!(
                (r.code, stdout(&r)),
                (0, format!("{}\n", write_text(&vs[0]))),
                "{input:?}: {}",
                r.stderr
            ),
            Err(e) => assert_eq!(
                (r.code, r.stderr),
                (2, format!("Error: {e}\n")),
                "{input:?}"
            ),
        }
    }
}

/// Writes one byte past a 10-byte block from `arr_alloc`: the runtime built
/// with `extra` flags, run; its exit code and stderr.
fn overrun_one_byte(extra: &[&str]) -> (i32, String) {
    const PROGRAM: &str = r#"
#include "arr_runtime.h"
const arr_entry arr_entries[1];
const int arr_num_entries = 0;
int main(void) {
    volatile unsigned char *p = arr_alloc(10);
    p[10] = 1;
    arr_free((void *)p);
    return 0;
}
"#;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    for (name, text) in HEADERS {
        std::fs::write(p.join(name), text).unwrap();
    }
    let sources = [("arr_runtime.c", super::RUNTIME_C), ("overrun.c", PROGRAM)];
    for (name, text) in sources {
        std::fs::write(p.join(name), text).unwrap();
    }
    let exe = p.join("overrun");
    let out = Command::new("cc")
        .args(["-std=gnu11", "-O1", "-I"])
        .arg(p)
        .args(extra)
        .args(sources.iter().map(|(name, _)| p.join(name)))
        .arg("-o")
        .arg(&exe)
        .args(["-lm", "-lpthread"])
        .output()
        .expect("cc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    (
        run.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

/// The checking build (`--sanitize address`: `ARR_EXACT_ALLOC`) lets
/// AddressSanitizer see an overrun of one byte, which the rounding of the
/// normal allocator hides.
#[test]
fn exact_allocation_lets_address_sanitizer_see_a_one_byte_overrun() {
    let (code, stderr) = overrun_one_byte(&["-DARR_EXACT_ALLOC", "-fsanitize=address"]);
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("heap-buffer-overflow"), "{stderr}");
    let (code, stderr) = overrun_one_byte(&["-fsanitize=address"]);
    assert_eq!(code, 0, "the rounded block should hide it: {stderr}");
}
