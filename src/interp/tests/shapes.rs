//! Shape operations (transpose, flatten, reverse, rotate, concat), scanr,
//! filter and partition, scatter and histograms, reductions over rows, and
//! maps over no rows.

use super::*;

#[test]
fn transpose_flatten_unflatten() {
    let t = unary(arr(I32, 2), arr(I32, 2), |_, a| Exp::Transpose(a.id));
    assert_eq!(
        run_ok(&t, "[[1, 2, 3], [4, 5, 6]]"),
        vec!["[[1i32, 4i32], [2i32, 5i32], [3i32, 6i32]]"]
    );
    assert_eq!(run_ok(&t, "empty([0][3]i32)"), vec!["empty([3][0]i32)"]);
    let t3 = unary(arr(I32, 3), arr(I32, 3), |_, a| Exp::Transpose(a.id));
    assert_eq!(
        run_ok(&t3, "[[[1, 2], [3, 4], [5, 6]]]"),
        vec!["[[[1i32, 2i32]], [[3i32, 4i32]], [[5i32, 6i32]]]"]
    );
    let f = unary(arr(I32, 3), arr(I32, 2), |_, a| Exp::Flatten(a.id));
    assert_eq!(
        run_ok(&f, "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]"),
        vec!["[[1i32, 2i32], [3i32, 4i32], [5i32, 6i32], [7i32, 8i32]]"]
    );
    assert_eq!(run_ok(&f, "empty([2][0][3]i32)"), vec!["empty([0][3]i32)"]);
    let u = entry(
        &[("a", arr(I32, 1)), ("r", sc(I64)), ("c", sc(I64))],
        &[arr(I32, 2)],
        |ir, ps| {
            let x = ir.let_(
                arr(I32, 2),
                Exp::Unflatten {
                    array: ps[0].id,
                    rows: v(&ps[1]),
                    cols: v(&ps[2]),
                },
                loc(2, 4),
            );
            vec![v(&x)]
        },
    );
    assert_eq!(
        run_ok(&u, "[1, 2, 3, 4, 5, 6] 2 3"),
        vec!["[[1i32, 2i32, 3i32], [4i32, 5i32, 6i32]]"]
    );
    assert_eq!(run_ok(&u, "empty([0]i32) 4 0"), vec!["empty([4][0]i32)"]);
    assert_eq!(
        run_err(&u, "[1, 2, 3, 4, 5] 2 3"),
        "size mismatch: 6 and 5 at prog.arr:2:4"
    );
    assert_eq!(
        run_err(&u, "[1, 2, 3, 4] -2 -2"),
        "negative size -2 at prog.arr:2:4"
    );
}

