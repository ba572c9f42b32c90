//! Values of entry-point parameters and results, in the value format of
//! sections 7 and 10 of the language contract: bytes in (text or Futhark's
//! binary format, mixed argument by argument), `Value`s out, and back to text
//! or binary; plus the tolerant comparison the test runner uses.
//!
//! The reader, the text writer and their messages mirror `c/arr_runtime.c`
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

/// Input that does not fit: argument `arg` (1-based) at a byte position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub arg: usize,
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "argument {}: {} at line {}, column {}",
            self.arg, self.message, self.line, self.column
        )
    }
}

impl std::error::Error for InputError {}

/// Reads exactly one value of each type in `types` (text or binary per
/// value); anything but whitespace and comments after them is an error.
pub fn read_values(input: &[u8], types: &[Type]) -> Result<Vec<Value>, InputError> {
    let mut r = Reader {
        buf: input,
        pos: 0,
        arg: 0,
    };
    let mut out = Vec::with_capacity(types.len());
    for (i, &ty) in types.iter().enumerate() {
        r.arg = i + 1;
        out.push(r.read_value(ty)?);
    }
    r.skip_space();
    if r.pos < r.buf.len() {
        r.arg = types.len() + 1;
        return Err(r.expect_fail(r.pos, "end of input"));
    }
    Ok(out)
}

/// Reads values without known types: a suffix, `true`/`false`, or a
/// `f32.`/`f64.` constant decides an element type; otherwise integers are
/// `i32` and floats (a `.` or an exponent anywhere in the value) `f64`.
pub fn read_values_untyped(input: &[u8]) -> Result<Vec<Value>, InputError> {
    let mut r = Reader {
        buf: input,
        pos: 0,
        arg: 0,
    };
    let mut out = Vec::new();
    loop {
        r.skip_space();
        if r.pos >= r.buf.len() {
            return Ok(out);
        }
        r.arg = out.len() + 1;
        match r.guess_type() {
            Some(ty) => out.push(r.read_value(ty)?),
            None => return Err(r.expect_fail(r.pos, "a value")),
        }
    }
}

const MAX_RANK: usize = 8;

/// The four-byte element type name of the binary value format.
pub fn binary_name(t: ScalarType) -> &'static [u8; 4] {
    match t {
        ScalarType::I8 => b"  i8",
        ScalarType::I16 => b" i16",
        ScalarType::I32 => b" i32",
        ScalarType::I64 => b" i64",
        ScalarType::U8 => b"  u8",
        ScalarType::U16 => b" u16",
        ScalarType::U32 => b" u32",
        ScalarType::U64 => b" u64",
        ScalarType::F16 => b" f16",
        ScalarType::F32 => b" f32",
        ScalarType::F64 => b" f64",
        ScalarType::Bool => b"bool",
    }
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

enum ScalarError {
    Mismatch,
    Range,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    arg: usize,
}

/// The state of one text array being read: dimensions seen so far.
struct TextArray {
    elem: ScalarType,
    rank: usize,
    shape: Vec<Option<usize>>,
    data: ArrayData,
}

