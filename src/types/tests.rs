//! Checker tests on parsed source text.

use super::*;
use crate::syntax::{parse_program, Diagnostic, SourceMap};

fn check_src(src: &str) -> (SourceMap, Result<CheckedProgram, Vec<Diagnostic>>) {
    let mut sources = SourceMap::default();
    let file = sources.add("test.arr".into(), src.into());
    let program = match parse_program(&sources, file) {
        Ok(p) => p,
        Err(ds) => panic!("parse of {src:?} failed: {ds:#?}"),
    };
    let result = check(&sources, &[program]);
    (sources, result)
}

fn ok(src: &str) -> CheckedProgram {
    match check_src(src).1 {
        Ok(p) => p,
        Err(ds) => panic!("check of {src:?} failed: {ds:#?}"),
    }
}

/// The first error, with the source text its span covers.
fn err(src: &str) -> (Diagnostic, String) {
    match check_src(src).1 {
        Ok(_) => panic!("check of {src:?} should fail"),
        Err(mut ds) => {
            let d = ds.remove(0);
            let text = src[d.span.clone()].to_string();
            (d, text)
        }
    }
}

fn entry_ret(src: &str) -> String {
    ok(src).entries[0].ret.to_string()
}

#[test]
fn literals_default_at_the_end() {
    assert_eq!(entry_ret("entry main = 1"), "i32");
    assert_eq!(entry_ret("entry main = 1.5"), "f64");
    assert_eq!(entry_ret("entry main = (1, 2.0, true)"), "(i32, f64, bool)");
}

#[test]
fn literal_fixed_by_later_use() {
    assert_eq!(
        entry_ret("entry main (y: i64) = let x = 1 in let z = x + y in x"),
        "i64"
    );
    assert_eq!(
        entry_ret("entry main = let x = 1 in (x, x + 2.5f32)"),
        "(f32, f32)"
    );
}

#[test]
fn literal_fixed_by_return_type() {
    assert_eq!(entry_ret("entry main : u8 = let x = 3 in x * 2"), "u8");
    assert_eq!(entry_ret("def f : f32 = 2 entry main = f"), "f32");
}

#[test]
fn lambda_parameter_flows_from_array() {
    let src = "entry main (xs: []i32) (ys: []f32) = map (\\p -> p.1) (zip xs ys)";
    assert_eq!(entry_ret(src), "[]f32");
    let src = "entry main (xs: []i32) (ys: []f32) = zip xs ys |> map (\\p -> p.0)";
    assert_eq!(entry_ret(src), "[]i32");
}

#[test]
fn reduce_sum_and_sections() {
    let src = "entry main (xs: []f32) = reduce (+) 0 (map (*2) xs)";
    assert_eq!(entry_ret(src), "f32");
    assert_eq!(entry_ret("entry main (xs: []i64) = scan (+) 0 xs"), "[]i64");
    assert_eq!(
        entry_ret("entry main (n: i64) = map (2-) (iota n)"),
        "[]i64"
    );
}

#[test]
fn polymorphic_def_is_checked_per_instantiation() {
    let src = "def sum 't (xs: []t) : t = reduce (+) 0 xs\n\
               entry main (a: []f32) (b: []i64) = (sum a, sum b)";
    assert_eq!(entry_ret(src), "(f32, i64)");
    let src = "def sum 't (xs: []t) : t = reduce (+) 0 xs\n\
               entry main (a: []bool) = sum a";
    let (d, text) = err(src);
    assert!(d.message.contains("expected `bool`, found `i32`"), "{d:?}");
    assert_eq!(text, "0");
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("instantiation of `sum`") && n.contains("'t = `bool`")),
        "{d:?}"
    );
}

#[test]
fn higher_order_def() {
    let src = "def twice 'a (f: a -> a) (x: a) : a = f (f x)\n\
               entry main (x: i32) = twice (\\y -> y * 3) x";
    assert_eq!(entry_ret(src), "i32");
}

#[test]
fn scalar_modules() {
    assert_eq!(entry_ret("entry main (x: f32) = f32.sqrt x"), "f32");
    assert_eq!(entry_ret("entry main (x: i32) = f64.i32 x"), "f64");
    assert_eq!(entry_ret("entry main (x: f64) = i32.f64 x"), "i32");
    assert_eq!(entry_ret("entry main (x: f32) = f32.max x 1"), "f32");
    assert_eq!(entry_ret("entry main = f32.pi"), "f32");
}

