//! What a library's entry points take and return, in the API's terms:
//! checked entry types in, API types out. A scalar or an array of scalars
//! is one leaf of the flattened entry (one `arr_value`); anything else (a
//! record, a tuple other than the top-level result tuple, a sum type, an
//! array of those) is an opaque type, `struct arrc_opaque_NAME`, holding
//! the leaves the core IR flattens it into (`core::lower::type_leaves`
//! gives their order). Opaque types are named after the type abbreviation
//! the source writes, else by a stable mangling of their structure.

use crate::core::ir::Type as Leaf;
use crate::core::lower::type_leaves;
use crate::types::typed::Entry;
use crate::types::{ScalarType, Type};
use std::ops::Range;

/// A parameter's or result's type as the API passes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ApiType {
    /// A scalar or an array of scalars: one leaf.
    Leaf(Leaf),
    /// `Api::opaques[k]`.
    Opaque(usize),
}

/// A record's or tuple's field (for an array of records, the array of the
/// field), or one value of a constructor's payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// A C identifier: the field's name, `0`, `1`, ... for tuples.
    pub name: String,
    pub ty: ApiType,
    /// Its leaves among the opaque value's.
    pub leaves: Range<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OpaqueKind {
    /// A record or a tuple (`rank` 0), or an array of them: its fields
    /// (arrays of `rank` more dimensions for an array), which the leaves
    /// hold one after another.
    Record { rank: usize, fields: Vec<Field> },
    /// A value of a sum type: leaf 0 is the tag (the constructor's index in
    /// name order), then every constructor's payload, in that order; the
    /// payloads of the constructors not held are zeros and empty arrays.
    Sum { ctors: Vec<(String, Vec<Field>)> },
    /// An array of a sum type: passed along, its shape read.
    SumArray { rank: usize },
}

impl OpaqueKind {
    /// How many outer dimensions every leaf shares (0: not an array).
    pub fn rank(&self) -> usize {
        match self {
            OpaqueKind::Record { rank, .. } | OpaqueKind::SumArray { rank } => *rank,
            OpaqueKind::Sum { .. } => 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Opaque {
    /// `NAME` of `struct arrc_opaque_NAME`.
    pub name: String,
    pub ty: Type,
    pub leaves: Vec<Leaf>,
    pub kind: OpaqueKind,
    /// For an array of records or sum values: the opaque type of its
    /// elements (`index` gives one).
    pub elem: Option<usize>,
}

impl Opaque {
    /// Its fields, or every constructor's payload values.
    pub fn fields(&self) -> Vec<&Field> {
        match &self.kind {
            OpaqueKind::Record { fields, .. } => fields.iter().collect(),
            OpaqueKind::Sum { ctors } => ctors.iter().flat_map(|(_, fs)| fs).collect(),
            OpaqueKind::SumArray { .. } => Vec::new(),
        }
    }
}

/// One entry's parameters and results (a tuple result is several).
#[derive(Clone, Debug, PartialEq)]
pub struct EntryApi {
    pub name: String,
    pub params: Vec<ApiType>,
    pub results: Vec<ApiType>,
}

/// The API of a library: its opaque types and every entry's signature, in
/// the order of the loop nests' functions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Api {
    pub opaques: Vec<Opaque>,
    pub entries: Vec<EntryApi>,
}

impl Api {
    pub fn new(entries: &[Entry]) -> Api {
        let mut api = Api::default();
        for e in entries {
            let params = e
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let name = e.param_type_names.get(i).cloned().flatten();
                    api.api_type(p.ty(), name)
                })
                .collect();
            let results = match &e.ret {
                Type::Tuple(ts) => ts
                    .iter()
                    .enumerate()
                    .map(|(j, t)| {
                        let name = e.ret_type_names.get(j).cloned().flatten();
                        api.api_type(t, name)
                    })
                    .collect(),
                t => {
                    let name = e.ret_type_names.first().cloned().flatten();
                    vec![api.api_type(t, name)]
                }
            };
            api.entries.push(EntryApi {
                name: e.name.clone(),
                params,
                results,
            });
        }
        api
    }

