//! Values of entry-point parameters and results, in the value format of
//! sections 7 and 10 of the language contract: bytes in (text or Futhark's
//! binary format, mixed argument by argument), `Value`s out, and back to text
//! or binary; plus the tolerant comparison the test runner uses.
//!
//! The reader, the text writer and their messages mirror `c/arr_values.c`
//! exactly (same grammar, same `argument N: ... at line L, column C`
//! messages, same float spelling), because the test suite compares the
//! interpreter's output with the compiled binaries' byte for byte.
//!
//! Expected outputs of test blocks are best read with `read_values` and the
//! entry's result types (as inputs are read with its parameter types).
//! `read_values_untyped` exists for when no types are known: it types an
//! unsuffixed integer `i32` and an unsuffixed float `f64`, and `compare`
//! then lets an expected `i32` or `f64` value match an actual of another
//! numeric type with the same numbers.

mod compare;
mod literal;
mod read;
mod write;

pub use compare::compare;
pub use read::{binary_name, read_values, read_values_untyped, InputError, MAX_RANK};
pub use write::{comparable_text, format_float, write_binary, write_scalar, write_text};

use crate::core::ir::Type;
use crate::types::half::F16;
use crate::types::{Const, ScalarType};
use std::fmt;

/// An entry-point argument or result.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Scalar(Const),
    Array(ArrayValue),
}

/// A regular array of scalars, row-major; `data.len()` is the product of
/// `shape`, and `elem` is `data`'s element type.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayValue {
    pub elem: ScalarType,
    pub shape: Vec<usize>,
    pub data: ArrayData,
}

/// Typed storage: compact, and cheap to index without matching per element.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayData {
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F16(Vec<F16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

/// Applies `$body` to the vector inside any `ArrayData` variant.
macro_rules! with_vec {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            ArrayData::I8($v) => $body,
            ArrayData::I16($v) => $body,
            ArrayData::I32($v) => $body,
            ArrayData::I64($v) => $body,
            ArrayData::U8($v) => $body,
            ArrayData::U16($v) => $body,
            ArrayData::U32($v) => $body,
            ArrayData::U64($v) => $body,
            ArrayData::F16($v) => $body,
            ArrayData::F32($v) => $body,
            ArrayData::F64($v) => $body,
            ArrayData::Bool($v) => $body,
        }
    };
}

impl ArrayData {
    pub fn with_capacity(elem: ScalarType, n: usize) -> ArrayData {
        match elem {
            ScalarType::I8 => ArrayData::I8(Vec::with_capacity(n)),
            ScalarType::I16 => ArrayData::I16(Vec::with_capacity(n)),
            ScalarType::I32 => ArrayData::I32(Vec::with_capacity(n)),
            ScalarType::I64 => ArrayData::I64(Vec::with_capacity(n)),
            ScalarType::U8 => ArrayData::U8(Vec::with_capacity(n)),
            ScalarType::U16 => ArrayData::U16(Vec::with_capacity(n)),
            ScalarType::U32 => ArrayData::U32(Vec::with_capacity(n)),
            ScalarType::U64 => ArrayData::U64(Vec::with_capacity(n)),
            ScalarType::F16 => ArrayData::F16(Vec::with_capacity(n)),
            ScalarType::F32 => ArrayData::F32(Vec::with_capacity(n)),
            ScalarType::F64 => ArrayData::F64(Vec::with_capacity(n)),
            ScalarType::Bool => ArrayData::Bool(Vec::with_capacity(n)),
        }
    }

