#![allow(dead_code)] // each test crate uses some of these
//! What `tests/vmath.rs` and `tests/vmath64.rs` share (with
//! `tests/support`, which they include too): compiling a program
//! of math functions with `-O3` (vectorised), running it on arrays through
//! the binary value format, and measuring results against libm in ulps,
//! with special values (NaN, infinities, zeros, overflow, underflow)
//! required to match exactly.

use arrc::runtime::value::{ArrayData, ArrayValue, Value};
use arrc::types::ScalarType;
use std::fmt::LowerExp;
use std::process::Command;

/// `f32` or `f64`, as far as the comparisons need.
pub trait Float: Copy + LowerExp + PartialOrd {
    const ELEM: ScalarType;
    /// The bits as an integer that orders like the float (negatives below
    /// positives), so that differences count representable values.
    fn key(self) -> i128;
    fn is_nan(self) -> bool;
    fn is_negative(self) -> bool;
    fn is_finite(self) -> bool;
    fn abs(self) -> Self;
    /// Three times the smallest subnormal: around the underflow threshold
    /// one side may round to 0, the other to a subnormal.
    fn tiny() -> Self;
    fn zero() -> Self;
    fn data(v: Vec<Self>) -> ArrayData;
    fn column(v: &Value) -> Option<Vec<Self>>;
}

/// `Float` for `$t`, whose bits read as a `$signed` order like it.
macro_rules! float {
    ($t:ty, $signed:ty, $elem:ident) => {
        impl Float for $t {
            const ELEM: ScalarType = ScalarType::$elem;
            fn key(self) -> i128 {
                let bits = self.to_bits() as $signed;
                if bits < 0 {
                    i128::from(<$signed>::MIN) - i128::from(bits)
                } else {
                    i128::from(bits)
                }
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_negative(self) -> bool {
                self.is_sign_negative()
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn tiny() -> Self {
                3.0 * <$t>::from_bits(1)
            }
            fn zero() -> Self {
                0.0
            }
            fn data(v: Vec<Self>) -> ArrayData {
                ArrayData::$elem(v)
            }
            fn column(v: &Value) -> Option<Vec<Self>> {
                match v {
                    Value::Array(ArrayValue {
                        data: ArrayData::$elem(d),
                        ..
                    }) => Some(d.clone()),
                    _ => None,
                }
            }
        }
    };
}

float!(f32, i32, F32);
float!(f64, i64, F64);

/// The distance in representable floats between two finite floats.
pub fn ulps<F: Float>(a: F, b: F) -> u64 {
    (a.key() - b.key()).unsigned_abs() as u64
}

/// Equal bits (so the zeros' signs too), or both NaN.
pub fn same<F: Float>(a: F, b: F) -> bool {
    (a.is_nan() && b.is_nan()) || (a.key() == b.key() && a.is_negative() == b.is_negative())
}

/// Compiles `src` (an entry taking `args.len()` arrays of `F` and
/// returning `results` of them) with `-O3`, checks that its LLVM IR has
/// vectors of `F` and none of `forbidden` (such as a libm call), and runs
/// it on `args`.
pub fn run<F: Float>(
    src: &str,
    forbidden: &[&str],
    args: &[Vec<F>],
    results: usize,
) -> Vec<Vec<F>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vmath.arr");
    std::fs::write(&path, src).unwrap();
    let exe = dir.path().join("vmath");
    let arrc = env!("CARGO_BIN_EXE_arrc");
    let status = Command::new(arrc)
        .args(["build", "-O3"])
        .arg(&path)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let ir = Command::new(arrc)
        .args(["build", "-O3", "--emit", "llvm"])
        .arg(&path)
        .output()
        .unwrap();
    let ir = String::from_utf8_lossy(&ir.stdout);
    let lanes = if F::ELEM == ScalarType::F32 {
        " x float>"
    } else {
        " x double>"
    };
    assert!(ir.contains(lanes), "no vector of {lanes} in the IR");
    for f in forbidden {
        assert!(!ir.contains(f), "the IR has {f}");
    }
    let args: Vec<Value> = args
        .iter()
        .map(|a| {
            Value::Array(ArrayValue {
                elem: F::ELEM,
                shape: vec![a.len()],
                data: F::data(a.clone()),
            })
        })
        .collect();
    let values = crate::support::run_values(&mut Command::new(&exe), &args);
    assert_eq!(values.len(), results);
    values
        .iter()
        .map(|v| F::column(v).unwrap_or_else(|| panic!("unexpected result {v:?}")))
        .collect()
}

/// The largest distance from libm seen so far for one function, and
/// where.
pub struct Worst {
    pub name: &'static str,
    pub ulps: u64,
    pub at: String,
}

impl Worst {
    pub fn new(name: &'static str) -> Self {
        Worst {
            name,
            ulps: 0,
            at: String::new(),
        }
    }

    /// Compares one result: a finite nonzero one in ulps, any other
    /// exactly (except both within `F::tiny` of 0, around the underflow
    /// threshold). `at` names the arguments.
    pub fn see<F: Float>(&mut self, got: F, want: F, at: impl Fn() -> String) {
        let zero = F::zero();
        if !want.is_finite() || want == zero || !got.is_finite() || got == zero {
            let near_underflow = want.abs() <= F::tiny() && got.abs() <= F::tiny();
            assert!(
                same(got, want) || near_underflow,
                "{} at {}: got {got:e}, libm {want:e}",
                self.name,
                at()
            );
            return;
        }
        let d = ulps(got, want);
        if d > self.ulps {
            self.ulps = d;
            self.at = at();
        }
    }

    /// Prints the worst distance and asserts that it is at most `limit`.
    pub fn within(&self, limit: u64) {
        println!("{}: at most {} ulp (at {})", self.name, self.ulps, self.at);
        assert!(
            self.ulps <= limit,
            "{} is {} ulp off at {}",
            self.name,
            self.ulps,
            self.at
        );
    }
}