    /// The API of loop nests whose every parameter and result is a leaf
    /// (what a library built without the checked program has).
    pub fn of_leaves(program: &crate::loopy::ir::Program) -> Api {
        let entries = program
            .functions
            .iter()
            .map(|f| EntryApi {
                name: f.name.clone(),
                params: f.params.iter().map(|p| ApiType::Leaf(p.var.ty)).collect(),
                results: f.ret.iter().map(|t| ApiType::Leaf(*t)).collect(),
            })
            .collect();
        Api {
            opaques: Vec::new(),
            entries,
        }
    }

    /// Whether every entry's parameters and results are, leaf for leaf, the
    /// loop nests' (the glue indexes them so).
    pub fn matches(&self, program: &crate::loopy::ir::Program) -> bool {
        let leaves = |ts: &[ApiType]| -> Vec<Leaf> {
            ts.iter()
                .flat_map(|t| match *t {
                    ApiType::Leaf(l) => vec![l],
                    ApiType::Opaque(k) => self.opaques[k].leaves.clone(),
                })
                .collect()
        };
        self.entries.len() == program.functions.len()
            && self.entries.iter().zip(&program.functions).all(|(e, f)| {
                leaves(&e.params) == f.params.iter().map(|p| p.var.ty).collect::<Vec<_>>()
                    && leaves(&e.results) == f.ret
            })
    }

    /// How many leaves (`arr_value`s of the flattened entry) `t` is.
    pub fn leaf_count(&self, t: ApiType) -> usize {
        match t {
            ApiType::Leaf(_) => 1,
            ApiType::Opaque(k) => self.opaques[k].leaves.len(),
        }
    }

    /// Whether an entry takes or returns an opaque value.
    pub fn has_opaque(&self, entry: usize) -> bool {
        let e = &self.entries[entry];
        e.params
            .iter()
            .chain(&e.results)
            .any(|t| matches!(t, ApiType::Opaque(_)))
    }

    fn api_type(&mut self, t: &Type, name: Option<String>) -> ApiType {
        match leaf(t) {
            Some(l) => ApiType::Leaf(l),
            None => ApiType::Opaque(self.opaque(t, name)),
        }
    }

    /// The opaque type of `t`, added with its fields' types if new.
    fn opaque(&mut self, t: &Type, name: Option<String>) -> usize {
        if let Some(k) = self.opaques.iter().position(|o| &o.ty == t) {
            return k;
        }
        let (elem, rank) = strip_arrays(t);
        // The element's type first: `[]point` names it `point`.
        let elem_opaque = (rank > 0).then(|| {
            let elem_name = name.as_deref().and_then(|n| {
                n.strip_prefix("arr_")?
                    .strip_suffix(&format!("_{rank}d"))
                    .map(str::to_string)
            });
            self.opaque(elem, elem_name)
        });
        let lift = |t: &Type| (0..rank).fold(t.clone(), |t, _| Type::array(t));
        let kind = match elem {
            Type::Tuple(ts) => self.record(
                ts.iter()
                    .enumerate()
                    .map(|(i, t)| (i.to_string(), lift(t)))
                    .collect(),
                rank,
            ),
            Type::Record(fs) => self.record(
                fs.iter()
                    .map(|(n, t)| (super::entry_c_name(n), lift(t)))
                    .collect(),
                rank,
            ),
            Type::Sum(cs) if rank == 0 => {
                let mut next = 1;
                let ctors = cs
                    .iter()
                    .map(|(c, ts)| {
                        let fields = self.fields(
                            ts.iter()
                                .enumerate()
                                .map(|(i, t)| (i.to_string(), t.clone()))
                                .collect(),
                            &mut next,
                        );
                        (super::entry_c_name(c), fields)
                    })
                    .collect();
                OpaqueKind::Sum { ctors }
            }
            _ => OpaqueKind::SumArray { rank },
        };
        let mut leaves = Vec::new();
        type_leaves(t, 0, &mut leaves);
        let name = self.unique_name(name, t);
        self.opaques.push(Opaque {
            name,
            ty: t.clone(),
            leaves,
            kind,
            elem: elem_opaque,
        });
        self.opaques.len() - 1
    }

    fn record(&mut self, fields: Vec<(String, Type)>, rank: usize) -> OpaqueKind {
        let fields = self.fields(fields, &mut 0);
        OpaqueKind::Record { rank, fields }
    }

