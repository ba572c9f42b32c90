//! Libraries beyond arrays of scalars (docs/library.md): opaque types
//! (records, tuples, sum types and arrays of them) through the C API under
//! valgrind and through the Python module against the interpreter, and a
//! GPU library on the emulator whose arrays stay on the device.

mod support;

use arrc::runtime::value::{compare, read_values, Value};
use std::process::Command;
use support::{arrc, build, c_program, library, ok, python, run_main, valgrind};

/// Entry points taking and returning opaque values: a record (named by its
/// abbreviation), an array of records, a sum type, a tuple parameter and a
/// tuple nested in the result tuple.
const OPAQUE: &str = "type point = {x: f32, y: f32}\n\
type shape = #circle f32 | #rect f32 f32\n\
entry mk_point (x: f32) (y: f32) : point = {x = x, y = y}\n\
entry norm (p: point) : f32 = f32.sqrt (p.x * p.x + p.y * p.y)\n\
entry centroid (ps: []point) : point =\n  \
  let n = f32.i64 (length ps)\n  \
  in {x = f32.sum (map (\\p -> p.x) ps) / n, y = f32.sum (map (\\p -> p.y) ps) / n}\n\
entry scale (k: f32) (ps: []point) : []point = map (\\p -> {x = k * p.x, y = k * p.y}) ps\n\
entry at (ps: []point) (i: i64) : point = ps[i]\n\
entry area (s: shape) : f32 =\n  match s\n  case #circle r -> 3 * r * r\n  case #rect w h -> w * h\n\
entry grow (s: shape) : shape =\n  match s\n  case #circle r -> #rect r r\n  case #rect w h -> #circle (w + h)\n\
entry pair_sum (p: (i64, []i64)) : i64 = p.0 + i64.sum p.1\n\
entry stats (xs: []i64) : (i64, (i64, []i64)) = (length xs, (i64.sum xs, map (* 2) xs))\n\
entry shapes (xs: []f32) : []shape = map (\\x -> if x > 0 then #circle x else #rect x (-x)) xs\n\
entry areas (ss: []shape) : []f32 =\n  map (\\s -> match s\n    case #circle r -> 3 * r * r\n    case #rect w h -> w * h) ss\n\
entry pairs (xs: [][]i64) : [](i64, []i64) = map (\\r -> (i64.sum r, r)) xs\n\
entry pair_at (xs: [][]i64) (i: i64) : (i64, []i64) = (i64.sum xs[i], xs[i])\n";

