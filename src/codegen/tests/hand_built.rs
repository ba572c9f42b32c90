//! Hand-built fused programs (core IR and fusion trees written in Rust)
//! compiled and run: the back end on its own, without the front end.

use super::*;

#[test]
fn unfused_map_and_reduce() {
    let mut m = map_reduce();
    let items = vec![
        size_item(&m.n, &m.xs),
        m.b.cluster(FusionTree::Leaf(m.map.clone())),
        m.b.cluster(FusionTree::Leaf(m.reduce.clone())),
    ];
    let p = program(
        "main",
        vec![m.xs.clone()],
        items,
        vec![v(&m.ys), v(&m.s)],
        vec![m.ys.ty, m.s.ty],
    );
    assert_eq!(ok(&p, &["1,2,3.5"]), "[2f32, 4f32, 7f32]\n13f32\n");
    assert_eq!(ok(&p, &[""]), "[]\n0f32\n");
}

#[test]
fn vertical_map_reduce_computes_the_sum() {
    let mut m = map_reduce();
    let tree = FusionTree::Vertical {
        producer: leaf(m.map.clone()),
        consumer: leaf(m.reduce.clone()),
        fused: vec![m.ys.id],
    };
    let items = vec![size_item(&m.n, &m.xs), m.b.cluster(tree)];
    let p = program(
        "main",
        vec![m.xs.clone()],
        items,
        vec![v(&m.s)],
        vec![m.s.ty],
    );
    assert_eq!(ok(&p, &["1,2,3,4"]), "20f32\n");
    // One outlined loop function, no allocation.
    let l = lowered(&p);
    let opts = CodegenOptions {
        opt_level: 0,
        target: Target::X86_64,
        count_traffic: false,
        cpu: crate::codegen::Cpu::Native,
        fast_math: false,
        gpu_arch: 70,
        strict_fp: false,
        exact_fallback: false,
        sanitize: None,
    };
    let ir = llvm_text(&l, opts);
    let bodies = ir
        .lines()
        .filter(|l| l.starts_with("define internal void @arr_entry_0.loop"))
        .filter(|l| !l.contains(".combine(") && !l.contains(".prefix("));
    assert_eq!(bodies.count(), 1, "{ir}");
    assert!(!ir.contains("call ptr @arr_alloc"), "{ir}");
}

#[test]
fn map2_scan_and_diagonal_fusion() {
    let mut b = Builder::default();
    let xs = b.array("xs", I32);
    let ys = b.array("ys", I32);
    let n = b.scalar("n", I64);
    let m = b.scalar("m", I64);
    let zs = b.array("zs", I32);
    let ps = b.array("ps", I32);
    let add = b.op_lambda(BinOp::Add, I32);
    let map2 = b.soac(
        vec![zs.clone()],
        v(&n),
        SoacKind::Map(add),
        vec![xs.id, ys.id],
    );
    let add2 = b.op_lambda(BinOp::Add, I32);
    let scan = b.soac(
        vec![ps.clone()],
        v(&n),
        SoacKind::Scan {
            op: add2,
            neutral: vec![Atom::Const(Const::I32(0))],
        },
        vec![zs.id],
    );
    let tree = FusionTree::Diagonal {
        producer: leaf(map2),
        consumer: leaf(scan),
        fused: vec![zs.id],
    };
    let items = vec![
        size_item(&n, &xs),
        size_item(&m, &ys),
        Item::Stm(stm(Vec::new(), Exp::AssertEqSizes(v(&n), v(&m)))),
        b.cluster(tree),
    ];
    let p = program(
        "main",
        vec![xs.clone(), ys.clone()],
        items,
        vec![v(&zs), v(&ps)],
        vec![zs.ty, ps.ty],
    );
    assert_eq!(
        ok(&p, &["1,2,3", "10,20,30"]),
        "[11i32, 22i32, 33i32]\n[11i32, 33i32, 66i32]\n"
    );
    let r = run(&p, &["1,2,3", "10,20"]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("size mismatch"), "{}", r.stderr);
    assert!(r.stderr.contains("at test.arr:3:5"), "{}", r.stderr);
}