    /// Fields of the given names and types whose leaves start at `*next`.
    fn fields(&mut self, fields: Vec<(String, Type)>, next: &mut usize) -> Vec<Field> {
        fields
            .into_iter()
            .map(|(name, t)| {
                let ty = self.api_type(&t, None);
                let n = self.leaf_count(ty);
                let leaves = *next..*next + n;
                *next += n;
                Field { name, ty, leaves }
            })
            .collect()
    }

    /// The written name when it is a C identifier no other opaque type has,
    /// else the mangling of `t`.
    fn unique_name(&self, written: Option<String>, t: &Type) -> String {
        let taken = |n: &str| self.opaques.iter().any(|o| o.name == n);
        if let Some(n) = written.map(|n| super::entry_c_name(&n)) {
            if !n.is_empty() && !taken(&n) {
                return n;
            }
        }
        let base = mangle(t);
        let mut name = base.clone();
        let mut k = 2;
        while taken(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        name
    }
}

/// The leaf type of a scalar or an array of scalars.
fn leaf(t: &Type) -> Option<Leaf> {
    match strip_arrays(t) {
        (Type::Scalar(s), 0) => Some(Leaf::Scalar(*s)),
        (Type::Scalar(s), rank) => Some(Leaf::Array(*s, rank)),
        _ => None,
    }
}

fn strip_arrays(t: &Type) -> (&Type, usize) {
    let (mut t, mut rank) = (t, 0);
    while let Type::Array(e) = t {
        t = e;
        rank += 1;
    }
    (t, rank)
}

/// A readable C identifier for an unnamed type (`tup2_f32_i64`,
/// `rec_x_f32_y_f32`, `arr_tup2_f32_f32_1d`), or `t_` and a hash of its
/// text when that would be long. Stable: it depends on the type alone.
pub fn mangle(t: &Type) -> String {
    fn go(t: &Type) -> String {
        match t {
            Type::Scalar(s) => scalar(*s).to_string(),
            Type::Array(_) => {
                let (e, rank) = strip_arrays(t);
                format!("arr_{}_{rank}d", go(e))
            }
            Type::Tuple(ts) => {
                let parts: Vec<String> = ts.iter().map(go).collect();
                format!("tup{}_{}", ts.len(), parts.join("_"))
            }
            Type::Record(fs) => {
                let parts: Vec<String> = fs
                    .iter()
                    .map(|(n, t)| format!("{}_{}", super::entry_c_name(n), go(t)))
                    .collect();
                format!("rec_{}", parts.join("_"))
            }
            Type::Sum(cs) => {
                let parts: Vec<String> = cs
                    .iter()
                    .map(|(c, ts)| {
                        let mut p = vec![super::entry_c_name(c)];
                        p.extend(ts.iter().map(go));
                        p.join("_")
                    })
                    .collect();
                format!("sum_{}", parts.join("_"))
            }
            Type::Func(..) | Type::Var(_) | Type::Param(_) => "t".to_string(),
        }
    }
    let name = go(t);
    if name.len() <= 40 {
        return name;
    }
    // FNV-1a of the type's text: the same in every build.
    let hash = t
        .to_string()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("t_{hash:016x}")
}

fn scalar(s: ScalarType) -> &'static str {
    super::c_elem(s).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_types_get_readable_stable_names() {
        let f32_ = Type::Scalar(ScalarType::F32);
        let pair = Type::Tuple(vec![f32_.clone(), Type::Scalar(ScalarType::I64)]);
        assert_eq!(mangle(&pair), "tup2_f32_i64");
        assert_eq!(mangle(&Type::array(pair.clone())), "arr_tup2_f32_i64_1d");
        let rec = Type::Record(vec![("x".into(), f32_.clone()), ("y".into(), f32_)]);
        assert_eq!(mangle(&rec), "rec_x_f32_y_f32");
        let long = Type::Tuple(vec![rec.clone(), rec.clone(), rec]);
        let name = mangle(&long);
        assert!(name.starts_with("t_") && name.len() == 18, "{name}");
        assert_eq!(name, mangle(&long.clone()));
    }
}
