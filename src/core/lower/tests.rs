//! Lowering tests: source text through the checker to core IR.

use super::lower;
use crate::core::ir::*;
use crate::core::print::print_program;
use crate::syntax::{parse_program, SourceMap};
use crate::types::{check, ScalarType};

fn lower_src(src: &str) -> Program {
    lower_programs(&[("test.arr", src)])
}

/// Lowers `src` after the standard library, as the driver does.
fn lower_with_stdlib(src: &str) -> Program {
    let prelude = include_str!("../../../stdlib/prelude.arr");
    lower_programs(&[("stdlib/prelude.arr", prelude), ("test.arr", src)])
}

fn lower_programs(files: &[(&str, &str)]) -> Program {
    let mut sources = SourceMap::default();
    let mut programs = Vec::new();
    for (name, src) in files {
        let file = sources.add(name.to_string(), src.to_string());
        programs.push(parse_program(&sources, file).expect("parses"));
    }
    let checked = match check(&sources, &programs) {
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
                let Some(lam) = soac.kind.lambda() else {
                    continue;
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

/// Every statement of a body and of the bodies nested in it.
fn all_stms(body: &Body) -> Vec<&Stm> {
    let mut out = Vec::new();
    for s in &body.stms {
        out.push(s);
        match &s.exp {
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                out.extend(all_stms(then_body));
                out.extend(all_stms(else_body));
            }
            Exp::Loop { form, body, .. } => {
                if let LoopForm::While { cond } = form {
                    out.extend(all_stms(cond));
                }
                out.extend(all_stms(body));
            }
            Exp::Soac(soac) => {
                if let Some(lam) = soac.kind.lambda() {
                    out.extend(all_stms(&lam.body));
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn for_loop_carries_flattened_state() {
    let p =
        lower_src("entry main (n: i64) = loop (a, b) = (0i64, 1.5f32) for i < n do (a + i, b * 2)");
    let f = &p.entries[0];
    assert_eq!(f.ret.len(), 2);
    let Exp::Loop { params, form, body } = &f.body.stms[0].exp else {
        panic!("{:?}", f.body.stms)
    };
    assert_eq!(params.len(), 2);
    assert_eq!(params[0].1, Atom::Const(crate::types::Const::I64(0)));
    let LoopForm::For { index, bound } = form else {
        panic!()
    };
    assert_eq!(index.ty, Type::Scalar(ScalarType::I64));
    assert_eq!(*bound, Atom::Var(f.params[0].id));
    assert_eq!(body.result.len(), 2);
    assert_eq!(f.body.stms[0].pat.len(), 2);
    assert_eq!(f.body.result[1], Atom::Var(f.body.stms[0].pat[1].id));
}

#[test]
fn for_in_reads_a_row_per_iteration() {
    let p =
        lower_src("entry main (m: [][]f32) = loop acc = 0 for row in m do acc + reduce (+) 0 row");
    let f = &p.entries[0];
    assert_eq!(stm_kinds(&f.body), ["size", "other"]);
    let Exp::Loop { form, body, .. } = &f.body.stms[1].exp else {
        panic!()
    };
    let LoopForm::For { bound, .. } = form else {
        panic!()
    };
    assert_eq!(*bound, Atom::Var(f.body.stms[0].pat[0].id));
    assert_eq!(stm_kinds(body)[0], "index");
    assert_eq!(body.stms[0].pat[0].ty, Type::Array(ScalarType::F32, 1));
}

#[test]
fn while_loop_condition_sees_the_state() {
    let p = lower_src("entry main (x: i32) = loop y = x while y < 100 do y * 2");
    let f = &p.entries[0];
    let Exp::Loop { params, form, .. } = &f.body.stms[0].exp else {
        panic!()
    };
    let LoopForm::While { cond } = form else {
        panic!()
    };
    let Exp::BinOp(BinOp::Lt, Atom::Var(v), _) = &cond.stms[0].exp else {
        panic!()
    };
    assert_eq!(*v, params[0].0.id);
    assert_eq!(cond.result.len(), 1);
}

#[test]
fn slices_use_futhark_defaults() {
    let p = lower_src("entry main (xs: []i32) = (xs[2:], xs[::-1], xs[1:3:1])");
    let f = &p.entries[0];
    let slices: Vec<&Vec<DimSlice>> = f
        .body
        .stms
        .iter()
        .filter_map(|s| match &s.exp {
            Exp::Slice { dims, .. } => Some(dims),
            _ => None,
        })
        .collect();
    assert_eq!(slices.len(), 3);
    let i64c = |v: i64| Atom::Const(crate::types::Const::I64(v));
    let DimSlice::Range { start, end, stride } = slices[0][0] else {
        panic!()
    };
    assert_eq!((start, stride), (i64c(2), i64c(1)));
    assert!(matches!(end, Atom::Var(_)));
    let DimSlice::Range { start, end, stride } = slices[1][0] else {
        panic!()
    };
    assert!(matches!(start, Atom::Var(_)), "n - 1");
    assert_eq!((end, stride), (i64c(-1), i64c(-1)));
    assert_eq!(
        slices[2][0],
        DimSlice::Range {
            start: i64c(1),
            end: i64c(3),
            stride: i64c(1)
        }
    );
}

#[test]
fn mixed_slice_and_update_on_matrices() {
    let p = lower_src("entry main (m: [][]f32) (j: i64) = (m[:, j], m with [0, j] = 1)");
    let f = &p.entries[0];
    let slice = f
        .body
        .stms
        .iter()
        .find(|s| matches!(s.exp, Exp::Slice { .. }))
        .expect("a slice");
    assert_eq!(slice.pat[0].ty, Type::Array(ScalarType::F32, 1));
    let Exp::Slice { dims, .. } = &slice.exp else {
        panic!()
    };
    assert_eq!(dims[1], DimSlice::Index(Atom::Var(f.params[1].id)));
    let update = f
        .body
        .stms
        .iter()
        .find(|s| matches!(s.exp, Exp::Update { .. }))
        .expect("an update");
    let Exp::Update { indices, value, .. } = &update.exp else {
        panic!()
    };
    assert_eq!(indices.len(), 2);
    assert_eq!(*value, Atom::Const(crate::types::Const::F32(1.0)));
}

#[test]
fn filter_and_partition_of_zipped_arrays() {
    let p = lower_src(
        "entry main (xs: []i32) (ys: []f32) =\n\
         let (a, b) = unzip (filter (\\(x, _) -> x > 0) (zip xs ys))\n\
         let (p, q) = partition (\\x -> x > 0) xs\n\
         in (a, b, p, q)",
    );
    let f = &p.entries[0];
    let s = soacs(&f.body);
    let SoacKind::Filter { pred } = &s[0].kind else {
        panic!()
    };
    assert_eq!(pred.params.len(), 2);
    assert_eq!(s[0].args.len(), 2);
    let SoacKind::Partition { .. } = &s[1].kind else {
        panic!()
    };
    let part = f
        .body
        .stms
        .iter()
        .find(|st| matches!(&st.exp, Exp::Soac(x) if matches!(x.kind, SoacKind::Partition { .. })))
        .expect("partition");
    assert_eq!(part.pat.len(), 2);
    assert_eq!(f.ret.len(), 4);
}

#[test]
fn scatter_hist_and_reduce_by_index() {
    let p = lower_src(
        "entry main (d: []f32) (is: []i64) (vs: []f32) =\n\
         (scatter d is vs, hist (+) 0 4 is vs, reduce_by_index d f32.max f32.lowest is vs)",
    );
    let f = &p.entries[0];
    let s = soacs(&f.body);
    let SoacKind::Scatter { dest, .. } = &s[0].kind else {
        panic!()
    };
    assert_eq!(dest, &vec![f.params[0].id]);
    assert_eq!(s[0].args, vec![f.params[1].id, f.params[2].id]);
    let SoacKind::Hist { op, bins, dest, .. } = &s[1].kind else {
        panic!()
    };
    assert_eq!(op.params.len(), 2);
    assert_eq!(*bins, Atom::Const(crate::types::Const::I64(4)));
    assert!(dest.is_none());
    let SoacKind::Hist { dest, neutral, .. } = &s[2].kind else {
        panic!()
    };
    assert_eq!(dest, &Some(vec![f.params[0].id]));
    assert_eq!(
        neutral,
        &vec![Atom::Const(crate::types::Const::F32(f32::NEG_INFINITY))]
    );
}

#[test]
fn tabulate_2d_nests_maps_over_iotas() {
    let p = lower_src("entry main (n: i64) (m: i64) = tabulate_2d n m (\\i j -> i * m + j)");
    let f = &p.entries[0];
    assert_eq!(stm_kinds(&f.body), ["other", "other", "map"]);
    let SoacKind::Map(outer) = &soacs(&f.body)[0].kind else {
        panic!()
    };
    assert_eq!(outer.ret, vec![Type::Array(ScalarType::I64, 1)]);
    assert_eq!(stm_kinds(&outer.body), ["map"]);
    assert_eq!(f.ret, vec![Type::Array(ScalarType::I64, 2)]);
}

#[test]
fn reshaping_builtins_and_concat() {
    let p = lower_src(
        "entry main (m: [][]i32) (xs: []i32) =\n\
         (transpose m, flatten m, unflatten 2 2 xs, reverse xs, rotate 1 xs, xs ++ xs, concat xs xs)",
    );
    let f = &p.entries[0];
    let kinds: Vec<&str> = f
        .body
        .stms
        .iter()
        .filter_map(|s| match &s.exp {
            Exp::Transpose(_) => Some("transpose"),
            Exp::Flatten(_) => Some("flatten"),
            Exp::Unflatten { .. } => Some("unflatten"),
            Exp::Reverse(_) => Some("reverse"),
            Exp::Rotate { .. } => Some("rotate"),
            Exp::Concat(_) => Some("concat"),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "transpose",
            "flatten",
            "unflatten",
            "reverse",
            "rotate",
            "concat",
            "concat"
        ]
    );
    assert_eq!(
        f.ret,
        vec![
            Type::Array(ScalarType::I32, 2),
            Type::Array(ScalarType::I32, 1),
            Type::Array(ScalarType::I32, 2),
            Type::Array(ScalarType::I32, 1),
            Type::Array(ScalarType::I32, 1),
            Type::Array(ScalarType::I32, 1),
            Type::Array(ScalarType::I32, 1),
        ]
    );
}

#[test]
fn assert_is_checked_before_its_body() {
    let p = lower_src("entry main (x: i32) = assert (x > 0) (100 / x)");
    let f = &p.entries[0];
    let kinds: Vec<bool> = f
        .body
        .stms
        .iter()
        .map(|s| matches!(s.exp, Exp::Assert(..)))
        .collect();
    assert_eq!(kinds, [false, true, false]);
    assert_eq!(f.body.stms[1].loc.col, 23);
}

#[test]
fn assert_keeps_its_condition_as_written() {
    let p = lower_src("entry main (x: i32) = assert ((x >\n   0) && (x < 9)) x");
    let report = p.entries[0].body.stms.iter().find_map(|s| match &s.exp {
        Exp::Assert(_, r) => Some(r.clone()),
        _ => None,
    });
    assert_eq!(
        report,
        Some(AssertReport::Condition("(x > 0) && (x < 9)".into()))
    );
}

#[test]
fn condition_texts_are_one_line_and_bounded() {
    use crate::core::ir::condition_text;
    assert_eq!(condition_text("(a\n\t != b)"), "a != b");
    assert_eq!(condition_text("(a) + (b)"), "(a) + (b)");
    assert_eq!(condition_text("((a))"), "(a)");
    let long = condition_text(&format!("x == {}", "é".repeat(150)));
    assert!(long.len() <= 203 && long.ends_with("..."), "{long}");
}

#[test]
fn stdlib_maximum_uses_the_types_lowest() {
    let p = lower_with_stdlib("entry main (xs: []u8) (ys: []f64) = (maximum xs, minimum ys)");
    let f = &p.entries[0];
    let s = soacs(&f.body);
    let SoacKind::Reduce { op, neutral } = &s[0].kind else {
        panic!()
    };
    assert_eq!(neutral, &vec![Atom::Const(crate::types::Const::U8(0))]);
    assert!(matches!(op.body.stms[0].exp, Exp::BinOp(BinOp::Max, ..)));
    let SoacKind::Reduce { neutral, .. } = &s[1].kind else {
        panic!()
    };
    assert_eq!(
        neutral,
        &vec![Atom::Const(crate::types::Const::F64(f64::INFINITY))]
    );
}

#[test]
fn whole_stdlib_lowers() {
    let p = lower_with_stdlib(
        "entry main (xs: []f32) (ys: []f32) (flags: []bool) (m: [][]f32) (k: i64) =\n\
         (sum xs, product xs, maximum xs, minimum xs, mean xs, argmax xs, argmin xs,\n\
          all (> 0) xs, any (> 0) xs, count (> 0) xs, dot xs ys, matmul m m, outer xs ys,\n\
          take k xs, drop k xs, exscan (+) 0 xs, segmented_scan (+) 0 flags xs,\n\
          segmented_reduce (+) 0 flags xs,\n\
          radix_sort 32 (\\b x -> i32.u32 ((u32.f32 x >> u32.i32 b) & 1)) xs,\n\
          stencil_1d 1 (\\w -> w[0] + w[2]) xs, stencil_2d 1 (\\w -> w[1, 1]) m)",
    );
    let f = &p.entries[0];
    assert_eq!(f.ret.len(), 21);
    let loops = all_stms(&f.body)
        .into_iter()
        .filter(|s| matches!(s.exp, Exp::Loop { .. }))
        .count();
    assert_eq!(loops, 1);
    assert!(print_program(&p).contains("partition"));
}
