//! Futhark's scalar-module members beyond the contract's list (`mul_hi`,
//! `fma`, `sinpi`, `ldexp`, ...), lowered to core operations. A child of
//! `lower`, kept apart so that the members of the library side stay in one
//! place.

use super::{Lowerer, Value};
use crate::core::ir::{Atom, BinOp, Exp, SrcLoc, Type as CType, UnOp};
use crate::types::{Const, ScalarFn, ScalarType};

/// A float constant of type `t`.
fn float(t: ScalarType, v: f64) -> Atom {
    Atom::Const(match t {
        ScalarType::F16 => Const::F16(crate::types::half::F16::from_f64(v)),
        ScalarType::F32 => Const::F32(v as f32),
        _ => Const::F64(v),
    })
}

impl Lowerer<'_> {
    /// `f` of module `t` applied to `xs`, if it is one of the members
    /// handled here.
    pub(super) fn futhark_scalar_fn<'a>(
        &mut self,
        t: ScalarType,
        f: ScalarFn,
        xs: &[Atom],
        loc: SrcLoc,
    ) -> Option<Value<'a>> {
        let ty = CType::Scalar(t);
        let rt = CType::Scalar(f.result(t));
        let pi = || float(t, std::f64::consts::PI);
        let x = xs[0];
        let exp = match f {
            ScalarFn::Not => Exp::UnOp(UnOp::Not, x),
            ScalarFn::MulHi => Exp::BinOp(BinOp::MulHi, x, xs[1]),
            ScalarFn::MadHi => {
                let hi = self.let1("t", ty, Exp::BinOp(BinOp::MulHi, x, xs[1]), loc);
                Exp::BinOp(BinOp::Add, hi, xs[2])
            }
            ScalarFn::ToI32
            | ScalarFn::ToI64
            | ScalarFn::ToF64
            | ScalarFn::Sign
            | ScalarFn::Unsign => Exp::Convert(f.result(t), x),
            ScalarFn::FromFraction => {
                let a = self.let1("t", ty, Exp::Convert(t, x), loc);
                let b = self.let1("t", ty, Exp::Convert(t, xs[1]), loc);
                Exp::BinOp(BinOp::Div, a, b)
            }
            ScalarFn::Recip => Exp::BinOp(BinOp::Div, float(t, 1.0), x),
            ScalarFn::Rsqrt => {
                let root = self.let1("t", ty, Exp::UnOp(UnOp::Sqrt, x), loc);
                Exp::BinOp(BinOp::Div, float(t, 1.0), root)
            }
            ScalarFn::SinPi | ScalarFn::CosPi | ScalarFn::TanPi => {
                let op = match f {
                    ScalarFn::SinPi => UnOp::Sin,
                    ScalarFn::CosPi => UnOp::Cos,
                    _ => UnOp::Tan,
                };
                let angle = self.let1("t", ty, Exp::BinOp(BinOp::Mul, pi(), x), loc);
                Exp::UnOp(op, angle)
            }
            ScalarFn::AsinPi | ScalarFn::AcosPi | ScalarFn::AtanPi | ScalarFn::Atan2Pi => {
                let e = match f {
                    ScalarFn::AsinPi => Exp::UnOp(UnOp::Asin, x),
                    ScalarFn::AcosPi => Exp::UnOp(UnOp::Acos, x),
                    ScalarFn::AtanPi => Exp::UnOp(UnOp::Atan, x),
                    _ => Exp::BinOp(BinOp::Atan2, x, xs[1]),
                };
                let angle = self.let1("t", ty, e, loc);
                Exp::BinOp(BinOp::Div, angle, pi())
            }
            ScalarFn::Gamma => Exp::UnOp(UnOp::Gamma, x),
            ScalarFn::Lgamma => Exp::UnOp(UnOp::Lgamma, x),
            ScalarFn::Erfc => Exp::UnOp(UnOp::Erfc, x),
            ScalarFn::Fma => Exp::Fma(x, xs[1], xs[2]),
            ScalarFn::NextAfter if t == ScalarType::F16 => {
                return Some(Value::Leaf(self.next_after_half(x, xs[1], loc), ty))
            }
            ScalarFn::NextAfter => Exp::BinOp(BinOp::NextAfter, x, xs[1]),
            ScalarFn::CopySign => Exp::BinOp(BinOp::CopySign, x, xs[1]),
            ScalarFn::Ldexp => return Some(Value::Leaf(self.ldexp(t, x, xs[1], loc), ty)),
            // A float's bit is one of its representation's.
            ScalarFn::SetBit if t.is_float() => {
                let u = t.bits_type();
                let bits = self.let1(
                    "bits",
                    CType::Scalar(u),
                    Exp::UnOp(UnOp::ToBits, xs[1]),
                    loc,
                );
                let set = self.scalar_fn(u, ScalarFn::SetBit, &[x, bits, xs[2]], loc);
                let (set, _) = Self::scalar(&set);
                Exp::UnOp(UnOp::FromBits, set)
            }
            _ => return None,
        };
        Some(Value::Leaf(self.let1("t", rt, exp, loc), rt))
    }

    /// `nextafter` on halves, from their bits (the compiled code has no C
    /// library function for it): one step of the bit pattern towards `y`,
    /// from zero the smallest subnormal of `y`'s sign; `y` when equal, NaN
    /// when either is.
    fn next_after_half(&mut self, x: Atom, y: Atom, loc: SrcLoc) -> Atom {
        let h = CType::Scalar(ScalarType::F16);
        let u = CType::Scalar(ScalarType::U16);
        let b = CType::Scalar(ScalarType::Bool);
        let zero = float(ScalarType::F16, 0.0);
        let bits = self.let1("bits", u, Exp::UnOp(UnOp::ToBits, x), loc);
        let ybits = self.let1("bits", u, Exp::UnOp(UnOp::ToBits, y), loc);
        let up = self.let1("t", b, Exp::BinOp(BinOp::Gt, y, x), loc);
        let pos = self.let1("t", b, Exp::BinOp(BinOp::Gt, x, zero), loc);
        let away = self.let1("t", b, Exp::BinOp(BinOp::Eq, up, pos), loc);
        let away = self.let1("t", u, Exp::Convert(ScalarType::U16, away), loc);
        let twice = self.let1("t", u, Exp::BinOp(BinOp::Add, away, away), loc);
        // bits + 1 when moving away from zero, bits - 1 towards it.
        let stepped = self.let1("t", u, Exp::BinOp(BinOp::Add, bits, twice), loc);
        let one = Atom::Const(Const::U16(1));
        let stepped = self.let1("t", u, Exp::BinOp(BinOp::Sub, stepped, one), loc);
        let sign = Atom::Const(Const::U16(0x8000));
        let ysign = self.let1("t", u, Exp::BinOp(BinOp::And, ybits, sign), loc);
        let tiny = self.let1("t", u, Exp::BinOp(BinOp::Or, ysign, one), loc);
        let at_zero = self.let1("t", b, Exp::BinOp(BinOp::Eq, x, zero), loc);
        let from_zero = self.if_(
            at_zero,
            loc,
            |_| Value::Leaf(tiny, u),
            |_| Value::Leaf(stepped, u),
        );
        let (moved, _) = Self::scalar(&from_zero);
        let moved = self.let1("t", h, Exp::UnOp(UnOp::FromBits, moved), loc);
        let same = self.let1("t", b, Exp::BinOp(BinOp::Eq, x, y), loc);
        let xnan = self.let1("t", b, Exp::UnOp(UnOp::IsNan, x), loc);
        let ynan = self.let1("t", b, Exp::UnOp(UnOp::IsNan, y), loc);
        let nan = self.let1("t", b, Exp::BinOp(BinOp::Or, xnan, ynan), loc);
        let settled = self.if_(same, loc, |_| Value::Leaf(y, h), |_| Value::Leaf(moved, h));
        let settled = Self::scalar(&settled).0;
        let sum = self.let1("t", h, Exp::BinOp(BinOp::Add, x, y), loc);
        let result = self.if_(
            nan,
            loc,
            |_| Value::Leaf(sum, h),
            |_| Value::Leaf(settled, h),
        );
        Self::scalar(&result).0
    }

    /// `x * 2**n` with one rounding, as C's `scalbn`: the factor is applied
    /// in up to three powers of two that are each representable; below the
    /// normal range the first steps keep a mantissa's width of headroom so
    /// that only the last multiplication rounds.
    fn ldexp(&mut self, t: ScalarType, x: Atom, n: Atom, loc: SrcLoc) -> Atom {
        let (emax, mant) = match t {
            ScalarType::F16 => (15i32, 10i32),
            ScalarType::F32 => (127, 23),
            _ => (1023, 52),
        };
        let emin = 1 - emax;
        let down = emin + mant + 1;
        let i32_ = CType::Scalar(ScalarType::I32);
        let ty = CType::Scalar(t);
        let int = |v: i32| Atom::Const(Const::I32(v));
        // One step: `emax` above the range, `down` below it, else 0.
        let step = |s: &mut Self, n: Atom| -> Atom {
            let bool_ = CType::Scalar(ScalarType::Bool);
            let high = s.let1("t", bool_, Exp::BinOp(BinOp::Gt, n, int(emax)), loc);
            let low = s.let1("t", bool_, Exp::BinOp(BinOp::Lt, n, int(emin)), loc);
            let high = s.let1("t", i32_, Exp::Convert(ScalarType::I32, high), loc);
            let low = s.let1("t", i32_, Exp::Convert(ScalarType::I32, low), loc);
            let up = s.let1("t", i32_, Exp::BinOp(BinOp::Mul, high, int(emax)), loc);
            let dn = s.let1("t", i32_, Exp::BinOp(BinOp::Mul, low, int(down)), loc);
            s.let1("t", i32_, Exp::BinOp(BinOp::Add, up, dn), loc)
        };
        // 2**k for k in the normal range, from its bits.
        let pow2 = |s: &mut Self, k: Atom| -> Atom {
            let bits_t = t.bits_type();
            let bt = CType::Scalar(bits_t);
            let biased = s.let1("t", i32_, Exp::BinOp(BinOp::Add, k, int(emax)), loc);
            let wide = s.let1("t", bt, Exp::Convert(bits_t, biased), loc);
            let shift = Atom::Const(Const::int_wrapping(bits_t, mant as i128));
            let bits = s.let1("t", bt, Exp::BinOp(BinOp::Shl, wide, shift), loc);
            s.let1("t", ty, Exp::UnOp(UnOp::FromBits, bits), loc)
        };
        let mut y = x;
        let mut n = n;
        for _ in 0..2 {
            let k = step(self, n);
            let factor = pow2(self, k);
            y = self.let1("t", ty, Exp::BinOp(BinOp::Mul, y, factor), loc);
            n = self.let1("t", i32_, Exp::BinOp(BinOp::Sub, n, k), loc);
        }
        let n = self.let1("t", i32_, Exp::BinOp(BinOp::Min, n, int(emax)), loc);
        let n = self.let1("t", i32_, Exp::BinOp(BinOp::Max, n, int(emin)), loc);
        let factor = pow2(self, n);
        self.let1("t", ty, Exp::BinOp(BinOp::Mul, y, factor), loc)
    }
}
