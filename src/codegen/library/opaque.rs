//! The functions of a library's opaque types (`struct arrc_opaque_NAME`,
//! `api::Opaque`): their declarations in the header and their definitions
//! in the glue, over the runtime's generic `arr_lib_opaque_*`. As in
//! Futhark's C API: `free`; for records and tuples (and arrays of them)
//! `new` from the fields and `project` per field, and `shape` for arrays;
//! for sum types `variant`, and `new` and `destruct` per constructor; for
//! arrays of either `index` (an element) and `shape`, and for arrays of
//! sum values `new` from their elements.

use super::api::{Api, ApiType, Field, Opaque, OpaqueKind};
use super::{c_type, spaced};
use crate::core::ir::Type;
use std::fmt::Write;

/// One function: its declaration and its body.
struct Func {
    decl: String,
    body: String,
}

fn obj_in(o: &Opaque) -> String {
    format!("const struct arrc_opaque_{} *obj", o.name)
}

fn obj_out(o: &Opaque) -> String {
    format!("struct arrc_opaque_{} **out", o.name)
}

const CTX: &str = "struct arrc_context *ctx";

/// Points `in[first..)` at the value of parameter `v` of type `f.ty`.
fn field_in(api: &Api, f: &Field, v: &str, first: usize, what: &str) -> String {
    match f.ty {
        ApiType::Leaf(Type::Scalar(_)) => format!("    in[{first}] = &{v};\n"),
        ApiType::Leaf(Type::Array(..)) => format!(
            "    if ({v} == NULL) {{\n        return arr_lib_null(ctx, \"{what}\");\n    }}\n    \
             in[{first}] = {v};\n"
        ),
        ApiType::Opaque(k) => format!(
            "    if (arr_lib_opaque_in(ctx, (const arr_lib_opaque *){v}, {}, \"{what}\", in + {first})) {{\n        \
             return 1;\n    }}\n",
            api.opaques[k].leaves.len()
        ),
    }
}

/// Writes the value of `f` (leaves at `offset + f.leaves`) of `obj` to `out`.
fn field_out(api: &Api, f: &Field, out: &str, offset: usize) -> String {
    let first = offset + f.leaves.start;
    match f.ty {
        ApiType::Leaf(_) => format!(
            "    {{\n        void *const to[] = {{{out}}};\n        \
             if (arr_lib_opaque_get(ctx, (const arr_lib_opaque *)obj, {first}, 1, to)) {{\n            \
             return 1;\n        }}\n    }}\n"
        ),
        ApiType::Opaque(k) => format!(
            "    if (arr_lib_opaque_part(ctx, (arr_lib_opaque **){out}, (const arr_lib_opaque *)obj, \
             {first}, {}, {})) {{\n        return 1;\n    }}\n",
            f.leaves.len(),
            api.opaques[k].kind.rank()
        ),
    }
}

/// `rank` names `PREFIX0, PREFIX1, ...` and their `int64_t` parameters.
fn int64s(prefix: &str, rank: usize) -> (Vec<String>, String) {
    let names: Vec<String> = (0..rank).map(|d| format!("{prefix}{d}")).collect();
    let params: Vec<String> = names.iter().map(|n| format!("int64_t {n}")).collect();
    (names, params.join(", "))
}

