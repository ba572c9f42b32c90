//! `f64` `sin` and `cos`. The argument is reduced to `r = x - n pi/2`,
//! `|r| <= pi/4`, with `pi/2` in three parts of 53 bits (`PIO2`): the
//! first product is exact inside a fused multiply-add, the second is kept
//! exact as a double-double, so `r` is a double-double whose error is far
//! below an ulp even where `x` is close to a multiple of `pi/2`. Then `sin r
//! = r + r^3 S(r^2)` and `cos r = 1 - r^2/2 + r^4 C(r^2)`, near-minimax
//! fits (`mpmath`), and `n mod 4` picks the sign and which of the two.
//! The reduction is exact while `n` has few enough bits, `|x| < 2^28`
//! (`FAST_LIMIT`, about 2.7e8); larger arguments, infinities and NaN go
//! to libm in a branch the vectoriser predicates (`unless_in_range`).
//!
//! Accuracy against glibc, measured by `tests/vmath64.rs` on 100,000
//! random values in `|x| < 2.7e8`, 100,000 evenly spaced in `[-10, 10]`,
//! the first 2,000 multiples of `pi/2` and values of every magnitude: at
//! most 1 ulp (the test allows 2); beyond `2^28`, exactly libm's.

use crate::codegen::emit::{Gen, Res};
use inkwell::values::FloatValue;
use inkwell::FloatPredicate;

/// `pi/2` as the sum of three `f64`s, each the rounding of what the
/// previous ones leave (the next part would be below 6e-50).
const PIO2: [f64; 3] = [
    std::f64::consts::FRAC_PI_2,
    6.123_233_995_736_766e-17,
    -1.497_384_904_859_169_8e-33,
];

/// Below this `|x|`, `n = rint(x 2/pi)` has at most 28 bits, so `x - n
/// PIO2[0]` is exact and `|r|` exceeds `pi/4` by under 2^-24.
const FAST_LIMIT: f64 = 268_435_456.0;

/// `S(z)` with `sin r = r + r^3 S(r^2)` for `|r| <= pi/4 + 0.001`
/// (relative error below 1e-19).
const SIN_S: [f64; 7] = [
    -0.16666666666666666,
    0.008333333333333331,
    -0.00019841269841265003,
    2.7557319219291695e-06,
    -2.5052106215978872e-08,
    1.6058529011960858e-10,
    -7.586543634101903e-13,
];

/// `C(z)` with `cos r = 1 - r^2/2 + r^4 C(r^2)` on the same range.
const COS_C: [f64; 7] = [
    0.041666666666666664,
    -0.0013888888888888887,
    2.480158730158461e-05,
    -2.7557319221376434e-07,
    2.08767557819242e-09,
    -1.1470459438155826e-11,
    4.7457865678652127e-14,
];

/// Below this `|x|`, `sin x` rounds to `x` and `cos x` to 1.
const TINY: f64 = 3.725_290_298_461_914e-9;