/// `main` of the C program for `OPAQUE` (see `support::c_program`).
const OPAQUE_C: &str = r#"
int main(void) {
    struct arrc_context_config *cfg = arrc_context_config_new();
    struct arrc_context *ctx = arrc_context_new(cfg);
    arrc_context_config_free(cfg);

    struct arrc_opaque_point *p, *c;
    float x, y, n;
    report(ctx, arrc_entry_mk_point(ctx, &p, 3, 4));
    report(ctx, arrc_project_opaque_point_x(ctx, &x, p));
    report(ctx, arrc_project_opaque_point_y(ctx, &y, p));
    report(ctx, arrc_entry_norm(ctx, &n, p));
    printf("point %g %g norm %g\n", x, y, n);
    arrc_free_opaque_point(ctx, p);
    report(ctx, arrc_new_opaque_point(ctx, &p, 6, 8));
    report(ctx, arrc_entry_norm(ctx, &n, p));
    printf("norm %g\n", n);
    arrc_free_opaque_point(ctx, p);

    float xs[3] = {1, 2, 3}, ys[3] = {10, 20, 30}, out[3];
    struct arrc_f32_1d *ax = arrc_new_f32_1d(ctx, xs, 3), *ay = arrc_new_f32_1d(ctx, ys, 3);
    struct arrc_f32_1d *two = arrc_new_f32_1d(ctx, ys, 2), *fy;
    struct arrc_opaque_arr_point_1d *ps, *scaled, *bad = NULL;
    report(ctx, arrc_new_opaque_arr_point_1d(ctx, &ps, ax, ay));
    /* The opaque value holds the arrays: the caller's may go. */
    arrc_free_f32_1d(ctx, ax);
    arrc_free_f32_1d(ctx, ay);
    report(ctx, arrc_new_opaque_arr_point_1d(ctx, &bad, two, NULL));
    struct arrc_f32_1d *three = arrc_new_f32_1d(ctx, xs, 3);
    report(ctx, arrc_new_opaque_arr_point_1d(ctx, &bad, three, two));
    arrc_free_f32_1d(ctx, three);
    arrc_free_opaque_arr_point_1d(ctx, bad);
    arrc_free_f32_1d(ctx, two);
    printf("shape %lld\n", (long long)arrc_shape_opaque_arr_point_1d(ctx, ps)[0]);
    report(ctx, arrc_entry_scale(ctx, &scaled, 2, ps));
    report(ctx, arrc_project_opaque_arr_point_1d_y(ctx, &fy, scaled));
    arrc_values_f32_1d(ctx, fy, out);
    printf("scaled y %g %g %g\n", out[0], out[1], out[2]);
    arrc_free_f32_1d(ctx, fy);
    report(ctx, arrc_entry_centroid(ctx, &c, scaled));
    arrc_project_opaque_point_x(ctx, &x, c);
    arrc_project_opaque_point_y(ctx, &y, c);
    printf("centroid %g %g\n", x, y);
    arrc_free_opaque_point(ctx, c);
    report(ctx, arrc_entry_at(ctx, &c, scaled, 3));
    report(ctx, arrc_index_opaque_arr_point_1d(ctx, &c, scaled, 1));
    arrc_project_opaque_point_x(ctx, &x, c);
    arrc_project_opaque_point_y(ctx, &y, c);
    printf("element 1 %g %g\n", x, y);
    arrc_free_opaque_point(ctx, c);
    report(ctx, arrc_index_opaque_arr_point_1d(ctx, &c, scaled, -1));
    arrc_free_opaque_arr_point_1d(ctx, scaled);
    arrc_free_opaque_arr_point_1d(ctx, ps);

    struct arrc_opaque_shape *s, *g;
    float a, w, h;
    report(ctx, arrc_new_opaque_shape_circle(ctx, &s, 2));
    report(ctx, arrc_entry_area(ctx, &a, s));
    report(ctx, arrc_entry_grow(ctx, &g, s));
    printf("area %g variant %d\n", a, arrc_variant_opaque_shape(ctx, g));
    report(ctx, arrc_destruct_opaque_shape_rect(ctx, &w, &h, g));
    printf("rect %g %g\n", w, h);
    report(ctx, arrc_destruct_opaque_shape_circle(ctx, &w, g));
    arrc_free_opaque_shape(ctx, s);
    arrc_free_opaque_shape(ctx, g);

    /* An array of sum values from its elements, and an element of one. */
    struct arrc_opaque_shape *elems[3];
    struct arrc_opaque_arr_shape_1d *ss, *made;
    struct arrc_f32_1d *as;
    float av[3];
    report(ctx, arrc_new_opaque_shape_circle(ctx, &elems[0], 1));
    report(ctx, arrc_new_opaque_shape_rect(ctx, &elems[1], 2, 3));
    report(ctx, arrc_new_opaque_shape_circle(ctx, &elems[2], 2));
    report(ctx, arrc_new_opaque_arr_shape_1d(ctx, &ss, (const struct arrc_opaque_shape *const *)elems,
                                            3));
    report(ctx, arrc_new_opaque_arr_shape_1d(ctx, &made, NULL, 1));
    for (int i = 0; i < 3; i++) {
        arrc_free_opaque_shape(ctx, elems[i]);
    }
    report(ctx, arrc_entry_areas(ctx, &as, ss));
    arrc_values_f32_1d(ctx, as, av);
    printf("areas %g %g %g of %lld\n", av[0], av[1], av[2],
           (long long)arrc_shape_opaque_arr_shape_1d(ctx, ss)[0]);
    arrc_free_f32_1d(ctx, as);
    arrc_free_opaque_arr_shape_1d(ctx, ss);
    float sx[2] = {-2, 5};
    struct arrc_f32_1d *asx = arrc_new_f32_1d(ctx, sx, 2);
    report(ctx, arrc_entry_shapes(ctx, &made, asx));
    arrc_free_f32_1d(ctx, asx);
    report(ctx, arrc_index_opaque_arr_shape_1d(ctx, &s, made, 0));
    report(ctx, arrc_destruct_opaque_shape_rect(ctx, &w, &h, s));
    arrc_free_opaque_shape(ctx, s);
    report(ctx, arrc_index_opaque_arr_shape_1d(ctx, &s, made, 1));
    report(ctx, arrc_destruct_opaque_shape_circle(ctx, &a, s));
    arrc_free_opaque_shape(ctx, s);
    printf("elements #rect %g %g, #circle %g\n", w, h, a);
    report(ctx, arrc_index_opaque_arr_shape_1d(ctx, &s, made, 2));
    arrc_free_opaque_arr_shape_1d(ctx, made);

    int64_t v[4] = {1, 2, 3, 4}, len, sum, twice[4], total;
    struct arrc_i64_1d *vs = arrc_new_i64_1d(ctx, v, 4), *dbl;
    struct arrc_opaque_tup2_i64_arr_i64_1d *t;
    report(ctx, arrc_entry_stats(ctx, &len, &t, vs));
    report(ctx, arrc_project_opaque_tup2_i64_arr_i64_1d_0(ctx, &sum, t));
    report(ctx, arrc_project_opaque_tup2_i64_arr_i64_1d_1(ctx, &dbl, t));
    report(ctx, arrc_entry_pair_sum(ctx, &total, t));
    arrc_free_opaque_tup2_i64_arr_i64_1d(ctx, t);
    /* A projected array outlives the value it came from. */
    arrc_values_i64_1d(ctx, dbl, twice);
    printf("stats %lld %lld %lld %lld pair_sum %lld\n", (long long)len, (long long)sum,
           (long long)twice[0], (long long)twice[3], (long long)total);
    report(ctx, arrc_entry_pair_sum(ctx, &total, NULL));
    arrc_free_i64_1d(ctx, dbl);
    arrc_free_i64_1d(ctx, vs);
    arrc_context_free(ctx);
    return 0;
}
"#;

