//! The value reader: text and binary arguments, typed by the entry's
//! parameters or guessed, with the messages of `c/arr_values.c`.

use super::literal::{lex_number, parse_scalar, ScalarError};
use super::*;

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

/// The highest rank of a value (`ARR_MAX_RANK` of the C runtime): the
/// binary format stores ranks in one byte.
pub const MAX_RANK: usize = 255;

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
        if self.peek() == Some(b'"') && depth + 1 == a.rank && a.elem == ScalarType::U8 {
            let bytes = self.read_string(at)?;
            let n = bytes.len();
            for b in bytes {
                a.data.push(Const::U8(b));
            }
            return self.note_dim(a, depth, n, at);
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

    /// A string literal at `at` as Futhark's values allow it for a `[]u8`:
    /// its UTF-8 bytes, with the escapes of the language's string literals.
    fn read_string(&mut self, at: usize) -> Result<Vec<u8>, InputError> {
        let mut out = Vec::new();
        let mut p = at + 1;
        loop {
            let Some(&c) = self.buf.get(p) else {
                return Err(self.fail(at, "unterminated string literal".to_string()));
            };
            p += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.buf.get(p).copied();
                    out.push(match e {
                        Some(b'n') => b'\n',
                        Some(b't') => b'\t',
                        Some(b'r') => b'\r',
                        Some(b'0') => 0,
                        Some(c @ (b'\\' | b'\'' | b'"')) => c,
                        _ => {
                            return Err(
                                self.fail(p - 1, "unknown escape in string literal".to_string())
                            )
                        }
                    });
                    p += 1;
                }
                c => out.push(c),
            }
        }
        self.pos = p;
        Ok(out)
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
        if r.peek() == Some(b'"') {
            return Some(Type::Array(ScalarType::U8, rank + 1));
        }
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