impl<'ctx> Gen<'ctx, '_> {
    /// `sin x` (`cosine` false) or `cos x` (true), straight-line for `|x|
    /// < FAST_LIMIT`, libm's beyond.
    pub(crate) fn sin_cos_f64(&self, x: FloatValue<'ctx>, cosine: bool) -> Res<FloatValue<'ctx>> {
        if self.nvptx() {
            // A GPU kernel: libdevice's `sin` and `cos`, as before.
            let name = if cosine { "llvm.cos" } else { "llvm.sin" };
            let t = self.ctx.f64_type().into();
            return Ok(self
                .call_intrinsic(name, &[t], &[x.into()])?
                .into_float_value());
        }
        let fast = self.contracting(|g| g.sin_cos_fast(x, cosine))?;
        let a = self.fabs(x)?;
        let in_range = self.fcmp(FloatPredicate::OLT, a, self.f64c(FAST_LIMIT))?;
        let name = if cosine { "cos" } else { "sin" };
        self.unless_in_range(in_range, fast, |g| g.pure_libm(name, x))
    }

    /// Whether the code goes into an NVPTX device module, where the loop
    /// vectoriser's masked wrappers have no use.
    fn nvptx(&self) -> bool {
        self.module
            .get_triple()
            .as_str()
            .to_string_lossy()
            .starts_with("nvptx")
    }

    fn sin_cos_fast(&self, x: FloatValue<'ctx>, cosine: bool) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let i64t = self.ctx.i64_type();
        let t = b.build_float_mul(x, self.f64c(std::f64::consts::FRAC_2_PI), "")?;
        let n = self.rint(t)?;
        let minus_n = b.build_float_neg(n, "")?;
        let a1 = self.fma(minus_n, self.f64c(PIO2[0]), x)?;
        let (t_hi, t_lo) = self.two_prod(n, self.f64c(PIO2[1]))?;
        let (r_hi, e) = self.two_sum(a1, b.build_float_neg(t_hi, "")?)?;
        let r_lo = b.build_float_sub(e, t_lo, "")?;
        let r_lo = self.fma(minus_n, self.f64c(PIO2[2]), r_lo)?;
        // r = y + yl with |yl| at most half an ulp of y.
        let y = b.build_float_add(r_hi, r_lo, "")?;
        let yl = b.build_float_sub(r_lo, b.build_float_sub(y, r_hi, "")?, "")?;

        let (z, z_lo) = self.two_prod(y, y)?;
        // sin(y + yl) = y + (y z S(z) + yl (1 - z/2)).
        let v = b.build_float_mul(z, y, "")?;
        let s_poly = self.horner_with(z, &SIN_S, |c| self.f64c(c))?;
        let half_z = b.build_float_mul(z, self.f64c(0.5), "")?;
        let yl_cos = b.build_float_sub(yl, b.build_float_mul(yl, half_z, "")?, "")?;
        let s_small = b.build_float_add(b.build_float_mul(v, s_poly, "")?, yl_cos, "")?;
        let sin = b.build_float_add(y, s_small, "")?;
        // cos(y + yl) = w + ((1 - w) - z/2 - z_lo/2 + z^2 C(z) - y yl), w =
        // 1 - z/2: the rounding of w recovered exactly.
        let w = b.build_float_sub(self.f64c(1.0), half_z, "")?;
        let w_err = b.build_float_sub(b.build_float_sub(self.f64c(1.0), w, "")?, half_z, "")?;
        let c_poly = self.horner_with(z, &COS_C, |c| self.f64c(c))?;
        let c_small = b.build_float_mul(b.build_float_mul(z, z, "")?, c_poly, "")?;
        let c_small = b.build_float_sub(c_small, b.build_float_mul(y, yl, "")?, "")?;
        let c_small =
            b.build_float_sub(c_small, b.build_float_mul(z_lo, self.f64c(0.5), "")?, "")?;
        let cos = b.build_float_add(w, b.build_float_add(w_err, c_small, "")?, "")?;

        // sin x, cos x = (s, c), (c, -s), (-s, -c), (-c, s) for n mod 4 =
        // 0, 1, 2, 3. n has at most 28 bits here (other lanes are
        // discarded by the caller).
        let q = b.build_float_to_signed_int(n, i64t, "")?;
        let q = if cosine {
            b.build_int_add(q, i64t.const_int(1, false), "")?
        } else {
            q
        };
        let bit = |k: u64| -> Res<_> {
            let m = b.build_and(q, i64t.const_int(k, false), "")?;
            Ok(b.build_int_compare(inkwell::IntPredicate::NE, m, i64t.const_zero(), "")?)
        };
        let r = self.select_f(bit(1)?, cos, sin)?;
        let r = self.select_f(bit(2)?, b.build_float_neg(r, "")?, r)?;
        let tiny = self.fcmp(FloatPredicate::OLT, self.fabs(x)?, self.f64c(TINY))?;
        let small_value = if cosine { self.f64c(1.0) } else { x };
        self.select_f(tiny, small_value, r)
    }
}