impl Reader<'_> {
    fn fail(&self, at: usize, message: String) -> InputError {
        let mut line = 1;
        let mut line_start = 0;
        for (i, &c) in self.buf.iter().enumerate().take(at) {
            if c == b'\n' {
                line += 1;
                line_start = i + 1;
            }
        }
        InputError {
            arg: self.arg,
            message,
            line,
            column: at.saturating_sub(line_start) + 1,
        }
    }

    /// What the input holds at `at`, for "found ..." in messages.
    fn describe(&self, at: usize) -> String {
        let Some(&c) = self.buf.get(at) else {
            return "end of input".to_string();
        };
        let tokenish = |c: u8| is_word_char(c) || c == b'-' || c == b'+';
        if tokenish(c) {
            let mut end = at;
            while end < self.buf.len() && end - at < 32 && tokenish(self.buf[end]) {
                end += 1;
            }
            let more = end < self.buf.len() && end - at == 32 && tokenish(self.buf[end]);
            format!(
                "'{}{}'",
                String::from_utf8_lossy(&self.buf[at..end]),
                if more { "..." } else { "" }
            )
        } else if (0x21..=0x7e).contains(&c) {
            format!("'{}'", c as char)
        } else {
            format!("byte 0x{c:02x}")
        }
    }

    fn expect_fail(&self, at: usize, what: &str) -> InputError {
        self.fail(at, format!("expected {what}, found {}", self.describe(at)))
    }

    fn skip_space(&mut self) {
        while let Some(&c) = self.buf.get(self.pos) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
                self.pos += 1;
            } else if c == b'-' && self.buf.get(self.pos + 1) == Some(&b'-') {
                while self.pos < self.buf.len() && self.buf[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    fn expect_char(&mut self, c: u8) -> Result<(), InputError> {
        self.skip_space();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.expect_fail(self.pos, &format!("'{}'", c as char)))
        }
    }

    /// A scalar token: an optional `-`, then letters, digits, `_` and `.`,
    /// and a sign right after the exponent marker of a decimal number.
    fn scan_word(&self, at: usize) -> usize {
        let b = self.buf;
        let mut p = at;
        if b.get(p) == Some(&b'-') {
            p += 1;
        }
        let hex = b.get(p) == Some(&b'0') && matches!(b.get(p + 1), Some(b'x' | b'X'));
        while let Some(&c) = b.get(p) {
            if is_word_char(c)
                || ((c == b'+' || c == b'-') && !hex && p > at && matches!(b[p - 1], b'e' | b'E'))
            {
                p += 1;
            } else {
                break;
            }
        }
        p
    }

    fn read_scalar(&mut self, t: ScalarType) -> Result<Const, InputError> {
        self.skip_space();
        let at = self.pos;
        let end = self.scan_word(at);
        match parse_scalar(t, &self.buf[at..end]) {
            Ok(c) if end > at => {
                self.pos = end;
                Ok(c)
            }
            Err(ScalarError::Range) => Err(self.fail(
                at,
                format!(
                    "'{}' is out of range for {}",
                    String::from_utf8_lossy(&self.buf[at..end]),
                    t.name()
                ),
            )),
            _ => Err(self.expect_fail(at, t.name())),
        }
    }

    fn read_value(&mut self, ty: Type) -> Result<Value, InputError> {
        self.skip_space();
        match self.peek() {
            None => Err(self.fail(
                self.pos,
                format!("missing argument of type {}", type_string(ty)),
            )),
            Some(b'b') => self.read_binary(ty),
            Some(_) if ty.rank() == 0 => Ok(Value::Scalar(self.read_scalar(ty.elem())?)),
            Some(_) => {
                let mut a = TextArray {
                    elem: ty.elem(),
                    rank: ty.rank(),
                    shape: vec![None; ty.rank()],
                    data: ArrayData::with_capacity(ty.elem(), 0),
                };
                self.read_text_elem(&mut a, 0)?;
                let shape: Vec<usize> = a.shape.iter().map(|d| d.unwrap_or(0)).collect();
                let at = self.pos;
                ArrayValue::new(shape, a.data)
                    .map(Value::Array)
                    .ok_or_else(|| self.fail(at, "array is too large".to_string()))
            }
        }
    }

    fn note_dim(
        &self,
        a: &mut TextArray,
        depth: usize,
        n: usize,
        at: usize,
    ) -> Result<(), InputError> {
        match a.shape.get(depth).copied().flatten() {
            None => {
                if let Some(d) = a.shape.get_mut(depth) {
                    *d = Some(n);
                }
                Ok(())
            }
            Some(m) if m == n => Ok(()),
            Some(m) => Err(self.fail(
                at,
                format!("irregular array: {n} elements where {m} were expected"),
            )),
        }
    }

    /// An element of an array literal at `depth` (`rank - depth` dimensions
    /// left).
    fn read_text_elem(&mut self, a: &mut TextArray, depth: usize) -> Result<(), InputError> {
        self.skip_space();
        let at = self.pos;
        if depth == a.rank {
            let c = self.read_scalar(a.elem)?;
            a.data.push(c);
            return Ok(());
        }
        if self.peek() == Some(b'[') {
            self.pos += 1;
            self.skip_space();
            if self.peek() == Some(b']') {
                self.pos += 1;
                return self.note_dim(a, depth, 0, at);
            }
            let mut count = 0;
            loop {
                self.read_text_elem(a, depth + 1)?;
                count += 1;
                self.skip_space();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b']') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.expect_fail(self.pos, "',' or ']'")),
                }
            }
            return self.note_dim(a, depth, count, at);
        }
        let end = self.scan_word(at);
        if &self.buf[at..end] == b"empty" {
            self.pos = end;
            return self.read_empty(a, depth, at);
        }
        Err(self.expect_fail(at, &type_string(Type::Array(a.elem, a.rank - depth))))
    }

    /// `empty([2][0]i32)`: dimensions and element type.
    fn read_empty_type(&mut self, at: usize) -> Result<(Vec<usize>, ScalarType), InputError> {
        self.expect_char(b'(')?;
        let mut dims = Vec::new();
        loop {
            self.skip_space();
            if self.peek() != Some(b'[') {
                break;
            }
            self.pos += 1;
            self.skip_space();
            let s = self.pos;
            let mut v: u64 = 0;
            let mut nd = 0;
            while let Some(c @ (b'0'..=b'9' | b'_')) = self.peek() {
                if c != b'_' {
                    let d = (c - b'0') as u64;
                    if v > (i64::MAX as u64 - d) / 10 {
                        return Err(self.fail(s, "size is too large".to_string()));
                    }
                    v = v * 10 + d;
                    nd += 1;
                }
                self.pos += 1;
            }
            if nd == 0 || self.buf[s] == b'_' {
                return Err(self.expect_fail(s, "a size"));
            }
            if dims.len() > MAX_RANK {
                return Err(self.fail(at, "too many dimensions".to_string()));
            }
            dims.push(v as usize);
            self.expect_char(b']')?;
        }
        self.skip_space();
        let wstart = self.pos;
        let mut wend = wstart;
        while wend < self.buf.len() && self.buf[wend].is_ascii_alphanumeric() {
            wend += 1;
        }
        let elem = std::str::from_utf8(&self.buf[wstart..wend])
            .ok()
            .and_then(ScalarType::from_name)
            .ok_or_else(|| self.expect_fail(wstart, "an element type"))?;
        self.pos = wend;
        self.expect_char(b')')?;
        Ok((dims, elem))
    }

    fn read_empty(&mut self, a: &mut TextArray, depth: usize, at: usize) -> Result<(), InputError> {
        let (dims, elem) = self.read_empty_type(at)?;
        let found: String = dims.iter().map(|d| format!("[{d}]")).collect::<String>() + elem.name();
        if dims.len() != a.rank - depth || elem != a.elem {
            let want = type_string(Type::Array(a.elem, a.rank - depth));
            return Err(self.fail(
                at,
                format!("expected {want}, found empty array of type {found}"),
            ));
        }
        if !dims.contains(&0) {
            return Err(self.fail(at, format!("empty array of type {found} has elements")));
        }
        for (i, &d) in dims.iter().enumerate() {
            self.note_dim(a, depth + i, d, at)?;
        }
        Ok(())
    }

    fn read_binary(&mut self, ty: Type) -> Result<Value, InputError> {
        let at = self.pos;
        let b = self.buf;
        let truncated = |r: &Self| r.fail(at, "unexpected end of input in binary value".into());
        let mut p = at + 1;
        let Some(&version) = b.get(p) else {
            return Err(truncated(self));
        };
        if version != 2 {
            return Err(self.fail(at, format!("unsupported binary format version {version}")));
        }
        p += 1;
        if p + 5 > b.len() {
            return Err(truncated(self));
        }
        let rank = b[p] as usize;
        p += 1;
        let name = &b[p..p + 4];
        let Some(elem) = ScalarType::ALL
            .into_iter()
            .find(|&t| binary_name(t).as_slice() == name)
        else {
            let shown: String = name
                .iter()
                .map(|&c| {
                    if (0x20..=0x7e).contains(&c) {
                        c as char
                    } else {
                        '?'
                    }
                })
                .collect();
            return Err(self.fail(
                at,
                format!("unknown element type '{shown}' in binary value"),
            ));
        };
        p += 4;
        if rank != ty.rank() || elem != ty.elem() {
            let found = if rank == 0 {
                Type::Scalar(elem)
            } else {
                Type::Array(elem, rank)
            };
            return Err(self.fail(
                at,
                format!(
                    "expected {}, found binary value of type {}",
                    type_string(ty),
                    type_string(found)
                ),
            ));
        }
        if rank * 8 > b.len() - p {
            return Err(truncated(self));
        }
        let mut shape = Vec::with_capacity(rank);
        let mut count: u64 = 1;
        for _ in 0..rank {
            let mut le = [0u8; 8];
            le.copy_from_slice(&b[p..p + 8]);
            p += 8;
            let d = i64::from_le_bytes(le);
            if d < 0 {
                return Err(self.fail(at, "negative size in binary value".into()));
            }
            let d = d as u64;
            if count != 0 && d != 0 && d > (u64::MAX / 16) / count {
                return Err(self.fail(at, "binary value is too large".into()));
            }
            count *= d;
            shape.push(d as usize);
        }
        let esize = elem.bytes();
        if count > ((b.len() - p) / esize) as u64 {
            return Err(truncated(self));
        }
        let n = count as usize;
        let bytes = &b[p..p + n * esize];
        self.pos = p + n * esize;
        let data = decode_le(elem, bytes);
        if rank == 0 {
            return data
                .get(0)
                .map(Value::Scalar)
                .ok_or_else(|| truncated(self));
        }
        ArrayValue::new(shape, data)
            .map(Value::Array)
            .ok_or_else(|| self.fail(at, "binary value is too large".into()))
    }

    /// The type `read_values_untyped` gives the value at the current
    /// position, or `None` if it does not start like a value.
    fn guess_type(&self) -> Option<Type> {
        let b = self.buf;
        let mut r = Reader {
            buf: b,
            pos: self.pos,
            arg: self.arg,
        };
        if r.peek() == Some(b'b') {
            let rank = *b.get(r.pos + 2)? as usize;
            let name = b.get(r.pos + 3..r.pos + 7)?;
            let elem = ScalarType::ALL
                .into_iter()
                .find(|&t| binary_name(t).as_slice() == name)?;
            return Some(if rank == 0 {
                Type::Scalar(elem)
            } else {
                Type::Array(elem, rank)
            });
        }
        let mut rank = 0;
        while r.peek() == Some(b'[') {
            rank += 1;
            r.pos += 1;
            r.skip_space();
        }
        let start = r.pos;
        let end = r.scan_word(start);
        if &b[start..end] == b"empty" {
            r.pos = end;
            let (dims, elem) = r.read_empty_type(start).ok()?;
            return Some(Type::Array(elem, rank + dims.len()));
        }
        // Scan the rest of the value for a token that fixes the type.
        r.pos = start;
        let mut depth = rank;
        let mut float = false;
        loop {
            r.skip_space();
            let Some(c) = r.peek() else { break };
            match c {
                b'[' | b'(' => {
                    depth += 1;
                    r.pos += 1;
                }
                b']' | b')' => {
                    depth = depth.saturating_sub(1);
                    r.pos += 1;
                }
                b',' => r.pos += 1,
                _ => {
                    let end = r.scan_word(r.pos);
                    if end == r.pos {
                        break;
                    }
                    match word_type(&b[r.pos..end]) {
                        WordType::Fixed(t) => {
                            return Some(if rank == 0 {
                                Type::Scalar(t)
                            } else {
                                Type::Array(t, rank)
                            });
                        }
                        WordType::Float => float = true,
                        WordType::Int | WordType::Other => {}
                    }
                    r.pos = end;
                }
            }
            if depth == 0 {
                break;
            }
        }
        let t = if float {
            ScalarType::F64
        } else {
            ScalarType::I32
        };
        Some(if rank == 0 {
            Type::Scalar(t)
        } else {
            Type::Array(t, rank)
        })
    }
}

