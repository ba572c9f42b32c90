//! Scalar literals of the value format: `42i8`, `0x2A`, `1.5f32`, `-inf`.

use super::*;

/// Why a word is not a scalar of the wanted type.
pub(super) enum ScalarError {
    Mismatch,
    Range,
}

/// The parts of a numeric literal (without its sign).
pub(super) struct NumLit {
    base: u64,
    /// The integer value (when not `overflow`); meaningless for floats.
    mag: u64,
    overflow: bool,
    /// Has a `.` or an exponent.
    pub(super) float_form: bool,
    /// Where the digits end and a suffix may start.
    pub(super) digits_end: usize,
}

/// `42`, `0x2A`, `0b101`, `1_000`, `1.5`, `2.5e-3`: digits (with `_`), no
/// suffix; `None` if `b` does not start with such a literal.
pub(super) fn lex_number(b: &[u8]) -> Option<NumLit> {
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
pub(super) fn parse_scalar(t: ScalarType, w: &[u8]) -> Result<Const, ScalarError> {
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
