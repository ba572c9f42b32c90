//! Lowering hand-built fusion ASTs (every fusion kind) and checking the
//! printed loop nests and the lint. `Builder` is shared with codegen tests.

use super::ir::{Origin, Parallelism, Program, Stmt};
use super::{check, lower, print::print_program};
use crate::core::fresh::Fresh;
use crate::core::ir::{
    Atom, BinOp, Body, Exp, Lambda, Soac, SoacKind, SrcLoc, Stm, Type, Var, VarId,
};
use crate::fusion::ast::{
    Cluster, ClusterId, FusedBody, FusedFunction, FusedProgram, FusionTree, Item, SoacStm, Strategy,
};
use crate::types::{Const, ScalarType};

pub(crate) const F32: ScalarType = ScalarType::F32;
pub(crate) const I32: ScalarType = ScalarType::I32;
pub(crate) const I64: ScalarType = ScalarType::I64;

pub(crate) fn loc(line: u32, col: u32) -> SrcLoc {
    SrcLoc { file: 0, line, col }
}

pub(crate) fn v(var: &Var) -> Atom {
    Atom::Var(var.id)
}

pub(crate) fn c_i64(x: i64) -> Atom {
    Atom::Const(Const::I64(x))
}

/// Makes variables, lambdas and SOACs with unique ids and labels.
pub(crate) struct Builder {
    names: Fresh,
    next_cluster: u32,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            names: Fresh::starting_at(1, 1),
            next_cluster: 0,
        }
    }
}

impl Builder {
    pub fn var(&mut self, name: &str, ty: Type) -> Var {
        self.names.var(name, ty)
    }

    pub fn scalar(&mut self, name: &str, t: ScalarType) -> Var {
        self.var(name, Type::Scalar(t))
    }

    pub fn array(&mut self, name: &str, t: ScalarType) -> Var {
        self.var(name, Type::Array(t, 1))
    }

    /// `\a b -> a op b` on `t`.
    pub fn op_lambda(&mut self, op: BinOp, t: ScalarType) -> Lambda {
        let a = self.scalar("a", t);
        let b = self.scalar("b", t);
        let r = self.scalar("r", t);
        Lambda {
            body: Body {
                stms: vec![stm(vec![r.clone()], Exp::BinOp(op, v(&a), v(&b)))],
                result: vec![v(&r)],
            },
            params: vec![a, b],
            ret: vec![Type::Scalar(t)],
        }
    }

    /// `\x -> x op k` with element type `t` and result type `rt`.
    pub fn map_lambda(&mut self, op: BinOp, k: Const, t: ScalarType, rt: ScalarType) -> Lambda {
        let x = self.scalar("x", t);
        let r = self.scalar("y", rt);
        Lambda {
            body: Body {
                stms: vec![stm(vec![r.clone()], Exp::BinOp(op, v(&x), Atom::Const(k)))],
                result: vec![v(&r)],
            },
            params: vec![x],
            ret: vec![Type::Scalar(rt)],
        }
    }

    pub fn soac(
        &mut self,
        pat: Vec<Var>,
        width: Atom,
        kind: SoacKind,
        args: Vec<VarId>,
    ) -> SoacStm {
        SoacStm {
            pat,
            soac: Soac {
                label: self.names.soac(),
                width,
                kind,
                args,
                sequential: false,
            },
            loc: loc(2, 3),
        }
    }

    pub fn cluster(&mut self, tree: FusionTree) -> Item {
        self.next_cluster += 1;
        Item::Cluster(Cluster {
            id: ClusterId(self.next_cluster - 1),
            tree,
        })
    }
}

pub(crate) fn stm(pat: Vec<Var>, exp: Exp) -> Stm {
    Stm {
        pat,
        exp,
        loc: loc(3, 5),
    }
}

pub(crate) fn leaf(s: SoacStm) -> Box<FusionTree> {
    Box::new(FusionTree::Leaf(s))
}

