//! The members of the scalar modules.

use super::*;

impl<'a> Lowerer<'a> {
    /// A member `f` of scalar module `t` applied to `xs`; the members
    /// beyond single operations are built from them here.
    pub(super) fn scalar_fn(
        &mut self,
        t: ScalarType,
        f: ScalarFn,
        xs: &[Atom],
        loc: SrcLoc,
    ) -> Value<'a> {
        if let Some(v) = self.futhark_scalar_fn(t, f, xs, loc) {
            return v;
        }
        let ty = CType::Scalar(t);
        let rt = CType::Scalar(f.result(t));
        let bool_ = CType::Scalar(ScalarType::Bool);
        let int = |v: i128| Atom::Const(Const::int_wrapping(t, v));
        let x = xs[0];
        let leaf = |s: &mut Self, e: Exp| Value::Leaf(s.let1("t", rt, e, loc), rt);
        let exp = match f {
            ScalarFn::Convert(from) if from == t => return Value::Leaf(x, rt),
            ScalarFn::Convert(_) => Exp::Convert(t, x),
            ScalarFn::Min => Exp::BinOp(BinOp::Min, x, xs[1]),
            ScalarFn::Max => Exp::BinOp(BinOp::Max, x, xs[1]),
            ScalarFn::Pow => {
                self.check_exponent(t, xs[1], loc);
                Exp::BinOp(BinOp::Pow, x, xs[1])
            }
            ScalarFn::Atan2 => Exp::BinOp(BinOp::Atan2, x, xs[1]),
            ScalarFn::Hypot => Exp::BinOp(BinOp::Hypot, x, xs[1]),
            ScalarFn::GetBit => {
                // Floats by their bits; the bit shifted down and masked.
                let (vt, value) = if t.is_float() {
                    let u = t.bits_type();
                    let bits = Exp::UnOp(UnOp::ToBits, xs[1]);
                    (u, self.let1("bits", CType::Scalar(u), bits, loc))
                } else {
                    (t, xs[1])
                };
                let vty = CType::Scalar(vt);
                let shift = self.let1("t", vty, Exp::Convert(vt, x), loc);
                let down = self.let1("t", vty, Exp::BinOp(BinOp::Shr, value, shift), loc);
                let one = Atom::Const(Const::int_wrapping(vt, 1));
                let bit = self.let1("t", vty, Exp::BinOp(BinOp::And, down, one), loc);
                Exp::Convert(ScalarType::I32, bit)
            }
            ScalarFn::SetBit => {
                let shift = self.let1("t", ty, Exp::Convert(t, x), loc);
                let mask = self.let1("t", ty, Exp::BinOp(BinOp::Shl, int(1), shift), loc);
                let keep = self.let1("t", ty, Exp::UnOp(UnOp::Not, mask), loc);
                let cleared = self.let1("t", ty, Exp::BinOp(BinOp::And, xs[1], keep), loc);
                // `b` unmasked, as Futhark's definition `(x & !(1 << bit)) |
                // (b << bit)`: `set_bit 0 0 2` is 2.
                let b = self.let1("t", ty, Exp::Convert(t, xs[2]), loc);
                let b = self.let1("t", ty, Exp::BinOp(BinOp::Shl, b, shift), loc);
                Exp::BinOp(BinOp::Or, cleared, b)
            }
            ScalarFn::Ctz => {
                // The bits below the lowest set bit, counted (all of them for 0).
                let neg = self.let1("t", ty, Exp::UnOp(UnOp::Neg, x), loc);
                let lowest = self.let1("t", ty, Exp::BinOp(BinOp::And, x, neg), loc);
                let below = self.let1("t", ty, Exp::BinOp(BinOp::Sub, lowest, int(1)), loc);
                Exp::UnOp(UnOp::Popc, below)
            }
            ScalarFn::Sgn => {
                let zero = Atom::Const(Const::zero(t));
                let gt = self.let1("t", bool_, Exp::BinOp(BinOp::Gt, x, zero), loc);
                let lt = self.let1("t", bool_, Exp::BinOp(BinOp::Lt, x, zero), loc);
                let up = self.let1("t", ty, Exp::Convert(t, gt), loc);
                let down = self.let1("t", ty, Exp::Convert(t, lt), loc);
                let sign = self.let1("t", ty, Exp::BinOp(BinOp::Sub, up, down), loc);
                if !t.is_float() {
                    return Value::Leaf(sign, ty);
                }
                let nan = self.let1("t", bool_, Exp::UnOp(UnOp::IsNan, x), loc);
                return self.if_(nan, loc, |_| Value::Leaf(x, ty), |_| Value::Leaf(sign, ty));
            }
            ScalarFn::Mad => {
                let product = self.let1("t", ty, Exp::BinOp(BinOp::Mul, x, xs[1]), loc);
                Exp::BinOp(BinOp::Add, product, xs[2])
            }
            ScalarFn::Lerp => {
                let span = self.let1("t", ty, Exp::BinOp(BinOp::Sub, xs[1], x), loc);
                let part = self.let1("t", ty, Exp::BinOp(BinOp::Mul, span, xs[2]), loc);
                Exp::BinOp(BinOp::Add, x, part)
            }
            ScalarFn::IsFinite => {
                let nan = self.let1("t", bool_, Exp::UnOp(UnOp::IsNan, x), loc);
                let inf = self.let1("t", bool_, Exp::UnOp(UnOp::IsInf, x), loc);
                let either = self.let1("t", bool_, Exp::BinOp(BinOp::Or, nan, inf), loc);
                Exp::UnOp(UnOp::Not, either)
            }
            other => match scalar_unop(other) {
                Some(op) => Exp::UnOp(op, x),
                None => Exp::Atom(x),
            },
        };
        leaf(self, exp)
    }
}

