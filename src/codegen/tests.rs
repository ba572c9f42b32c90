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
void arr_fail_negative_size(int64_t n, const char *loc) {
    fprintf(stderr, "Error: negative size %" PRId64 " at %s\n", n, loc);
    exit(1);
}
void arr_fail_assert(const char *loc) {
    fprintf(stderr, "Error: assertion failed at %s\n", loc);
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

#[test]
fn unfused_map_and_reduce() {
    let mut m = map_reduce();
    let items = vec![
        size_item(&m.n, &m.xs),
        m.b.cluster(FusionTree::Leaf(m.map.clone())),
        m.b.cluster(FusionTree::Leaf(m.reduce.clone())),
    ];
    let p = program(
        "main",
        vec![m.xs.clone()],
        items,
        vec![v(&m.ys), v(&m.s)],
        vec![m.ys.ty, m.s.ty],
    );
    assert_eq!(ok(&p, &["1,2,3.5"]), "[2f32, 4f32, 7f32]\n13f32\n");
    assert_eq!(ok(&p, &[""]), "[]\n0f32\n");
}

#[test]
fn vertical_map_reduce_computes_the_sum() {
    let mut m = map_reduce();
    let tree = FusionTree::Vertical {
        producer: leaf(m.map.clone()),
        consumer: leaf(m.reduce.clone()),
        fused: vec![m.ys.id],
    };
    let items = vec![size_item(&m.n, &m.xs), m.b.cluster(tree)];
    let p = program(
        "main",
        vec![m.xs.clone()],
        items,
        vec![v(&m.s)],
        vec![m.s.ty],
    );
    assert_eq!(ok(&p, &["1,2,3,4"]), "20f32\n");
    // One outlined loop function, no allocation.
    let l = lowered(&p);
    let opts = CodegenOptions {
        opt_level: 0,
        target: Target::X86_64,
        count_traffic: false,
        cpu: super::Cpu::Native,
        fast_math: false,
        gpu_arch: 70,
        strict_fp: false,
        exact_fallback: false,
        sanitize: None,
    };
    let ir = llvm_text(&l, opts);
    let bodies = ir
        .lines()
        .filter(|l| l.starts_with("define internal void @arr_entry_0.loop"))
        .filter(|l| !l.contains(".combine(") && !l.contains(".prefix("));
    assert_eq!(bodies.count(), 1, "{ir}");
    assert!(!ir.contains("call ptr @arr_alloc"), "{ir}");
}

#[test]
fn map2_scan_and_diagonal_fusion() {
    let mut b = Builder::default();
    let xs = b.array("xs", I32);
    let ys = b.array("ys", I32);
    let n = b.scalar("n", I64);
    let m = b.scalar("m", I64);
    let zs = b.array("zs", I32);
    let ps = b.array("ps", I32);
    let add = b.op_lambda(BinOp::Add, I32);
    let map2 = b.soac(
        vec![zs.clone()],
        v(&n),
        SoacKind::Map(add),
        vec![xs.id, ys.id],
    );
    let add2 = b.op_lambda(BinOp::Add, I32);
    let scan = b.soac(
        vec![ps.clone()],
        v(&n),
        SoacKind::Scan {
            op: add2,
            neutral: vec![Atom::Const(Const::I32(0))],
        },
        vec![zs.id],
    );
    let tree = FusionTree::Diagonal {
        producer: leaf(map2),
        consumer: leaf(scan),
        fused: vec![zs.id],
    };
    let items = vec![
        size_item(&n, &xs),
        size_item(&m, &ys),
        Item::Stm(stm(Vec::new(), Exp::AssertEqSizes(v(&n), v(&m)))),
        b.cluster(tree),
    ];
    let p = program(
        "main",
        vec![xs.clone(), ys.clone()],
        items,
        vec![v(&zs), v(&ps)],
        vec![zs.ty, ps.ty],
    );
    assert_eq!(
        ok(&p, &["1,2,3", "10,20,30"]),
        "[11i32, 22i32, 33i32]\n[11i32, 33i32, 66i32]\n"
    );
    let r = run(&p, &["1,2,3", "10,20"]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("size mismatch"), "{}", r.stderr);
    assert!(r.stderr.contains("at test.arr:3:5"), "{}", r.stderr);
}

/// `entry main (xs: []i64) (i: i64) = (iota n)[i] + xs[i], replicate 3 i`.
fn iota_index_program() -> crate::fusion::ast::FusedProgram {
    let mut b = Builder::default();
    let xs = b.array("xs", I64);
    let i = b.scalar("i", I64);
    let n = b.scalar("n", I64);
    let is = b.array("is", I64);
    let a = b.scalar("a", I64);
    let x = b.scalar("x", I64);
    let s = b.scalar("s", I64);
    let rs = b.array("rs", I64);
    let items = vec![
        size_item(&n, &xs),
        Item::Stm(stm(vec![is.clone()], Exp::Iota(v(&n)))),
        Item::Stm(stm(
            vec![a.clone()],
            Exp::Index {
                array: is.id,
                indices: vec![v(&i)],
                checked: true,
            },
        )),
        Item::Stm(stm(
            vec![x.clone()],
            Exp::Index {
                array: xs.id,
                indices: vec![v(&i)],
                checked: true,
            },
        )),
        Item::Stm(stm(vec![s.clone()], Exp::BinOp(BinOp::Add, v(&a), v(&x)))),
        Item::Stm(stm(
            vec![rs.clone()],
            Exp::Replicate {
                count: c_i64(3),
                value: v(&i),
            },
        )),
    ];
    program(
        "main",
        vec![xs, i],
        items,
        vec![v(&s), v(&rs)],
        vec![s.ty, rs.ty],
    )
}

#[test]
fn iota_replicate_and_indexing() {
    let p = iota_index_program();
    assert_eq!(ok(&p, &["5,6,7", "2"]), "9i64\n[2i64, 2i64, 2i64]\n");
}

#[test]
fn out_of_bounds_index_stops_with_its_location() {
    let p = iota_index_program();
    for bad in ["3", "-1"] {
        let r = run(&p, &["5,6,7", bad]);
        assert_eq!(r.code, Some(1));
        assert_eq!(
            r.stderr,
            format!("Error: index {bad} out of bounds for array of length 3 at test.arr:3:5\n")
        );
        assert_eq!(r.stdout, "");
    }
}

/// `entry main (a: t) (b: t) = (a op1 b, a op2 b, ...)`.
fn binops_program(t: ScalarType, ops: &[BinOp]) -> crate::fusion::ast::FusedProgram {
    let mut b = Builder::default();
    let x = b.scalar("x", t);
    let y = b.scalar("y", t);
    let mut items = Vec::new();
    let mut results = Vec::new();
    for op in ops {
        let rt = if op.is_comparison() {
            ScalarType::Bool
        } else {
            t
        };
        let r = b.scalar(op.name(), rt);
        items.push(Item::Stm(stm(
            vec![r.clone()],
            Exp::BinOp(*op, v(&x), v(&y)),
        )));
        results.push(r);
    }
    let ret = results.iter().map(|r| r.ty).collect();
    program(
        "main",
        vec![x, y],
        items,
        results.iter().map(v).collect(),
        ret,
    )
}

#[test]
fn signed_division_rounds_like_the_contract() {
    let ops = [BinOp::Div, BinOp::Mod, BinOp::Quot, BinOp::Rem];
    let p = binops_program(I32, &ops);
    assert_eq!(ok(&p, &["-7", "2"]), "-4i32\n1i32\n-3i32\n-1i32\n");
    assert_eq!(ok(&p, &["7", "-2"]), "-4i32\n-1i32\n-3i32\n1i32\n");
    assert_eq!(ok(&p, &["-7", "-2"]), "3i32\n-1i32\n3i32\n-1i32\n");
    assert_eq!(ok(&p, &["6", "3"]), "2i32\n0i32\n2i32\n0i32\n");
    // INT_MIN / -1 wraps.
    assert_eq!(
        ok(&p, &["-2147483648", "-1"]),
        "-2147483648i32\n0i32\n-2147483648i32\n0i32\n"
    );
    let r = run(&p, &["1", "0"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stderr, "Error: division by zero at test.arr:3:5\n");
}

#[test]
fn shifts_pow_and_wrapping() {
    let ops = [
        BinOp::Shl,
        BinOp::Shr,
        BinOp::UShr,
        BinOp::Pow,
        BinOp::Mul,
        BinOp::Min,
        BinOp::Lt,
    ];
    let p = binops_program(I32, &ops);
    assert_eq!(
        ok(&p, &["-8", "1"]),
        "-16i32\n-4i32\n2147483644i32\n-8i32\n-8i32\n-8i32\ntrue\n"
    );
    // Out-of-range amounts are defined: everything shifted out.
    assert_eq!(
        ok(&p, &["-8", "40"]),
        "0i32\n-1i32\n0i32\n0i32\n-320i32\n-8i32\ntrue\n"
    );
    assert_eq!(
        ok(&p, &["3", "21"]),
        "6291456i32\n0i32\n0i32\n1870418611i32\n63i32\n3i32\ntrue\n"
    );
}

/// `entry main (x: from) = (to1.convert x, ...)`.
fn converts_program(from: ScalarType, tos: &[ScalarType]) -> crate::fusion::ast::FusedProgram {
    let mut b = Builder::default();
    let x = b.scalar("x", from);
    let mut items = Vec::new();
    let mut results = Vec::new();
    for t in tos {
        let r = b.scalar("r", *t);
        items.push(Item::Stm(stm(vec![r.clone()], Exp::Convert(*t, v(&x)))));
        results.push(r);
    }
    let ret = results.iter().map(|r| r.ty).collect();
    program("main", vec![x], items, results.iter().map(v).collect(), ret)
}

#[test]
fn float_to_int_saturates_and_maps_nan_to_zero() {
    use ScalarType::*;
    let p = converts_program(F64, &[I32, U8, I8, Bool]);
    assert_eq!(ok(&p, &["1e300"]), "2147483647i32\n255u8\n127i8\ntrue\n");
    assert_eq!(ok(&p, &["-1e300"]), "-2147483648i32\n0u8\n-128i8\ntrue\n");
    assert_eq!(ok(&p, &["nan"]), "0i32\n0u8\n0i8\ntrue\n");
    assert_eq!(ok(&p, &["-2.9"]), "-2i32\n0u8\n-2i8\ntrue\n");
    let q = converts_program(I8, &[U32, I64, F32, Bool]);
    assert_eq!(ok(&q, &["-1"]), "4294967295u32\n-1i64\n-1f32\ntrue\n");
}

#[test]
fn f32_math_and_round_half_even() {
    let mut b = Builder::default();
    let x = b.scalar("x", F32);
    let mut items = Vec::new();
    let mut results = Vec::new();
    for op in [UnOp::Round, UnOp::Sqrt, UnOp::Exp, UnOp::IsNan, UnOp::Neg] {
        let t = if op == UnOp::IsNan {
            ScalarType::Bool
        } else {
            F32
        };
        let r = b.scalar(op.name(), t);
        items.push(Item::Stm(stm(vec![r.clone()], Exp::UnOp(op, v(&x)))));
        results.push(r);
    }
    let ret = results.iter().map(|r| r.ty).collect();
    let p = program("main", vec![x], items, results.iter().map(v).collect(), ret);
    assert_eq!(
        ok(&p, &["2.5"]),
        "2f32\n1.58114f32\n12.1825f32\nfalse\n-2.5f32\n"
    );
    let l = lowered(&p);
    let ir = llvm_text(
        &l,
        CodegenOptions {
            opt_level: 2,
            target: Target::X86_64,
            count_traffic: false,
            cpu: super::Cpu::Native,
            fast_math: false,
            gpu_arch: 70,
            strict_fp: false,
            exact_fallback: false,
            sanitize: None,
        },
    );
    assert!(!ir.contains("double"), "f32 math must stay in f32:\n{ir}");
}

#[test]
fn map_with_if_and_index_in_lambda() {
    // map (\x -> if x < 0 then 0 else table[x]) xs
    let mut b = Builder::default();
    let xs = b.array("xs", I64);
    let table = b.array("table", ScalarType::F64);
    let n = b.scalar("n", I64);
    let out = b.array("out", ScalarType::F64);
    let x = b.scalar("x", I64);
    let c = b.scalar("c", ScalarType::Bool);
    let r = b.scalar("r", ScalarType::F64);
    let t = b.scalar("t", ScalarType::F64);
    let lam = Lambda {
        params: vec![x.clone()],
        body: Body {
            stms: vec![
                stm(vec![c.clone()], Exp::BinOp(BinOp::Lt, v(&x), c_i64(0))),
                stm(
                    vec![r.clone()],
                    Exp::If {
                        cond: v(&c),
                        then_body: Body {
                            stms: Vec::new(),
                            result: vec![Atom::Const(Const::F64(0.0))],
                        },
                        else_body: Body {
                            stms: vec![stm(
                                vec![t.clone()],
                                Exp::Index {
                                    array: table.id,
                                    indices: vec![v(&x)],
                                    checked: true,
                                },
                            )],
                            result: vec![v(&t)],
                        },
                    },
                ),
            ],
            result: vec![v(&r)],
        },
        ret: vec![Type::Scalar(ScalarType::F64)],
    };
    let map = b.soac(vec![out.clone()], v(&n), SoacKind::Map(lam), vec![xs.id]);
    let items = vec![size_item(&n, &xs), b.cluster(FusionTree::Leaf(map))];
    let p = program("main", vec![xs, table], items, vec![v(&out)], vec![out.ty]);
    assert_eq!(
        ok(&p, &["-1,2,0", "0.5,1.5,2.5"]),
        "[0f64, 2.5f64, 0.5f64]\n"
    );
    let r = run(&p, &["1,3", "0.5,1.5,2.5"]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.starts_with("Error: index 3 out of bounds"),
        "{}",
        r.stderr
    );
}

#[test]
fn returned_parameter_is_copied_and_nvptx_prints_the_device_module() {
    let mut b = Builder::default();
    let xs = b.array("xs", I32);
    let p = program(
        "main",
        vec![xs.clone()],
        Vec::new(),
        vec![v(&xs), v(&xs)],
        vec![xs.ty, xs.ty],
    );
    assert_eq!(ok(&p, &["4,5"]), "[4i32, 5i32]\n[4i32, 5i32]\n");
    let opts = CodegenOptions {
        opt_level: 2,
        target: Target::NvPtx,
        count_traffic: false,
        cpu: super::Cpu::Native,
        fast_math: false,
        gpu_arch: 70,
        strict_fp: false,
        exact_fallback: false,
        sanitize: None,
    };
    // `--emit llvm --target nvptx` prints the device module: the copy of
    // the parameter is host code, so it holds no kernel.
    let text = llvm_text(&lowered(&p), opts);
    assert!(text.contains("nvptx64-nvidia-cuda"), "{text}");
    assert!(!text.contains("nvvm.annotations"), "{text}");
}

#[test]
fn glue_declares_entries_and_size_constraints() {
    let mut b = Builder::default();
    let xs = b.array("xs", F32);
    let ys = b.array("ys", F32);
    let n = b.scalar("n", I64);
    let mut p = program(
        "dot",
        vec![xs.clone(), ys.clone()],
        Vec::new(),
        vec![Atom::Const(Const::F32(0.0))],
        vec![Type::Scalar(F32)],
    );
    p.entries[0].size_params = vec![crate::core::ir::SizeParam {
        var: n,
        uses: vec![(0, 0), (1, 0)],
        fixed: None,
    }];
    let glue = super::glue_c(&lowered(&p), false, false);
    assert!(
        glue.contains(
            "{\"dot\", 2, arr_params_0, 1, arr_results_0, 1, arr_sizes_0, arr_run_0, NULL}"
        ),
        "{glue}"
    );
    assert!(
        glue.contains("static const arr_size_constraint arr_sizes_0[] = {{0, 0, 1, 0, -1}};"),
        "{glue}"
    );
    assert!(glue.contains("const int arr_num_entries = 1;"));
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

#[test]
fn links_with_the_real_runtime() {
    let mut m = map_reduce();
    let tree = FusionTree::Vertical {
        producer: leaf(m.map.clone()),
        consumer: leaf(m.reduce.clone()),
        fused: vec![m.ys.id],
    };
    let items = vec![size_item(&m.n, &m.xs), m.b.cluster(tree)];
    let p = program(
        "main",
        vec![m.xs.clone()],
        items,
        vec![v(&m.s)],
        vec![m.s.ty],
    );
    assert_eq!(run_real(&p, "[1, 2, 3.5]\n"), "13.0f32\n");
    let opts = CodegenOptions::default();
    let Ok(Output::Text(asm)) = back_end(&lowered(&p), opts, Goal::Asm) else {
        panic!("no assembly");
    };
    assert!(asm.contains("arr_entry_0"));
    let Ok(Output::Object(object)) = back_end(&lowered(&p), opts, Goal::Object) else {
        panic!("no object file");
    };
    assert!(!object.is_empty());
}

#[test]
fn map_returning_rows_builds_a_2d_array() {
    // map (\x -> replicate 2 x) xs
    let mut b = Builder::default();
    let xs = b.array("xs", I32);
    let n = b.scalar("n", I64);
    let out = b.var("out", Type::Array(I32, 2));
    let x = b.scalar("x", I32);
    let row = b.array("row", I32);
    let lam = Lambda {
        params: vec![x.clone()],
        body: Body {
            stms: vec![stm(
                vec![row.clone()],
                Exp::Replicate {
                    count: c_i64(2),
                    value: v(&x),
                },
            )],
            result: vec![v(&row)],
        },
        ret: vec![row.ty],
    };
    let map = b.soac(vec![out.clone()], v(&n), SoacKind::Map(lam), vec![xs.id]);
    let items = vec![size_item(&n, &xs), b.cluster(FusionTree::Leaf(map))];
    let p = program("main", vec![xs], items, vec![v(&out)], vec![out.ty]);
    assert_eq!(run_real(&p, "[1, 2]"), "[[1i32, 1i32], [2i32, 2i32]]\n");
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

#[test]
fn loops_carry_arrays_of_changing_size_and_swap_them() {
    let src = "entry main (xs: []i32) (n: i64) : ([]i32, []i32, []i32, i32) =
  let grown = loop acc = xs for i < n do acc ++ [i32.i64 i]
  let (a, b) = loop (a, b) = (xs, map (*10) xs) for _i < 3 do (b, a)
  let c = loop c = 0 while c < 100 do c * 2 + 1
  in (grown, a, b, c)
";
    assert_eq!(
        source_ok(src, "main", "[1, 2, 3] 3"),
        "[1i32, 2i32, 3i32, 0i32, 1i32, 2i32]\n[10i32, 20i32, 30i32]\n[1i32, 2i32, 3i32]\n127i32\n"
    );
}

#[test]
fn long_loops_free_what_each_iteration_allocates() {
    // 20000 iterations of 8 kB arrays would need 160 MB if leaked.
    let src = "entry main (n: i64) : (i64, f32) =
  let (c, v) = loop (c, v) = (0, replicate 1000 1f32) while c < n do
    let w = map (\\x -> x * 2f32) v
    let m = map (\\i -> reduce (+) 0 (map (\\x -> x + f32.i64 i) w)) (iota 10)
    in (c + 1, map2 (\\a b -> a / 2f32 + b * 0f32) w (replicate 1000 m[0]))
  in (c, v[0])
";
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = build_source(src, crate::fusion::ast::Strategy::Ilp, dir.path());
    let (out, err, code) = run_exe("ulimit -v 120000;", &exe, "main", "20000");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "20000i64\n1.0f32\n");
}

#[test]
fn reduce_scan_and_scanr_over_rows_and_nested_reductions() {
    let src = "entry main (m: [][]i32) : ([]i32, [][]i32, [][]i32, []i32, [][][]i32) =
  let k = length (transpose m)
  let colsum = reduce (map2 (+)) (replicate k 0) m
  let sc = scan (map2 (+)) (replicate k 0) m
  let scr = scanr (map2 (+)) (replicate k 0) m
  let rowsum = map (\\row -> reduce (+) 0 row) m
  in (colsum, sc, scr, rowsum, replicate 2 m)
";
    assert_eq!(
        source_ok(src, "main", "[[1, 2], [3, 4], [5, 6]]"),
        "[9i32, 12i32]\n[[1i32, 2i32], [4i32, 6i32], [9i32, 12i32]]\n\
         [[9i32, 12i32], [8i32, 10i32], [5i32, 6i32]]\n[3i32, 7i32, 11i32]\n\
         [[[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]], [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]]]\n"
    );
    // An empty matrix keeps its row length.
    assert_eq!(
        source_ok(src, "main", "empty([0][2]i32)"),
        "[0i32, 0i32]\nempty([0][2]i32)\nempty([0][2]i32)\nempty([0]i32)\nempty([2][0][2]i32)\n"
    );
}

#[test]
fn slices_strided_backwards_and_mixed_with_checks() {
    let src = "entry main (xs: []i32) (m: [][]i32) : ([]i32, []i32, []i32, [][]i32, []i32, []i32) =
  (xs[1:4], xs[::2], xs[4:0:-1], m[0:2, 1:3], m[:, 1], m[1, :])
entry bad (xs: []i32) (i: i64) : []i32 = xs[i:2]
";
    assert_eq!(
        source_ok(
            src,
            "main",
            "[1, 2, 3, 4, 5] [[1, 2, 3], [4, 5, 6], [7, 8, 9]]"
        ),
        "[2i32, 3i32, 4i32]\n[1i32, 3i32, 5i32]\n[5i32, 4i32, 3i32, 2i32]\n\
         [[2i32, 3i32], [5i32, 6i32]]\n[2i32, 5i32, 8i32]\n[4i32, 5i32, 6i32]\n"
    );
    let (_, err, code) = run_source(src, "bad", "[1, 2, 3] 3");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("index 3:2:1 out of bounds for array of length 3 at"),
        "{err}"
    );
    assert_eq!(source_ok(src, "bad", "[1, 2, 3] 2"), "empty([0]i32)\n");
}

#[test]
fn array_builtins_move_rows_and_check_sizes() {
    let src = "entry main (m: [][]i32) (r: i64) : ([][]i32, []i32, [][]i32, [][]i32, []i32, [][]i32, [][]i32) =
  (transpose m, flatten m, unflatten 3 2 (flatten m), reverse m, rotate r (flatten m),
   concat m m, m with [1] = [7, 8, 9])
entry unfl (xs: []i32) (n: i64) : [][]i32 = unflatten n 2 xs
entry upd (m: [][]i32) (i: i64) : ([][]i32, [][]i32) = (m with [i, 0] = 5, m)
entry rot (xs: []i32) (r: i64) : []i32 = rotate r xs
";
    assert_eq!(
        source_ok(src, "main", "[[1, 2, 3], [4, 5, 6]] -7"),
        "[[1i32, 4i32], [2i32, 5i32], [3i32, 6i32]]\n[1i32, 2i32, 3i32, 4i32, 5i32, 6i32]\n\
         [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]]\n[[4i32, 5i32, 6i32], [1i32, 2i32, 3i32]]\n\
         [6i32, 1i32, 2i32, 3i32, 4i32, 5i32]\n\
         [[1i32, 2i32, 3i32], [4i32, 5i32, 6i32], [1i32, 2i32, 3i32], [4i32, 5i32, 6i32]]\n\
         [[1i32, 2i32, 3i32], [7i32, 8i32, 9i32]]\n"
    );
    let (_, err, code) = run_source(src, "unfl", "[1, 2, 3] 2");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("size mismatch") && err.contains("prog.arr:4:"),
        "{err}"
    );
    let (_, err, code) = run_source(src, "upd", "[[1, 2], [3, 4]] 2");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("index 2 out of bounds for array of length 2"),
        "{err}"
    );
    assert_eq!(
        source_ok(src, "upd", "[[1, 2], [3, 4]] 1"),
        "[[1i32, 2i32], [5i32, 4i32]]\n[[1i32, 2i32], [3i32, 4i32]]\n"
    );
    assert_eq!(source_ok(src, "rot", "[1, 2, 3] 8"), "[3i32, 1i32, 2i32]\n");
    assert_eq!(source_ok(src, "rot", "empty([0]i32) 5"), "empty([0]i32)\n");
}

