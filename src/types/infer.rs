//! Unification with constrained type variables.
//!
//! A variable may be restricted to a set of scalar types (a bit mask): an
//! unsuffixed integer literal is restricted to the numeric types, a float
//! literal to `f32`/`f64`, the operand of `&` to the integers. Unifying two
//! restricted variables intersects their sets; defaults (`i32`, then `f64`)
//! are applied only when a whole definition has been checked.
//!
//! A variable may also be known to be a sum type with at least some
//! constructors (`#some x` was built or matched on it); once nothing else
//! says which sum type, it is the one with exactly those constructors.

use super::scalar::ScalarType;
use super::ty::{TyVar, Type};

pub type Mask = u16;

pub const fn bit(t: ScalarType) -> Mask {
    1 << (t as u16)
}

pub const INT: Mask = bit(ScalarType::I8)
    | bit(ScalarType::I16)
    | bit(ScalarType::I32)
    | bit(ScalarType::I64)
    | bit(ScalarType::U8)
    | bit(ScalarType::U16)
    | bit(ScalarType::U32)
    | bit(ScalarType::U64);
pub const SIGNED: Mask =
    bit(ScalarType::I8) | bit(ScalarType::I16) | bit(ScalarType::I32) | bit(ScalarType::I64);
pub const FLOAT: Mask = bit(ScalarType::F16) | bit(ScalarType::F32) | bit(ScalarType::F64);
pub const NUM: Mask = INT | FLOAT;
pub const SCALAR: Mask = NUM | bit(ScalarType::Bool);

#[derive(Clone, Debug)]
struct VarState {
    link: Option<Type>,
    /// `None`: any type; `Some(mask)`: one of these scalar types.
    allowed: Option<Mask>,
    /// Constructors a sum type must have, with their payloads.
    ctors: Vec<(String, Vec<Type>)>,
}

#[derive(Default)]
pub struct Infer {
    vars: Vec<VarState>,
}

/// Why two types do not unify (the caller words the message).
#[derive(Debug)]
pub struct Mismatch;

impl Infer {
    pub fn fresh(&mut self) -> Type {
        self.fresh_with(None)
    }

    pub fn fresh_constrained(&mut self, mask: Mask) -> Type {
        self.fresh_with(Some(mask))
    }

    /// A fresh variable restricted to `allowed` (`None`: any type).
    pub fn fresh_with(&mut self, allowed: Option<Mask>) -> Type {
        self.vars.push(VarState {
            link: None,
            allowed,
            ctors: Vec::new(),
        });
        Type::Var(TyVar(self.vars.len() as u32 - 1))
    }

    /// The scalar types an unbound variable is restricted to.
    pub fn allowed(&self, v: TyVar) -> Option<Mask> {
        self.vars[v.0 as usize].allowed
    }

