//! Whole-function traversals the passes share: use counts, rewrites, and
//! the node census the tests and the benchmark measure.

use crate::core::ir::{
    Atom, Body, DimSlice, Exp, Function, Lambda, LoopForm, Program, SoacKind, Var, VarId,
};
use std::collections::{BTreeMap, HashMap};

/// The lambda of a SOAC, if its kind has one (`SoacKind::lambda`, mutable).
pub fn soac_lambda_mut(kind: &mut SoacKind) -> Option<&mut Lambda> {
    match kind {
        SoacKind::Map(lam) => Some(lam),
        SoacKind::Reduce { op, .. }
        | SoacKind::Scan { op, .. }
        | SoacKind::ScanRight { op, .. }
        | SoacKind::Hist { op, .. } => Some(op),
        SoacKind::Filter { pred } | SoacKind::Partition { pred } => Some(pred),
        SoacKind::Scatter { .. } => None,
    }
}

/// The match behind `exp_atoms` and `exp_atoms_mut`, written once for
/// shared and mutable references (`$iter` is `iter` or `iter_mut`).
macro_rules! match_atoms {
    ($exp:expr, $f:ident, $var:ident, $iter:ident $(, $mut:tt)?) => {
        match $exp {
            Exp::Atom(a) | Exp::UnOp(_, a) | Exp::Convert(_, a) | Exp::Iota(a) => $f(a),
            Exp::Assert(a, report) => {
                $f(a);
                report.$iter().for_each(&mut $f);
            }
            Exp::BinOp(_, a, b) | Exp::AssertEqSizes(a, b) => {
                $f(a);
                $f(b);
            }
            Exp::Fma(a, b, c) => {
                $f(a);
                $f(b);
                $f(c);
            }
            Exp::Replicate { count, value } => {
                $f(count);
                $f(value);
            }
            Exp::If { cond, .. } => $f(cond),
            Exp::Index { array, indices, .. } => {
                $var(array, &mut $f);
                indices.$iter().for_each(&mut $f);
            }
            Exp::Size { array, .. }
            | Exp::Transpose(array)
            | Exp::Flatten(array)
            | Exp::Reverse(array) => $var(array, &mut $f),
            Exp::ArrayLit { items, .. } => items.$iter().for_each(&mut $f),
            Exp::Soac(soac) => {
                $f(& $($mut)? soac.width);
                match & $($mut)? soac.kind {
                    SoacKind::Reduce { neutral, .. }
                    | SoacKind::Scan { neutral, .. }
                    | SoacKind::ScanRight { neutral, .. } => neutral.$iter().for_each(&mut $f),
                    SoacKind::Hist {
                        neutral,
                        bins,
                        dest,
                        ..
                    } => {
                        neutral.$iter().for_each(&mut $f);
                        $f(bins);
                        for d in dest.$iter().flatten() {
                            $var(d, &mut $f);
                        }
                    }
                    SoacKind::Scatter { dest, .. } => {
                        for d in dest {
                            $var(d, &mut $f);
                        }
                    }
                    SoacKind::Map(_) | SoacKind::Filter { .. } | SoacKind::Partition { .. } => {}
                }
                for a in & $($mut)? soac.args {
                    $var(a, &mut $f);
                }
            }
            Exp::Loop { params, form, .. } => {
                for (_, init) in params {
                    $f(init);
                }
                if let LoopForm::For { bound, .. } = form {
                    $f(bound);
                }
            }
            Exp::Slice { array, dims } => {
                $var(array, &mut $f);
                for d in dims {
                    match d {
                        DimSlice::Index(a) => $f(a),
                        DimSlice::Range { start, end, stride } => {
                            $f(start);
                            $f(end);
                            $f(stride);
                        }
                    }
                }
            }
            Exp::Update {
                array,
                indices,
                value,
            } => {
                $var(array, &mut $f);
                indices.$iter().for_each(&mut $f);
                $f(value);
            }
            Exp::Unflatten { array, rows, cols } => {
                $var(array, &mut $f);
                $f(rows);
                $f(cols);
            }
            Exp::Rotate { array, amount } => {
                $var(array, &mut $f);
                $f(amount);
            }
            Exp::Concat(vs) => {
                for v in vs {
                    $var(v, &mut $f);
                }
            }
        }
    };
}

/// Calls `f` on every atom `exp` reads directly (not inside nested bodies);
/// array operands are passed as `Atom::Var` and keep a rewrite only if it
/// is again a variable.
pub fn exp_atoms_mut(exp: &mut Exp, mut f: impl FnMut(&mut Atom)) {
    let var = |v: &mut VarId, f: &mut dyn FnMut(&mut Atom)| {
        let mut a = Atom::Var(*v);
        f(&mut a);
        if let Atom::Var(w) = a {
            *v = w;
        }
    };
    match_atoms!(exp, f, var, iter_mut, mut)
}

/// Reads the atoms of `exp` (direct ones only, as in `exp_atoms_mut`).
pub fn exp_atoms(exp: &Exp, mut f: impl FnMut(&Atom)) {
    let var = |v: &VarId, f: &mut dyn FnMut(&Atom)| f(&Atom::Var(*v));
    match_atoms!(exp, f, var, iter)
}

