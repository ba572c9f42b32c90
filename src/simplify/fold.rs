//! Forward rewriting in one walk: copy and constant propagation, constant
//! folding (with the interpreter's own scalar semantics, so folded values are
//! exactly what would have been computed), algebraic identities, integer
//! reassociation (index arithmetic), float rewrites under `--fast-math`
//! only, branch pruning, size forwarding, and the facts assertions give
//! (after `assert_eq_sizes a b`, `b` is `a`; after `assert c`, `c` is true;
//! inside `if c`, `c` is known).
//!
//! Nothing that can fail is folded away: a division by a constant zero and
//! an index out of range stay as they are.

use super::facts::same_atom;
use super::walk::{exp_atoms_mut, soac_lambda_mut};
use crate::core::ir::{
    Atom, BinOp, Body, Exp, Function, LoopForm, SoacKind, Stm, Type, UnOp, VarId,
};
use crate::interp::ops;
use crate::types::{Const, ScalarType};
use std::collections::HashMap;

/// Rewrites `f` in place; true if anything changed.
pub fn run(f: &mut Function, fast_math: bool) -> bool {
    let mut folder = Folder {
        fast_math,
        subst: HashMap::new(),
        undo: Vec::new(),
        defs: HashMap::new(),
        types: HashMap::new(),
        param_sizes: HashMap::new(),
        changed: false,
    };
    for p in &f.params {
        folder.types.insert(p.id, p.ty);
    }
    for sp in &f.size_params {
        folder.types.insert(sp.var.id, sp.var.ty);
        for &(p, d) in &sp.uses {
            if let Some(param) = f.params.get(p) {
                folder.param_sizes.entry((param.id, d)).or_insert(sp.var.id);
            }
        }
    }
    let body = std::mem::replace(&mut f.body, super::walk::empty_body());
    f.body = folder.body(body);
    folder.changed
}

/// How a variable was computed, for rewrites that look through it.
enum Def {
    Bin(BinOp, Atom, Atom),
    /// Reverse, rotate, update: the shape of this array.
    SameShape(VarId),
    Transposed(VarId),
    /// Unflatten: rows, columns, and the flat array.
    Unflat(Atom, Atom, VarId),
    Un(UnOp, Atom),
    Iota(Atom),
    Replicate(Atom, Atom),
    Lit(Vec<Atom>),
    /// A `map` or `scan` result: its outer size is the width.
    Produced(Atom),
}

struct Folder {
    fast_math: bool,
    /// Variables replaced by atoms (values already resolved).
    subst: HashMap<VarId, Atom>,
    /// Previous entries of `subst`, to undo on leaving a body.
    undo: Vec<(VarId, Option<Atom>)>,
    defs: HashMap<VarId, Def>,
    types: HashMap<VarId, Type>,
    /// `(parameter, dimension)` to the entry's size parameter.
    param_sizes: HashMap<(VarId, usize), VarId>,
    changed: bool,
}

impl Folder {
    fn resolve(&self, a: Atom) -> Atom {
        match a {
            Atom::Var(v) => self.subst.get(&v).copied().unwrap_or(a),
            c => c,
        }
    }

    /// Substitutes the atoms `exp` reads; a substitution that hits is a change.
    fn resolve_exp(&mut self, exp: &mut Exp) {
        let mut hit = false;
        exp_atoms_mut(exp, |a| {
            let r = self.resolve(*a);
            hit |= !same_atom(&r, a);
            *a = r;
        });
        self.changed |= hit;
    }

    fn bind(&mut self, v: VarId, a: Atom) {
        let a = self.resolve(a);
        if same_atom(&a, &Atom::Var(v)) {
            return;
        }
        let old = self.subst.insert(v, a);
        self.undo.push((v, old));
    }

    fn restore(&mut self, mark: usize) {
        while self.undo.len() > mark {
            if let Some((v, old)) = self.undo.pop() {
                match old {
                    Some(a) => self.subst.insert(v, a),
                    None => self.subst.remove(&v),
                };
            }
        }
    }

