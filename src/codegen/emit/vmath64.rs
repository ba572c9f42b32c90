//! `f64` `exp` and `log` as straight-line code (no calls, no branches), so
//! that the loop vectoriser can run them on whole vectors, as `vmath` does
//! for `f32`: glibc's `exp` and `log` are scalar calls. `exp`: Cody-Waite
//! range reduction to `|r| <= ln 2 / 2` and the Taylor polynomial of degree
//! 13 (the first term left out is below 2^-58 of the result); `log`: the
//! reduction to `m` in `[sqrt(1/2), sqrt(2))` and the classic odd series in
//! `s = (m - 1) / (m + 1)` with fdlibm's minimax coefficients. Their
//! multiplies and adds may contract into fused multiply-adds, as the
//! program's own may, unless `--strict-fp` (`Gen::contracting`); the
//! accuracy below holds either way.
//!
//! Accuracy against glibc's `exp`/`log`, measured by `tests/vmath.rs` on
//! 200,000 values spread over each function's finite range: at most 1 ulp
//! (the test allows 2); special values (NaN, infinities, zeros, negatives,
//! subnormals, overflow and underflow) are exactly libm's.

use super::{Gen, Res};
use inkwell::values::{FloatValue, IntValue};
use inkwell::FloatPredicate;

/// `ln 2` in two parts: the high part has 21 trailing zero bits, so `n *
/// LN2_HI` is exact for every exponent `n`.
const LN2_HI: f64 = 0.6931471803691238;
const LN2_LO: f64 = 1.9082149292705877e-10;

/// The coefficients of `R(z)` in `log(1 + f) = f - f^2/2 + s (f^2/2 + R)`
/// with `s = f / (2 + f)`, `z = s^2`: fdlibm's minimax fit of
/// `(log(1 + f) - 2s) / s - ...` (published with `e_log.c`).
const LOG_R: [f64; 7] = [
    0.6666666666666735,
    0.3999999999940942,
    0.2857142874366239,
    0.22222198432149784,
    0.1818357216161805,
    0.15313837699209373,
    0.14798198605116586,
];

