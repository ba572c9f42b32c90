//! A library's C API (`arrc build --library`): the header `NAME.h` a user
//! includes, and the C glue that defines its typed functions over the
//! generic ones of the runtime's `arr_library.c`. Loop nests and the
//! entries' API types (`api`) in, C text out; the API's shape follows
//! Futhark's (docs/library.md). `opaque` adds the functions of opaque
//! types.

pub mod api;
mod opaque;

use crate::core::ir::Type;
use crate::loopy::ir::{Function, Program};
use crate::types::ScalarType;
use api::{Api, ApiType};
use std::fmt::Write;

/// The element type's C type and its name in the API's type names.
pub(crate) fn c_elem(t: ScalarType) -> (&'static str, &'static str) {
    match t {
        ScalarType::I8 => ("int8_t", "i8"),
        ScalarType::I16 => ("int16_t", "i16"),
        ScalarType::I32 => ("int32_t", "i32"),
        ScalarType::I64 => ("int64_t", "i64"),
        ScalarType::U8 => ("uint8_t", "u8"),
        ScalarType::U16 => ("uint16_t", "u16"),
        ScalarType::U32 => ("uint32_t", "u32"),
        ScalarType::U64 => ("uint64_t", "u64"),
        // Half floats cross the C API as their bits.
        ScalarType::F16 => ("uint16_t", "f16"),
        ScalarType::F32 => ("float", "f32"),
        ScalarType::F64 => ("double", "f64"),
        ScalarType::Bool => ("bool", "bool"),
    }
}

/// `f32_1d` for `[]f32`: the suffix of the array type's struct and functions.
pub(crate) fn array_name(elem: ScalarType, rank: usize) -> String {
    format!("{}_{rank}d", c_elem(elem).1)
}

/// The entry's name as a C identifier (Arr names may hold `'`).
pub(crate) fn entry_c_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The array types (rank, element) that the entries take or return, or
/// that opaque values hold as fields, in the order of their names.
fn array_types(api: &Api) -> Vec<(usize, ScalarType)> {
    let mut out: Vec<(usize, ScalarType)> = Vec::new();
    let fields = api.opaques.iter().flat_map(|o| o.fields()).map(|f| f.ty);
    let types = api
        .entries
        .iter()
        .flat_map(|e| e.params.iter().chain(&e.results).copied())
        .chain(fields);
    for t in types {
        if let ApiType::Leaf(Type::Array(elem, rank)) = t {
            if !out.contains(&(rank, elem)) {
                out.push((rank, elem));
            }
        }
    }
    out.sort_by_key(|&(rank, elem)| (rank, c_elem(elem).1));
    out
}

