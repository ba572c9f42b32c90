//! Recognises a selection reduction, the argmax and argmin by `reduce` on
//! (value, index) pairs: a `loopy::ir::LoopNest` in, whether its one
//! reduction picks, of the accumulator `(a, i)` and the element `(b, j)`
//! (`j` the nest's index), the one with the greater (or smaller) value, the
//! smaller (or greater) index among equal values, and keeps the
//! accumulator when the values are unordered (NaN):
//!
//! ```text
//! \(a, i) (b, j) -> if b > a || (b == a && j < i) then (b, j) else (a, i)
//! ```
//!
//! written with `<`, `>=`, `!`, nested `if`s, either branch order or either
//! pair order. Such an operator is commutative as well as associative on
//! what a reduction combines (the element of greatest value and first
//! index; NaN elements are only ever the right operand, which it skips),
//! so the code generator may run the nest's iterations in interleaved lanes
//! (`LoopShape::Strided`), which vectorise.
//!
//! The proof: the body and the operator may use the two values only in
//! comparisons with each other, the two indices likewise, and the
//! comparisons' results only in logic and in the conditions of `if`s that
//! return the pair whole. Their result then depends only on how the values
//! compare (less, equal, greater, unordered) and how the indices do (less,
//! equal, greater), and all twelve cases are evaluated here.
//!
//! Only the cases a run can meet must agree with the order, since floats'
//! comparisons are not a total order and a nested spelling's last test
//! (`.. else if j < i then (b, j) else (a, i)`) is reached by a NaN
//! element. The body's accumulator holds the neutral pair or an earlier
//! iteration's (pairs are picked whole; every lane and chunk counts up from
//! 0 from the neutral pair), so with a neutral index below 0 its index is
//! below the element's, and with 0 not above it: the body's other index
//! cases cannot happen, and there the NaN element is skipped. The
//! operator combines lanes' and chunks' results, none of which is a NaN
//! unless the neutral value is, and then every one is the neutral pair:
//! its unordered cases cannot happen, or combine a pair with itself.
//!
//! `flatten_picks` then makes such a nest's `if`s on the pairs selects:
//! nested `if`s (`if b < a then .. else if a < b then .. else ..`) become
//! their branches' comparisons, all computed, and `if`s with empty
//! branches, which LLVM turns into selects that SLP packs into vectors as
//! it does the `||` spelling's one select.

use super::ir::{Block, LoopNest, ScalarExp, Stmt};
use crate::core::ir::{Atom, BinOp, Type, UnOp, VarId};
use crate::types::{Const, ScalarType};
use std::cmp::Ordering;
use std::collections::HashMap;

/// The accumulator's side of the operator, or the element's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Acc,
    Elem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Abs {
    Value(Side),
    Index(Side),
    Bool(bool),
}

/// One case: how the accumulator's value compares with the element's
/// (`None`: unordered) and how its index does.
#[derive(Clone, Copy)]
struct Case {
    values: Option<Ordering>,
    indices: Ordering,
}