#[test]
fn records_and_size_params() {
    let src = "def dot [n] (xs: [n]f32) (ys: [n]f32) = reduce (+) 0 (map2 (*) xs ys)\n\
               entry main [n] (xs: [n]f32) (ys: [n]f32) = dot xs ys";
    assert_eq!(entry_ret(src), "f32");
    let src = "entry main (x: f32) = let r = {y = x, x = 1} in (r.x, r.y)";
    assert_eq!(entry_ret(src), "(i32, f32)");
}

#[test]
fn mismatch_names_both_types_and_points_at_expression() {
    let (d, text) = err("entry main (x: i32) = x + 1.5");
    assert!(d.message.contains("expected `i32`, found `f64`"), "{d:?}");
    assert_eq!(text, "1.5");
    let (d, text) = err("entry main (x: f64) : i32 = x");
    assert!(d.message.contains("expected `i32`, found `f64`"), "{d:?}");
    assert_eq!(text, "x");
    let (d, text) = err("entry main (b: bool) = if b then 1 else false");
    assert!(d.message.contains("expected `i32`, found `bool`"), "{d:?}");
    assert_eq!(text, "false");
}

#[test]
fn unknown_name_suggests_closest() {
    let (d, text) = err("entry main (xs: []i32) = lenght xs");
    assert_eq!(d.message, "unknown name `lenght`");
    assert_eq!(text, "lenght");
    assert!(
        d.notes.iter().any(|n| n == "did you mean `length`?"),
        "{d:?}"
    );
    let (d, _) = err("entry main (x: f32) = f32.sqr x");
    assert!(d.notes.iter().any(|n| n.contains("f32.sqrt")), "{d:?}");
}

#[test]
fn wrong_number_of_arguments() {
    let (d, text) = err("def f (x: i32) = x + 1\nentry main = f 1 2");
    assert!(d.message.contains("wrong number of arguments"), "{d:?}");
    assert!(
        d.message.contains("`f` takes 1 argument, but 2 were given"),
        "{d:?}"
    );
    assert_eq!(text, "f 1 2");
    let (d, _) = err("entry main = iota 3 4");
    assert!(d.message.contains("`iota` takes 1 argument"), "{d:?}");
}

#[test]
fn entry_points_must_be_first_order() {
    let (d, text) = err("entry main (f: i32 -> i32) = f 1");
    assert!(d.message.contains("non-first-order"), "{d:?}");
    assert_eq!(text, "f: i32 -> i32");
    // A returned function taking a function cannot be eta-expanded.
    let (d, _) = err("entry main (x: i32) = \\(f: i32 -> i32) -> f x");
    assert!(d.message.contains("non-first-order"), "{d:?}");
    // One taking first-order values is: `y` becomes a parameter.
    assert_eq!(
        ok("entry main (x: i32) = \\y -> x + y").entries[0]
            .params
            .len(),
        2
    );
}

#[test]
fn recursion_is_reported_with_its_cycle() {
    let (d, _) = err("def f (x: i32) : i32 = g x\ndef g (x: i32) : i32 = f x\nentry main = f 1");
    assert!(d.message.contains("recursive definition"), "{d:?}");
    assert!(d.message.contains("`f` -> `g` -> `f`"), "{d:?}");
}

#[test]
fn duplicate_definition() {
    let src = "def f = 1\ndef f = 2\nentry main = f";
    let (d, _) = err(src);
    assert_eq!(d.message, "duplicate definition of `f`");
    assert_eq!(d.span, 14..15);
}

#[test]
fn later_programs_shadow_earlier_ones() {
    let mut sources = SourceMap::default();
    let lib = sources.add("lib.arr".into(), "def k = 1i64\ndef g = k".into());
    let main = sources.add("main.arr".into(), "def k = 2i8\nentry main = (k, g)".into());
    let programs = vec![
        parse_program(&sources, lib).unwrap(),
        parse_program(&sources, main).unwrap(),
    ];
    let checked = check(&sources, &programs).unwrap();
    assert_eq!(checked.entries[0].ret.to_string(), "(i8, i64)");
}