    fn elem_of(&self, a: &Atom) -> Option<ScalarType> {
        match a {
            Atom::Const(c) => Some(c.scalar_type()),
            Atom::Var(v) => self.types.get(v).map(|t| t.elem()),
        }
    }

    fn body(&mut self, body: Body) -> Body {
        let mark = self.undo.len();
        let mut out = Vec::with_capacity(body.stms.len());
        for stm in body.stms {
            self.stm(stm, &mut out);
        }
        let mut result = body.result;
        for a in &mut result {
            let r = self.resolve(*a);
            self.changed |= !same_atom(&r, a);
            *a = r;
        }
        self.restore(mark);
        Body { stms: out, result }
    }

    fn stm(&mut self, mut stm: Stm, out: &mut Vec<Stm>) {
        self.resolve_exp(&mut stm.exp);
        for p in &stm.pat {
            self.types.insert(p.id, p.ty);
        }
        match stm.exp {
            Exp::If {
                cond,
                then_body,
                else_body,
            } => self.branch(stm.pat, stm.loc, cond, then_body, else_body, out),
            Exp::Soac(mut soac) => {
                if let Some(lam) = soac_lambda_mut(&mut soac.kind) {
                    for p in &lam.params {
                        self.types.insert(p.id, p.ty);
                    }
                    let body = std::mem::replace(&mut lam.body, super::walk::empty_body());
                    lam.body = self.body(body);
                }
                let outer = match &soac.kind {
                    SoacKind::Map(_) | SoacKind::Scan { .. } | SoacKind::ScanRight { .. } => {
                        Some(soac.width)
                    }
                    SoacKind::Hist {
                        bins, dest: None, ..
                    } => Some(*bins),
                    _ => None,
                };
                if let Some(n) = outer {
                    for p in &stm.pat {
                        self.defs.insert(p.id, Def::Produced(n));
                    }
                }
                stm.exp = Exp::Soac(soac);
                out.push(stm);
            }
            Exp::Loop { params, form, body } => {
                // `for i < 0` runs no iteration: the results are the initial values.
                if let LoopForm::For {
                    bound: Atom::Const(c),
                    ..
                } = &form
                {
                    if c.as_i128() == Some(0) && stm.pat.len() == params.len() {
                        self.changed = true;
                        for (p, (_, init)) in stm.pat.iter().zip(&params) {
                            self.bind(p.id, *init);
                        }
                        return;
                    }
                }
                for (v, _) in &params {
                    self.types.insert(v.id, v.ty);
                }
                let form = match form {
                    LoopForm::For { index, bound } => {
                        self.types.insert(index.id, index.ty);
                        LoopForm::For { index, bound }
                    }
                    LoopForm::While { cond } => LoopForm::While {
                        cond: self.body(cond),
                    },
                };
                let body = self.body(body);
                stm.exp = Exp::Loop { params, form, body };
                out.push(stm);
            }
            Exp::AssertEqSizes(a, b) => {
                if same_atom(&a, &b) {
                    self.changed = true;
                    for p in &stm.pat {
                        self.bind(p.id, a);
                    }
                    return;
                }
                // Past this point the two sizes are one.
                match (a, b) {
                    (_, Atom::Var(v)) => self.bind(v, a),
                    (Atom::Var(v), Atom::Const(_)) => self.bind(v, b),
                    _ => {}
                }
                for p in &stm.pat {
                    self.bind(p.id, a);
                }
                out.push(stm);
            }
            Exp::Assert(c, _) => {
                if let Atom::Const(Const::Bool(true)) = c {
                    self.changed = true;
                    for p in &stm.pat {
                        self.bind(p.id, c);
                    }
                    return;
                }
                if let Atom::Var(v) = c {
                    self.bind(v, Atom::Const(Const::Bool(true)));
                }
                for p in &stm.pat {
                    self.bind(p.id, Atom::Const(Const::Bool(true)));
                }
                out.push(stm);
            }
            exp => {
                let exp = self.simplify_scalar(exp, &stm.pat);
                if let (Exp::Atom(a), [p]) = (&exp, stm.pat.as_slice()) {
                    self.changed = true;
                    self.bind(p.id, *a);
                    return;
                }
                if let [p] = stm.pat.as_slice() {
                    if let Some(def) = def_of(&exp) {
                        self.defs.insert(p.id, def);
                    }
                }
                stm.exp = exp;
                out.push(stm);
            }
        }
    }