#[test]
fn filter_partition_scatter_and_histograms() {
    let src =
        "entry main (xs: []i32) (is: []i64) : ([]i32, []i32, []i32, []i32, []i32, []i32, []i32) =
  let (a, b) = partition (\\x -> x % 2 == 0) xs
  in (filter (> 2) xs, a, b, scatter (replicate 4 0) is xs, hist (+) 0 3 is xs,
      reduce_by_index (replicate 3 100) i32.max i32.lowest is xs, scanr (+) 0 xs)
entry rows (m: [][]i32) (is: []i64) : ([][]i32, [][]i32, [][]i32) =
  (filter (\\r -> r[0] > 1) m, scatter (replicate 3 [0, 0]) is m, hist (map2 (+)) [0, 0] 2 is m)
";
    assert_eq!(
        source_ok(src, "main", "[1, 2, 3, 4, 5] [3, 0, -1, 7, 0]"),
        "[3i32, 4i32, 5i32]\n[2i32, 4i32]\n[1i32, 3i32, 5i32]\n[5i32, 0i32, 0i32, 1i32]\n\
         [7i32, 0i32, 0i32]\n[100i32, 100i32, 100i32]\n[15i32, 14i32, 12i32, 9i32, 5i32]\n"
    );
    assert_eq!(
        source_ok(src, "rows", "[[1, 2], [3, 4], [5, 6]] [2, 0, 9]"),
        "[[3i32, 4i32], [5i32, 6i32]]\n[[3i32, 4i32], [0i32, 0i32], [1i32, 2i32]]\n\
         [[3i32, 4i32], [0i32, 0i32]]\n"
    );
}

#[test]
fn updates_in_place_keep_value_semantics() {
    let src = "entry main (xs: []i32) (n: i64) : ([]i32, []i32, []i32, []i32, []i64) =
  let a = map (+ 1) xs
  let b = a with [0] = 9
  let ys = loop ys = xs for i < length xs do ys with [i] = ys[i] * 2
  let zs = loop zs = replicate n 0i64 for i < n do zs with [i] = i * i
  in (a, b, ys, xs, zs)
entry grid (n: i64) : [][]i64 =
  loop g = replicate n (replicate n 0i64) for i < n do g with [i, n - 1 - i] = i + 1
";
    assert_eq!(
        source_ok(src, "main", "[1, 2, 3] 4"),
        "[2i32, 3i32, 4i32]\n[9i32, 3i32, 4i32]\n[2i32, 4i32, 6i32]\n[1i32, 2i32, 3i32]\n\
         [0i64, 1i64, 4i64, 9i64]\n"
    );
    assert_eq!(
        source_ok(src, "grid", "2"),
        "[[0i64, 1i64], [2i64, 0i64]]\n"
    );
}
