//! Which results of a test case the compiled program must reproduce bit for
//! bit. Integers and booleans always; floats unless the entry point
//! reassociates float operations or calls a function whose last bit the
//! backends may round differently. The rule is per program: a float
//! reduction anywhere in the entry may feed any of its float results.
//!
//! Reassociation: `reduce`, `scan`, `scanr` and `hist`/`reduce_by_index`
//! with a float operator (a parallel run combines in another order), and
//! everything under `--fast-math`. Contraction: unless `--strict-fp`, an
//! entry with both a float multiplication and a float addition or
//! subtraction (anywhere: fusion may bring them together) may round once
//! where the interpreter rounds twice. Rounding: libm's transcendental
//! functions and arrc's polynomial `exp`/`log`/`erf` (within 1 ulp), `**`,
//! `atan2` and `hypot` on floats. Arithmetic, `sqrt`, rounding functions,
//! conversions, `min`/`max` and comparisons are correctly rounded and so
//! exact on every backend.

use crate::core::ir::{BinOp, Body, Exp, Program, SoacKind, Type, UnOp};
use crate::simplify::walk::nested_bodies;

/// Whether every float result of `entry` must match exactly; `contract`
/// when the binary may fuse multiply-adds (not `--strict-fp`).
pub fn floats_exact(program: &Program, entry: &str, fast_math: bool, contract: bool) -> bool {
    if fast_math {
        return false;
    }
    program
        .entries
        .iter()
        .find(|f| f.name == entry)
        .is_some_and(|f| body_exact(&f.body) && !(contract && contracts(&f.body)))
}

/// Whether `entry` has a float multiplication and a float addition or
/// subtraction, which a binary built without `--strict-fp` may fuse.
pub fn may_contract(program: &Program, entry: &str) -> bool {
    program
        .entries
        .iter()
        .find(|f| f.name == entry)
        .is_some_and(|f| contracts(&f.body))
}

fn contracts(body: &Body) -> bool {
    float_ops(body, &[BinOp::Mul]) && float_ops(body, &[BinOp::Add, BinOp::Sub])
}

/// Whether `body` or a body nested in it has a float operation in `ops`.
fn float_ops(body: &Body, ops: &[BinOp]) -> bool {
    body.stms.iter().any(|stm| {
        let here = matches!(&stm.exp, Exp::BinOp(op, ..) if ops.contains(op))
            && stm.pat.iter().any(|v| is_float(&v.ty));
        here || nested_bodies(&stm.exp)
            .into_iter()
            .any(|b| float_ops(b, ops))
    })
}

fn is_float(t: &Type) -> bool {
    t.elem().is_float()
}

fn body_exact(body: &Body) -> bool {
    body.stms.iter().all(|stm| {
        let float_result = stm.pat.iter().any(|v| is_float(&v.ty));
        let here = match &stm.exp {
            Exp::Soac(soac) => match &soac.kind {
                SoacKind::Reduce { op, .. }
                | SoacKind::Scan { op, .. }
                | SoacKind::ScanRight { op, .. }
                | SoacKind::Hist { op, .. } => !op.ret.iter().any(is_float),
                _ => true,
            },
            Exp::UnOp(op, _) => !float_result || !rounds_differently(*op),
            Exp::BinOp(BinOp::Pow | BinOp::Atan2 | BinOp::Hypot, ..) => !float_result,
            _ => true,
        };
        here && nested_bodies(&stm.exp).into_iter().all(body_exact)
    })
}

fn rounds_differently(op: UnOp) -> bool {
    !matches!(
        op,
        UnOp::Neg
            | UnOp::Not
            | UnOp::Abs
            | UnOp::Sqrt
            | UnOp::Floor
            | UnOp::Ceil
            | UnOp::Round
            | UnOp::Trunc
            | UnOp::IsNan
            | UnOp::IsInf
            | UnOp::Popc
            | UnOp::Clz
            | UnOp::ToBits
            | UnOp::FromBits
    )
}