    /// `n` copies of `c`.
    pub fn filled(c: Const, n: usize) -> ArrayData {
        match c {
            Const::I8(x) => ArrayData::I8(vec![x; n]),
            Const::I16(x) => ArrayData::I16(vec![x; n]),
            Const::I32(x) => ArrayData::I32(vec![x; n]),
            Const::I64(x) => ArrayData::I64(vec![x; n]),
            Const::U8(x) => ArrayData::U8(vec![x; n]),
            Const::U16(x) => ArrayData::U16(vec![x; n]),
            Const::U32(x) => ArrayData::U32(vec![x; n]),
            Const::U64(x) => ArrayData::U64(vec![x; n]),
            Const::F16(x) => ArrayData::F16(vec![x; n]),
            Const::F32(x) => ArrayData::F32(vec![x; n]),
            Const::F64(x) => ArrayData::F64(vec![x; n]),
            Const::Bool(x) => ArrayData::Bool(vec![x; n]),
        }
    }

    pub fn elem(&self) -> ScalarType {
        match self {
            ArrayData::I8(_) => ScalarType::I8,
            ArrayData::I16(_) => ScalarType::I16,
            ArrayData::I32(_) => ScalarType::I32,
            ArrayData::I64(_) => ScalarType::I64,
            ArrayData::U8(_) => ScalarType::U8,
            ArrayData::U16(_) => ScalarType::U16,
            ArrayData::U32(_) => ScalarType::U32,
            ArrayData::U64(_) => ScalarType::U64,
            ArrayData::F16(_) => ScalarType::F16,
            ArrayData::F32(_) => ScalarType::F32,
            ArrayData::F64(_) => ScalarType::F64,
            ArrayData::Bool(_) => ScalarType::Bool,
        }
    }