fn scalar_unop(f: ScalarFn) -> Option<UnOp> {
    Some(match f {
        ScalarFn::Abs => UnOp::Abs,
        ScalarFn::Sqrt => UnOp::Sqrt,
        ScalarFn::Exp => UnOp::Exp,
        ScalarFn::Log => UnOp::Log,
        ScalarFn::Log2 => UnOp::Log2,
        ScalarFn::Log10 => UnOp::Log10,
        ScalarFn::Sin => UnOp::Sin,
        ScalarFn::Cos => UnOp::Cos,
        ScalarFn::Tan => UnOp::Tan,
        ScalarFn::Asin => UnOp::Asin,
        ScalarFn::Acos => UnOp::Acos,
        ScalarFn::Atan => UnOp::Atan,
        ScalarFn::Sinh => UnOp::Sinh,
        ScalarFn::Cosh => UnOp::Cosh,
        ScalarFn::Tanh => UnOp::Tanh,
        ScalarFn::Floor => UnOp::Floor,
        ScalarFn::Ceil => UnOp::Ceil,
        ScalarFn::Round => UnOp::Round,
        ScalarFn::Trunc => UnOp::Trunc,
        ScalarFn::Erf => UnOp::Erf,
        ScalarFn::IsNan => UnOp::IsNan,
        ScalarFn::IsInf => UnOp::IsInf,
        ScalarFn::Popc => UnOp::Popc,
        ScalarFn::Clz => UnOp::Clz,
        ScalarFn::Neg => UnOp::Neg,
        ScalarFn::Cbrt => UnOp::Cbrt,
        ScalarFn::Log1p => UnOp::Log1p,
        ScalarFn::Expm1 => UnOp::Expm1,
        ScalarFn::Asinh => UnOp::Asinh,
        ScalarFn::Acosh => UnOp::Acosh,
        ScalarFn::Atanh => UnOp::Atanh,
        ScalarFn::ToBits => UnOp::ToBits,
        ScalarFn::FromBits => UnOp::FromBits,
        _ => return None,
    })
}