    fn branch(
        &mut self,
        pat: Vec<crate::core::ir::Var>,
        loc: crate::core::ir::SrcLoc,
        cond: Atom,
        then_body: Body,
        else_body: Body,
        out: &mut Vec<Stm>,
    ) {
        // Branch pruning: the taken branch joins the enclosing body.
        if let Atom::Const(Const::Bool(taken)) = cond {
            self.changed = true;
            let body = if taken { then_body } else { else_body };
            for s in body.stms {
                self.stm(s, out);
            }
            for (p, r) in pat.iter().zip(body.result) {
                self.bind(p.id, r);
            }
            return;
        }
        // `if not c then a else b` is `if c then b else a`.
        if let Atom::Var(c) = cond {
            if let Some(Def::Un(UnOp::Not, inner)) = self.defs.get(&c) {
                let inner = self.resolve(*inner);
                self.changed = true;
                let exp = Exp::If {
                    cond: inner,
                    then_body: else_body,
                    else_body: then_body,
                };
                return self.stm(Stm { pat, exp, loc }, out);
            }
        }
        let known = |folder: &mut Folder, body: Body, value: bool| {
            let mark = folder.undo.len();
            if let Atom::Var(c) = cond {
                folder.bind(c, Atom::Const(Const::Bool(value)));
            }
            let body = folder.body(body);
            folder.restore(mark);
            body
        };
        let then_body = known(self, then_body, true);
        let else_body = known(self, else_body, false);
        let bound_inside = |b: &Body, a: &Atom| match a {
            Atom::Var(v) => b.stms.iter().any(|s| s.pat.iter().any(|p| p.id == *v)),
            Atom::Const(_) => false,
        };
        for (i, p) in pat.iter().enumerate() {
            let (Some(t), Some(e)) = (then_body.result.get(i), else_body.result.get(i)) else {
                continue;
            };
            // The rewritten reads are the change (the `if` may have to stay).
            if same_atom(t, e) && !bound_inside(&then_body, t) && !bound_inside(&else_body, e) {
                self.bind(p.id, *t);
            } else if let (Atom::Const(Const::Bool(true)), Atom::Const(Const::Bool(false))) = (t, e)
            {
                self.bind(p.id, cond);
            }
        }
        // A boolean `if c then false else true` is `not c`.
        if let ([p], true, true) = (
            pat.as_slice(),
            then_body.stms.is_empty(),
            else_body.stms.is_empty(),
        ) {
            if let ([Atom::Const(Const::Bool(false))], [Atom::Const(Const::Bool(true))]) =
                (then_body.result.as_slice(), else_body.result.as_slice())
            {
                self.changed = true;
                self.defs.insert(p.id, Def::Un(UnOp::Not, cond));
                let exp = Exp::UnOp(UnOp::Not, cond);
                out.push(Stm { pat, exp, loc });
                return;
            }
        }
        // `c || e` and `c && e` (lowered as `if c then true else e`, `if c
        // then e else false`) where `e` is a few comparisons and logic that
        // cannot fail: both sides computed, one `or`/`and`. A branch per
        // `||` kept the tie-breaking operator of an argmin by `reduce` on
        // (value, index) pairs from becoming selects that vectorise.
        if let ([p], Some(op)) = (pat.as_slice(), strict_logic(&then_body, &else_body)) {
            let (short, rest) = if op == BinOp::Or {
                (then_body, else_body)
            } else {
                (else_body, then_body)
            };
            drop(short);
            self.changed = true;
            out.extend(rest.stms);
            let exp = Exp::BinOp(op, cond, rest.result[0]);
            self.defs.insert(p.id, Def::Bin(op, cond, rest.result[0]));
            out.push(Stm { pat, exp, loc });
            return;
        }
        let exp = Exp::If {
            cond,
            then_body,
            else_body,
        };
        out.push(Stm { pat, exp, loc });
    }

