//! The interpreter on hand-built core IR.

use super::*;
use crate::core::fresh::Fresh;
use crate::core::ir::{BinOp, DimSlice, LoopForm, SizeParam, Soac, SoacId, SoacKind, UnOp, Var};
use crate::runtime::value::read_values;

/// Builds core IR with fresh variable ids.
struct Ir {
    names: Fresh,
    stms: Vec<Stm>,
}

impl Default for Ir {
    fn default() -> Self {
        Ir {
            names: Fresh::starting_at(1, 0),
            stms: Vec::new(),
        }
    }
}

fn loc(line: u32, col: u32) -> SrcLoc {
    SrcLoc { file: 0, line, col }
}

fn arr(t: ScalarType, rank: usize) -> Type {
    Type::Array(t, rank)
}

fn sc(t: ScalarType) -> Type {
    Type::Scalar(t)
}

fn v(x: &Var) -> Atom {
    Atom::Var(x.id)
}

fn i32c(x: i32) -> Atom {
    Atom::Const(Const::I32(x))
}

impl Ir {
    fn var(&mut self, name: &str, ty: Type) -> Var {
        self.names.var(name, ty)
    }

    fn let_(&mut self, ty: Type, exp: Exp, at: SrcLoc) -> Var {
        let x = self.var("t", ty);
        self.stms.push(Stm {
            pat: vec![x.clone()],
            exp,
            loc: at,
        });
        x
    }

    fn let_many(&mut self, tys: &[Type], exp: Exp, at: SrcLoc) -> Vec<Var> {
        let xs: Vec<Var> = tys.iter().map(|t| self.var("t", *t)).collect();
        self.stms.push(Stm {
            pat: xs.clone(),
            exp,
            loc: at,
        });
        xs
    }

    fn body(&mut self, result: Vec<Atom>) -> Body {
        Body {
            stms: std::mem::take(&mut self.stms),
            result,
        }
    }

    /// A lambda over `params`; `f` adds statements and gives the results.
    fn lambda(
        &mut self,
        params: &[Type],
        ret: &[Type],
        f: impl FnOnce(&mut Ir, &[Var]) -> Vec<Atom>,
    ) -> Lambda {
        let outer = std::mem::take(&mut self.stms);
        let ps: Vec<Var> = params.iter().map(|t| self.var("p", *t)).collect();
        let result = f(self, &ps);
        let body = self.body(result);
        self.stms = outer;
        Lambda {
            params: ps,
            body,
            ret: ret.to_vec(),
        }
    }

    /// A nested body (of an `If`): `f` adds statements and gives results.
    fn sub_body(&mut self, f: impl FnOnce(&mut Ir) -> Vec<Atom>) -> Body {
        let outer = std::mem::take(&mut self.stms);
        let result = f(self);
        let body = self.body(result);
        self.stms = outer;
        body
    }

    fn binop_lambda(&mut self, t: ScalarType, op: BinOp) -> Lambda {
        self.lambda(&[sc(t), sc(t)], &[sc(t)], |ir, p| {
            let r = ir.let_(sc(t), Exp::BinOp(op, v(&p[0]), v(&p[1])), loc(1, 1));
            vec![v(&r)]
        })
    }

    fn soac(width: Atom, kind: SoacKind, args: Vec<VarId>) -> Exp {
        Exp::Soac(Soac {
            label: SoacId(0),
            width,
            kind,
            args,
            sequential: false,
        })
    }
}

fn program(name: &str, params: Vec<Var>, body: Body, ret: Vec<Type>) -> Program {
    program_sized(name, params, vec![], body, ret)
}

fn program_sized(
    name: &str,
    params: Vec<Var>,
    size_params: Vec<SizeParam>,
    body: Body,
    ret: Vec<Type>,
) -> Program {
    Program {
        files: vec!["prog.arr".to_string()],
        entries: vec![Function {
            name: name.to_string(),
            params,
            size_params,
            body,
            ret,
        }],
    }
}

fn read(text: &str, types: &[Type]) -> Vec<Value> {
    read_values(text.as_bytes(), types).unwrap()
}

fn run_text(p: &Program, input: &str) -> Result<Vec<String>, RunError> {
    let types: Vec<Type> = p.entries[0].params.iter().map(|x| x.ty).collect();
    let out = run_entry(p, &p.entries[0].name, read(input, &types))?;
    Ok(out.iter().map(crate::runtime::value::write_text).collect())
}

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
    ir.let_many(&[], Exp::Assert(v(&pos)), loc(4, 5));
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
        .contains("negative size -1"));
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

// ---------------------------------------------------------------- issue 3

fn i64c(x: i64) -> Atom {
    Atom::Const(Const::I64(x))
}

const I32: ScalarType = ScalarType::I32;
const I64: ScalarType = ScalarType::I64;

/// One entry point `main` over `params` whose body `f` builds; results typed
/// by `ret`.
fn entry(
    params: &[(&str, Type)],
    ret: &[Type],
    f: impl FnOnce(&mut Ir, &[Var]) -> Vec<Atom>,
) -> Program {
    let mut ir = Ir::default();
    let ps: Vec<Var> = params.iter().map(|(n, t)| ir.var(n, *t)).collect();
    let result = f(&mut ir, &ps);
    let body = ir.body(result);
    program("main", ps, body, ret.to_vec())
}

fn run_ok(p: &Program, input: &str) -> Vec<String> {
    match run_text(p, input) {
        Ok(v) => v,
        Err(e) => panic!("{input}: {e}"),
    }
}

fn run_err(p: &Program, input: &str) -> String {
    match run_text(p, input) {
        Ok(v) => panic!("{input}: expected an error, got {v:?}"),
        Err(e) => {
            assert_eq!(e.exit_code(), 1, "{e}");
            e.to_string()
        }
    }
}

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

fn range(start: Atom, end: Atom, stride: Atom) -> DimSlice {
    DimSlice::Range { start, end, stride }
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

/// `main (a: [][]t)` returning the results of `f` applied to `a`.
fn unary(param: Type, ret: Type, f: impl FnOnce(&mut Ir, &Var) -> Exp) -> Program {
    entry(&[("a", param)], &[ret], |ir, ps| {
        let e = f(ir, &ps[0]);
        let r = ir.let_(ret, e, loc(9, 2));
        vec![v(&r)]
    })
}

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
                        SoacKind::Scatter { dest: vec![m.id] },
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