#[test]
fn literal_out_of_range() {
    let (d, _) = err("entry main : u8 = 256");
    assert!(d.message.contains("does not fit"), "{d:?}");
}

#[test]
fn never_panics_on_odd_programs() {
    for src in [
        "entry main = (1, 2).5",
        "entry main (x: i32) = x[0]",
        "entry main (xs: []i32) = xs[0, 1]",
        "entry main = \\x -> x",
        "entry main 't (x: t) = x",
        "def f [n] (x: i32) = x\nentry main = f 1",
        "type t = t\nentry main (x: t) = x",
        "entry main = let f x = x in (f 1, f true)",
        "entry main = map (\\p -> p.0) []",
        "entry main (xs: [n]i32) = xs",
    ] {
        let _ = check_src(src);
    }
}

#[test]
fn loops_of_every_form() {
    let src = "entry main (n: i32) = loop acc = 0 for i < n do acc + i";
    assert_eq!(entry_ret(src), "i32");
    // `i` has the type of the bound.
    let src = "entry main (n: i64) = loop acc = 0 for i < n do acc + i";
    assert_eq!(entry_ret(src), "i64");
    let src = "entry main (xs: []f32) = loop s = 0 for x in xs do s + x";
    assert_eq!(entry_ret(src), "f32");
    let src = "entry main = loop (i, x) = (0, 1u8) while i < 10 do (i + 1, x * 2)";
    assert_eq!(entry_ret(src), "(i32, u8)");
    let src = "entry main (x: f64) = loop x for i < 3 do x * 2";
    assert_eq!(entry_ret(src), "f64");
    let src =
        "entry main (a: i32) (b: f32) = let (a, b) = loop (a, b) for i < 3 do (a + 1, b) in b";
    assert_eq!(entry_ret(src), "f32");
    let src = "entry main = let r = loop {a, b = c} = {b = 2.0, a = 1} for i < 3 do {a = a + 1, b = c * 2} in (r.a, r.b)";
    assert_eq!(entry_ret(src), "(i32, f64)");
    let src =
        "entry main (xss: [][]i32) = loop s = 0 for (xs: []i32) in xss do s + reduce (+) 0 xs";
    assert_eq!(entry_ret(src), "i32");
}

#[test]
fn loop_errors() {
    let (d, text) = err("entry main = loop x = 0 while x do x + 1");
    assert!(
        d.message
            .contains("the `while` condition must be `bool`, found `i32`"),
        "{d:?}"
    );
    assert_eq!(text, "x");
    let (d, text) = err("entry main = loop x = 0 for i < 2.5 do x");
    assert!(
        d.message.contains("integer type for the `for` bound"),
        "{d:?}"
    );
    assert_eq!(text, "2.5");
    let (d, text) = err("entry main = loop x = 0 for i < 3 do true");
    assert!(d.message.contains("expected `i32`, found `bool`"), "{d:?}");
    assert_eq!(text, "true");
    let (d, _) = err("entry main (x: i32) = loop x for y in x do x");
    assert!(d.message.contains("needs an array"), "{d:?}");
    let (d, text) = err("entry main = loop y for i < 3 do y");
    assert!(d.message.contains("needs a variable `y` in scope"), "{d:?}");
    assert_eq!(text, "y");
}

