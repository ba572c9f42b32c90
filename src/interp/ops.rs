//! Scalar semantics: `BinOp`, `UnOp` and `Convert` on constants, exactly as
//! sections 1, 6 and 10 of the language contract define them. The
//! interpreter evaluates with these; constant folding may reuse them.
//!
//! Choices where the contract is silent, following Futhark: integer `Pow`
//! reads the exponent as an unsigned number of the same width (a signed
//! one is never negative here: lowering checks it first, as Futhark does,
//! with `AssertReport::NegativeExponent`); a shift by the bit
//! width or more (a negative amount read as unsigned) shifts every bit out;
//! `Shr` is arithmetic on signed and logical on
//! unsigned types, `UShr` always logical; float `Mod` and `Rem` are C's
//! `fmod`, float `Quot` is the truncated quotient; float `Min`/`Max` are
//! C's `fmin`/`fmax` (a NaN operand is ignored).

use crate::core::ir::{BinOp, UnOp};
use crate::types::half::F16;
use crate::types::{Const, ScalarType};

/// Why a scalar operation has no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpError {
    DivisionByZero,
    /// Operand types the operator does not take: the IR is ill-typed.
    Type,
}

macro_rules! int_binop {
    ($op:expr, $x:expr, $y:expr, $variant:ident, $t:ty, $unsigned:ty) => {{
        let (x, y) = ($x, $y);
        let bits = (std::mem::size_of_val(&x) * 8) as u32;
        // An amount of `bits` or more (a negative one read as unsigned)
        // shifts every bit out, as the compiled code does.
        let amount = y as $unsigned as u64;
        let shift = amount.min(bits as u64 - 1) as u32;
        let out_of_range = amount >= bits as u64;
        let signed = <$t>::MIN != 0;
        Ok(match $op {
            BinOp::Add => Const::$variant(x.wrapping_add(y)),
            BinOp::Sub => Const::$variant(x.wrapping_sub(y)),
            BinOp::Mul => Const::$variant(x.wrapping_mul(y)),
            BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem if y == 0 => {
                return Err(OpError::DivisionByZero)
            }
            BinOp::Div => {
                let (q, r) = (x.wrapping_div(y), x.wrapping_rem(y));
                // Round towards negative infinity: adjust when the signs differ.
                #[allow(unused_comparisons)]
                let adjust = r != 0 && ((r < 0) != (y < 0));
                Const::$variant(if adjust { q.wrapping_sub(1) } else { q })
            }
            BinOp::Mod => {
                let r = x.wrapping_rem(y);
                #[allow(unused_comparisons)]
                let adjust = r != 0 && ((r < 0) != (y < 0));
                Const::$variant(if adjust { r.wrapping_add(y) } else { r })
            }
            BinOp::Quot => Const::$variant(x.wrapping_div(y)),
            BinOp::Rem => Const::$variant(x.wrapping_rem(y)),
            BinOp::Pow => {
                let mut e = y as $unsigned;
                let (mut base, mut acc): ($t, $t) = (x, 1);
                while e != 0 {
                    if e & 1 == 1 {
                        acc = base.wrapping_mul(acc);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                Const::$variant(acc)
            }
            BinOp::Min => Const::$variant(x.min(y)),
            BinOp::Max => Const::$variant(x.max(y)),
            BinOp::Eq => Const::Bool(x == y),
            BinOp::Neq => Const::Bool(x != y),
            BinOp::Lt => Const::Bool(x < y),
            BinOp::Le => Const::Bool(x <= y),
            BinOp::Gt => Const::Bool(x > y),
            BinOp::Ge => Const::Bool(x >= y),
            BinOp::And => Const::$variant(x & y),
            BinOp::Or => Const::$variant(x | y),
            BinOp::Xor => Const::$variant(x ^ y),
            BinOp::Shl if out_of_range => Const::$variant(0),
            BinOp::Shl => Const::$variant(x << shift),
            // Arithmetic for signed types: shifting by `bits - 1` already
            // leaves only sign bits.
            BinOp::Shr if out_of_range && signed => Const::$variant(x >> shift),
            BinOp::Shr | BinOp::UShr if out_of_range => Const::$variant(0),
            BinOp::Shr => Const::$variant(x >> shift),
            BinOp::UShr => Const::$variant(((x as $unsigned) >> shift) as _),
            BinOp::MulHi => {
                // The exact product fits in 128 bits for every width.
                let product = (x as i128).wrapping_mul(y as i128);
                Const::$variant((product >> bits) as $t)
            }
            BinOp::Atan2 | BinOp::Hypot | BinOp::NextAfter | BinOp::CopySign => {
                return Err(OpError::Type)
            }
        })
    }};
}

/// C's `nextafter`: `y` if equal, NaN if either is, else one step of the
/// bit pattern towards `y` (from zero: the smallest subnormal of `y`'s sign).
macro_rules! next_after {
    ($name:ident, $t:ty) => {
        pub fn $name(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                x + y
            } else if x == y {
                y
            } else if x == 0.0 {
                <$t>::from_bits(1).copysign(y)
            } else if (y > x) == (x > 0.0) {
                <$t>::from_bits(x.to_bits() + 1)
            } else {
                <$t>::from_bits(x.to_bits() - 1)
            }
        }
    };
}

next_after!(next_after_f32, f32);
next_after!(next_after_f64, f64);

macro_rules! float_binop {
    ($op:expr, $x:expr, $y:expr, $variant:ident, $next:ident) => {{
        let (x, y) = ($x, $y);
        Ok(match $op {
            BinOp::Add => Const::$variant(x + y),
            BinOp::Sub => Const::$variant(x - y),
            BinOp::Mul => Const::$variant(x * y),
            BinOp::Div => Const::$variant(x / y),
            BinOp::Mod | BinOp::Rem => Const::$variant(x % y),
            BinOp::Quot => Const::$variant((x / y).trunc()),
            BinOp::Pow => Const::$variant(x.powf(y)),
            BinOp::Min => Const::$variant(x.min(y)),
            BinOp::Max => Const::$variant(x.max(y)),
            BinOp::Eq => Const::Bool(x == y),
            BinOp::Neq => Const::Bool(x != y),
            BinOp::Lt => Const::Bool(x < y),
            BinOp::Le => Const::Bool(x <= y),
            BinOp::Gt => Const::Bool(x > y),
            BinOp::Ge => Const::Bool(x >= y),
            BinOp::Atan2 => Const::$variant(x.atan2(y)),
            BinOp::Hypot => Const::$variant(x.hypot(y)),
            BinOp::CopySign => Const::$variant(x.copysign(y)),
            BinOp::NextAfter => Const::$variant($next(x, y)),
            BinOp::And
            | BinOp::Or
            | BinOp::Xor
            | BinOp::Shl
            | BinOp::Shr
            | BinOp::UShr
            | BinOp::MulHi => return Err(OpError::Type),
        })
    }};
}

/// `f16` through `f32`, rounded back once (exact IEEE half arithmetic for
/// the basic operations); `nextafter` steps on the half's own grid.
fn half_binop(op: BinOp, x: F16, y: F16) -> Result<Const, OpError> {
    if op == BinOp::NextAfter {
        let (a, b) = (x.to_f32(), y.to_f32());
        return Ok(Const::F16(if a.is_nan() || b.is_nan() {
            F16::NAN
        } else if a == b {
            y
        } else if a == 0.0 {
            F16(1 | (y.0 & 0x8000))
        } else if (b > a) == (a > 0.0) {
            F16(x.0 + 1)
        } else {
            F16(x.0 - 1)
        }));
    }
    Ok(
        match binop(op, Const::F32(x.to_f32()), Const::F32(y.to_f32()))? {
            Const::F32(r) => Const::F16(F16::from_f32(r)),
            other => other,
        },
    )
}

/// `a op b`; both operands have the same type (comparisons give `bool`).
pub fn binop(op: BinOp, a: Const, b: Const) -> Result<Const, OpError> {
    match (a, b) {
        (Const::I8(x), Const::I8(y)) => int_binop!(op, x, y, I8, i8, u8),
        (Const::I16(x), Const::I16(y)) => int_binop!(op, x, y, I16, i16, u16),
        (Const::I32(x), Const::I32(y)) => int_binop!(op, x, y, I32, i32, u32),
        (Const::I64(x), Const::I64(y)) => int_binop!(op, x, y, I64, i64, u64),
        (Const::U8(x), Const::U8(y)) => int_binop!(op, x, y, U8, u8, u8),
        (Const::U16(x), Const::U16(y)) => int_binop!(op, x, y, U16, u16, u16),
        (Const::U32(x), Const::U32(y)) => int_binop!(op, x, y, U32, u32, u32),
        (Const::U64(x), Const::U64(y)) => int_binop!(op, x, y, U64, u64, u64),
        (Const::F16(x), Const::F16(y)) => half_binop(op, x, y),
        (Const::F32(x), Const::F32(y)) => float_binop!(op, x, y, F32, next_after_f32),
        (Const::F64(x), Const::F64(y)) => float_binop!(op, x, y, F64, next_after_f64),
        (Const::Bool(x), Const::Bool(y)) => Ok(Const::Bool(match op {
            BinOp::Eq => x == y,
            BinOp::Neq => x != y,
            BinOp::Lt => !x & y,
            BinOp::Le => x <= y,
            BinOp::Gt => x & !y,
            BinOp::Ge => x >= y,
            BinOp::And | BinOp::Min => x & y,
            BinOp::Or | BinOp::Max => x | y,
            BinOp::Xor => x ^ y,
            _ => return Err(OpError::Type),
        })),
        _ => Err(OpError::Type),
    }
}

extern "C" {
    // The C library's, as compiled programs use: std has none of these.
    fn erf(x: f64) -> f64;
    fn erff(x: f32) -> f32;
    fn erfc(x: f64) -> f64;
    fn erfcf(x: f32) -> f32;
    fn tgamma(x: f64) -> f64;
    fn tgammaf(x: f32) -> f32;
    fn lgamma(x: f64) -> f64;
    fn lgammaf(x: f32) -> f32;
}

/// Signed `abs` wraps (`abs MIN == MIN`); unsigned is the identity.
macro_rules! int_abs {
    ($x:expr) => {{
        #[allow(unused_comparisons)]
        let negative = $x < 0;
        if negative {
            $x.wrapping_neg()
        } else {
            $x
        }
    }};
}

macro_rules! int_unop {
    ($op:expr, $x:expr, $variant:ident) => {{
        let x = $x;
        Ok(match $op {
            UnOp::Neg => Const::$variant(x.wrapping_neg()),
            UnOp::Not => Const::$variant(!x),
            UnOp::Abs => Const::$variant(int_abs!(x)),
            UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc => Const::$variant(x),
            UnOp::IsNan | UnOp::IsInf => Const::Bool(false),
            UnOp::Popc => Const::I32(x.count_ones() as i32),
            UnOp::Clz => Const::I32(x.leading_zeros() as i32),
            _ => return Err(OpError::Type),
        })
    }};
}

macro_rules! float_unop {
    ($op:expr, $x:expr, $variant:ident, $erf:ident, $erfc:ident, $tgamma:ident, $lgamma:ident) => {{
        let x = $x;
        Ok(Const::$variant(match $op {
            UnOp::Neg => -x,
            UnOp::Abs => x.abs(),
            UnOp::Sqrt => x.sqrt(),
            UnOp::Exp => x.exp(),
            UnOp::Log => x.ln(),
            UnOp::Log2 => x.log2(),
            UnOp::Log10 => x.log10(),
            UnOp::Sin => x.sin(),
            UnOp::Cos => x.cos(),
            UnOp::Tan => x.tan(),
            UnOp::Asin => x.asin(),
            UnOp::Acos => x.acos(),
            UnOp::Atan => x.atan(),
            UnOp::Sinh => x.sinh(),
            UnOp::Cosh => x.cosh(),
            UnOp::Tanh => x.tanh(),
            UnOp::Floor => x.floor(),
            UnOp::Ceil => x.ceil(),
            UnOp::Round => x.round_ties_even(),
            UnOp::Trunc => x.trunc(),
            // SAFETY: a pure C library function on a plain float.
            UnOp::Erf => unsafe { $erf(x) },
            // SAFETY: as above.
            UnOp::Erfc => unsafe { $erfc(x) },
            // SAFETY: as above.
            UnOp::Gamma => unsafe { $tgamma(x) },
            // SAFETY: as above (it also sets the C library's `signgam`,
            // which nothing reads).
            UnOp::Lgamma => unsafe { $lgamma(x) },
            UnOp::Cbrt => x.cbrt(),
            UnOp::Log1p => x.ln_1p(),
            UnOp::Expm1 => x.exp_m1(),
            UnOp::Asinh => x.asinh(),
            UnOp::Acosh => x.acosh(),
            UnOp::Atanh => x.atanh(),
            UnOp::IsNan => return Ok(Const::Bool(x.is_nan())),
            UnOp::IsInf => return Ok(Const::Bool(x.is_infinite())),
            UnOp::ToBits => return Ok(x.to_bits().into_const()),
            UnOp::Not | UnOp::Popc | UnOp::Clz | UnOp::FromBits => return Err(OpError::Type),
        }))
    }};
}

/// A float's bits as a constant of the unsigned type of its width.
trait BitsConst {
    fn into_const(self) -> Const;
}

impl BitsConst for u32 {
    fn into_const(self) -> Const {
        Const::U32(self)
    }
}

impl BitsConst for u64 {
    fn into_const(self) -> Const {
        Const::U64(self)
    }
}

pub fn unop(op: UnOp, a: Const) -> Result<Const, OpError> {
    match (op, a) {
        (UnOp::FromBits, Const::U16(x)) => return Ok(Const::F16(F16(x))),
        (UnOp::ToBits, Const::F16(x)) => return Ok(Const::U16(x.0)),
        (UnOp::FromBits, Const::U32(x)) => return Ok(Const::F32(f32::from_bits(x))),
        (UnOp::FromBits, Const::U64(x)) => return Ok(Const::F64(f64::from_bits(x))),
        _ => {}
    }
    match a {
        Const::I8(x) => int_unop!(op, x, I8),
        Const::I16(x) => int_unop!(op, x, I16),
        Const::I32(x) => int_unop!(op, x, I32),
        Const::I64(x) => int_unop!(op, x, I64),
        Const::U8(x) => int_unop!(op, x, U8),
        Const::U16(x) => int_unop!(op, x, U16),
        Const::U32(x) => int_unop!(op, x, U32),
        Const::U64(x) => int_unop!(op, x, U64),
        Const::F16(x) => Ok(match unop(op, Const::F32(x.to_f32()))? {
            Const::F32(r) => Const::F16(F16::from_f32(r)),
            other => other,
        }),
        Const::F32(x) => float_unop!(op, x, F32, erff, erfcf, tgammaf, lgammaf),
        Const::F64(x) => float_unop!(op, x, F64, erf, erfc, tgamma, lgamma),
        Const::Bool(x) => match op {
            UnOp::Not => Ok(Const::Bool(!x)),
            _ => Err(OpError::Type),
        },
    }
}

/// `a * b + c` rounded once (`f32.fma`).
pub fn fma(a: Const, b: Const, c: Const) -> Result<Const, OpError> {
    match (a, b, c) {
        (Const::F32(a), Const::F32(b), Const::F32(c)) => Ok(Const::F32(a.mul_add(b, c))),
        (Const::F64(a), Const::F64(b), Const::F64(c)) => Ok(Const::F64(a.mul_add(b, c))),
        // Exact in f64 (a half's product has 22 bits and the exponents
        // span less than f64's precision), so one rounding to half.
        (Const::F16(a), Const::F16(b), Const::F16(c)) => Ok(Const::F16(F16::from_f64(
            a.to_f64().mul_add(b.to_f64(), c.to_f64()),
        ))),
        _ => Err(OpError::Type),
    }
}

/// Section 10's conversions: float to integer truncates towards zero,
/// saturates and maps NaN to 0; integer to integer keeps the low bits
/// (sign-extending signed sources); `bool` is 0 or 1 and anything non-zero
/// converts to `true`.
pub fn convert(t: ScalarType, c: Const) -> Const {
    if t == ScalarType::Bool {
        return Const::Bool(match c {
            Const::F16(x) => x.to_f32() != 0.0,
            Const::F32(x) => x != 0.0,
            Const::F64(x) => x != 0.0,
            other => other.as_i128().unwrap_or(0) != 0,
        });
    }
    match c {
        Const::F16(x) => float_to(t, x.to_f64(), Some(x.to_f32())),
        Const::F32(x) => float_to(t, x as f64, Some(x)),
        Const::F64(x) => float_to(t, x, None),
        other => Const::int_wrapping(t, other.as_i128().unwrap_or(0)),
    }
}

/// `single` carries the exact `f32` source so that `f32 -> f32` is exact.
fn float_to(t: ScalarType, x: f64, single: Option<f32>) -> Const {
    match t {
        // Rust's float-to-int `as` truncates, saturates and maps NaN to 0.
        ScalarType::I8 => Const::I8(x as i8),
        ScalarType::I16 => Const::I16(x as i16),
        ScalarType::I32 => Const::I32(x as i32),
        ScalarType::I64 => Const::I64(x as i64),
        ScalarType::U8 => Const::U8(x as u8),
        ScalarType::U16 => Const::U16(x as u16),
        ScalarType::U32 => Const::U32(x as u32),
        ScalarType::U64 => Const::U64(x as u64),
        ScalarType::F16 => Const::F16(F16::from_f64(x)),
        ScalarType::F32 => Const::F32(single.unwrap_or(x as f32)),
        ScalarType::F64 => Const::F64(x),
        ScalarType::Bool => Const::Bool(x != 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(op: BinOp, x: Const, y: Const) -> Const {
        binop(op, x, y).unwrap()
    }

    #[test]
    fn division_rounds_like_futhark() {
        use Const::I32;
        assert_eq!(b(BinOp::Div, I32(-7), I32(2)), I32(-4));
        assert_eq!(b(BinOp::Mod, I32(-7), I32(2)), I32(1));
        assert_eq!(b(BinOp::Mod, I32(7), I32(-2)), I32(-1));
        assert_eq!(b(BinOp::Quot, I32(-7), I32(2)), I32(-3));
        assert_eq!(b(BinOp::Rem, I32(-7), I32(2)), I32(-1));
        assert_eq!(b(BinOp::Div, I32(i32::MIN), I32(-1)), I32(i32::MIN));
        assert_eq!(b(BinOp::Mod, I32(i32::MIN), I32(-1)), I32(0));
        for op in [BinOp::Div, BinOp::Mod, BinOp::Quot, BinOp::Rem] {
            assert_eq!(binop(op, I32(1), I32(0)), Err(OpError::DivisionByZero));
            assert_eq!(
                binop(op, Const::U8(1), Const::U8(0)),
                Err(OpError::DivisionByZero)
            );
        }
        assert_eq!(b(BinOp::Div, Const::U8(200), Const::U8(7)), Const::U8(28));
        assert_eq!(
            b(BinOp::Div, Const::F64(1.0), Const::F64(0.0)),
            Const::F64(f64::INFINITY)
        );
    }

    #[test]
    fn integers_wrap() {
        assert_eq!(b(BinOp::Add, Const::I8(127), Const::I8(1)), Const::I8(-128));
        assert_eq!(b(BinOp::Mul, Const::U8(16), Const::U8(17)), Const::U8(16));
        assert_eq!(b(BinOp::Pow, Const::I32(3), Const::I32(4)), Const::I32(81));
        assert_eq!(b(BinOp::Pow, Const::I8(2), Const::I8(9)), Const::I8(0));
        assert_eq!(b(BinOp::Pow, Const::I32(1), Const::I32(-1)), Const::I32(1));
        assert_eq!(
            b(BinOp::Pow, Const::I32(-1), Const::I32(-1)),
            Const::I32(-1)
        );
        assert_eq!(unop(UnOp::Neg, Const::I8(-128)), Ok(Const::I8(-128)));
        assert_eq!(unop(UnOp::Abs, Const::I8(-128)), Ok(Const::I8(-128)));
        assert_eq!(b(BinOp::Shl, Const::I32(1), Const::I32(33)), Const::I32(0));
        assert_eq!(b(BinOp::Shr, Const::I8(-8), Const::I8(100)), Const::I8(-1));
        assert_eq!(b(BinOp::Shr, Const::U8(200), Const::U8(8)), Const::U8(0));
        assert_eq!(b(BinOp::UShr, Const::I8(-8), Const::I8(8)), Const::I8(0));
        assert_eq!(b(BinOp::Shr, Const::I8(-8), Const::I8(1)), Const::I8(-4));
        assert_eq!(b(BinOp::UShr, Const::I8(-8), Const::I8(1)), Const::I8(124));
        assert_eq!(b(BinOp::Shl, Const::I32(1), Const::I32(-1)), Const::I32(0));
    }

    #[test]
    fn conversions() {
        assert_eq!(convert(ScalarType::I32, Const::F64(-2.7)), Const::I32(-2));
        assert_eq!(convert(ScalarType::I8, Const::F32(1e10)), Const::I8(127));
        assert_eq!(convert(ScalarType::U8, Const::F32(-5.0)), Const::U8(0));
        assert_eq!(
            convert(ScalarType::I32, Const::F64(f64::NAN)),
            Const::I32(0)
        );
        assert_eq!(convert(ScalarType::I8, Const::I32(300)), Const::I8(44));
        assert_eq!(convert(ScalarType::U16, Const::I8(-1)), Const::U16(65535));
        assert_eq!(
            convert(ScalarType::I64, Const::U32(u32::MAX)),
            Const::I64(4294967295)
        );
        assert_eq!(convert(ScalarType::F32, Const::Bool(true)), Const::F32(1.0));
        assert_eq!(convert(ScalarType::Bool, Const::I32(2)), Const::Bool(true));
        assert_eq!(
            convert(ScalarType::Bool, Const::F64(0.0)),
            Const::Bool(false)
        );
        assert_eq!(convert(ScalarType::I32, Const::Bool(true)), Const::I32(1));
    }

    #[test]
    fn float_ops() {
        assert_eq!(unop(UnOp::Round, Const::F64(2.5)), Ok(Const::F64(2.0)));
        assert_eq!(unop(UnOp::Round, Const::F32(3.5)), Ok(Const::F32(4.0)));
        assert_eq!(unop(UnOp::Popc, Const::U8(255)), Ok(Const::I32(8)));
        assert_eq!(unop(UnOp::Clz, Const::I64(1)), Ok(Const::I32(63)));
        assert_eq!(
            b(BinOp::Min, Const::F64(f64::NAN), Const::F64(1.0)),
            Const::F64(1.0)
        );
        assert_eq!(
            b(BinOp::Atan2, Const::F64(1.0), Const::F64(1.0)),
            Const::F64(std::f64::consts::FRAC_PI_4)
        );
        let Ok(Const::F64(e)) = unop(UnOp::Erf, Const::F64(1.0)) else {
            panic!("erf")
        };
        assert!((e - 0.842_700_792_949_715).abs() < 1e-12);
        // f32 arithmetic is done in f32.
        assert_eq!(
            b(BinOp::Add, Const::F32(16777216.0), Const::F32(1.0)),
            Const::F32(16777216.0)
        );
    }
}