#[test]
fn reverse_rotate_concat() {
    let r = unary(arr(I32, 2), arr(I32, 2), |_, a| Exp::Reverse(a.id));
    assert_eq!(
        run_ok(&r, "[[1, 2], [3, 4], [5, 6]]"),
        vec!["[[5i32, 6i32], [3i32, 4i32], [1i32, 2i32]]"]
    );
    assert_eq!(run_ok(&r, "empty([0][2]i32)"), vec!["empty([0][2]i32)"]);
    let rot = entry(
        &[("a", arr(I32, 1)), ("r", sc(I64))],
        &[arr(I32, 1)],
        |ir, ps| {
            let x = ir.let_(
                arr(I32, 1),
                Exp::Rotate {
                    array: ps[0].id,
                    amount: v(&ps[1]),
                },
                loc(1, 1),
            );
            vec![v(&x)]
        },
    );
    let xs = "[0, 1, 2, 3, 4]";
    for (amount, want) in [
        (1, "[1i32, 2i32, 3i32, 4i32, 0i32]"),
        (-1, "[4i32, 0i32, 1i32, 2i32, 3i32]"),
        (7, "[2i32, 3i32, 4i32, 0i32, 1i32]"),
        (-12, "[3i32, 4i32, 0i32, 1i32, 2i32]"),
        (0, "[0i32, 1i32, 2i32, 3i32, 4i32]"),
    ] {
        assert_eq!(run_ok(&rot, &format!("{xs} {amount}")), vec![want]);
    }
    assert_eq!(run_ok(&rot, "empty([0]i32) 3"), vec!["empty([0]i32)"]);
    let c = entry(
        &[("a", arr(I32, 2)), ("b", arr(I32, 2))],
        &[arr(I32, 2)],
        |ir, ps| {
            let x = ir.let_(
                arr(I32, 2),
                Exp::Concat(vec![ps[0].id, ps[1].id, ps[0].id]),
                loc(8, 8),
            );
            vec![v(&x)]
        },
    );
    assert_eq!(
        run_ok(&c, "[[1, 2]] [[3, 4], [5, 6]]"),
        vec!["[[1i32, 2i32], [3i32, 4i32], [5i32, 6i32], [1i32, 2i32]]"]
    );
    assert_eq!(
        run_ok(&c, "empty([0][0]i32) [[3, 4]]"),
        vec!["[[3i32, 4i32]]"]
    );
    assert_eq!(
        run_err(&c, "[[1, 2]] [[3, 4, 5]]"),
        "size mismatch: 2 and 3 at prog.arr:8:8"
    );
}

#[test]
fn scanr_filter_partition() {
    // scanr (-) 0 xs; filter (\x y -> x < y) xs ys; partition (\x -> x < 2) xs
    let p = entry(
        &[("xs", arr(I32, 1)), ("ys", arr(I32, 1))],
        &[
            arr(I32, 1),
            arr(I32, 1),
            arr(I32, 1),
            arr(I32, 1),
            arr(I32, 1),
        ],
        |ir, ps| {
            let n = ir.let_(
                sc(I64),
                Exp::Size {
                    array: ps[0].id,
                    dim: 0,
                },
                loc(1, 1),
            );
            let sub = ir.binop_lambda(I32, BinOp::Sub);
            let s = ir.let_(
                arr(I32, 1),
                Ir::soac(
                    v(&n),
                    SoacKind::ScanRight {
                        op: sub,
                        neutral: vec![i32c(0)],
                    },
                    vec![ps[0].id],
                ),
                loc(1, 1),
            );
            let lt = ir.lambda(&[sc(I32), sc(I32)], &[sc(ScalarType::Bool)], |ir, p| {
                let r = ir.let_(
                    sc(ScalarType::Bool),
                    Exp::BinOp(BinOp::Lt, v(&p[0]), v(&p[1])),
                    loc(1, 1),
                );
                vec![v(&r)]
            });
            let f = ir.let_many(
                &[arr(I32, 1), arr(I32, 1)],
                Ir::soac(
                    v(&n),
                    SoacKind::Filter { pred: lt },
                    vec![ps[0].id, ps[1].id],
                ),
                loc(1, 1),
            );
            let small = ir.lambda(&[sc(I32)], &[sc(ScalarType::Bool)], |ir, p| {
                let r = ir.let_(
                    sc(ScalarType::Bool),
                    Exp::BinOp(BinOp::Lt, v(&p[0]), i32c(2)),
                    loc(1, 1),
                );
                vec![v(&r)]
            });
            let parts = ir.let_many(
                &[arr(I32, 1), arr(I32, 1)],
                Ir::soac(v(&n), SoacKind::Partition { pred: small }, vec![ps[0].id]),
                loc(1, 1),
            );
            vec![v(&s), v(&f[0]), v(&f[1]), v(&parts[0]), v(&parts[1])]
        },
    );
    assert_eq!(
        run_ok(&p, "[1, 2, 3, 0] [5, 0, 4, 0]"),
        vec![
            "[2i32, -1i32, 3i32, 0i32]",
            "[1i32, 3i32]",
            "[5i32, 4i32]",
            "[1i32, 0i32]",
            "[2i32, 3i32]"
        ]
    );
    assert_eq!(
        run_ok(&p, "empty([0]i32) empty([0]i32)"),
        vec!["empty([0]i32)"; 5]
    );
}

