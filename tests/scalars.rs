//! Futhark's scalar-module members beyond the contract's list (`fma`,
//! `mul_hi`, `gamma`, `nextafter`, `ldexp`, ...), on the interpreter and
//! compiled, against the C library (and exact integer arithmetic) bit for
//! bit, over ordinary and special values.

mod support;
use support::run_values;

use arrc::runtime::value::{ArrayData, ArrayValue, Value};
use arrc::types::ScalarType;
use std::path::Path;
use std::process::Command;

extern "C" {
    fn tgamma(x: f64) -> f64;
    fn tgammaf(x: f32) -> f32;
    fn lgamma(x: f64) -> f64;
    fn lgammaf(x: f32) -> f32;
    fn erfc(x: f64) -> f64;
    fn erfcf(x: f32) -> f32;
    fn nextafter(x: f64, y: f64) -> f64;
    fn nextafterf(x: f32, y: f32) -> f32;
    fn ldexp(x: f64, n: i32) -> f64;
    fn ldexpf(x: f32, n: i32) -> f32;
}

const PROGRAM: &str = "\
entry f64s (xs: []f64) (ys: []f64) (ns: []i32) =
  (map f64.gamma xs, map f64.lgamma xs, map f64.erfc xs,
   map2 f64.nextafter xs ys, map2 f64.copysign xs ys, map2 f64.ldexp xs ns,
   map3 f64.fma xs ys xs, map f64.rsqrt xs, map f64.sinpi xs, map f64.cospi xs,
   map f64.atanpi xs, map2 f64.atan2pi xs ys, map f64.recip xs)
entry f32s (xs: []f32) (ys: []f32) (ns: []i32) =
  (map f32.gamma xs, map f32.lgamma xs, map f32.erfc xs,
   map2 f32.nextafter xs ys, map2 f32.copysign xs ys, map2 f32.ldexp xs ns,
   map3 f32.fma xs ys xs, map f32.rsqrt xs, map f32.sinpi xs, map f32.cospi xs,
   map f32.atanpi xs, map2 f32.atan2pi xs ys, map f32.recip xs)
entry ints (a: []i64) (b: []i64) (c: []i32) (d: []i32) =
  (map2 i64.mul_hi a b, map3 i64.mad_hi a b a,
   map2 u64.mul_hi (map u64.i64 a) (map u64.i64 b),
   map2 i32.mul_hi c d, map2 u32.mul_hi (map u32.i32 c) (map u32.i32 d),
   map2 i8.mul_hi (map i8.i32 c) (map i8.i32 d), map2 u16.mul_hi (map u16.i32 c) (map u16.i32 d),
   map i32.not c, map u8.not (map u8.i32 c))
";

fn array<T>(elem: ScalarType, data: Vec<T>, wrap: fn(Vec<T>) -> ArrayData) -> Value {
    let n = data.len();
    Value::Array(ArrayValue {
        elem,
        shape: vec![n],
        data: wrap(data),
    })
}

/// The results of `entry` on the interpreter and compiled (`-O3`).
fn both(dir: &Path, entry: &str, args: &[Value]) -> [Vec<Value>; 2] {
    let src = dir.join("scalars.arr");
    let exe = dir.join("scalars");
    if !exe.exists() {
        std::fs::write(&src, PROGRAM).unwrap();
        let status = Command::new(env!("CARGO_BIN_EXE_arrc"))
            .args(["build", "-O3"])
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .status()
            .unwrap();
        assert!(status.success());
    }
    let mut interp = Command::new(env!("CARGO_BIN_EXE_arrc"));
    interp.args(["run", "-e", entry]).arg(&src);
    let mut compiled = Command::new(&exe);
    compiled.args(["-e", entry]);
    [
        run_values(&mut interp, args),
        run_values(&mut compiled, args),
    ]
}

fn f64s(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(ArrayValue {
            data: ArrayData::F64(d),
            ..
        }) => d.clone(),
        other => panic!("{other:?}"),
    }
}

fn f32s(v: &Value) -> Vec<f32> {
    match v {
        Value::Array(ArrayValue {
            data: ArrayData::F32(d),
            ..
        }) => d.clone(),
        other => panic!("{other:?}"),
    }
}

fn ints(v: &Value) -> Vec<i128> {
    let Value::Array(a) = v else { panic!("{v:?}") };
    (0..a.len())
        .map(|i| a.get(i).unwrap().as_i128().unwrap())
        .collect()
}

const NAMES: [&str; 13] = [
    "gamma",
    "lgamma",
    "erfc",
    "nextafter",
    "copysign",
    "ldexp",
    "fma",
    "rsqrt",
    "sinpi",
    "cospi",
    "atanpi",
    "atan2pi",
    "recip",
];