pub(crate) fn program(
    name: &str,
    params: Vec<Var>,
    items: Vec<Item>,
    result: Vec<Atom>,
    ret: Vec<Type>,
) -> FusedProgram {
    FusedProgram {
        files: vec!["test.arr".to_string()],
        strategy: Strategy::None,
        entries: vec![FusedFunction {
            name: name.to_string(),
            params,
            size_params: Vec::new(),
            body: FusedBody { items, result },
            nested: Default::default(),
            ret,
        }],
    }
}

/// The parts of `ys = map (*2) xs; s = reduce (+) 0 ys`, for several trees.
pub(crate) struct MapReduce {
    pub b: Builder,
    pub xs: Var,
    pub n: Var,
    pub ys: Var,
    pub s: Var,
    pub map: SoacStm,
    pub reduce: SoacStm,
}

pub(crate) fn map_reduce() -> MapReduce {
    let mut b = Builder::default();
    let xs = b.array("xs", F32);
    let n = b.scalar("n", I64);
    let ys = b.array("ys", F32);
    let s = b.scalar("s", F32);
    let lam = b.map_lambda(BinOp::Mul, Const::F32(2.0), F32, F32);
    let map = b.soac(vec![ys.clone()], v(&n), SoacKind::Map(lam), vec![xs.id]);
    let op = b.op_lambda(BinOp::Add, F32);
    let reduce = b.soac(
        vec![s.clone()],
        v(&n),
        SoacKind::Reduce {
            op,
            neutral: vec![Atom::Const(Const::F32(0.0))],
        },
        vec![ys.id],
    );
    MapReduce {
        b,
        xs,
        n,
        ys,
        s,
        map,
        reduce,
    }
}

/// `n = length xs` as the first item, so the SOACs have a width.
pub(crate) fn size_item(n: &Var, xs: &Var) -> Item {
    Item::Stm(stm(
        vec![n.clone()],
        Exp::Size {
            array: xs.id,
            dim: 0,
        },
    ))
}

/// Lowered with every loop-nest pass and linted, as the pass list does.
pub(crate) fn lowered(p: &FusedProgram) -> Program {
    crate::driver::pipeline::loop_nests(p, &crate::driver::pipeline::Options::default())
        .unwrap_or_else(|e| panic!("{}", e.render()))
}

fn nests(p: &Program) -> Vec<&super::ir::LoopNest> {
    p.functions[0]
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Loop(n) => Some(n),
            _ => None,
        })
        .collect()
}

fn allocs(p: &Program) -> usize {
    p.functions[0]
        .body
        .iter()
        .filter(|s| matches!(s, Stmt::Alloc { .. }))
        .count()
}

#[test]
fn unfused_map_then_reduce_prints_two_loops() {
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
    let out = print_program(&lowered(&p));
    let expected = "\
entry main (xs_1: []f32 [xs_d0_10]) : ([]f32, f32) =
  alloc device ys_3: []f32 [xs_d0_10]
  launch loop map [chunked] (cluster 0) i_11 < xs_d0_10
    grain 4096
  do
    read x_12: f32 = xs_1[i_11]
    let y_13: f32 = mul x_12 2.0f32
    write ys_3[i_11] = y_13
  end
  launch loop reduce [per-chunk partials] (cluster 1) i_14 < xs_d0_10
    grain 4096
    reduce (acc_16: f32 = 0.0f32 -> r_17) into (s_4: f32)
      op (a_18: f32, b_19: f32) =
        let r_20: f32 = add a_18 b_19
        in (r_20)
  do
    read b_15: f32 = ys_3[i_14]
    let r_17: f32 = add acc_16 b_15
  end
  in (ys_3, s_4)
";
    assert_eq!(out, expected);
}

#[test]
fn vertical_map_reduce_is_one_loop_without_intermediate() {
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
    let l = lowered(&p);
    let nests = nests(&l);
    assert_eq!(nests.len(), 1);
    assert_eq!(nests[0].par, Parallelism::Reduce);
    assert_eq!(nests[0].origin, Origin::Cluster(ClusterId(0)));
    assert_eq!(allocs(&l), 0, "{}", print_program(&l));
    assert!(!print_program(&l).contains("ys_"));
}