/// `entry main (xs: []i64) (i: i64) = (iota n)[i] + xs[i], replicate 3 i`.
fn iota_index_program() -> crate::fusion::ast::FusedProgram {
    let mut b = Builder::default();
    let xs = b.array("xs", I64);
    let i = b.scalar("i", I64);
    let n = b.scalar("n", I64);
    let is = b.array("is", I64);
    let a = b.scalar("a", I64);
    let x = b.scalar("x", I64);
    let s = b.scalar("s", I64);
    let rs = b.array("rs", I64);
    let items = vec![
        size_item(&n, &xs),
        Item::Stm(stm(vec![is.clone()], Exp::Iota(v(&n)))),
        Item::Stm(stm(
            vec![a.clone()],
            Exp::Index {
                array: is.id,
                indices: vec![v(&i)],
                checked: true,
            },
        )),
        Item::Stm(stm(
            vec![x.clone()],
            Exp::Index {
                array: xs.id,
                indices: vec![v(&i)],
                checked: true,
            },
        )),
        Item::Stm(stm(vec![s.clone()], Exp::BinOp(BinOp::Add, v(&a), v(&x)))),
        Item::Stm(stm(
            vec![rs.clone()],
            Exp::Replicate {
                count: c_i64(3),
                value: v(&i),
            },
        )),
    ];
    program(
        "main",
        vec![xs, i],
        items,
        vec![v(&s), v(&rs)],
        vec![s.ty, rs.ty],
    )
}

#[test]
fn iota_replicate_and_indexing() {
    let p = iota_index_program();
    assert_eq!(ok(&p, &["5,6,7", "2"]), "9i64\n[2i64, 2i64, 2i64]\n");
}

#[test]
fn out_of_bounds_index_stops_with_its_location() {
    let p = iota_index_program();
    for bad in ["3", "-1"] {
        let r = run(&p, &["5,6,7", bad]);
        assert_eq!(r.code, Some(1));
        assert_eq!(
            r.stderr,
            format!("Error: index {bad} out of bounds for array of length 3 at test.arr:3:5\n")
        );
        assert_eq!(r.stdout, "");
    }
}

/// `entry main (a: t) (b: t) = (a op1 b, a op2 b, ...)`.
fn binops_program(t: ScalarType, ops: &[BinOp]) -> crate::fusion::ast::FusedProgram {
    let mut b = Builder::default();
    let x = b.scalar("x", t);
    let y = b.scalar("y", t);
    let mut items = Vec::new();
    let mut results = Vec::new();
    for op in ops {
        let rt = if op.is_comparison() {
            ScalarType::Bool
        } else {
            t
        };
        let r = b.scalar(op.name(), rt);
        items.push(Item::Stm(stm(
            vec![r.clone()],
            Exp::BinOp(*op, v(&x), v(&y)),
        )));
        results.push(r);
    }
    let ret = results.iter().map(|r| r.ty).collect();
    program(
        "main",
        vec![x, y],
        items,
        results.iter().map(v).collect(),
        ret,
    )
}