#[test]
fn float_members_match_libm_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let mut xs: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.5,
        -2.5,
        10.0,
        171.5,
        -0.75,
        1e-310,
        -4e-320,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0 + f64::EPSILON,
        3.0,
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let scale = [1e-3, 1.0, 30.0, 1e30][(seed >> 60) as usize % 4];
        xs.push(((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * scale);
    }
    let ys: Vec<f64> = xs.iter().rev().copied().collect();
    let ns: Vec<i32> = (0..xs.len())
        .map(|i| {
            [
                0, 3, -3, 1000, -1000, 1100, -1100, 2100, -2100, -1074, -150, 128,
            ][i % 12]
        })
        .collect();
    let xs32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let ys32: Vec<f32> = ys.iter().map(|&y| y as f32).collect();
    // SAFETY (every unsafe block below): pure C library functions on floats.
    let want64: Vec<Vec<f64>> = vec![
        xs.iter().map(|&x| unsafe { tgamma(x) }).collect(),
        xs.iter().map(|&x| unsafe { lgamma(x) }).collect(),
        xs.iter().map(|&x| unsafe { erfc(x) }).collect(),
        xs.iter()
            .zip(&ys)
            .map(|(&x, &y)| unsafe { nextafter(x, y) })
            .collect(),
        xs.iter().zip(&ys).map(|(&x, &y)| x.copysign(y)).collect(),
        xs.iter()
            .zip(&ns)
            .map(|(&x, &n)| unsafe { ldexp(x, n) })
            .collect(),
        xs.iter().zip(&ys).map(|(&x, &y)| x.mul_add(y, x)).collect(),
        xs.iter().map(|&x| 1.0 / x.sqrt()).collect(),
        xs.iter()
            .map(|&x| (std::f64::consts::PI * x).sin())
            .collect(),
        xs.iter()
            .map(|&x| (std::f64::consts::PI * x).cos())
            .collect(),
        xs.iter()
            .map(|&x| x.atan() / std::f64::consts::PI)
            .collect(),
        xs.iter()
            .zip(&ys)
            .map(|(&x, &y)| x.atan2(y) / std::f64::consts::PI)
            .collect(),
        xs.iter().map(|&x| 1.0 / x).collect(),
    ];
    let pi32 = std::f32::consts::PI;
    let want32: Vec<Vec<f32>> = vec![
        xs32.iter().map(|&x| unsafe { tgammaf(x) }).collect(),
        xs32.iter().map(|&x| unsafe { lgammaf(x) }).collect(),
        xs32.iter().map(|&x| unsafe { erfcf(x) }).collect(),
        xs32.iter()
            .zip(&ys32)
            .map(|(&x, &y)| unsafe { nextafterf(x, y) })
            .collect(),
        xs32.iter()
            .zip(&ys32)
            .map(|(&x, &y)| x.copysign(y))
            .collect(),
        xs32.iter()
            .zip(&ns)
            .map(|(&x, &n)| unsafe { ldexpf(x, n) })
            .collect(),
        xs32.iter()
            .zip(&ys32)
            .map(|(&x, &y)| x.mul_add(y, x))
            .collect(),
        xs32.iter().map(|&x| 1.0 / x.sqrt()).collect(),
        xs32.iter().map(|&x| (pi32 * x).sin()).collect(),
        xs32.iter().map(|&x| (pi32 * x).cos()).collect(),
        xs32.iter().map(|&x| x.atan() / pi32).collect(),
        xs32.iter()
            .zip(&ys32)
            .map(|(&x, &y)| x.atan2(y) / pi32)
            .collect(),
        xs32.iter().map(|&x| 1.0 / x).collect(),
    ];
    let args64 = [
        array(ScalarType::F64, xs.clone(), ArrayData::F64),
        array(ScalarType::F64, ys.clone(), ArrayData::F64),
        array(ScalarType::I32, ns.clone(), ArrayData::I32),
    ];
    let inputs = (&xs[..], &ys[..], &ns[..]);
    check_floats(dir.path(), "f64", &args64, &want64, f64s, inputs);
    let args32 = [
        array(ScalarType::F32, xs32.clone(), ArrayData::F32),
        array(ScalarType::F32, ys32.clone(), ArrayData::F32),
        array(ScalarType::I32, ns.clone(), ArrayData::I32),
    ];
    // Widened to f64, which keeps every f32 and its bits' identity.
    let wide = |v: &Vec<f32>| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
    let want32: Vec<Vec<f64>> = want32.iter().map(wide).collect();
    let (xs32, ys32) = (wide(&xs32), wide(&ys32));
    let column32 = |v: &Value| wide(&f32s(v));
    let inputs = (&xs32[..], &ys32[..], &ns[..]);
    check_floats(dir.path(), "f32", &args32, &want32, column32, inputs);
}

