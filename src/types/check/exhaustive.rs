//! Exhaustiveness of `match` and irrefutability of binding patterns, on
//! final types: the classic usefulness check over a matrix of patterns,
//! returning a value no row matches (as a pattern to show) if there is one.

use crate::types::ty::Type;
use crate::types::typed::{Literal, TExprKind, TPat};

/// A pattern reduced to what matching needs.
#[derive(Clone, Debug)]
enum P {
    Wild,
    /// A constructor of the type: its key and its fields.
    Ctor(Key, Vec<P>),
    /// A literal of a type with too many values to list.
    Lit,
}

#[derive(Clone, Debug, PartialEq)]
enum Key {
    Tuple,
    Bool(bool),
    Sum(String),
}

fn reduce(p: &TPat) -> P {
    match p {
        TPat::Var { .. } | TPat::Wildcard(_) => P::Wild,
        TPat::Ascribed(q, _) => reduce(q),
        TPat::Tuple(ps, _) => P::Ctor(Key::Tuple, ps.iter().map(reduce).collect()),
        TPat::Ctor(name, ps, _) => P::Ctor(Key::Sum(name.clone()), ps.iter().map(reduce).collect()),
        TPat::Lit(e) => match literal_value(&e.kind) {
            Some(Literal::Bool(b)) => P::Ctor(Key::Bool(b), Vec::new()),
            _ => P::Lit,
        },
    }
}

fn literal_value(k: &TExprKind) -> Option<Literal> {
    match k {
        TExprKind::Literal(l) => Some(*l),
        _ => None,
    }
}

/// The constructors of a type, with their field types, when they can be
/// listed (`None` for numbers and arrays).
fn signature(t: &Type) -> Option<Vec<(Key, Vec<Type>)>> {
    match t {
        Type::Tuple(ts) => Some(vec![(Key::Tuple, ts.clone())]),
        Type::Record(fs) => Some(vec![(
            Key::Tuple,
            fs.iter().map(|(_, t)| t.clone()).collect(),
        )]),
        Type::Sum(cs) => Some(
            cs.iter()
                .map(|(n, ts)| (Key::Sum(n.clone()), ts.clone()))
                .collect(),
        ),
        Type::Scalar(crate::types::ScalarType::Bool) => Some(vec![
            (Key::Bool(false), Vec::new()),
            (Key::Bool(true), Vec::new()),
        ]),
        _ => None,
    }
}

/// A value (as pattern text) that none of `rows` matches, if any. Each row
/// has one pattern per type of `tys`.
fn missing(rows: &[Vec<P>], tys: &[Type]) -> Option<Vec<String>> {
    let Some((t, rest)) = tys.split_first() else {
        return if rows.is_empty() {
            Some(Vec::new())
        } else {
            None
        };
    };
    let sig = signature(t);
    let heads: Vec<&Key> = rows
        .iter()
        .filter_map(|r| match &r[0] {
            P::Ctor(k, _) => Some(k),
            _ => None,
        })
        .collect();
    if let Some(sig) = &sig {
        if sig.iter().all(|(k, _)| heads.contains(&k)) {
            for (k, fields) in sig {
                let spec = specialise(rows, k, fields.len());
                let mut tys2 = fields.clone();
                tys2.extend(rest.iter().cloned());
                if let Some(w) = missing(&spec, &tys2) {
                    let (args, tail) = w.split_at(fields.len());
                    let mut out = vec![show(k, args, t)];
                    out.extend(tail.iter().cloned());
                    return Some(out);
                }
            }
            return None;
        }
    }
    // Some constructor (or value) is not covered by any head: the rows
    // starting with a wildcard must cover the rest.
    let default: Vec<Vec<P>> = rows
        .iter()
        .filter(|r| matches!(r[0], P::Wild))
        .map(|r| r[1..].to_vec())
        .collect();
    let w = missing(&default, rest)?;
    let first = match &sig {
        Some(sig) => match sig.iter().find(|(k, _)| !heads.contains(&k)) {
            Some((k, fields)) => show(k, &vec!["_".to_string(); fields.len()], t),
            None => "_".into(),
        },
        None => "_".into(),
    };
    let mut out = vec![first];
    out.extend(w);
    Some(out)
}

fn specialise(rows: &[Vec<P>], k: &Key, arity: usize) -> Vec<Vec<P>> {
    let mut out = Vec::new();
    for r in rows {
        let fields = match &r[0] {
            P::Ctor(k2, ps) if k2 == k => ps.clone(),
            P::Ctor(..) | P::Lit => continue,
            P::Wild => vec![P::Wild; arity],
        };
        let mut row = fields;
        row.extend(r[1..].iter().cloned());
        out.push(row);
    }
    out
}

fn show(k: &Key, args: &[String], t: &Type) -> String {
    match k {
        Key::Bool(b) => b.to_string(),
        Key::Tuple => match t {
            Type::Record(fs) => {
                let parts: Vec<String> = fs
                    .iter()
                    .zip(args)
                    .map(|((n, _), a)| format!("{n} = {a}"))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            _ => format!("({})", args.join(", ")),
        },
        Key::Sum(name) if args.is_empty() => format!("#{name}"),
        Key::Sum(name) => {
            let parts: Vec<String> = args
                .iter()
                .map(|a| {
                    if a.contains(' ') && !a.starts_with('(') {
                        format!("({a})")
                    } else {
                        a.clone()
                    }
                })
                .collect();
            format!("#{name} {}", parts.join(" "))
        }
    }
}

/// A value of type `t` that no case of `cases` matches, as a pattern.
pub(super) fn unmatched(t: &Type, cases: &[&TPat]) -> Option<String> {
    let rows: Vec<Vec<P>> = cases.iter().map(|p| vec![reduce(p)]).collect();
    missing(&rows, std::slice::from_ref(t)).map(|mut w| w.remove(0))
}