    /// Requires `t` to be a sum type with constructor `name` and payload
    /// `payload`.
    pub fn constrain_ctor(
        &mut self,
        t: &Type,
        name: &str,
        payload: &[Type],
    ) -> Result<(), Mismatch> {
        match self.shallow(t) {
            Type::Var(v) => {
                if self.vars[v.0 as usize].allowed.is_some() {
                    return Err(Mismatch);
                }
                let known = self.vars[v.0 as usize]
                    .ctors
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, ts)| ts.clone());
                match known {
                    Some(ts) => self.unify_all(&ts, payload),
                    None => {
                        let ctors = &mut self.vars[v.0 as usize].ctors;
                        ctors.push((name.to_string(), payload.to_vec()));
                        ctors.sort_by(|a, b| a.0.cmp(&b.0));
                        Ok(())
                    }
                }
            }
            Type::Sum(cs) => match cs.iter().find(|(n, _)| n == name) {
                Some((_, ts)) => self.unify_all(ts, payload),
                None => Err(Mismatch),
            },
            _ => Err(Mismatch),
        }
    }

    fn unify_all(&mut self, a: &[Type], b: &[Type]) -> Result<(), Mismatch> {
        if a.len() != b.len() {
            return Err(Mismatch);
        }
        for (x, y) in a.iter().zip(b) {
            self.unify(x, y)?;
        }
        Ok(())
    }

    /// Whether `t` is (so far) a variable known to be a sum type.
    pub fn has_ctors(&self, t: &Type) -> bool {
        match self.shallow(t) {
            Type::Var(v) => !self.vars[v.0 as usize].ctors.is_empty(),
            _ => false,
        }
    }

    /// An unbound variable known only by its constructors becomes the sum
    /// type of exactly those; `None` if `t` is no such variable.
    pub fn close_sum(&mut self, t: &Type) -> Option<Type> {
        let Type::Var(v) = self.shallow(t) else {
            return None;
        };
        let ctors = self.vars[v.0 as usize].ctors.clone();
        if ctors.is_empty() {
            return None;
        }
        let sum = Type::Sum(ctors);
        self.vars[v.0 as usize].link = Some(sum.clone());
        Some(sum)
    }

    /// Follows links until a non-variable or an unbound variable.
    pub fn shallow(&self, t: &Type) -> Type {
        let mut t = t.clone();
        while let Type::Var(v) = t {
            match &self.vars[v.0 as usize].link {
                Some(next) => t = next.clone(),
                None => return Type::Var(v),
            }
        }
        t
    }

    /// For messages: unbound restricted variables show as their default,
    /// other unbound variables as `'a`, `'b`, ...
    pub fn display(&self, t: &Type) -> String {
        self.display_all(&[t]).pop().unwrap_or_default()
    }

    /// Several types for one message, with unbound variables named
    /// consistently across them.
    pub fn display_all(&self, ts: &[&Type]) -> Vec<String> {
        fn go(inf: &Infer, t: &Type, names: &mut Vec<TyVar>) -> Type {
            match inf.shallow(t) {
                Type::Var(v) if !inf.vars[v.0 as usize].ctors.is_empty() => Type::Sum(
                    inf.vars[v.0 as usize]
                        .ctors
                        .iter()
                        .map(|(n, ts)| (n.clone(), ts.iter().map(|t| go(inf, t, names)).collect()))
                        .collect(),
                ),
                Type::Var(v) => match inf.vars[v.0 as usize].allowed.and_then(default_of) {
                    Some(s) => Type::Scalar(s),
                    None => {
                        let i = match names.iter().position(|n| *n == v) {
                            Some(i) => i,
                            None => {
                                names.push(v);
                                names.len() - 1
                            }
                        };
                        Type::Param(var_name(i))
                    }
                },
                Type::Array(e) => Type::array(go(inf, &e, names)),
                Type::Tuple(ts) => Type::Tuple(ts.iter().map(|t| go(inf, t, names)).collect()),
                Type::Record(fs) => Type::Record(
                    fs.iter()
                        .map(|(n, t)| (n.clone(), go(inf, t, names)))
                        .collect(),
                ),
                Type::Func(a, b) => Type::func(go(inf, &a, names), go(inf, &b, names)),
                Type::Sum(cs) => Type::Sum(
                    cs.iter()
                        .map(|(n, ts)| (n.clone(), ts.iter().map(|t| go(inf, t, names)).collect()))
                        .collect(),
                ),
                other => other,
            }
        }
        let mut names = Vec::new();
        ts.iter()
            .map(|t| go(self, t, &mut names).to_string())
            .collect()
    }

    /// Resolves `t` completely, fixing every unbound variable to its default
    /// (`i32` for integer literals, `f64` for float literals, `i32` when
    /// nothing constrains it).
    pub fn finalize(&mut self, t: &Type) -> Type {
        if let Some(sum) = self.close_sum(t) {
            return self.finalize(&sum);
        }
        match self.shallow(t) {
            Type::Var(v) => {
                let s = self.vars[v.0 as usize]
                    .allowed
                    .and_then(default_of)
                    .unwrap_or(ScalarType::I32);
                self.vars[v.0 as usize].link = Some(Type::Scalar(s));
                Type::Scalar(s)
            }
            Type::Array(e) => Type::array(self.finalize(&e)),
            Type::Tuple(ts) => Type::Tuple(ts.iter().map(|t| self.finalize(t)).collect()),
            Type::Record(fs) => Type::Record(
                fs.iter()
                    .map(|(n, t)| (n.clone(), self.finalize(t)))
                    .collect(),
            ),
            Type::Func(a, b) => Type::func(self.finalize(&a), self.finalize(&b)),
            Type::Sum(cs) => Type::Sum(
                cs.iter()
                    .map(|(n, ts)| (n.clone(), ts.iter().map(|t| self.finalize(t)).collect()))
                    .collect(),
            ),
            other => other,
        }
    }

    /// Restricts `t` to the scalar types in `mask`. Type parameters pass:
    /// they are checked again in each instantiation.
    pub fn constrain(&mut self, t: &Type, mask: Mask) -> Result<(), Mismatch> {
        match self.shallow(t) {
            Type::Var(v) => {
                let state = &mut self.vars[v.0 as usize];
                if !state.ctors.is_empty() {
                    return Err(Mismatch);
                }
                let allowed = state.allowed.unwrap_or(SCALAR) & mask;
                if allowed == 0 {
                    return Err(Mismatch);
                }
                state.allowed = Some(allowed);
                Ok(())
            }
            Type::Scalar(s) if mask & bit(s) != 0 => Ok(()),
            Type::Param(_) => Ok(()),
            _ => Err(Mismatch),
        }
    }

    pub fn unify(&mut self, a: &Type, b: &Type) -> Result<(), Mismatch> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (a, b) {
            (Type::Var(x), Type::Var(y)) if x == y => Ok(()),
            (Type::Var(x), Type::Var(y)) => {
                let ax = self.vars[x.0 as usize].allowed;
                let ay = self.vars[y.0 as usize].allowed;
                let allowed = match (ax, ay) {
                    (Some(p), Some(q)) => {
                        if p & q == 0 {
                            return Err(Mismatch);
                        }
                        Some(p & q)
                    }
                    (p, q) => p.or(q),
                };
                let ctors = std::mem::take(&mut self.vars[x.0 as usize].ctors);
                if allowed.is_some()
                    && !(ctors.is_empty() && self.vars[y.0 as usize].ctors.is_empty())
                {
                    return Err(Mismatch);
                }
                self.vars[y.0 as usize].allowed = allowed;
                self.vars[x.0 as usize].link = Some(Type::Var(y));
                for (name, payload) in ctors {
                    self.constrain_ctor(&Type::Var(y), &name, &payload)?;
                }
                Ok(())
            }
            (Type::Var(x), t) | (t, Type::Var(x)) => self.bind(x, t),
            (Type::Scalar(p), Type::Scalar(q)) if p == q => Ok(()),
            (Type::Param(p), Type::Param(q)) if p == q => Ok(()),
            (Type::Array(p), Type::Array(q)) => self.unify(&p, &q),
            (Type::Tuple(ps), Type::Tuple(qs)) if ps.len() == qs.len() => {
                for (p, q) in ps.iter().zip(&qs) {
                    self.unify(p, q)?;
                }
                Ok(())
            }
            (Type::Record(ps), Type::Record(qs))
                if ps.len() == qs.len() && ps.iter().zip(&qs).all(|(p, q)| p.0 == q.0) =>
            {
                for (p, q) in ps.iter().zip(&qs) {
                    self.unify(&p.1, &q.1)?;
                }
                Ok(())
            }
            (Type::Func(pa, pr), Type::Func(qa, qr)) => {
                self.unify(&pa, &qa)?;
                self.unify(&pr, &qr)
            }
            (Type::Sum(ps), Type::Sum(qs))
                if ps.len() == qs.len() && ps.iter().zip(&qs).all(|(p, q)| p.0 == q.0) =>
            {
                for (p, q) in ps.iter().zip(&qs) {
                    self.unify_all(&p.1, &q.1)?;
                }
                Ok(())
            }
            _ => Err(Mismatch),
        }
    }

    fn bind(&mut self, x: TyVar, t: Type) -> Result<(), Mismatch> {
        if self.occurs(x, &t) {
            return Err(Mismatch);
        }
        if let Some(mask) = self.vars[x.0 as usize].allowed {
            match &t {
                Type::Scalar(s) if mask & bit(*s) != 0 => {}
                Type::Param(_) => {}
                _ => return Err(Mismatch),
            }
        }
        let ctors = std::mem::take(&mut self.vars[x.0 as usize].ctors);
        self.vars[x.0 as usize].link = Some(t.clone());
        for (name, payload) in ctors {
            self.constrain_ctor(&t, &name, &payload)?;
        }
        Ok(())
    }

    fn occurs(&self, x: TyVar, t: &Type) -> bool {
        match self.shallow(t) {
            Type::Var(y) => x == y,
            Type::Array(e) => self.occurs(x, &e),
            Type::Tuple(ts) => ts.iter().any(|t| self.occurs(x, t)),
            Type::Record(fs) => fs.iter().any(|(_, t)| self.occurs(x, t)),
            Type::Func(a, b) => self.occurs(x, &a) || self.occurs(x, &b),
            Type::Sum(cs) => cs.iter().flat_map(|(_, ts)| ts).any(|t| self.occurs(x, t)),
            Type::Scalar(_) | Type::Param(_) => false,
        }
    }
}

