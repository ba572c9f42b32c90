//! Compiled `f64.exp` and `f64.log` (the vectorisable versions in
//! `codegen/emit/vmath64.rs`) against the system libm (Rust's `f64::exp`
//! and `f64::ln` call it), in ulps, over 200,000 values spread evenly in
//! the bit patterns of each function's finite range (and their negatives),
//! plus special values, which must match exactly.

use arrc::runtime::value::{self, ArrayData, ArrayValue, Value};
use arrc::types::ScalarType;
use std::io::Write;
use std::process::{Command, Stdio};

/// The distance in representable `f64`s between two finite floats.
fn ulps(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 {
            i128::from(i64::MIN) - i128::from(bits)
        } else {
            i128::from(bits)
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Runs `f64.exp` and `f64.log` compiled (with `-O3`, vectorised) on `xs`.
fn compiled(xs: &[f64]) -> [Vec<f64>; 2] {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("vmath.arr");
    std::fs::write(
        &src,
        "entry main (xs: []f64) : ([]f64, []f64) = (map f64.exp xs, map f64.log xs)\n",
    )
    .unwrap();
    let exe = dir.path().join("vmath");
    let status = Command::new(env!("CARGO_BIN_EXE_arrc"))
        .args(["build", "-O3"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success());
    let asm = Command::new(env!("CARGO_BIN_EXE_arrc"))
        .args(["build", "-O3", "--emit", "llvm"])
        .arg(&src)
        .output()
        .unwrap();
    let ir = String::from_utf8_lossy(&asm.stdout);
    assert!(
        !ir.contains("@exp(") && !ir.contains("@log("),
        "f64 exp/log still call libm"
    );
    let mut input = Vec::new();
    let arg = Value::Array(ArrayValue {
        elem: ScalarType::F64,
        shape: vec![xs.len()],
        data: ArrayData::F64(xs.to_vec()),
    });
    value::write_binary(&arg, &mut input);
    let mut child = Command::new(&exe)
        .arg("-b")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    let ty = arrc::core::ir::Type::Array(ScalarType::F64, 1);
    let values = value::read_values(&out.stdout, &[ty, ty]).unwrap();
    let column = |v: &Value| match v {
        Value::Array(ArrayValue {
            data: ArrayData::F64(d),
            ..
        }) => d.clone(),
        other => panic!("unexpected result {other:?}"),
    };
    [column(&values[0]), column(&values[1])]
}

#[test]
fn f64_exp_and_log_are_within_two_ulps_of_libm() {
    // Evenly spaced bit patterns from the smallest subnormal to infinity,
    // their negatives, and a dense sweep of exp's finite range.
    let top = f64::INFINITY.to_bits();
    let mut xs: Vec<f64> = (1..top)
        .step_by((top / 100_000) as usize)
        .map(f64::from_bits)
        .collect();
    let negatives: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(negatives);
    xs.extend((0..100_000).map(|k| -745.2 + 1455.0 * f64::from(k) / 100_000.0));
    xs.extend([
        0.0,
        -0.0,
        1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        f64::MAX,
        709.782_712_893_384,
        709.782_712_893_385,
        -745.133_219_101_941_1,
        -708.396_418_532_264_1,
        std::f64::consts::LN_2,
        1.0 - f64::EPSILON,
        1.0 + f64::EPSILON,
    ]);
    let [exps, logs] = compiled(&xs);
    let mut worst_exp = (0u64, 0.0f64);
    let mut worst_log = (0u64, 0.0f64);
    for (k, &x) in xs.iter().enumerate() {
        for (got, want, worst) in [
            (exps[k], x.exp(), &mut worst_exp),
            (logs[k], x.ln(), &mut worst_log),
        ] {
            if !want.is_finite() || want == 0.0 || !got.is_finite() || got == 0.0 {
                // Overflow, underflow and special values: exactly libm's
                // (within 2 ulp of the underflow threshold one side may
                // round to 0, the other to the smallest subnormal).
                let tiny = 3.0 * f64::from_bits(1);
                let near_underflow = want.abs() <= tiny && got.abs() <= tiny;
                assert!(
                    same(got, want) || near_underflow,
                    "x = {x:e}: got {got:e}, libm {want:e}"
                );
                continue;
            }
            let d = ulps(got, want);
            if d > worst.0 {
                *worst = (d, x);
            }
        }
    }
    println!("exp: at most {} ulp (x = {:e})", worst_exp.0, worst_exp.1);
    println!("log: at most {} ulp (x = {:e})", worst_log.0, worst_log.1);
    assert!(
        worst_exp.0 <= 2,
        "exp is {} ulp off at {:e}",
        worst_exp.0,
        worst_exp.1
    );
    assert!(
        worst_log.0 <= 2,
        "log is {} ulp off at {:e}",
        worst_log.0,
        worst_log.1
    );
}