#[test]
fn diagonal_map_map_keeps_the_write_but_not_the_read() {
    let mut b = Builder::default();
    let xs = b.array("xs", I32);
    let n = b.scalar("n", I64);
    let ys = b.array("ys", I32);
    let zs = b.array("zs", I32);
    let f = b.map_lambda(BinOp::Add, Const::I32(1), I32, I32);
    let g = b.map_lambda(BinOp::Mul, Const::I32(3), I32, I32);
    let m1 = b.soac(vec![ys.clone()], v(&n), SoacKind::Map(f), vec![xs.id]);
    let m2 = b.soac(vec![zs.clone()], v(&n), SoacKind::Map(g), vec![ys.id]);
    let tree = FusionTree::Diagonal {
        producer: leaf(m1),
        consumer: leaf(m2),
        fused: vec![ys.id],
    };
    let items = vec![size_item(&n, &xs), b.cluster(tree)];
    let p = program(
        "main",
        vec![xs.clone()],
        items,
        vec![v(&ys), v(&zs)],
        vec![ys.ty, zs.ty],
    );
    let l = lowered(&p);
    let text = print_program(&l);
    assert_eq!(nests(&l).len(), 1, "{text}");
    assert_eq!(allocs(&l), 2, "{text}");
    assert!(!text.contains("= ys_"), "ys is re-read:\n{text}");
    assert!(text.contains("write ys_"), "{text}");
}

#[test]
fn horizontal_reduce_and_scan_share_one_read() {
    let mut b = Builder::default();
    let xs = b.array("xs", I32);
    let n = b.scalar("n", I64);
    let s = b.scalar("s", I32);
    let ps = b.array("ps", I32);
    let add = b.op_lambda(BinOp::Add, I32);
    let r = b.soac(
        vec![s.clone()],
        v(&n),
        SoacKind::Reduce {
            op: add,
            neutral: vec![Atom::Const(Const::I32(0))],
        },
        vec![xs.id],
    );
    let mul = b.op_lambda(BinOp::Mul, I32);
    let sc = b.soac(
        vec![ps.clone()],
        v(&n),
        SoacKind::Scan {
            op: mul,
            neutral: vec![Atom::Const(Const::I32(1))],
        },
        vec![xs.id],
    );
    let tree = FusionTree::Horizontal(leaf(r), leaf(sc));
    let items = vec![size_item(&n, &xs), b.cluster(tree)];
    let p = program(
        "main",
        vec![xs.clone()],
        items,
        vec![v(&s), v(&ps)],
        vec![s.ty, ps.ty],
    );
    let l = lowered(&p);
    let text = print_program(&l);
    let nests = nests(&l);
    assert_eq!(nests.len(), 1, "{text}");
    assert_eq!(nests[0].par, Parallelism::Scan);
    assert_eq!(text.matches("read ").count(), 1, "{text}");
}

#[test]
fn lint_rejects_use_before_definition() {
    let mut m = map_reduce();
    // The reduce reads `ys`, which a vertical fusion removed but which the
    // entry still returns: the lowering must leave a use the lint catches.
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
        vec![v(&m.ys)],
        vec![m.ys.ty],
    );
    assert!(check(&lower(&p)).is_err());
    let nests = crate::driver::pipeline::loop_nests(&p, &Default::default());
    assert!(matches!(
        nests,
        Err(crate::driver::pipeline::Failure::Internal(_))
    ));
}

