//! Maps, reductions and scans, run-time errors, conversions, literals and
//! speed.

use super::*;

/// `entry main (xs: []i32) = let ys = map (+1) xs in (reduce (+) 0 ys, scan (+) 0 ys)`
fn map_reduce_scan() -> Program {
    let mut ir = Ir::default();
    let xs = ir.var("xs", arr(ScalarType::I32, 1));
    let n = ir.let_(
        sc(ScalarType::I64),
        Exp::Size {
            array: xs.id,
            dim: 0,
        },
        loc(1, 1),
    );
    let inc = ir.lambda(&[sc(ScalarType::I32)], &[sc(ScalarType::I32)], |ir, p| {
        let r = ir.let_(
            sc(ScalarType::I32),
            Exp::BinOp(BinOp::Add, v(&p[0]), i32c(1)),
            loc(2, 1),
        );
        vec![v(&r)]
    });
    let ys = ir.let_(
        arr(ScalarType::I32, 1),
        Ir::soac(v(&n), SoacKind::Map(inc), vec![xs.id]),
        loc(2, 1),
    );
    let add = ir.binop_lambda(ScalarType::I32, BinOp::Add);
    let s = ir.let_(
        sc(ScalarType::I32),
        Ir::soac(
            v(&n),
            SoacKind::Reduce {
                op: add.clone(),
                neutral: vec![i32c(0)],
            },
            vec![ys.id],
        ),
        loc(3, 1),
    );
    let sc_ = ir.let_(
        arr(ScalarType::I32, 1),
        Ir::soac(
            v(&n),
            SoacKind::Scan {
                op: add,
                neutral: vec![i32c(0)],
            },
            vec![ys.id],
        ),
        loc(4, 1),
    );
    let body = ir.body(vec![v(&s), v(&sc_)]);
    program(
        "main",
        vec![xs],
        body,
        vec![sc(ScalarType::I32), arr(ScalarType::I32, 1)],
    )
}

#[test]
fn map_reduce_scan_works() {
    let p = map_reduce_scan();
    assert_eq!(
        run_text(&p, "[1, 2, 3]").unwrap(),
        vec!["9i32", "[2i32, 5i32, 9i32]"]
    );
    assert_eq!(
        run_text(&p, "empty([0]i32)").unwrap(),
        vec!["0i32", "empty([0]i32)"]
    );
    // Wrapping.
    assert_eq!(
        run_text(&p, "[2147483646, 0]").unwrap(),
        vec!["-2147483648i32", "[2147483647i32, -2147483648i32]"]
    );
}

#[test]
fn unknown_entry_and_bad_arguments() {
    let p = map_reduce_scan();
    assert_eq!(
        run_entry(&p, "nope", vec![]),
        Err(RunError::UnknownEntry("nope".into()))
    );
    let e = run_entry(&p, "main", vec![]).unwrap_err();
    assert_eq!(e.to_string(), "argument 1: missing argument of type []i32");
    assert_eq!(e.exit_code(), 2);
    let e = run_entry(&p, "main", vec![Value::Scalar(Const::I32(1))]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "argument 1: expected []i32, found a value of type i32"
    );
    let two = vec![Value::Scalar(Const::I32(1)), Value::Scalar(Const::I32(1))];
    assert!(run_entry(&p, "main", two)
        .unwrap_err()
        .to_string()
        .starts_with("argument 2: "));
}

#[test]
fn index_out_of_bounds_names_location() {
    let mut ir = Ir::default();
    let xs = ir.var("xs", arr(ScalarType::F64, 1));
    let i = ir.var("i", sc(ScalarType::I64));
    let x = ir.let_(
        sc(ScalarType::F64),
        Exp::Index {
            array: xs.id,
            indices: vec![v(&i)],
            checked: true,
        },
        loc(12, 7),
    );
    let body = ir.body(vec![v(&x)]);
    let p = program("main", vec![xs, i], body, vec![sc(ScalarType::F64)]);
    assert_eq!(run_text(&p, "[1.5, 2.0] 1").unwrap(), vec!["2.0f64"]);
    let e = run_text(&p, "[1, 2, 3, 4, 5] 10").unwrap_err();
    assert_eq!(
        e.to_string(),
        "index 10 out of bounds for array of length 5 at prog.arr:12:7"
    );
    assert_eq!(e.exit_code(), 1);
    let e = run_text(&p, "[1, 2] -1").unwrap_err();
    assert!(e.to_string().starts_with("index -1 out of bounds"));
}

