//! Stable text dump of the core IR (`arrc build --emit core`).
//!
//! Variables print as `name_id`, so names stay readable and unique; SOACs
//! print with their labels (`map#3`) because the fusion graph refers to them.

use super::ir::*;
use std::fmt::Write;

pub fn print_program(program: &Program) -> String {
    let mut out = String::new();
    for (i, f) in program.entries.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_function(&mut out, f);
    }
    out
}

fn print_function(out: &mut String, f: &Function) {
    let names = Names::for_function(&f.params, &f.size_params, &f.body);
    let params: Vec<String> = f.params.iter().map(binder).collect();
    let ret: Vec<String> = f.ret.iter().map(|t| type_str(*t)).collect();
    let _ = write!(out, "entry {}", f.name);
    for sp in &f.size_params {
        let _ = write!(out, " [{}]", var_name(&sp.var));
    }
    let _ = writeln!(out, " ({}) : ({}) =", params.join(", "), ret.join(", "));
    names.body(out, &f.body, 1);
}

pub fn type_str(t: Type) -> String {
    match t {
        Type::Scalar(s) => s.to_string(),
        Type::Array(s, rank) => format!("{}{s}", "[]".repeat(rank)),
    }
}

pub fn var_name(v: &Var) -> String {
    format!("{}_{}", v.name, v.id.0)
}

pub fn binder(v: &Var) -> String {
    format!("{}: {}", var_name(v), type_str(v.ty))
}

/// Uses refer to variables by id only, so the printer first collects the
/// names of every binder in a function.
pub struct Names(std::collections::HashMap<VarId, String>);

impl Names {
    pub fn for_function(params: &[Var], size_params: &[SizeParam], body: &Body) -> Names {
        let mut names = Names(Default::default());
        for p in params.iter().chain(size_params.iter().map(|sp| &sp.var)) {
            names.0.insert(p.id, var_name(p));
        }
        collect_names(body, &mut names);
        names
    }

    /// Prints one statement at indentation `depth`, with a trailing newline.
    pub fn stm(&self, out: &mut String, stm: &Stm, depth: usize) {
        print_stm(out, stm, depth, self);
    }

    /// Prints the statements of `body` and its `in (...)` line.
    pub fn body(&self, out: &mut String, body: &Body, depth: usize) {
        print_body_with(out, body, depth, self);
    }

    pub fn atom(&self, a: &Atom) -> String {
        match a {
            Atom::Var(id) => self.var(*id),
            Atom::Const(c) => c.to_string(),
        }
    }
    pub fn var(&self, id: VarId) -> String {
        self.0
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("v_{}", id.0))
    }
    pub fn atoms(&self, atoms: &[Atom]) -> String {
        atoms
            .iter()
            .map(|a| self.atom(a))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn collect_names(body: &Body, names: &mut Names) {
    for stm in &body.stms {
        for v in &stm.pat {
            names.0.insert(v.id, var_name(v));
        }
        visit_nested(&stm.exp, |b, params| {
            for p in params {
                names.0.insert(p.id, var_name(p));
            }
            collect_names(b, names);
        });
    }
}

/// Calls `f` on every body nested directly in `exp`, with the parameters it binds.
pub fn visit_nested(exp: &Exp, mut f: impl FnMut(&Body, &[Var])) {
    match exp {
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            f(then_body, &[]);
            f(else_body, &[]);
        }
        Exp::Soac(soac) => {
            if let Some(lam) = soac.kind.lambda() {
                f(&lam.body, &lam.params)
            }
        }
        Exp::Loop { params, form, body } => {
            let mut bound: Vec<Var> = params.iter().map(|(v, _)| v.clone()).collect();
            match form {
                LoopForm::For { index, .. } => bound.push(index.clone()),
                LoopForm::While { cond } => f(cond, &bound),
            }
            f(body, &bound);
        }
        _ => {}
    }
}

pub fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn print_stm(out: &mut String, stm: &Stm, depth: usize, names: &Names) {
    indent(out, depth);
    let pat: Vec<String> = stm.pat.iter().map(binder).collect();
    if pat.is_empty() {
        out.push_str("let () = ");
    } else {
        let _ = write!(out, "let {} = ", pat.join(", "));
    }
    print_exp(out, &stm.exp, depth, names);
    out.push('\n');
}

fn print_body_with(out: &mut String, body: &Body, depth: usize, names: &Names) {
    for stm in &body.stms {
        print_stm(out, stm, depth, names);
    }
    indent(out, depth);
    let _ = writeln!(out, "in ({})", names.atoms(&body.result));
}

fn print_lambda(out: &mut String, lam: &Lambda, depth: usize, names: &Names) {
    let params: Vec<String> = lam.params.iter().map(binder).collect();
    let ret: Vec<String> = lam.ret.iter().map(|t| type_str(*t)).collect();
    let _ = writeln!(out, "(\\{} : ({}) ->", params.join(" "), ret.join(", "));
    print_body_with(out, &lam.body, depth + 2, names);
    indent(out, depth + 1);
    out.push(')');
}