#[test]
fn filter_keeps_row_shape() {
    // filter (\r -> r[0] > 0) m: no rows left is still [0][3].
    let p = unary(arr(I32, 2), arr(I32, 2), |ir, m| {
        let pred = ir.lambda(&[arr(I32, 1)], &[sc(ScalarType::Bool)], |ir, p| {
            let x = ir.let_(
                sc(I32),
                Exp::Index {
                    array: p[0].id,
                    indices: vec![i64c(0)],
                    checked: true,
                },
                loc(1, 1),
            );
            let r = ir.let_(
                sc(ScalarType::Bool),
                Exp::BinOp(BinOp::Gt, v(&x), i32c(0)),
                loc(1, 1),
            );
            vec![v(&r)]
        });
        let n = ir.let_(
            sc(I64),
            Exp::Size {
                array: m.id,
                dim: 0,
            },
            loc(1, 1),
        );
        Ir::soac(v(&n), SoacKind::Filter { pred }, vec![m.id])
    });
    assert_eq!(
        run_ok(&p, "[[1, 2, 3], [0, 1, 1], [2, 0, 0]]"),
        vec!["[[1i32, 2i32, 3i32], [2i32, 0i32, 0i32]]"]
    );
    assert_eq!(run_ok(&p, "[[0, 2, 3]]"), vec!["empty([0][3]i32)"]);
}

#[test]
fn scatter_and_hist() {
    // scatter dest is vs; hist (+) 0 4 is vs; reduce_by_index dest max 0 is vs
    let p = entry(
        &[
            ("dest", arr(I32, 1)),
            ("is", arr(I64, 1)),
            ("vs", arr(I32, 1)),
        ],
        &[arr(I32, 1), arr(I32, 1), arr(I32, 1), arr(I32, 1)],
        |ir, ps| {
            let n = ir.let_(
                sc(I64),
                Exp::Size {
                    array: ps[1].id,
                    dim: 0,
                },
                loc(1, 1),
            );
            let s = ir.let_(
                arr(I32, 1),
                Ir::soac(
                    v(&n),
                    SoacKind::Scatter {
                        dest: vec![ps[0].id],
                        continues: false,
                    },
                    vec![ps[1].id, ps[2].id],
                ),
                loc(1, 1),
            );
            let add = ir.binop_lambda(I32, BinOp::Add);
            let h = ir.let_(
                arr(I32, 1),
                Ir::soac(
                    v(&n),
                    SoacKind::Hist {
                        op: add,
                        neutral: vec![i32c(0)],
                        bins: i64c(4),
                        dest: None,
                    },
                    vec![ps[1].id, ps[2].id],
                ),
                loc(1, 1),
            );
            let max = ir.binop_lambda(I32, BinOp::Max);
            let r = ir.let_(
                arr(I32, 1),
                Ir::soac(
                    v(&n),
                    SoacKind::Hist {
                        op: max,
                        neutral: vec![i32c(i32::MIN)],
                        bins: i64c(0),
                        dest: Some(vec![ps[0].id]),
                    },
                    vec![ps[1].id, ps[2].id],
                ),
                loc(1, 1),
            );
            vec![v(&s), v(&h), v(&r), v(&ps[0])]
        },
    );
    assert_eq!(
        run_ok(
            &p,
            "[10, 10, 10] [2, -1, 0, 3, 2, 9223372036854775807] [1, 2, 30, 4, 5, 6]"
        ),
        vec![
            "[30i32, 10i32, 5i32]",
            "[30i32, 0i32, 6i32, 4i32]",
            "[30i32, 10i32, 10i32]",
            "[10i32, 10i32, 10i32]"
        ]
    );
    assert_eq!(
        run_ok(&p, "empty([0]i32) [0] [1]"),
        vec![
            "empty([0]i32)",
            "[1i32, 0i32, 0i32, 0i32]",
            "empty([0]i32)",
            "empty([0]i32)"
        ]
    );
    assert!(run_err(&p, "[1] [0, 1] [1]").starts_with("size mismatch: 2 and 1"));
}