enum WordType {
    Fixed(ScalarType),
    Float,
    Int,
    Other,
}

/// What one token says about the element type of an untyped value.
fn word_type(w: &[u8]) -> WordType {
    let body = w.strip_prefix(b"-").unwrap_or(w);
    if body == b"true" || body == b"false" {
        return WordType::Fixed(ScalarType::Bool);
    }
    if let Some(t) = std::str::from_utf8(body)
        .ok()
        .and_then(ScalarType::from_name)
    {
        return WordType::Fixed(t);
    }
    match body {
        b"f16.inf" | b"f16.nan" => return WordType::Fixed(ScalarType::F16),
        b"f32.inf" | b"f32.nan" => return WordType::Fixed(ScalarType::F32),
        b"f64.inf" | b"f64.nan" => return WordType::Fixed(ScalarType::F64),
        _ => {}
    }
    match lex_number(body) {
        None => WordType::Other,
        Some(lit) => match std::str::from_utf8(&body[lit.digits_end..])
            .ok()
            .and_then(ScalarType::from_name)
        {
            Some(t) if t != ScalarType::Bool => WordType::Fixed(t),
            _ if lit.float_form => WordType::Float,
            _ => WordType::Int,
        },
    }
}

fn decode_le(elem: ScalarType, bytes: &[u8]) -> ArrayData {
    macro_rules! dec {
        ($variant:ident, $t:ty, $n:expr) => {
            ArrayData::$variant(
                bytes
                    .chunks_exact($n)
                    .map(|c| {
                        let mut a = [0u8; $n];
                        a.copy_from_slice(c);
                        <$t>::from_le_bytes(a)
                    })
                    .collect(),
            )
        };
    }
    match elem {
        ScalarType::I8 => dec!(I8, i8, 1),
        ScalarType::I16 => dec!(I16, i16, 2),
        ScalarType::I32 => dec!(I32, i32, 4),
        ScalarType::I64 => dec!(I64, i64, 8),
        ScalarType::U8 => ArrayData::U8(bytes.to_vec()),
        ScalarType::U16 => dec!(U16, u16, 2),
        ScalarType::U32 => dec!(U32, u32, 4),
        ScalarType::U64 => dec!(U64, u64, 8),
        ScalarType::F16 => ArrayData::F16(
            bytes
                .chunks_exact(2)
                .map(|c| F16(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        ),
        ScalarType::F32 => dec!(F32, f32, 4),
        ScalarType::F64 => dec!(F64, f64, 8),
        ScalarType::Bool => ArrayData::Bool(bytes.iter().map(|&c| c != 0).collect()),
    }
}

/// The parts of a numeric literal (without its sign).
struct NumLit {
    base: u64,
    /// The integer value (when not `overflow`); meaningless for floats.
    mag: u64,
    overflow: bool,
    /// Has a `.` or an exponent.
    float_form: bool,
    /// Where the digits end and a suffix may start.
    digits_end: usize,
}

/// `42`, `0x2A`, `0b101`, `1_000`, `1.5`, `2.5e-3`: digits (with `_`), no
/// suffix; `None` if `b` does not start with such a literal.
fn lex_number(b: &[u8]) -> Option<NumLit> {
    if !b.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut i = 0;
    let mut base = 10u64;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1], b'x' | b'X' | b'b' | b'B') {
        base = if matches!(b[1], b'x' | b'X') { 16 } else { 2 };
        i = 2;
    }
    let mut mag: u64 = 0;
    let mut overflow = false;
    let mut ndigits = 0;
    while i < b.len() {
        let c = b[i];
        let d = (c as char).to_digit(16).map(u64::from).unwrap_or(99);
        if c != b'_' && d >= base {
            break;
        }
        if c != b'_' {
            match mag.checked_mul(base).and_then(|m| m.checked_add(d)) {
                Some(m) => mag = m,
                None => overflow = true,
            }
            ndigits += 1;
        }
        i += 1;
    }
    if ndigits == 0 {
        return None;
    }
    let mut float_form = false;
    if base == 10 {
        if b.get(i) == Some(&b'.') {
            i += 1;
            let s = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            if i == s || b[s] == b'_' {
                return None;
            }
            float_form = true;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == s {
                return None;
            }
            float_form = true;
        }
    }
    Some(NumLit {
        base,
        mag,
        overflow,
        float_form,
        digits_end: i,
    })
}