fn print_exp(out: &mut String, exp: &Exp, depth: usize, names: &Names) {
    match exp {
        Exp::Atom(a) => out.push_str(&names.atom(a)),
        Exp::BinOp(op, a, b) => {
            let _ = write!(out, "{} {} {}", op.name(), names.atom(a), names.atom(b));
        }
        Exp::UnOp(op, a) => {
            let _ = write!(out, "{} {}", op.name(), names.atom(a));
        }
        Exp::Convert(t, a) => {
            let _ = write!(out, "{t}.convert {}", names.atom(a));
        }
        Exp::Fma(a, b, c) => {
            let _ = write!(
                out,
                "fma {} {} {}",
                names.atom(a),
                names.atom(b),
                names.atom(c)
            );
        }
        Exp::If {
            cond,
            then_body,
            else_body,
        } => {
            let _ = writeln!(out, "if {} then", names.atom(cond));
            print_body_with(out, then_body, depth + 1, names);
            indent(out, depth);
            out.push_str("else\n");
            print_body_with(out, else_body, depth + 1, names);
            indent(out, depth);
            out.push_str("end");
        }
        Exp::Index {
            array,
            indices,
            checked,
        } => {
            let unsafe_ = if *checked { "" } else { "unsafe " };
            let _ = write!(
                out,
                "{unsafe_}{}[{}]",
                names.var(*array),
                names.atoms(indices)
            );
        }
        Exp::Size { array, dim } => {
            let _ = write!(out, "size {} {dim}", names.var(*array));
        }
        Exp::Iota(n) => {
            let _ = write!(out, "iota {}", names.atom(n));
        }
        Exp::Replicate { count, value } => {
            let _ = write!(out, "replicate {} {}", names.atom(count), names.atom(value));
        }
        Exp::ArrayLit { elem, items } => {
            let _ = write!(out, "[{}] : []{}", names.atoms(items), type_str(*elem));
        }
        Exp::AssertEqSizes(a, b) => {
            let _ = write!(out, "assert_eq_sizes {} {}", names.atom(a), names.atom(b));
        }
        Exp::Assert(c, report) => {
            let _ = write!(out, "assert {}", names.atom(c));
            let (kind, a) = match report {
                AssertReport::Plain => ("", &[][..]),
                AssertReport::Condition(text) => {
                    let _ = write!(out, " {text:?}");
                    ("", &[][..])
                }
                AssertReport::NegativeExponent => {
                    out.push_str(" negative_exponent");
                    ("", &[][..])
                }
                AssertReport::Range(a) => ("range", &a[..]),
                AssertReport::Slice(a) => ("slice", &a[..]),
            };
            if !a.is_empty() {
                let a: Vec<String> = a.iter().map(|x| names.atom(x)).collect();
                let _ = write!(out, " {kind}({})", a.join(", "));
            }
        }
        Exp::Soac(soac) => {
            let _ = write!(
                out,
                "{}#{} {}",
                soac.kind.name(),
                soac.label.0,
                names.atom(&soac.width)
            );
            match &soac.kind {
                SoacKind::Hist { bins, dest, .. } => {
                    let _ = write!(out, " bins {}", names.atom(bins));
                    if let Some(dest) = dest {
                        let dest: Vec<String> = dest.iter().map(|v| names.var(*v)).collect();
                        let _ = write!(out, " into ({})", dest.join(", "));
                    }
                }
                SoacKind::Scatter { dest, continues } => {
                    let dest: Vec<String> = dest.iter().map(|v| names.var(*v)).collect();
                    let _ = write!(out, " into ({})", dest.join(", "));
                    if *continues {
                        out.push_str(" continuing");
                    }
                }
                _ => {}
            }
            if let Some(lam) = soac.kind.lambda() {
                out.push(' ');
                print_lambda(out, lam, depth, names);
            }
            if let Some(ne) = soac.kind.neutral() {
                let _ = write!(out, " ({})", names.atoms(ne));
            }
            let args: Vec<String> = soac.args.iter().map(|a| names.var(*a)).collect();
            let _ = write!(out, " {}", args.join(" "));
        }
        Exp::Loop { params, form, body } => {
            let params: Vec<String> = params
                .iter()
                .map(|(v, init)| format!("{} = {}", binder(v), names.atom(init)))
                .collect();
            let _ = write!(out, "loop ({})", params.join(", "));
            match form {
                LoopForm::For { index, bound } => {
                    let _ = writeln!(out, " for {} < {} do", binder(index), names.atom(bound));
                }
                LoopForm::While { cond } => {
                    out.push_str(" while\n");
                    print_body_with(out, cond, depth + 1, names);
                    indent(out, depth);
                    out.push_str("do\n");
                }
            }
            print_body_with(out, body, depth + 1, names);
            indent(out, depth);
            out.push_str("end");
        }
        Exp::Slice { array, dims } => {
            let dims: Vec<String> = dims
                .iter()
                .map(|d| match d {
                    DimSlice::Index(a) => names.atom(a),
                    DimSlice::Range { start, end, stride } => format!(
                        "{}:{}:{}",
                        names.atom(start),
                        names.atom(end),
                        names.atom(stride)
                    ),
                })
                .collect();
            let _ = write!(out, "{}[{}]", names.var(*array), dims.join(", "));
        }
        Exp::Update {
            array,
            indices,
            value,
        } => {
            let _ = write!(
                out,
                "{} with [{}] = {}",
                names.var(*array),
                names.atoms(indices),
                names.atom(value)
            );
        }
        Exp::Transpose(v) => {
            let _ = write!(out, "transpose {}", names.var(*v));
        }
        Exp::Flatten(v) => {
            let _ = write!(out, "flatten {}", names.var(*v));
        }
        Exp::Unflatten { array, rows, cols } => {
            let _ = write!(
                out,
                "unflatten {} {} {}",
                names.atom(rows),
                names.atom(cols),
                names.var(*array)
            );
        }
        Exp::Reverse(v) => {
            let _ = write!(out, "reverse {}", names.var(*v));
        }
        Exp::Rotate { array, amount } => {
            let _ = write!(out, "rotate {} {}", names.atom(amount), names.var(*array));
        }
        Exp::Concat(vs) => {
            let vs: Vec<String> = vs.iter().map(|v| names.var(*v)).collect();
            let _ = write!(out, "concat {}", vs.join(" "));
        }
    }
}
