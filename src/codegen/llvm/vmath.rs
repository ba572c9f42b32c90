//! `f32` `exp` and `log` as straight-line code (no calls, no branches), so
//! that the loop vectoriser can run them on whole vectors; libm's `expf`
//! and `logf` are scalar calls that stop it. Cody-Waite range reduction
//! and minimax polynomials (the classic Cephes coefficients), evaluated in
//! `f32` without fused multiply-adds so results do not depend on the CPU.
//!
//! Accuracy against glibc's `expf`/`logf`, measured by `tests/vmath.rs`
//! over every 193rd `f32` (positive and negative): at most 1 ulp (the test
//! allows 2); special values (NaN, infinities, zeros, negatives,
//! subnormals, overflow and underflow) are exactly libm's.

use super::{Gen, Res};
use inkwell::values::{FloatValue, IntValue};
use inkwell::FloatPredicate;

impl<'ctx> Gen<'ctx, '_> {
    fn f32c(&self, v: f32) -> FloatValue<'ctx> {
        self.ctx.f32_type().const_float(f64::from(v))
    }

    fn i32c(&self, v: i32) -> IntValue<'ctx> {
        self.ctx.i32_type().const_int(v as u32 as u64, false)
    }

    /// `c[0] + x * (c[1] + x * (...))`.
    fn horner(&self, x: FloatValue<'ctx>, coefficients: &[f32]) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let mut acc = self.f32c(coefficients[coefficients.len() - 1]);
        for c in coefficients.iter().rev().skip(1) {
            acc = b.build_float_mul(acc, x, "")?;
            acc = b.build_float_add(acc, self.f32c(*c), "")?;
        }
        Ok(acc)
    }

    /// `2^n` for `n` in -126..=127, built from its bits.
    fn pow2(&self, n: IntValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let biased = b.build_int_add(n, self.i32c(127), "")?;
        let bits = b.build_left_shift(biased, self.i32c(23), "")?;
        Ok(b.build_bit_cast(bits, self.ctx.f32_type(), "")?
            .into_float_value())
    }

    pub(super) fn exp_f32(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        // Beyond these, the result overflows to infinity or underflows to 0.
        let hi = self.f32c(88.722_84);
        let lo = self.f32c(-103.972_08);
        let clamped = self.select_f(
            b.build_float_compare(FloatPredicate::OGT, x, hi, "")?,
            hi,
            x,
        )?;
        let clamped = self.select_f(
            b.build_float_compare(FloatPredicate::OLT, clamped, lo, "")?,
            lo,
            clamped,
        )?;
        // x = n ln 2 + r, |r| <= ln 2 / 2, with ln 2 split in two so that
        // n * LN2_HI is exact.
        let t = b.build_float_mul(clamped, self.f32c(std::f32::consts::LOG2_E), "")?;
        let n = self.call_intrinsic("llvm.rint", &[self.ctx.f32_type().into()], &[t.into()])?;
        let n = n.into_float_value();
        let r = b.build_float_sub(
            clamped,
            b.build_float_mul(n, self.f32c(0.693_359_4), "")?,
            "",
        )?;
        let r = b.build_float_sub(r, b.build_float_mul(n, self.f32c(-2.121_944_4e-4), "")?, "")?;
        let p = self.horner(
            r,
            &[
                5e-1,
                1.666_666_5e-1,
                4.166_579_6e-2,
                8.333_452e-3,
                1.398_2e-3,
                1.987_569_1e-4,
            ],
        )?;
        let r2 = b.build_float_mul(r, r, "")?;
        let e = b.build_float_add(b.build_float_mul(p, r2, "")?, r, "")?;
        let e = b.build_float_add(e, self.f32c(1.0), "")?;
        // Scale by 2^n in two steps so that subnormal results and 2^128
        // (just below the overflow bound) are reached without leaving the
        // range of normal exponents.
        let ni = b.build_float_to_signed_int(n, self.ctx.i32_type(), "")?;
        let half = b.build_right_shift(ni, self.i32c(1), true, "")?;
        let rest = b.build_int_sub(ni, half, "")?;
        let e = b.build_float_mul(e, self.pow2(half)?, "")?;
        let e = b.build_float_mul(e, self.pow2(rest)?, "")?;
        let e = self.select_f(
            b.build_float_compare(FloatPredicate::OGT, x, hi, "")?,
            self.f32c(f32::INFINITY),
            e,
        )?;
        let e = self.select_f(
            b.build_float_compare(FloatPredicate::OLT, x, lo, "")?,
            self.f32c(0.0),
            e,
        )?;
        // NaN in, NaN out.
        self.select_f(b.build_float_compare(FloatPredicate::UNO, x, x, "")?, x, e)
    }

    pub(super) fn log_f32(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let i32t = self.ctx.i32_type();
        // Subnormals: scale into the normal range first (2^25), correct the
        // exponent afterwards.
        let tiny =
            b.build_float_compare(FloatPredicate::OLT, x, self.f32c(f32::MIN_POSITIVE), "")?;
        let scaled = b.build_float_mul(x, self.f32c(33_554_432.0), "")?;
        let xs = self.select_f(tiny, scaled, x)?;
        let bias = b
            .build_select(tiny, self.i32c(126 + 25), self.i32c(126), "")?
            .into_int_value();
        // x = m 2^e with m in [sqrt(1/2), sqrt(2)).
        let bits = b.build_bit_cast(xs, i32t, "")?.into_int_value();
        let exp_bits = b.build_right_shift(bits, self.i32c(23), false, "")?;
        let exp_bits = b.build_and(exp_bits, self.i32c(0xff), "")?;
        let e = b.build_int_sub(exp_bits, bias, "")?;
        let mant = b.build_and(bits, self.i32c(0x007f_ffff), "")?;
        let mant = b.build_or(mant, self.i32c(0x3f00_0000), "")?;
        let m = b
            .build_bit_cast(mant, self.ctx.f32_type(), "")?
            .into_float_value();
        let small = b.build_float_compare(
            FloatPredicate::OLT,
            m,
            self.f32c(std::f32::consts::FRAC_1_SQRT_2),
            "",
        )?;
        let e = b.build_int_sub(e, b.build_int_z_extend(small, i32t, "")?, "")?;
        let doubled = b.build_float_add(m, m, "")?;
        let m = self.select_f(small, doubled, m)?;
        let m = b.build_float_sub(m, self.f32c(1.0), "")?;
        let z = b.build_float_mul(m, m, "")?;
        let p = self.horner(
            m,
            &[
                3.333_333e-1,
                -2.499_999_4e-1,
                2.000_071_4e-1,
                -1.666_805_8e-1,
                1.424_932_3e-1,
                -1.242_014_1e-1,
                1.167_699_9e-1,
                -1.151_461e-1,
                7.037_683_6e-2,
            ],
        )?;
        let ef = b.build_signed_int_to_float(e, self.ctx.f32_type(), "")?;
        let y = b.build_float_mul(b.build_float_mul(m, z, "")?, p, "")?;
        let y = b.build_float_add(
            y,
            b.build_float_mul(ef, self.f32c(-2.121_944_4e-4), "")?,
            "",
        )?;
        let y = b.build_float_sub(y, b.build_float_mul(z, self.f32c(0.5), "")?, "")?;
        let r = b.build_float_add(m, y, "")?;
        let r = b.build_float_add(r, b.build_float_mul(ef, self.f32c(0.693_359_4), "")?, "")?;
        // Special values: log 0 = -inf, log of a negative = NaN, log inf =
        // inf, NaN stays NaN.
        let r = self.select_f(
            b.build_float_compare(FloatPredicate::OEQ, x, self.f32c(0.0), "")?,
            self.f32c(f32::NEG_INFINITY),
            r,
        )?;
        let r = self.select_f(
            b.build_float_compare(FloatPredicate::OLT, x, self.f32c(0.0), "")?,
            self.f32c(f32::NAN),
            r,
        )?;
        let r = self.select_f(
            b.build_float_compare(FloatPredicate::OEQ, x, self.f32c(f32::INFINITY), "")?,
            x,
            r,
        )?;
        self.select_f(b.build_float_compare(FloatPredicate::UNO, x, x, "")?, x, r)
    }

    fn select_f(
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
}