    /// Rewrites a statement's expression until no rule applies (bounded).
    fn simplify_scalar(&mut self, mut exp: Exp, pat: &[crate::core::ir::Var]) -> Exp {
        for _ in 0..8 {
            self.resolve_exp(&mut exp);
            let next = match &exp {
                Exp::BinOp(op, a, b) => self.binop(*op, *a, *b),
                Exp::UnOp(op, a) => self.unop(*op, *a),
                Exp::Convert(t, a) => match a {
                    Atom::Const(c) => Some(Exp::Atom(Atom::Const(ops::convert(*t, *c)))),
                    _ if self.elem_of(a) == Some(*t) => Some(Exp::Atom(*a)),
                    _ => None,
                },
                Exp::Size { array, dim } => self.size(*array, *dim),
                Exp::Index { array, indices, .. } => self.index(*array, indices, pat),
                _ => None,
            };
            match next {
                Some(e) if e != exp => {
                    self.changed = true;
                    exp = e;
                    if matches!(exp, Exp::Atom(_)) {
                        break;
                    }
                }
                _ => break,
            }
        }
        exp
    }

    fn size(&self, array: VarId, dim: usize) -> Option<Exp> {
        if let Some(n) = self.param_sizes.get(&(array, dim)) {
            return Some(Exp::Atom(Atom::Var(*n)));
        }
        match (self.defs.get(&array)?, dim) {
            (Def::Iota(n) | Def::Replicate(n, _) | Def::Produced(n), 0) => {
                Some(Exp::Atom(self.resolve(*n)))
            }
            (Def::Lit(items), 0) => Some(Exp::Atom(Atom::Const(Const::I64(items.len() as i64)))),
            (Def::Replicate(_, Atom::Var(v)), d) => Some(Exp::Size {
                array: *v,
                dim: d - 1,
            }),
            (Def::SameShape(a), d) => Some(Exp::Size { array: *a, dim: d }),
            (Def::Transposed(a), d) => Some(Exp::Size {
                array: *a,
                dim: match d {
                    0 => 1,
                    1 => 0,
                    d => d,
                },
            }),
            (Def::Unflat(rows, _, _), 0) => Some(Exp::Atom(self.resolve(*rows))),
            (Def::Unflat(_, cols, _), 1) => Some(Exp::Atom(self.resolve(*cols))),
            (Def::Unflat(_, _, a), d) => Some(Exp::Size {
                array: *a,
                dim: d - 1,
            }),
            _ => None,
        }
    }

    /// Indexing with constants into arrays whose elements are known; out of
    /// range stays (it must fail at run time).
    fn index(&self, array: VarId, indices: &[Atom], pat: &[crate::core::ir::Var]) -> Option<Exp> {
        if indices.is_empty() {
            return Some(Exp::Atom(Atom::Var(array)));
        }
        let [Atom::Const(i)] = indices else {
            return None;
        };
        let i = i.as_i128()?;
        let in_range = |n: &Atom| match n {
            Atom::Const(c) => c.as_i128().is_some_and(|n| 0 <= i && i < n),
            Atom::Var(_) => false,
        };
        match self.defs.get(&array)? {
            Def::Iota(n) if in_range(n) => {
                let t = pat.first().map(|p| p.ty.elem()).unwrap_or(ScalarType::I64);
                Some(Exp::Atom(Atom::Const(Const::int_wrapping(t, i))))
            }
            Def::Replicate(n, v) if in_range(n) => Some(Exp::Atom(*v)),
            Def::Lit(items) => {
                let n = Atom::Const(Const::I64(items.len() as i64));
                let item = items.get(usize::try_from(i).ok()?)?;
                in_range(&n).then_some(Exp::Atom(*item))
            }
            _ => None,
        }
    }