#[test]
fn iota_replicate_index_and_if_lower_and_pass_the_lint() {
    let mut b = Builder::default();
    let n = b.scalar("n", I64);
    let k = b.scalar("k", I32);
    let is = b.array("is", I64);
    let rs = b.array("rs", I32);
    let e = b.scalar("e", I64);
    let c = b.scalar("c", ScalarType::Bool);
    let out = b.array("out", I32);
    let items = vec![
        Item::Stm(stm(vec![is.clone()], Exp::Iota(v(&n)))),
        Item::Stm(stm(
            vec![rs.clone()],
            Exp::Replicate {
                count: v(&n),
                value: v(&k),
            },
        )),
        Item::Stm(stm(
            vec![e.clone()],
            Exp::Index {
                array: is.id,
                indices: vec![c_i64(2)],
                checked: true,
            },
        )),
        Item::Stm(stm(vec![c.clone()], Exp::BinOp(BinOp::Lt, v(&e), v(&n)))),
        Item::If {
            pat: vec![out.clone()],
            cond: v(&c),
            then_body: FusedBody {
                items: Vec::new(),
                result: vec![v(&rs)],
            },
            else_body: FusedBody {
                items: Vec::new(),
                result: vec![v(&rs)],
            },
            loc: loc(4, 1),
        },
    ];
    let p = program(
        "main",
        vec![n.clone(), k.clone()],
        items,
        vec![v(&out), v(&is)],
        vec![out.ty, is.ty],
    );
    let l = lowered(&p);
    let text = print_program(&l);
    assert!(text.contains("loop map [chunked] (iota)"), "{text}");
    assert!(text.contains("loop map [chunked] (replicate)"), "{text}");
    assert!(text.contains("read e_5: i64 = is_3[2i64] @3:5"), "{text}");
    // `out` may alias `rs`: the result is copied so the caller owns it.
    assert!(text.contains("copy result_"), "{text}");
}

/// Source fused greedily and lowered to loop nests (the default loopy
/// passes), printed: what the loopy rewrites' shape tests read.
pub(crate) fn greedy_loop_nests_text(src: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("prog.arr");
    std::fs::write(&path, src).expect("write source");
    let core = crate::driver::pipeline::lowered(&path)
        .unwrap_or_else(|e| panic!("front end: {}", e.render()));
    let fused = crate::fusion::fuse(
        &core,
        &crate::fusion::FusionOptions::new(crate::fusion::ast::Strategy::Greedy),
    );
    let program = crate::driver::pipeline::loop_nests(
        &fused.program,
        &crate::driver::pipeline::Options::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render()));
    print_program(&program)
}

/// Lowers Arr source (no fusion) and lints it.
pub(crate) fn lowered_source(src: &str) -> Program {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("prog.arr");
    std::fs::write(&path, src).expect("write source");
    let core = crate::driver::pipeline::lowered(&path)
        .unwrap_or_else(|e| panic!("front end: {}", e.render()));
    lowered(&crate::fusion::unfused(&core))
}

#[test]
fn loop_carried_array_is_copied_in_and_freed_each_iteration() {
    let l = lowered_source(
        "entry main (xs: []i32) (n: i64) : []i32 =\n  loop acc = xs for i < n do map (+1) acc\n",
    );
    let text = print_program(&l);
    assert!(text.contains("= seqloop (acc_"), "{text}");
    // The parameter is copied before the loop (the loop then owns it), and
    // each iteration frees the old value once the new one exists.
    assert!(text.contains("copy copy_"), "{text}");
    assert!(text.contains("    free acc_"), "{text}");
    assert!(text.contains("    next ("), "{text}");
}

#[test]
fn nested_soac_arrays_are_freed_per_outer_iteration() {
    let l = lowered_source(
        "entry main (m: [][]i32) : []i32 =\n  map (\\row -> reduce (+) 0 (map (*2) row)) m\n",
    );
    let text = print_program(&l);
    let nest = nests(&l)[0];
    assert_eq!(nest.par, Parallelism::Map);
    let inner_allocs = nest
        .body
        .iter()
        .filter(|s| matches!(s, Stmt::Alloc { .. }))
        .count();
    let frees = nest
        .body
        .iter()
        .filter(|s| matches!(s, Stmt::Free(_)))
        .count();
    assert_eq!(inner_allocs, 1, "{text}");
    assert_eq!(frees, 1, "{text}");
    assert!(matches!(nest.body.last(), Some(Stmt::Free(_))), "{text}");
}

#[test]
fn new_soacs_record_their_parallel_execution() {
    let l = lowered_source(
        "entry main (xs: []i32) (is: []i64) : ([]i32, []i32, []i32, []i32) =\n  \
         (filter (> 2) xs, scatter (replicate 4 0) is xs, hist (+) 0 3 is xs, scanr (+) 0 xs)\n",
    );
    let text = print_program(&l);
    let pars: Vec<Parallelism> = nests(&l).iter().map(|n| n.par).collect();
    for p in [
        Parallelism::Compact,
        Parallelism::Scatter,
        Parallelism::Hist,
        Parallelism::Scan,
    ] {
        assert!(pars.contains(&p), "{p:?} missing:\n{text}");
    }
    assert!(text.contains("compact (count_"), "{text}");
    assert!(text.contains("scatter into ("), "{text}");
    assert!(text.contains("hist ("), "{text}");
    // The filter's result is a view of its buffer's prefix.
    assert!(text.contains("view "), "{text}");
}