/// Variables bound by the scopes nested in `exp` (lambda parameters, loop
/// parameters and index), not by its own pattern.
pub fn nested_binders(exp: &Exp) -> Vec<&Var> {
    match exp {
        Exp::Soac(soac) => soac
            .kind
            .lambda()
            .map(|l| l.params.iter().collect())
            .unwrap_or_default(),
        Exp::Loop { params, form, .. } => {
            let mut vs: Vec<&Var> = params.iter().map(|(v, _)| v).collect();
            if let LoopForm::For { index, .. } = form {
                vs.push(index);
            }
            vs
        }
        _ => Vec::new(),
    }
}

/// Replaces reads of `from` by `to` everywhere in `body`.
pub fn rename_in_body(body: &mut Body, from: VarId, to: VarId) {
    let rename = |a: &mut Atom| {
        if *a == Atom::Var(from) {
            *a = Atom::Var(to);
        }
    };
    for stm in &mut body.stms {
        exp_atoms_mut(&mut stm.exp, rename);
        for nested in nested_bodies_mut(&mut stm.exp) {
            rename_in_body(nested, from, to);
        }
    }
    body.result.iter_mut().for_each(rename);
}

/// Whether the bodies nested in `exp` may run many times (lambdas, loops).
pub fn repeats(exp: &Exp) -> bool {
    matches!(exp, Exp::Soac(_) | Exp::Loop { .. })
}

pub fn empty_body() -> Body {
    Body {
        stms: Vec::new(),
        result: Vec::new(),
    }
}

/// Bodies nested in `exp` (branches, a lambda's, a loop's condition and body), mutably.
pub fn nested_bodies_mut(exp: &mut Exp) -> Vec<&mut Body> {
    match exp {
        Exp::If {
            then_body,
            else_body,
            ..
        } => vec![then_body, else_body],
        Exp::Soac(soac) => soac_lambda_mut(&mut soac.kind)
            .map(|l| vec![&mut l.body])
            .unwrap_or_default(),
        Exp::Loop { form, body, .. } => match form {
            LoopForm::While { cond } => vec![cond, body],
            LoopForm::For { .. } => vec![body],
        },
        _ => Vec::new(),
    }
}

pub fn nested_bodies(exp: &Exp) -> Vec<&Body> {
    match exp {
        Exp::If {
            then_body,
            else_body,
            ..
        } => vec![then_body, else_body],
        Exp::Soac(soac) => soac
            .kind
            .lambda()
            .map(|l| vec![&l.body])
            .unwrap_or_default(),
        Exp::Loop { form, body, .. } => match form {
            LoopForm::While { cond } => vec![cond, body],
            LoopForm::For { .. } => vec![body],
        },
        _ => Vec::new(),
    }
}

/// How often each variable is read in `f`. With `lambda_weight > 1`, a read
/// inside a lambda counts that many times (it runs once per element).
pub fn use_counts(f: &Function, lambda_weight: u32) -> HashMap<VarId, u32> {
    let mut counts = HashMap::new();
    count_body(&f.body, 1, lambda_weight, &mut counts);
    counts
}

fn count_body(body: &Body, weight: u32, lw: u32, counts: &mut HashMap<VarId, u32>) {
    for stm in &body.stms {
        exp_atoms(&stm.exp, |a| {
            if let Atom::Var(v) = a {
                *counts.entry(*v).or_insert(0) += weight;
            }
        });
        let w = if repeats(&stm.exp) {
            weight.saturating_mul(lw)
        } else {
            weight
        };
        for nested in nested_bodies(&stm.exp) {
            count_body(nested, w, lw, counts);
        }
    }
    for a in &body.result {
        if let Atom::Var(v) = a {
            *counts.entry(*v).or_insert(0) += weight;
        }
    }
}

/// The kind name of each statement, as the `--emit core` dump prints it
/// (`map`, `add`, `if`, `index`, ...).
pub fn node_kind(exp: &Exp) -> &'static str {
    match exp {
        Exp::Atom(_) => "copy",
        Exp::BinOp(op, ..) => op.name(),
        Exp::UnOp(op, _) => op.name(),
        Exp::Convert(..) => "convert",
        Exp::Fma(..) => "fma",
        Exp::If { .. } => "if",
        Exp::Index { .. } => "index",
        Exp::Size { .. } => "size",
        Exp::Iota(_) => "iota",
        Exp::Replicate { .. } => "replicate",
        Exp::ArrayLit { .. } => "array",
        Exp::AssertEqSizes(..) => "assert_eq_sizes",
        Exp::Assert(..) => "assert",
        Exp::Soac(soac) => soac.kind.name(),
        Exp::Loop { .. } => "loop",
        Exp::Slice { .. } => "slice",
        Exp::Update { .. } => "update",
        Exp::Transpose(_) => "transpose",
        Exp::Flatten(_) => "flatten",
        Exp::Unflatten { .. } => "unflatten",
        Exp::Reverse(_) => "reverse",
        Exp::Rotate { .. } => "rotate",
        Exp::Concat(_) => "concat",
    }
}

/// How many statements of each kind `program` has, nested ones included.
pub fn node_counts(program: &Program) -> BTreeMap<&'static str, usize> {
    fn body(b: &Body, out: &mut BTreeMap<&'static str, usize>) {
        for stm in &b.stms {
            *out.entry(node_kind(&stm.exp)).or_insert(0) += 1;
            for nested in nested_bodies(&stm.exp) {
                body(nested, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    for f in &program.entries {
        body(&f.body, &mut out);
    }
    out
}

/// Total number of statements in `program`.
pub fn node_total(program: &Program) -> usize {
    node_counts(program).values().sum()
}