/// Whether `nest` is one selection reduction that may run in interleaved
/// lanes (see the module comment): nothing else carried, and no iteration
/// that can fail or write.
pub fn strided_selection(nest: &LoopNest) -> bool {
    let [red] = nest.reductions.as_slice() else {
        return false;
    };
    if !nest.scans.is_empty()
        || !nest.compactions.is_empty()
        || !nest.hists.is_empty()
        || !nest.scatters.is_empty()
        || nest.index.ty != Type::Scalar(ScalarType::I64)
        || red.carried.len() != 2
        || red.op.params.len() != 4
    {
        return false;
    }
    (0..2).any(|value| {
        let index = 1 - value;
        let (vty, ity) = (red.carried[value].var.ty, red.carried[index].var.ty);
        let numeric = match vty {
            Type::Scalar(t) => t != ScalarType::Bool,
            _ => false,
        };
        if !numeric || ity != Type::Scalar(ScalarType::I64) {
            return false;
        }
        let float = matches!(vty, Type::Scalar(ScalarType::F32 | ScalarType::F64));
        let mut body_env = HashMap::new();
        body_env.insert(red.carried[value].var.id, Abs::Value(Side::Acc));
        body_env.insert(red.carried[index].var.id, Abs::Index(Side::Acc));
        body_env.insert(nest.index.id, Abs::Index(Side::Elem));
        let body_nexts = [red.carried[value].next, red.carried[index].next];
        let body = table(
            &body_env,
            Some(nest.index.id),
            &nest.body,
            &body_nexts,
            vty,
            true,
            float,
        );
        let p = &red.op.params;
        let mut op_env = HashMap::new();
        op_env.insert(p[value].id, Abs::Value(Side::Acc));
        op_env.insert(p[index].id, Abs::Index(Side::Acc));
        op_env.insert(p[2 + value].id, Abs::Value(Side::Elem));
        op_env.insert(p[2 + index].id, Abs::Index(Side::Elem));
        let op_results = [red.op.results[value], red.op.results[index]];
        let op = table(&op_env, None, &red.op.body, &op_results, vty, false, float);
        // Equal values and indices are the same pair unless floats differ in
        // the sign of zero, and one index is an element's only where the
        // neutral's could be (a constant below 0 cannot).
        let init = neutral_index(&red.carried[index].init);
        let same_pair = !float || init.is_some_and(|c| c < 0);
        // The body meets only the cases a sequential run can: its
        // accumulator holds the neutral pair or an earlier element's, so
        // its index is below the element's when the neutral's is below 0
        // (iterations count from 0), and not above it when that is 0.
        let body_meets = |c: &Case| match init {
            Some(x) if x < 0 => c.indices == Ordering::Less,
            Some(0) => c.indices != Ordering::Greater,
            _ => true,
        };
        // The operator combines lanes' (and chunks') results, which hold
        // no NaN: the body never takes an unordered element into an
        // ordered accumulator, so a NaN is only ever a NaN neutral value,
        // which every lane then keeps, and the operator combines that pair
        // with itself, where either pick is right.
        let op_meets = |c: &Case| c.values.is_some();
        match (body, op) {
            (Some(b), Some(o)) => orders().any(|order| {
                lexicographic(order, &b, float, same_pair, &body_meets)
                    && lexicographic(order, &o, float, same_pair, &op_meets)
            }),
            _ => false,
        }
    })
}

/// The neutral index when it is a constant.
fn neutral_index(init: &Atom) -> Option<i64> {
    match init {
        Atom::Const(Const::I64(x)) => Some(*x),
        _ => None,
    }
}

/// Makes the `if`s of a selection reduction's body and operator (one that
/// `strided_selection` accepts) branch-free: every `if` whose branches
/// are only lets that cannot fail (comparisons and logic on the pairs,
/// after their own `if`s are flattened) has its branches' lets moved
/// before it, so that it only picks between atoms.
pub fn flatten_picks(nest: &mut LoopNest) {
    flatten(&mut nest.body);
    for red in &mut nest.reductions {
        flatten(&mut red.op.body);
    }
}

fn flatten(block: &mut Block) {
    let mut out = Vec::with_capacity(block.len());
    for mut stmt in std::mem::take(block) {
        if let Stmt::If {
            then_block,
            else_block,
            ..
        } = &mut stmt
        {
            flatten(then_block);
            flatten(else_block);
            let speculable = |b: &Block| {
                b.iter().all(|s| match s {
                    Stmt::Let { exp, .. } => !exp.may_fail(),
                    Stmt::If {
                        then_block,
                        else_block,
                        ..
                    } => then_block.is_empty() && else_block.is_empty(),
                    _ => false,
                })
            };
            if speculable(then_block) && speculable(else_block) {
                out.append(then_block);
                out.append(else_block);
            }
        }
        out.push(stmt);
    }
    *block = out;
}

/// The cases in a fixed order (unordered values last, floats only).
fn cases(float: bool) -> Vec<Case> {
    let mut out = Vec::new();
    let values = [
        Some(Ordering::Less),
        Some(Ordering::Equal),
        Some(Ordering::Greater),
        None,
    ];
    for v in values.into_iter().take(if float { 4 } else { 3 }) {
        for i in [Ordering::Less, Ordering::Equal, Ordering::Greater] {
            out.push(Case {
                values: v,
                indices: i,
            });
        }
    }
    out
}