    fn unop(&self, op: UnOp, a: Atom) -> Option<Exp> {
        if let Atom::Const(c) = a {
            return ops::unop(op, c).ok().map(|c| Exp::Atom(Atom::Const(c)));
        }
        let t = self.elem_of(&a)?;
        let def = match a {
            Atom::Var(v) => self.defs.get(&v),
            Atom::Const(_) => None,
        };
        match (op, def) {
            (UnOp::Neg, Some(Def::Un(UnOp::Neg, x))) | (UnOp::Not, Some(Def::Un(UnOp::Not, x))) => {
                Some(Exp::Atom(*x))
            }
            (UnOp::Not, Some(Def::Bin(cmp, x, y))) if cmp.is_comparison() => {
                let float = self.elem_of(x).is_none_or(|t| t.is_float());
                let inverse = match cmp {
                    BinOp::Eq => BinOp::Neq,
                    BinOp::Neq => BinOp::Eq,
                    _ if float => return None,
                    BinOp::Lt => BinOp::Ge,
                    BinOp::Ge => BinOp::Lt,
                    BinOp::Gt => BinOp::Le,
                    BinOp::Le => BinOp::Gt,
                    _ => return None,
                };
                Some(Exp::BinOp(inverse, *x, *y))
            }
            (UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc, _) if t.is_int() => {
                Some(Exp::Atom(a))
            }
            (UnOp::Abs, Some(Def::Un(UnOp::Abs, _))) if t.is_float() => Some(Exp::Atom(a)),
            _ => None,
        }
    }

    fn binop(&self, op: BinOp, a: Atom, b: Atom) -> Option<Exp> {
        if let (Atom::Const(x), Atom::Const(y)) = (a, b) {
            // A trapping operation stays, to fail at run time.
            return ops::binop(op, x, y).ok().map(|c| Exp::Atom(Atom::Const(c)));
        }
        let t = self.elem_of(&a).or_else(|| self.elem_of(&b))?;
        // Constants go right, so that rules and CSE see one form.
        if let (Atom::Const(_), Atom::Var(_)) = (a, b) {
            let swapped = match op {
                BinOp::Min | BinOp::Max if t.is_float() => None,
                BinOp::Lt => Some(BinOp::Gt),
                BinOp::Gt => Some(BinOp::Lt),
                BinOp::Le => Some(BinOp::Ge),
                BinOp::Ge => Some(BinOp::Le),
                o if o.is_commutative() => Some(o),
                _ => None,
            };
            if let Some(o) = swapped {
                return Some(Exp::BinOp(o, b, a));
            }
        }
        if t.is_int() {
            self.int_binop(op, a, b, t)
        } else if t == ScalarType::Bool {
            bool_binop(op, a, b)
        } else {
            self.float_binop(op, a, b, t)
        }
    }

