//! Vectorisable math functions: a float value in, LLVM IR computing the
//! function of it out, as straight-line code (no calls, no branches) so
//! that the loop vectoriser can widen it; libm's functions are scalar
//! calls that keep a loop scalar. `f32`: `exp`, `log`, `erf` (`f32.rs`);
//! `f64`: `exp`, `log`, `erf` (`f64.rs`), `sin`, `cos` (`trig64.rs`) and
//! `pow` (`pow64.rs`). Each file documents its method and its accuracy
//! against glibc, which `tests/vmath.rs` and `tests/vmath64.rs` measure.
//!
//! Their multiplies and adds may contract into fused multiply-adds, as
//! the program's own may, unless `--strict-fp` (`contracting`); the
//! accuracy holds either way. This module holds what the files share:
//! constants, selects, Horner's rule, `2^n` from bits, the exact
//! products and sums of double-double arithmetic, and the rare branch to
//! libm for arguments outside a fast path's range.

mod f32;
mod f64;
mod pow64;
mod trig64;

use super::{Gen, Res};
use inkwell::values::{FloatValue, IntValue};
use inkwell::FloatPredicate;

impl<'ctx> Gen<'ctx, '_> {
    fn f32c(&self, v: f32) -> FloatValue<'ctx> {
        self.ctx.f32_type().const_float(f64::from(v))
    }

    fn f64c(&self, v: f64) -> FloatValue<'ctx> {
        self.ctx.f64_type().const_float(v)
    }

    fn i64c(&self, v: i64) -> IntValue<'ctx> {
        self.ctx.i64_type().const_int(v as u64, true)
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

    fn fcmp(
        &self,
        p: FloatPredicate,
        a: FloatValue<'ctx>,
        b: FloatValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        Ok(self.builder.build_float_compare(p, a, b, "")?)
    }

    /// `|x|`.
    fn fabs(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let t = x.get_type().into();
        Ok(self
            .call_intrinsic("llvm.fabs", &[t], &[x.into()])?
            .into_float_value())
    }

    /// `x` rounded to the nearest integer, halves to even.
    fn rint(&self, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let t = x.get_type().into();
        Ok(self
            .call_intrinsic("llvm.rint", &[t], &[x.into()])?
            .into_float_value())
    }

    /// `a * b + c` rounded once (a hardware FMA where the CPU has one).
    fn fma(
        &self,
        a: FloatValue<'ctx>,
        b: FloatValue<'ctx>,
        c: FloatValue<'ctx>,
    ) -> Res<FloatValue<'ctx>> {
        let t = a.get_type().into();
        Ok(self
            .call_intrinsic("llvm.fma", &[t], &[a.into(), b.into(), c.into()])?
            .into_float_value())
    }

    /// `(p, e)` with `p = a * b` rounded and `p + e` exactly `a * b`.
    fn two_prod(
        &self,
        a: FloatValue<'ctx>,
        b: FloatValue<'ctx>,
    ) -> Res<(FloatValue<'ctx>, FloatValue<'ctx>)> {
        let p = self.builder.build_float_mul(a, b, "")?;
        let e = self.fma(a, b, self.builder.build_float_neg(p, "")?)?;
        Ok((p, e))
    }

    /// `(s, e)` with `s = a + b` rounded and `s + e` exactly `a + b`, for
    /// any order of magnitude of `a` and `b` (Knuth's two-sum).
    fn two_sum(
        &self,
        a: FloatValue<'ctx>,
        b: FloatValue<'ctx>,
    ) -> Res<(FloatValue<'ctx>, FloatValue<'ctx>)> {
        let bl = &self.builder;
        let s = bl.build_float_add(a, b, "")?;
        let bb = bl.build_float_sub(s, a, "")?;
        let ab = bl.build_float_sub(s, bb, "")?;
        let db = bl.build_float_sub(b, bb, "")?;
        let da = bl.build_float_sub(a, ab, "")?;
        Ok((s, bl.build_float_add(da, db, "")?))
    }

    /// `c[0] + x * (c[1] + x * (...))` in `x`'s type.
    pub(super) fn horner_with(
        &self,
        x: FloatValue<'ctx>,
        coefficients: &[f64],
        constant: impl Fn(f64) -> FloatValue<'ctx>,
    ) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let mut acc = constant(coefficients[coefficients.len() - 1]);
        for c in coefficients.iter().rev().skip(1) {
            acc = b.build_float_mul(acc, x, "")?;
            acc = b.build_float_add(acc, constant(*c), "")?;
        }
        Ok(acc)
    }

    /// Horner's rule in `f64` over one of several coefficient lists of the
    /// same length, the `k`th where `which[k - 1]` is the last condition
    /// that holds (the first list where none does): one polynomial
    /// evaluated, with selects of its coefficients, in place of every
    /// piece's.
    fn horner_pieces(
        &self,
        x: FloatValue<'ctx>,
        pieces: &[&[f64]],
        which: &[IntValue<'ctx>],
    ) -> Res<FloatValue<'ctx>> {
        let coefficient = |k: usize| -> Res<FloatValue<'ctx>> {
            let mut c = self.f64c(pieces[0][k]);
            for (piece, cond) in pieces[1..].iter().zip(which) {
                c = self.select_f(*cond, self.f64c(piece[k]), c)?;
            }
            Ok(c)
        };
        let b = &self.builder;
        let n = pieces[0].len();
        let mut acc = coefficient(n - 1)?;
        for k in (0..n - 1).rev() {
            acc = b.build_float_mul(acc, x, "")?;
            acc = b.build_float_add(acc, coefficient(k)?, "")?;
        }
        Ok(acc)
    }

    /// The end of `exp` (`f32` and `f64`): `(1 + r + r^2 p) 2^n` from the
    /// reduced argument `r`, the polynomial `p` and the integer-valued
    /// float `n`. The scaling takes two steps, so that subnormal results
    /// and those just below the overflow bound stay within normal
    /// exponents.
    fn exp_finish(
        &self,
        r: FloatValue<'ctx>,
        p: FloatValue<'ctx>,
        n: FloatValue<'ctx>,
    ) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let ft = r.get_type();
        let it = if ft == self.ctx.f32_type() {
            self.ctx.i32_type()
        } else {
            self.ctx.i64_type()
        };
        let r2 = b.build_float_mul(r, r, "")?;
        let e = b.build_float_add(b.build_float_mul(p, r2, "")?, r, "")?;
        let e = b.build_float_add(e, ft.const_float(1.0), "")?;
        let ni = b.build_float_to_signed_int(n, it, "")?;
        let half = b.build_right_shift(ni, it.const_int(1, false), true, "")?;
        let rest = b.build_int_sub(ni, half, "")?;
        let e = b.build_float_mul(e, self.pow2(half)?, "")?;
        b.build_float_mul(e, self.pow2(rest)?, "")
            .map_err(Into::into)
    }

    /// `2^n` for `n` in the normal exponents of the float type as wide as
    /// `n` (`i32`: `f32`, -126..=127; `i64`: `f64`, -1022..=1023), built
    /// from its bits.
    fn pow2(&self, n: IntValue<'ctx>) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let (bias, shift, ft) = if n.get_type().get_bit_width() == 32 {
            (127, 23, self.ctx.f32_type())
        } else {
            (1023, 52, self.ctx.f64_type())
        };
        let it = n.get_type();
        let biased = b.build_int_add(n, it.const_int(bias, false), "")?;
        let bits = b.build_left_shift(biased, it.const_int(shift, false), "")?;
        Ok(b.build_bit_cast(bits, ft, "")?.into_float_value())
    }

    /// `(k, m)` with `x = m 2^k`, `k` an integer as wide as `x` and `m` in
    /// `[sqrt(1/2), sqrt(2))`, for a positive finite `x`: the reduction of
    /// `log` (`f32` and `f64`) and `pow`. Subnormals are scaled into the
    /// normal range first and the exponent corrected afterwards.
    fn log_split(&self, x: FloatValue<'ctx>) -> Res<(IntValue<'ctx>, FloatValue<'ctx>)> {
        let b = &self.builder;
        let ft = x.get_type();
        let single = ft == self.ctx.f32_type();
        // Mantissa bits, the biased exponent of 1/2, the exponent's mask.
        let (bits_m, half, mask) = if single {
            (23u32, 126u64, 0xffu64)
        } else {
            (52, 1022, 0x7ff)
        };
        let it = if single {
            self.ctx.i32_type()
        } else {
            self.ctx.i64_type()
        };
        let ic = |v: u64| it.const_int(v, false);
        let min_normal = if single {
            f64::from(f32::MIN_POSITIVE)
        } else {
            f64::MIN_POSITIVE
        };
        let scale = u64::from(bits_m) + 2;
        let tiny = self.fcmp(FloatPredicate::OLT, x, ft.const_float(min_normal))?;
        let scaled = b.build_float_mul(x, ft.const_float(2f64.powi(scale as i32)), "")?;
        let xs = self.select_f(tiny, scaled, x)?;
        let bias = b
            .build_select(tiny, ic(half + scale), ic(half), "")?
            .into_int_value();
        let bits = b.build_bit_cast(xs, it, "")?.into_int_value();
        let exp_bits = b.build_right_shift(bits, ic(u64::from(bits_m)), false, "")?;
        let exp_bits = b.build_and(exp_bits, ic(mask), "")?;
        let k = b.build_int_sub(exp_bits, bias, "")?;
        // The mantissa with the exponent of 1/2: m in [1/2, 1).
        let mant = b.build_and(bits, ic((1 << bits_m) - 1), "")?;
        let mant = b.build_or(mant, ic(half << bits_m), "")?;
        let m = b.build_bit_cast(mant, ft, "")?.into_float_value();
        let small = self.fcmp(
            FloatPredicate::OLT,
            m,
            ft.const_float(std::f64::consts::FRAC_1_SQRT_2),
        )?;
        let k = b.build_int_sub(k, b.build_int_z_extend(small, it, "")?, "")?;
        let doubled = b.build_float_add(m, m, "")?;
        Ok((k, self.select_f(small, doubled, m)?))
    }

    /// Runs `build` (straight-line code in the current block) and lets
    /// LLVM contract the float multiplies and adds it emitted into fused
    /// multiply-adds, as the program's own arithmetic may (LANGUAGE.md
    /// section 6), unless `--strict-fp`. The documented accuracy holds
    /// both ways (`tests/vmath.rs` and `tests/vmath64.rs` run the default).
    pub(super) fn contracting(
        &self,
        build: impl FnOnce(&Self) -> Res<FloatValue<'ctx>>,
    ) -> Res<FloatValue<'ctx>> {
        let block = self.builder.get_insert_block();
        let before = block.and_then(|bb| bb.get_last_instruction());
        let v = build(self)?;
        if self.strict_fp {
            return Ok(v);
        }
        let mut next = match before {
            Some(i) => i.get_next_instruction(),
            None => block.and_then(|bb| bb.get_first_instruction()),
        };
        while let Some(inst) = next {
            super::allow_contraction_of(inst)?;
            next = inst.get_next_instruction();
        }
        Ok(v)
    }

    /// `fast` where `in_range` holds, else what `slow` builds (a libm
    /// call) in a block of its own. The loop vectoriser keeps such a loop
    /// vector (the call runs only for the lanes that need it), where an
    /// unconditional call would keep it scalar; the arguments that take
    /// the branch (huge or not finite) are rare.
    pub(super) fn unless_in_range(
        &self,
        in_range: IntValue<'ctx>,
        fast: FloatValue<'ctx>,
        slow: impl FnOnce(&Self) -> Res<FloatValue<'ctx>>,
    ) -> Res<FloatValue<'ctx>> {
        let b = &self.builder;
        let here = self.current_block()?;
        let func = here
            .get_parent()
            .ok_or_else(|| super::CodegenError::Internal("a block outside a function".into()))?;
        let slow_bb = self.ctx.append_basic_block(func, "libm");
        let join = self.ctx.append_basic_block(func, "libm.join");
        b.build_conditional_branch(in_range, join, slow_bb)?;
        b.position_at_end(slow_bb);
        let called = slow(self)?;
        let slow_end = self.current_block()?;
        b.build_unconditional_branch(join)?;
        b.position_at_end(join);
        let phi = b.build_phi(fast.get_type(), "")?;
        phi.add_incoming(&[(&fast, here), (&called, slow_end)]);
        Ok(phi.as_basic_value().into_float_value())
    }

    /// libm's `name` of an `f64`, through a wrapper (`arr_libm_NAME`)
    /// that is never inlined and that the loop vectoriser may replace by
    /// masked vector versions (`vector_libm`), which call it for the lanes
    /// whose mask is set. LLVM knows libm's own functions and would widen
    /// a call to them to a vector intrinsic, run for every lane; a call it
    /// does not know, without vector versions, keeps the loop scalar.
    fn pure_libm(&self, name: &str, x: FloatValue<'ctx>) -> Res<FloatValue<'ctx>> {
        use inkwell::attributes::AttributeLoc;
        let wrapper = format!("arr_libm_{name}");
        let f = match self.module.get_function(&wrapper) {
            Some(f) => f,
            None => self.libm_wrappers(name, &wrapper)?,
        };
        let site = self.builder.build_call(f, &[x.into()], "")?;
        for a in ["memory", "nounwind", "willreturn"] {
            site.add_attribute(AttributeLoc::Function, self.enum_attr(a));
        }
        let variants = VECTOR_WIDTHS
            .iter()
            .map(|w| format!("_ZGV_LLVM_M{w}v_{wrapper}({wrapper}_v{w})"))
            .collect::<Vec<_>>()
            .join(",");
        site.add_attribute(
            AttributeLoc::Function,
            self.ctx
                .create_string_attribute("vector-function-abi-variant", &variants),
        );
        site.try_as_basic_value()
            .basic()
            .map(|v| v.into_float_value())
            .ok_or_else(|| super::CodegenError::Internal(format!("{name} returns nothing")))
    }

    fn enum_attr(&self, name: &str) -> inkwell::attributes::Attribute {
        let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(name);
        self.ctx.create_enum_attribute(kind, 0)
    }

    /// Defines `wrapper`, calling libm's `name`, and its masked vector
    /// versions `wrapper_vW` for the widths of `VECTOR_WIDTHS`: each lane
    /// whose mask is set calls `wrapper`. They have weak linkage, so that
    /// nothing removes them before the vectoriser has looked for them.
    fn libm_wrappers(
        &self,
        name: &str,
        wrapper: &str,
    ) -> Res<inkwell::values::FunctionValue<'ctx>> {
        use inkwell::attributes::AttributeLoc;
        use inkwell::module::Linkage;
        let missing = || super::CodegenError::Internal(format!("{wrapper} without parameters"));
        let f64t = self.ctx.f64_type();
        let ty = f64t.fn_type(&[f64t.into()], false);
        let libm = self
            .module
            .get_function(name)
            .unwrap_or_else(|| self.module.add_function(name, ty, Some(Linkage::External)));
        let f = self
            .module
            .add_function(wrapper, ty, Some(Linkage::WeakODR));
        for a in ["noinline", "nounwind"] {
            f.add_attribute(AttributeLoc::Function, self.enum_attr(a));
        }
        let b = self.ctx.create_builder();
        b.position_at_end(self.ctx.append_basic_block(f, "entry"));
        let arg = f.get_nth_param(0).ok_or_else(missing)?;
        let r = b
            .build_call(libm, &[arg.into()], "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(missing)?;
        b.build_return(Some(&r))?;

        for &w in VECTOR_WIDTHS {
            let vt = f64t.vec_type(w);
            let mt = self.ctx.bool_type().vec_type(w);
            let v = self.module.add_function(
                &format!("{wrapper}_v{w}"),
                vt.fn_type(&[vt.into(), mt.into()], false),
                Some(Linkage::WeakODR),
            );
            v.add_attribute(AttributeLoc::Function, self.enum_attr("nounwind"));
            let xs = v.get_nth_param(0).ok_or_else(missing)?.into_vector_value();
            let mask = v.get_nth_param(1).ok_or_else(missing)?.into_vector_value();
            let entry = self.ctx.append_basic_block(v, "entry");
            let mut block = self.ctx.append_basic_block(v, "lanes");
            let none = self.ctx.append_basic_block(v, "none");
            b.position_at_end(entry);
            // Usually no lane is set: one test of the whole mask.
            let it = std::num::NonZeroU32::new(w)
                .and_then(|w| self.ctx.custom_width_int_type(w).ok())
                .ok_or_else(missing)?;
            let bits = b.build_bit_cast(mask, it, "")?.into_int_value();
            let any = b.build_int_compare(inkwell::IntPredicate::NE, bits, it.const_zero(), "")?;
            b.build_conditional_branch(any, block, none)?;
            b.position_at_end(none);
            b.build_return(Some(&vt.get_undef()))?;
            b.position_at_end(block);
            let mut acc = vt.get_undef();
            for lane in 0..w {
                let k = self.ctx.i32_type().const_int(u64::from(lane), false);
                let on = b.build_extract_element(mask, k, "")?.into_int_value();
                let call_bb = self.ctx.append_basic_block(v, "lane");
                let next = self.ctx.append_basic_block(v, "next");
                b.build_conditional_branch(on, call_bb, next)?;
                b.position_at_end(call_bb);
                let x = b.build_extract_element(xs, k, "")?;
                let r = b
                    .build_call(f, &[x.into()], "")?
                    .try_as_basic_value()
                    .basic()
                    .ok_or_else(missing)?;
                let set = b.build_insert_element(acc, r, k, "")?;
                b.build_unconditional_branch(next)?;
                b.position_at_end(next);
                let phi = b.build_phi(vt, "")?;
                phi.add_incoming(&[(&acc, block), (&set, call_bb)]);
                acc = phi.as_basic_value().into_vector_value();
                block = next;
            }
            b.build_return(Some(&acc))?;
        }
        Ok(f)
    }
}

/// The vector widths (in `f64` lanes) the masked versions of a libm
/// wrapper come in: SSE, AVX and AVX-512 registers.
const VECTOR_WIDTHS: &[u32] = &[2, 4, 8];
