//! A scatter over concatenations, split into a chain of scatters: a
//! `core::ir::Function` in, the same function out where
//! `scatter d (i1 ++ i2 ++ ...) (v1 ++ v2 ++ ...)` is
//! `scatter (scatter d i1 v1) i2 v2 ...` when the parts have one size,
//! else `scatter (scatter d i1 v1) (i2 ++ ...) (v2 ++ ...)`, and
//! `size (a ++ b) 0` is `size a 0 + size b 0`.
//!
//! The concatenations were read by the scatter only through their index
//! function, but the scatter ran over their whole length while the map
//! making the parts runs over a part's: no fusion (Futhark's
//! `concat-scatter-fusion`). Split, each scatter has its part's width and
//! streams it from its producer. A scatter after the first is marked
//! `continues`: a later part of one scatter, so of an index written by two
//! parts either value may be stored, and `fusion::graph` lets the chain
//! run in one loop, element by element (the interpreter runs it in order,
//! one of the allowed results). Parts of different sizes could not share a
//! loop, so there the rest stays one scatter (one loop, not one per part).
//! A scatter into a scatter's result is not split again. An index out of
//! range is ignored in either. Done only where the first part's arrays are
//! made by SOACs (else there is nothing to fuse) and no error moves: the
//! index and value arrays are vectors (a concatenation of rows checks
//! their widths), their parts pair up with provably equal sizes, and the
//! scatter's width is provably their sum (its size check never failed).
//! The size rewrite lets `dce` drop a concatenation read by nothing else,
//! which the lowering would otherwise copy.

use super::facts::{atom_key, AtomKey, Facts};
use super::walk::{nested_bodies, nested_bodies_mut};
use crate::core::fresh::Fresh;
use crate::core::ir::{Atom, BinOp, Body, Exp, Function, Soac, SoacKind, Stm, Type, Var, VarId};
use crate::types::ScalarType;
use std::collections::HashMap;

/// What a variable was bound to, where that matters here.
enum Def {
    /// A concatenation of vectors, with its parts and type.
    VectorConcat(Vec<VarId>, Type),
    /// A concatenation of arrays of higher rank, with its parts.
    Concat(Vec<VarId>),
    /// An `i64` sum.
    Add(Atom, Atom),
    /// A result of a SOAC.
    SoacResult,
    /// A result of a scatter.
    ScatterResult,
}

pub fn run(f: &mut Function, facts: &Facts, fresh: &mut Fresh) -> bool {
    let mut defs = HashMap::new();
    collect(&f.body, &mut defs);
    let mut changed = false;
    body(
        &mut f.body,
        &Split { facts, defs: &defs },
        fresh,
        &mut changed,
    );
    changed
}

fn collect(b: &Body, defs: &mut HashMap<VarId, Def>) {
    for stm in &b.stms {
        match (&stm.exp, &stm.pat[..]) {
            (Exp::Concat(parts), [x]) if x.ty.rank() == 1 => {
                defs.insert(x.id, Def::VectorConcat(parts.clone(), x.ty));
            }
            (Exp::Concat(parts), [x]) => {
                defs.insert(x.id, Def::Concat(parts.clone()));
            }
            (Exp::BinOp(BinOp::Add, a, b), [x]) if x.ty == Type::Scalar(ScalarType::I64) => {
                defs.insert(x.id, Def::Add(*a, *b));
            }
            (Exp::Soac(soac), pat) => {
                for x in pat {
                    let def = match soac.kind {
                        SoacKind::Scatter { .. } => Def::ScatterResult,
                        _ => Def::SoacResult,
                    };
                    defs.insert(x.id, def);
                }
            }
            _ => {}
        }
        for nested in nested_bodies(&stm.exp) {
            collect(nested, defs);
        }
    }
}

struct Split<'a> {
    facts: &'a Facts,
    defs: &'a HashMap<VarId, Def>,
}

impl Split<'_> {
    /// The parts of a vector, concatenations taken apart.
    fn leaves(&self, x: VarId, out: &mut Vec<VarId>) {
        match self.defs.get(&x) {
            Some(Def::VectorConcat(parts, _)) => parts.iter().for_each(|&p| self.leaves(p, out)),
            _ => out.push(x),
        }
    }

    /// The terms of a sum, sums taken apart.
    fn terms(&self, a: Atom, out: &mut Vec<AtomKey>) {
        match a {
            Atom::Var(v) => match self.defs.get(&v) {
                Some(Def::Add(x, y)) => {
                    self.terms(*x, out);
                    self.terms(*y, out);
                }
                _ => out.push(atom_key(&a)),
            },
            Atom::Const(_) => out.push(atom_key(&a)),
        }
    }

    /// The parts of each of the scatter's arrays (indices first), paired
    /// up, if the split changes no error (see the module comment).
    /// Also the arrays' types, and whether every part has one size.
    fn parts(&self, soac: &Soac, dest: &[VarId]) -> Option<(Vec<Vec<VarId>>, Vec<Type>, bool)> {
        let made_by = |v: &VarId| self.defs.get(v);
        if dest
            .iter()
            .any(|d| matches!(made_by(d), Some(Def::ScatterResult)))
        {
            return None;
        }
        let mut per_array: Vec<Vec<VarId>> = Vec::new();
        let mut types = Vec::new();
        for &arg in &soac.args {
            let Some(Def::VectorConcat(_, ty)) = self.defs.get(&arg) else {
                return None;
            };
            types.push(*ty);
            let mut leaves = Vec::new();
            self.leaves(arg, &mut leaves);
            per_array.push(leaves);
        }
        let indices = per_array.first()?;
        if indices.len() < 2
            || !per_array
                .iter()
                .all(|parts| matches!(made_by(&parts[0]), Some(Def::SoacResult)))
        {
            return None;
        }
        let mut sizes = Vec::new();
        let mut part_sizes = Vec::new();
        for (at, &part) in indices.iter().enumerate() {
            let size = self.facts.outer(part)?;
            for values in &per_array[1..] {
                let other = self.facts.outer(*values.get(at)?)?;
                if values.len() != indices.len() || atom_key(&other) != atom_key(&size) {
                    return None;
                }
            }
            self.terms(size, &mut sizes);
            part_sizes.push(atom_key(&size));
        }
        let mut width = Vec::new();
        self.terms(soac.width, &mut width);
        let one_size = part_sizes.windows(2).all(|w| w[0] == w[1]);
        sizes.sort();
        width.sort();
        (sizes == width).then_some((per_array, types, one_size))
    }
}