/// The functions of opaque type `k`.
fn funcs(api: &Api, k: usize) -> Vec<Func> {
    let o = &api.opaques[k];
    let n = o.name.as_str();
    let leaves = o.leaves.len();
    let mut out = vec![Func {
        decl: format!("int arrc_free_opaque_{n}({CTX}, struct arrc_opaque_{n} *obj)"),
        body: "    return arr_lib_opaque_free(ctx, (arr_lib_opaque *)obj);\n".into(),
    }];
    let rank = o.kind.rank();
    if rank > 0 {
        out.push(Func {
            decl: format!("const int64_t *arrc_shape_opaque_{n}({CTX}, {})", obj_in(o)),
            body: "    return arr_lib_opaque_shape(ctx, (const arr_lib_opaque *)obj);\n".into(),
        });
    }
    if let Some(e) = o.elem {
        let elem = &api.opaques[e].name;
        let (names, params) = int64s("i", rank);
        out.push(Func {
            decl: format!(
                "int arrc_index_opaque_{n}({CTX}, struct arrc_opaque_{elem} **out, {}, {params})",
                obj_in(o),
            ),
            body: format!(
                "    const int64_t index[] = {{{}}};\n    \
                 return arr_lib_opaque_index(ctx, (arr_lib_opaque **)out, (const arr_lib_opaque *)obj, \
                 {leaves}, arr_opaque_types_{e}, index);\n",
                names.join(", ")
            ),
        });
        if let OpaqueKind::SumArray { .. } = o.kind {
            let (dims, params) = int64s("dim", rank);
            out.push(Func {
                decl: format!(
                    "int arrc_new_opaque_{n}({CTX}, {}, const struct arrc_opaque_{elem} *const *elems, {params})",
                    obj_out(o),
                ),
                body: format!(
                    "    const int64_t dims[] = {{{}}};\n    \
                     return arr_lib_opaque_stack(ctx, (arr_lib_opaque **)out, {leaves}, \
                     arr_opaque_types_{k}, {rank}, dims, (const void *const *)elems);\n",
                    dims.join(", ")
                ),
            });
        }
    }
    let new = |name: String, fields: &[Field], tag: Option<usize>| {
        let mut params = vec![CTX.to_string(), obj_out(o)];
        let mut body = format!("    const void *in[{}] = {{NULL}};\n", leaves.max(1));
        if let Some(tag) = tag {
            let _ = writeln!(body, "    const uint8_t tag = {tag};\n    in[0] = &tag;");
        }
        for (i, f) in fields.iter().enumerate() {
            params.push(format!("{}v{i}", spaced(c_type(api, f.ty, true))));
            body.push_str(&field_in(
                api,
                f,
                &format!("v{i}"),
                f.leaves.start,
                &format!("field {}", f.name),
            ));
        }
        let _ = writeln!(
            body,
            "    return arr_lib_opaque_new(ctx, (arr_lib_opaque **)out, {leaves}, arr_opaque_types_{k}, {}, in);",
            o.kind.rank()
        );
        Func {
            decl: format!("int {name}({})", params.join(", ")),
            body,
        }
    };
    match &o.kind {
        OpaqueKind::Record { fields, .. } => {
            out.push(new(format!("arrc_new_opaque_{n}"), fields, None));
            for f in fields {
                out.push(Func {
                    decl: format!(
                        "int arrc_project_opaque_{n}_{}({CTX}, {}out, {})",
                        f.name,
                        spaced(c_type(api, f.ty, false)),
                        obj_in(o)
                    ),
                    body: field_out(api, f, "out", 0) + "    return 0;\n",
                });
            }
        }
        OpaqueKind::Sum { ctors } => {
            out.push(Func {
                decl: format!("int arrc_variant_opaque_{n}({CTX}, {})", obj_in(o)),
                body: "    return arr_lib_opaque_variant(ctx, (const arr_lib_opaque *)obj);\n"
                    .into(),
            });
            for (c, (ctor, fields)) in ctors.iter().enumerate() {
                out.push(new(format!("arrc_new_opaque_{n}_{ctor}"), fields, Some(c)));
                let mut params = vec![CTX.to_string()];
                let mut body = format!(
                    "    if (arr_lib_opaque_variant(ctx, (const arr_lib_opaque *)obj) != {c}) {{\n        \
                     return arr_lib_not_variant(ctx, \"{ctor}\");\n    }}\n"
                );
                for (i, f) in fields.iter().enumerate() {
                    params.push(format!("{}out{i}", spaced(c_type(api, f.ty, false))));
                    body.push_str(&field_out(api, f, &format!("out{i}"), 0));
                }
                params.push(obj_in(o));
                body.push_str("    return 0;\n");
                out.push(Func {
                    decl: format!("int arrc_destruct_opaque_{n}_{ctor}({})", params.join(", ")),
                    body,
                });
            }
        }
        OpaqueKind::SumArray { .. } => {}
    }
    out
}

/// What the header says of one opaque type.
fn describe(o: &Opaque) -> String {
    let what = match &o.kind {
        OpaqueKind::Record { rank: 0, .. } => "new from the fields, project a field",
        OpaqueKind::Record { .. } => {
            "new from the fields' arrays (zipped), project a field's array,\n * index an element, shape"
        }
        OpaqueKind::Sum { .. } => {
            "variant: the constructor's index (in name order); new, destruct per constructor"
        }
        OpaqueKind::SumArray { .. } => {
            "new from its elements (row-major), index an element, shape"
        }
    };
    let fields: Vec<String> = match &o.kind {
        OpaqueKind::Record { fields, .. } => fields
            .iter()
            .enumerate()
            .map(|(i, f)| format!("v{i}: {}", f.name))
            .collect(),
        OpaqueKind::Sum { ctors } => ctors
            .iter()
            .enumerate()
            .map(|(i, (c, _))| format!("{i}: #{c}"))
            .collect(),
        OpaqueKind::SumArray { .. } => Vec::new(),
    };
    let list = if fields.is_empty() {
        String::new()
    } else {
        format!("\n * ({})", fields.join(", "))
    };
    format!(
        "/* {}, opaque: {what}.{list}\n * Every value returned is the caller's to free. */",
        o.ty
    )
}

/// The declarations of every opaque type's functions.
pub(super) fn header(api: &Api, out: &mut String) {
    for (k, o) in api.opaques.iter().enumerate() {
        let _ = writeln!(out, "{}\nstruct arrc_opaque_{};", describe(o), o.name);
        for f in funcs(api, k) {
            let _ = writeln!(out, "{};", f.decl);
        }
        out.push('\n');
    }
}

/// The definitions: each type's leaf table, then its functions.
pub(super) fn glue(api: &Api, out: &mut String) {
    for (k, o) in api.opaques.iter().enumerate() {
        let types: Vec<String> = o
            .leaves
            .iter()
            .map(|t| format!("{{{}, {}}}", super::super::glue::prim(t.elem()), t.rank()))
            .collect();
        let types = if types.is_empty() {
            // C has no empty arrays; nothing reads this one.
            "{ARR_I8, 0}".to_string()
        } else {
            types.join(", ")
        };
        let _ = writeln!(
            out,
            "struct arrc_opaque_{};\nstatic const arr_type arr_opaque_types_{k}[] = {{{types}}};",
            o.name
        );
        for f in funcs(api, k) {
            let _ = writeln!(out, "ARRC_API {} {{\n{}}}\n", f.decl, f.body);
        }
    }
}