/// `a` .. `z`, then `a1`, `b1`, ...
fn var_name(i: usize) -> String {
    let letter = (b'a' + (i % 26) as u8) as char;
    match i / 26 {
        0 => letter.to_string(),
        k => format!("{letter}{k}"),
    }
}

/// The default of a restricted variable: `i32` if allowed, else `f64`, else
/// the first allowed type.
fn default_of(mask: Mask) -> Option<ScalarType> {
    if mask & bit(ScalarType::I32) != 0 {
        return Some(ScalarType::I32);
    }
    if mask & bit(ScalarType::F64) != 0 {
        return Some(ScalarType::F64);
    }
    ScalarType::ALL.into_iter().find(|&t| mask & bit(t) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_variables_intersect_and_default() {
        let mut inf = Infer::default();
        let a = inf.fresh_constrained(NUM);
        let b = inf.fresh_constrained(FLOAT);
        inf.unify(&a, &b).unwrap();
        assert_eq!(inf.finalize(&a), Type::Scalar(ScalarType::F64));
        let c = inf.fresh_constrained(INT);
        assert!(inf.unify(&c, &Type::Scalar(ScalarType::F32)).is_err());
        assert!(inf.unify(&c, &Type::Scalar(ScalarType::U8)).is_ok());
    }

    #[test]
    fn occurs_check_fails() {
        let mut inf = Infer::default();
        let a = inf.fresh();
        assert!(inf.unify(&a, &Type::array(a.clone())).is_err());
    }
}