#[test]
fn slices_and_updates() {
    let src = "entry main (m: [][]f32) (i: i64) = (m[1:3, 1:3], m[:, 0], m[i, :], m[1:], m[:2], m[2:0:-1], m[::2])";
    assert_eq!(
        entry_ret(src),
        "([][]f32, []f32, []f32, [][]f32, [][]f32, [][]f32, [][]f32)"
    );
    assert_eq!(entry_ret("entry main (t: [][][]i32) = t[0, 1]"), "[]i32");
    assert_eq!(
        entry_ret("entry main (t: [][][]i32) = t[0, 1:, 2]"),
        "[]i32"
    );
    let src = "entry main (m: [][]i32) (xs: []i32) = (m with [0, 1] = 5, m with [1] = xs)";
    assert_eq!(entry_ret(src), "([][]i32, [][]i32)");
    let src = "entry main (xs: *[]i32) = let xs[0] = 7 in xs";
    assert_eq!(entry_ret(src), "[]i32");
    // `let a[i] = v` consumes `a`: a parameter must be unique for that.
    let (d, text) = err("entry main (xs: []i32) = let xs[0] = 7 in xs");
    assert!(d.message.contains("not consumable"), "{d:?}");
    assert_eq!(text, "xs[0] = 7");
    let (d, text) = err("entry main (x: i32) = x[1:2]");
    assert!(
        d.message.contains("cannot slice a value of type `i32`"),
        "{d:?}"
    );
    assert_eq!(text, "x");
    let (d, _) = err("entry main (xs: []i32) = xs[1:2, 0]");
    assert!(d.message.contains("too many indices"), "{d:?}");
    let (d, _) = err("entry main (xs: []i32) = xs[::0]");
    assert!(d.message.contains("stride"), "{d:?}");
    let (d, text) = err("entry main (xs: []i32) = xs with [0] = 1.5");
    assert!(d.message.contains("expected `i32`, found `f64`"), "{d:?}");
    assert_eq!(text, "1.5");
}

#[test]
fn array_builtins() {
    for (src, ty) in [
        ("entry main (xs: []i32) = xs ++ [1, 2]", "[]i32"),
        ("entry main (xs: []i32) = concat xs xs", "[]i32"),
        ("entry main (xs: []i32) = filter (\\x -> x > 0) xs", "[]i32"),
        (
            "entry main (xs: []i32) = partition (\\x -> x > 0) xs",
            "([]i32, []i32)",
        ),
        (
            "entry main (xs: []f32) (is: []i64) = scatter xs is xs",
            "[]f32",
        ),
        (
            "entry main (xs: []f32) (is: []i64) = hist (+) 0 10 is xs",
            "[]f32",
        ),
        (
            "entry main (xs: []f32) (is: []i64) = reduce_by_index xs (+) 0 is xs",
            "[]f32",
        ),
        ("entry main (xs: []i32) = scanr (+) 0 xs", "[]i32"),
        ("entry main (m: [][]i32) = transpose m", "[][]i32"),
        ("entry main (m: [][]i32) = flatten m", "[]i32"),
        ("entry main (xs: []i32) = unflatten 2 3 xs", "[][]i32"),
        (
            "entry main (xs: []i32) = (reverse xs, rotate (-1) xs)",
            "([]i32, []i32)",
        ),
        (
            "entry main (n: i64) = tabulate n (\\i -> f32.i64 i)",
            "[]f32",
        ),
        ("entry main = tabulate_2d 2 3 (\\i j -> i + j)", "[][]i64"),
        (
            "entry main = tabulate_3d 2 3 4 (\\i j k -> i * j * k)",
            "[][][]i64",
        ),
        ("entry main (m: [][][]f32) = length m", "i64"),
        (
            "entry main (m: [][]f32) = map (\\row -> reduce (+) 0 row) m",
            "[]f32",
        ),
        (
            "entry main (m: [][]i32) = reduce (map2 (+)) (replicate 3 0) m",
            "[]i32",
        ),
        (
            "entry main (a: []i32) (b: []f32) (c: []bool) = unzip3 (zip3 a b c)",
            "([]i32, []f32, []bool)",
        ),
        ("entry main (xs: []i32) = reduce_comm (+) 0 xs", "i32"),
    ] {
        assert_eq!(entry_ret(src), ty, "{src}");
    }
    let (d, text) = err("entry main (xs: []i32) = filter (\\x -> x) xs");
    assert!(d.message.contains("expected `bool`, found `i32`"), "{d:?}");
    assert_eq!(text, "x");
    let (d, _) = err("entry main (xs: []i32) = filter (\\x -> true) xs xs");
    assert!(
        d.message
            .contains("`filter` takes 2 arguments, but 3 were given"),
        "{d:?}"
    );
    let (d, text) = err("entry main = 1 ++ 2");
    assert!(d.message.contains("`++` needs arrays"), "{d:?}");
    assert_eq!(text, "1");
    let (d, _) = err("entry main (xs: []i32) = transpose xs");
    assert!(d.message.contains("type mismatch"), "{d:?}");
}

