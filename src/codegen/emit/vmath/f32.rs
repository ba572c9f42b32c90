//! `f32` `exp`, `log` and `erf` as straight-line code (see the parent
//! module); libm's `expf`, `logf` and `erff` are scalar calls. `exp`
//! and `log`: Cody-Waite range reduction and minimax polynomials (the
//! classic Cephes coefficients), evaluated in `f32`; `erf`: a series and a
//! fitted tail evaluated in `f64` (see `erf_f32`).
//!
//! Accuracy against glibc's `expf`/`logf`/`erff`, measured by
//! `tests/vmath.rs` over every 193rd `f32` (positive and negative): at
//! most 1 ulp (the test allows 2); special values (NaN, infinities, zeros,
//! negatives, subnormals, overflow and underflow) are exactly libm's.

use crate::codegen::emit::{Gen, Res};

/// Terms of the Maclaurin series of `erf` that `erf_f32` sums below 2.
const ERF_SERIES_TERMS: i32 = 24;

/// `h(v)` with `erfc(x) = exp(-x^2) / (x sqrt(pi)) * h(1/x^2)`, a
/// least-squares fit in `v` over 200 Chebyshev nodes of `[0, 1/4]` (x from
/// 2 to infinity) to values from `mpmath`: relative error below 7.6e-9.
const ERFC_TAIL: [f64; 9] = [
    0.999_999_992_488_994,
    -0.499_994_789_063_663_1,
    0.749_391_477_077_169_5,
    -1.846_681_572_212_418_8,
    5.864_204_173_179_689,
    -18.874_358_883_373_315,
    48.594_891_564_830_02,
    -80.175_336_134_243_01,
    60.601_945_387_042_05,
];

/// The coefficients of `erf(x) = x * sum c_n (x^2)^n`: `2/sqrt(pi) *
/// (-1)^n / (n! (2n + 1))`.
fn erf_series() -> Vec<f64> {
    let mut factorial = 1.0;
    (0..ERF_SERIES_TERMS)
        .map(|n| {
            if n > 0 {
                factorial *= f64::from(n);
            }
            let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
            std::f64::consts::FRAC_2_SQRT_PI * sign / (factorial * f64::from(2 * n + 1))
        })
        .collect()
}
use inkwell::values::FloatValue;
use inkwell::FloatPredicate;

impl<'ctx> Gen<'ctx, '_> {
    /// `c[0] + x * (c[1] + x * (...))` in `f32`.
    fn horner(&self, x: FloatValue<'ctx>, coefficients: &[f32]) -> Res<FloatValue<'ctx>> {
        let wide: Vec<f64> = coefficients.iter().map(|&c| f64::from(c)).collect();
        self.horner_with(x, &wide, |c| self.ctx.f32_type().const_float(c))
    }

    pub(crate) fn exp_f32(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
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
        let e = self.exp_finish(r, p, n)?;
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

    pub(crate) fn log_f32(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let (e, m) = self.log_split(x)?;
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

    /// `erf` of an `f32`, computed in `f64` and rounded once. Below 2 the
    /// Maclaurin series (`ERF_SERIES_TERMS` terms: the first left out is
    /// below 1e-11 there); from 2 on `1 - erfc`, with `erfc(x) = exp(-x^2)
    /// / (x sqrt(pi)) * h(1/x^2)` and `h` the fitted `ERFC_TAIL`; from 4.5
    /// on, where `erfc` is below half an ulp of 1, exactly 1. `exp` is the
    /// `f32` one above, corrected to first order for the part of `-x^2` it
    /// cannot take (`x^2` is exact in `f64`).
    pub(crate) fn erf_f32(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let f32t = self.ctx.f32_type();
        let f64t = self.ctx.f64_type();
        let f64c = |v: f64| f64t.const_float(v);
        let abs = self.call_intrinsic("llvm.fabs", &[f32t.into()], &[x.into()])?;
        let ax = b.build_float_ext(abs.into_float_value(), f64t, "")?;
        let t = b.build_float_mul(ax, ax, "")?;
        let series = erf_series();
        let small = b.build_float_mul(ax, self.horner_with(t, &series, f64c)?, "")?;

        let two = f64c(2.0);
        let at_least_two = b.build_float_compare(FloatPredicate::OGT, ax, two, "")?;
        let z = self.select_f(at_least_two, ax, two)?;
        let u = b.build_float_div(f64c(1.0), z, "")?;
        let tail = self.horner_with(b.build_float_mul(u, u, "")?, &ERFC_TAIL, f64c)?;
        let minus_t = b.build_float_neg(t, "")?;
        let hi = b.build_float_trunc(minus_t, f32t, "")?;
        let lo = b.build_float_sub(minus_t, b.build_float_ext(hi, f64t, "")?, "")?;
        let e = b.build_float_ext(self.exp_f32(hi)?, f64t, "")?;
        let e = b.build_float_mul(e, b.build_float_add(f64c(1.0), lo, "")?, "")?;
        let scale = b.build_float_mul(u, f64c(1.0 / std::f64::consts::PI.sqrt()), "")?;
        let erfc = b.build_float_mul(b.build_float_mul(e, scale, "")?, tail, "")?;
        let large = b.build_float_sub(f64c(1.0), erfc, "")?;

        let r = self.select_f(
            b.build_float_compare(FloatPredicate::OLT, ax, two, "")?,
            small,
            large,
        )?;
        let r = self.select_f(
            b.build_float_compare(FloatPredicate::OGE, ax, f64c(4.5), "")?,
            f64c(1.0),
            r,
        )?;
        let r = b.build_float_trunc(r, f32t, "")?;
        let r = self.call_intrinsic("llvm.copysign", &[f32t.into()], &[r.into(), x.into()])?;
        // NaN in, NaN out.
        self.select_f(
            b.build_float_compare(FloatPredicate::UNO, x, x, "")?,
            x,
            r.into_float_value(),
        )
    }
}
