//! A library's Python module (`arrc build --python`): `NAME.py`, over the
//! C API of `libNAME.so` with ctypes and numpy. The generic part is
//! `python_module.py`; this adds the program's array types and one function
//! (and `Context` method) per entry point, and a class per opaque type.

use super::library::api::{Api, ApiType, EntryApi, Field, OpaqueKind};
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

/// The lower-case names of Python's builtins (3.11 and 3.12).
const PYTHON_BUILTINS: &[&str] = &[
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
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

/// The Arr type of an API type, for docstrings.
fn type_text(api: &Api, t: ApiType) -> String {
    match t {
        ApiType::Leaf(Type::Scalar(s)) => c_elem(s).1.to_string(),
        ApiType::Leaf(Type::Array(e, r)) => format!("{}{}", "[]".repeat(r), c_elem(e).1),
        ApiType::Opaque(k) => api.opaques[k].name.clone(),
    }
}

/// The module's description of a type: `("f32", 1)` for a leaf, the
/// class of an opaque type.
fn type_desc(api: &Api, t: ApiType) -> String {
    match t {
        ApiType::Leaf(Type::Scalar(s)) => format!("({:?}, 0)", c_elem(s).1),
        ApiType::Leaf(Type::Array(e, r)) => format!("({:?}, {r})", c_elem(e).1),
        ApiType::Opaque(k) => class_name(api, k),
    }
}

/// The Python class of opaque type `k`: its C name, unless that is a
/// keyword, an entry point's name or one the module binds (`Context`).
fn class_name(api: &Api, k: usize) -> String {
    let name = &api.opaques[k].name;
    let entry = api.entries.iter().any(|e| entry_c_name(&e.name) == *name);
    let module = module_bound_names().contains(name);
    if KEYWORDS.contains(&name.as_str()) || name.starts_with('_') || entry || module {
        format!("opaque_{name}")
    } else {
        name.clone()
    }
}

/// `(name, type)` pairs of fields.
fn fields_text(api: &Api, fields: &[Field]) -> String {
    let items: Vec<String> = fields
        .iter()
        .map(|f| format!("({:?}, {})", f.name, type_desc(api, f.ty)))
        .collect();
    format!("({})", tuple_text(&items))
}

/// One class per opaque type, in the order they were made (fields first).
fn opaque_classes(api: &Api, out: &mut String) {
    for (k, o) in api.opaques.iter().enumerate() {
        let class = class_name(api, k);
        let (kind, detail) = match &o.kind {
            OpaqueKind::Record { rank, fields } => (
                "record",
                format!(
                    "    _rank = {rank}\n    _fields = {}\n",
                    fields_text(api, fields)
                ),
            ),
            OpaqueKind::Sum { ctors } => {
                let items: Vec<String> = ctors
                    .iter()
                    .map(|(c, fs)| format!("({c:?}, {})", fields_text(api, fs)))
                    .collect();
                ("sum", format!("    _ctors = ({})\n", tuple_text(&items)))
            }
            OpaqueKind::SumArray { rank } => ("array", format!("    _rank = {rank}\n")),
        };
        let detail = match o.elem {
            Some(e) => format!("{detail}    _elem = {}\n", class_name(api, e)),
            None => detail,
        };
        let _ = write!(
            out,
            "\n\nclass {class}(_Opaque):\n    \"\"\"{} (an opaque value of the library: {}).\"\"\"\n\n    \
             _name = {:?}\n    _kind = {kind:?}\n{detail}\n\n_opaque_class({class})\n",
            o.ty,
            match kind {
                "record" => "construct it from its fields, read them as attributes or by index",
                "sum" => "construct it with a class method per constructor; `variant`, `payload`",
                _ => "construct it from a (nested) list of its elements; `index`, `shape`",
            },
            o.name,
        );
    }
}

/// The module `NAME.py` loading `libNAME.so` from its own directory.
pub fn python_module(program: &Program, api: &Api, name: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\"\"\"{name}: Arr entry points compiled by arrc (arrc build --python).\n\n\
         Arguments are numpy arrays (C-contiguous ones are read without a copy)\n\
         and numpy or Python scalars; results are numpy arrays (viewing the\n\
         library's memory, no copy) and scalars, a tuple for several. Records,\n\
         tuples and sum types are opaque objects. A run-time error raises\n\
         {name}.Error. The GIL is released while compiled code runs. Needs numpy\n\
         and lib{name}.so beside this file (docs/library.md).\n\"\"\"\n\n_LIBRARY = \"lib{name}.so\""
    );
    out.push_str(MODULE);
    out.push_str("\n_ARRAYS = {\n");
    let mut seen = Vec::new();
    let leaves = api
        .entries
        .iter()
        .flat_map(|e| e.params.iter().chain(&e.results).copied())
        .chain(api.opaques.iter().flat_map(|o| o.fields()).map(|f| f.ty));
    for t in leaves {
        if let ApiType::Leaf(Type::Array(e, rank)) = t {
            let elem = c_elem(e).1;
            if !seen.contains(&(elem, rank)) {
                let _ = writeln!(out, "    ({elem:?}, {rank}): _Array({elem:?}, {rank}),");
                seen.push((elem, rank));
            }
        }
    }
    out.push_str("}\n");
    opaque_classes(api, &mut out);
    let c_names: Vec<String> = program
        .functions
        .iter()
        .map(|f| entry_c_name(&f.name))
        .collect();
    let python_names = entry_python_names(api, &c_names);
    for (k, f) in program.functions.iter().enumerate() {
        let e = &api.entries[k];
        let c = &c_names[k];
        let py = &python_names[k];
        let source: Vec<&str> = f.params.iter().map(|p| p.var.name.as_str()).collect();
        let source = entry_param_names(&source, e, api);
        let names = param_names(&source);
        let params: Vec<String> = e
            .params
            .iter()
            .zip(&names)
            .map(|(t, n)| format!("({n:?}, {})", type_desc(api, *t)))
            .collect();
        let results: Vec<String> = e.results.iter().map(|t| type_desc(api, *t)).collect();
        let signature: Vec<String> = e
            .params
            .iter()
            .zip(&names)
            .map(|(t, n)| format!("{n}: {}", type_text(api, *t)))
            .collect();
        let ret: Vec<String> = e.results.iter().map(|t| type_text(api, *t)).collect();
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
             {}",
            tuple_text(&params),
            tuple_text(&results),
            f.name,
            signature.join(", "),
            f.name,
            tuple_text(&names),
            module_function(
                c,
                py,
                &args,
                &format!("{}({}) -> {ret}", f.name, signature.join(", "))
            ),
        );
    }
    futhark_class(api, name, &python_names, &mut out);
    out
}