impl<'ctx> Gen<'ctx, '_> {
    fn f64c(&self, v: f64) -> FloatValue<'ctx> {
        self.ctx.f64_type().const_float(v)
    }

    fn i64c(&self, v: i64) -> IntValue<'ctx> {
        self.ctx.i64_type().const_int(v as u64, true)
    }

    fn select_d(
        &self,
        cond: IntValue<'ctx>,
        a: FloatValue<'ctx>,
        b: FloatValue<'ctx>,
    ) -> Res<FloatValue<'ctx>> {
        Ok(self
            .builder
            .build_select(cond, a, b, "")?
            .into_float_value())
    }

    /// `2^n` for `n` in -1022..=1023, built from its bits.
    fn pow2_f64(&self, n: IntValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let biased = b.build_int_add(n, self.i64c(1023), "")?;
        let bits = b.build_left_shift(biased, self.i64c(52), "")?;
        Ok(b.build_bit_cast(bits, self.ctx.f64_type(), "")?
            .into_float_value())
    }

    pub(crate) fn exp_f64(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        // Beyond these, the result overflows to infinity or underflows to 0.
        let hi = self.f64c(709.782_712_893_384);
        let lo = self.f64c(-745.133_219_101_941_1);
        let above = b.build_float_compare(FloatPredicate::OGT, x, hi, "")?;
        let below = b.build_float_compare(FloatPredicate::OLT, x, lo, "")?;
        let clamped = self.select_d(above, hi, x)?;
        let clamped = self.select_d(below, lo, clamped)?;
        let t = b.build_float_mul(clamped, self.f64c(std::f64::consts::LOG2_E), "")?;
        let n = self.call_intrinsic("llvm.rint", &[self.ctx.f64_type().into()], &[t.into()])?;
        let n = n.into_float_value();
        let r = b.build_float_sub(clamped, b.build_float_mul(n, self.f64c(LN2_HI), "")?, "")?;
        let r = b.build_float_sub(r, b.build_float_mul(n, self.f64c(LN2_LO), "")?, "")?;
        // e^r = 1 + r + r^2 (1/2! + r/3! + ... + r^11/13!).
        let mut coefficients = Vec::new();
        let mut factorial = 1.0f64;
        for k in 2..=13 {
            factorial *= f64::from(k);
            coefficients.push(1.0 / factorial);
        }
        let p = self.horner_with(r, &coefficients, |c| self.f64c(c))?;
        let r2 = b.build_float_mul(r, r, "")?;
        let e = b.build_float_add(b.build_float_mul(p, r2, "")?, r, "")?;
        let e = b.build_float_add(e, self.f64c(1.0), "")?;
        // Scale by 2^n in two steps, so that subnormal results and those
        // just below the overflow bound stay within normal exponents.
        let ni = b.build_float_to_signed_int(n, self.ctx.i64_type(), "")?;
        let half = b.build_right_shift(ni, self.i64c(1), true, "")?;
        let rest = b.build_int_sub(ni, half, "")?;
        let e = b.build_float_mul(e, self.pow2_f64(half)?, "")?;
        let e = b.build_float_mul(e, self.pow2_f64(rest)?, "")?;
        let e = self.select_d(above, self.f64c(f64::INFINITY), e)?;
        let e = self.select_d(below, self.f64c(0.0), e)?;
        self.select_d(b.build_float_compare(FloatPredicate::UNO, x, x, "")?, x, e)
    }

    pub(crate) fn log_f64(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let i64t = self.ctx.i64_type();
        // Subnormals: scale into the normal range first (2^54), correct the
        // exponent afterwards.
        let tiny =
            b.build_float_compare(FloatPredicate::OLT, x, self.f64c(f64::MIN_POSITIVE), "")?;
        let scaled = b.build_float_mul(x, self.f64c(18_014_398_509_481_984.0), "")?;
        let xs = self.select_d(tiny, scaled, x)?;
        let bias = b
            .build_select(tiny, self.i64c(1022 + 54), self.i64c(1022), "")?
            .into_int_value();
        // x = m 2^k with m in [sqrt(1/2), sqrt(2)).
        let bits = b.build_bit_cast(xs, i64t, "")?.into_int_value();
        let exp_bits = b.build_right_shift(bits, self.i64c(52), false, "")?;
        let exp_bits = b.build_and(exp_bits, self.i64c(0x7ff), "")?;
        let k = b.build_int_sub(exp_bits, bias, "")?;
        let mant = b.build_and(bits, self.i64c(0x000f_ffff_ffff_ffff), "")?;
        let mant = b.build_or(mant, self.i64c(0x3fe0_0000_0000_0000), "")?;
        let m = b
            .build_bit_cast(mant, self.ctx.f64_type(), "")?
            .into_float_value();
        let small = b.build_float_compare(
            FloatPredicate::OLT,
            m,
            self.f64c(std::f64::consts::FRAC_1_SQRT_2),
            "",
        )?;
        let k = b.build_int_sub(k, b.build_int_z_extend(small, i64t, "")?, "")?;
        let doubled = b.build_float_add(m, m, "")?;
        let m = self.select_d(small, doubled, m)?;
        let f = b.build_float_sub(m, self.f64c(1.0), "")?;
        let s = b.build_float_div(f, b.build_float_add(f, self.f64c(2.0), "")?, "")?;
        let z = b.build_float_mul(s, s, "")?;
        let r = b.build_float_mul(z, self.horner_with(z, &LOG_R, |c| self.f64c(c))?, "")?;
        let hfsq = b.build_float_mul(b.build_float_mul(f, f, "")?, self.f64c(0.5), "")?;
        let kf = b.build_signed_int_to_float(k, self.ctx.f64_type(), "")?;
        // log x = k ln2_hi - ((hfsq - (s (hfsq + R) + k ln2_lo)) - f).
        let t = b.build_float_mul(s, b.build_float_add(hfsq, r, "")?, "")?;
        let t = b.build_float_add(t, b.build_float_mul(kf, self.f64c(LN2_LO), "")?, "")?;
        let t = b.build_float_sub(hfsq, t, "")?;
        let t = b.build_float_sub(t, f, "")?;
        let res = b.build_float_sub(b.build_float_mul(kf, self.f64c(LN2_HI), "")?, t, "")?;
        // log 0 = -inf, log of a negative = NaN, log inf = inf, NaN stays.
        let res = self.select_d(
            b.build_float_compare(FloatPredicate::OEQ, x, self.f64c(0.0), "")?,
            self.f64c(f64::NEG_INFINITY),
            res,
        )?;
        let res = self.select_d(
            b.build_float_compare(FloatPredicate::OLT, x, self.f64c(0.0), "")?,
            self.f64c(f64::NAN),
            res,
        )?;
        let res = self.select_d(
            b.build_float_compare(FloatPredicate::OEQ, x, self.f64c(f64::INFINITY), "")?,
            x,
            res,
        )?;
        self.select_d(
            b.build_float_compare(FloatPredicate::UNO, x, x, "")?,
            x,
            res,
        )
    }
}