#[test]
fn partial_index_and_rows() {
    // entry main (m: [][]i32) (i: i64) = (m[i], map (\r -> reduce (+) 0 r) m)
    let mut ir = Ir::default();
    let m = ir.var("m", arr(ScalarType::I32, 2));
    let i = ir.var("i", sc(ScalarType::I64));
    let row = ir.let_(
        arr(ScalarType::I32, 1),
        Exp::Index {
            array: m.id,
            indices: vec![v(&i)],
            checked: true,
        },
        loc(1, 1),
    );
    let n = ir.let_(
        sc(ScalarType::I64),
        Exp::Size {
            array: m.id,
            dim: 0,
        },
        loc(1, 1),
    );
    let sum_row = ir.lambda(
        &[arr(ScalarType::I32, 1)],
        &[sc(ScalarType::I32)],
        |ir, p| {
            let k = ir.let_(
                sc(ScalarType::I64),
                Exp::Size {
                    array: p[0].id,
                    dim: 0,
                },
                loc(2, 1),
            );
            let add = ir.binop_lambda(ScalarType::I32, BinOp::Add);
            let s = ir.let_(
                sc(ScalarType::I32),
                Ir::soac(
                    v(&k),
                    SoacKind::Reduce {
                        op: add,
                        neutral: vec![i32c(0)],
                    },
                    vec![p[0].id],
                ),
                loc(2, 2),
            );
            vec![v(&s)]
        },
    );
    let sums = ir.let_(
        arr(ScalarType::I32, 1),
        Ir::soac(v(&n), SoacKind::Map(sum_row), vec![m.id]),
        loc(2, 1),
    );
    // A map returning rows: `map (\r -> r) m`.
    let id_row = ir.lambda(
        &[arr(ScalarType::I32, 1)],
        &[arr(ScalarType::I32, 1)],
        |_, p| vec![v(&p[0])],
    );
    let copy = ir.let_(
        arr(ScalarType::I32, 2),
        Ir::soac(v(&n), SoacKind::Map(id_row), vec![m.id]),
        loc(3, 1),
    );
    let body = ir.body(vec![v(&row), v(&sums), v(&copy)]);
    let p = program(
        "main",
        vec![m, i],
        body,
        vec![
            arr(ScalarType::I32, 1),
            arr(ScalarType::I32, 1),
            arr(ScalarType::I32, 2),
        ],
    );
    assert_eq!(
        run_text(&p, "[[1, 2], [3, 4], [5, 6]] 1").unwrap(),
        vec![
            "[3i32, 4i32]",
            "[3i32, 7i32, 11i32]",
            "[[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]]"
        ]
    );
    assert_eq!(
        run_text(&p, "empty([0][2]i32) 0").unwrap_err().to_string(),
        "index 0 out of bounds for array of length 0 at prog.arr:1:1"
    );
}

#[test]
fn map2_size_mismatch() {
    let mut ir = Ir::default();
    let xs = ir.var("xs", arr(ScalarType::F32, 1));
    let ys = ir.var("ys", arr(ScalarType::F32, 1));
    let n = ir.let_(
        sc(ScalarType::I64),
        Exp::Size {
            array: xs.id,
            dim: 0,
        },
        loc(1, 1),
    );
    let mul = ir.binop_lambda(ScalarType::F32, BinOp::Mul);
    let zs = ir.let_(
        arr(ScalarType::F32, 1),
        Ir::soac(v(&n), SoacKind::Map(mul), vec![xs.id, ys.id]),
        loc(5, 3),
    );
    let body = ir.body(vec![v(&zs)]);
    let p = program("main", vec![xs, ys], body, vec![arr(ScalarType::F32, 1)]);
    assert_eq!(
        run_text(&p, "[1, 2] [3, 4.5]").unwrap(),
        vec!["[3.0f32, 9.0f32]"]
    );
    let e = run_text(&p, "[1, 2, 3] [1, 2, 3, 4]").unwrap_err();
    assert_eq!(e.to_string(), "size mismatch: 3 and 4 at prog.arr:5:3");
}

