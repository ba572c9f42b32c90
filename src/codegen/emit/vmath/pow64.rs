//! `f64` `pow` as `e^(y log |x|)`, with `log |x|` and its product by `y`
//! carried as double-doubles (`log_f64_dd`, `two_prod`) so that the error
//! of `y log |x|`, which `e^` turns into a relative error of the result,
//! stays far below an ulp of the result while `|y log x|` is moderate;
//! `e^` takes the low part in its reduced argument (`exp_f64_dd`). Signs,
//! zeros, infinities and NaN follow C99's `pow` exactly (selects, no
//! branches).
//!
//! Accuracy against glibc, measured by `tests/vmath64.rs` on 200,000
//! random bases in `[2^-30, 2^30]` (a quarter negative, with integer
//! exponents) and exponents in `[-20, 20]` (so `|y log x|` up to 416):
//! at most 1 ulp (the test allows 2); integer powers of 2 and 10 that are
//! exactly representable come out exact; special values are exactly
//! libm's.

use super::f64::{LN2_HI, LN2_LO};
use crate::codegen::emit::{Gen, Res};
use inkwell::values::{FloatValue, IntValue};
use inkwell::FloatPredicate;

/// `T(z)` with `log(1 + f) = 2s + s z T(z)`, `s = f / (2 + f)`, `z = s^2`,
/// for `f + 1` in `[sqrt(1/2), sqrt(2))` (`z` up to 0.0295): a
/// near-minimax fit (`mpmath`) of `(2 atanh(s) / s - 2) / z`, error below
/// 2e-20.
const LOG_T: [f64; 9] = [
    0.6666666666666666,
    0.3999999999999999,
    0.2857142857143563,
    0.22222222219777607,
    0.18181818605445013,
    0.1538457420874962,
    0.13335678514714808,
    0.11687233189552514,
    0.11890045085576857,
];