/// Reads the literal `w` as a value of type `t`.
fn parse_scalar(t: ScalarType, w: &[u8]) -> Result<Const, ScalarError> {
    use ScalarError::{Mismatch, Range};
    let neg = w.first() == Some(&b'-');
    let b = if neg { &w[1..] } else { w };
    if b == b"true" || b == b"false" {
        return if t == ScalarType::Bool && !neg {
            Ok(Const::Bool(b[0] == b't'))
        } else {
            Err(Mismatch)
        };
    }
    if b.len() == 7 && (b.starts_with(b"f16.") || b.starts_with(b"f32.") || b.starts_with(b"f64."))
    {
        let inf = &b[4..] == b"inf";
        if inf || &b[4..] == b"nan" {
            let v = if !inf {
                f64::NAN
            } else if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            return match (t, b[1]) {
                (ScalarType::F16, b'1') => Ok(Const::F16(F16::from_f64(v))),
                (ScalarType::F32, b'3') => Ok(Const::F32(v as f32)),
                (ScalarType::F64, b'6') => Ok(Const::F64(v)),
                _ => Err(Mismatch),
            };
        }
    }
    if t == ScalarType::Bool {
        return Err(Mismatch);
    }
    let NumLit {
        base,
        mag,
        overflow,
        float_form,
        digits_end,
    } = lex_number(b).ok_or(Mismatch)?;
    let i = digits_end;
    if i < b.len() && &b[i..] != t.name().as_bytes() {
        return Err(Mismatch);
    }
    if t.is_float() {
        if base != 10 {
            return Err(Mismatch);
        }
        let mut text = String::with_capacity(digits_end + 1);
        if neg {
            text.push('-');
        }
        text.extend(
            b[..digits_end]
                .iter()
                .filter(|&&c| c != b'_')
                .map(|&c| c as char),
        );
        return match t {
            ScalarType::F16 => text
                .parse::<f64>()
                .map(|v| Const::F16(F16::from_f64(v)))
                .map_err(|_| Mismatch),
            ScalarType::F32 => text.parse::<f32>().map(Const::F32).map_err(|_| Mismatch),
            _ => text.parse::<f64>().map(Const::F64).map_err(|_| Mismatch),
        };
    }
    if float_form {
        return Err(Mismatch);
    }
    if overflow {
        return Err(Range);
    }
    let bits = t.bits();
    let fits = if t.is_signed() {
        let limit = 1u64 << (bits - 1);
        if neg {
            mag <= limit
        } else {
            mag < limit
        }
    } else {
        let limit = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        if neg {
            mag == 0
        } else {
            mag <= limit
        }
    };
    // With a suffix, as Futhark's reader does, the value wraps to the
    // type's width (`255i8` is -1): test data written for Futhark relies on
    // it. Without one, a value out of range is an error.
    let suffixed = i < b.len();
    if !fits && !suffixed {
        return Err(Range);
    }
    let v = if neg { -(mag as i128) } else { mag as i128 };
    Ok(Const::int_wrapping(t, v))
}

