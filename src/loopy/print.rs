//! Stable text dump of the loop-nest IR (`arrc build --emit loopy`).
//!
//! Variables print as `name_id` like in the core dump; checked reads show the
//! source position they report (`@line:col`), unchecked ones show nothing.

use super::ir::*;
use crate::core::ir::{AssertReport, Atom, Var, VarId};
use crate::core::print::{binder, indent, type_str, var_name};
use std::collections::HashMap;
use std::fmt::Write;

pub fn print_program(program: &Program) -> String {
    let mut out = String::new();
    for (i, f) in program.functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_function(&mut out, f);
    }
    out
}

/// Uses name variables by id only, so binders are collected first.
struct Names(HashMap<VarId, String>);

impl Names {
    fn var(&self, id: VarId) -> String {
        self.0
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("v_{}", id.0))
    }
    fn atom(&self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => self.var(*v),
            Atom::Const(c) => c.to_string(),
        }
    }
    fn atoms(&self, atoms: &[Atom]) -> String {
        atoms
            .iter()
            .map(|a| self.atom(a))
            .collect::<Vec<_>>()
            .join(", ")
    }
    fn add(&mut self, v: &Var) {
        self.0.insert(v.id, var_name(v));
    }
    fn collect(&mut self, block: &Block) {
        for_each_binder(block, &mut |v| self.add(v));
    }
}

fn print_function(out: &mut String, f: &Function) {
    let mut names = Names(HashMap::new());
    for p in &f.params {
        names.add(&p.var);
        p.shape.iter().for_each(|v| names.add(v));
    }
    names.collect(&f.body);
    let _ = write!(out, "entry {}", f.name);
    for sp in &f.size_params {
        let _ = write!(out, " [{}]", var_name(&sp.var));
    }
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            if p.shape.is_empty() {
                binder(&p.var)
            } else {
                let dims: Vec<String> = p.shape.iter().map(var_name).collect();
                format!("{} [{}]", binder(&p.var), dims.join(", "))
            }
        })
        .collect();
    let ret: Vec<String> = f.ret.iter().map(|t| type_str(*t)).collect();
    let _ = writeln!(out, " ({}) : ({}) =", params.join(", "), ret.join(", "));
    print_block(out, &f.body, 1, &names);
    indent(out, 1);
    let _ = writeln!(out, "in ({})", names.atoms(&f.results));
}

fn print_block(out: &mut String, block: &Block, depth: usize, names: &Names) {
    for stmt in block {
        print_stmt(out, stmt, depth, names);
    }
}

fn check_str(check: &Option<crate::core::ir::SrcLoc>) -> String {
    match check {
        Some(loc) => format!(" @{}:{}", loc.line, loc.col),
        None => String::new(),
    }
}