/// Whether `name` may be one of Python's capitalised builtins (its
/// exceptions and warnings, `Ellipsis`, ...), which the module's code
/// raises (`ValueError`, `TypeError`) and a class must not replace.
fn capitalised_builtin(name: &str) -> bool {
    [
        "Error",
        "Exception",
        "Warning",
        "Group",
        "Exit",
        "Iteration",
    ]
    .iter()
    .any(|end| name.ends_with(end))
        || ["Ellipsis", "NotImplemented", "KeyboardInterrupt"].contains(&name)
}

/// Futhark's generated module (`futhark python --library prog.fut`) is
/// used as `prog.prog().main(xs)`: a class named like the module whose
/// methods are the entry points. The module has it too, a `Context` that
/// accepts and ignores Futhark's keyword options (`interactive`,
/// `platform_pref`, ...), unless an entry point, an opaque class or one
/// of the module's own names already has the name (or it is a Python
/// keyword or builtin, which the module's code relies on).
fn futhark_class(api: &Api, name: &str, python_names: &[String], out: &mut String) {
    let taken = python_names.iter().any(|n| n == name)
        || (0..api.opaques.len()).any(|k| class_name(api, k) == name)
        || module_bound_names().iter().any(|n| n == name)
        || KEYWORDS.contains(&name)
        || PYTHON_BUILTINS.contains(&name)
        || capitalised_builtin(name)
        || name.starts_with('_');
    if taken {
        return;
    }
    let _ = write!(
        out,
        "\n\nclass {name}(Context):\n    \
         \"\"\"A context under Futhark's name for it (`{name}.{name}()`); Futhark's\n    \
         options are accepted and ignored.\"\"\"\n\n    \
         def __init__(self, *futhark_args, threads=0, **futhark_options):\n        \
         Context.__init__(self, threads)\n"
    );
}

