//! Generated programs for testing and timing the clusterers (`benches/fusion.rs`,
//! `tests/fusion_optimal.rs`): one entry whose body is a sequence of SOACs
//! over arrays of one size, each reading some of the latest arrays, so the
//! fusion graph has chains, siblings, fusion-preventing edges, filter
//! families, histograms and scatters in chosen proportions.

use crate::core::ir::*;
use crate::types::{Const, ScalarType};

/// The SOACs a generated body is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `map (\x -> x * 2) a`
    Map,
    /// `map2 (+) a b`
    Map2,
    /// `reduce (+) 0 a`
    Reduce,
    /// `scan (+) 0 a`
    Scan,
    /// `scanr (+) 0 a`: walks right to left, so it never shares a loop
    /// with a `scan`.
    ScanRight,
    /// `map (\x -> x / s) a` with `s` the latest reduction (a preventing edge).
    MapUsing,
    /// `let f = filter (> 0) a in reduce (+) 0 (map (* 2) f)`: a filter family.
    Filter,
    /// `hist (+) 0 16 (map i64.f32 a) b`
    Hist,
    /// `scatter (copy c) (map i64.f32 a) b`
    Scatter,
    /// `map (\x -> reduce (+) 0 (map (* x) w)) a`, `w` a second parameter
    /// every such map reads whole through its inner map: two of them are
    /// siblings by that shared vector (`graph`'s free-row pairs).
    RowDot,
}

/// The mix of `benches/fusion.rs` before histograms, scatters and filters.
pub const CLASSIC: [Kind; 5] = [
    Kind::Map,
    Kind::Map2,
    Kind::Reduce,
    Kind::Scan,
    Kind::MapUsing,
];

/// `benches/fusion.rs`'s mix with histograms, scatters and filter families.
pub const MIXED: [Kind; 8] = [
    Kind::Map,
    Kind::Map2,
    Kind::Reduce,
    Kind::Scan,
    Kind::MapUsing,
    Kind::Filter,
    Kind::Hist,
    Kind::Scatter,
];

struct Gen {
    next_var: u32,
    next_soac: u32,
    seed: u64,
    stms: Vec<Stm>,
    width: Atom,
}

const F32: Type = Type::Scalar(ScalarType::F32);
const I64: Type = Type::Scalar(ScalarType::I64);

impl Gen {
    fn var(&mut self, name: &str, ty: Type) -> Var {
        self.next_var += 1;
        Var {
            id: VarId(self.next_var),
            name: name.into(),
            ty,
        }
    }

    /// xorshift64: the same seed gives the same program.
    fn pick(&mut self, n: usize) -> usize {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        (self.seed % n as u64) as usize
    }

    fn stm(&mut self, pat: Vec<Var>, exp: Exp) {
        self.stms.push(Stm {
            pat,
            exp,
            loc: SrcLoc::default(),
        });
    }

    /// A SOAC statement binding one new variable of type `ty`.
    fn soac(
        &mut self,
        name: &str,
        ty: Type,
        width: Atom,
        kind: SoacKind,
        args: Vec<VarId>,
    ) -> VarId {
        self.next_soac += 1;
        let label = SoacId(self.next_soac);
        let out = self.var(name, ty);
        let id = out.id;
        self.stm(
            vec![out],
            Exp::Soac(Soac {
                label,
                width,
                kind,
                args,
                sequential: false,
            }),
        );
        id
    }

