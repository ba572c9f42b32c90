//! Delta debugging over the generated program: drop results, statements
//! and parameters, replace any expression by one of its parts, a variable
//! or a literal of its type, and cut the input arrays, keeping each change
//! after which the failure still happens. Ill-typed candidates simply do
//! not fail in the same way, so no change needs to know the scoping rules.

use super::arrays::var_expr;
use super::ast::{mentions, Expr, Prog, Ty};
use crate::core::ir::Type;
use crate::runtime::value::{read_values, write_text, ArrayData, ArrayValue, Value};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// The smallest program found within `budget` for which `fails` holds
/// (`fails(prog)` must hold to begin with).
pub fn shrink(prog: &Prog, fails: &mut dyn FnMut(&Prog) -> bool, budget: Duration) -> Prog {
    let start = Instant::now();
    let mut seen: HashSet<String> = HashSet::new();
    let mut best = prog.clone();
    let mut attempt = |candidate: &Prog, best: &mut Prog| -> bool {
        if start.elapsed() > budget {
            return false;
        }
        let key = format!("{}\n{:?}", candidate.source(), candidate.inputs);
        if !seen.insert(key) {
            return false;
        }
        if fails(candidate) {
            *best = candidate.clone();
            true
        } else {
            false
        }
    };
    loop {
        let mut progress = false;
        // Results, then statements, last first.
        for i in (0..best.results.len()).rev() {
            if best.results.len() > 1 && i < best.results.len() {
                let mut c = best.clone();
                c.results.remove(i);
                progress |= attempt(&c, &mut best);
            }
        }
        for i in (0..best.stms.len()).rev() {
            if i < best.stms.len() {
                let mut c = best.clone();
                c.stms.remove(i);
                progress |= attempt(&c, &mut best);
            }
        }
        progress |= drop_params(&mut best, &mut attempt);
        for i in 0..best.stms.len() {
            progress |= simplify_stm(&mut best, i, &mut attempt);
        }
        progress |= cut_inputs(&mut best, &mut attempt);
        if !progress || start.elapsed() > budget {
            return best;
        }
    }
}

type Attempt<'a> = dyn FnMut(&Prog, &mut Prog) -> bool + 'a;

fn drop_params(best: &mut Prog, attempt: &mut Attempt) -> bool {
    let mut progress = false;
    for i in (0..best.params.len()).rev() {
        let name = &best.params[i].name;
        let used = best.stms.iter().any(|s| mentions(&s.exp.text(), name))
            || best.results.iter().any(|r| &r.name == name);
        if !used && best.params.len() > 1 {
            let mut c = best.clone();
            c.params.remove(i);
            for input in &mut c.inputs {
                input.remove(i);
            }
            progress |= attempt(&c, best);
        }
    }
    progress
}

/// Replaces nodes of statement `i`'s expression by smaller ones of their
/// type, first to last, restarting after each success.
fn simplify_stm(best: &mut Prog, i: usize, attempt: &mut Attempt) -> bool {
    let mut progress = false;
    let mut from = 0;
    'again: loop {
        let exp = best.stms[i].exp.clone();
        let scope = best.scope(i);
        for (k, path) in exp.paths().into_iter().enumerate().skip(from) {
            let node = exp.at(&path);
            for cand in candidates(node, &scope) {
                let mut c = best.clone();
                c.stms[i].exp = exp.replaced(&path, cand);
                if attempt(&c, best) {
                    progress = true;
                    from = k;
                    continue 'again;
                }
            }
        }
        return progress;
    }
}

/// Smaller expressions of `node`'s type: its parts, variables, a literal.
fn candidates(node: &Expr, scope: &[super::ast::Var]) -> Vec<Expr> {
    let mut out: Vec<Expr> = Vec::new();
    let leaf = node.children().count() == 0;
    if let Ty::S(t) = node.ty {
        let lits = match t {
            crate::types::ScalarType::Bool => ["false".to_string(), "true".to_string()],
            _ => [format!("0{}", t.name()), format!("1{}", t.name())],
        };
        for lit in lits {
            if !leaf || node.text() != lit {
                out.push(Expr::leaf(node.ty.clone(), lit));
            }
        }
    }
    if leaf {
        return out;
    }
    let mut stack: Vec<&Expr> = node.children().collect();
    while let Some(c) = stack.pop() {
        if c.ty == node.ty && (node.inexact || !c.inexact) {
            out.push(c.clone());
        }
        stack.extend(c.children());
    }
    for v in scope {
        if v.ty == node.ty && (node.inexact || !v.inexact) {
            out.push(var_expr(v));
        }
    }
    out
}

/// Shorter one-dimensional inputs: every array parameter of the input
/// length cut to the same length, so their sizes still agree.
fn cut_inputs(best: &mut Prog, attempt: &mut Attempt) -> bool {
    let types: Vec<Option<Type>> = best.params.iter().map(|p| p.ty.core()).collect();
    let mut progress = false;
    for input in 0..best.inputs.len() {
        loop {
            let values: Option<Vec<Value>> = best.inputs[input]
                .iter()
                .zip(&types)
                .map(|(text, t)| {
                    let t = (*t)?;
                    read_values(text.as_bytes(), &[t]).ok()?.pop()
                })
                .collect();
            let Some(values) = values else {
                return progress;
            };
            let n = values
                .iter()
                .filter_map(|v| match v {
                    Value::Array(a) if a.rank() == 1 => Some(a.len()),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            let mut improved = false;
            for k in [0, n / 2, n.saturating_sub(1)] {
                if k >= n {
                    continue;
                }
                let mut c = best.clone();
                c.inputs[input] = values
                    .iter()
                    .map(|v| write_text(&truncate(v, n, k)))
                    .collect();
                if attempt(&c, best) {
                    improved = true;
                    progress = true;
                    break;
                }
            }
            if !improved {
                break;
            }
        }
    }
    progress
}

fn truncate(v: &Value, n: usize, k: usize) -> Value {
    match v {
        Value::Array(a) if a.rank() == 1 && a.len() == n => {
            let mut data = ArrayData::with_capacity(a.data.elem(), k);
            data.extend_from(&a.data, 0, k);
            Value::Array(ArrayValue::new(vec![k], data).expect("shape fits"))
        }
        other => other.clone(),
    }
}
