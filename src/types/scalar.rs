//! Scalar types and scalar constants, shared by every IR.

pub use super::half::F16;
use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ScalarType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
    Bool,
}

impl ScalarType {
    pub const ALL: [ScalarType; 12] = [
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F16,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::Bool,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::F16 => "f16",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::Bool => "bool",
        }
    }

    pub fn from_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::F32 | ScalarType::F64)
    }

    /// The unsigned integer type of the same width (`f32` to `u32`).
    pub fn bits_type(self) -> ScalarType {
        match self.bits() {
            8 => ScalarType::U8,
            16 => ScalarType::U16,
            32 => ScalarType::U32,
            _ => ScalarType::U64,
        }
    }

    /// The signed integer type of the same width (`u8` to `i8`).
    pub fn signed_type(self) -> ScalarType {
        match self.bits() {
            8 => ScalarType::I8,
            16 => ScalarType::I16,
            32 => ScalarType::I32,
            _ => ScalarType::I64,
        }
    }

    pub fn is_int(self) -> bool {
        self.is_signed() || self.is_unsigned()
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64
        )
    }

    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64
        )
    }

    /// Width in bits; `bool` is stored as one byte.
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::I8 | ScalarType::U8 | ScalarType::Bool => 8,
            ScalarType::I16 | ScalarType::U16 | ScalarType::F16 => 16,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
        }
    }

    pub fn bytes(self) -> usize {
        self.bits() as usize / 8
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A scalar value. Integers are kept in their own width so that wrapping
/// arithmetic is exact; floats compare by bits where identity matters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Const {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(F16),
    F32(f32),
    F64(f64),
    Bool(bool),
}

impl Const {
    pub fn scalar_type(self) -> ScalarType {
        match self {
            Const::I8(_) => ScalarType::I8,
            Const::I16(_) => ScalarType::I16,
            Const::I32(_) => ScalarType::I32,
            Const::I64(_) => ScalarType::I64,
            Const::U8(_) => ScalarType::U8,
            Const::U16(_) => ScalarType::U16,
            Const::U32(_) => ScalarType::U32,
            Const::U64(_) => ScalarType::U64,
            Const::F16(_) => ScalarType::F16,
            Const::F32(_) => ScalarType::F32,
            Const::F64(_) => ScalarType::F64,
            Const::Bool(_) => ScalarType::Bool,
        }
    }

    /// The integer value reinterpreted at width 128 (sign- or zero-extended).
    pub fn as_i128(self) -> Option<i128> {
        Some(match self {
            Const::I8(v) => v as i128,
            Const::I16(v) => v as i128,
            Const::I32(v) => v as i128,
            Const::I64(v) => v as i128,
            Const::U8(v) => v as i128,
            Const::U16(v) => v as i128,
            Const::U32(v) => v as i128,
            Const::U64(v) => v as i128,
            Const::Bool(b) => b as i128,
            Const::F16(_) | Const::F32(_) | Const::F64(_) => return None,
        })
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Const::F16(v) => v.to_f64(),
            Const::F32(v) => v as f64,
            Const::F64(v) => v,
            other => other.as_i128().unwrap_or(0) as f64,
        }
    }

    /// An integer of type `t` from any integer value, keeping the low bits.
    pub fn int_wrapping(t: ScalarType, v: i128) -> Const {
        match t {
            ScalarType::I8 => Const::I8(v as i8),
            ScalarType::I16 => Const::I16(v as i16),
            ScalarType::I32 => Const::I32(v as i32),
            ScalarType::I64 => Const::I64(v as i64),
            ScalarType::U8 => Const::U8(v as u8),
            ScalarType::U16 => Const::U16(v as u16),
            ScalarType::U32 => Const::U32(v as u32),
            ScalarType::U64 => Const::U64(v as u64),
            ScalarType::F16 => Const::F16(F16::from_f64(v as f64)),
            ScalarType::F32 => Const::F32(v as f32),
            ScalarType::F64 => Const::F64(v as f64),
            ScalarType::Bool => Const::Bool(v != 0),
        }
    }

    pub fn zero(t: ScalarType) -> Const {
        Const::int_wrapping(t, 0)
    }
}

/// Prints the value in the textual value format (section 7 of the language
/// contract): always with its type suffix, e.g. `1i32`, `-2.5f32`, `f32.nan`.
impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn float(f: &mut fmt::Formatter<'_>, v: f64, t: &str) -> fmt::Result {
            if v.is_nan() {
                write!(f, "{t}.nan")
            } else if v.is_infinite() {
                write!(f, "{}{t}.inf", if v < 0.0 { "-" } else { "" })
            } else {
                write!(f, "{v:?}{t}")
            }
        }
        match *self {
            Const::I8(v) => write!(f, "{v}i8"),
            Const::I16(v) => write!(f, "{v}i16"),
            Const::I32(v) => write!(f, "{v}i32"),
            Const::I64(v) => write!(f, "{v}i64"),
            Const::U8(v) => write!(f, "{v}u8"),
            Const::U16(v) => write!(f, "{v}u16"),
            Const::U32(v) => write!(f, "{v}u32"),
            Const::U64(v) => write!(f, "{v}u64"),
            Const::F16(v) if v.to_f32().is_finite() => write!(f, "{:?}f16", v.shortest()),
            Const::F16(v) => float(f, v.to_f64(), "f16"),
            Const::F32(v) => {
                if v.is_finite() {
                    write!(f, "{v:?}f32")
                } else {
                    float(f, v as f64, "f32")
                }
            }
            Const::F64(v) => float(f, v, "f64"),
            Const::Bool(v) => write!(f, "{v}"),
        }
    }
}
