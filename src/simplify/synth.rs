//! Generated core IR programs of a chosen size, for the simplifier's
//! benchmark (`benches/simplify.rs`) and its property tests: random scalar
//! arithmetic on every kind of operand, duplicated expressions, constant
//! conditions, maps with invariant and failing statements in their lambdas,
//! reductions, sizes and indexing, with much of it dead.

use crate::core::ir::*;
use crate::types::{Const, ScalarType};

/// A program with one entry `main (x: i32) (y: f64) (b: bool) (xs: []i32)`
/// and about `nodes` statements, nested ones included; `seed` picks it.
pub fn program(nodes: usize, seed: u64) -> Program {
    let mut g = Gen {
        rng: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
        next_var: 0,
        next_soac: 0,
        made: 0,
    };
    let x = g.var("x", Type::Scalar(ScalarType::I32));
    let y = g.var("y", Type::Scalar(ScalarType::F64));
    let b = g.var("b", Type::Scalar(ScalarType::Bool));
    let xs = g.var("xs", Type::Array(ScalarType::I32, 1));
    let n = g.var("n", Type::Scalar(ScalarType::I64));
    let mut scope = Scope {
        ints: vec![Atom::Var(x.id)],
        floats: vec![Atom::Var(y.id)],
        bools: vec![Atom::Var(b.id)],
        sizes: vec![Atom::Var(n.id)],
        arrays: vec![xs.id],
    };
    let mut stms = vec![Stm {
        pat: vec![n.clone()],
        exp: Exp::Size {
            array: xs.id,
            dim: 0,
        },
        loc: SrcLoc::default(),
    }];
    g.made = 1;
    while g.made < nodes {
        g.stm(&mut scope, &mut stms, 2);
    }
    let result = vec![
        g.pick(&scope.ints),
        g.pick(&scope.floats),
        g.pick(&scope.bools),
        Atom::Var(*scope.arrays.last().unwrap_or(&xs.id)),
    ];
    let ret = vec![
        Type::Scalar(ScalarType::I32),
        Type::Scalar(ScalarType::F64),
        Type::Scalar(ScalarType::Bool),
        Type::Array(ScalarType::I32, 1),
    ];
    Program {
        files: vec!["generated.arr".into()],
        entries: vec![Function {
            name: "main".into(),
            params: vec![x, y, b, xs],
            size_params: Vec::new(),
            body: Body { stms, result },
            ret,
        }],
    }
}

#[derive(Clone)]
struct Scope {
    ints: Vec<Atom>,
    floats: Vec<Atom>,
    bools: Vec<Atom>,
    /// `i64` sizes known to be at least zero.
    sizes: Vec<Atom>,
    /// `[]i32` arrays, all of the outer size of `xs`.
    arrays: Vec<VarId>,
}

struct Gen {
    rng: u64,
    next_var: u32,
    next_soac: u32,
    made: usize,
}

const INT_OPS: [BinOp; 12] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Mod,
    BinOp::Quot,
    BinOp::Min,
    BinOp::Max,
    BinOp::And,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::Pow,
];

const FLOAT_OPS: [BinOp; 5] = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Max];

impl Gen {
    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick(&mut self, atoms: &[Atom]) -> Atom {
        let i = self.below(atoms.len());
        atoms.get(i).copied().unwrap_or(Atom::Const(Const::I32(0)))
    }

    fn var(&mut self, name: &str, ty: Type) -> Var {
        let v = Var {
            id: VarId(self.next_var),
            name: name.into(),
            ty,
        };
        self.next_var += 1;
        v
    }

    fn int_atom(&mut self, scope: &Scope) -> Atom {
        match self.below(4) {
            0 => Atom::Const(Const::I32(self.below(5) as i32 - 1)),
            _ => self.pick(&scope.ints),
        }
    }