#[test]
fn type_parameter_members() {
    let src = "def mx 't (xs: []t) : t = reduce t.max t.lowest xs\n\
               entry main (a: []f32) (b: []u8) = (mx a, mx b)";
    assert_eq!(entry_ret(src), "(f32, u8)");
    let src = "def lo 't (x: t) : t = t.max x t.lowest\nentry main = lo 3";
    assert_eq!(entry_ret(src), "i32");
    let src = "def avg 't (xs: []t) : t = reduce (+) 0 xs / t.i64 (length xs)\n\
               entry main (a: []f64) = avg a";
    assert_eq!(entry_ret(src), "f64");
    let (d, _) = err("def s 't (x: t) : t = t.sqrt x\nentry main = s 1i32");
    assert!(d.message.contains("found `i32`"), "{d:?}");
    assert!(
        d.notes.iter().any(|n| n.contains("instantiation of `s`")),
        "{d:?}"
    );
    let (d, _) = err("def s 't (x: t) : t = t.sqrtt x\nentry main = s 1f32");
    assert!(d.message.contains("unknown member `sqrtt`"), "{d:?}");
    assert!(d.notes.iter().any(|n| n.contains("t.sqrt")), "{d:?}");
}

#[test]
fn records_fields_and_errors() {
    let src = "type point = {x: f32, y: f32}\n\
               entry main (xs: []f32) = let ps = map (\\x -> {y = x, x = 2 * x}) xs\n\
               in map (\\p -> p.x + p.y) ps";
    assert_eq!(entry_ret(src), "[]f32");
    let src = "def f ({lo, hi}: {lo: i32, hi: i32}) = hi - lo\nentry main = f {hi = 5, lo = 2}";
    assert_eq!(entry_ret(src), "i32");
    let (d, _) = err("entry main (x: i32) = x.foo");
    assert!(d.message.contains("has no field `foo`"), "{d:?}");
    let (d, _) = err("entry main = let r = {alpha = 1} in r.alpah");
    assert!(
        d.notes.iter().any(|n| n == "did you mean `alpha`?"),
        "{d:?}"
    );
}

#[test]
fn never_panics_on_new_constructs() {
    for src in [
        "entry main = loop _ for i < 3 do 1",
        "entry main = loop x = 1 for i < 3 do \\y -> y",
        "entry main (xs: []i32) = xs[::]",
        "entry main (xs: []i32) = xs with [1:2] = xs",
        "entry main (xs: []i32) = xs with [0, 0] = 1",
        "def f 't (x: t) = t.lowest\nentry main = f true",
        "def f 't (x: t) = t.i64 1\nentry main = f [1]",
        "entry main = t.lowest",
        "entry main = unflatten 1 1 []",
        "entry main = loop (a, b) = 1 for i < 2 do a",
    ] {
        let _ = check_src(src);
    }
}

#[test]
fn static_sizes_arity_and_literal_range() {
    let (d, text) = err("entry main (xs: []i32) (ys: []i32) = map2 (\\x -> x + 1) xs ys");
    assert_eq!(
        d.message,
        "this function takes 1 parameter, but 2 are expected here"
    );
    assert_eq!(text, "\\x -> x + 1");
    let (d, text) = err("entry main (x: i32) = [[x, 1], [2]]");
    assert!(d.message.contains("irregular array literal"), "{d:?}");
    assert_eq!(text, "[2]");
    let (d, text) = err("def f (a: [3]i32) = a\nentry main = f [1, 2, 3, 4]");
    assert_eq!(d.message, "size mismatch: expected size 3, found 4");
    assert_eq!(text, "[1, 2, 3, 4]");
    let (d, _) = err("def f [n] (a: [n]i32) (b: [n]i32) = a\nentry main = f [1] [1, 2]");
    assert!(d.message.contains("size mismatch"), "{d:?}");
    let (d, text) = err("entry main (x: i32) : [2]i32 = [x, x, x]");
    assert!(d.message.contains("expected size 2, found 3"), "{d:?}");
    assert_eq!(text, "[x, x, x]");
    let (d, _) = err("entry main (x: i8) = x + 200");
    assert_eq!(d.message, "literal `200` does not fit in type `i8`");
    assert_eq!(
        entry_ret("entry main = (-128i8, 255u8, 127i8)"),
        "(i8, u8, i8)"
    );
    let (d, _) = err("entry main = -129i8");
    assert!(d.message.contains("does not fit"), "{d:?}");
    // Unbound type variables read as 'a, 'b in messages.
    let (d, _) = err("entry main (x: i32) = map (+ 1) x");
    assert!(d.message.contains("expected `[]'a`, found `i32`"), "{d:?}");
}