    fn int_binop(&self, op: BinOp, a: Atom, b: Atom, t: ScalarType) -> Option<Exp> {
        let is = |x: &Atom, v: i128| match x {
            Atom::Const(c) => c.as_i128() == Some(v) || (v == -1 && all_ones(*c)),
            Atom::Var(_) => false,
        };
        let same = same_atom(&a, &b);
        let zero = Exp::Atom(Atom::Const(Const::int_wrapping(t, 0)));
        let one = Exp::Atom(Atom::Const(Const::int_wrapping(t, 1)));
        let yes = Exp::Atom(Atom::Const(Const::Bool(true)));
        let no = Exp::Atom(Atom::Const(Const::Bool(false)));
        let rewritten = match op {
            BinOp::Add | BinOp::Sub if is(&b, 0) => Some(Exp::Atom(a)),
            BinOp::Sub if same => Some(zero),
            BinOp::Mul | BinOp::Div | BinOp::Quot if is(&b, 1) => Some(Exp::Atom(a)),
            BinOp::Mul if is(&b, 0) => Some(zero),
            BinOp::Mod | BinOp::Rem if is(&b, 1) || (t.is_signed() && is(&b, -1)) => Some(zero),
            BinOp::And | BinOp::Or | BinOp::Min | BinOp::Max if same => Some(Exp::Atom(a)),
            BinOp::And if is(&b, 0) => Some(zero),
            BinOp::And if is(&b, -1) => Some(Exp::Atom(a)),
            BinOp::Or | BinOp::Xor if is(&b, 0) => Some(Exp::Atom(a)),
            BinOp::Or if is(&b, -1) => Some(Exp::Atom(b)),
            BinOp::Xor if same => Some(zero),
            BinOp::Eq | BinOp::Le | BinOp::Ge if same => Some(yes),
            BinOp::Neq | BinOp::Lt | BinOp::Gt if same => Some(no),
            BinOp::Shl | BinOp::Shr | BinOp::UShr if is(&b, 0) => Some(Exp::Atom(a)),
            BinOp::Shl | BinOp::Shr | BinOp::UShr if is(&a, 0) => Some(zero),
            BinOp::Pow if is(&b, 0) => Some(one),
            BinOp::Pow if is(&b, 1) => Some(Exp::Atom(a)),
            _ => None,
        };
        if rewritten.is_some() {
            return rewritten;
        }
        match op {
            BinOp::Add | BinOp::Sub => self.linear(op, a, b, t),
            BinOp::Mul => {
                // (y * c1) * c2 = y * (c1 * c2): exact, integers wrap.
                let (Atom::Var(x), Atom::Const(c2)) = (a, b) else {
                    return None;
                };
                let Some(Def::Bin(BinOp::Mul, y, Atom::Const(c1))) = self.defs.get(&x) else {
                    return None;
                };
                let c = ops::binop(BinOp::Mul, *c1, c2).ok()?;
                Some(Exp::BinOp(BinOp::Mul, *y, Atom::Const(c)))
            }
            _ => None,
        }
    }

    /// An integer atom as a sum of `±x` terms and a constant `k`, looking
    /// through one addition, subtraction or negation of variables and
    /// constants.
    fn split(&self, a: Atom, t: ScalarType) -> (Vec<(bool, Atom)>, Const) {
        let zero = Const::int_wrapping(t, 0);
        let Atom::Var(v) = a else {
            return (
                Vec::new(),
                match a {
                    Atom::Const(c) => c,
                    Atom::Var(_) => zero,
                },
            );
        };
        let neg = |c: Const| ops::binop(BinOp::Sub, zero, c).unwrap_or(zero);
        match self.defs.get(&v) {
            Some(Def::Bin(BinOp::Add, y @ Atom::Var(_), Atom::Const(c))) => (vec![(false, *y)], *c),
            Some(Def::Bin(BinOp::Sub, y @ Atom::Var(_), Atom::Const(c))) => {
                (vec![(false, *y)], neg(*c))
            }
            Some(Def::Bin(BinOp::Sub, Atom::Const(c), y @ Atom::Var(_))) => (vec![(true, *y)], *c),
            Some(Def::Un(UnOp::Neg, y @ Atom::Var(_))) => (vec![(true, *y)], zero),
            Some(Def::Bin(op @ (BinOp::Add | BinOp::Sub), y @ Atom::Var(_), z @ Atom::Var(_))) => {
                (vec![(false, *y), (*op == BinOp::Sub, *z)], zero)
            }
            _ => (vec![(false, a)], zero),
        }
    }

