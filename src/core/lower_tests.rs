//! Lowering tests: source text through the checker to core IR.

use super::lower;
use crate::core::ir::*;
use crate::core::print::print_program;
use crate::syntax::{parse_program, SourceMap};
use crate::types::{check, ScalarType};

fn lower_src(src: &str) -> Program {
    let mut sources = SourceMap::default();
    let file = sources.add("test.arr".into(), src.into());
    let program = parse_program(&sources, file).expect("parses");
    let checked = match check(&sources, &[program]) {
        Ok(c) => c,
        Err(ds) => panic!("check failed: {ds:#?}"),
    };
    lower(&checked, &sources)
}

fn soacs(body: &Body) -> Vec<&Soac> {
    body.stms
        .iter()
        .filter_map(|s| match &s.exp {
            Exp::Soac(soac) => Some(soac),
            _ => None,
        })
        .collect()
}

fn stm_kinds(body: &Body) -> Vec<&'static str> {
    body.stms
        .iter()
        .map(|s| match &s.exp {
            Exp::Soac(Soac {
                kind: SoacKind::Map(_),
                ..
            }) => "map",
            Exp::Soac(Soac {
                kind: SoacKind::Reduce { .. },
                ..
            }) => "reduce",
            Exp::Soac(Soac {
                kind: SoacKind::Scan { .. },
                ..
            }) => "scan",
            Exp::Size { .. } => "size",
            Exp::AssertEqSizes(..) => "assert_eq_sizes",
            Exp::Index { .. } => "index",
            Exp::If { .. } => "if",
            Exp::BinOp(..) => "binop",
            _ => "other",
        })
        .collect()
}

#[test]
fn map_then_reduce_in_anf() {
    let p = lower_src("entry main (xs: []f32) = reduce (+) 0 (map (*2) xs)");
    let f = &p.entries[0];
    assert_eq!(p.files, vec!["test.arr".to_string()]);
    assert_eq!(f.params[0].ty, Type::Array(ScalarType::F32, 1));
    assert_eq!(f.ret, vec![Type::Scalar(ScalarType::F32)]);
    assert_eq!(stm_kinds(&f.body), ["size", "map", "reduce"]);
    let s = soacs(&f.body);
    let SoacKind::Map(lam) = &s[0].kind else {
        panic!()
    };
    assert_eq!(lam.params.len(), 1);
    assert_eq!(lam.params[0].ty, Type::Scalar(ScalarType::F32));
    assert_eq!(stm_kinds(&lam.body), ["binop"]);
    let SoacKind::Reduce { op, neutral } = &s[1].kind else {
        panic!()
    };
    assert_eq!(op.params.len(), 2);
    assert_eq!(neutral, &vec![Atom::Const(crate::types::Const::F32(0.0))]);
    // The width is the size of the first argument; the map's width is reused
    // for its result.
    let Exp::Size { array, dim: 0 } = &f.body.stms[0].exp else {
        panic!()
    };
    assert_eq!(*array, f.params[0].id);
    assert_eq!(s[0].width, s[1].width);
    assert_ne!(s[0].label, s[1].label);
    // The map is blamed on the application `map (*2) xs`.
    assert_eq!(
        f.body.stms[1].loc,
        SrcLoc {
            file: 0,
            line: 1,
            col: 40
        }
    );
}

#[test]
fn tuples_are_flattened() {
    let p = lower_src(
        "entry main (xs: []f32) (ys: []f32) =\n  let (a, b) = unzip (map2 (\\x y -> (x + y, x * y)) xs ys) in (b, a, 1i64)",
    );
    let f = &p.entries[0];
    assert_eq!(f.ret.len(), 3);
    assert_eq!(
        stm_kinds(&f.body),
        ["size", "size", "assert_eq_sizes", "map"]
    );
    let map = &f.body.stms[3];
    assert_eq!(map.pat.len(), 2);
    assert_eq!(map.pat[0].name, "a");
    assert_eq!(f.body.result[0], Atom::Var(map.pat[1].id));
    assert_eq!(f.body.result[2], Atom::Const(crate::types::Const::I64(1)));
    // The size check is blamed on the map2 call.
    assert_eq!(
        f.body.stms[2].loc,
        SrcLoc {
            file: 0,
            line: 2,
            col: 23
        }
    );
}