fn print_stmt(out: &mut String, stmt: &Stmt, depth: usize, names: &Names) {
    indent(out, depth);
    match stmt {
        Stmt::Let { var, exp, .. } => {
            let _ = write!(out, "let {} = ", binder(var));
            let _ = match exp {
                ScalarExp::Atom(a) => writeln!(out, "{}", names.atom(a)),
                ScalarExp::BinOp(op, a, b) => {
                    writeln!(out, "{} {} {}", op.name(), names.atom(a), names.atom(b))
                }
                ScalarExp::UnOp(op, a) => writeln!(out, "{} {}", op.name(), names.atom(a)),
                ScalarExp::Convert(t, a) => writeln!(out, "{t}.convert {}", names.atom(a)),
                ScalarExp::Fma(a, b, c) => {
                    let (a, b, c) = (names.atom(a), names.atom(b), names.atom(c));
                    writeln!(out, "fma {a} {b} {c}")
                }
            };
        }
        Stmt::Alloc { var, shape, space } => {
            // Until `loopy::memory` runs, everything is on the host.
            let space = match space {
                MemSpace::Host => String::new(),
                other => format!("{} ", other.name()),
            };
            let _ = writeln!(out, "alloc {space}{} [{}]", binder(var), names.atoms(shape));
        }
        Stmt::Read {
            var,
            array,
            index,
            check,
        } => {
            let _ = writeln!(
                out,
                "read {} = {}[{}]{}",
                binder(var),
                names.var(*array),
                names.atoms(index),
                check_str(check)
            );
        }
        Stmt::Row {
            var,
            array,
            index,
            check,
        } => {
            let _ = writeln!(
                out,
                "row {} = {}[{}]{}",
                binder(var),
                names.var(*array),
                names.atoms(index),
                check_str(check)
            );
        }
        Stmt::Write {
            array,
            index,
            value,
        } => {
            let _ = writeln!(
                out,
                "write {}[{}] = {}",
                names.var(*array),
                names.atoms(index),
                names.atom(value)
            );
        }
        Stmt::Copy { array, index, src } => {
            let _ = writeln!(
                out,
                "copy {}[{}] = {}",
                names.var(*array),
                names.atoms(index),
                names.var(*src)
            );
        }
        Stmt::If {
            results,
            cond,
            then_block,
            then_results,
            else_block,
            else_results,
        } => {
            // An `if` that gives nothing (its branches only write or
            // check) is a statement: no binding, no `in ()`.
            let bound = !results.is_empty();
            if bound {
                let pat: Vec<String> = results.iter().map(binder).collect();
                let _ = write!(out, "let {} = ", pat.join(", "));
            }
            let _ = writeln!(out, "if {} then", names.atom(cond));
            for (block, results, last) in [
                (then_block, then_results, "else"),
                (else_block, else_results, "end"),
            ] {
                print_block(out, block, depth + 1, names);
                if bound {
                    indent(out, depth + 1);
                    let _ = writeln!(out, "in ({})", names.atoms(results));
                }
                indent(out, depth);
                out.push_str(last);
                out.push('\n');
            }
        }
        Stmt::AssertEq {
            expected,
            found,
            loc,
        } => {
            let _ = writeln!(
                out,
                "assert_eq_sizes {} {} @{}:{}",
                names.atom(expected),
                names.atom(found),
                loc.line,
                loc.col
            );
        }
        Stmt::Assert { cond, report, loc } => {
            let values: Vec<String> = report.iter().map(|a| names.atom(a)).collect();
            let report = match report {
                AssertReport::Plain => String::new(),
                AssertReport::Condition(text) => format!(" {text:?}"),
                AssertReport::NegativeExponent => " negative_exponent".to_string(),
                AssertReport::Range(_) => format!(" range({})", values.join(", ")),
                AssertReport::Slice(_) => format!(" slice({})", values.join(", ")),
            };
            let cond = names.atom(cond);
            let _ = writeln!(out, "assert {cond}{report} @{}:{}", loc.line, loc.col);
        }
        Stmt::IndexCheck { index, len, loc } => {
            let (index, len) = (names.atom(index), names.atom(len));
            let _ = writeln!(out, "check_index {index} < {len} @{}:{}", loc.line, loc.col);
        }
        Stmt::SizeCheck { size, loc } => {
            let size = names.atom(size);
            let _ = writeln!(out, "check_size {size} @{}:{}", loc.line, loc.col);
        }
        Stmt::BoundsCheck { array, index, loc } => {
            let _ = writeln!(
                out,
                "check {}[{}] @{}:{}",
                names.var(*array),
                names.atoms(index),
                loc.line,
                loc.col
            );
        }
        Stmt::SliceCheck {
            start,
            end,
            stride,
            count,
            len,
            loc,
        } => {
            let _ = writeln!(
                out,
                "check_slice [{}:{}:{}] count {} of {} @{}:{}",
                names.atom(start),
                names.atom(end),
                names.atom(stride),
                names.atom(count),
                names.atom(len),
                loc.line,
                loc.col
            );
        }
        Stmt::View {
            var,
            array,
            offset,
            shape,
        } => {
            let _ = writeln!(
                out,
                "view {} = {}[+{}; {}]",
                binder(var),
                names.var(*array),
                names.atom(offset),
                names.atoms(shape)
            );
        }
        Stmt::Free(array) => {
            let _ = writeln!(out, "free {}", names.var(*array));
        }
        Stmt::InPlace { var, array } => {
            let _ = writeln!(
                out,
                "update in place {} = {}",
                binder(var),
                names.var(*array)
            );
        }
        Stmt::SeqLoop(lp) => print_seq_loop(out, lp, depth, names),
        Stmt::Loop(nest) => print_nest(out, nest, depth, names),
    }
}

/// A binder with its dimension variables, as for parameters.
fn shaped(var: &Var, shape: &[Var]) -> String {
    if shape.is_empty() {
        binder(var)
    } else {
        let dims: Vec<String> = shape.iter().map(var_name).collect();
        format!("{} [{}]", binder(var), dims.join(", "))
    }
}

fn print_seq_loop(out: &mut String, lp: &SeqLoop, depth: usize, names: &Names) {
    let results: Vec<String> = lp
        .results
        .iter()
        .map(|r| shaped(&r.var, &r.shape))
        .collect();
    let params: Vec<String> = lp
        .params
        .iter()
        .map(|p| format!("{} = {}", shaped(&p.var, &p.shape), names.atom(&p.init)))
        .collect();
    let _ = write!(
        out,
        "let {} = seqloop ({})",
        results.join(", "),
        params.join(", ")
    );
    match &lp.form {
        SeqForm::For { index, bound } => {
            let _ = writeln!(out, " for {} < {}", binder(index), names.atom(bound));
        }
        SeqForm::While { cond, result } => {
            out.push_str(" while\n");
            print_block(out, cond, depth + 1, names);
            indent(out, depth + 1);
            let _ = writeln!(out, "in ({})", names.atom(result));
        }
    }
    indent(out, depth);
    out.push_str("do\n");
    print_block(out, &lp.body, depth + 1, names);
    indent(out, depth + 1);
    let _ = writeln!(out, "next ({})", names.atoms(&lp.next));
    indent(out, depth);
    out.push_str("end\n");
}