#[test]
fn scatter_rows_in_place_loop() {
    // loop m = dest for i < k do scatter m [i] [r]: rows, and no copy per
    // iteration (the loop parameter is consumed).
    let p = entry(
        &[("dest", arr(I32, 2)), ("r", arr(I32, 1)), ("k", sc(I64))],
        &[arr(I32, 2)],
        |ir, ps| {
            let m = ir.var("m", arr(I32, 2));
            let i = ir.var("i", sc(I64));
            let r = ps[1].clone();
            let body = ir.sub_body(|ir| {
                let is = ir.let_(
                    arr(I64, 1),
                    Exp::ArrayLit {
                        elem: sc(I64),
                        items: vec![v(&i)],
                    },
                    loc(1, 1),
                );
                let vs = ir.let_(
                    arr(I32, 2),
                    Exp::ArrayLit {
                        elem: arr(I32, 1),
                        items: vec![v(&r)],
                    },
                    loc(1, 1),
                );
                let m2 = ir.let_(
                    arr(I32, 2),
                    Ir::soac(
                        i64c(1),
                        SoacKind::Scatter {
                            dest: vec![m.id],
                            continues: false,
                        },
                        vec![is.id, vs.id],
                    ),
                    loc(4, 4),
                );
                vec![v(&m2)]
            });
            let out = ir.let_(
                arr(I32, 2),
                Exp::Loop {
                    params: vec![(m, v(&ps[0]))],
                    form: LoopForm::For {
                        index: i,
                        bound: v(&ps[2]),
                    },
                    body,
                },
                loc(1, 1),
            );
            vec![v(&out)]
        },
    );
    assert_eq!(
        run_ok(&p, "[[0, 0], [0, 0], [0, 0]] [1, 2] 2"),
        vec!["[[1i32, 2i32], [1i32, 2i32], [0i32, 0i32]]"]
    );
    // Past the end: ignored.
    assert_eq!(run_ok(&p, "[[0, 0]] [1, 2] 3"), vec!["[[1i32, 2i32]]"]);
    assert_eq!(
        run_err(&p, "[[0, 0]] [1, 2, 3] 1"),
        "size mismatch: 2 and 3 at prog.arr:4:4"
    );
    let n = 100_000;
    let dest = Value::Array(ArrayValue {
        elem: I32,
        shape: vec![n, 2],
        data: ArrayData::I32(vec![0; 2 * n]),
    });
    let row = Value::Array(ArrayValue {
        elem: I32,
        shape: vec![2],
        data: ArrayData::I32(vec![3, 4]),
    });
    let start = std::time::Instant::now();
    let out = run_entry(
        &p,
        "main",
        vec![dest, row, Value::Scalar(Const::I64(n as i64))],
    )
    .unwrap();
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    let Value::Array(a) = &out[0] else {
        panic!("not an array")
    };
    assert_eq!(a.get(2 * n - 1), Some(Const::I32(4)));
}