/// Every result of entry `{width}s` on both backends, bit for bit.
fn check_floats(
    dir: &Path,
    width: &str,
    args: &[Value],
    want: &[Vec<f64>],
    column: impl Fn(&Value) -> Vec<f64>,
    (xs, ys, ns): (&[f64], &[f64], &[i32]),
) {
    let same = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
    // Compiled `f64` `sin` and `cos` are arrc's own, within 1 ulp of
    // libm (`tests/vmath64.rs`), so `sinpi` and `cospi` built on them are
    // allowed 1 ulp there; every other member is libm's bit for bit.
    let near =
        |a: f64, b: f64| same(a, b) || (a.is_finite() && a.to_bits().abs_diff(b.to_bits()) <= 1);
    let results = both(dir, &format!("{width}s"), args);
    for (backend, results) in ["interpreter", "compiled"].iter().zip(results) {
        for (k, name) in NAMES.iter().enumerate() {
            let own = *backend == "compiled"
                && width == "f64"
                && name.ends_with("pi")
                && (name.starts_with("sin") || name.starts_with("cos"));
            for (i, (g, w)) in column(&results[k]).into_iter().zip(&want[k]).enumerate() {
                assert!(
                    if own { near(g, *w) } else { same(g, *w) },
                    "{backend} {width}.{name} at x = {:e}, y = {:e}, n = {}: {g:e}, libm {w:e}",
                    xs[i],
                    ys[i],
                    ns[i]
                );
            }
        }
    }
}

#[test]
fn fma_rounds_once() {
    // x*x is 1 + 2^-22 + 2^-46: the unfused product loses the last term.
    let dir = tempfile::tempdir().unwrap();
    let x = 1.0f32 + f32::EPSILON;
    let args = [
        array(ScalarType::F32, vec![x], ArrayData::F32),
        array(ScalarType::F32, vec![x * x], ArrayData::F32),
    ];
    let src = dir.path().join("fma.arr");
    std::fs::write(
        &src,
        "entry main (x: []f32) (p: []f32) : []f32 = map2 (\\a q -> f32.fma a a (-q)) x p\n",
    )
    .unwrap();
    let exe = dir.path().join("fma");
    let status = Command::new(env!("CARGO_BIN_EXE_arrc"))
        .arg("build")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let mut interp = Command::new(env!("CARGO_BIN_EXE_arrc"));
    interp.arg("run").arg(&src);
    for results in [
        run_values(&mut interp, &args),
        run_values(&mut Command::new(&exe), &args),
    ] {
        assert_eq!(f32s(&results[0]), vec![2f32.powi(-46)]);
    }
}

#[test]
fn integer_members_match_exact_arithmetic() {
    let dir = tempfile::tempdir().unwrap();
    let a: Vec<i64> = vec![
        0,
        1,
        -1,
        i64::MAX,
        i64::MIN,
        123_456_789_012,
        -987_654_321_098,
        3,
    ];
    let b: Vec<i64> = vec![
        5,
        i64::MAX,
        i64::MIN,
        i64::MAX,
        -1,
        -77_777_777_777,
        55_555,
        -3,
    ];
    let c: Vec<i32> = vec![0, 1, -1, i32::MAX, i32::MIN, 300, -129, 65_535];
    let d: Vec<i32> = vec![7, i32::MAX, -1, i32::MAX, i32::MIN, 200, 127, 65_535];
    let hi = |x: i128, y: i128, bits: u32| (x * y) >> bits;
    let want: Vec<Vec<i128>> = vec![
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| hi(x as i128, y as i128, 64))
            .collect(),
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| (hi(x as i128, y as i128, 64) as i64).wrapping_add(x) as i128)
            .collect(),
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| ((x as u64 as u128 * y as u64 as u128) >> 64) as i128)
            .collect(),
        c.iter()
            .zip(&d)
            .map(|(&x, &y)| hi(x as i128, y as i128, 32))
            .collect(),
        c.iter()
            .zip(&d)
            .map(|(&x, &y)| hi(x as u32 as i128, y as u32 as i128, 32))
            .collect(),
        c.iter()
            .zip(&d)
            .map(|(&x, &y)| hi(x as i8 as i128, y as i8 as i128, 8))
            .collect(),
        c.iter()
            .zip(&d)
            .map(|(&x, &y)| hi(x as u16 as i128, y as u16 as i128, 16))
            .collect(),
        c.iter().map(|&x| !x as i128).collect(),
        c.iter().map(|&x| !(x as u8) as i128).collect(),
    ];
    let args = [
        array(ScalarType::I64, a, ArrayData::I64),
        array(ScalarType::I64, b, ArrayData::I64),
        array(ScalarType::I32, c, ArrayData::I32),
        array(ScalarType::I32, d, ArrayData::I32),
    ];
    for results in both(dir.path(), "ints", &args) {
        for (k, w) in want.iter().enumerate() {
            assert_eq!(&ints(&results[k]), w, "result {k}");
        }
    }
}
