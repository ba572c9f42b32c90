//! The interpreter on hand-built core IR: the builders the test files
//! share, and the test files by subject.

mod basics;
mod loops_slices;
mod shapes;
mod unspecified;

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

fn range(start: Atom, end: Atom, stride: Atom) -> DimSlice {
    DimSlice::Range { start, end, stride }
}

/// `main (a: [][]t)` returning the results of `f` applied to `a`.
fn unary(param: Type, ret: Type, f: impl FnOnce(&mut Ir, &Var) -> Exp) -> Program {
    entry(&[("a", param)], &[ret], |ir, ps| {
        let e = f(ir, &ps[0]);
        let r = ir.let_(ret, e, loc(9, 2));
        vec![v(&r)]
    })
}