    fn float_atom(&mut self, scope: &Scope) -> Atom {
        match self.below(4) {
            0 => Atom::Const(Const::F64([0.0, 1.0, -0.0, 2.5][self.below(4)])),
            _ => self.pick(&scope.floats),
        }
    }

    fn push(&mut self, stms: &mut Vec<Stm>, pat: Vec<Var>, exp: Exp) {
        self.made += 1;
        stms.push(Stm {
            pat,
            exp,
            loc: SrcLoc {
                file: 0,
                line: self.made as u32,
                col: 1,
            },
        });
    }

    /// One statement (with nested ones when `depth > 0`) appended to `stms`.
    fn stm(&mut self, scope: &mut Scope, stms: &mut Vec<Stm>, depth: u32) {
        let i32t = Type::Scalar(ScalarType::I32);
        match self.below(if depth > 0 { 12 } else { 9 }) {
            0..=2 => {
                let op = INT_OPS[self.below(INT_OPS.len())];
                let (a, b) = (self.int_atom(scope), self.int_atom(scope));
                let v = self.var("i", i32t);
                self.push(stms, vec![v.clone()], Exp::BinOp(op, a, b));
                scope.ints.push(Atom::Var(v.id));
            }
            3 => {
                let op = FLOAT_OPS[self.below(FLOAT_OPS.len())];
                let (a, b) = (self.float_atom(scope), self.float_atom(scope));
                let v = self.var("f", Type::Scalar(ScalarType::F64));
                self.push(stms, vec![v.clone()], Exp::BinOp(op, a, b));
                scope.floats.push(Atom::Var(v.id));
            }
            4 => {
                let op = [BinOp::Lt, BinOp::Eq, BinOp::Ge][self.below(3)];
                let (a, b) = (self.int_atom(scope), self.int_atom(scope));
                let v = self.var("c", Type::Scalar(ScalarType::Bool));
                self.push(stms, vec![v.clone()], Exp::BinOp(op, a, b));
                scope.bools.push(Atom::Var(v.id));
            }
            5 => {
                let (op, a) = match self.below(3) {
                    0 => (UnOp::Neg, self.int_atom(scope)),
                    1 => (UnOp::Not, self.int_atom(scope)),
                    _ => (UnOp::Abs, self.int_atom(scope)),
                };
                let v = self.var("u", i32t);
                self.push(stms, vec![v.clone()], Exp::UnOp(op, a));
                scope.ints.push(Atom::Var(v.id));
            }
            6 => {
                let a = self.pick(&scope.ints);
                let v = self.var("w", Type::Scalar(ScalarType::I64));
                self.push(stms, vec![v.clone()], Exp::Convert(ScalarType::I64, a));
                let arr = scope.arrays[self.below(scope.arrays.len())];
                let e = self.var("e", i32t);
                let idx = vec![Atom::Var(v.id)];
                self.push(
                    stms,
                    vec![e.clone()],
                    Exp::Index {
                        array: arr,
                        indices: idx,
                        checked: true,
                    },
                );
                scope.ints.push(Atom::Var(e.id));
            }
            7 => {
                let arr = scope.arrays[self.below(scope.arrays.len())];
                let v = self.var("s", Type::Scalar(ScalarType::I64));
                self.push(stms, vec![v.clone()], Exp::Size { array: arr, dim: 0 });
                scope.sizes.push(Atom::Var(v.id));
                let i = self.var("si", i32t);
                self.push(
                    stms,
                    vec![i.clone()],
                    Exp::Convert(ScalarType::I32, Atom::Var(v.id)),
                );
                scope.ints.push(Atom::Var(i.id));
            }
            8 => {
                // A repeat of an earlier statement, for CSE.
                let k = self.below(stms.len());
                if let Some(prev) = stms.get(k).cloned() {
                    if let (Exp::BinOp(..) | Exp::UnOp(..), [p]) = (&prev.exp, prev.pat.as_slice())
                    {
                        let v = self.var("d", p.ty);
                        self.push(stms, vec![v.clone()], prev.exp);
                        match p.ty.elem() {
                            ScalarType::F64 => scope.floats.push(Atom::Var(v.id)),
                            ScalarType::Bool => scope.bools.push(Atom::Var(v.id)),
                            _ => scope.ints.push(Atom::Var(v.id)),
                        }
                    }
                }
            }
            9 => {
                let cond = match self.below(3) {
                    0 => Atom::Const(Const::Bool(self.below(2) == 0)),
                    _ => self.pick(&scope.bools),
                };
                let then_body = self.scalar_body(scope, depth - 1);
                let else_body = self.scalar_body(scope, depth - 1);
                let v = self.var("r", i32t);
                self.push(
                    stms,
                    vec![v.clone()],
                    Exp::If {
                        cond,
                        then_body,
                        else_body,
                    },
                );
                scope.ints.push(Atom::Var(v.id));
            }
            10 => {
                let arr = scope.arrays[self.below(scope.arrays.len())];
                let p = self.var("p", i32t);
                let mut inner = scope.clone();
                inner.ints.push(Atom::Var(p.id));
                let mut body = self.scalar_body(&mut inner, depth - 1);
                let extra = self.var("q", i32t);
                body.stms.push(Stm {
                    pat: vec![extra.clone()],
                    exp: Exp::BinOp(BinOp::Add, Atom::Var(p.id), body.result[0]),
                    loc: SrcLoc::default(),
                });
                self.made += 1;
                body.result = vec![Atom::Var(extra.id), Atom::Var(p.id)];
                let (m1, m2) = (
                    self.var("m", Type::Array(ScalarType::I32, 1)),
                    self.var("m", Type::Array(ScalarType::I32, 1)),
                );
                let label = SoacId(self.next_soac);
                self.next_soac += 1;
                let width = scope.sizes[0];
                let soac = Soac {
                    sequential: false,
                    label,
                    width,
                    kind: SoacKind::Map(Lambda {
                        params: vec![p],
                        body,
                        ret: vec![i32t, i32t],
                    }),
                    args: vec![arr],
                };
                self.push(stms, vec![m1.clone(), m2.clone()], Exp::Soac(soac));
                scope.arrays.push(m1.id);
                if self.below(2) == 0 {
                    scope.arrays.push(m2.id);
                }
            }
            _ => {
                let arr = scope.arrays[self.below(scope.arrays.len())];
                let (acc, el) = (self.var("acc", i32t), self.var("el", i32t));
                let t = self.var("t", i32t);
                let body = Body {
                    stms: vec![Stm {
                        pat: vec![t.clone()],
                        exp: Exp::BinOp(BinOp::Add, Atom::Var(acc.id), Atom::Var(el.id)),
                        loc: SrcLoc::default(),
                    }],
                    result: vec![Atom::Var(t.id)],
                };
                self.made += 1;
                let label = SoacId(self.next_soac);
                self.next_soac += 1;
                let v = self.var("red", i32t);
                let soac = Soac {
                    sequential: false,
                    label,
                    width: scope.sizes[0],
                    kind: SoacKind::Reduce {
                        op: Lambda {
                            params: vec![acc, el],
                            body,
                            ret: vec![i32t],
                        },
                        neutral: vec![Atom::Const(Const::I32(0))],
                    },
                    args: vec![arr],
                };
                self.push(stms, vec![v.clone()], Exp::Soac(soac));
                scope.ints.push(Atom::Var(v.id));
            }
        }
    }

    /// A body of a few statements whose one result is an `i32`.
    fn scalar_body(&mut self, scope: &mut Scope, depth: u32) -> Body {
        let mut inner = scope.clone();
        let mut stms = Vec::new();
        for _ in 0..1 + self.below(4) {
            self.stm(&mut inner, &mut stms, depth);
        }
        // Arrays made inside do not escape; only their scalars do.
        let result = vec![self.pick(&inner.ints)];
        Body { stms, result }
    }
}