/// The first `p` of the decimal digits `all` (of a number with decimal
/// exponent `exp`), rounded half up; a carry out of the first digit moves the
/// exponent.
fn round_digits(all: &[u8], p: usize, exp: i32) -> (Vec<u8>, i32) {
    let p = p.min(all.len()).max(1);
    let mut out: Vec<u8> = all.get(..p).unwrap_or(b"0").to_vec();
    if all.get(p).is_some_and(|&d| d >= b'5') {
        for d in out.iter_mut().rev() {
            if *d == b'9' {
                *d = b'0';
            } else {
                *d += 1;
                return (out, exp);
            }
        }
        out[0] = b'1';
        return (out, exp + 1);
    }
    (out, exp)
}

/// The canonical spelling of a finite float. The digits: print the value
/// once with 40 correctly rounded significant digits, then binary-search
/// the fewest leading digits, at most 17 (f32: 9, which always read back),
/// that, rounded half up from those 40, still read back to the same value.
/// Rounding from 40 digits rather than from 17 (9) avoids rounding twice:
/// `8/3` as `f32` is 2.66666674..., which is `2.6666667`, not `2.6666668`.
/// The layout: positional when the decimal exponent is in [-5, 16],
/// scientific otherwise, always with a `.`: `1.0`, `0.001`, `1.5e-7`,
/// `1.0e20`. `arr_runtime.c` implements exactly the same algorithm.
pub fn format_float(v: f64, single: bool) -> String {
    format_float_bits(v, if single { 32 } else { 64 })
}