#[test]
fn opaque_values_cross_the_c_api() {
    let dir = tempfile::tempdir().unwrap();
    library(
        dir.path(),
        "opq",
        OPAQUE,
        &["--library"],
        Some(&c_program("opq.h", OPAQUE_C)),
    );
    let out = valgrind(dir.path(), &[]);
    let expected = "point 3 4 norm 5\nnorm 10\n\
        Error: field y: no array (NULL)\n\
        Error: size mismatch: dimension 1 of the arrays is 3 and 2\n\
        shape 3\nscaled y 20 40 60\ncentroid 4 40\n\
        Error: index 3 out of bounds for array of length 3 at opq.arr:9:43\n\
        element 1 4 40\n\
        Error: index -1 out of bounds for array of length 3\n\
        area 12 variant 1\nrect 2 2\nError: the value is not #circle\n\
        Error: elems: no array (NULL)\n\
        areas 3 6 12 of 3\n\
        elements #rect -2 2, #circle 5\n\
        Error: index 2 out of bounds for array of length 2\n\
        stats 4 10 2 8 pair_sum 30\n\
        Error: argument 1: no opaque value of its type\n";
    assert_eq!(out, expected);
    // An executable cannot read or print them: as Futhark's, it leaves
    // those entry points out, says so, and keeps the first-order ones.
    let exe = arrc()
        .current_dir(dir.path())
        .args(["build", "opq.arr"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&exe.stderr);
    assert_eq!(exe.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("`norm` has a parameter of non-first-order type")
            && stderr.contains("left out of the executable"),
        "{stderr}"
    );
}

/// The Python side of the opaque cases: each computes `out`, the leaves
/// of the flattened results, from the opaque API.
const OPAQUE_PY: &[(&str, &str, &str, &[usize])] = &[
    ("mk_point", "3f32 4f32", "r = prog.mk_point(f32(3), f32(4)); out = [r.x, r.y]", &[]),
    ("norm", "6f32 8f32", "out = [prog.norm(prog.point(f32(6), f32(8)))]", &[]),
    (
        "centroid",
        "[1f32, 2f32, 6f32] [10f32, 20f32, 3f32]",
        "r = prog.centroid(prog.arr_point_1d(a([1, 2, 6]), a([10, 20, 3]))); out = [r.x, r['y']]",
        &[],
    ),
    (
        "scale",
        "2.5f32 [1f32, 2f32] [3f32, 4f32]",
        "r = prog.scale(2.5, prog.arr_point_1d(a([1, 2]), a([3, 4]))); out = [r.x, r[1]]",
        &[],
    ),
    (
        "at",
        "[1f32, 2f32] [3f32, 4f32] 2i64",
        "out = [prog.at(prog.arr_point_1d(a([1, 2]), a([3, 4])), 2).x]",
        &[],
    ),
    ("area", "1u8 0f32 2f32 5f32", "out = [prog.area(prog.shape.rect(f32(2), f32(5)))]", &[]),
    (
        "grow",
        "0u8 1.5f32 0f32 0f32",
        "g = prog.grow(prog.shape.circle(f32(1.5))); out = [np.uint8(g.variant == 'rect'), *g.payload]",
        &[0, 2, 3],
    ),
    (
        "grow",
        "1u8 0f32 2f32 0.25f32",
        "g = prog.grow(prog.shape.rect(f32(2), f32(0.25))); out = [np.uint8(g.variant == 'rect'), *g.payload]",
        &[0, 1],
    ),
    (
        "pair_sum",
        "7i64 [1i64, 2i64, 3i64]",
        "out = [prog.pair_sum(prog.tup2_i64_arr_i64_1d(7, np.array([1, 2, 3])))]",
        &[],
    ),
    (
        "stats",
        "[5i64, -1i64, 2i64]",
        "n, t = prog.stats(np.array([5, -1, 2])); out = [n, t[0], t[1]]",
        &[],
    ),
    // Arrays of records and sum values: an element, and an array of sum
    // values made from its elements.
    (
        "at",
        "[1f32, 2f32] [3f32, 4f32] 1i64",
        "r = prog.arr_point_1d(a([1, 2]), a([3, 4])).index(1); out = [r.x, r.y]",
        &[],
    ),
    (
        "areas",
        "[0u8, 1u8, 0u8] [1f32, 0f32, 2f32] [0f32, 2f32, 0f32] [0f32, 3f32, 0f32]",
        "c, r = prog.shape.circle, prog.shape.rect\n\
         out = [prog.areas(prog.arr_shape_1d([c(f32(1)), r(f32(2), f32(3)), c(f32(2))]))]",
        &[],
    ),
    (
        "area",
        "1u8 0f32 2f32 5f32",
        "ss = prog.arr_shape_1d([prog.shape.circle(f32(1)), prog.shape.rect(f32(2), f32(5))])\n\
         out = [prog.area(ss.index(1))]",
        &[],
    ),
    (
        "pair_at",
        "[[0i64, 1i64, 2i64], [3i64, 4i64, 5i64]] 1i64",
        "e = prog.pairs(np.arange(6).reshape(2, 3)).index(1); out = [e[0], e[1]]",
        &[],
    ),
    (
        "shapes",
        "[-2f32, 5f32, 0.5f32]",
        "s = prog.shapes(a([-2, 5, 0.5])); names = ['circle', 'rect']\n\
         out = [np.array([names.index(s.index(i).variant) for i in range(3)], np.uint8)]",
        &[0],
    ),
];

const OPAQUE_RUN: &str = r#"
import sys, futhark_data, numpy as np, prog
f32 = np.float32
def a(xs):
    return np.array(xs, dtype=np.float32)
for i, code in enumerate(sys.argv[1:]):
    scope = {"prog": prog, "np": np, "f32": f32, "a": a}
    try:
        exec(code, scope)
    except prog.Error as e:
        with open("%d.err" % i, "w") as f:
            f.write(str(e))
        continue
    with open("%d.out" % i, "wb") as f:
        for v in scope["out"]:
            futhark_data.dump(v, f, True)
"#;

#[test]
fn opaque_values_in_python_match_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prog.arr");
    library(dir.path(), "prog", OPAQUE, &["--python"], None);
    let program = arrc::driver::pipeline::lowered_library(&path).expect("front end");
    let codes: Vec<&str> = OPAQUE_PY.iter().map(|c| c.2).collect();
    ok(
        Command::new("python3")
            .current_dir(dir.path())
            .arg("-c")
            .arg(OPAQUE_RUN)
            .args(&codes)
            .output()
            .unwrap(),
        "the opaque cases in Python",
    );
    for (i, (entry, input, code, picked)) in OPAQUE_PY.iter().enumerate() {
        let f = program.entries.iter().find(|f| f.name == *entry).unwrap();
        let types: Vec<_> = f.params.iter().map(|p| p.ty).collect();
        let args = read_values(input.as_bytes(), &types).unwrap();
        match arrc::interp::run_entry(&program, entry, args) {
            Ok(expected) => {
                let expected: Vec<Value> = if picked.is_empty() {
                    expected
                } else {
                    picked.iter().map(|&k| expected[k].clone()).collect()
                };
                let bytes = std::fs::read(dir.path().join(format!("{i}.out")))
                    .unwrap_or_else(|_| panic!("{code}: no results"));
                let types: Vec<_> = expected.iter().map(Value::ty).collect();
                let actual = read_values(&bytes, &types).unwrap();
                assert_eq!(actual.len(), expected.len(), "{code}");
                for (a, e) in actual.iter().zip(&expected) {
                    compare(a, e).unwrap_or_else(|why| panic!("{code}: {why}"));
                }
            }
            Err(arrc::interp::RunError::Program(message)) => {
                let raised = std::fs::read_to_string(dir.path().join(format!("{i}.err")))
                    .unwrap_or_else(|_| panic!("{code}: raised nothing"));
                // The interpreter names the file as it was given.
                let message = message.replace(&format!("{}/", dir.path().display()), "");
                assert_eq!(raised.trim(), message.trim(), "{code}");
            }
            Err(e) => panic!("{entry}: {e:?}"),
        }
    }
    // The objects' API: types checked, contexts kept apart, a closed
    // context freed when the last array viewing its memory goes.
    let script = r#"
import numpy as np, prog
ps = prog.arr_point_1d(np.ones(3, np.float32), np.ones(3, np.float32))
assert ps.shape == (3,) and len(ps) == 2
assert ps.index(2).x == 1.0
for bad, error in ((lambda: ps.index(3), prog.Error), (lambda: prog.arr_shape_1d([1.0]), TypeError)):
    try:
        bad()
        raise SystemExit("no error")
    except error:
        pass
assert prog.arr_shape_1d([]).shape == (0,)
try:
    prog.norm(ps)
    raise SystemExit("no TypeError")
except TypeError as e:
    assert "must be a point" in str(e), e
try:
    prog.arr_point_1d(np.ones(3, np.float32), np.ones(2, np.float32))
    raise SystemExit("no Error")
except prog.Error as e:
    assert "size mismatch" in str(e), e
ctx = prog.Context(threads=1)
try:
    ctx.centroid(ps)
    raise SystemExit("no ValueError")
except ValueError:
    pass
big = np.ones(100_000, np.float32)
ps = ctx.scale(3.0, prog.arr_point_1d(big, big, context=ctx))
x = ps.x
# A big projected field is a read-only view; a small one a copy.
assert not x.flags.owndata and not x.flags.writeable
assert ctx.mk_point(1.0, 2.0).y == 2.0
del ps
ctx.close()
assert x[:2].tolist() == [3.0, 3.0] and ctx._ctx
del x
assert not ctx._ctx
print("ok")
"#;
    let out = ok(python(dir.path(), script), "the opaque objects");
    assert_eq!(out, "ok\n");
    // A type named like an entry point: the class is `opaque_NAME`.
    let clash = "type point = {x: f32, y: f32}\n\
         entry point (x: f32) : point = {x = x, y = 2 * x}\n\
         entry getx (p: point) : f32 = p.x\n";
    library(dir.path(), "clash", clash, &["--python"], None);
    let script = "import clash\np = clash.point(1.5)\n\
        assert type(p).__name__ == 'opaque_point' and p.y == 3.0\n\
        print(clash.getx(clash.opaque_point(3.0, 4.0)))\n";
    assert_eq!(ok(python(dir.path(), script), "clash.py"), "3.0\n");
}