#[test]
fn reduce_and_scan_over_rows_with_nested_soacs() {
    // reduce (map2 (+)) (replicate m 0) rows, and scan of the same: column
    // sums; the operator holds a nested map.
    let p = unary(arr(I32, 2), arr(I32, 2), |ir, mat| {
        let n = ir.let_(
            sc(I64),
            Exp::Size {
                array: mat.id,
                dim: 0,
            },
            loc(1, 1),
        );
        let m = ir.let_(
            sc(I64),
            Exp::Size {
                array: mat.id,
                dim: 1,
            },
            loc(1, 1),
        );
        let zeros = ir.let_(
            arr(I32, 1),
            Exp::Replicate {
                count: v(&m),
                value: i32c(0),
            },
            loc(1, 1),
        );
        let op = ir.lambda(&[arr(I32, 1), arr(I32, 1)], &[arr(I32, 1)], |ir, p| {
            let k = ir.let_(
                sc(I64),
                Exp::Size {
                    array: p[0].id,
                    dim: 0,
                },
                loc(1, 1),
            );
            let add = ir.binop_lambda(I32, BinOp::Add);
            let r = ir.let_(
                arr(I32, 1),
                Ir::soac(v(&k), SoacKind::Map(add), vec![p[0].id, p[1].id]),
                loc(2, 2),
            );
            vec![v(&r)]
        });
        let total = ir.let_(
            arr(I32, 1),
            Ir::soac(
                v(&n),
                SoacKind::Reduce {
                    op: op.clone(),
                    neutral: vec![v(&zeros)],
                },
                vec![mat.id],
            ),
            loc(1, 1),
        );
        let _ = total;
        Ir::soac(
            v(&n),
            SoacKind::Scan {
                op,
                neutral: vec![v(&zeros)],
            },
            vec![mat.id],
        )
    });
    assert_eq!(
        run_ok(&p, "[[1, 2], [3, 4], [5, 6]]"),
        vec!["[[1i32, 2i32], [4i32, 6i32], [9i32, 12i32]]"]
    );
    // No rows: the rows are shaped like the neutral element.
    assert_eq!(run_ok(&p, "empty([0][3]i32)"), vec!["empty([0][3]i32)"]);
}

#[test]
fn big_matrix_transpose_and_row_sums() {
    // map (\r -> reduce (+) 0 r) (transpose (unflatten 1000 1000 (iota 1e6)))
    let p = entry(&[("n", sc(I64))], &[arr(I64, 1)], |ir, ps| {
        let nn = ir.let_(
            sc(I64),
            Exp::BinOp(BinOp::Mul, v(&ps[0]), v(&ps[0])),
            loc(1, 1),
        );
        let flat = ir.let_(arr(I64, 1), Exp::Iota(v(&nn)), loc(1, 1));
        let m = ir.let_(
            arr(I64, 2),
            Exp::Unflatten {
                array: flat.id,
                rows: v(&ps[0]),
                cols: v(&ps[0]),
            },
            loc(1, 1),
        );
        let t = ir.let_(arr(I64, 2), Exp::Transpose(m.id), loc(1, 1));
        let sum = ir.lambda(&[arr(I64, 1)], &[sc(I64)], |ir, p| {
            let add = ir.binop_lambda(I64, BinOp::Add);
            let r = ir.let_(
                sc(I64),
                Ir::soac(
                    v(&ps[0]),
                    SoacKind::Reduce {
                        op: add,
                        neutral: vec![i64c(0)],
                    },
                    vec![p[0].id],
                ),
                loc(1, 1),
            );
            vec![v(&r)]
        });
        let sums = ir.let_(
            arr(I64, 1),
            Ir::soac(v(&ps[0]), SoacKind::Map(sum), vec![t.id]),
            loc(1, 1),
        );
        vec![v(&sums)]
    });
    assert_eq!(run_ok(&p, "2"), vec!["[2i64, 4i64]"]);
    let start = std::time::Instant::now();
    let out = run_entry(&p, "main", vec![Value::Scalar(Const::I64(1000))]).unwrap();
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    let Value::Array(a) = &out[0] else {
        panic!("not an array")
    };
    // Column 0: 1000 * (0 + 999000) / 2.
    assert_eq!(a.get(0), Some(Const::I64(499_500_000)));
}