/// Binds entry point `c` (its C name) as a `Context` method and a
/// module-level function over the default context, both named `py`. A name
/// that is a Python keyword or builtin (`pass`, `len`, `sum`) goes through
/// `_export`, which serves it from the module's `__getattr__`: a
/// module-level `def len` would take `len` from the module's own code.
fn module_function(c: &str, py: &str, args: &str, doc: &str) -> String {
    let exported = KEYWORDS.contains(&py) || PYTHON_BUILTINS.contains(&py);
    let method = if exported {
        format!("getattr(_default_context(), {py:?})")
    } else {
        format!("_default_context().{py}")
    };
    let body = format!(
        "({args}):\n    \"\"\"{doc}, in the default context.\"\"\"\n    \
         return {method}({args})\n"
    );
    if exported {
        format!("def _default_{c}{body}\n\n_export({py:?}, _method_{c}, _default_{c})\n")
    } else {
        format!("Context.{py} = _method_{c}\n\n\ndef {py}{body}")
    }
}

/// What each entry is called in Python: its C name, with `_` appended
/// while that would replace a name the module or `Context` already binds
/// (`Context`, `Error`, `close`, the module's private helpers, another
/// entry's or an opaque class's name, or one of the per-entry helpers
/// `_entry_NAME`, ... that `python_module` defines).
fn entry_python_names(api: &Api, c_names: &[String]) -> Vec<String> {
    let mut taken = module_bound_names();
    taken.extend((0..api.opaques.len()).map(|k| class_name(api, k)));
    for c in c_names {
        for prefix in ["_entry_", "_params_", "_results_", "_method_", "_default_"] {
            taken.push(format!("{prefix}{c}"));
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (k, c) in c_names.iter().enumerate() {
        let clashes = |name: &str, out: &[String]| {
            taken.iter().any(|t| t == name)
                || out.iter().any(|t| t == name)
                || c_names.iter().enumerate().any(|(j, o)| j > k && o == name)
        };
        let mut name = c.clone();
        while clashes(&name, &out) {
            name.push('_');
        }
        out.push(name);
    }
    out
}

/// The names `python_module.py` binds at its top level (functions,
/// classes, assignments, imports) and the attributes of its `Context`
/// class, read from its text so that the list cannot fall behind it.
fn module_bound_names() -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = vec!["_LIBRARY".to_string(), "_ARRAYS".to_string()];
    let mut in_context = false;
    for line in MODULE.lines() {
        let top = !line.starts_with(' ') && !line.is_empty();
        if top {
            in_context = line.starts_with("class Context");
        }
        let body = if top {
            line
        } else if in_context && line.starts_with("    ") && !line.starts_with("     ") {
            &line[4..]
        } else {
            continue;
        };
        let name = if let Some(rest) = body.strip_prefix("def ") {
            ident(rest)
        } else if let Some(rest) = body.strip_prefix("class ") {
            ident(rest)
        } else if let Some((_, alias)) = body.split_once(" as ") {
            if body.starts_with("import ") {
                ident(alias)
            } else {
                continue;
            }
        } else if body.contains(" = ") {
            let name = ident(body);
            if !body[name.len()..].trim_start().starts_with('=') {
                continue;
            }
            name
        } else {
            continue;
        };
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
}

/// The source names of an entry's parameters: the flattened entry has one
/// per leaf, an opaque parameter several (its first leaf's name stands for
/// it).
fn entry_param_names<'a>(leaf_names: &[&'a str], e: &EntryApi, api: &Api) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = 0;
    for t in &e.params {
        out.push(leaf_names.get(at).copied().unwrap_or(""));
        at += api.leaf_count(*t);
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

#[cfg(test)]
mod tests {
    use super::module_bound_names;

    #[test]
    fn the_modules_own_names_are_read_from_its_text() {
        let names = module_bound_names();
        for name in [
            "Context",
            "Error",
            "close",
            "_call",
            "_fn",
            "_np",
            "_ct",
            "_ELEMS",
            "_default_context",
            "_exported",
            "_LIBRARY",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
        }
        // Locals of functions and methods are not the module's names.
        for name in ["cfg", "message", "values", "p"] {
            assert!(!names.iter().any(|n| n == name), "{name} listed: {names:?}");
        }
    }
}