/// A GPU library (on the emulator): arrays made by `arrc_new_*` live on
/// the device, a result goes into the next call without a copy back,
/// `arrc_values_*` copies out, and errors in kernels are returned.
const GPU_PROGRAM: &str = "type point = {x: f32, y: f32}\n\
entry step (xs: []f32) : []f32 = map (\\x -> x * 2 + 1) xs\n\
entry total (xs: []f32) : f32 = f32.sum xs\n\
entry at (xs: []f32) (i: i64) : f32 = xs[i]\n\
entry div (xs: []i32) (d: i32) : []i32 = map (\\x -> x / (x - d)) xs\n\
entry spread (ps: []point) : []point = map (\\p -> {x = p.x + p.y, y = p.x - p.y}) ps\n\
entry late (xs: []f32) (i: i64) : []f32 =\n  let ys = map (\\x -> x + 1) xs\n  in map (\\y -> y * ys[i]) ys\n";

/// `main` of the C program for `GPU_PROGRAM`.
const GPU_C: &str = r#"
int main(void) {
    struct arrc_context_config *cfg = arrc_context_config_new();
    struct arrc_context *ctx = arrc_context_new(cfg);
    arrc_context_config_free(cfg);
    enum { N = 1000 };
    float xs[N], out[N];
    for (int i = 0; i < N; i++) xs[i] = (float)i;
    struct arrc_f32_1d *a = arrc_new_f32_1d(ctx, xs, N), *b, *c;
    /* The result of one call is the argument of the next, on the device. */
    report(ctx, arrc_entry_step(ctx, &b, a));
    report(ctx, arrc_entry_step(ctx, &c, b));
    report(ctx, arrc_context_sync(ctx));
    printf("raw %s\n", arrc_values_raw_f32_1d(ctx, c) == NULL ? "none" : "some");
    arrc_values_f32_1d(ctx, c, out);
    printf("step step %g %g %g\n", out[0], out[1], out[N - 1]);
    float sum, at;
    report(ctx, arrc_entry_total(ctx, &sum, c));
    printf("total %g\n", sum);
    report(ctx, arrc_entry_at(ctx, &at, c, N));
    report(ctx, arrc_entry_at(ctx, &at, c, 3));
    printf("at %g\n", at);
    int32_t is[N];
    for (int i = 0; i < N; i++) is[i] = i;
    struct arrc_i32_1d *d = arrc_new_i32_1d(ctx, is, N), *q;
    report(ctx, arrc_entry_div(ctx, &q, d, 700));
    if (report(ctx, arrc_entry_div(ctx, &q, d, -1)) == 0) {
        int32_t r[N];
        arrc_values_i32_1d(ctx, q, r);
        printf("div %d %d\n", r[0], r[N - 1]);
        arrc_free_i32_1d(ctx, q);
    }
    struct arrc_opaque_arr_point_1d *ps, *sp;
    struct arrc_f32_1d *px;
    report(ctx, arrc_new_opaque_arr_point_1d(ctx, &ps, a, c));
    report(ctx, arrc_entry_spread(ctx, &sp, ps));
    report(ctx, arrc_project_opaque_arr_point_1d_y(ctx, &px, sp));
    arrc_values_f32_1d(ctx, px, out);
    printf("spread y %g %g\n", out[0], out[N - 1]);
    arrc_free_f32_1d(ctx, px);
    arrc_free_opaque_arr_point_1d(ctx, sp);
    arrc_free_opaque_arr_point_1d(ctx, ps);
    arrc_free_i32_1d(ctx, d);
    arrc_free_f32_1d(ctx, a);
    arrc_free_f32_1d(ctx, b);
    arrc_free_f32_1d(ctx, c);
    arrc_context_free(ctx);
    return 0;
}
"#;