impl<'ctx> Gen<'ctx, '_> {
    /// `log x` for a positive, finite, nonzero `x`, as `(hi, lo)` with
    /// `hi + lo` within about 2^-60 of `log x` relative.
    fn log_f64_dd(&self, x: FloatValue<'ctx>) -> Res<(FloatValue<'ctx>, FloatValue<'ctx>)> {
        let b = &self.builder;
        let f64t = self.ctx.f64_type();
        let (k, m) = self.log_split(x)?;
        // f = m - 1 is exact; s = f / (2 + f) as s + s_lo.
        let f = b.build_float_sub(m, self.f64c(1.0), "")?;
        let d = b.build_float_add(self.f64c(2.0), f, "")?;
        let d_lo = b.build_float_sub(f, b.build_float_sub(d, self.f64c(2.0), "")?, "")?;
        let s = b.build_float_div(f, d, "")?;
        let minus_s = b.build_float_neg(s, "")?;
        let residual = self.fma(minus_s, d, f)?;
        let residual = self.fma(minus_s, d_lo, residual)?;
        let s_lo = b.build_float_div(residual, d, "")?;
        // log x = k ln2_hi + 2s + (2 s_lo + s z T(z) + k ln2_lo).
        let z = b.build_float_mul(s, s, "")?;
        let tail = b.build_float_mul(
            b.build_float_mul(s, z, "")?,
            self.horner_with(z, &LOG_T, |c| self.f64c(c))?,
            "",
        )?;
        let kf = b.build_signed_int_to_float(k, f64t, "")?;
        let two_s = b.build_float_add(s, s, "")?;
        let (hi, e) = self.two_sum(b.build_float_mul(kf, self.f64c(LN2_HI), "")?, two_s)?;
        let lo = b.build_float_add(b.build_float_add(s_lo, s_lo, "")?, tail, "")?;
        let lo = self.fma(kf, self.f64c(LN2_LO), lo)?;
        let lo = b.build_float_add(e, lo, "")?;
        let sum = b.build_float_add(hi, lo, "")?;
        let lo = b.build_float_sub(lo, b.build_float_sub(sum, hi, "")?, "")?;
        Ok((sum, lo))
    }

    /// Whether `v` is an integer (false for infinities and NaN).
    fn is_integer(&self, v: FloatValue<'ctx>) -> Res<IntValue<'ctx>> {
        let t = v.get_type().into();
        let tr = self
            .call_intrinsic("llvm.trunc", &[t], &[v.into()])?
            .into_float_value();
        let same = self.fcmp(FloatPredicate::OEQ, tr, v)?;
        let finite = self.fcmp(FloatPredicate::OLT, self.fabs(v)?, self.f64c(f64::INFINITY))?;
        Ok(self.builder.build_and(same, finite, "")?)
    }

    pub(crate) fn pow_f64(
        &self,
        x: FloatValue<'ctx>,
        y: FloatValue<'ctx>,
    ) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let ax = self.fabs(x)?;
        let ay = self.fabs(y)?;
        let y_int = self.is_integer(y)?;
        let half_y = b.build_float_mul(y, self.f64c(0.5), "")?;
        let y_odd = b.build_and(y_int, b.build_not(self.is_integer(half_y)?, "")?, "")?;
        let x_neg_bits = b
            .build_bit_cast(x, self.ctx.i64_type(), "")?
            .into_int_value();
        let x_sign =
            b.build_int_compare(inkwell::IntPredicate::SLT, x_neg_bits, self.i64c(0), "")?;
        let negate = b.build_and(x_sign, y_odd, "")?;

        // |x|^y for finite nonzero x and finite y.
        let (lh, ll) = self.log_f64_dd(ax)?;
        let (ph, pl) = self.two_prod(y, lh)?;
        let pl = self.fma(y, ll, pl)?;
        let h = b.build_float_add(ph, pl, "")?;
        let l = b.build_float_sub(pl, b.build_float_sub(h, ph, "")?, "")?;
        // Far beyond overflow or underflow the low part may be NaN
        // (infinity minus infinity); the high part alone decides.
        let huge = self.fcmp(FloatPredicate::UGT, self.fabs(ph)?, self.f64c(2000.0))?;
        let h = self.select_f(huge, ph, h)?;
        let l = self.select_f(huge, self.f64c(0.0), l)?;
        let general = self.exp_f64_dd(h, Some(l))?;
        // A negative base needs an integer exponent.
        let x_neg = self.fcmp(FloatPredicate::OLT, x, self.f64c(0.0))?;
        let invalid = b.build_and(x_neg, b.build_not(y_int, "")?, "")?;
        let general = self.select_f(invalid, self.f64c(f64::NAN), general)?;

        // x zero or infinite, or y infinite: 1 where |x| = 1, else infinity
        // where |x| > 1 and y > 0 agree, 0 where they differ.
        let inf = self.f64c(f64::INFINITY);
        let x_zero = self.fcmp(FloatPredicate::OEQ, ax, self.f64c(0.0))?;
        let x_inf = self.fcmp(FloatPredicate::OEQ, ax, inf)?;
        let y_inf = self.fcmp(FloatPredicate::OEQ, ay, inf)?;
        let special = b.build_or(b.build_or(x_zero, x_inf, "")?, y_inf, "")?;
        let grows = b.build_int_compare(
            inkwell::IntPredicate::EQ,
            self.fcmp(FloatPredicate::OGT, ax, self.f64c(1.0))?,
            self.fcmp(FloatPredicate::OGT, y, self.f64c(0.0))?,
            "",
        )?;
        let edge = self.select_f(grows, inf, self.f64c(0.0))?;
        let edge = self.select_f(
            self.fcmp(FloatPredicate::OEQ, ax, self.f64c(1.0))?,
            self.f64c(1.0),
            edge,
        )?;
        let r = self.select_f(special, edge, general)?;
        let r = self.select_f(negate, b.build_float_neg(r, "")?, r)?;
        // NaN in, NaN out, except pow(x, 0) = pow(1, y) = 1.
        let nan = self.fcmp(FloatPredicate::UNO, x, y)?;
        let r = self.select_f(nan, b.build_float_add(x, y, "")?, r)?;
        let one = b.build_or(
            self.fcmp(FloatPredicate::OEQ, y, self.f64c(0.0))?,
            self.fcmp(FloatPredicate::OEQ, x, self.f64c(1.0))?,
            "",
        )?;
        self.select_f(one, self.f64c(1.0), r)
    }
}