#[test]
fn slices_check_bounds_and_view_contiguous_parts() {
    let l = lowered_source(
        "entry main (xs: []i32) (m: [][]i32) : ([]i32, []i32, []i32) =\n  \
         (xs[1:3], xs[3:0:-1], m[1, 0:2])\n",
    );
    let text = print_program(&l);
    assert_eq!(text.matches("check_slice [").count(), 3, "{text}");
    assert!(text.contains("view "), "{text}");
    assert!(text.contains("loop map [chunked] (slice)"), "{text}");
    // The row index is checked against the first dimension, in order with
    // the range of the second.
    assert!(text.contains("check_index 1i64 < m_d0_"), "{text}");
}

#[test]
fn lint_rejects_use_after_free() {
    let mut b = Builder::default();
    let n = b.scalar("n", I64);
    let a = b.array("a", I32);
    let x = b.scalar("x", I32);
    let body = vec![
        Stmt::Alloc {
            var: a.clone(),
            shape: vec![v(&n)],
            space: super::ir::MemSpace::Host,
        },
        Stmt::Free(a.id),
        Stmt::Read {
            var: x.clone(),
            array: a.id,
            index: vec![c_i64(0)],
            check: Some(loc(1, 1)),
        },
    ];
    let p = Program {
        files: vec!["test.arr".into()],
        functions: vec![super::ir::Function {
            sequential: Vec::new(),
            overwritten: Vec::new(),
            name: "main".into(),
            params: vec![super::ir::Param {
                var: n.clone(),
                shape: Vec::new(),
            }],
            size_params: Vec::new(),
            body,
            results: vec![v(&x)],
            ret: vec![x.ty],
        }],
    };
    let e = check(&p).expect_err("use after free");
    assert!(e.contains("outside the scope"), "{e}");
}

/// The statements of the first sequential loop's body in `block`.
fn seq_body(block: &[Stmt]) -> Option<&[Stmt]> {
    block.iter().find_map(|s| match s {
        Stmt::SeqLoop(lp) => Some(lp.body.as_slice()),
        _ => None,
    })
}

#[test]
fn loop_carried_update_is_in_place() {
    let l = lowered_source(
        "entry main (n: i64) : []i64 =\n  \
         loop xs = replicate n 0i64 for i < n do xs with [i] = i * 2\n",
    );
    let text = print_program(&l);
    let body = seq_body(&l.functions[0].body).expect("a seqloop");
    let copies = |b: &[Stmt]| {
        b.iter()
            .filter(|s| matches!(s, Stmt::Alloc { .. } | Stmt::Copy { .. } | Stmt::Free(_)))
            .count()
    };
    // No allocation, copy or free per iteration: the update reuses `xs`.
    assert_eq!(copies(body), 0, "{text}");
    assert!(text.contains("    check xs_"), "{text}");
    assert!(text.contains("    update in place "), "{text}");
    // The dead initial value is reused too, so nothing is copied at all.
    assert!(!text.contains("copy "), "{text}");
}

#[test]
fn update_of_a_live_or_borrowed_array_copies() {
    let l = lowered_source(
        "entry main (xs: []i32) : ([]i32, []i32, []i32, []i32) =\n  \
         let a = map (+ 1) xs\n  let v = a[0:1]\n  let b = a with [0] = 9\n  \
         let c = loop ys = xs for i < 2 do ys with [i] = 0\n  \
         in (b, v, xs with [0] = 1, c)\n",
    );
    let text = print_program(&l);
    let top = &l.functions[0].body;
    // `a` is viewed by `v` afterwards and `xs` is the caller's: both copied
    // (the loop's initial value included); only the loop body reuses.
    assert!(text.contains("copy b_"), "{text}");
    assert_eq!(text.matches("update in place").count(), 1, "{text}");
    let body = seq_body(top).expect("a seqloop");
    assert!(
        body.iter().any(|s| matches!(s, Stmt::InPlace { .. })),
        "{text}"
    );
    assert!(
        !top.iter().any(|s| matches!(s, Stmt::InPlace { .. })),
        "{text}"
    );
}