    /// A function of `arity` `f32`s folding them (and `extra`) with `op`;
    /// of one `f32` alone, `op` with 2.
    fn binop_lambda(&mut self, op: BinOp, arity: usize, extra: Option<VarId>) -> Lambda {
        let params: Vec<Var> = (0..arity).map(|_| self.var("x", F32)).collect();
        let mut stms = Vec::new();
        let mut acc = Atom::Var(params[0].id);
        let mut operands: Vec<Atom> = params.iter().skip(1).map(|p| Atom::Var(p.id)).collect();
        operands.extend(extra.map(Atom::Var));
        if operands.is_empty() {
            operands.push(Atom::Const(Const::F32(2.0)));
        }
        for p in operands {
            let t = self.var("t", F32);
            stms.push(Stm {
                pat: vec![t.clone()],
                exp: Exp::BinOp(op, acc, p),
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
            ret: vec![F32],
        }
    }

    /// `\x -> f(x)` for one statement `f` giving type `ty`.
    fn unary_lambda(&mut self, ty: Type, exp: impl FnOnce(Atom) -> Exp) -> Lambda {
        let x = self.var("x", F32);
        let t = self.var("t", ty);
        let exp = exp(Atom::Var(x.id));
        Lambda {
            params: vec![x],
            body: Body {
                stms: vec![Stm {
                    pat: vec![t.clone()],
                    exp,
                    loc: SrcLoc::default(),
                }],
                result: vec![Atom::Var(t.id)],
            },
            ret: vec![ty],
        }
    }

    fn indices(&mut self, from: VarId) -> VarId {
        let lam = self.unary_lambda(I64, |x| Exp::Convert(ScalarType::I64, x));
        let width = self.width;
        self.soac(
            "idx",
            Type::Array(ScalarType::I64, 1),
            width,
            SoacKind::Map(lam),
            vec![from],
        )
    }
}

/// The fusion graph of `program`'s entry body (the same arguments).
pub fn fusion_graph(
    soacs: usize,
    kinds: &[Kind],
    cycle: bool,
    recent: usize,
    seed: u64,
) -> crate::fusion::graph::FusionGraph {
    let p = program(soacs, kinds, cycle, recent, seed);
    let f = &p.entries[0];
    crate::fusion::graph::build(&f.params, &f.body)
}

/// A program of about `soacs` SOACs of the `kinds` (in turn when `cycle`,
/// else drawn at random), each reading one of the `recent` latest arrays.
pub fn program(soacs: usize, kinds: &[Kind], cycle: bool, recent: usize, seed: u64) -> Program {
    let mut g = Gen {
        next_var: 0,
        next_soac: 0,
        seed: seed.max(1),
        stms: Vec::new(),
        width: Atom::Const(Const::I64(0)),
    };
    let arr = Type::Array(ScalarType::F32, 1);
    let input = g.var("input", arr);
    let n = g.var("n", I64);
    g.width = Atom::Var(n.id);
    g.stm(
        vec![n.clone()],
        Exp::Size {
            array: input.id,
            dim: 0,
        },
    );
    let width = g.width;
    // The vector `RowDot`'s maps read whole, and its size.
    let mut params = vec![input.clone()];
    let mut row = None;
    if kinds.contains(&Kind::RowDot) {
        let w = g.var("w", arr);
        let m = g.var("m", I64);
        g.stm(
            vec![m.clone()],
            Exp::Size {
                array: w.id,
                dim: 0,
            },
        );
        row = Some((w.id, Atom::Var(m.id)));
        params.push(w);
    }
    let mut arrays = vec![input.id];
    let mut scalars: Vec<VarId> = Vec::new();
    let mut others: Vec<VarId> = Vec::new();
    let mut k = 0;
    while (g.next_soac as usize) < soacs {
        let recent_array = |g: &mut Gen, arrays: &Vec<VarId>| {
            let window = arrays.len().min(recent.max(1));
            arrays[arrays.len() - 1 - g.pick(window)]
        };
        let kind = if cycle {
            kinds[k % kinds.len()]
        } else {
            kinds[g.pick(kinds.len())]
        };
        k += 1;
        match kind {
            Kind::Map => {
                let lam = g.binop_lambda(BinOp::Mul, 1, None);
                let a = recent_array(&mut g, &arrays);
                arrays.push(g.soac("r", arr, width, SoacKind::Map(lam), vec![a]));
            }
            Kind::Map2 => {
                let a = recent_array(&mut g, &arrays);
                let b = recent_array(&mut g, &arrays);
                let lam = g.binop_lambda(BinOp::Add, 2, None);
                arrays.push(g.soac("r", arr, width, SoacKind::Map(lam), vec![a, b]));
            }
            Kind::Reduce | Kind::Scan | Kind::ScanRight => {
                let op = g.binop_lambda(BinOp::Add, 2, None);
                let neutral = vec![Atom::Const(Const::F32(0.0))];
                let a = recent_array(&mut g, &arrays);
                if kind == Kind::Reduce {
                    scalars.push(g.soac(
                        "r",
                        F32,
                        width,
                        SoacKind::Reduce { op, neutral },
                        vec![a],
                    ));
                } else if kind == Kind::Scan {
                    arrays.push(g.soac("r", arr, width, SoacKind::Scan { op, neutral }, vec![a]));
                } else {
                    let scan = SoacKind::ScanRight { op, neutral };
                    arrays.push(g.soac("r", arr, width, scan, vec![a]));
                }
            }
            Kind::MapUsing => {
                let s = scalars.last().copied();
                let lam = g.binop_lambda(BinOp::Div, 1, s);
                let a = recent_array(&mut g, &arrays);
                arrays.push(g.soac("r", arr, width, SoacKind::Map(lam), vec![a]));
            }
            Kind::Filter => {
                let a = recent_array(&mut g, &arrays);
                let pred = g.unary_lambda(Type::Scalar(ScalarType::Bool), |x| {
                    Exp::BinOp(BinOp::Gt, x, Atom::Const(Const::F32(0.0)))
                });
                let kept = g.soac("f", arr, width, SoacKind::Filter { pred }, vec![a]);
                let m = g.var("m", I64);
                let mid = m.id;
                g.stm(
                    vec![m],
                    Exp::Size {
                        array: kept,
                        dim: 0,
                    },
                );
                let lam = g.binop_lambda(BinOp::Mul, 1, None);
                let doubled = g.soac("d", arr, Atom::Var(mid), SoacKind::Map(lam), vec![kept]);
                let op = g.binop_lambda(BinOp::Add, 2, None);
                let neutral = vec![Atom::Const(Const::F32(0.0))];
                let sum = g.soac(
                    "s",
                    F32,
                    Atom::Var(mid),
                    SoacKind::Reduce { op, neutral },
                    vec![doubled],
                );
                scalars.push(sum);
            }
            Kind::Hist => {
                let a = recent_array(&mut g, &arrays);
                let b = recent_array(&mut g, &arrays);
                let idx = g.indices(a);
                let op = g.binop_lambda(BinOp::Add, 2, None);
                let kind = SoacKind::Hist {
                    op,
                    neutral: vec![Atom::Const(Const::F32(0.0))],
                    bins: Atom::Const(Const::I64(16)),
                    dest: None,
                };
                others.push(g.soac("h", arr, width, kind, vec![idx, b]));
            }
            Kind::RowDot => {
                let Some((w, m)) = row else { continue };
                let a = recent_array(&mut g, &arrays);
                let x = g.var("x", F32);
                let scale = g.binop_lambda(BinOp::Mul, 1, Some(x.id));
                let op = g.binop_lambda(BinOp::Add, 2, None);
                let prods = g.var("p", arr);
                let sum = g.var("s", F32);
                g.next_soac += 2;
                let inner = |label: u32, kind: SoacKind, args: Vec<VarId>| {
                    Exp::Soac(Soac {
                        label: SoacId(label),
                        width: m,
                        kind,
                        args,
                        sequential: false,
                    })
                };
                let stms = vec![
                    Stm {
                        pat: vec![prods.clone()],
                        exp: inner(g.next_soac - 1, SoacKind::Map(scale), vec![w]),
                        loc: SrcLoc::default(),
                    },
                    Stm {
                        pat: vec![sum.clone()],
                        exp: inner(
                            g.next_soac,
                            SoacKind::Reduce {
                                op,
                                neutral: vec![Atom::Const(Const::F32(0.0))],
                            },
                            vec![prods.id],
                        ),
                        loc: SrcLoc::default(),
                    },
                ];
                let lam = Lambda {
                    params: vec![x],
                    body: Body {
                        stms,
                        result: vec![Atom::Var(sum.id)],
                    },
                    ret: vec![F32],
                };
                arrays.push(g.soac("r", arr, width, SoacKind::Map(lam), vec![a]));
            }
            Kind::Scatter => {
                let a = recent_array(&mut g, &arrays);
                let b = recent_array(&mut g, &arrays);
                let dest = recent_array(&mut g, &arrays);
                let idx = g.indices(a);
                let kind = SoacKind::Scatter {
                    dest: vec![dest],
                    continues: false,
                };
                arrays.push(g.soac("w", arr, width, kind, vec![idx, b]));
            }
        }
    }
    let result: Vec<Atom> = arrays[arrays.len().saturating_sub(3)..]
        .iter()
        .chain(scalars.iter().rev().take(2))
        .chain(&others)
        .map(|v| Atom::Var(*v))
        .collect();
    let ret = result
        .iter()
        .map(|a| match a {
            Atom::Var(v) if scalars.contains(v) => F32,
            _ => arr,
        })
        .collect();
    Program {
        files: vec!["generated.arr".into()],
        entries: vec![Function {
            name: "main".into(),
            params,
            size_params: Vec::new(),
            body: Body {
                stms: g.stms,
                result,
            },
            ret,
        }],
    }
}
