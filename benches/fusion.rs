//! Clustering time of the fusion strategies on generated programs of 10, 100
//! and 1,000 SOACs (`cargo bench --bench fusion`). The programs mix maps,
//! map2s, reductions, scans and maps that use a reduction's result, each
//! reading recent arrays, so the fusion graph has chains, siblings and
//! fusion-preventing edges in realistic proportions.
//! `ARRC_BENCH_SOLVER=cbc cargo bench --features cbc --bench fusion` uses CBC.

use arrc::core::ir::*;
use arrc::fusion::ast::Strategy;
use arrc::fusion::{fuse, FusionOptions};
use arrc::types::{Const, ScalarType};
use std::time::Instant;

struct Gen {
    next_var: u32,
    next_soac: u32,
    seed: u64,
}

impl Gen {
    fn var(&mut self, name: &str, ty: Type) -> Var {
        self.next_var += 1;
        Var {
            id: VarId(self.next_var),
            name: name.into(),
            ty,
        }
    }
    fn pick(&mut self, n: usize) -> usize {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        (self.seed % n as u64) as usize
    }
    fn binop_lambda(&mut self, op: BinOp, arity: usize, extra: Option<VarId>) -> Lambda {
        let f32t = Type::Scalar(ScalarType::F32);
        let params: Vec<Var> = (0..arity).map(|_| self.var("x", f32t)).collect();
        let mut stms = Vec::new();
        let mut acc = Atom::Var(params[0].id);
        for p in params
            .iter()
            .skip(1)
            .map(|p| Atom::Var(p.id))
            .chain(extra.map(Atom::Var))
        {
            let t = self.var("t", f32t);
            stms.push(Stm {
                pat: vec![t.clone()],
                exp: Exp::BinOp(op, acc, p),
                loc: SrcLoc::default(),
            });
            acc = Atom::Var(t.id);
        }
        if arity == 1 && extra.is_none() {
            let t = self.var("t", f32t);
            stms.push(Stm {
                pat: vec![t.clone()],
                exp: Exp::BinOp(op, acc, Atom::Const(Const::F32(2.0))),
                loc: SrcLoc::default(),
            });
            acc = Atom::Var(t.id);
        }
        Lambda {
            params,
            body: Body {
                stms,
                result: vec![acc],
            },
            ret: vec![f32t],
        }
    }
}

fn program(soacs: usize) -> Program {
    let mut g = Gen {
        next_var: 0,
        next_soac: 0,
        seed: 0x9e3779b97f4a7c15,
    };
    let arr = Type::Array(ScalarType::F32, 1);
    let input = g.var("input", arr);
    let n = g.var("n", Type::Scalar(ScalarType::I64));
    let mut stms = vec![Stm {
        pat: vec![n.clone()],
        exp: Exp::Size {
            array: input.id,
            dim: 0,
        },
        loc: SrcLoc::default(),
    }];
    let mut arrays = vec![input.id];
    let mut scalars: Vec<VarId> = Vec::new();
    for k in 0..soacs {
        let recent = |g: &mut Gen, arrays: &Vec<VarId>| {
            let window = arrays.len().min(8);
            arrays[arrays.len() - 1 - g.pick(window)]
        };
        g.next_soac += 1;
        let label = SoacId(g.next_soac);
        let (kind, args, out_ty) = match k % 5 {
            0 => (
                SoacKind::Map(g.binop_lambda(BinOp::Mul, 1, None)),
                vec![recent(&mut g, &arrays)],
                arr,
            ),
            1 => {
                let a = recent(&mut g, &arrays);
                let b = recent(&mut g, &arrays);
                (
                    SoacKind::Map(g.binop_lambda(BinOp::Add, 2, None)),
                    vec![a, b],
                    arr,
                )
            }
            2 => (
                SoacKind::Reduce {
                    op: g.binop_lambda(BinOp::Add, 2, None),
                    neutral: vec![Atom::Const(Const::F32(0.0))],
                },
                vec![recent(&mut g, &arrays)],
                Type::Scalar(ScalarType::F32),
            ),
            3 => (
                SoacKind::Scan {
                    op: g.binop_lambda(BinOp::Add, 2, None),
                    neutral: vec![Atom::Const(Const::F32(0.0))],
                },
                vec![recent(&mut g, &arrays)],
                arr,
            ),
            _ => {
                let s = scalars.last().copied();
                (
                    SoacKind::Map(g.binop_lambda(BinOp::Div, 1, s)),
                    vec![recent(&mut g, &arrays)],
                    arr,
                )
            }
        };
        let out = g.var("r", out_ty);
        if out_ty.rank() > 0 {
            arrays.push(out.id);
        } else {
            scalars.push(out.id);
        }
        stms.push(Stm {
            pat: vec![out],
            exp: Exp::Soac(Soac {
                label,
                width: Atom::Var(n.id),
                kind,
                args,
            }),
            loc: SrcLoc::default(),
        });
    }
    let result: Vec<Atom> = arrays[arrays.len().saturating_sub(3)..]
        .iter()
        .chain(scalars.iter().rev().take(2))
        .map(|v| Atom::Var(*v))
        .collect();
    let ret = result.iter().map(|_| arr).collect();
    Program {
        files: vec!["generated.arr".into()],
        entries: vec![Function {
            name: "main".into(),
            params: vec![input],
            size_params: Vec::new(),
            body: Body { stms, result },
            ret,
        }],
    }
}

/// Runs per measurement: the best shows the cost without noise from other
/// processes, the mean what to expect.
const RUNS: usize = 5;

fn main() {
    println!(
        "{:>6} {:>9} {:>10} {:>10} {:>6} {:>14} {:>10}",
        "soacs", "strategy", "best", "mean", "loops", "traffic", "note"
    );
    for soacs in [10, 100, 1000] {
        let p = program(soacs);
        for strategy in [Strategy::Greedy, Strategy::Ilp] {
            // The default time limit, as `arrc build` uses it; the solver
            // from ARRC_BENCH_SOLVER (`cbc` needs the `cbc` feature).
            let mut options = FusionOptions::new(strategy);
            if std::env::var("ARRC_BENCH_SOLVER").as_deref() == Ok("cbc") {
                options.solver = arrc::fusion::ilp::Solver::Cbc;
            }
            let mut times = Vec::new();
            let mut fused = None;
            for _ in 0..RUNS {
                let start = Instant::now();
                let result = fuse(&p, &options);
                times.push(start.elapsed().as_secs_f64() * 1e3);
                fused = Some(result);
            }
            let fused = fused.expect("at least one run");
            let best = times.iter().copied().fold(f64::INFINITY, f64::min);
            let mean = times.iter().sum::<f64>() / times.len() as f64;
            let traffic = arrc::fusion::traffic::function_traffic(&fused.program.entries[0]);
            // Reads plus writes, in elements of the input's length.
            let n = std::collections::HashMap::from([("n_input".to_string(), 1)]);
            let elements = traffic.reads.eval(&n) + traffic.writes.eval(&n) - {
                let zero = std::collections::HashMap::new();
                traffic.reads.eval(&zero) + traffic.writes.eval(&zero)
            };
            println!(
                "{:>6} {:>9} {:>8.1}ms {:>8.1}ms {:>6} {:>12}*n {:>10}",
                soacs,
                strategy.name(),
                best,
                mean,
                traffic.loops,
                elements,
                match (strategy, fused.notes.is_empty()) {
                    (Strategy::Ilp, true) => "optimal",
                    (Strategy::Ilp, false) => "not proven",
                    _ => "",
                }
            );
        }
    }
}