fn body(b: &mut Body, split: &Split, fresh: &mut Fresh, changed: &mut bool) {
    let old = std::mem::take(&mut b.stms);
    for mut stm in old {
        for nested in nested_bodies_mut(&mut stm.exp) {
            body(nested, split, fresh, changed);
        }
        if let Some(stms) = size_of_concat(&stm, split, fresh) {
            b.stms.extend(stms);
            *changed = true;
            continue;
        }
        let Exp::Soac(soac) = &stm.exp else {
            b.stms.push(stm);
            continue;
        };
        let SoacKind::Scatter { dest, .. } = &soac.kind else {
            b.stms.push(stm);
            continue;
        };
        let Some((per_array, types, one_size)) = split.parts(soac, dest) else {
            b.stms.push(stm);
            continue;
        };
        // The arrays of each scatter of the chain: every part alone when
        // the parts have one size (each runs over the width of the map that
        // makes its part, and the chain fuses into that map's loop), else
        // the first part and the rest, its second part or a concatenation
        // of the parts after the first.
        let groups: Vec<Vec<VarId>> = if one_size {
            (0..per_array[0].len())
                .map(|at| per_array.iter().map(|parts| parts[at]).collect())
                .collect()
        } else {
            let mut rest = Vec::new();
            for (parts, ty) in per_array.iter().zip(types) {
                if let [_, second] = parts[..] {
                    rest.push(second);
                    continue;
                }
                let concat = fresh.var("rest", ty);
                rest.push(concat.id);
                b.stms.push(Stm {
                    pat: vec![concat],
                    exp: Exp::Concat(parts[1..].to_vec()),
                    loc: stm.loc,
                });
            }
            vec![per_array.iter().map(|parts| parts[0]).collect(), rest]
        };
        let loc = stm.loc;
        let mut into = dest.clone();
        let last = groups.len() - 1;
        for (at, args) in groups.into_iter().enumerate() {
            let pat: Vec<Var> = if at == last {
                stm.pat.clone()
            } else {
                stm.pat.iter().map(|y| fresh.var("sc", y.ty)).collect()
            };
            let width = fresh.var("n", Type::Scalar(ScalarType::I64));
            b.stms.push(Stm {
                pat: vec![width.clone()],
                exp: Exp::Size {
                    array: args[0],
                    dim: 0,
                },
                loc,
            });
            let next = pat.iter().map(|y| y.id).collect();
            b.stms.push(Stm {
                pat,
                exp: Exp::Soac(Soac {
                    label: fresh.soac(),
                    width: Atom::Var(width.id),
                    kind: SoacKind::Scatter {
                        dest: std::mem::replace(&mut into, next),
                        continues: at > 0,
                    },
                    args,
                    sequential: soac.sequential,
                }),
                loc,
            });
        }
        *changed = true;
    }
}

/// `size (a ++ b ++ ...) 0` as the sum of the parts' sizes.
fn size_of_concat(stm: &Stm, split: &Split, fresh: &mut Fresh) -> Option<Vec<Stm>> {
    let (Exp::Size { array, dim: 0 }, [x]) = (&stm.exp, &stm.pat[..]) else {
        return None;
    };
    let (Some(Def::VectorConcat(parts, _)) | Some(Def::Concat(parts))) = split.defs.get(array)
    else {
        return None;
    };
    let i64 = Type::Scalar(ScalarType::I64);
    let mut stms = Vec::new();
    let mut total: Option<Atom> = None;
    for (at, &part) in parts.iter().enumerate() {
        let size = if at + 1 == parts.len() && total.is_none() {
            x.clone()
        } else {
            fresh.var("n", i64)
        };
        stms.push(Stm {
            pat: vec![size.clone()],
            exp: Exp::Size {
                array: part,
                dim: 0,
            },
            loc: stm.loc,
        });
        total = Some(match total {
            None => Atom::Var(size.id),
            Some(sum) => {
                let sum_var = if at + 1 == parts.len() {
                    x.clone()
                } else {
                    fresh.var("n", i64)
                };
                stms.push(Stm {
                    pat: vec![sum_var.clone()],
                    exp: Exp::BinOp(BinOp::Add, sum, Atom::Var(size.id)),
                    loc: stm.loc,
                });
                Atom::Var(sum_var.id)
            }
        });
    }
    (!parts.is_empty()).then_some(stms)
}