#[test]
fn a_gpu_library_keeps_its_arrays_on_the_device() {
    let dir = tempfile::tempdir().unwrap();
    let emu = ["--library", "--target", "nvptx-emu"];
    library(
        dir.path(),
        "gpu",
        GPU_PROGRAM,
        &emu,
        Some(&c_program("gpu.h", GPU_C)),
    );
    // Small blocks and grids: the multi-block paths on small inputs.
    let out = run_main(dir.path(), &[("ARRC_GPU_SHRINK", "1")]);
    // x -> 4x + 3; the sum of 4i + 3 over i < 1000 is 1998000 + 3000.
    let expected = "raw none\nstep step 3 7 3999\ntotal 2.001e+06\n\
        Error: index 1000 out of bounds for array of length 1000 at gpu.arr:4:39\n\
        at 15\nError: division by zero at gpu.arr:5:53\ndiv 0 0\nspread y -3 -3000\n";
    assert_eq!(out, expected);
    // The Python module over it gives the CPU module's results.
    build(
        dir.path(),
        &[
            "--python",
            "--target",
            "nvptx-emu",
            "gpu.arr",
            "-o",
            "gpu_emu",
        ],
    );
    build(dir.path(), &["--python", "gpu.arr", "-o", "gpu_cpu"]);
    let script = r#"
import numpy as np, gpu_emu, gpu_cpu
xs = np.random.default_rng(2).random(100_000).astype(np.float32)
for m in (gpu_emu, gpu_cpu):
    r = m.step(m.step(xs))
    ps = m.spread(m.arr_point_1d(xs, r))
    m.result = (r, m.total(r), ps.x, ps.y)
    e = ps.index(7)
    m.result += (e.x, e.y)
for a, b in zip(gpu_emu.result, gpu_cpu.result):
    assert np.allclose(a, b, rtol=1e-3), (a, b)
try:
    gpu_emu.at(xs, -1)
    raise SystemExit("no error")
except gpu_emu.Error as e:
    assert "out of bounds" in str(e), e
print("ok")
"#;
    assert_eq!(ok(python(dir.path(), script), "the GPU module"), "ok\n");
}

