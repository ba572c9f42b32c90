//! `f64` `exp`, `log` and `erf` as straight-line code (see the parent
//! module); glibc's are scalar calls. `exp`: Cody-Waite
//! range reduction to `|r| <= ln 2 / 2` and the Taylor polynomial of degree
//! 13 (the first term left out is below 2^-58 of the result); `log`: the
//! reduction to `m` in `[sqrt(1/2), sqrt(2))` and the classic odd series in
//! `s = (m - 1) / (m + 1)` with fdlibm's minimax coefficients; `erf`: see
//! `erf_f64`.
//!
//! Accuracy against glibc, measured by `tests/vmath64.rs` on 200,000
//! values spread over each function's finite range and dense sweeps of
//! `[-745, 710]` and `[-7, 7]`: at most 1 ulp (the test allows 2); special
//! values (NaN, infinities, zeros, negatives, subnormals, overflow and
//! underflow) are exactly libm's.

use crate::codegen::emit::{Gen, Res};
use inkwell::values::FloatValue;
use inkwell::FloatPredicate;

/// `ln 2` in two parts: the high part has 21 trailing zero bits, so `n *
/// LN2_HI` is exact for every exponent `n`.
pub(super) const LN2_HI: f64 = 0.6931471803691238;
pub(super) const LN2_LO: f64 = 1.9082149292705877e-10;

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

/// `erf(x) = x + x * Q(x^2)` below 1: a near-minimax fit (Chebyshev
/// interpolation in `mpmath`) of `erf(sqrt t) / sqrt t - 1` on `t` in
/// `[0, 1]`, error below 1.4e-19 (adding `x` last keeps the rounding of
/// the leading coefficient out of the result).
const ERF_SMALL: [f64; 13] = [
    0.1283791670955126,
    -0.3761263890318375,
    0.11283791670954879,
    -0.026866170645076792,
    0.0052239776248180145,
    -0.000854832698083379,
    0.0001205533111164271,
    -1.4925595266831182e-05,
    1.6461000484121368e-06,
    -1.6350312701054695e-07,
    1.4659775274047436e-08,
    -1.1372848856791674e-09,
    5.957176147748911e-11,
];

/// `erfc(x) = e^(-x^2) G(x)` from 1 to 6, fitted the same way in three
/// pieces in `u = x - c` (`c` the piece's centre, `ERFC_CENTRES`), each
/// to a relative error below 3e-17.
const ERFC_PIECES: [[f64; 17]; 3] = [
    [
        0.3215854164543175,
        -0.16362291773256005,
        0.0761510398554774,
        -0.03293090529956527,
        0.013377340953067394,
        -0.0051459575478377826,
        0.0018861348769919975,
        -0.0006619300701084315,
        0.0002233099453004411,
        -7.265887301589559e-05,
        2.2864299608127746e-05,
        -6.97536222785843e-06,
        2.0670657912156654e-06,
        -5.944961119917664e-07,
        1.6714292901928126e-07,
        -4.9545807838901603e-08,
        1.3242541506849586e-08,
    ],
    [
        0.1936620962790687,
        -0.06323763756063479,
        0.019758592987322854,
        -0.005934337897002171,
        0.0017195818852900986,
        -0.00048219508487679243,
        0.0001311818005084561,
        -3.469861074039318e-05,
        8.94015629298454e-06,
        -2.247366566986457e-06,
        5.519743740073735e-07,
        -1.3264839014463818e-07,
        3.121415013712102e-08,
        -7.156467021431838e-09,
        1.6207327188991065e-09,
        -4.056754880659121e-10,
        8.831959586426476e-11,
    ],
    [
        0.11630270721024731,
        -0.023503448598162904,
        0.0046613263689723,
        -0.0009080988970373065,
        0.00017392830404186873,
        -3.2775781066528116e-05,
        6.081114539531e-06,
        -1.1115679931156728e-06,
        2.002920135090727e-07,
        -3.5595168000590696e-08,
        6.242341780249905e-09,
        -1.081455682633195e-09,
        1.849140276993934e-10,
        -3.0750980426473406e-11,
        5.138680596045611e-12,
        -1.0277932486024302e-12,
        1.6722457190056534e-13,
    ],
];

/// The pieces of `ERFC_PIECES`: `[1, 2)`, `[2, 3.5)`, `[3.5, 6)`, by
/// their lower ends and centres.
const ERFC_STARTS: [f64; 3] = [1.0, 2.0, 3.5];
const ERFC_CENTRES: [f64; 3] = [1.5, 2.75, 4.75];

/// From here on `erfc(x)` is below a quarter of an ulp of 1: `erf` is 1.
const ERF_ONE: f64 = 6.0;