fn dims(rank: usize) -> String {
    (0..rank)
        .map(|d| format!("int64_t dim{d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The declarations of the array functions of one type (`api`: the
/// export attribute, empty in the header).
fn array_decls(elem: ScalarType, rank: usize) -> [String; 6] {
    let n = array_name(elem, rank);
    let c = c_elem(elem).0;
    let d = dims(rank);
    [
        format!("struct arrc_{n} *arrc_new_{n}(struct arrc_context *ctx, const {c} *data, {d})"),
        format!("struct arrc_{n} *arrc_new_raw_{n}(struct arrc_context *ctx, {c} *data, {d})"),
        format!("int arrc_values_{n}(struct arrc_context *ctx, struct arrc_{n} *arr, {c} *data)"),
        format!("{c} *arrc_values_raw_{n}(struct arrc_context *ctx, struct arrc_{n} *arr)"),
        format!("const int64_t *arrc_shape_{n}(struct arrc_context *ctx, struct arrc_{n} *arr)"),
        format!("int arrc_free_{n}(struct arrc_context *ctx, struct arrc_{n} *arr)"),
    ]
}

/// The C type of a parameter (`input`) or of where a result goes.
fn c_type(api: &Api, t: ApiType, input: bool) -> String {
    match (t, input) {
        (ApiType::Leaf(Type::Scalar(s)), true) => c_elem(s).0.to_string(),
        (ApiType::Leaf(Type::Scalar(s)), false) => format!("{} *", c_elem(s).0),
        (ApiType::Leaf(Type::Array(e, r)), true) => {
            format!("const struct arrc_{} *", array_name(e, r))
        }
        (ApiType::Leaf(Type::Array(e, r)), false) => {
            format!("struct arrc_{} **", array_name(e, r))
        }
        (ApiType::Opaque(k), true) => {
            format!("const struct arrc_opaque_{} *", api.opaques[k].name)
        }
        (ApiType::Opaque(k), false) => format!("struct arrc_opaque_{} **", api.opaques[k].name),
    }
}

fn entry_decl(api: &Api, k: usize, f: &Function) -> String {
    let e = &api.entries[k];
    let mut params = vec!["struct arrc_context *ctx".to_string()];
    for (j, t) in e.results.iter().enumerate() {
        params.push(format!("{}out{j}", spaced(c_type(api, *t, false))));
    }
    for (i, t) in e.params.iter().enumerate() {
        params.push(format!("{}in{i}", spaced(c_type(api, *t, true))));
    }
    format!(
        "int arrc_entry_{}({})",
        entry_c_name(&f.name),
        params.join(", ")
    )
}

fn spaced(t: String) -> String {
    if t.ends_with('*') {
        t
    } else {
        t + " "
    }
}

/// The header `NAME.h` of the library.
pub fn library_header(program: &Program, api: &Api, name: &str) -> String {
    let guard: String = format!("ARRC_{}_H", entry_c_name(name).to_ascii_uppercase());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* Generated by arrc (arrc build --library): the C API of {name}.\n \
         * Every function returning int gives 0 on success; after a non-zero\n \
         * result arrc_context_get_error says why. See docs/library.md. */"
    );
    let _ = writeln!(out, "#ifndef {guard}\n#define {guard}\n");
    out.push_str("#include <stdbool.h>\n#include <stdint.h>\n\n");
    out.push_str("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    out.push_str(
        "/* Configuration and contexts. A context owns its threads and memory;\n \
         * calls on one context are serialised, contexts are independent. */\n\
         struct arrc_context_config;\n\
         struct arrc_context;\n\
         struct arrc_context_config *arrc_context_config_new(void);\n\
         void arrc_context_config_free(struct arrc_context_config *cfg);\n\
         /* Threads of the context's pool; 0 (default): ARRC_THREADS, else all cores. */\n\
         void arrc_context_config_set_threads(struct arrc_context_config *cfg, int n);\n\
         void arrc_context_config_set_num_threads(struct arrc_context_config *cfg, int n);\n\
         struct arrc_context *arrc_context_new(const struct arrc_context_config *cfg);\n\
         void arrc_context_free(struct arrc_context *ctx);\n\
         int arrc_context_sync(struct arrc_context *ctx);\n\
         /* The last error's message (the caller frees it), or NULL. */\n\
         char *arrc_context_get_error(struct arrc_context *ctx);\n\n",
    );
    for (rank, elem) in array_types(api) {
        let n = array_name(elem, rank);
        let _ = writeln!(
            out,
            "/* []{}{}: new copies data (row-major); new_raw uses data itself,\n \
             * which must outlive the array; values copies the elements out,\n \
             * values_raw gives them in place until the array is freed. */\nstruct arrc_{n};",
            "[]".repeat(rank - 1),
            c_elem(elem).1
        );
        for d in array_decls(elem, rank) {
            let _ = writeln!(out, "{d};");
        }
        out.push('\n');
    }
    opaque::header(api, &mut out);
    out.push_str("/* Entry points: results first, then the arguments. */\n");
    for (k, f) in program.functions.iter().enumerate() {
        let _ = writeln!(out, "{};", entry_decl(api, k, f));
    }
    out.push_str("\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
    out
}

/// The C glue of the API, appended to `glue_c`'s entry table.
pub fn library_glue(program: &Program, api: &Api) -> String {
    let mut out = String::from("\n/* The C API (arr_library.h). */\n#include \"arr_library.h\"\n");
    out.push_str("#include <stdbool.h>\n\n");
    for (rank, elem) in array_types(api) {
        let n = array_name(elem, rank);
        let p = super::glue::prim(elem);
        let names: Vec<String> = (0..rank).map(|d| format!("dim{d}")).collect();
        let [new, new_raw, values, values_raw, shape, free] = array_decls(elem, rank);
        let _ = writeln!(out, "struct arrc_{n};");
        for (decl, copy) in [(new, 1), (new_raw, 0)] {
            let _ = writeln!(
                out,
                "ARRC_API {decl} {{\n    const int64_t dims[] = {{{}}};\n    \
                 return (struct arrc_{n} *)arr_lib_new(ctx, {p}, {rank}, dims, data, {copy});\n}}",
                names.join(", ")
            );
        }
        let c = c_elem(elem).0;
        let _ = writeln!(
            out,
            "ARRC_API {values} {{\n    return arr_lib_values(ctx, (const arr_lib_array *)arr, {p}, data);\n}}\n\
             ARRC_API {values_raw} {{\n    return ({c} *)arr_lib_values_raw(ctx, (const arr_lib_array *)arr);\n}}\n\
             ARRC_API {shape} {{\n    return arr_lib_shape(ctx, (const arr_lib_array *)arr);\n}}\n\
             ARRC_API {free} {{\n    return arr_lib_free(ctx, (arr_lib_array *)arr);\n}}\n"
        );
    }
    opaque::glue(api, &mut out);
    for (k, f) in program.functions.iter().enumerate() {
        entry_glue(&mut out, api, k, f);
    }
    out
}

/// `arrc_entry_NAME`: its arguments and results as the leaves of the
/// flattened entry `arr_entries[k]` (an opaque value is several).
fn entry_glue(out: &mut String, api: &Api, k: usize, f: &Function) {
    let e = &api.entries[k];
    let mut body = String::new();
    let mut at = 0;
    for (i, t) in e.params.iter().enumerate() {
        let _ = match *t {
            ApiType::Leaf(Type::Scalar(_)) => writeln!(body, "    in[{at}] = &in{i};"),
            ApiType::Leaf(Type::Array(..)) => writeln!(body, "    in[{at}] = in{i};"),
            ApiType::Opaque(o) => writeln!(
                body,
                "    if (arr_lib_opaque_in(ctx, (const arr_lib_opaque *)in{i}, {}, \"argument {}\", in + {at})) {{\n        return 1;\n    }}",
                api.opaques[o].leaves.len(),
                i + 1
            ),
        };
        at += api.leaf_count(*t);
    }
    let ins = at;
    at = 0;
    let mut fill = String::new();
    let mut finish = String::new();
    for (j, t) in e.results.iter().enumerate() {
        if let ApiType::Opaque(o) = *t {
            let op = &api.opaques[o];
            let _ = writeln!(
                body,
                "    res[{j}] = arr_lib_opaque_alloc(ctx, {}, arr_opaque_types_{o}, {});\n    rc |= res[{j}] == NULL;",
                op.leaves.len(),
                op.kind.rank()
            );
            let _ = writeln!(fill, "        arr_lib_opaque_out(res[{j}], out + {at});");
            let _ = writeln!(
                finish,
                "    if (rc != 0) {{\n        arr_lib_opaque_discard(res[{j}]);\n    }} else {{\n        \
                 *out{j} = (struct arrc_opaque_{} *)res[{j}];\n    }}",
                op.name
            );
        } else {
            let _ = writeln!(fill, "        out[{at}] = out{j};");
        }
        at += api.leaf_count(*t);
    }
    let outs = at;
    let _ = writeln!(
        out,
        "ARRC_API {} {{\n    const void *in[{}];\n    void *out[{}];\n    \
         arr_lib_opaque *res[{}] = {{NULL}};\n    int rc = 0;\n    (void)in;\n    (void)out;\n    (void)res;\n\
         {body}    if (rc == 0) {{\n{fill}        \
         rc = arr_lib_entry(ctx, &arr_entries[{k}], in, out);\n    }}\n{finish}    return rc;\n}}\n",
        entry_decl(api, k, f),
        ins.max(1),
        outs.max(1),
        e.results.len().max(1),
    );
}

/// Names two entries would share as C functions, if any.
pub fn clashing_entry_names(program: &Program) -> Option<(String, String)> {
    let mut seen = std::collections::HashMap::new();
    for f in &program.functions {
        if let Some(other) = seen.insert(entry_c_name(&f.name), f.name.clone()) {
            return Some((other, f.name.clone()));
        }
    }
    None
}