#[test]
fn lint_rejects_use_of_a_view_after_update_in_place() {
    let mut b = Builder::default();
    let n = b.scalar("n", I64);
    let a = b.array("a", I32);
    let w = b.array("w", I32);
    let a2 = b.array("a2", I32);
    let x = b.scalar("x", I32);
    let body = vec![
        Stmt::Alloc {
            var: a.clone(),
            shape: vec![v(&n)],
            space: super::ir::MemSpace::Host,
        },
        Stmt::View {
            var: w.clone(),
            array: a.id,
            offset: c_i64(0),
            shape: vec![v(&n)],
        },
        Stmt::InPlace {
            var: a2.clone(),
            array: a.id,
        },
        Stmt::Read {
            var: x.clone(),
            array: w.id,
            index: vec![c_i64(0)],
            check: Some(loc(1, 1)),
        },
        Stmt::Free(a2.id),
    ];
    let p = Program {
        files: vec!["test.arr".into()],
        functions: vec![super::ir::Function {
            sequential: Vec::new(),
            overwritten: Vec::new(),
            name: "main".into(),
            params: vec![super::ir::Param {
                var: n.clone(),
                shape: Vec::new(),
            }],
            size_params: Vec::new(),
            body,
            results: vec![v(&x)],
            ret: vec![x.ty],
        }],
    };
    let e = check(&p).expect_err("use of a dead view");
    assert!(e.contains("outside the scope"), "{e}");
}

#[test]
fn transposes_run_in_tiles_and_row_walks_do_not() {
    let text = print_program(&lowered_source(
        "entry main (m: [][]f32) : ([][]f32, [][]f32) =\n  \
         (transpose m, map (map (\\x -> x + 1.0f32)) m)\n",
    ));
    // One nest over all tiles, in it a loop over the tile's rows and one
    // over its columns; the map over rows is left as it was.
    assert_eq!(text.matches("loop map").count(), 3, "{text}");
    assert_eq!(text.matches("< tiles_").count(), 1, "{text}");
    assert_eq!(text.matches("seqloop () for").count(), 2, "{text}");
    let tiled = &text[text.find("< tiles_").expect("tiled nest")..];
    let read = tiled.find("read ").expect("the transposing read");
    let i_in_tile = tiled.find("_in_tile").expect("tile loop");
    assert!(i_in_tile < read, "{text}");
    assert!(text.contains("quot tile_index"), "{text}");
}

#[test]
fn checks_proven_by_loop_bounds_are_dropped() {
    let text = print_program(&lowered_source(
        "entry main [r] [c] (m: [r][c]f32) (n: i64) : ([c][r]f32, []f32) =\n  \
         (map (\\i -> map (\\j -> m[j][i]) (iota r)) (iota c),\n   \
         map (\\j -> m[j][0]) (iota n))\n",
    ));
    let checked = |line: &str| line.contains(" @");
    let accesses: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("row elem") || l.contains("read elem"))
        .collect();
    // m[j][i] over j < r and i < c: a row and a read, neither checked;
    // m[j][0] over j < n: the row keeps its check, and the read of
    // element 0 of a row of unknown length keeps its own.
    assert_eq!(accesses.len(), 4, "{text}");
    assert!(!checked(accesses[0]) && !checked(accesses[1]), "{text}");
    assert!(checked(accesses[2]) && checked(accesses[3]), "{text}");
}