    /// Sums and differences of `±x + k` terms: constants combine, opposite
    /// terms cancel (`(x + 1) - x = 1`, `(n - 1) + 1 = n`,
    /// `(i + k) - i = k`).
    fn linear(&self, op: BinOp, a: Atom, b: Atom, t: ScalarType) -> Option<Exp> {
        let (ta, ka) = self.split(a, t);
        let (tb, kb) = self.split(b, t);
        let minus = op == BinOp::Sub;
        let k = ops::binop(op, ka, kb).ok()?;
        let mut terms = ta;
        for (neg, x) in tb {
            let neg = neg != minus;
            match terms
                .iter()
                .position(|(n, y)| *n != neg && same_atom(y, &x))
            {
                Some(i) => {
                    terms.remove(i);
                }
                None => terms.push((neg, x)),
            }
        }
        let k_is_zero = k.as_i128() == Some(0);
        let kc = Atom::Const(k);
        let zero = Const::int_wrapping(t, 0);
        let candidate = match terms.as_slice() {
            [] => Exp::Atom(kc),
            [(false, y)] if k_is_zero => Exp::Atom(*y),
            [(false, y)] => {
                // Print `x - 1` rather than `x + 4294967295` on unsigned.
                let negk = ops::binop(BinOp::Sub, zero, k).ok()?;
                let mask = if t.bits() == 64 {
                    u64::MAX
                } else {
                    (1u64 << t.bits()) - 1
                };
                let bits = |c: Const| super::facts::const_bits(c) & mask;
                if bits(negk) < bits(k) {
                    Exp::BinOp(BinOp::Sub, *y, Atom::Const(negk))
                } else {
                    Exp::BinOp(BinOp::Add, *y, kc)
                }
            }
            [(true, y)] if k_is_zero => Exp::UnOp(UnOp::Neg, *y),
            [(true, y)] => Exp::BinOp(BinOp::Sub, kc, *y),
            [(false, y), (false, z)] if k_is_zero => Exp::BinOp(BinOp::Add, *y, *z),
            [(false, y), (true, z)] | [(true, z), (false, y)] if k_is_zero => {
                Exp::BinOp(BinOp::Sub, *y, *z)
            }
            _ => return None,
        };
        Some(candidate)
    }

    fn float_binop(&self, op: BinOp, a: Atom, b: Atom, t: ScalarType) -> Option<Exp> {
        let is = |x: &Atom, v: f64, neg_zero: bool| match x {
            Atom::Const(c) => {
                let f = c.as_f64();
                f == v && (v != 0.0 || f.is_sign_negative() == neg_zero)
            }
            Atom::Var(_) => false,
        };
        // Exact in IEEE 754 for every x, NaN and -0.0 included.
        match op {
            BinOp::Mul | BinOp::Div if is(&b, 1.0, false) => return Some(Exp::Atom(a)),
            BinOp::Sub if is(&b, 0.0, false) => return Some(Exp::Atom(a)),
            BinOp::Add if is(&b, 0.0, true) => return Some(Exp::Atom(a)),
            _ => {}
        }
        if !self.fast_math {
            return None;
        }
        let zero = Exp::Atom(Atom::Const(Const::int_wrapping(t, 0)));
        match op {
            BinOp::Add | BinOp::Sub if is(&b, 0.0, false) || is(&b, 0.0, true) => {
                return Some(Exp::Atom(a))
            }
            BinOp::Sub if same_atom(&a, &b) => return Some(zero),
            BinOp::Mul if is(&b, 0.0, false) || is(&b, 0.0, true) => return Some(zero),
            _ => {}
        }
        // Reassociation: (y op c1) op c2 = y op (c1 op c2) for + and *.
        let (Atom::Var(x), Atom::Const(c2)) = (a, b) else {
            return None;
        };
        if !matches!(op, BinOp::Add | BinOp::Mul) {
            return None;
        }
        match self.defs.get(&x) {
            Some(Def::Bin(inner, y, Atom::Const(c1))) if *inner == op => {
                let c = ops::binop(op, *c1, c2).ok()?;
                Some(Exp::BinOp(op, *y, Atom::Const(c)))
            }
            _ => None,
        }
    }
}