#[test]
fn size_parameters_are_checked_and_bound() {
    // entry main [n] (xs: [n]i32) (ys: [n]i32) : i64 = n
    let mut ir = Ir::default();
    let xs = ir.var("xs", arr(ScalarType::I32, 1));
    let ys = ir.var("ys", arr(ScalarType::I32, 1));
    let n = ir.var("n", sc(ScalarType::I64));
    let body = ir.body(vec![v(&n)]);
    let p = program_sized(
        "main",
        vec![xs, ys],
        vec![SizeParam {
            var: n,
            uses: vec![(0, 0), (1, 0)],
            fixed: None,
        }],
        body,
        vec![sc(ScalarType::I64)],
    );
    assert_eq!(run_text(&p, "[1, 2] [3, 4]").unwrap(), vec!["2i64"]);
    let e = run_text(&p, "[1, 2] [3]").unwrap_err();
    assert_eq!(
        e.to_string(),
        "argument 2: size mismatch: dimension 1 is 1, but dimension 1 of argument 1 is 2"
    );
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn division_by_zero_and_assert() {
    let mut ir = Ir::default();
    let x = ir.var("x", sc(ScalarType::I32));
    let y = ir.var("y", sc(ScalarType::I32));
    let q = ir.let_(
        sc(ScalarType::I32),
        Exp::BinOp(BinOp::Div, v(&x), v(&y)),
        loc(3, 9),
    );
    let r = ir.let_(
        sc(ScalarType::I32),
        Exp::BinOp(BinOp::Mod, v(&x), v(&y)),
        loc(3, 20),
    );
    let pos = ir.let_(
        sc(ScalarType::Bool),
        Exp::BinOp(BinOp::Ge, v(&x), i32c(0)),
        loc(4, 1),
    );
    ir.let_many(&[], Exp::Assert(v(&pos), AssertReport::Plain), loc(4, 5));
    let body = ir.body(vec![v(&q), v(&r)]);
    let p = program(
        "main",
        vec![x, y],
        body,
        vec![sc(ScalarType::I32), sc(ScalarType::I32)],
    );
    assert_eq!(run_text(&p, "7 -2").unwrap(), vec!["-4i32", "-1i32"]);
    assert_eq!(
        run_text(&p, "7 0").unwrap_err().to_string(),
        "division by zero at prog.arr:3:9"
    );
    assert_eq!(
        run_text(&p, "-7 2").unwrap_err().to_string(),
        "assertion failed at prog.arr:4:5"
    );
}

#[test]
fn conversions_ifs_and_unops() {
    // entry main (x: f64) = let b = x < 0 in if b then (i8.f64 x, popc 255u8) else (..)
    let mut ir = Ir::default();
    let x = ir.var("x", sc(ScalarType::F64));
    let b = ir.let_(
        sc(ScalarType::Bool),
        Exp::BinOp(BinOp::Lt, v(&x), Atom::Const(Const::F64(0.0))),
        loc(1, 1),
    );
    let then_body = ir.sub_body(|ir| {
        let c = ir.let_(
            sc(ScalarType::I8),
            Exp::Convert(ScalarType::I8, v(&x)),
            loc(2, 1),
        );
        vec![v(&c)]
    });
    let else_body = ir.sub_body(|ir| {
        let r = ir.let_(
            sc(ScalarType::F64),
            Exp::UnOp(UnOp::Round, v(&x)),
            loc(3, 1),
        );
        let c = ir.let_(
            sc(ScalarType::I8),
            Exp::Convert(ScalarType::I8, v(&r)),
            loc(3, 2),
        );
        vec![v(&c)]
    });
    let res = ir.let_(
        sc(ScalarType::I8),
        Exp::If {
            cond: v(&b),
            then_body,
            else_body,
        },
        loc(1, 1),
    );
    let body = ir.body(vec![v(&res)]);
    let p = program("main", vec![x], body, vec![sc(ScalarType::I8)]);
    assert_eq!(run_text(&p, "-2.7").unwrap(), vec!["-2i8"]);
    assert_eq!(run_text(&p, "-1e10").unwrap(), vec!["-128i8"]);
    assert_eq!(run_text(&p, "2.5").unwrap(), vec!["2i8"]);
    assert_eq!(run_text(&p, "3.5").unwrap(), vec!["4i8"]);
    assert_eq!(run_text(&p, "f64.nan").unwrap(), vec!["0i8"]);
}

#[test]
fn literals_replicate_iota_and_tuple_reduce() {
    // iota 4, replicate 2 [1,2], and reduce over two arrays (sum, max).
    let mut ir = Ir::default();
    let n = ir.var("n", sc(ScalarType::I64));
    let is = ir.let_(arr(ScalarType::I64, 1), Exp::Iota(v(&n)), loc(1, 1));
    let lit = ir.let_(
        arr(ScalarType::I32, 1),
        Exp::ArrayLit {
            elem: sc(ScalarType::I32),
            items: vec![i32c(1), i32c(2)],
        },
        loc(1, 1),
    );
    let rep = ir.let_(
        arr(ScalarType::I32, 2),
        Exp::Replicate {
            count: Atom::Const(Const::I64(2)),
            value: v(&lit),
        },
        loc(1, 1),
    );
    let nested = ir.let_(
        arr(ScalarType::I32, 2),
        Exp::ArrayLit {
            elem: arr(ScalarType::I32, 1),
            items: vec![v(&lit), v(&lit), v(&lit)],
        },
        loc(1, 1),
    );
    let t = ScalarType::I64;
    let op = ir.lambda(&[sc(t), sc(t), sc(t), sc(t)], &[sc(t), sc(t)], |ir, p| {
        let s = ir.let_(sc(t), Exp::BinOp(BinOp::Add, v(&p[0]), v(&p[2])), loc(1, 1));
        let m = ir.let_(sc(t), Exp::BinOp(BinOp::Max, v(&p[1]), v(&p[3])), loc(1, 1));
        vec![v(&s), v(&m)]
    });
    let sm = ir.let_many(
        &[sc(t), sc(t)],
        Ir::soac(
            v(&n),
            SoacKind::Reduce {
                op,
                neutral: vec![
                    Atom::Const(Const::I64(0)),
                    Atom::Const(Const::I64(i64::MIN)),
                ],
            },
            vec![is.id, is.id],
        ),
        loc(1, 1),
    );
    let body = ir.body(vec![v(&is), v(&rep), v(&nested), v(&sm[0]), v(&sm[1])]);
    let p = program(
        "main",
        vec![n],
        body,
        vec![
            arr(t, 1),
            arr(ScalarType::I32, 2),
            arr(ScalarType::I32, 2),
            sc(t),
            sc(t),
        ],
    );
    assert_eq!(
        run_text(&p, "4").unwrap(),
        vec![
            "[0i64, 1i64, 2i64, 3i64]",
            "[[1i32, 2i32], [1i32, 2i32]]",
            "[[1i32, 2i32], [1i32, 2i32], [1i32, 2i32]]",
            "6i64",
            "3i64"
        ]
    );
    assert_eq!(
        run_text(&p, "0").unwrap(),
        vec![
            "empty([0]i64)",
            "[[1i32, 2i32], [1i32, 2i32]]",
            "[[1i32, 2i32], [1i32, 2i32], [1i32, 2i32]]",
            "0i64",
            "-9223372036854775808i64"
        ]
    );
    assert!(run_text(&p, "-1")
        .unwrap_err()
        .to_string()
        .contains("Range 0..1..<-1 is invalid"));
}

#[test]
fn big_map_is_fast_enough() {
    // map (\x -> x * 2.0 + 1.0) over 2M f32, then a sum, in a debug build.
    let mut ir = Ir::default();
    let n = ir.var("n", sc(ScalarType::I64));
    let is = ir.let_(arr(ScalarType::I64, 1), Exp::Iota(v(&n)), loc(1, 1));
    let f = ir.lambda(&[sc(ScalarType::I64)], &[sc(ScalarType::F32)], |ir, p| {
        let x = ir.let_(
            sc(ScalarType::F32),
            Exp::Convert(ScalarType::F32, v(&p[0])),
            loc(1, 1),
        );
        let y = ir.let_(
            sc(ScalarType::F32),
            Exp::BinOp(BinOp::Mul, v(&x), Atom::Const(Const::F32(2.0))),
            loc(1, 1),
        );
        let z = ir.let_(
            sc(ScalarType::F32),
            Exp::BinOp(BinOp::Add, v(&y), Atom::Const(Const::F32(1.0))),
            loc(1, 1),
        );
        vec![v(&z)]
    });
    let ys = ir.let_(
        arr(ScalarType::F32, 1),
        Ir::soac(v(&n), SoacKind::Map(f), vec![is.id]),
        loc(1, 1),
    );
    let add = ir.binop_lambda(ScalarType::F32, BinOp::Max);
    let s = ir.let_(
        sc(ScalarType::F32),
        Ir::soac(
            v(&n),
            SoacKind::Reduce {
                op: add,
                neutral: vec![Atom::Const(Const::F32(0.0))],
            },
            vec![ys.id],
        ),
        loc(1, 1),
    );
    let body = ir.body(vec![v(&s)]);
    let p = program("main", vec![n], body, vec![sc(ScalarType::F32)]);
    let start = std::time::Instant::now();
    assert_eq!(run_text(&p, "2000000").unwrap(), vec!["3999999.0f32"]);
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}