#[test]
fn indices_clamped_into_their_loops_dimension_are_not_checked() {
    let text = print_program(&lowered_source(
        "entry main [n] (xs: [n]i32) (ys: []i32) : ([n]i32, [n]i32) =\n  \
         (map (\\i -> xs[i64.min (n - 1) (i64.max 0 (i - 1))]) (iota n),\n   \
         map (\\i -> ys[i64.min (n - 1) (i64.max (i + 1) 0)]) (iota n))\n",
    ));
    let reads: Vec<&str> = text.lines().filter(|l| l.contains("read elem")).collect();
    // Clamped into 0..n inside the loop over n: in range for xs ([n]);
    // ys has a length of its own, which n says nothing about.
    assert_eq!(reads.len(), 2, "{text}");
    assert!(!reads[0].contains(" @"), "{text}");
    assert!(reads[1].contains(" @"), "{text}");
}

#[test]
fn rows_sized_per_row_take_row_zeros_size_and_check_the_others() {
    let text = print_program(&lowered_source(
        "entry main (rows: [][]i32) : [][]i32 =\n  map (\\r -> filter (\\v -> v > 0) r) rows\n",
    ));
    // Row 0's filter runs once ahead, when there is a row, and frees what
    // it kept; the result is allocated with its count, and every row is
    // checked against that before it is copied.
    let ahead = text.find("if has_rows_").expect("row 0 ahead");
    let alloc = text.find("alloc device m_").expect("result allocation");
    let nest = text.find("loop map").expect("the map");
    assert!(ahead < alloc && alloc < nest, "{text}");
    assert!(text[..alloc].contains("free kept_"), "{text}");
    assert_eq!(text.matches("loop compact").count(), 2, "{text}");
    let check = text.find("assert_eq_sizes row_size_").expect("check");
    let copy = text.find("copy m_").expect("copy into the result");
    assert!(nest < check && check < copy, "{text}");
}

#[test]
fn host_code_launches_the_outer_nests_and_allocations_get_their_spaces() {
    let text = print_program(&lowered_source(
        "entry main (xs: []i64) (n: i64) : ([]i64, i64) =\n  \
         let a = [1i64, 2, 3]\n  \
         let ys = map (\\x -> let s = scan (+) 0 (map (+x) xs) in s[n]) xs\n  \
         in (ys, a[n])\n",
    ));
    // `a` is read by host code only, `ys` written by the launched nest,
    // `s` made and freed in each of its iterations with the same size:
    // per-thread scratch (`loopy::scratch`).
    assert!(text.contains("  alloc a_"), "{text}");
    assert!(text.contains("  alloc device ys_"), "{text}");
    assert!(text.contains("    alloc thread s_"), "{text}");
    assert_eq!(text.matches("launch loop").count(), 1, "{text}");
    assert!(text.contains("  launch loop map"), "{text}");
    assert!(text.contains("    loop scan"), "{text}");
}

#[test]
fn the_plan_printed_is_the_one_run_for_histograms_of_rows() {
    let text = print_program(&lowered_source(
        "entry rows [k] (dest: [][k]i32) (is: []i64) (vs: [][k]i32) : [][k]i32 =\n  \
         reduce_by_index dest (map2 (+)) (replicate k 0) is vs\n",
    ));
    assert!(
        text.contains("loop hist [sequential: histogram of rows]"),
        "{text}"
    );
}

#[test]
fn versioning_peeling_and_lanes_are_printed() {
    let stencil = print_program(&lowered_source(
        "entry main [n] (xs: [n]f32) : []f32 =\n  \
         map (\\i -> if i == 0 || i == n - 1 then xs[i] else xs[i-1] + xs[i+1]) (iota n)\n",
    ));
    assert!(stencil.contains("body peeled ("), "{stencil}");
    let scan = print_program(&lowered_source(
        "entry main (xs: []f32) : []f32 = scan (+) 0 xs\n",
    ));
    assert!(scan.contains("body in lanes"), "{scan}");
}

#[test]
fn an_if_without_results_prints_as_a_statement() {
    // A histogram's update of an index in range: an `if` that only writes.
    let l = lowered_source(
        "entry main (is: []i64) (vs: []i32) : []i32 =\n  reduce_by_index (replicate 4 0) (+) 0 is vs\n",
    );
    let out = print_program(&l);
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("if ")),
        "{out}"
    );
    assert!(!out.contains("let  ="), "{out}");
    assert!(!out.contains("in ()"), "{out}");
}
