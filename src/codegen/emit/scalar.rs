//! Scalar expressions: arithmetic with the contract's defined division,
//! shifts and conversions, math functions (intrinsics, `vmath`, libm).

use super::*;
use crate::core::ir::{BinOp, UnOp};
use inkwell::intrinsics::Intrinsic;
use inkwell::types::FloatType;
use inkwell::values::FloatValue;
use inkwell::FloatPredicate;

impl<'ctx> Gen<'ctx, '_> {
    pub(crate) fn exp(
        &mut self,
        fr: &Frame<'ctx>,
        exp: &ScalarExp,
        loc: SrcLoc,
    ) -> Res<(BasicValueEnum<'ctx>, ScalarType)> {
        match exp {
            ScalarExp::Atom(a) => self.scalar(fr, a),
            ScalarExp::BinOp(op, a, b) => {
                let (x, t) = self.scalar(fr, a)?;
                let (y, _) = self.scalar(fr, b)?;
                let rt = if op.is_comparison() {
                    ScalarType::Bool
                } else {
                    t
                };
                Ok((self.binop(fr, *op, x, y, t, loc)?, rt))
            }
            ScalarExp::UnOp(op, a) => {
                let (x, t) = self.scalar(fr, a)?;
                self.unop(*op, x, t)
            }
            ScalarExp::Convert(to, a) => {
                let (x, from) = self.scalar(fr, a)?;
                Ok((self.convert(x, from, *to)?, *to))
            }
            ScalarExp::Fma(a, b, c) => {
                let (x, t) = self.scalar(fr, a)?;
                let (y, _) = self.scalar(fr, b)?;
                let (z, _) = self.scalar(fr, c)?;
                if t == ScalarType::F16 {
                    // Exact in f64, then one rounding (as the interpreter).
                    let f64t = self.ctx.f64_type();
                    let b = &self.builder;
                    let w =
                        |v: BasicValueEnum<'ctx>| b.build_float_ext(v.into_float_value(), f64t, "");
                    let (x, y, z) = (w(x)?, w(y)?, w(z)?);
                    let ty: BasicTypeEnum = f64t.into();
                    let r =
                        self.call_intrinsic("llvm.fma", &[ty], &[x.into(), y.into(), z.into()])?;
                    let r = b.build_float_trunc(r.into_float_value(), self.ctx.f16_type(), "")?;
                    return Ok((r.into(), t));
                }
                let ty: BasicTypeEnum = self.float_type(t)?.into();
                let r = self.call_intrinsic("llvm.fma", &[ty], &[x.into(), y.into(), z.into()])?;
                Ok((r, t))
            }
        }
    }

    pub(crate) fn call_intrinsic(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Res<BasicValueEnum<'ctx>> {
        let decl = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.module, types))
            .ok_or_else(|| CodegenError::Internal(format!("no LLVM intrinsic {name}")))?;
        self.builder
            .build_call(decl, args, "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::Internal(format!("{name} returns nothing")))
    }

    /// A libm function on `f32` (`expf`-style name) or `f64`.
    fn call_libm(
        &self,
        base: &str,
        t: ScalarType,
        args: &[FloatValue<'ctx>],
    ) -> Res<BasicValueEnum<'ctx>> {
        let ft = self.float_type(t)?;
        let name = if t == ScalarType::F32 {
            format!("{base}f")
        } else {
            base.to_string()
        };
        let f = match self.module.get_function(&name) {
            Some(f) => f,
            None => {
                let params: Vec<BasicMetadataTypeEnum> = args.iter().map(|_| ft.into()).collect();
                self.module
                    .add_function(&name, ft.fn_type(&params, false), Some(Linkage::External))
            }
        };
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
        self.builder
            .build_call(f, &args, "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::Internal(format!("{name} returns nothing")))
    }

    fn float_type(&self, t: ScalarType) -> Res<FloatType<'ctx>> {
        match t {
            ScalarType::F16 => Ok(self.ctx.f16_type()),
            ScalarType::F32 => Ok(self.ctx.f32_type()),
            ScalarType::F64 => Ok(self.ctx.f64_type()),
            _ => err(format!("{t} is not a float type")),
        }
    }

    pub(crate) fn binop(
        &mut self,
        fr: &Frame<'ctx>,
        op: BinOp,
        x: BasicValueEnum<'ctx>,
        y: BasicValueEnum<'ctx>,
        t: ScalarType,
        loc: SrcLoc,
    ) -> Res<BasicValueEnum<'ctx>> {
        if t == ScalarType::F16 && !Self::native_half(op) {
            // Through f32 and rounded back once, as the interpreter does.
            let f32t = self.ctx.f32_type();
            let xw = self
                .builder
                .build_float_ext(x.into_float_value(), f32t, "")?;
            let yw = self
                .builder
                .build_float_ext(y.into_float_value(), f32t, "")?;
            let r = self.float_binop(op, xw, yw, ScalarType::F32)?;
            return Ok(match r {
                BasicValueEnum::FloatValue(r) => self
                    .builder
                    .build_float_trunc(r, self.ctx.f16_type(), "")?
                    .into(),
                other => other,
            });
        }
        if t.is_float() {
            return self.float_binop(op, x.into_float_value(), y.into_float_value(), t);
        }
        let (x, y) = match (x, y) {
            (BasicValueEnum::IntValue(x), BasicValueEnum::IntValue(y)) => (x, y),
            _ => return err(format!("{} on mismatched operands", op.name())),
        };
        let b = &self.builder;
        let signed = t.is_signed();
        let pred = |s: IntPredicate, u: IntPredicate| if signed { s } else { u };
        Ok(match op {
            BinOp::Add => b.build_int_add(x, y, "")?.into(),
            BinOp::Sub => b.build_int_sub(x, y, "")?.into(),
            BinOp::Mul => b.build_int_mul(x, y, "")?.into(),
            BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem => {
                return self.int_division(fr, op, x, y, signed, loc)
            }
            BinOp::Pow => {
                let f = self.int_pow_fn(x.get_type())?;
                let r = self.builder.build_call(f, &[x.into(), y.into()], "")?;
                r.try_as_basic_value()
                    .basic()
                    .ok_or(CodegenError::Internal("pow returns nothing".into()))?
            }
            BinOp::Min | BinOp::Max => {
                let p = if op == BinOp::Min {
                    pred(IntPredicate::SLT, IntPredicate::ULT)
                } else {
                    pred(IntPredicate::SGT, IntPredicate::UGT)
                };
                let c = b.build_int_compare(p, x, y, "")?;
                b.build_select(c, x, y, "")?
            }
            BinOp::Eq => b.build_int_compare(IntPredicate::EQ, x, y, "")?.into(),
            BinOp::Neq => b.build_int_compare(IntPredicate::NE, x, y, "")?.into(),
            BinOp::Lt => b
                .build_int_compare(pred(IntPredicate::SLT, IntPredicate::ULT), x, y, "")?
                .into(),
            BinOp::Le => b
                .build_int_compare(pred(IntPredicate::SLE, IntPredicate::ULE), x, y, "")?
                .into(),
            BinOp::Gt => b
                .build_int_compare(pred(IntPredicate::SGT, IntPredicate::UGT), x, y, "")?
                .into(),
            BinOp::Ge => b
                .build_int_compare(pred(IntPredicate::SGE, IntPredicate::UGE), x, y, "")?
                .into(),
            BinOp::And => b.build_and(x, y, "")?.into(),
            BinOp::Or => b.build_or(x, y, "")?.into(),
            BinOp::Xor => b.build_xor(x, y, "")?.into(),
            BinOp::Shl | BinOp::Shr | BinOp::UShr => {
                // An amount outside 0..bits (also a negative one) would be
                // poison in LLVM: shifting everything out gives 0, or all
                // sign bits for an arithmetic right shift.
                let ty = x.get_type();
                let bits = ty.get_bit_width() as u64;
                let in_range =
                    b.build_int_compare(IntPredicate::ULT, y, ty.const_int(bits, false), "")?;
                let amount = b.build_select(in_range, y, ty.const_int(bits - 1, false), "")?;
                let amount = amount.into_int_value();
                let zero = ty.const_zero();
                match op {
                    BinOp::Shl => {
                        let r = b.build_left_shift(x, amount, "")?;
                        b.build_select(in_range, r, zero, "")?
                    }
                    BinOp::Shr if signed => b.build_right_shift(x, amount, true, "")?.into(),
                    _ => {
                        let r = b.build_right_shift(x, amount, false, "")?;
                        b.build_select(in_range, r, zero, "")?
                    }
                }
            }
            BinOp::MulHi => {
                // The product at twice the width, its upper half.
                let ty = x.get_type();
                let bits = ty.get_bit_width();
                let wide = match bits {
                    8 => self.ctx.i16_type(),
                    16 => self.ctx.i32_type(),
                    32 => self.ctx.i64_type(),
                    _ => self.ctx.i128_type(),
                };
                let xw = b.build_int_cast_sign_flag(x, wide, signed, "")?;
                let yw = b.build_int_cast_sign_flag(y, wide, signed, "")?;
                let p = b.build_int_mul(xw, yw, "")?;
                let hi = b.build_right_shift(p, wide.const_int(bits as u64, false), false, "")?;
                b.build_int_truncate(hi, ty, "")?.into()
            }
            BinOp::Atan2 | BinOp::Hypot | BinOp::NextAfter | BinOp::CopySign => {
                return err(format!("{} on {t}", op.name()))
            }
        })
    }

    /// Half operations LLVM rounds exactly as IEEE half arithmetic.
    fn native_half(op: BinOp) -> bool {
        matches!(
            op,
            BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::Div
                | BinOp::Eq
                | BinOp::Neq
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
        )
    }

    pub(crate) fn float_binop(
        &self,
        op: BinOp,
        x: FloatValue<'ctx>,
        y: FloatValue<'ctx>,
        t: ScalarType,
    ) -> Res<BasicValueEnum<'ctx>> {
        let b = &self.builder;
        let cmp =
            |p| -> Res<BasicValueEnum<'ctx>> { Ok(b.build_float_compare(p, x, y, "")?.into()) };
        let ty: BasicTypeEnum = self.float_type(t)?.into();
        Ok(match op {
            BinOp::Add => b.build_float_add(x, y, "")?.into(),
            BinOp::Sub => b.build_float_sub(x, y, "")?.into(),
            BinOp::Mul => b.build_float_mul(x, y, "")?.into(),
            BinOp::Div => b.build_float_div(x, y, "")?.into(),
            // `%` on floats is C's fmod, as in Futhark.
            BinOp::Mod | BinOp::Rem => b.build_float_rem(x, y, "")?.into(),
            BinOp::Quot => {
                let q = b.build_float_div(x, y, "")?;
                self.call_intrinsic("llvm.trunc", &[ty], &[q.into()])?
            }
            // Straight-line (`vmath`), except for the constant exponents
            // LLVM rewrites exactly (`x ** 2` is `x * x`).
            BinOp::Pow if t == ScalarType::F64 && !exact_pow_exponent(y) => {
                self.contracting(|g| g.pow_f64(x, y))?.into()
            }
            BinOp::Pow => self.call_intrinsic("llvm.pow", &[ty], &[x.into(), y.into()])?,
            // fmin/fmax semantics: a NaN operand yields the other one.
            BinOp::Min => self.call_intrinsic("llvm.minnum", &[ty], &[x.into(), y.into()])?,
            BinOp::Max => self.call_intrinsic("llvm.maxnum", &[ty], &[x.into(), y.into()])?,
            BinOp::Eq => cmp(FloatPredicate::OEQ)?,
            BinOp::Neq => cmp(FloatPredicate::UNE)?,
            BinOp::Lt => cmp(FloatPredicate::OLT)?,
            BinOp::Le => cmp(FloatPredicate::OLE)?,
            BinOp::Gt => cmp(FloatPredicate::OGT)?,
            BinOp::Ge => cmp(FloatPredicate::OGE)?,
            BinOp::Atan2 => self.call_libm("atan2", t, &[x, y])?,
            BinOp::Hypot => self.call_libm("hypot", t, &[x, y])?,
            BinOp::NextAfter => self.call_libm("nextafter", t, &[x, y])?,
            BinOp::CopySign => {
                self.call_intrinsic("llvm.copysign", &[ty], &[x.into(), y.into()])?
            }
            BinOp::And
            | BinOp::Or
            | BinOp::Xor
            | BinOp::Shl
            | BinOp::Shr
            | BinOp::UShr
            | BinOp::MulHi => return err(format!("{} on {t}", op.name())),
        })
    }

    /// Integer division and remainder: traps on a zero divisor; `MIN / -1`
    /// wraps (the divisor -1 is handled as a negation, never reaching
    /// `sdiv`'s undefined case); `Div`/`Mod` round towards negative infinity.
    fn int_division(
        &mut self,
        fr: &Frame<'ctx>,
        op: BinOp,
        x: IntValue<'ctx>,
        y: IntValue<'ctx>,
        signed: bool,
        loc: SrcLoc,
    ) -> Res<BasicValueEnum<'ctx>> {
        let ty = x.get_type();
        let zero = ty.const_zero();
        let is_zero = self
            .builder
            .build_int_compare(IntPredicate::EQ, y, zero, "")?;
        self.trap_if(fr, is_zero, Trap::DivisionByZero, &[], loc)?;
        let b = &self.builder;
        if !signed {
            return Ok(match op {
                BinOp::Div | BinOp::Quot => b.build_int_unsigned_div(x, y, "")?.into(),
                _ => b.build_int_unsigned_rem(x, y, "")?.into(),
            });
        }
        let minus_one = ty.const_all_ones();
        let is_minus_one = b.build_int_compare(IntPredicate::EQ, y, minus_one, "")?;
        let safe = b
            .build_select(is_minus_one, ty.const_int(1, false), y, "")?
            .into_int_value();
        let q = b.build_int_signed_div(x, safe, "")?;
        let r = b.build_int_signed_rem(x, safe, "")?;
        // r != 0 and sign(r) != sign(y): the truncated result needs adjusting.
        let r_nonzero = b.build_int_compare(IntPredicate::NE, r, zero, "")?;
        let signs = b.build_xor(r, y, "")?;
        let differ = b.build_int_compare(IntPredicate::SLT, signs, zero, "")?;
        let adjust = b.build_and(r_nonzero, differ, "")?;
        Ok(match op {
            BinOp::Quot => {
                let neg = b.build_int_sub(zero, x, "")?;
                b.build_select(is_minus_one, neg, q, "")?
            }
            BinOp::Rem => r.into(),
            BinOp::Div => {
                let q1 = b.build_int_sub(q, ty.const_int(1, false), "")?;
                let floor = b.build_select(adjust, q1, q, "")?.into_int_value();
                let neg = b.build_int_sub(zero, x, "")?;
                b.build_select(is_minus_one, neg, floor, "")?
            }
            _ => {
                let ry = b.build_int_add(r, y, "")?;
                b.build_select(adjust, ry, r, "")?
            }
        })
    }

    /// `pow_iN(x, e)`: wrapping exponentiation by squaring. The exponent's
    /// bits are consumed with logical shifts, so any exponent terminates
    /// (a negative signed one never arrives: an assertion precedes it).
    fn int_pow_fn(&self, ty: IntType<'ctx>) -> Res<FunctionValue<'ctx>> {
        let name = format!("arr.pow.i{}", ty.get_bit_width());
        if let Some(f) = self.module.get_function(&name) {
            return Ok(f);
        }
        let f = self.module.add_function(
            &name,
            ty.fn_type(&[ty.into(), ty.into()], false),
            Some(Linkage::Internal),
        );
        let b = self.ctx.create_builder();
        let entry = self.ctx.append_basic_block(f, "entry");
        let header = self.ctx.append_basic_block(f, "loop");
        let body = self.ctx.append_basic_block(f, "step");
        let exit = self.ctx.append_basic_block(f, "done");
        let missing = || CodegenError::Internal("pow without parameters".into());
        let x = f.get_nth_param(0).ok_or_else(missing)?.into_int_value();
        let e = f.get_nth_param(1).ok_or_else(missing)?.into_int_value();
        b.position_at_end(entry);
        b.build_unconditional_branch(header)?;
        b.position_at_end(header);
        let res = b.build_phi(ty, "res")?;
        let base = b.build_phi(ty, "base")?;
        let exp = b.build_phi(ty, "exp")?;
        let one = ty.const_int(1, false);
        res.add_incoming(&[(&one, entry)]);
        base.add_incoming(&[(&x, entry)]);
        exp.add_incoming(&[(&e, entry)]);
        let (rv, bv, ev) = (
            res.as_basic_value().into_int_value(),
            base.as_basic_value().into_int_value(),
            exp.as_basic_value().into_int_value(),
        );
        let done = b.build_int_compare(IntPredicate::EQ, ev, ty.const_zero(), "")?;
        b.build_conditional_branch(done, exit, body)?;
        b.position_at_end(body);
        let bit = b.build_and(ev, one, "")?;
        let odd = b.build_int_compare(IntPredicate::NE, bit, ty.const_zero(), "")?;
        let m = b.build_int_mul(rv, bv, "")?;
        let r2 = b.build_select(odd, m, rv, "")?.into_int_value();
        let b2 = b.build_int_mul(bv, bv, "")?;
        let e2 = b.build_right_shift(ev, one, false, "")?;
        b.build_unconditional_branch(header)?;
        res.add_incoming(&[(&r2, body)]);
        base.add_incoming(&[(&b2, body)]);
        exp.add_incoming(&[(&e2, body)]);
        b.position_at_end(exit);
        b.build_return(Some(&rv))?;
        Ok(f)
    }

    pub(crate) fn unop(
        &self,
        op: UnOp,
        x: BasicValueEnum<'ctx>,
        t: ScalarType,
    ) -> Res<(BasicValueEnum<'ctx>, ScalarType)> {
        let b = &self.builder;
        if let BasicValueEnum::IntValue(x) = x {
            let ty = x.get_type();
            let i32t = self.ctx.i32_type();
            let to_i32 = |v: IntValue<'ctx>| -> Res<BasicValueEnum<'ctx>> {
                Ok(b.build_int_cast_sign_flag(v, i32t, false, "")?.into())
            };
            return Ok(match op {
                UnOp::Neg if t == ScalarType::Bool => (b.build_not(x, "")?.into(), t),
                UnOp::Neg => (b.build_int_sub(ty.const_zero(), x, "")?.into(), t),
                UnOp::Not => (b.build_not(x, "")?.into(), t),
                UnOp::Abs if t.is_signed() => {
                    let abs = self.call_intrinsic(
                        "llvm.abs",
                        &[ty.into()],
                        &[x.into(), self.ctx.bool_type().const_zero().into()],
                    )?;
                    (abs, t)
                }
                UnOp::Abs | UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc => (x.into(), t),
                UnOp::Popc => {
                    let c = self.call_intrinsic("llvm.ctpop", &[ty.into()], &[x.into()])?;
                    (to_i32(c.into_int_value())?, ScalarType::I32)
                }
                UnOp::Clz => {
                    let c = self.call_intrinsic(
                        "llvm.ctlz",
                        &[ty.into()],
                        &[x.into(), self.ctx.bool_type().const_zero().into()],
                    )?;
                    (to_i32(c.into_int_value())?, ScalarType::I32)
                }
                UnOp::IsNan | UnOp::IsInf => {
                    (self.ctx.bool_type().const_zero().into(), ScalarType::Bool)
                }
                UnOp::FromBits => {
                    let to = op.result(t);
                    let ft = self.float_type(to)?;
                    (b.build_bit_cast(x, ft, "")?, to)
                }
                _ => return err(format!("{} on {t}", op.name())),
            });
        }
        let BasicValueEnum::FloatValue(x) = x else {
            return err(format!("{} on a non-scalar", op.name()));
        };
        if t == ScalarType::F16 && !matches!(op, UnOp::Neg | UnOp::Abs | UnOp::ToBits) {
            // Through f32 and rounded back once, as the interpreter does.
            let wide = b.build_float_ext(x, self.ctx.f32_type(), "")?;
            let (r, rt) = self.unop(op, wide.into(), ScalarType::F32)?;
            return Ok(if rt == ScalarType::F32 {
                let r = r.into_float_value();
                (b.build_float_trunc(r, self.ctx.f16_type(), "")?.into(), t)
            } else {
                (r, rt)
            });
        }
        let ty: BasicTypeEnum = self.float_type(t)?.into();
        let intr = |name: &str| self.call_intrinsic(name, &[ty], &[x.into()]);
        let v = match op {
            UnOp::Neg => b.build_float_neg(x, "")?.into(),
            UnOp::Abs => intr("llvm.fabs")?,
            UnOp::Sqrt => intr("llvm.sqrt")?,
            // Straight-line versions the vectoriser can widen (`vmath`).
            UnOp::Exp if t == ScalarType::F32 => self.contracting(|g| g.exp_f32(x))?.into(),
            UnOp::Log if t == ScalarType::F32 => self.contracting(|g| g.log_f32(x))?.into(),
            UnOp::Erf if t == ScalarType::F32 => self.contracting(|g| g.erf_f32(x))?.into(),
            UnOp::Exp if t == ScalarType::F64 => self.contracting(|g| g.exp_f64(x))?.into(),
            UnOp::Log if t == ScalarType::F64 => self.contracting(|g| g.log_f64(x))?.into(),
            UnOp::Erf if t == ScalarType::F64 => self.contracting(|g| g.erf_f64(x))?.into(),
            UnOp::Sin if t == ScalarType::F64 => self.sin_cos_f64(x, false)?.into(),
            UnOp::Cos if t == ScalarType::F64 => self.sin_cos_f64(x, true)?.into(),
            UnOp::Exp => intr("llvm.exp")?,
            UnOp::Log => intr("llvm.log")?,
            UnOp::Log2 => intr("llvm.log2")?,
            UnOp::Log10 => intr("llvm.log10")?,
            UnOp::Sin => intr("llvm.sin")?,
            UnOp::Cos => intr("llvm.cos")?,
            UnOp::Floor => intr("llvm.floor")?,
            UnOp::Ceil => intr("llvm.ceil")?,
            UnOp::Round => intr("llvm.roundeven")?,
            UnOp::Trunc => intr("llvm.trunc")?,
            UnOp::Tan => self.call_libm("tan", t, &[x])?,
            UnOp::Asin => self.call_libm("asin", t, &[x])?,
            UnOp::Acos => self.call_libm("acos", t, &[x])?,
            UnOp::Atan => self.call_libm("atan", t, &[x])?,
            UnOp::Sinh => self.call_libm("sinh", t, &[x])?,
            UnOp::Cosh => self.call_libm("cosh", t, &[x])?,
            UnOp::Tanh => self.call_libm("tanh", t, &[x])?,
            UnOp::Erf => self.call_libm("erf", t, &[x])?,
            UnOp::Cbrt => self.call_libm("cbrt", t, &[x])?,
            UnOp::Log1p => self.call_libm("log1p", t, &[x])?,
            UnOp::Expm1 => self.call_libm("expm1", t, &[x])?,
            UnOp::Asinh => self.call_libm("asinh", t, &[x])?,
            UnOp::Acosh => self.call_libm("acosh", t, &[x])?,
            UnOp::Atanh => self.call_libm("atanh", t, &[x])?,
            UnOp::Gamma => self.call_libm("tgamma", t, &[x])?,
            UnOp::Lgamma => self.call_libm("lgamma", t, &[x])?,
            UnOp::Erfc => self.call_libm("erfc", t, &[x])?,
            UnOp::ToBits => {
                let to = op.result(t);
                return Ok((b.build_bit_cast(x, self.reg_type(to), "")?, to));
            }
            UnOp::IsNan => {
                let c = b.build_float_compare(FloatPredicate::UNO, x, x, "")?;
                return Ok((c.into(), ScalarType::Bool));
            }
            UnOp::IsInf => {
                let a = intr("llvm.fabs")?.into_float_value();
                let inf = self.float_type(t)?.const_float(f64::INFINITY);
                let c = b.build_float_compare(FloatPredicate::OEQ, a, inf, "")?;
                return Ok((c.into(), ScalarType::Bool));
            }
            UnOp::Not | UnOp::Popc | UnOp::Clz | UnOp::FromBits => {
                return err(format!("{} on {t}", op.name()))
            }
        };
        Ok((v, t))
    }

    /// Conversions as in section 10 of the language contract.
    pub(crate) fn convert(
        &self,
        x: BasicValueEnum<'ctx>,
        from: ScalarType,
        to: ScalarType,
    ) -> Res<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(x);
        }
        let b = &self.builder;
        let target = self.reg_type(to);
        match x {
            BasicValueEnum::IntValue(v) => {
                if to == ScalarType::Bool {
                    let zero = v.get_type().const_zero();
                    return Ok(b.build_int_compare(IntPredicate::NE, v, zero, "")?.into());
                }
                let signed = from.is_signed();
                if to == ScalarType::F16 {
                    // Through f64, as the interpreter rounds.
                    let f64t = self.ctx.f64_type();
                    let w = if signed {
                        b.build_signed_int_to_float(v, f64t, "")?
                    } else {
                        b.build_unsigned_int_to_float(v, f64t, "")?
                    };
                    return Ok(b.build_float_trunc(w, self.ctx.f16_type(), "")?.into());
                }
                if to.is_float() {
                    let ft = target.into_float_type();
                    return Ok(if signed {
                        b.build_signed_int_to_float(v, ft, "")?.into()
                    } else {
                        b.build_unsigned_int_to_float(v, ft, "")?.into()
                    });
                }
                // Integer to integer: keep the low bits, extend by the
                // source's signedness (bool is unsigned).
                Ok(
                    b.build_int_cast_sign_flag(v, target.into_int_type(), signed, "")?
                        .into(),
                )
            }
            BasicValueEnum::FloatValue(v) => {
                if to == ScalarType::Bool {
                    let zero = v.get_type().const_zero();
                    return Ok(b
                        .build_float_compare(FloatPredicate::UNE, v, zero, "")?
                        .into());
                }
                if to.is_float() {
                    let ft = target.into_float_type();
                    return Ok(if to.bits() > from.bits() {
                        b.build_float_ext(v, ft, "")?.into()
                    } else {
                        b.build_float_trunc(v, ft, "")?.into()
                    });
                }
                // Truncating, saturating, NaN to 0. A half goes through
                // f32 (exact): LLVM 19's saturating conversion of a half
                // NaN to i16 gave -32768 (random seed 1500249).
                let v = if from == ScalarType::F16 {
                    self.builder.build_float_ext(v, self.ctx.f32_type(), "")?
                } else {
                    v
                };
                let name = if to.is_signed() {
                    "llvm.fptosi.sat"
                } else {
                    "llvm.fptoui.sat"
                };
                self.call_intrinsic(name, &[target, v.get_type().into()], &[v.into()])
            }
            _ => err("conversion of a non-scalar"),
        }
    }
}

/// Whether `y` is a constant exponent that LLVM turns into exact
/// arithmetic (`x ** 2.0` into `x * x`, `x ** 1.0` into `x`, `x ** 0.0`
/// into 1, `x ** -1.0` into `1 / x`).
fn exact_pow_exponent(y: FloatValue) -> bool {
    y.get_constant()
        .is_some_and(|(v, _)| [0.0, 1.0, 2.0, -1.0].contains(&v))
}