    pub fn len(&self) -> usize {
        with_vec!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<Const> {
        Some(match self {
            ArrayData::I8(v) => Const::I8(*v.get(i)?),
            ArrayData::I16(v) => Const::I16(*v.get(i)?),
            ArrayData::I32(v) => Const::I32(*v.get(i)?),
            ArrayData::I64(v) => Const::I64(*v.get(i)?),
            ArrayData::U8(v) => Const::U8(*v.get(i)?),
            ArrayData::U16(v) => Const::U16(*v.get(i)?),
            ArrayData::U32(v) => Const::U32(*v.get(i)?),
            ArrayData::U64(v) => Const::U64(*v.get(i)?),
            ArrayData::F16(v) => Const::F16(*v.get(i)?),
            ArrayData::F32(v) => Const::F32(*v.get(i)?),
            ArrayData::F64(v) => Const::F64(*v.get(i)?),
            ArrayData::Bool(v) => Const::Bool(*v.get(i)?),
        })
    }

    /// Appends `c`; false (and nothing appended) if its type differs.
    pub fn push(&mut self, c: Const) -> bool {
        match (self, c) {
            (ArrayData::I8(v), Const::I8(x)) => v.push(x),
            (ArrayData::I16(v), Const::I16(x)) => v.push(x),
            (ArrayData::I32(v), Const::I32(x)) => v.push(x),
            (ArrayData::I64(v), Const::I64(x)) => v.push(x),
            (ArrayData::U8(v), Const::U8(x)) => v.push(x),
            (ArrayData::U16(v), Const::U16(x)) => v.push(x),
            (ArrayData::U32(v), Const::U32(x)) => v.push(x),
            (ArrayData::U64(v), Const::U64(x)) => v.push(x),
            (ArrayData::F16(v), Const::F16(x)) => v.push(x),
            (ArrayData::F32(v), Const::F32(x)) => v.push(x),
            (ArrayData::F64(v), Const::F64(x)) => v.push(x),
            (ArrayData::Bool(v), Const::Bool(x)) => v.push(x),
            _ => return false,
        }
        true
    }

    /// Appends `other[start..start + n]`; false if the types differ or the
    /// range is out of bounds.
    pub fn extend_from(&mut self, other: &ArrayData, start: usize, n: usize) -> bool {
        fn ext<T: Copy>(dst: &mut Vec<T>, src: &[T], start: usize, n: usize) -> bool {
            match start.checked_add(n).and_then(|end| src.get(start..end)) {
                Some(s) => {
                    dst.extend_from_slice(s);
                    true
                }
                None => false,
            }
        }
        match (self, other) {
            (ArrayData::I8(d), ArrayData::I8(s)) => ext(d, s, start, n),
            (ArrayData::I16(d), ArrayData::I16(s)) => ext(d, s, start, n),
            (ArrayData::I32(d), ArrayData::I32(s)) => ext(d, s, start, n),
            (ArrayData::I64(d), ArrayData::I64(s)) => ext(d, s, start, n),
            (ArrayData::U8(d), ArrayData::U8(s)) => ext(d, s, start, n),
            (ArrayData::U16(d), ArrayData::U16(s)) => ext(d, s, start, n),
            (ArrayData::U32(d), ArrayData::U32(s)) => ext(d, s, start, n),
            (ArrayData::U64(d), ArrayData::U64(s)) => ext(d, s, start, n),
            (ArrayData::F16(d), ArrayData::F16(s)) => ext(d, s, start, n),
            (ArrayData::F32(d), ArrayData::F32(s)) => ext(d, s, start, n),
            (ArrayData::F64(d), ArrayData::F64(s)) => ext(d, s, start, n),
            (ArrayData::Bool(d), ArrayData::Bool(s)) => ext(d, s, start, n),
            _ => false,
        }
    }

    /// Appends `n` elements of `other` starting at `start`, `step` apart
    /// (negative steps go backwards); false if the types differ or an
    /// element is out of bounds (nothing appended then).
    pub fn extend_strided(&mut self, other: &ArrayData, start: i64, n: usize, step: i64) -> bool {
        fn ext<T: Copy>(dst: &mut Vec<T>, src: &[T], start: i64, n: usize, step: i64) -> bool {
            if n == 0 {
                return true;
            }
            let last = (n as i128 - 1) * step as i128 + start as i128;
            let in_range = |i: i128| i >= 0 && i < src.len() as i128;
            if !in_range(start as i128) || !in_range(last) {
                return false;
            }
            if step == 1 {
                dst.extend_from_slice(&src[start as usize..start as usize + n]);
                return true;
            }
            dst.reserve(n);
            let mut i = start as isize;
            for _ in 0..n {
                dst.push(src[i as usize]);
                i += step as isize;
            }
            true
        }
        match (self, other) {
            (ArrayData::I8(d), ArrayData::I8(s)) => ext(d, s, start, n, step),
            (ArrayData::I16(d), ArrayData::I16(s)) => ext(d, s, start, n, step),
            (ArrayData::I32(d), ArrayData::I32(s)) => ext(d, s, start, n, step),
            (ArrayData::I64(d), ArrayData::I64(s)) => ext(d, s, start, n, step),
            (ArrayData::U8(d), ArrayData::U8(s)) => ext(d, s, start, n, step),
            (ArrayData::U16(d), ArrayData::U16(s)) => ext(d, s, start, n, step),
            (ArrayData::U32(d), ArrayData::U32(s)) => ext(d, s, start, n, step),
            (ArrayData::U64(d), ArrayData::U64(s)) => ext(d, s, start, n, step),
            (ArrayData::F16(d), ArrayData::F16(s)) => ext(d, s, start, n, step),
            (ArrayData::F32(d), ArrayData::F32(s)) => ext(d, s, start, n, step),
            (ArrayData::F64(d), ArrayData::F64(s)) => ext(d, s, start, n, step),
            (ArrayData::Bool(d), ArrayData::Bool(s)) => ext(d, s, start, n, step),
            _ => false,
        }
    }

    /// Overwrites `self[at..at + n]` with `other[start..start + n]`; false if
    /// the types differ or either range is out of bounds.
    pub fn write_from(&mut self, at: usize, other: &ArrayData, start: usize, n: usize) -> bool {
        fn wr<T: Copy>(dst: &mut [T], at: usize, src: &[T], start: usize, n: usize) -> bool {
            let d = at.checked_add(n).and_then(|end| dst.get_mut(at..end));
            let s = start.checked_add(n).and_then(|end| src.get(start..end));
            match (d, s) {
                (Some(d), Some(s)) => {
                    d.copy_from_slice(s);
                    true
                }
                _ => false,
            }
        }
        match (self, other) {
            (ArrayData::I8(d), ArrayData::I8(s)) => wr(d, at, s, start, n),
            (ArrayData::I16(d), ArrayData::I16(s)) => wr(d, at, s, start, n),
            (ArrayData::I32(d), ArrayData::I32(s)) => wr(d, at, s, start, n),
            (ArrayData::I64(d), ArrayData::I64(s)) => wr(d, at, s, start, n),
            (ArrayData::U8(d), ArrayData::U8(s)) => wr(d, at, s, start, n),
            (ArrayData::U16(d), ArrayData::U16(s)) => wr(d, at, s, start, n),
            (ArrayData::U32(d), ArrayData::U32(s)) => wr(d, at, s, start, n),
            (ArrayData::U64(d), ArrayData::U64(s)) => wr(d, at, s, start, n),
            (ArrayData::F16(d), ArrayData::F16(s)) => wr(d, at, s, start, n),
            (ArrayData::F32(d), ArrayData::F32(s)) => wr(d, at, s, start, n),
            (ArrayData::F64(d), ArrayData::F64(s)) => wr(d, at, s, start, n),
            (ArrayData::Bool(d), ArrayData::Bool(s)) => wr(d, at, s, start, n),
            _ => false,
        }
    }

    /// Sets element `i` to `c`; false if out of bounds or of another type.
    pub fn set(&mut self, i: usize, c: Const) -> bool {
        macro_rules! put {
            ($v:expr, $x:expr) => {
                match $v.get_mut(i) {
                    Some(slot) => {
                        *slot = $x;
                        true
                    }
                    None => false,
                }
            };
        }
        match (self, c) {
            (ArrayData::I8(v), Const::I8(x)) => put!(v, x),
            (ArrayData::I16(v), Const::I16(x)) => put!(v, x),
            (ArrayData::I32(v), Const::I32(x)) => put!(v, x),
            (ArrayData::I64(v), Const::I64(x)) => put!(v, x),
            (ArrayData::U8(v), Const::U8(x)) => put!(v, x),
            (ArrayData::U16(v), Const::U16(x)) => put!(v, x),
            (ArrayData::U32(v), Const::U32(x)) => put!(v, x),
            (ArrayData::U64(v), Const::U64(x)) => put!(v, x),
            (ArrayData::F16(v), Const::F16(x)) => put!(v, x),
            (ArrayData::F32(v), Const::F32(x)) => put!(v, x),
            (ArrayData::F64(v), Const::F64(x)) => put!(v, x),
            (ArrayData::Bool(v), Const::Bool(x)) => put!(v, x),
            _ => false,
        }
    }

    /// A copy of `self[start..start + n]` (clamped to the data).
    pub fn slice(&self, start: usize, n: usize) -> ArrayData {
        let start = start.min(self.len());
        let end = start.saturating_add(n).min(self.len());
        let mut out = ArrayData::with_capacity(self.elem(), end - start);
        out.extend_from(self, start, end - start);
        out
    }
}

impl ArrayValue {
    /// Checks that `data` holds exactly the elements `shape` asks for.
    pub fn new(shape: Vec<usize>, data: ArrayData) -> Option<ArrayValue> {
        let n = shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))?;
        (n == data.len() && !shape.is_empty()).then(|| ArrayValue {
            elem: data.elem(),
            shape,
            data,
        })
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of scalars.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The scalar at row-major position `i`.
    pub fn get(&self, i: usize) -> Option<Const> {
        self.data.get(i)
    }
}

impl Value {
    pub fn ty(&self) -> Type {
        match self {
            Value::Scalar(c) => Type::Scalar(c.scalar_type()),
            Value::Array(a) => Type::Array(a.elem, a.rank()),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write_text(self))
    }
}

/// `[][]f32`
pub fn type_string(ty: Type) -> String {
    format!("{}{}", "[]".repeat(ty.rank()), ty.elem().name())
}
