//! Sum types, `match`, `==` on compound values, and ranges.
//!
//! A value of a sum type is its tag (the constructor's position in name
//! order, a `u8`) followed by the payload of every constructor, those of
//! the constructors it is not holding zeros or empty arrays (as in Futhark,
//! every payload is resident).

use super::*;
use crate::syntax::ast::RangeKind;

/// The position of constructor `name` in sum type `t`.
pub(super) fn ctor_index(t: &Type, name: &str) -> Option<usize> {
    match t {
        Type::Sum(cs) => cs.iter().position(|(n, _)| n == name),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// `#c a b` at sum type `ty`.
    pub(super) fn ctor(
        &mut self,
        env: &Env<'a>,
        ty: &Type,
        name: &str,
        args: &'a [TExpr],
        loc: SrcLoc,
    ) -> Value<'a> {
        let Type::Sum(cs) = ty else {
            return self.default_value(ty, loc);
        };
        let index = ctor_index(ty, name).unwrap_or(0);
        let tag = Value::Leaf(Atom::Const(Const::U8(index as u8)), CType::Scalar(TAG));
        let mut parts = vec![tag];
        let mut given: Vec<Value<'a>> = args.iter().map(|a| self.expr(env, a)).collect();
        for (j, (_, ts)) in cs.iter().enumerate() {
            if j == index {
                parts.push(Value::Tuple(std::mem::take(&mut given)));
            } else {
                let defaults = ts.iter().map(|t| self.default_value(t, loc)).collect();
                parts.push(Value::Tuple(defaults));
            }
        }
        Value::Tuple(parts)
    }

    /// `match`: the cases tried in order; the last one needs no test (the
    /// checker proved the cases exhaustive).
    pub(super) fn match_cases(
        &mut self,
        env: &Env<'a>,
        v: &Value<'a>,
        cases: &'a [(TPat, TExpr)],
        loc: SrcLoc,
    ) -> Value<'a> {
        let Some(((p, body), rest)) = cases.split_first() else {
            return unit();
        };
        let test = if rest.is_empty() {
            None
        } else {
            self.pattern_test(p, v, loc)
        };
        match test {
            None => {
                let env = self.bind(env, p, v.clone(), loc);
                self.expr(&env, body)
            }
            Some(cond) => self.if_(
                cond,
                loc,
                |s| {
                    let env = s.bind(env, p, v.clone(), loc);
                    s.expr(&env, body)
                },
                |s| s.match_cases(env, v, rest, loc),
            ),
        }
    }

    /// Whether `v` matches `p` (`None`: always).
    fn pattern_test(&mut self, p: &'a TPat, v: &Value<'a>, loc: SrcLoc) -> Option<Atom> {
        match p {
            TPat::Var { .. } | TPat::Wildcard(_) => None,
            TPat::Ascribed(q, _) => self.pattern_test(q, v, loc),
            TPat::Tuple(ps, _) => {
                let Value::Tuple(vs) = v else {
                    return None;
                };
                let tests: Vec<Atom> = ps
                    .iter()
                    .zip(vs)
                    .filter_map(|(q, w)| self.pattern_test(q, w, loc))
                    .collect();
                self.all(tests, loc)
            }
            TPat::Ctor(name, ps, ty) => {
                let (Some(i), Value::Tuple(parts)) = (ctor_index(ty, name), v) else {
                    return None;
                };
                let (tag, _) = Self::scalar(&parts[0]);
                let want = Atom::Const(Const::U8(i as u8));
                let mut tests = vec![self.compare(BinOp::Eq, tag, want, loc)];
                if let Some(Value::Tuple(payload)) = parts.get(i + 1) {
                    for (q, w) in ps.iter().zip(payload) {
                        tests.extend(self.pattern_test(q, w, loc));
                    }
                }
                self.all(tests, loc)
            }
            TPat::Lit(e) => {
                let (want, _) = Self::scalar(&self.expr(&Env::default(), e));
                let (got, _) = Self::scalar(v);
                Some(self.compare(BinOp::Eq, got, want, loc))
            }
        }
    }

    fn compare(&mut self, op: BinOp, a: Atom, b: Atom, loc: SrcLoc) -> Atom {
        let bool_ = CType::Scalar(ScalarType::Bool);
        self.let1("t", bool_, Exp::BinOp(op, a, b), loc)
    }

    /// The conjunction of `tests` (`None` for none).
    fn all(&mut self, tests: Vec<Atom>, loc: SrcLoc) -> Option<Atom> {
        let bool_ = CType::Scalar(ScalarType::Bool);
        tests
            .into_iter()
            .reduce(|a, b| self.let1("t", bool_, Exp::BinOp(BinOp::And, a, b), loc))
    }

    /// `==` (or `!=`) on tuples, records, sums and arrays: every component
    /// equal. An array of tuples is one array per leaf, each compared alone.
    pub(super) fn compound_eq(
        &mut self,
        a: &Value<'a>,
        b: &Value<'a>,
        negate: bool,
        loc: SrcLoc,
    ) -> Value<'a> {
        let bool_ = CType::Scalar(ScalarType::Bool);
        let pairs: Vec<(Atom, Atom, CType)> = leaves(a)
            .into_iter()
            .zip(leaves(b))
            .map(|((x, t), (y, _))| (x, y, t))
            .collect();
        let tests = pairs
            .into_iter()
            .map(|(x, y, t)| self.leaf_eq(x, y, t, loc))
            .collect();
        let all = self
            .all(tests, loc)
            .unwrap_or(Atom::Const(Const::Bool(true)));
        let result = if negate {
            self.let1("t", bool_, Exp::UnOp(UnOp::Not, all), loc)
        } else {
            all
        };
        Value::Leaf(result, bool_)
    }

    /// One leaf of `==`. Arrays as Futhark compares them: arrays of
    /// different shapes are unequal (not an error), so every dimension is
    /// compared first and the elements only when all match.
    fn leaf_eq(&mut self, x: Atom, y: Atom, t: CType, loc: SrcLoc) -> Atom {
        let (Atom::Var(xv), Atom::Var(yv), CType::Array(_, rank)) = (x, y, t) else {
            return self.compare(BinOp::Eq, x, y, loc);
        };
        let dims = (0..rank)
            .map(|d| {
                let (m, n) = (self.size_of(xv, d, loc), self.size_of(yv, d, loc));
                self.compare(BinOp::Eq, m, n, loc)
            })
            .collect();
        let same_shape = self
            .all(dims, loc)
            .unwrap_or(Atom::Const(Const::Bool(true)));
        let bool_ = CType::Scalar(ScalarType::Bool);
        let equal = self.if_(
            same_shape,
            loc,
            |s| Value::Leaf(s.elements_eq(x, y, t, loc), bool_),
            |_| Value::Leaf(Atom::Const(Const::Bool(false)), bool_),
        );
        Self::scalar(&equal).0
    }

    /// Whether two arrays of one shape hold equal elements: a `map` of `==`
    /// (nested per dimension) and an `&&` reduction, which fuse into one loop.
    fn elements_eq(&mut self, x: Atom, y: Atom, t: CType, loc: SrcLoc) -> Atom {
        let Atom::Var(xv) = x else {
            return self.compare(BinOp::Eq, x, y, loc);
        };
        if !matches!(t, CType::Array(..)) {
            return self.compare(BinOp::Eq, x, y, loc);
        }
        let bool_ = CType::Scalar(ScalarType::Bool);
        let width = self.size_of(xv, 0, loc);
        let arrays = [Value::Leaf(x, t), Value::Leaf(y, t)];
        let eqs = self.map_with(width, &arrays, loc, |s, rows| {
            let ((xr, rt), (yr, _)) = (Self::scalar(&rows[0]), Self::scalar(&rows[1]));
            Value::Leaf(s.elements_eq(xr, yr, rt, loc), bool_)
        });
        let (acc, elem) = (self.fresh("acc", bool_), self.fresh("x", bool_));
        let (a, e) = (Atom::Var(acc.id), Atom::Var(elem.id));
        let (op, _) = self.lambda_with(vec![acc, elem], |s| {
            Value::Leaf(s.let1("t", bool_, Exp::BinOp(BinOp::And, a, e), loc), bool_)
        });
        let Value::Leaf(Atom::Var(eqs), _) = eqs else {
            return Atom::Const(Const::Bool(true));
        };
        let all = self.fresh("r", bool_);
        let result = Atom::Var(all.id);
        let kind = SoacKind::Reduce {
            op,
            neutral: vec![Atom::Const(Const::Bool(true))],
        };
        self.soac(width, kind, vec![eqs], vec![all], loc);
        result
    }

    /// `x..y...z`, `x..y..<z`, `x..y..>z` (stride `y - x`, else 1 or -1):
    /// the count checked and computed in `i64`, then a map over `iota`.
    pub(super) fn range(
        &mut self,
        start: Atom,
        second: Option<Atom>,
        end: Atom,
        kind: RangeKind,
        elem: ScalarType,
        loc: SrcLoc,
    ) -> Value<'a> {
        use BinOp::*;
        let i64_ = ScalarType::I64;
        let it = CType::Scalar(i64_);
        let bool_ = CType::Scalar(ScalarType::Bool);
        let int = |v: i64| Atom::Const(Const::I64(v));
        let widen = |s: &mut Self, a: Atom| s.let1("t", it, Exp::Convert(i64_, a), loc);
        let (x, z) = (widen(self, start), widen(self, end));
        let d = match second {
            Some(y) => {
                let y = widen(self, y);
                self.i64_op(Sub, y, x, loc)
            }
            None if kind == RangeKind::DownTo => int(-1),
            None => int(1),
        };
        let op = |s: &mut Self, op: BinOp, a: Atom, b: Atom| {
            let logical = matches!(op, And | Or);
            let ty = if op.is_comparison() || logical {
                bool_
            } else {
                it
            };
            s.let1("t", ty, Exp::BinOp(op, a, b), loc)
        };
        // Futhark's conditions: the stride points towards the end, which is
        // not behind the start.
        let (valid, count) = match kind {
            RangeKind::Inclusive => {
                let up = op(self, Gt, d, int(0));
                let down = op(self, Lt, d, int(0));
                let ge = op(self, Ge, z, x);
                let le = op(self, Le, z, x);
                let ok_up = op(self, And, up, ge);
                let ok_down = op(self, And, down, le);
                let valid = op(self, Or, ok_up, ok_down);
                let span = op(self, Sub, z, x);
                // A zero stride fails the check above; divide by 1 then.
                let safe = self.if_(
                    valid,
                    loc,
                    |_| Value::Leaf(d, it),
                    |_| Value::Leaf(int(1), it),
                );
                let (safe, _) = Self::scalar(&safe);
                let steps = op(self, Quot, span, safe);
                (valid, op(self, Add, steps, int(1)))
            }
            RangeKind::UpTo | RangeKind::DownTo => {
                let (span, step) = if kind == RangeKind::UpTo {
                    (op(self, Sub, z, x), d)
                } else {
                    let neg = op(self, Sub, int(0), d);
                    (op(self, Sub, x, z), neg)
                };
                let pos = op(self, Gt, step, int(0));
                let ahead = op(self, Ge, span, int(0));
                let valid = op(self, And, pos, ahead);
                let safe = self.if_(
                    valid,
                    loc,
                    |_| Value::Leaf(step, it),
                    |_| Value::Leaf(int(1), it),
                );
                let (safe, _) = Self::scalar(&safe);
                let up = op(self, Add, span, safe);
                let up = op(self, Sub, up, int(1));
                (valid, op(self, Quot, up, safe))
            }
        };
        // Futhark's message names the range's values, as `i64`.
        let end_code = match kind {
            RangeKind::UpTo => 0,
            RangeKind::DownTo => 1,
            RangeKind::Inclusive => 2,
        };
        let form = int(range_form(end_code, second.is_some()));
        let second_value = match second {
            Some(_) => op(self, Add, x, d),
            None => int(0),
        };
        self.stms.push(Stm {
            pat: Vec::new(),
            exp: Exp::Assert(valid, AssertReport::Range([x, second_value, z, form])),
            loc,
        });
        let arr = CType::Array(i64_, 1);
        let iota = self.let1("iota", arr, Exp::Iota(count), loc);
        self.set_dims(iota, vec![Some(count)]);
        let et = CType::Scalar(elem);
        let narrow = |s: &mut Self, a: Atom| s.let1("t", et, Exp::Convert(elem, a), loc);
        let (x0, d0) = (narrow(self, x), narrow(self, d));
        let rows = [Value::Leaf(iota, arr)];
        self.map_with(count, &rows, loc, |s, rows| {
            let (i, _) = Self::scalar(&rows[0]);
            let i = narrow(s, i);
            let step = s.let1("t", et, Exp::BinOp(Mul, i, d0), loc);
            Value::Leaf(s.let1("t", et, Exp::BinOp(Add, x0, step), loc), et)
        })
    }
}
