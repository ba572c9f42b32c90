//! Values back to text (the canonical float spelling the C runtime shares)
//! and to Futhark's binary format.

use super::read::binary_name;
use super::*;

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
/// `1.0e20`. `arr_values.c` implements exactly the same algorithm.
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
/// `v`'s text with every zero written unsigned: what two backends must
/// agree on where floats are exact. `min`/`max` of `0.0` and `-0.0` may
/// give either zero (C's `fmin`/`fmax`, LLVM's `minnum`/`maxnum`), so the
/// sign of a zero is not compared (NaNs already print alike).
pub fn comparable_text(v: &Value) -> String {
    // Only a zero prints as `-0.0` followed by its suffix (`-0.0f32`).
    write_text(v).replace("-0.0f", "0.0f")
}

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