#[test]
fn size_params_avoid_run_time_checks() {
    let p = lower_src(
        "def dot [n] (xs: [n]f32) (ys: [n]f32) = reduce (+) 0 (map2 (*) xs ys)\n\
         entry main [n] (xs: [n]f32) (ys: [n]f32) = dot xs ys",
    );
    let f = &p.entries[0];
    assert_eq!(f.size_params.len(), 1);
    assert_eq!(f.size_params[0].uses, vec![(0, 0), (1, 0)]);
    assert_eq!(stm_kinds(&f.body), ["map", "reduce"]);
    assert_eq!(soacs(&f.body)[0].width, Atom::Var(f.size_params[0].var.id));
}

#[test]
fn higher_order_defs_are_inlined() {
    let p = lower_src(
        "def twice 'a (f: a -> a) (x: a) : a = f (f x)\n\
         def apply_all (g: f64 -> f64) (xs: []f64) = map g xs\n\
         entry main (x: i32) (xs: []f64) = (twice (\\y -> y * 3) x, apply_all (twice (+1)) xs)",
    );
    let f = &p.entries[0];
    assert_eq!(stm_kinds(&f.body), ["binop", "binop", "size", "map"]);
    let SoacKind::Map(lam) = &soacs(&f.body)[0].kind else {
        panic!()
    };
    assert_eq!(stm_kinds(&lam.body), ["binop", "binop"]);
}

#[test]
fn short_circuit_and_indexing() {
    let p = lower_src("entry main (xs: []i32) (i: i64) = i < length xs && xs[i] > 0");
    let f = &p.entries[0];
    assert_eq!(stm_kinds(&f.body), ["size", "binop", "if"]);
    let Exp::If { then_body, .. } = &f.body.stms[2].exp else {
        panic!()
    };
    assert_eq!(stm_kinds(then_body), ["index", "binop"]);
    assert_eq!(
        then_body.stms[0].loc,
        SrcLoc {
            file: 0,
            line: 1,
            col: 52
        }
    );
}

#[test]
fn variables_are_unique_across_the_program() {
    let p = lower_src(
        "entry a (xs: []i32) = map (+1) xs\nentry b (xs: []i32) = scan (+) 0 (map (*2) xs)",
    );
    let mut seen = std::collections::HashSet::new();
    fn visit(body: &Body, seen: &mut std::collections::HashSet<VarId>) {
        for s in &body.stms {
            for v in &s.pat {
                assert!(seen.insert(v.id), "{:?} bound twice", v.id);
            }
            if let Exp::Soac(soac) = &s.exp {
                let lam = match &soac.kind {
                    SoacKind::Map(l) => l,
                    SoacKind::Reduce { op, .. } | SoacKind::Scan { op, .. } => op,
                };
                for v in &lam.params {
                    assert!(seen.insert(v.id));
                }
                visit(&lam.body, seen);
            }
        }
    }
    for f in &p.entries {
        for v in &f.params {
            assert!(seen.insert(v.id));
        }
        visit(&f.body, &mut seen);
    }
    assert_eq!(p.entries.len(), 2);
    let labels: Vec<SoacId> = p
        .entries
        .iter()
        .flat_map(|f| soacs(&f.body))
        .map(|s| s.label)
        .collect();
    assert_eq!(labels, vec![SoacId(0), SoacId(1), SoacId(2)]);
}

#[test]
fn dumps_are_printable() {
    let p = lower_src("entry main (n: i64) = let xs = iota n in (xs[0], replicate n 1.5f32)");
    let text = print_program(&p);
    assert!(text.contains("iota"), "{text}");
    assert!(text.contains("replicate"), "{text}");
}

#[test]
fn normalise2_has_five_soacs_and_no_size_checks() {
    let p = lower_src(
        "entry main (xs: []f32) : ([]f32, []f32) =\n\
         let sum1 = reduce (+) 0 xs\n\
         let scn = scan (+) 0 xs\n\
         let sum2 = reduce (+) 0 scn\n\
         let ys1 = map (\\x -> x / sum1) xs\n\
         let ys2 = map (\\x -> x / sum2) xs\n\
         in (ys1, ys2)",
    );
    let f = &p.entries[0];
    assert_eq!(
        stm_kinds(&f.body),
        ["size", "reduce", "scan", "reduce", "map", "map"]
    );
    assert_eq!(f.body.stms[2].pat[0].name, "scn");
}
