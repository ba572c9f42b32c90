//! Sequential loops (array state, in-place updates), slices and the value
//! semantics of updates.

use super::*;

#[test]
fn for_and_while_loops_with_array_state() {
    // loop (s, a) = (0, xs) for i < n do (s + i, a with [i] = i32.i64 s),
    // and loop x = 1 while x < 100 do x * 3; the original xs is unchanged.
    let p = entry(
        &[("n", sc(I64)), ("xs", arr(I32, 1))],
        &[sc(I64), arr(I32, 1), arr(I32, 1), sc(I32)],
        |ir, ps| {
            let s = ir.var("s", sc(I64));
            let a = ir.var("a", arr(I32, 1));
            let i = ir.var("i", sc(I64));
            let body = ir.sub_body(|ir| {
                let s2 = ir.let_(sc(I64), Exp::BinOp(BinOp::Add, v(&s), v(&i)), loc(1, 1));
                let c = ir.let_(sc(I32), Exp::Convert(I32, v(&s)), loc(1, 1));
                let a2 = ir.let_(
                    arr(I32, 1),
                    Exp::Update {
                        array: a.id,
                        indices: vec![v(&i)],
                        value: v(&c),
                    },
                    loc(2, 9),
                );
                vec![v(&s2), v(&a2)]
            });
            let out = ir.let_many(
                &[sc(I64), arr(I32, 1)],
                Exp::Loop {
                    params: vec![(s, i64c(0)), (a, v(&ps[1]))],
                    form: LoopForm::For {
                        index: i,
                        bound: v(&ps[0]),
                    },
                    body,
                },
                loc(1, 1),
            );
            let x = ir.var("x", sc(I32));
            let cond = ir.sub_body(|ir| {
                let c = ir.let_(
                    sc(ScalarType::Bool),
                    Exp::BinOp(BinOp::Lt, v(&x), i32c(100)),
                    loc(3, 1),
                );
                vec![v(&c)]
            });
            let body = ir.sub_body(|ir| {
                let y = ir.let_(sc(I32), Exp::BinOp(BinOp::Mul, v(&x), i32c(3)), loc(3, 2));
                vec![v(&y)]
            });
            let w = ir.let_(
                sc(I32),
                Exp::Loop {
                    params: vec![(x, i32c(1))],
                    form: LoopForm::While { cond },
                    body,
                },
                loc(3, 1),
            );
            vec![v(&out[0]), v(&out[1]), v(&ps[1]), v(&w)]
        },
    );
    assert_eq!(
        run_ok(&p, "3 [7, 7, 7, 7]"),
        vec![
            "3i64",
            "[0i32, 0i32, 1i32, 7i32]",
            "[7i32, 7i32, 7i32, 7i32]",
            "243i32"
        ]
    );
    assert_eq!(
        run_ok(&p, "-2 [7]"),
        vec!["0i64", "[7i32]", "[7i32]", "243i32"]
    );
    assert_eq!(
        run_err(&p, "5 [1, 2]"),
        "index 2 out of bounds for array of length 2 at prog.arr:2:9"
    );
}

