//! `f16`, IEEE 754 binary16, as its bit pattern: stable Rust has no half
//! type. Arithmetic goes through `f32` or `f64` and rounds back once, which
//! is exact IEEE half arithmetic for `+ - * /` and `sqrt` (an `f32` holds
//! more than twice the half's precision) and for `fma` through `f64`.

use serde::Serialize;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct F16(pub u16);

/// Compares as floats do: NaN unequal to itself, `-0 == 0`.
impl PartialEq for F16 {
    fn eq(&self, other: &F16) -> bool {
        self.to_f32() == other.to_f32()
    }
}

impl F16 {
    pub const INFINITY: F16 = F16(0x7c00);
    pub const NEG_INFINITY: F16 = F16(0xfc00);
    pub const NAN: F16 = F16(0x7e00);

    /// The nearest half to `x`, ties to even (overflow to infinity).
    pub fn from_f64(x: f64) -> F16 {
        let b = x.to_bits();
        let sign = ((b >> 48) & 0x8000) as u16;
        let exp = ((b >> 52) & 0x7ff) as i64;
        let man = b & ((1u64 << 52) - 1);
        if exp == 0x7ff {
            // Infinity, or NaN keeping the top of its payload (quiet).
            let nan = if man != 0 {
                0x200 | ((man >> 42) as u16 & 0x3ff)
            } else {
                0
            };
            return F16(sign | 0x7c00 | nan);
        }
        if exp == 0 {
            // An f64 subnormal is far below half the smallest half.
            return F16(sign);
        }
        let e = exp - 1023;
        let sig = (1u64 << 52) | man;
        // Bits of the 53-bit significand below the half's last bit.
        let drop = if e >= -14 { 42 } else { 42 + (-14 - e) } as u32;
        if drop >= 64 {
            return F16(sign);
        }
        let kept = sig >> drop;
        let rest = sig & ((1u64 << drop) - 1);
        let half = 1u64 << (drop - 1);
        let up = rest > half || (rest == half && kept & 1 == 1);
        let r = kept + up as u64;
        if e < -14 {
            // Subnormal; a carry into bit 10 makes the smallest normal.
            return F16(sign | r as u16);
        }
        let (r, e) = if r == 1 << 11 {
            (r >> 1, e + 1)
        } else {
            (r, e)
        };
        if e + 15 >= 31 {
            return F16(sign | 0x7c00);
        }
        F16(sign | (((e + 15) as u16) << 10) | (r as u16 & 0x3ff))
    }

    pub fn from_f32(x: f32) -> F16 {
        F16::from_f64(x as f64)
    }

    /// The exact value.
    pub fn to_f32(self) -> f32 {
        let sign = ((self.0 & 0x8000) as u32) << 16;
        let exp = ((self.0 >> 10) & 0x1f) as u32;
        let man = (self.0 & 0x3ff) as u32;
        let bits = match exp {
            0 => {
                // Subnormal: man * 2^-24, exact in f32.
                let v = man as f32 * f32::from_bits(0x3380_0000);
                return if sign != 0 { -v } else { v };
            }
            31 => sign | 0x7f80_0000 | (man << 13),
            _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
        };
        f32::from_bits(bits)
    }

    pub fn to_f64(self) -> f64 {
        self.to_f32() as f64
    }

    /// The shortest decimal that reads back as this half (finite ones).
    pub fn shortest(self) -> f64 {
        let v = self.to_f64();
        (1..=5)
            .filter_map(|digits| format!("{:.*e}", digits - 1, v).parse::<f64>().ok())
            .find(|d| F16::from_f64(*d).0 == self.0)
            .unwrap_or(v)
    }

    pub fn is_nan(self) -> bool {
        self.0 & 0x7c00 == 0x7c00 && self.0 & 0x3ff != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_even() {
        assert_eq!(F16::from_f64(1.0).0, 0x3c00);
        assert_eq!(F16::from_f64(-2.0).0, 0xc000);
        assert_eq!(F16::from_f64(65504.0).0, 0x7bff);
        // 65520 is halfway to the next power of two: rounds to infinity.
        assert_eq!(F16::from_f64(65519.0).0, 0x7bff);
        assert_eq!(F16::from_f64(65520.0).0, 0x7c00);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1).
        assert_eq!(F16::from_f64(1.0 + 2f64.powi(-11)).0, 0x3c00);
        assert_eq!(F16::from_f64(1.0 + 3.0 * 2f64.powi(-11)).0, 0x3c02);
        // Subnormals: 2^-24 is the smallest; half of it ties to 0.
        assert_eq!(F16::from_f64(2f64.powi(-24)).0, 0x0001);
        assert_eq!(F16::from_f64(2f64.powi(-25)).0, 0x0000);
        assert_eq!(F16::from_f64(1.5 * 2f64.powi(-25)).0, 0x0001);
        assert_eq!(
            F16::from_f64(2f64.powi(-14) * (1.0 - 2f64.powi(-12))).0,
            0x0400
        );
        assert!(F16::from_f64(f64::NAN).is_nan());
        assert_eq!(F16::from_f64(f64::NEG_INFINITY).0, 0xfc00);
        assert_eq!(F16::from_f64(-0.0).0, 0x8000);
    }

    #[test]
    fn every_half_converts_back_exactly() {
        for bits in 0..=u16::MAX {
            let h = F16(bits);
            if h.is_nan() {
                assert!(h.to_f32().is_nan());
                continue;
            }
            assert_eq!(F16::from_f32(h.to_f32()).0, bits, "{bits:#x}");
        }
        assert_eq!(F16(0x0001).to_f32(), 2f32.powi(-24));
        assert_eq!(F16(0x3555).to_f32(), 0.333_251_95);
    }
}
