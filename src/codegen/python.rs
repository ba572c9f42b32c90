//! A library's Python module (`arrc build --python`): `NAME.py`, over the
//! C API of `libNAME.so` with ctypes and numpy. The generic part is
//! `python_module.py`; this adds the program's array types and one function
//! (and `Context` method) per entry point.

use super::library::{c_elem, entry_c_name};
use crate::core::ir::Type;
use crate::loopy::ir::Program;
use std::fmt::Write;

const MODULE: &str = include_str!("python_module.py");

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "self",
];

/// Python names for the parameters: the source names where they are
/// usable, `in{i}` where not.
fn param_names(names: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let ok = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && !name.starts_with('_')
            && !KEYWORDS.contains(name);
        let candidate = if ok {
            name.to_string()
        } else {
            format!("in{i}")
        };
        if out.contains(&candidate) {
            out.push(format!("in{i}"));
        } else {
            out.push(candidate);
        }
    }
    out
}

fn type_text(t: Type) -> String {
    match t {
        Type::Scalar(s) => c_elem(s).1.to_string(),
        Type::Array(e, r) => format!("{}{}", "[]".repeat(r), c_elem(e).1),
    }
}

fn type_tuple(t: Type) -> (String, usize) {
    match t {
        Type::Scalar(s) => (c_elem(s).1.to_string(), 0),
        Type::Array(e, r) => (c_elem(e).1.to_string(), r),
    }
}

/// The module `NAME.py` loading `libNAME.so` from its own directory.
pub fn python_module(program: &Program, name: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\"\"\"{name}: Arr entry points compiled by arrc (arrc build --python).\n\n\
         Arguments are numpy arrays (C-contiguous ones are read without a copy)\n\
         and numpy or Python scalars; results are numpy arrays and scalars, a\n\
         tuple for several. A run-time error raises {name}.Error. The GIL is\n\
         released while compiled code runs. Needs numpy and lib{name}.so beside\n\
         this file (docs/library.md).\n\"\"\"\n\n_LIBRARY = \"lib{name}.so\""
    );
    out.push_str(MODULE);
    out.push_str("\n_ARRAYS = {\n");
    let mut seen = Vec::new();
    for f in &program.functions {
        for t in f
            .params
            .iter()
            .map(|p| p.var.ty)
            .chain(f.ret.iter().copied())
        {
            let (elem, rank) = type_tuple(t);
            if rank > 0 && !seen.contains(&(elem.clone(), rank)) {
                let _ = writeln!(out, "    ({elem:?}, {rank}): _Array({elem:?}, {rank}),");
                seen.push((elem, rank));
            }
        }
    }
    out.push_str("}\n");
    for f in &program.functions {
        let c = entry_c_name(&f.name);
        let source: Vec<&str> = f.params.iter().map(|p| p.var.name.as_str()).collect();
        let names = param_names(&source);
        let params: Vec<String> = f
            .params
            .iter()
            .zip(&names)
            .map(|(p, n)| {
                let (elem, rank) = type_tuple(p.var.ty);
                format!("({n:?}, {elem:?}, {rank})")
            })
            .collect();
        let results: Vec<String> = f
            .ret
            .iter()
            .map(|t| {
                let (elem, rank) = type_tuple(*t);
                format!("({elem:?}, {rank})")
            })
            .collect();
        let signature: Vec<String> = f
            .params
            .iter()
            .zip(&names)
            .map(|(p, n)| format!("{n}: {}", type_text(p.var.ty)))
            .collect();
        let ret: Vec<String> = f.ret.iter().map(|t| type_text(*t)).collect();
        let ret = if ret.len() == 1 {
            ret[0].clone()
        } else {
            format!("({})", ret.join(", "))
        };
        let args = names.join(", ");
        let with_self = if names.is_empty() {
            "self".to_string()
        } else {
            format!("self, {args}")
        };
        let _ = write!(
            out,
            "\n\n_entry_{c} = _fn(\"arrc_entry_{c}\", _ct.c_int, None)\n\
             _params_{c} = ({})\n_results_{c} = ({})\n\n\n\
             def _method_{c}({with_self}):\n    \"\"\"{}({}) -> {ret}\"\"\"\n    \
             return self._call({:?}, _entry_{c}, _params_{c}, _results_{c}, ({}))\n\n\n\
             Context.{c} = _method_{c}\n\n\n\
             def {c}({args}):\n    \"\"\"{}({}) -> {ret}, in the default context.\"\"\"\n    \
             return _default_context().{c}({args})\n",
            tuple_text(&params),
            tuple_text(&results),
            f.name,
            signature.join(", "),
            f.name,
            tuple_text(&names),
            f.name,
            signature.join(", "),
        );
    }
    out
}

/// A Python tuple of the given item texts.
fn tuple_text(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => format!("{},", items[0]),
        _ => items.join(", "),
    }
}
