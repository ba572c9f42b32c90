//! The checker's work stays proportional to the program: each definition is
//! checked once on its own and once per distinct instantiation, however
//! often it is used (counted, not timed).

use super::*;
use crate::syntax::{parse_program, SourceMap};

fn stats(src: &str) -> (bool, CheckStats) {
    let mut sources = SourceMap::default();
    let file = sources.add("test.arr".into(), src.into());
    let program = parse_program(&sources, file).expect("parses");
    let (result, stats) = check_with_stats(&sources, &[program]);
    (result.is_ok(), stats)
}

/// `depth` definitions, each calling the one before twice.
fn chain(depth: usize, annotated: bool) -> String {
    let mut src = String::new();
    for i in 0..depth {
        let (param, ret) = if annotated {
            ("(x: i32)", " : i32")
        } else {
            ("x", "")
        };
        let body = if i == 0 {
            "x + 1".to_string()
        } else {
            format!("f{p} x + f{p} (x + 1)", p = i - 1)
        };
        src += &format!("def f{i} {param}{ret} = {body}\n");
    }
    src
}

#[test]
fn a_chain_of_monomorphic_definitions_is_checked_once_each() {
    let src = chain(30, true) + "entry main (x: i32) : i32 = f29 x\n";
    let (ok, s) = stats(&src);
    assert!(ok);
    // 30 definitions and the entry point, each checked on its own once and
    // each its own single instance.
    assert_eq!(s.schemes, 31);
    assert_eq!(s.instances, 31);
}

#[test]
fn a_polymorphic_chain_is_elaborated_once_per_type() {
    let src = chain(30, false) + "entry main (a: i32) (b: f64) = (f29 a, f29 b, f29 (a + 1))\n";
    let (ok, s) = stats(&src);
    assert!(ok);
    assert_eq!(s.schemes, 31);
    // Every definition at `i32` and at `f64`, and the entry point.
    assert_eq!(s.instances, 61);
}

#[test]
fn an_unused_definition_is_checked_at_its_types() {
    // `g` is never used, but it is monomorphic: its use of `total` at `bool`
    // is elaborated and fails.
    let src = "def total 't (xs: []t) : t = reduce (+) 0 xs\n\
               def g (bs: []bool) = total bs\n\
               entry main (x: i32) = x";
    assert!(!stats(src).0);
}