/// `format_float` for a float of `bits` bits (16: `f16`, at most 5 digits).
pub fn format_float_bits(v: f64, bits: u32) -> String {
    const DIGITS_PRINTED: usize = 40;
    let max_digits = match bits {
        16 => 5,
        32 => 9,
        _ => 17,
    };
    let s = format!("{:.*e}", DIGITS_PRINTED - 1, v);
    let neg = s.starts_with('-');
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let all: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let all_exp: i32 = exp.parse().unwrap_or(0);
    let round_trips = |digits: &[u8], exp: i32| {
        let mut t = String::with_capacity(digits.len() + 8);
        t.push(digits[0] as char);
        t.push('.');
        t.extend(digits[1..].iter().map(|&d| d as char));
        if digits.len() == 1 {
            t.push('0');
        }
        t.push_str(&format!("e{exp}"));
        // The digits carry no sign: compare magnitudes.
        if bits == 16 {
            t.parse::<f64>().map(|d| F16::from_f64(d).0) == Ok(F16::from_f64(v.abs()).0)
        } else if bits == 32 {
            t.parse::<f32>() == Ok(v.abs() as f32)
        } else {
            t.parse::<f64>() == Ok(v.abs())
        }
    };
    let (mut lo, mut hi) = (1, all.len().clamp(1, max_digits));
    while lo < hi {
        let mid = (lo + hi) / 2;
        let (digits, e) = round_digits(&all, mid, all_exp);
        if round_trips(&digits, e) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let (mut digits, exp) = round_digits(&all, hi, all_exp);
    // Trailing zeros carry no information.
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    let nd = digits.len() as i32;
    let digit = |i: i32| {
        if i >= 0 && i < nd {
            digits[i as usize] as char
        } else {
            '0'
        }
    };
    let mut out = String::with_capacity(nd as usize + 8);
    if neg {
        out.push('-');
    }
    if !(-5..=16).contains(&exp) {
        out.push(digit(0));
        out.push('.');
        if nd == 1 {
            out.push('0');
        }
        (1..nd).for_each(|i| out.push(digit(i)));
        out.push_str(&format!("e{exp}"));
    } else if exp >= 0 {
        (0..=exp).for_each(|i| out.push(digit(i)));
        out.push('.');
        if nd <= exp + 1 {
            out.push('0');
        }
        (exp + 1..nd).for_each(|i| out.push(digit(i)));
    } else {
        out.push_str("0.");
        (0..-exp - 1).for_each(|_| out.push('0'));
        (0..nd).for_each(|i| out.push(digit(i)));
    }
    out
}

/// One scalar in the text format, always with its type.
pub fn write_scalar(out: &mut String, c: Const) {
    use std::fmt::Write;
    let float = |out: &mut String, v: f64, bits: u32, t: &str| {
        if v.is_nan() {
            out.push_str(t);
            out.push_str(".nan");
        } else if v.is_infinite() {
            if v < 0.0 {
                out.push('-');
            }
            out.push_str(t);
            out.push_str(".inf");
        } else {
            out.push_str(&format_float_bits(v, bits));
            out.push_str(t);
        }
    };
    // Writing to a String cannot fail.
    let _ = match c {
        Const::I8(v) => write!(out, "{v}i8"),
        Const::I16(v) => write!(out, "{v}i16"),
        Const::I32(v) => write!(out, "{v}i32"),
        Const::I64(v) => write!(out, "{v}i64"),
        Const::U8(v) => write!(out, "{v}u8"),
        Const::U16(v) => write!(out, "{v}u16"),
        Const::U32(v) => write!(out, "{v}u32"),
        Const::U64(v) => write!(out, "{v}u64"),
        Const::F16(v) => {
            float(out, v.to_f64(), 16, "f16");
            Ok(())
        }
        Const::F32(v) => {
            float(out, v as f64, 32, "f32");
            Ok(())
        }
        Const::F64(v) => {
            float(out, v, 64, "f64");
            Ok(())
        }
        Const::Bool(v) => write!(out, "{v}"),
    };
}

/// The text format, as the compiled binaries print it (without newline).
pub fn write_text(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Scalar(c) => write_scalar(&mut out, *c),
        Value::Array(a) if a.shape.contains(&0) || a.data.is_empty() => {
            out.push_str("empty(");
            for d in &a.shape {
                out.push_str(&format!("[{d}]"));
            }
            out.push_str(a.elem.name());
            out.push(')');
        }
        Value::Array(a) => {
            let mut i = 0;
            write_rows(&mut out, a, 0, &mut i);
        }
    }
    out
}