#[test]
fn map_over_nothing_knows_its_row_shape() {
    // map (\x -> [x, x]) xs, and map (\x -> loop y = x while y < 10 do y * 2) xs
    // whose trial run would never end: rows of size 0 then.
    let p = unary(arr(I32, 1), arr(I32, 2), |ir, xs| {
        let n = ir.let_(
            sc(I64),
            Exp::Size {
                array: xs.id,
                dim: 0,
            },
            loc(1, 1),
        );
        let f = ir.lambda(&[sc(I32)], &[arr(I32, 1)], |ir, p| {
            let r = ir.let_(
                arr(I32, 1),
                Exp::ArrayLit {
                    elem: sc(I32),
                    items: vec![v(&p[0]), v(&p[0])],
                },
                loc(1, 1),
            );
            vec![v(&r)]
        });
        Ir::soac(v(&n), SoacKind::Map(f), vec![xs.id])
    });
    assert_eq!(run_ok(&p, "[1, 2]"), vec!["[[1i32, 1i32], [2i32, 2i32]]"]);
    assert_eq!(run_ok(&p, "empty([0]i32)"), vec!["empty([0][2]i32)"]);
    let q = unary(arr(I32, 1), arr(I32, 2), |ir, xs| {
        let n = ir.let_(
            sc(I64),
            Exp::Size {
                array: xs.id,
                dim: 0,
            },
            loc(1, 1),
        );
        let f = ir.lambda(&[sc(I32)], &[arr(I32, 1)], |ir, p| {
            let y = ir.var("y", sc(I32));
            let cond = ir.sub_body(|ir| {
                let c = ir.let_(
                    sc(ScalarType::Bool),
                    Exp::BinOp(BinOp::Lt, v(&y), i32c(10)),
                    loc(1, 1),
                );
                vec![v(&c)]
            });
            let body = ir.sub_body(|ir| {
                let z = ir.let_(sc(I32), Exp::BinOp(BinOp::Mul, v(&y), i32c(2)), loc(1, 1));
                vec![v(&z)]
            });
            let w = ir.let_(
                sc(I32),
                Exp::Loop {
                    params: vec![(y, v(&p[0]))],
                    form: LoopForm::While { cond },
                    body,
                },
                loc(1, 1),
            );
            let r = ir.let_(
                arr(I32, 1),
                Exp::ArrayLit {
                    elem: sc(I32),
                    items: vec![v(&w)],
                },
                loc(1, 1),
            );
            vec![v(&r)]
        });
        Ir::soac(v(&n), SoacKind::Map(f), vec![xs.id])
    });
    assert_eq!(run_ok(&q, "[3]"), vec!["[[12i32]]"]);
    assert_eq!(run_ok(&q, "empty([0]i32)"), vec!["empty([0][0]i32)"]);
}

#[test]
fn branch_returning_one_local_twice() {
    // if b then (let t = xs with [0] = 1 in (t, t)) else (xs, xs)
    let p = entry(
        &[("b", sc(ScalarType::Bool)), ("xs", arr(I32, 1))],
        &[arr(I32, 1), arr(I32, 1), arr(I32, 1)],
        |ir, ps| {
            let xs = ps[1].clone();
            let then_body = ir.sub_body(|ir| {
                let t = ir.let_(
                    arr(I32, 1),
                    Exp::Update {
                        array: xs.id,
                        indices: vec![i64c(0)],
                        value: i32c(1),
                    },
                    loc(1, 1),
                );
                vec![v(&t), v(&t)]
            });
            let else_body = ir.sub_body(|_| vec![v(&xs), v(&xs)]);
            let r = ir.let_many(
                &[arr(I32, 1), arr(I32, 1)],
                Exp::If {
                    cond: v(&ps[0]),
                    then_body,
                    else_body,
                },
                loc(1, 1),
            );
            vec![v(&r[0]), v(&r[1]), v(&xs)]
        },
    );
    assert_eq!(
        run_ok(&p, "true [5, 6]"),
        vec!["[1i32, 6i32]", "[1i32, 6i32]", "[5i32, 6i32]"]
    );
    assert_eq!(run_ok(&p, "false [5]"), vec!["[5i32]", "[5i32]", "[5i32]"]);
}
