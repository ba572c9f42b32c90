//! A scatter over concatenations, its first part split off: a
//! `core::ir::Function` in, the same function out where
//! `scatter d (i1 ++ i2 ++ ...) (v1 ++ v2 ++ ...)` is
//! `scatter (scatter d i1 v1) (i2 ++ ...) (v2 ++ ...)`, and
//! `size (a ++ b) 0` is `size a 0 + size b 0`.
//!
//! The concatenations were read by the scatter only through their index
//! function, but the scatter ran over their whole length while the map
//! making the parts runs over a part's: no fusion (Futhark's
//! `concat-scatter-fusion`). Split, the first scatter has the first
//! part's width and streams it from its producer. The writes keep their
//! sequential order: the first part's all land before the rest's, so of
//! duplicate indices the later still wins; an index out of range is
//! ignored in either. So only the first part can fuse with a producer the
//! parts share (the rest must wait for all of its writes), and the rest
//! stays one scatter (one loop, not one per part) that is not split again:
//! a scatter into a scatter's result is left alone. Done only where the
//! first part's arrays are made by SOACs (else there is nothing to fuse)
//! and no error moves: the index and value arrays are vectors (a
//! concatenation of rows checks their widths), their parts pair up with
//! provably equal sizes, and the scatter's width is provably their sum
//! (its size check never failed). The size rewrite lets `dce` drop a
//! concatenation read by nothing else, which the lowering would otherwise
//! copy.

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
    /// Also the arrays' types.
    fn parts(&self, soac: &Soac, dest: &[VarId]) -> Option<(Vec<Vec<VarId>>, Vec<Type>)> {
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
        for (at, &part) in indices.iter().enumerate() {
            let size = self.facts.outer(part)?;
            for values in &per_array[1..] {
                let other = self.facts.outer(*values.get(at)?)?;
                if values.len() != indices.len() || atom_key(&other) != atom_key(&size) {
                    return None;
                }
            }
            self.terms(size, &mut sizes);
        }
        let mut width = Vec::new();
        self.terms(soac.width, &mut width);
        sizes.sort();
        width.sort();
        (sizes == width).then_some((per_array, types))
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
        let SoacKind::Scatter { dest } = &soac.kind else {
            b.stms.push(stm);
            continue;
        };
        let Some((per_array, types)) = split.parts(soac, dest) else {
            b.stms.push(stm);
            continue;
        };
        // The rest of each array: its second part, or a concatenation of
        // the parts after the first.
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
        let first: Vec<VarId> = per_array.iter().map(|parts| parts[0]).collect();
        let between: Vec<Var> = stm.pat.iter().map(|y| fresh.var("sc", y.ty)).collect();
        let between_ids = between.iter().map(|y| y.id).collect();
        let loc = stm.loc;
        let mut push = |pat: Vec<Var>, dest: Vec<VarId>, args: Vec<VarId>| {
            let width = fresh.var("n", Type::Scalar(ScalarType::I64));
            b.stms.push(Stm {
                pat: vec![width.clone()],
                exp: Exp::Size {
                    array: args[0],
                    dim: 0,
                },
                loc,
            });
            b.stms.push(Stm {
                pat,
                exp: Exp::Soac(Soac {
                    label: fresh.soac(),
                    width: Atom::Var(width.id),
                    kind: SoacKind::Scatter { dest },
                    args,
                    sequential: soac.sequential,
                }),
                loc,
            });
        };
        push(between, dest.clone(), first);
        push(stm.pat.clone(), between_ids, rest);
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