fn print_nest(out: &mut String, nest: &LoopNest, depth: usize, names: &Names) {
    let origin = nest.origin.describe(" ");
    // Launched by host code (where a GPU backend puts a kernel), once
    // `loopy::memory` has drawn the boundary.
    let launch = match (nest.launch, &nest.plan) {
        (Launch::Host, Some(_)) => "launch ",
        (Launch::Inline, _) => "host ",
        _ => "",
    };
    let strategy = match &nest.plan {
        Some(plan) => format!(" [{}]", plan.strategy.describe(nest.par)),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "{launch}loop {}{strategy} ({origin}) {} < {}",
        nest.par.name(),
        var_name(&nest.index),
        names.atom(&nest.width)
    );
    if let Some(plan) = &nest.plan {
        print_plan(out, plan, depth + 1, names);
    }
    for r in &nest.reductions {
        indent(out, depth + 1);
        let results: Vec<String> = r.results.iter().map(binder).collect();
        let _ = writeln!(
            out,
            "reduce ({}) into ({})",
            carried_str(&r.carried, names),
            results.join(", ")
        );
        print_operator(out, &r.op, depth + 2, names);
    }
    for s in &nest.scans {
        indent(out, depth + 1);
        let outputs: Vec<String> = s.outputs.iter().map(|v| names.var(*v)).collect();
        let _ = writeln!(
            out,
            "scan ({}) into ({})",
            carried_str(&s.carried, names),
            outputs.join(", ")
        );
        print_operator(out, &s.op, depth + 2, names);
    }
    for c in &nest.compactions {
        indent(out, depth + 1);
        let outputs: Vec<String> = c.outputs.iter().map(|v| names.var(*v)).collect();
        let _ = writeln!(
            out,
            "compact ({}) when {} into ({}) count {}",
            carried_str(std::slice::from_ref(&c.count), names),
            names.atom(&c.flag),
            outputs.join(", "),
            binder(&c.result)
        );
    }
    for h in &nest.hists {
        indent(out, depth + 1);
        let bins: Vec<String> = h.bins.iter().map(|v| names.var(*v)).collect();
        let _ = writeln!(
            out,
            "hist ({}) from ({})",
            bins.join(", "),
            names.atoms(&h.neutral)
        );
        print_operator(out, &h.op, depth + 2, names);
    }
    if !nest.scatters.is_empty() {
        indent(out, depth + 1);
        let dests: Vec<String> = nest.scatters.iter().map(|v| names.var(*v)).collect();
        let _ = writeln!(out, "scatter into ({})", dests.join(", "));
    }
    indent(out, depth);
    out.push_str("do\n");
    print_block(out, &nest.body, depth + 1, names);
    indent(out, depth);
    out.push_str("end\n");
}

/// The grain and the loop shapes of a plan (a plain loop says nothing).
fn print_plan(out: &mut String, plan: &NestPlan, depth: usize, names: &Names) {
    if let Some(grain) = plan.grain {
        indent(out, depth);
        let _ = writeln!(out, "grain {grain}");
    }
    let shapes = [("body", Some(&plan.body)), ("totals", plan.totals.as_ref())];
    for (what, shape) in shapes {
        let reads = |reads: &[ProvenRead]| {
            let vars: Vec<String> = reads.iter().map(|r| names.var(r.var)).collect();
            vars.join(", ")
        };
        let text = match shape {
            None | Some(LoopShape::Plain) => continue,
            Some(LoopShape::Lanes) => "in lanes".to_string(),
            Some(LoopShape::Strided) => "in strided lanes".to_string(),
            Some(LoopShape::Versioned(proven)) => format!("versioned ({})", reads(proven)),
            Some(LoopShape::Cut(conditions)) => {
                let cuts: Vec<String> = conditions
                    .iter()
                    .map(|c| {
                        let extra = if c.extra == 0 { "" } else { " + 1" };
                        format!(
                            "{} = {} from {} - {}{extra}",
                            names.var(c.var),
                            c.after,
                            names.atom(&c.bound),
                            names.atom(&c.shift)
                        )
                    })
                    .collect();
                format!("cut ({})", cuts.join(", "))
            }
            Some(LoopShape::Peeled {
                conditions,
                reads: proven,
                middle,
            }) => {
                let apart: Vec<String> = conditions
                    .iter()
                    .map(|c| format!("{} = {}", names.var(c.var), c.apart))
                    .collect();
                format!(
                    "peeled ({}), versioned ({}), middle versioned ({})",
                    apart.join(", "),
                    reads(proven),
                    reads(middle)
                )
            }
        };
        indent(out, depth);
        let _ = writeln!(out, "{what} {text}");
    }
}

fn carried_str(carried: &[Carried], names: &Names) -> String {
    carried
        .iter()
        .map(|c| {
            format!(
                "{} = {} -> {}",
                binder(&c.var),
                names.atom(&c.init),
                names.atom(&c.next)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_operator(out: &mut String, op: &Operator, depth: usize, names: &Names) {
    indent(out, depth);
    let params: Vec<String> = op.params.iter().map(binder).collect();
    let _ = writeln!(out, "op ({}) =", params.join(", "));
    print_block(out, &op.body, depth + 1, names);
    indent(out, depth + 1);
    let _ = writeln!(out, "in ({})", names.atoms(&op.results));
}