#[test]
fn loop_updates_in_place() {
    // loop a = replicate n 0 for i < n do a with [i] = a[i - 1 max 0] + 1,
    // then the same through an `if`: O(n) only if no iteration copies.
    let p = entry(&[("n", sc(I64))], &[arr(I64, 1)], |ir, ps| {
        let init = ir.let_(
            arr(I64, 1),
            Exp::Replicate {
                count: v(&ps[0]),
                value: i64c(0),
            },
            loc(1, 1),
        );
        let a = ir.var("a", arr(I64, 1));
        let i = ir.var("i", sc(I64));
        let body = ir.sub_body(|ir| {
            let j0 = ir.let_(sc(I64), Exp::BinOp(BinOp::Sub, v(&i), i64c(1)), loc(1, 1));
            let j = ir.let_(sc(I64), Exp::BinOp(BinOp::Max, v(&j0), i64c(0)), loc(1, 1));
            let x = ir.let_(
                sc(I64),
                Exp::Index {
                    array: a.id,
                    indices: vec![v(&j)],
                    checked: true,
                },
                loc(1, 1),
            );
            let y = ir.let_(sc(I64), Exp::BinOp(BinOp::Add, v(&x), i64c(1)), loc(1, 1));
            let even = ir.let_(
                sc(ScalarType::Bool),
                Exp::BinOp(BinOp::Lt, v(&y), i64c(i64::MAX)),
                loc(1, 1),
            );
            let then_body = ir.sub_body(|ir| {
                let a2 = ir.let_(
                    arr(I64, 1),
                    Exp::Update {
                        array: a.id,
                        indices: vec![v(&i)],
                        value: v(&y),
                    },
                    loc(1, 1),
                );
                vec![v(&a2)]
            });
            let else_body = ir.sub_body(|_| vec![v(&a)]);
            let r = ir.let_(
                arr(I64, 1),
                Exp::If {
                    cond: v(&even),
                    then_body,
                    else_body,
                },
                loc(1, 1),
            );
            vec![v(&r)]
        });
        let out = ir.let_(
            arr(I64, 1),
            Exp::Loop {
                params: vec![(a, v(&init))],
                form: LoopForm::For {
                    index: i,
                    bound: v(&ps[0]),
                },
                body,
            },
            loc(1, 1),
        );
        vec![v(&out)]
    });
    assert_eq!(run_ok(&p, "4"), vec!["[1i64, 2i64, 3i64, 4i64]"]);
    let start = std::time::Instant::now();
    let f = p.entries[0].clone();
    let out = run_entry(&p, &f.name, vec![Value::Scalar(Const::I64(200_000))]).unwrap();
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    let Value::Array(a) = &out[0] else {
        panic!("not an array")
    };
    assert_eq!(a.get(199_999), Some(Const::I64(200_000)));
}
#[test]
fn slices() {
    use crate::core::ir::DimSlice::Index as Ix;
    // (m[1:3, 1:3], m[:, j], xs[i:j:s], m[1], xs[::-1] as i:-1:-1)
    let p = entry(
        &[
            ("m", arr(I32, 2)),
            ("xs", arr(I32, 1)),
            ("i", sc(I64)),
            ("j", sc(I64)),
            ("s", sc(I64)),
            ("c", sc(I64)),
        ],
        &[
            arr(I32, 2),
            arr(I32, 1),
            arr(I32, 1),
            arr(I32, 1),
            arr(I32, 1),
        ],
        |ir, ps| {
            let (m, xs) = (ps[0].id, ps[1].id);
            let sub = ir.let_(
                arr(I32, 2),
                Exp::Slice {
                    array: m,
                    dims: vec![
                        range(i64c(1), i64c(3), i64c(1)),
                        range(i64c(1), i64c(3), i64c(1)),
                    ],
                },
                loc(4, 1),
            );
            let col = ir.let_(
                arr(I32, 1),
                Exp::Slice {
                    array: m,
                    dims: vec![range(i64c(0), i64c(3), i64c(1)), Ix(v(&ps[5]))],
                },
                loc(5, 1),
            );
            let part = ir.let_(
                arr(I32, 1),
                Exp::Slice {
                    array: xs,
                    dims: vec![range(v(&ps[2]), v(&ps[3]), v(&ps[4]))],
                },
                loc(6, 3),
            );
            let row = ir.let_(
                arr(I32, 1),
                Exp::Slice {
                    array: m,
                    dims: vec![Ix(i64c(1))],
                },
                loc(7, 1),
            );
            let n = ir.let_(sc(I64), Exp::Size { array: xs, dim: 0 }, loc(1, 1));
            let last = ir.let_(sc(I64), Exp::BinOp(BinOp::Sub, v(&n), i64c(1)), loc(1, 1));
            let rev = ir.let_(
                arr(I32, 1),
                Exp::Slice {
                    array: xs,
                    dims: vec![range(v(&last), i64c(-1), i64c(-1))],
                },
                loc(8, 1),
            );
            vec![v(&sub), v(&col), v(&part), v(&row), v(&rev)]
        },
    );
    let m = "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]";
    assert_eq!(
        run_ok(&p, &format!("{m} [0, 1, 2, 3, 4] 1 4 2 1")),
        vec![
            "[[5i32, 6i32], [8i32, 9i32]]",
            "[2i32, 5i32, 8i32]",
            "[1i32, 3i32]",
            "[4i32, 5i32, 6i32]",
            "[4i32, 3i32, 2i32, 1i32, 0i32]"
        ]
    );
    let part = |input: &str| run_text(&p, &format!("{m} [0, 1, 2, 3, 4] {input} 1"));
    let third = |input: &str| match part(input) {
        Ok(v) => v[2].clone(),
        Err(e) => e.to_string(),
    };
    assert_eq!(third("3 0 -1"), "[3i32, 2i32, 1i32]");
    assert_eq!(third("4 -1 -2"), "[4i32, 2i32, 0i32]");
    assert_eq!(third("0 6 2"), "[0i32, 2i32, 4i32]");
    assert_eq!(third("2 2 1"), "empty([0]i32)");
    assert_eq!(third("9 9 1"), "empty([0]i32)");
    assert_eq!(third("3 2 2"), "empty([0]i32)");
    let oob = |s: &str| format!("index {s} out of bounds for array of length 5 at prog.arr:6:3");
    assert_eq!(third("2 9 1"), oob("2:9:1"));
    assert_eq!(third("1 6 2"), oob("1:6:2"));
    assert_eq!(third("3 1 1"), oob("3:1:1"));
    assert_eq!(third("-1 2 1"), oob("-1:2:1"));
    assert_eq!(third("7 0 -1"), oob("7:0:-1"));
    assert_eq!(third("1 3 -1"), oob("1:3:-1"));
    assert_eq!(third("0 3 0"), oob("0:3:0"));
    // An index among ranges is checked like an index.
    assert_eq!(
        run_err(&p, &format!("{m} [0] 0 0 1 3")),
        "index 3 out of bounds for array of length 3 at prog.arr:5:1"
    );
}

