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
    let (d, _) = err("entry main (x: i32) = \\y -> x + y");
    assert!(d.message.contains("non-first-order"), "{d:?}");
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