fn all_ones(c: Const) -> bool {
    match c {
        Const::U8(v) => v == u8::MAX,
        Const::U16(v) => v == u16::MAX,
        Const::U32(v) => v == u32::MAX,
        Const::U64(v) => v == u64::MAX,
        other => other.scalar_type().is_signed() && other.as_i128() == Some(-1),
    }
}

fn bool_binop(op: BinOp, a: Atom, b: Atom) -> Option<Exp> {
    let same = same_atom(&a, &b);
    let cb = match b {
        Atom::Const(Const::Bool(v)) => Some(v),
        _ => None,
    };
    let k = |v: bool| Some(Exp::Atom(Atom::Const(Const::Bool(v))));
    match (op, cb) {
        (BinOp::And | BinOp::Or | BinOp::Min | BinOp::Max, _) if same => Some(Exp::Atom(a)),
        (BinOp::And | BinOp::Min, Some(true)) | (BinOp::Or | BinOp::Max, Some(false)) => {
            Some(Exp::Atom(a))
        }
        (BinOp::And | BinOp::Min, Some(false)) => k(false),
        (BinOp::Or | BinOp::Max, Some(true)) => k(true),
        (BinOp::Xor | BinOp::Neq, _) if same => k(false),
        (BinOp::Eq | BinOp::Le | BinOp::Ge, _) if same => k(true),
        (BinOp::Lt | BinOp::Gt, _) if same => k(false),
        (BinOp::Xor | BinOp::Neq, Some(false)) | (BinOp::Eq, Some(true)) => Some(Exp::Atom(a)),
        (BinOp::Xor | BinOp::Neq, Some(true)) | (BinOp::Eq, Some(false)) => {
            Some(Exp::UnOp(UnOp::Not, a))
        }
        _ => None,
    }
}

fn def_of(exp: &Exp) -> Option<Def> {
    Some(match exp {
        Exp::BinOp(op, a, b) => Def::Bin(*op, *a, *b),
        Exp::UnOp(op, a) => Def::Un(*op, *a),
        Exp::Iota(n) => Def::Iota(*n),
        Exp::Replicate { count, value } => Def::Replicate(*count, *value),
        Exp::ArrayLit { elem, items } if elem.rank() == 0 => Def::Lit(items.clone()),
        Exp::Reverse(a) | Exp::Rotate { array: a, .. } | Exp::Update { array: a, .. } => {
            Def::SameShape(*a)
        }
        Exp::Transpose(a) => Def::Transposed(*a),
        Exp::Unflatten { array, rows, cols } => Def::Unflat(*rows, *cols, *array),
        _ => return None,
    })
}

/// `Or` for the branches of `if c then true else e`, `And` for those of `if
/// c then e else false`, where `e`'s statements (at most a few) are
/// comparisons, `and`/`or`/`xor` and `not` of scalars: cheap, and none
/// can fail, so computing `e` when `c` decides alone changes nothing.
fn strict_logic(then_body: &Body, else_body: &Body) -> Option<BinOp> {
    const MAX_STMS: usize = 4;
    let is_const = |b: &Body, v: bool| {
        b.stms.is_empty() && matches!(b.result.as_slice(), [Atom::Const(Const::Bool(x))] if *x == v)
    };
    let cheap = |b: &Body| {
        b.result.len() == 1
            && b.stms.len() <= MAX_STMS
            && b.stms.iter().all(|s| {
                s.pat.len() == 1
                    && match &s.exp {
                        Exp::BinOp(op, _, _) => {
                            op.is_comparison() || matches!(op, BinOp::And | BinOp::Or | BinOp::Xor)
                        }
                        Exp::UnOp(UnOp::Not, _) => true,
                        _ => false,
                    }
            })
    };
    if is_const(then_body, true) && cheap(else_body) {
        Some(BinOp::Or)
    } else if is_const(else_body, false) && cheap(then_body) {
        Some(BinOp::And)
    } else {
        None
    }
}