#[test]
fn updates_have_value_semantics() {
    // (m with [1, 0] = 9, m with [0] = r, m)
    let p = entry(
        &[("m", arr(I32, 2)), ("r", arr(I32, 1)), ("i", sc(I64))],
        &[arr(I32, 2), arr(I32, 2), arr(I32, 2)],
        |ir, ps| {
            let a = ir.let_(
                arr(I32, 2),
                Exp::Update {
                    array: ps[0].id,
                    indices: vec![v(&ps[2]), i64c(0)],
                    value: i32c(9),
                },
                loc(3, 5),
            );
            let b = ir.let_(
                arr(I32, 2),
                Exp::Update {
                    array: ps[0].id,
                    indices: vec![i64c(0)],
                    value: v(&ps[1]),
                },
                loc(4, 5),
            );
            vec![v(&a), v(&b), v(&ps[0])]
        },
    );
    assert_eq!(
        run_ok(&p, "[[1, 2], [3, 4]] [5, 6] 1"),
        vec![
            "[[1i32, 2i32], [9i32, 4i32]]",
            "[[5i32, 6i32], [3i32, 4i32]]",
            "[[1i32, 2i32], [3i32, 4i32]]"
        ]
    );
    assert_eq!(
        run_err(&p, "[[1, 2], [3, 4]] [5, 6] 2"),
        "index 2 out of bounds for array of length 2 at prog.arr:3:5"
    );
    assert_eq!(
        run_err(&p, "[[1, 2], [3, 4]] [5, 6] -1"),
        "index -1 out of bounds for array of length 2 at prog.arr:3:5"
    );
    assert_eq!(
        run_err(&p, "[[1, 2], [3, 4]] [5, 6, 7] 0"),
        "size mismatch: 2 and 3 at prog.arr:4:5"
    );
}