/// The orders a selection may pick by (the better value's and index's
/// side of `Ordering`, the accumulator's compared with the element's):
/// values greater or smaller first, then indices smaller or greater.
fn orders() -> impl Iterator<Item = (Ordering, Ordering)> {
    [Ordering::Less, Ordering::Greater]
        .into_iter()
        .flat_map(|v| [(v, Ordering::Greater), (v, Ordering::Less)])
}

/// Whether `picks` (true: the element) are those of `order` in every case
/// that `meets`: the accumulator kept on unordered values, and on equal
/// values and indices unless `same_pair` (either is then right).
fn lexicographic(
    (better_value, better_index): (Ordering, Ordering),
    picks: &[bool],
    float: bool,
    same_pair: bool,
    meets: &dyn Fn(&Case) -> bool,
) -> bool {
    cases(float).iter().zip(picks).all(|(c, &pick)| {
        let equal = c.values == Some(Ordering::Equal);
        if !meets(c) || (same_pair && equal && c.indices == Ordering::Equal) {
            return true;
        }
        let elem = c.values == Some(better_value) || (equal && c.indices == better_index);
        pick == elem
    })
}

/// Per case, whether `block` (evaluated in `env`, `nest_index` the body's
/// index) gives the element's pair
/// as `results`; `None` where it uses the pair otherwise or gives a mix.
/// With `elements`, statements that use neither pair (reads without a
/// check, lets that cannot fail) compute the element's value, which is the
/// one variable of type `vty` compared with the accumulator's.
fn table(
    env: &HashMap<VarId, Abs>,
    nest_index: Option<VarId>,
    block: &Block,
    results: &[Atom; 2],
    vty: Type,
    elements: bool,
    float: bool,
) -> Option<Vec<bool>> {
    cases(float)
        .into_iter()
        .map(|case| {
            let mut ev = Eval {
                env: env.clone(),
                case,
                vty,
                elements,
                opaque: HashMap::new(),
                elem_value: None,
                nest_index,
            };
            ev.block(block, true)?;
            match (ev.atom(&results[0])?, ev.atom(&results[1])?) {
                (Abs::Value(a), Abs::Index(b)) if a == b => Some(a == Side::Elem),
                _ => None,
            }
        })
        .collect()
}

struct Eval {
    env: HashMap<VarId, Abs>,
    case: Case,
    vty: Type,
    elements: bool,
    /// Variables computed from neither pair, with their types.
    opaque: HashMap<VarId, Type>,
    /// The element's value, once a comparison names it.
    elem_value: Option<VarId>,
    /// The nest's index, in the body.
    nest_index: Option<VarId>,
}

impl Eval {
    fn atom(&mut self, a: &Atom) -> Option<Abs> {
        match a {
            Atom::Const(Const::Bool(b)) => Some(Abs::Bool(*b)),
            Atom::Const(_) => None,
            Atom::Var(v) => {
                if let Some(x) = self.env.get(v) {
                    return Some(*x);
                }
                if self.opaque.get(v) != Some(&self.vty) {
                    return None;
                }
                match self.elem_value {
                    None => self.elem_value = Some(*v),
                    Some(e) if e != *v => return None,
                    Some(_) => {}
                }
                Some(Abs::Value(Side::Elem))
            }
        }
    }

    /// Whether any of `atoms` is of the pairs, the nest's index aside
    /// (which the element's value may be computed from).
    fn uses_pairs(&self, atoms: &[&Atom]) -> bool {
        atoms.iter().any(|a| match a {
            Atom::Var(v) if Some(*v) == self.nest_index => false,
            Atom::Var(v) => self.env.contains_key(v) || self.elem_value == Some(*v),
            Atom::Const(_) => false,
        })
    }