/// What a GPU library's contexts hold on the device: a failed call frees
/// what it allocated, freeing a context frees its arrays (and, the last
/// one, the pool's cache) but not another context's, and an array freed
/// after its context is left alone.
const GPU_MEMORY_C: &str = r#"
#include "gpu.h"
#include <stdio.h>
#include <stdlib.h>

/* Not in the header: device bytes held by contexts (0) or from the driver (1). */
int64_t arrc_gpu_device_bytes(int held);

int main(void) {
    struct arrc_context *ctx = arrc_context_new(NULL), *other = arrc_context_new(NULL);
    enum { N = 5000 };
    float xs[N], out[N];
    for (int i = 0; i < N; i++) xs[i] = (float)i;
    struct arrc_f32_1d *a = arrc_new_f32_1d(ctx, xs, N), *b, *c;
    struct arrc_f32_1d *kept = arrc_new_f32_1d(other, xs, N);
    int64_t before = arrc_gpu_device_bytes(0);
    int rc = arrc_entry_late(ctx, &b, a, N);
    char *e = arrc_context_get_error(ctx);
    printf("rc %d: %s", rc, e);
    free(e);
    printf("a failed call leaves %lld bytes more\n",
           (long long)(arrc_gpu_device_bytes(0) - before));
    if (arrc_entry_late(ctx, &b, a, 2) != 0 || arrc_entry_step(ctx, &c, b) != 0) {
        return 1;
    }
    printf("results held %s\n", arrc_gpu_device_bytes(0) > before ? "yes" : "no");
    /* a, b and c are not freed: the context frees them. */
    arrc_context_free(ctx);
    arrc_values_f32_1d(other, kept, out);
    printf("the other context's array %g %g\n", out[1], out[N - 1]);
    /* Freed after its context: left alone (Futhark leaves this undefined). */
    arrc_free_f32_1d(other, a);
    arrc_free_f32_1d(other, kept);
    arrc_context_free(other);
    printf("after the last context: %lld held, %lld from the driver\n",
           (long long)arrc_gpu_device_bytes(0), (long long)arrc_gpu_device_bytes(1));
    return 0;
}
"#;

#[test]
fn a_gpu_library_frees_its_device_memory() {
    let dir = tempfile::tempdir().unwrap();
    let emu = ["--library", "--target", "nvptx-emu"];
    library(dir.path(), "gpu", GPU_PROGRAM, &emu, Some(GPU_MEMORY_C));
    let out = run_main(dir.path(), &[]);
    let expected =
        "rc 1: Error: index 5000 out of bounds for array of length 5000 at gpu.arr:9:21\n\
        a failed call leaves 0 bytes more\nresults held yes\n\
        the other context's array 1 4999\n\
        after the last context: 0 held, 0 from the driver\n";
    assert_eq!(out, expected);
}