#[test]
fn signed_division_rounds_like_the_contract() {
    let ops = [BinOp::Div, BinOp::Mod, BinOp::Quot, BinOp::Rem];
    let p = binops_program(I32, &ops);
    assert_eq!(ok(&p, &["-7", "2"]), "-4i32\n1i32\n-3i32\n-1i32\n");
    assert_eq!(ok(&p, &["7", "-2"]), "-4i32\n-1i32\n-3i32\n1i32\n");
    assert_eq!(ok(&p, &["-7", "-2"]), "3i32\n-1i32\n3i32\n-1i32\n");
    assert_eq!(ok(&p, &["6", "3"]), "2i32\n0i32\n2i32\n0i32\n");
    // INT_MIN / -1 wraps.
    assert_eq!(
        ok(&p, &["-2147483648", "-1"]),
        "-2147483648i32\n0i32\n-2147483648i32\n0i32\n"
    );
    let r = run(&p, &["1", "0"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stderr, "Error: division by zero at test.arr:3:5\n");
}

#[test]
fn shifts_pow_and_wrapping() {
    let ops = [
        BinOp::Shl,
        BinOp::Shr,
        BinOp::UShr,
        BinOp::Pow,
        BinOp::Mul,
        BinOp::Min,
        BinOp::Lt,
    ];
    let p = binops_program(I32, &ops);
    assert_eq!(
        ok(&p, &["-8", "1"]),
        "-16i32\n-4i32\n2147483644i32\n-8i32\n-8i32\n-8i32\ntrue\n"
    );
    // Out-of-range amounts are defined: everything shifted out.
    assert_eq!(
        ok(&p, &["-8", "40"]),
        "0i32\n-1i32\n0i32\n0i32\n-320i32\n-8i32\ntrue\n"
    );
    assert_eq!(
        ok(&p, &["3", "21"]),
        "6291456i32\n0i32\n0i32\n1870418611i32\n63i32\n3i32\ntrue\n"
    );
}

/// `entry main (x: from) = (to1.convert x, ...)`.
fn converts_program(from: ScalarType, tos: &[ScalarType]) -> crate::fusion::ast::FusedProgram {
    let mut b = Builder::default();
    let x = b.scalar("x", from);
    let mut items = Vec::new();
    let mut results = Vec::new();
    for t in tos {
        let r = b.scalar("r", *t);
        items.push(Item::Stm(stm(vec![r.clone()], Exp::Convert(*t, v(&x)))));
        results.push(r);
    }
    let ret = results.iter().map(|r| r.ty).collect();
    program("main", vec![x], items, results.iter().map(v).collect(), ret)
}

#[test]
fn float_to_int_saturates_and_maps_nan_to_zero() {
    use ScalarType::*;
    let p = converts_program(F64, &[I32, U8, I8, Bool]);
    assert_eq!(ok(&p, &["1e300"]), "2147483647i32\n255u8\n127i8\ntrue\n");
    assert_eq!(ok(&p, &["-1e300"]), "-2147483648i32\n0u8\n-128i8\ntrue\n");
    assert_eq!(ok(&p, &["nan"]), "0i32\n0u8\n0i8\ntrue\n");
    assert_eq!(ok(&p, &["-2.9"]), "-2i32\n0u8\n-2i8\ntrue\n");
    let q = converts_program(I8, &[U32, I64, F32, Bool]);
    assert_eq!(ok(&q, &["-1"]), "4294967295u32\n-1i64\n-1f32\ntrue\n");
}

#[test]
fn f32_math_and_round_half_even() {
    let mut b = Builder::default();
    let x = b.scalar("x", F32);
    let mut items = Vec::new();
    let mut results = Vec::new();
    for op in [UnOp::Round, UnOp::Sqrt, UnOp::Exp, UnOp::IsNan, UnOp::Neg] {
        let t = if op == UnOp::IsNan {
            ScalarType::Bool
        } else {
            F32
        };
        let r = b.scalar(op.name(), t);
        items.push(Item::Stm(stm(vec![r.clone()], Exp::UnOp(op, v(&x)))));
        results.push(r);
    }
    let ret = results.iter().map(|r| r.ty).collect();
    let p = program("main", vec![x], items, results.iter().map(v).collect(), ret);
    assert_eq!(
        ok(&p, &["2.5"]),
        "2f32\n1.58114f32\n12.1825f32\nfalse\n-2.5f32\n"
    );
    let l = lowered(&p);
    let ir = llvm_text(
        &l,
        CodegenOptions {
            opt_level: 2,
            target: Target::X86_64,
            count_traffic: false,
            cpu: crate::codegen::Cpu::Native,
            fast_math: false,
            gpu_arch: 70,
            strict_fp: false,
            exact_fallback: false,
            sanitize: None,
        },
    );
    assert!(!ir.contains("double"), "f32 math must stay in f32:\n{ir}");
}

#[test]
fn map_with_if_and_index_in_lambda() {
    // map (\x -> if x < 0 then 0 else table[x]) xs
    let mut b = Builder::default();
    let xs = b.array("xs", I64);
    let table = b.array("table", ScalarType::F64);
    let n = b.scalar("n", I64);
    let out = b.array("out", ScalarType::F64);
    let x = b.scalar("x", I64);
    let c = b.scalar("c", ScalarType::Bool);
    let r = b.scalar("r", ScalarType::F64);
    let t = b.scalar("t", ScalarType::F64);
    let lam = Lambda {
        params: vec![x.clone()],
        body: Body {
            stms: vec![
                stm(vec![c.clone()], Exp::BinOp(BinOp::Lt, v(&x), c_i64(0))),
                stm(
                    vec![r.clone()],
                    Exp::If {
                        cond: v(&c),
                        then_body: Body {
                            stms: Vec::new(),
                            result: vec![Atom::Const(Const::F64(0.0))],
                        },
                        else_body: Body {
                            stms: vec![stm(
                                vec![t.clone()],
                                Exp::Index {
                                    array: table.id,
                                    indices: vec![v(&x)],
                                    checked: true,
                                },
                            )],
                            result: vec![v(&t)],
                        },
                    },
                ),
            ],
            result: vec![v(&r)],
        },
        ret: vec![Type::Scalar(ScalarType::F64)],
    };
    let map = b.soac(vec![out.clone()], v(&n), SoacKind::Map(lam), vec![xs.id]);
    let items = vec![size_item(&n, &xs), b.cluster(FusionTree::Leaf(map))];
    let p = program("main", vec![xs, table], items, vec![v(&out)], vec![out.ty]);
    assert_eq!(
        ok(&p, &["-1,2,0", "0.5,1.5,2.5"]),
        "[0f64, 2.5f64, 0.5f64]\n"
    );
    let r = run(&p, &["1,3", "0.5,1.5,2.5"]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.starts_with("Error: index 3 out of bounds"),
        "{}",
        r.stderr
    );
}

#[test]
fn returned_parameter_is_copied_and_nvptx_prints_the_device_module() {
    let mut b = Builder::default();
    let xs = b.array("xs", I32);
    let p = program(
        "main",
        vec![xs.clone()],
        Vec::new(),
        vec![v(&xs), v(&xs)],
        vec![xs.ty, xs.ty],
    );
    assert_eq!(ok(&p, &["4,5"]), "[4i32, 5i32]\n[4i32, 5i32]\n");
    let opts = CodegenOptions {
        opt_level: 2,
        target: Target::NvPtx,
        count_traffic: false,
        cpu: crate::codegen::Cpu::Native,
        fast_math: false,
        gpu_arch: 70,
        strict_fp: false,
        exact_fallback: false,
        sanitize: None,
    };
    // `--emit llvm --target nvptx` prints the device module: the copy of
    // the parameter is host code, so it holds no kernel.
    let text = llvm_text(&lowered(&p), opts);
    assert!(text.contains("nvptx64-nvidia-cuda"), "{text}");
    assert!(!text.contains("nvvm.annotations"), "{text}");
}

#[test]
fn glue_declares_entries_and_size_constraints() {
    let mut b = Builder::default();
    let xs = b.array("xs", F32);
    let ys = b.array("ys", F32);
    let n = b.scalar("n", I64);
    let mut p = program(
        "dot",
        vec![xs.clone(), ys.clone()],
        Vec::new(),
        vec![Atom::Const(Const::F32(0.0))],
        vec![Type::Scalar(F32)],
    );
    p.entries[0].size_params = vec![crate::core::ir::SizeParam {
        var: n,
        uses: vec![(0, 0), (1, 0)],
        fixed: None,
    }];
    let glue = crate::codegen::glue_c(&lowered(&p), false, false);
    assert!(
        glue.contains(
            "{\"dot\", 2, arr_params_0, 1, arr_results_0, 1, arr_sizes_0, arr_run_0, NULL, NULL}"
        ),
        "{glue}"
    );
    assert!(
        glue.contains("static const arr_size_constraint arr_sizes_0[] = {{0, 0, 1, 0, -1}};"),
        "{glue}"
    );
    assert!(glue.contains("const int arr_num_entries = 1;"));
}

#[test]
fn links_with_the_real_runtime() {
    let mut m = map_reduce();
    let tree = FusionTree::Vertical {
        producer: leaf(m.map.clone()),
        consumer: leaf(m.reduce.clone()),
        fused: vec![m.ys.id],
    };
    let items = vec![size_item(&m.n, &m.xs), m.b.cluster(tree)];
    let p = program(
        "main",
        vec![m.xs.clone()],
        items,
        vec![v(&m.s)],
        vec![m.s.ty],
    );
    assert_eq!(run_real(&p, "[1, 2, 3.5]\n"), "13.0f32\n");
    let opts = CodegenOptions::default();
    let Ok(Output::Text(asm)) = back_end(&lowered(&p), opts, Goal::Asm) else {
        panic!("no assembly");
    };
    assert!(asm.contains("arr_entry_0"));
    let Ok(Output::Object(object)) = back_end(&lowered(&p), opts, Goal::Object) else {
        panic!("no object file");
    };
    assert!(!object.is_empty());
}

#[test]
fn map_returning_rows_builds_a_2d_array() {
    // map (\x -> replicate 2 x) xs
    let mut b = Builder::default();
    let xs = b.array("xs", I32);
    let n = b.scalar("n", I64);
    let out = b.var("out", Type::Array(I32, 2));
    let x = b.scalar("x", I32);
    let row = b.array("row", I32);
    let lam = Lambda {
        params: vec![x.clone()],
        body: Body {
            stms: vec![stm(
                vec![row.clone()],
                Exp::Replicate {
                    count: c_i64(2),
                    value: v(&x),
                },
            )],
            result: vec![v(&row)],
        },
        ret: vec![row.ty],
    };
    let map = b.soac(vec![out.clone()], v(&n), SoacKind::Map(lam), vec![xs.id]);
    let items = vec![size_item(&n, &xs), b.cluster(FusionTree::Leaf(map))];
    let p = program("main", vec![xs], items, vec![v(&out)], vec![out.ty]);
    assert_eq!(run_real(&p, "[1, 2]"), "[[1i32, 1i32], [2i32, 2i32]]\n");
}