fn write_rows(out: &mut String, a: &ArrayValue, depth: usize, i: &mut usize) {
    out.push('[');
    let n = a.shape.get(depth).copied().unwrap_or(0);
    for k in 0..n {
        if k > 0 {
            out.push_str(", ");
        }
        if depth + 1 == a.shape.len() {
            if let Some(c) = a.data.get(*i) {
                write_scalar(out, c);
            }
            *i += 1;
        } else {
            write_rows(out, a, depth + 1, i);
        }
    }
    out.push(']');
}

/// The binary format: `b`, version 2, rank, type name, sizes, elements.
pub fn write_binary(v: &Value, out: &mut Vec<u8>) {
    out.push(b'b');
    out.push(2);
    match v {
        Value::Scalar(c) => {
            out.push(0);
            out.extend_from_slice(binary_name(c.scalar_type()));
            encode_le(&ArrayData::filled(*c, 1), out);
        }
        Value::Array(a) => {
            out.push(a.rank() as u8);
            out.extend_from_slice(binary_name(a.elem));
            for &d in &a.shape {
                out.extend_from_slice(&(d as i64).to_le_bytes());
            }
            encode_le(&a.data, out);
        }
    }
}

fn encode_le(data: &ArrayData, out: &mut Vec<u8>) {
    macro_rules! enc {
        ($v:expr) => {
            for x in $v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
    }
    match data {
        ArrayData::I8(v) => enc!(v),
        ArrayData::I16(v) => enc!(v),
        ArrayData::I32(v) => enc!(v),
        ArrayData::I64(v) => enc!(v),
        ArrayData::U8(v) => out.extend_from_slice(v),
        ArrayData::U16(v) => enc!(v),
        ArrayData::U32(v) => enc!(v),
        ArrayData::U64(v) => enc!(v),
        ArrayData::F16(v) => enc!(v.iter().map(|h| h.0)),
        ArrayData::F32(v) => enc!(v),
        ArrayData::F64(v) => enc!(v),
        ArrayData::Bool(v) => out.extend(v.iter().map(|&b| b as u8)),
    }
}

/// Section 10's rule: floats within `0.002 * max(1, largest finite |y| in
/// the expected value)`, NaN matches NaN, infinities agree in sign; shapes,
/// integers and bools exactly. An expected `i32` or `f64` value (what
/// unsuffixed literals read as) also matches another numeric type with the
/// same numbers. The error names the first difference.
pub fn compare(actual: &Value, expected: &Value) -> Result<(), String> {
    let (at, et) = (actual.ty(), expected.ty());
    let numeric = |t: ScalarType| t != ScalarType::Bool;
    let lenient = matches!(et.elem(), ScalarType::I32 | ScalarType::F64)
        && numeric(at.elem())
        && at.rank() == et.rank();
    if at != et && !lenient {
        return Err(format!(
            "got a value of type {} where {} was expected",
            type_string(at),
            type_string(et)
        ));
    }
    match (actual, expected) {
        (Value::Scalar(x), Value::Scalar(y)) => {
            let tol = 0.002 * y.as_f64().abs().max(1.0);
            if scalars_match(*x, *y, tol) {
                Ok(())
            } else {
                Err(format!("got {} where {} was expected", x, y))
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.shape != y.shape {
                let shape = |s: &[usize]| s.iter().map(|d| format!("[{d}]")).collect::<String>();
                return Err(format!(
                    "got an array of shape {} where {} was expected",
                    shape(&x.shape),
                    shape(&y.shape)
                ));
            }
            let largest = (0..y.len())
                .filter_map(|i| y.get(i))
                .map(|c| c.as_f64().abs())
                .filter(|v| v.is_finite())
                .fold(1.0f64, f64::max);
            let tol = 0.002 * largest;
            for i in 0..y.len() {
                let (Some(a), Some(e)) = (x.get(i), y.get(i)) else {
                    return Err("array data does not match its shape".to_string());
                };
                if !scalars_match(a, e, tol) {
                    let mut index = String::new();
                    let mut rest = i;
                    let mut stride: usize = y.shape.iter().product();
                    for &d in &y.shape {
                        stride /= d.max(1);
                        index.push_str(&format!("[{}]", rest / stride.max(1)));
                        rest %= stride.max(1);
                    }
                    return Err(format!(
                        "at index {index}: got {} where {} was expected",
                        a, e
                    ));
                }
            }
            Ok(())
        }
        _ => Err(format!(
            "got a value of type {} where {} was expected",
            type_string(at),
            type_string(et)
        )),
    }
}

fn scalars_match(a: Const, e: Const, tol: f64) -> bool {
    match (a, e) {
        (Const::Bool(x), Const::Bool(y)) => x == y,
        _ if a.scalar_type().is_float() || e.scalar_type().is_float() => {
            let (x, y) = (a.as_f64(), e.as_f64());
            if x.is_nan() || y.is_nan() {
                x.is_nan() && y.is_nan()
            } else if x.is_infinite() || y.is_infinite() {
                x == y
            } else {
                (x - y).abs() <= tol
            }
        }
        _ => a.as_i128().is_some() && a.as_i128() == e.as_i128(),
    }
}