// ----- consumption (uniqueness types) -----------------------------------

const FILL: &str = "def fill (xs: *[]i32) : *[]i32 = map (\\_ -> 0) xs\n\
                    def cp (xs: []i32) : *[]i32 = map (\\x -> x) xs\n";

#[test]
fn consumed_argument_used_later_is_an_error() {
    let src =
        format!("{FILL}entry main (xs: *[]i32) : (i32, []i32) = let ys = fill xs in (xs[0], ys)");
    let (d, text) = err(&src);
    assert!(
        d.message.contains("`xs` is used after it was consumed"),
        "{}",
        d.message
    );
    assert_eq!(text, "xs");
    // The consumption is the second location.
    let (span, _) = &d.secondary[0];
    assert_eq!(&src[span.clone()], "xs");
    assert!(span.start < d.span.start);
}

#[test]
fn alias_of_consumed_array_is_an_error() {
    let src = format!(
        "{FILL}entry main (xs: *[]i32) : []i32 = let v = xs[1:] let ys = fill xs in map2 (+) ys (v ++ [0])"
    );
    let (d, text) = err(&src);
    assert!(
        d.message.contains("`v` is used after `xs`"),
        "{}",
        d.message
    );
    assert_eq!(text, "v");
}

#[test]
fn consumption_in_a_branch_counts_after_the_if() {
    let src = format!(
        "{FILL}entry main (b: bool) (xs: *[]i32) : []i32 = let ys = if b then fill xs else cp xs in map2 (+) ys xs"
    );
    assert!(err(&src).0.message.contains("consumed"));
}

#[test]
fn loop_consuming_an_outer_array_is_an_error() {
    let src = format!(
        "{FILL}entry main (xs: *[]i32) (n: i64) : i32 = loop acc = 0 for _i < n do acc + (fill xs)[0]"
    );
    let msg = err(&src).0.message;
    assert!(msg.contains("`xs` is consumed in a loop body"), "{msg}");
}

#[test]
fn programs_without_consumption_errors_pass() {
    // A copy, a fresh result, a loop threading its own state, and `with`
    // (value semantics) consume nothing that is used again.
    ok(&format!(
        "{FILL}entry a (xs: []i32) : ([]i32, []i32) = (fill (cp xs), xs)\n\
         entry b (xs: *[]i32) : []i32 = let ys = fill xs in fill ys\n\
         entry c (xs: *[]i32) (n: i64) : []i32 = loop ys = xs for _i < n do fill ys\n\
         entry d (xs: []i32) : ([]i32, []i32) = (xs with [0] = 1, xs)\n\
         entry e (xs: *[]i32) : []i32 = let f (ys: *[]i32) = fill ys in f xs"
    ));
}

#[test]
fn module_ascription_requires_listed_names() {
    let (d, _) = err("module type z = { type t val zero : t }\n\
         module M : z = { type t = i32 }\n\
         entry main (x: i32) : i32 = x");
    assert!(
        d.message.contains("does not define value `zero`"),
        "{}",
        d.message
    );
}

#[test]
fn point_free_entry_takes_its_function_parameters() {
    let p = ok("def main = map (\\(x: f32) -> x + 1)");
    assert_eq!(p.entries[0].params.len(), 1);
    assert_eq!(p.entries[0].ret.to_string(), "[]f32");
}

#[test]
fn name_bound_after_a_consumption_is_usable() {
    // Futhark's uniqueness14: `x` aliases `a` only where `a` is not consumed.
    ok(&format!(
        "{FILL}entry main (n: i64) : []i32 = let a = map i32.i64 (iota n) \
         let x = if n == 0 then a else fill a in x"
    ));
}