impl<'ctx> Gen<'ctx, '_> {
    pub(crate) fn exp_f64(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        self.exp_f64_dd(x, None)
    }

    /// `e^(x + low)` for a `low` below half an ulp of `x` (the low part of a
    /// double-double argument, for `erf` and `pow`): added to the reduced
    /// argument, so that it is not lost to rounding.
    pub(super) fn exp_f64_dd(
        &self,
        x: FloatValue<'ctx>,
        low: Option<FloatValue<'ctx>>,
    ) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        // Beyond these, the result overflows to infinity or underflows to 0.
        let hi = self.f64c(709.782_712_893_384);
        let lo = self.f64c(-745.133_219_101_941_1);
        let above = b.build_float_compare(FloatPredicate::OGT, x, hi, "")?;
        let below = b.build_float_compare(FloatPredicate::OLT, x, lo, "")?;
        let clamped = self.select_f(above, hi, x)?;
        let clamped = self.select_f(below, lo, clamped)?;
        let t = b.build_float_mul(clamped, self.f64c(std::f64::consts::LOG2_E), "")?;
        let n = self.call_intrinsic("llvm.rint", &[self.ctx.f64_type().into()], &[t.into()])?;
        let n = n.into_float_value();
        let r = b.build_float_sub(clamped, b.build_float_mul(n, self.f64c(LN2_HI), "")?, "")?;
        let r = b.build_float_sub(r, b.build_float_mul(n, self.f64c(LN2_LO), "")?, "")?;
        let r = match low {
            Some(low) => b.build_float_add(r, low, "")?,
            None => r,
        };
        // e^r = 1 + r + r^2 (1/2! + r/3! + ... + r^11/13!).
        let mut coefficients = Vec::new();
        let mut factorial = 1.0f64;
        for k in 2..=13 {
            factorial *= f64::from(k);
            coefficients.push(1.0 / factorial);
        }
        let p = self.horner_with(r, &coefficients, |c| self.f64c(c))?;
        let e = self.exp_finish(r, p, n)?;
        let e = self.select_f(above, self.f64c(f64::INFINITY), e)?;
        let e = self.select_f(below, self.f64c(0.0), e)?;
        self.select_f(b.build_float_compare(FloatPredicate::UNO, x, x, "")?, x, e)
    }

    pub(crate) fn log_f64(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let (k, m) = self.log_split(x)?;
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
        let res = self.select_f(
            b.build_float_compare(FloatPredicate::OEQ, x, self.f64c(0.0), "")?,
            self.f64c(f64::NEG_INFINITY),
            res,
        )?;
        let res = self.select_f(
            b.build_float_compare(FloatPredicate::OLT, x, self.f64c(0.0), "")?,
            self.f64c(f64::NAN),
            res,
        )?;
        let res = self.select_f(
            b.build_float_compare(FloatPredicate::OEQ, x, self.f64c(f64::INFINITY), "")?,
            x,
            res,
        )?;
        self.select_f(
            b.build_float_compare(FloatPredicate::UNO, x, x, "")?,
            x,
            res,
        )
    }

    /// `erf` of an `f64`: below 1 `x + x Q(x^2)` (`ERF_SMALL`); from 1 to 6
    /// `1 - e^(-x^2) G(x)` (`ERFC_PIECES`, one polynomial whose
    /// coefficients are selected per piece), with `x^2` split exactly
    /// into two parts so that `e^(-x^2)` loses nothing to its rounding;
    /// from 6 on 1. The sign is `x`'s.
    pub(crate) fn erf_f64(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let f64t = self.ctx.f64_type();
        let a = self.fabs(x)?;
        let (t, t_lo) = self.two_prod(a, a)?;
        let q = self.horner_with(t, &ERF_SMALL, |c| self.f64c(c))?;
        let small = b.build_float_add(a, b.build_float_mul(a, q, "")?, "")?;

        let which = ERFC_STARTS[1..]
            .iter()
            .map(|&s| self.fcmp(FloatPredicate::OGE, a, self.f64c(s)))
            .collect::<Res<Vec<_>>>()?;
        let mut centre = self.f64c(ERFC_CENTRES[0]);
        for (c, cond) in ERFC_CENTRES[1..].iter().zip(&which) {
            centre = self.select_f(*cond, self.f64c(*c), centre)?;
        }
        let u = b.build_float_sub(a, centre, "")?;
        let pieces: Vec<&[f64]> = ERFC_PIECES.iter().map(|p| &p[..]).collect();
        let g = self.horner_pieces(u, &pieces, &which)?;
        let e = self.exp_f64_dd(
            b.build_float_neg(t, "")?,
            Some(b.build_float_neg(t_lo, "")?),
        )?;
        let large = b.build_float_sub(self.f64c(1.0), b.build_float_mul(e, g, "")?, "")?;

        let below_one = self.fcmp(FloatPredicate::OLT, a, self.f64c(1.0))?;
        let r = self.select_f(below_one, small, large)?;
        // Infinities too; NaN compares unordered and stays in `r`.
        let one = self.fcmp(FloatPredicate::OGE, a, self.f64c(ERF_ONE))?;
        let r = self.select_f(one, self.f64c(1.0), r)?;
        let r = self.call_intrinsic("llvm.copysign", &[f64t.into()], &[r.into(), x.into()])?;
        let r = r.into_float_value();
        self.select_f(self.fcmp(FloatPredicate::UNO, x, x)?, x, r)
    }
}
