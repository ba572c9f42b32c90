//! Unit tests on hand-built core IR: one or more per pass, each checking
//! the structure after simplification and that the interpreter gives the
//! same results (or the same error) before and after.

use super::walk::node_counts;
use super::SimplifyOptions;
use crate::core::fresh::Fresh;
use crate::core::ir::*;
use crate::interp::run_entry;
use crate::runtime::value::{write_text, ArrayData, ArrayValue, Value};
use crate::types::{Const, ScalarType};

/// The simplifier's passes in rounds, as the pass list runs them.
fn simplify_with(p: Program, options: &SimplifyOptions) -> Program {
    crate::driver::pipeline::simplify(p, options).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn simplify(p: Program) -> Program {
    simplify_with(p, &SimplifyOptions::default())
}

struct Build {
    next: u32,
    soac: u32,
}

const I32: Type = Type::Scalar(ScalarType::I32);
const I64: Type = Type::Scalar(ScalarType::I64);
const F32: Type = Type::Scalar(ScalarType::F32);
const BOOL: Type = Type::Scalar(ScalarType::Bool);
const AI32: Type = Type::Array(ScalarType::I32, 1);

impl Build {
    fn new() -> Build {
        Build { next: 0, soac: 0 }
    }
    fn var(&mut self, name: &str, ty: Type) -> Var {
        self.next += 1;
        Var {
            id: VarId(self.next),
            name: name.into(),
            ty,
        }
    }
    fn label(&mut self) -> SoacId {
        self.soac += 1;
        SoacId(self.soac)
    }
    fn map(
        &mut self,
        width: &Var,
        params: Vec<Var>,
        body: Body,
        ret: Vec<Type>,
        args: &[&Var],
    ) -> Exp {
        Exp::Soac(Soac {
            label: self.label(),
            width: v(width),
            kind: SoacKind::Map(Lambda { params, body, ret }),
            args: args.iter().map(|a| a.id).collect(),
            sequential: false,
        })
    }
}

fn v(x: &Var) -> Atom {
    Atom::Var(x.id)
}
fn c(k: Const) -> Atom {
    Atom::Const(k)
}
fn s(pat: &[&Var], exp: Exp) -> Stm {
    Stm {
        pat: pat.iter().map(|p| (*p).clone()).collect(),
        exp,
        loc: SrcLoc {
            file: 0,
            line: 1,
            col: 1,
        },
    }
}
fn body(stms: Vec<Stm>, result: Vec<Atom>) -> Body {
    Body { stms, result }
}
fn program(params: &[&Var], stms: Vec<Stm>, result: Vec<Atom>, ret: Vec<Type>) -> Program {
    Program {
        files: vec!["t.arr".into()],
        entries: vec![Function {
            name: "main".into(),
            params: params.iter().map(|p| (*p).clone()).collect(),
            size_params: Vec::new(),
            body: body(stms, result),
            ret,
        }],
    }
}
fn count(p: &Program, kind: &str) -> usize {
    node_counts(p).get(kind).copied().unwrap_or(0)
}
fn run(p: &Program, args: &[Value]) -> Result<Vec<String>, String> {
    run_entry(p, "main", args.to_vec())
        .map(|vs| vs.iter().map(write_text).collect())
        .map_err(|e| e.to_string())
}
fn ints(xs: &[i32]) -> Value {
    let data = ArrayData::I32(xs.to_vec());
    Value::Array(ArrayValue::new(vec![xs.len()], data).expect("fits"))
}
fn scalar(k: Const) -> Value {
    Value::Scalar(k)
}

/// Simplifies with `options` and checks the results agree on every input.
fn check_same(p: &Program, options: &SimplifyOptions, inputs: &[Vec<Value>]) -> Program {
    let out = simplify_with(p.clone(), options);
    for args in inputs {
        assert_eq!(run(p, args), run(&out, args), "on {args:?}");
    }
    out
}

fn fast() -> SimplifyOptions {
    SimplifyOptions {
        fast_math: true,
        ..SimplifyOptions::default()
    }
}

#[test]
fn folds_constants_with_wrapping_and_keeps_trapping_division() {
    let mut b = Build::new();
    let x = b.var("x", I32);
    let (a, d0, k, r) = (
        b.var("a", Type::Scalar(ScalarType::I8)),
        b.var("d0", I32),
        b.var("k", I32),
        b.var("r", I32),
    );
    let (q, w) = (b.var("q", I32), b.var("w", Type::Scalar(ScalarType::U8)));
    let p = program(
        &[&x],
        vec![
            s(
                &[&a],
                Exp::BinOp(BinOp::Add, c(Const::I8(127)), c(Const::I8(1))),
            ),
            s(
                &[&k],
                Exp::BinOp(BinOp::Mul, c(Const::I32(6)), c(Const::I32(7))),
            ),
            s(&[&r], Exp::BinOp(BinOp::Add, c(Const::I32(0)), v(&x))),
            s(&[&d0], Exp::BinOp(BinOp::Add, v(&r), v(&k))),
            s(
                &[&q],
                Exp::BinOp(BinOp::Div, c(Const::I32(-7)), c(Const::I32(2))),
            ),
            s(&[&w], Exp::Convert(ScalarType::U8, c(Const::I32(-1)))),
        ],
        vec![v(&a), v(&d0), v(&q), v(&w)],
        vec![
            Type::Scalar(ScalarType::I8),
            I32,
            I32,
            Type::Scalar(ScalarType::U8),
        ],
    );
    let out = check_same(
        &p,
        &SimplifyOptions::default(),
        &[vec![scalar(Const::I32(1))]],
    );
    assert_eq!(count(&out, "add"), 1);
    assert_eq!(node_counts(&out).values().sum::<usize>(), 1);
    assert_eq!(
        run(&out, &[scalar(Const::I32(1))]).unwrap(),
        vec!["-128i8", "43i32", "-4i32", "255u8"]
    );

    // A division by zero is never folded away, even when unused.
    let mut b = Build::new();
    let x = b.var("x", I32);
    let t = b.var("t", I32);
    let p = program(
        &[&x],
        vec![s(&[&t], Exp::BinOp(BinOp::Div, v(&x), c(Const::I32(0))))],
        vec![v(&x)],
        vec![I32],
    );
    let out = check_same(
        &p,
        &SimplifyOptions::default(),
        &[vec![scalar(Const::I32(3))]],
    );
    assert_eq!(count(&out, "div"), 1);
    assert!(run(&out, &[scalar(Const::I32(3))]).is_err());
}

#[test]
fn integer_and_boolean_identities() {
    let mut b = Build::new();
    let (x, p0) = (b.var("x", I32), b.var("p", BOOL));
    let vs: Vec<Var> = (0..8).map(|i| b.var(&format!("t{i}"), I32)).collect();
    let (n1, n2, e) = (b.var("n1", BOOL), b.var("n2", BOOL), b.var("e", BOOL));
    let exps = [
        Exp::BinOp(BinOp::Add, v(&x), c(Const::I32(0))),
        Exp::BinOp(BinOp::Mul, v(&vs[0]), c(Const::I32(1))),
        Exp::BinOp(BinOp::Mul, v(&vs[1]), c(Const::I32(0))),
        Exp::BinOp(BinOp::Sub, v(&x), v(&x)),
        Exp::UnOp(UnOp::Neg, v(&x)),
        Exp::UnOp(UnOp::Neg, v(&vs[4])),
        Exp::BinOp(BinOp::Add, v(&vs[5]), v(&vs[3])),
        Exp::BinOp(BinOp::Add, v(&vs[6]), v(&vs[2])),
    ];
    let mut stms: Vec<Stm> = vs.iter().zip(exps).map(|(t, e)| s(&[t], e)).collect();
    stms.push(s(&[&n1], Exp::UnOp(UnOp::Not, v(&p0))));
    stms.push(s(&[&n2], Exp::UnOp(UnOp::Not, v(&n1))));
    stms.push(s(
        &[&e],
        Exp::BinOp(BinOp::And, v(&n2), c(Const::Bool(true))),
    ));
    let p = program(&[&x, &p0], stms, vec![v(&vs[7]), v(&e)], vec![I32, BOOL]);
    let inputs: Vec<Vec<Value>> = [i32::MIN, -1, 0, 5]
        .iter()
        .map(|k| vec![scalar(Const::I32(*k)), scalar(Const::Bool(*k > 0))])
        .collect();
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    // Everything folds to the parameters themselves.
    assert_eq!(node_counts(&out).values().sum::<usize>(), 0);
    assert_eq!(out.entries[0].body.result, vec![v(&x), v(&p0)]);
}

#[test]
fn float_rewrites_respect_ieee_unless_fast_math() {
    let mut b = Build::new();
    let x = b.var("x", F32);
    let (a, m1, m0, s0) = (
        b.var("a", F32),
        b.var("m1", F32),
        b.var("m0", F32),
        b.var("s0", F32),
    );
    let p = program(
        &[&x],
        vec![
            s(&[&a], Exp::BinOp(BinOp::Add, v(&x), c(Const::F32(0.0)))),
            s(&[&m1], Exp::BinOp(BinOp::Mul, v(&x), c(Const::F32(1.0)))),
            s(&[&m0], Exp::BinOp(BinOp::Mul, v(&x), c(Const::F32(0.0)))),
            s(&[&s0], Exp::BinOp(BinOp::Sub, v(&x), c(Const::F32(0.0)))),
        ],
        vec![v(&a), v(&m1), v(&m0), v(&s0)],
        vec![F32; 4],
    );
    let inputs: Vec<Vec<Value>> = [-0.0f32, f32::NAN, f32::INFINITY, 2.5]
        .iter()
        .map(|k| vec![scalar(Const::F32(*k))])
        .collect();
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    // `x + 0.0` (-0.0) and `x * 0.0` (NaN, infinities) stay.
    assert_eq!(
        (count(&out, "add"), count(&out, "mul"), count(&out, "sub")),
        (1, 1, 0)
    );
    let out = simplify_with(p, &fast());
    assert_eq!(node_counts(&out).values().sum::<usize>(), 0);
}

/// Seed 000's worked example, hand-lowered: `42.0 * x` with fast-math.
#[test]
fn seed_worked_example() {
    let mut b = Build::new();
    let x = b.var("x", F32);
    let names = ["t1", "b", "c1", "c", "p", "g", "d", "t", "e1", "e2", "e"];
    let mut vars: Vec<Var> = names.iter().map(|n| b.var(n, F32)).collect();
    vars[5].ty = BOOL;
    let [t1, bb, c1, cc, pp, g, d, t, e1, e2, e] = &vars[..] else {
        unreachable!("eleven names")
    };
    let f = |k: f32| c(Const::F32(k));
    let p = program(
        &[&x],
        vec![
            s(&[t1], Exp::BinOp(BinOp::Div, f(30.0), f(5.0))),
            s(&[bb], Exp::BinOp(BinOp::Sub, f(9.0), v(t1))),
            s(&[c1], Exp::BinOp(BinOp::Mul, v(bb), v(bb))),
            s(&[cc], Exp::BinOp(BinOp::Mul, v(c1), f(4.0))),
            s(
                &[pp],
                Exp::BinOp(BinOp::Add, f(std::f32::consts::PI), f(10.0)),
            ),
            s(&[g], Exp::BinOp(BinOp::Gt, v(cc), v(pp))),
            s(
                &[d],
                Exp::If {
                    cond: v(g),
                    then_body: body(
                        vec![s(&[t], Exp::BinOp(BinOp::Sub, v(cc), f(15.0)))],
                        vec![v(t)],
                    ),
                    else_body: body(Vec::new(), vec![v(&x)]),
                },
            ),
            s(&[e1], Exp::BinOp(BinOp::Mul, v(&x), v(d))),
            s(&[e2], Exp::BinOp(BinOp::Div, f(60.0), f(30.0))),
            s(&[e], Exp::BinOp(BinOp::Mul, v(e1), v(e2))),
        ],
        vec![v(e)],
        vec![F32],
    );
    let inputs = vec![vec![scalar(Const::F32(1.0))], vec![scalar(Const::F32(0.1))]];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    assert_eq!(count(&out, "mul"), 2);
    assert_eq!(node_counts(&out).values().sum::<usize>(), 2);
    let out = simplify_with(p, &fast());
    assert_eq!(node_counts(&out).values().sum::<usize>(), 1);
    let stm = &out.entries[0].body.stms[0];
    assert_eq!(stm.exp, Exp::BinOp(BinOp::Mul, v(&x), f(42.0)));
}

#[test]
fn dead_code_goes_but_failing_statements_stay() {
    let mut b = Build::new();
    let (xs, i) = (b.var("xs", AI32), b.var("i", I64));
    let n = b.var("n", I64);
    let (el, px, t, m) = (
        b.var("el", I32),
        b.var("x", I32),
        b.var("t", I32),
        b.var("m", AI32),
    );
    let map = b.map(
        &n,
        vec![px.clone()],
        body(
            vec![s(&[&t], Exp::BinOp(BinOp::Add, v(&px), c(Const::I32(1))))],
            vec![v(&t)],
        ),
        vec![I32],
        &[&xs],
    );
    let p = program(
        &[&xs, &i],
        vec![
            s(
                &[&n],
                Exp::Size {
                    array: xs.id,
                    dim: 0,
                },
            ),
            s(
                &[&el],
                Exp::Index {
                    array: xs.id,
                    indices: vec![v(&i)],
                    checked: true,
                },
            ),
            s(&[&m], map),
        ],
        vec![v(&xs)],
        vec![AI32],
    );
    let inputs = vec![
        vec![ints(&[1, 2]), scalar(Const::I64(1))],
        vec![ints(&[1, 2]), scalar(Const::I64(2))],
    ];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    assert_eq!(
        (
            count(&out, "index"),
            count(&out, "map"),
            count(&out, "size")
        ),
        (1, 0, 0)
    );
}

#[test]
fn cse_sees_commutative_operands_and_renamed_lambdas() {
    let mut b = Build::new();
    let (xs, a, k) = (b.var("xs", AI32), b.var("a", I32), b.var("k", I32));
    let (s1, s2, n) = (b.var("s1", I32), b.var("s2", I32), b.var("n", I64));
    let mk = |b: &mut Build| {
        let px = b.var("x", I32);
        let t = b.var("t", I32);
        let m = b.var("m", AI32);
        let exp = b.map(
            &n,
            vec![px.clone()],
            body(
                vec![s(&[&t], Exp::BinOp(BinOp::Mul, v(&k), v(&px)))],
                vec![v(&t)],
            ),
            vec![I32],
            &[&xs],
        );
        (m, exp)
    };
    let (m1, e1) = mk(&mut b);
    let (m2, e2) = mk(&mut b);
    let p = program(
        &[&xs, &a, &k],
        vec![
            s(
                &[&n],
                Exp::Size {
                    array: xs.id,
                    dim: 0,
                },
            ),
            s(&[&s1], Exp::BinOp(BinOp::Add, v(&a), v(&k))),
            s(&[&s2], Exp::BinOp(BinOp::Add, v(&k), v(&a))),
            s(&[&m1], e1),
            s(&[&m2], e2),
        ],
        vec![v(&s1), v(&s2), v(&m1), v(&m2)],
        vec![I32, I32, AI32, AI32],
    );
    let inputs = vec![vec![
        ints(&[1, 2, 3]),
        scalar(Const::I32(4)),
        scalar(Const::I32(-2)),
    ]];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    assert_eq!((count(&out, "add"), count(&out, "map")), (1, 1));
    let r = &out.entries[0].body.result;
    assert_eq!((r[0], r[2]), (r[1], r[3]));
}

#[test]
fn hoists_invariants_but_not_what_can_fail() {
    let mut b = Build::new();
    let (xs, k) = (b.var("xs", AI32), b.var("k", I32));
    let n = b.var("n", I64);
    let (px, t, u, r) = (
        b.var("x", I32),
        b.var("t", I32),
        b.var("u", I32),
        b.var("r", I32),
    );
    let (r2, m) = (b.var("r2", I32), b.var("m", AI32));
    let lam = body(
        vec![
            s(&[&t], Exp::BinOp(BinOp::Mul, v(&k), c(Const::I32(3)))),
            s(
                &[&u],
                Exp::Index {
                    array: xs.id,
                    indices: vec![c(Const::I64(0))],
                    checked: true,
                },
            ),
            s(&[&r], Exp::BinOp(BinOp::Add, v(&px), v(&t))),
            s(&[&r2], Exp::BinOp(BinOp::Add, v(&r), v(&u))),
        ],
        vec![v(&r2)],
    );
    let map = b.map(&n, vec![px.clone()], lam, vec![I32], &[&xs]);
    let p = program(
        &[&xs, &k],
        vec![
            s(
                &[&n],
                Exp::Size {
                    array: xs.id,
                    dim: 0,
                },
            ),
            s(&[&m], map),
        ],
        vec![v(&m)],
        vec![AI32],
    );
    let inputs = vec![
        vec![ints(&[1, 2, 3]), scalar(Const::I32(4))],
        vec![ints(&[]), scalar(Const::I32(4))],
    ];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    let top = &out.entries[0].body.stms;
    assert!(top
        .iter()
        .any(|s| matches!(s.exp, Exp::BinOp(BinOp::Mul, ..))));
    assert!(!top.iter().any(|s| matches!(s.exp, Exp::Index { .. })));
    assert_eq!(count(&out, "index"), 1);
}

#[test]
fn unused_columns_are_neither_computed_nor_loaded() {
    let mut b = Build::new();
    let (xs, ys) = (b.var("xs", AI32), b.var("ys", AI32));
    let n = b.var("n", I64);
    // map (\x y -> (x, y + 1, x * 2)) xs ys, then only the last two read,
    // the last by a map that ignores its first array.
    let (px, py) = (b.var("x", I32), b.var("y", I32));
    let (t1, t2) = (b.var("t1", I32), b.var("t2", I32));
    let (a, bb, cc) = (b.var("a", AI32), b.var("b", AI32), b.var("c", AI32));
    let map1 = b.map(
        &n,
        vec![px.clone(), py.clone()],
        body(
            vec![
                s(&[&t1], Exp::BinOp(BinOp::Add, v(&py), c(Const::I32(1)))),
                s(&[&t2], Exp::BinOp(BinOp::Mul, v(&px), c(Const::I32(2)))),
            ],
            vec![v(&px), v(&t1), v(&t2)],
        ),
        vec![I32; 3],
        &[&xs, &ys],
    );
    let (q1, q2, t3, d) = (
        b.var("q1", I32),
        b.var("q2", I32),
        b.var("t3", I32),
        b.var("d", AI32),
    );
    let map2 = b.map(
        &n,
        vec![q1.clone(), q2.clone()],
        body(
            vec![s(&[&t3], Exp::BinOp(BinOp::Sub, v(&q2), c(Const::I32(1))))],
            vec![v(&t3)],
        ),
        vec![I32],
        &[&bb, &cc],
    );
    let p = program(
        &[&xs, &ys],
        vec![
            s(
                &[&n],
                Exp::Size {
                    array: xs.id,
                    dim: 0,
                },
            ),
            s(&[&a, &bb, &cc], map1),
            s(&[&d], map2),
        ],
        vec![v(&d)],
        vec![AI32],
    );
    let inputs = vec![
        vec![ints(&[1, 2, 3]), ints(&[4, 5, 6])],
        vec![ints(&[1, 2, 3]), ints(&[4, 5])],
    ];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    let maps: Vec<&Soac> = out.entries[0]
        .body
        .stms
        .iter()
        .filter_map(|s| match &s.exp {
            Exp::Soac(soac) => Some(soac),
            _ => None,
        })
        .collect();
    assert_eq!(maps.len(), 2);
    // The first map still reads ys (for the size check and nothing else
    // would) and xs; it computes one column; the second reads one array.
    assert_eq!(maps[0].kind.lambda().map(|l| l.ret.len()), Some(1));
    assert_eq!(maps[1].args.len(), 1);
}

#[test]
fn pass_through_columns_become_copies() {
    let mut b = Build::new();
    let (xs, ys) = (b.var("xs", AI32), b.var("ys", AI32));
    let n = b.var("n", I64);
    let (px, py) = (b.var("x", I32), b.var("y", I32));
    let (a, bb) = (b.var("a", AI32), b.var("b", AI32));
    let map = b.map(
        &n,
        vec![px.clone(), py.clone()],
        body(vec![], vec![v(&px), v(&py)]),
        vec![I32; 2],
        &[&xs, &ys],
    );
    let m = b.var("m", I64);
    let p = program(
        &[&xs, &ys],
        vec![
            s(
                &[&n],
                Exp::Size {
                    array: xs.id,
                    dim: 0,
                },
            ),
            s(
                &[&m],
                Exp::Size {
                    array: ys.id,
                    dim: 0,
                },
            ),
            s(&[], Exp::AssertEqSizes(v(&n), v(&m))),
            s(&[&a, &bb], map),
        ],
        vec![v(&a), v(&bb)],
        vec![AI32, AI32],
    );
    let inputs = vec![
        vec![ints(&[1, 2]), ints(&[3, 4])],
        vec![ints(&[1, 2]), ints(&[3])],
    ];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    assert_eq!((count(&out, "map"), count(&out, "assert_eq_sizes")), (0, 1));
    assert_eq!(out.entries[0].body.result, vec![v(&xs), v(&ys)]);
}

#[test]
fn bindings_read_in_one_branch_move_into_it() {
    let mut b = Build::new();
    let (xs, flag) = (b.var("xs", AI32), b.var("b", BOOL));
    let n = b.var("n", I64);
    let (px, t, m) = (b.var("x", I32), b.var("t", I32), b.var("m", AI32));
    let r = b.var("r", AI32);
    let map = b.map(
        &n,
        vec![px.clone()],
        body(
            vec![s(&[&t], Exp::BinOp(BinOp::Mul, v(&px), c(Const::I32(2))))],
            vec![v(&t)],
        ),
        vec![I32],
        &[&xs],
    );
    let p = program(
        &[&flag, &xs],
        vec![
            s(
                &[&n],
                Exp::Size {
                    array: xs.id,
                    dim: 0,
                },
            ),
            s(&[&m], map),
            s(
                &[&r],
                Exp::If {
                    cond: v(&flag),
                    then_body: body(vec![], vec![v(&m)]),
                    else_body: body(vec![], vec![v(&xs)]),
                },
            ),
        ],
        vec![v(&r)],
        vec![AI32],
    );
    let inputs = vec![
        vec![scalar(Const::Bool(true)), ints(&[1, 2])],
        vec![scalar(Const::Bool(false)), ints(&[1, 2])],
    ];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    let top = &out.entries[0].body.stms;
    assert!(!top.iter().any(|s| matches!(s.exp, Exp::Soac(_))));
    assert_eq!(count(&out, "map"), 1);
}

#[test]
fn branches_prune_and_conditions_are_known_inside() {
    let mut b = Build::new();
    let x = b.var("x", I32);
    let (g, g2, r, inner) = (
        b.var("g", BOOL),
        b.var("g2", BOOL),
        b.var("r", I32),
        b.var("in", I32),
    );
    let (k, same) = (b.var("k", I32), b.var("same", I32));
    let p = program(
        &[&x],
        vec![
            s(&[&g], Exp::BinOp(BinOp::Gt, v(&x), c(Const::I32(0)))),
            s(
                &[&r],
                Exp::If {
                    cond: v(&g),
                    then_body: body(
                        vec![
                            s(&[&g2], Exp::BinOp(BinOp::Gt, v(&x), c(Const::I32(0)))),
                            s(
                                &[&inner],
                                Exp::If {
                                    cond: v(&g2),
                                    then_body: body(vec![], vec![c(Const::I32(1))]),
                                    else_body: body(vec![], vec![c(Const::I32(2))]),
                                },
                            ),
                        ],
                        vec![v(&inner)],
                    ),
                    else_body: body(vec![], vec![c(Const::I32(0))]),
                },
            ),
            s(
                &[&k],
                Exp::If {
                    cond: c(Const::Bool(false)),
                    then_body: body(vec![], vec![c(Const::I32(5))]),
                    else_body: body(vec![], vec![v(&x)]),
                },
            ),
            s(
                &[&same],
                Exp::If {
                    cond: v(&g),
                    then_body: body(vec![], vec![v(&x)]),
                    else_body: body(vec![], vec![v(&x)]),
                },
            ),
        ],
        vec![v(&r), v(&k), v(&same)],
        vec![I32; 3],
    );
    let inputs: Vec<Vec<Value>> = [-1, 0, 3]
        .iter()
        .map(|k| vec![scalar(Const::I32(*k))])
        .collect();
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    assert_eq!((count(&out, "if"), count(&out, "gt")), (1, 1));
}

#[test]
fn sizes_are_forwarded_and_assertions_deduplicated() {
    let mut b = Build::new();
    let (xs, ys) = (b.var("xs", AI32), b.var("ys", AI32));
    let (n, m, px, py, t, z) = (
        b.var("n", I64),
        b.var("m", I64),
        b.var("x", I32),
        b.var("y", I32),
        b.var("t", I32),
        b.var("z", AI32),
    );
    let (sz, it, si) = (
        b.var("sz", I64),
        b.var("it", Type::Array(ScalarType::I64, 1)),
        b.var("si", I64),
    );
    let map = b.map(
        &n,
        vec![px.clone(), py.clone()],
        body(
            vec![s(&[&t], Exp::BinOp(BinOp::Add, v(&px), v(&py)))],
            vec![v(&t)],
        ),
        vec![I32],
        &[&xs, &ys],
    );
    let p = program(
        &[&xs, &ys],
        vec![
            s(
                &[&n],
                Exp::Size {
                    array: xs.id,
                    dim: 0,
                },
            ),
            s(
                &[&m],
                Exp::Size {
                    array: ys.id,
                    dim: 0,
                },
            ),
            s(&[], Exp::AssertEqSizes(v(&n), v(&m))),
            s(&[], Exp::AssertEqSizes(v(&n), v(&m))),
            s(&[&z], map),
            s(
                &[&sz],
                Exp::Size {
                    array: z.id,
                    dim: 0,
                },
            ),
            s(&[&it], Exp::Iota(c(Const::I64(4)))),
            s(
                &[&si],
                Exp::Size {
                    array: it.id,
                    dim: 0,
                },
            ),
        ],
        vec![v(&sz), v(&si), v(&z)],
        vec![I64, I64, AI32],
    );
    let inputs = vec![
        vec![ints(&[1, 2]), ints(&[3, 4])],
        vec![ints(&[1, 2]), ints(&[3])],
    ];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    assert_eq!(count(&out, "assert_eq_sizes"), 1);
    assert_eq!(count(&out, "iota"), 0);
    assert_eq!(out.entries[0].body.result[0], v(&n));
    assert_eq!(out.entries[0].body.result[1], c(Const::I64(4)));
}

#[test]
fn index_arithmetic_cancels() {
    let mut b = Build::new();
    let (xs, i) = (b.var("xs", AI32), b.var("i", I64));
    let (a, bb, cc, e) = (
        b.var("a", I64),
        b.var("b", I64),
        b.var("c", I64),
        b.var("e", I32),
    );
    let p = program(
        &[&xs, &i],
        vec![
            s(&[&a], Exp::BinOp(BinOp::Add, v(&i), c(Const::I64(2)))),
            s(&[&bb], Exp::BinOp(BinOp::Sub, v(&a), c(Const::I64(3)))),
            s(&[&cc], Exp::BinOp(BinOp::Add, v(&bb), c(Const::I64(1)))),
            s(
                &[&e],
                Exp::Index {
                    array: xs.id,
                    indices: vec![v(&cc)],
                    checked: true,
                },
            ),
        ],
        vec![v(&e)],
        vec![I32],
    );
    let inputs = vec![
        vec![ints(&[1, 2]), scalar(Const::I64(1))],
        vec![ints(&[1, 2]), scalar(Const::I64(2))],
    ];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    assert_eq!(node_counts(&out).values().sum::<usize>(), 1);
    assert_eq!(
        out.entries[0].body.stms[0].exp,
        Exp::Index {
            array: xs.id,
            indices: vec![v(&i)],
            checked: true,
        }
    );
}

#[test]
fn sums_of_variables_cancel() {
    // `(i + k) - i` is `k` and `(i - k) + k` is `i` (the length of the
    // window `xs[i:i+k]`, so a map of windows has rows of one size).
    let mut b = Build::new();
    let (i, k) = (b.var("i", I64), b.var("k", I64));
    let (a, n, d, m) = (
        b.var("a", I64),
        b.var("n", I64),
        b.var("d", I64),
        b.var("m", I64),
    );
    let p = program(
        &[&i, &k],
        vec![
            s(&[&a], Exp::BinOp(BinOp::Add, v(&i), v(&k))),
            s(&[&n], Exp::BinOp(BinOp::Sub, v(&a), v(&i))),
            s(&[&d], Exp::BinOp(BinOp::Sub, v(&i), v(&k))),
            s(&[&m], Exp::BinOp(BinOp::Add, v(&d), v(&k))),
        ],
        vec![v(&n), v(&m)],
        vec![I64, I64],
    );
    let inputs = vec![
        vec![scalar(Const::I64(3)), scalar(Const::I64(4))],
        vec![scalar(Const::I64(i64::MAX)), scalar(Const::I64(2))],
    ];
    let out = check_same(&p, &SimplifyOptions::default(), &inputs);
    assert_eq!(out.entries[0].body.result, vec![v(&k), v(&i)]);
}

#[test]
fn fresh_ids_start_above_every_id() {
    let p = super::synth::program(200, 3);
    let mut fresh = Fresh::for_program(&p);
    let v = fresh.id();
    let text = crate::core::print::print_program(&p);
    assert!(!text.contains(&format!("_{} ", v.0)));
    assert!(fresh.id().0 > v.0);
}

/// The property: on generated programs, simplification never changes the
/// interpreter's results or errors.
#[test]
fn generated_programs_keep_their_results() {
    for seed in 0..60 {
        let p = super::synth::program(40 + (seed as usize % 5) * 20, seed);
        let out = simplify(p.clone());
        assert!(super::walk::node_total(&out) <= super::walk::node_total(&p));
        for (k, xs) in [
            (-1, vec![3, -4, 5]),
            (2, vec![]),
            (0, vec![1, 2, 3, 4, 5, 6, 7]),
        ] {
            for flag in [true, false] {
                let args = vec![
                    scalar(Const::I32(k)),
                    scalar(Const::F64(k as f64 * 0.75)),
                    scalar(Const::Bool(flag)),
                    ints(&xs),
                ];
                assert_eq!(
                    run(&p, &args),
                    run(&out, &args),
                    "seed {seed}, args {args:?}"
                );
            }
        }
    }
}

#[test]
fn odd_input_does_not_panic() {
    let mut b = Build::new();
    let xs = b.var("xs", AI32);
    let n = b.var("n", I64);
    let px = b.var("x", I32);
    // A map whose lambda arity does not fit, and an empty map.
    let bad = b.map(
        &n,
        vec![px.clone()],
        body(vec![], vec![v(&px), v(&px)]),
        vec![I32],
        &[],
    );
    let m = b.var("m", AI32);
    let p = program(
        &[&xs],
        vec![
            s(
                &[&n],
                Exp::Size {
                    array: xs.id,
                    dim: 0,
                },
            ),
            s(&[&m], bad),
        ],
        vec![v(&m)],
        vec![AI32],
    );
    // The verifier may refuse it (debug builds); the passes must not panic.
    let _ = crate::driver::pipeline::simplify(p, &fast());
    let _ = simplify(Program {
        files: Vec::new(),
        entries: Vec::new(),
    });
}