    fn compare(&self, op: BinOp, x: Abs, y: Abs) -> Option<bool> {
        let ord = match (x, y) {
            (Abs::Value(p), Abs::Value(q)) if p != q => {
                let acc_vs_elem = self.case.values;
                if p == Side::Acc {
                    acc_vs_elem
                } else {
                    acc_vs_elem.map(Ordering::reverse)
                }
            }
            (Abs::Index(p), Abs::Index(q)) if p != q => {
                let acc_vs_elem = self.case.indices;
                Some(if p == Side::Acc {
                    acc_vs_elem
                } else {
                    acc_vs_elem.reverse()
                })
            }
            (Abs::Bool(p), Abs::Bool(q)) => Some(p.cmp(&q)),
            _ => return None,
        };
        Some(match (op, ord) {
            (BinOp::Neq, None) => true,
            (_, None) => false,
            (BinOp::Eq, Some(o)) => o == Ordering::Equal,
            (BinOp::Neq, Some(o)) => o != Ordering::Equal,
            (BinOp::Lt, Some(o)) => o == Ordering::Less,
            (BinOp::Le, Some(o)) => o != Ordering::Greater,
            (BinOp::Gt, Some(o)) => o == Ordering::Greater,
            (BinOp::Ge, Some(o)) => o != Ordering::Less,
            _ => return None,
        })
    }

    /// Evaluates `block`; `top` where statements that use neither pair
    /// may compute the element (not inside a branch on the pairs).
    fn block(&mut self, block: &Block, top: bool) -> Option<()> {
        for stmt in block {
            match stmt {
                Stmt::Let { var, exp, .. } => {
                    let value = match exp {
                        ScalarExp::Atom(a) if self.uses_pairs(&[a]) => self.atom(a)?,
                        ScalarExp::BinOp(op, a, b) if self.uses_pairs(&[a, b]) => {
                            let (x, y) = (self.atom(a)?, self.atom(b)?);
                            match (op, x, y) {
                                (BinOp::And, Abs::Bool(p), Abs::Bool(q)) => Abs::Bool(p && q),
                                (BinOp::Or, Abs::Bool(p), Abs::Bool(q)) => Abs::Bool(p || q),
                                (BinOp::Xor, Abs::Bool(p), Abs::Bool(q)) => Abs::Bool(p != q),
                                _ if op.is_comparison() => Abs::Bool(self.compare(*op, x, y)?),
                                _ => return None,
                            }
                        }
                        ScalarExp::UnOp(UnOp::Not, a) if self.uses_pairs(&[a]) => {
                            match self.atom(a)? {
                                Abs::Bool(p) => Abs::Bool(!p),
                                _ => return None,
                            }
                        }
                        _ if self.uses_pairs(&exp_atoms(exp)) => return None,
                        _ if top && self.elements && !exp.may_fail() => {
                            self.opaque.insert(var.id, var.ty);
                            continue;
                        }
                        _ => return None,
                    };
                    self.env.insert(var.id, value);
                }
                Stmt::Read {
                    var,
                    index,
                    check: None,
                    ..
                } if top
                    && self.elements
                    && !self.uses_pairs(&index.iter().collect::<Vec<_>>()) =>
                {
                    self.opaque.insert(var.id, var.ty);
                }
                Stmt::If {
                    results,
                    cond,
                    then_block,
                    then_results,
                    else_block,
                    else_results,
                } => {
                    let Abs::Bool(taken) = self.atom(cond)? else {
                        return None;
                    };
                    let (b, rs) = if taken {
                        (then_block, then_results)
                    } else {
                        (else_block, else_results)
                    };
                    self.block(b, false)?;
                    for (r, a) in results.iter().zip(rs) {
                        let value = self.atom(a)?;
                        self.env.insert(r.id, value);
                    }
                }
                _ => return None,
            }
        }
        Some(())
    }
}

fn exp_atoms(exp: &ScalarExp) -> Vec<&Atom> {
    match exp {
        ScalarExp::Atom(a) | ScalarExp::UnOp(_, a) | ScalarExp::Convert(_, a) => vec![a],
        ScalarExp::BinOp(_, a, b) => vec![a, b],
        ScalarExp::Fma(a, b, c) => vec![a, b, c],
    }
}
