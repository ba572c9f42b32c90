//! Compiled `f32.exp`, `f32.log` and `f32.erf` (the vectorisable versions
//! in `codegen/emit/vmath.rs`) against the system libm (Rust's `f32::exp`
//! and `f32::ln` call it; `erff` is called directly), in ulps, over every 193rd `f32` of the ranges where
//! the results are finite and nonzero, plus special values, which must
//! match exactly.

use arrc::runtime::value::{self, ArrayData, ArrayValue, Value};
use arrc::types::ScalarType;
use std::io::Write;
use std::process::{Command, Stdio};

/// The distance in representable `f32`s between two finite floats.
fn ulps(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let bits = x.to_bits() as i32;
        if bits < 0 {
            i64::from(i32::MIN) - i64::from(bits)
        } else {
            i64::from(bits)
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

fn same(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

extern "C" {
    fn erff(x: f32) -> f32;
}

fn libm_erf(x: f32) -> f32 {
    // SAFETY: erff is a pure function of its argument.
    unsafe { erff(x) }
}

/// Runs `f32.exp`, `f32.log` and `f32.erf` compiled (with `-O3`,
/// vectorised) on `xs`.
fn compiled(xs: &[f32]) -> [Vec<f32>; 3] {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("vmath.arr");
    std::fs::write(
        &src,
        "entry main (xs: []f32) : ([]f32, []f32, []f32) =\n  \
         (map f32.exp xs, map f32.log xs, map f32.erf xs)\n",
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
    let mut input = Vec::new();
    let arg = Value::Array(ArrayValue {
        elem: ScalarType::F32,
        shape: vec![xs.len()],
        data: ArrayData::F32(xs.to_vec()),
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
    let ty = arrc::core::ir::Type::Array(ScalarType::F32, 1);
    let values = value::read_values(&out.stdout, &[ty, ty, ty]).unwrap();
    let column = |v: &Value| match v {
        Value::Array(ArrayValue {
            data: ArrayData::F32(d),
            ..
        }) => d.clone(),
        other => panic!("unexpected result {other:?}"),
    };
    [column(&values[0]), column(&values[1]), column(&values[2])]
}

#[test]
fn exp_log_and_erf_are_within_two_ulps_of_libm() {
    // Every 97th float from the smallest positive subnormal to infinity,
    // and their negatives.
    let mut xs: Vec<f32> = (1..0x7f80_0000u32)
        .step_by(193)
        .map(f32::from_bits)
        .collect();
    let negatives: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(negatives);
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::MAX,
        88.72283,
        88.72284,
        -103.97207,
        -87.33655,
        std::f32::consts::LN_2,
        2.0,
        1.999_999_9,
        4.5,
        4.499_999_5,
        3.9,
        -3.9,
    ];
    xs.extend(specials);
    let [exps, logs, erfs] = compiled(&xs);
    let mut worst_exp = (0u64, 0.0f32);
    let mut worst_log = (0u64, 0.0f32);
    let mut worst_erf = (0u64, 0.0f32);
    for (k, &x) in xs.iter().enumerate() {
        for (got, want, worst) in [
            (exps[k], x.exp(), &mut worst_exp),
            (logs[k], x.ln(), &mut worst_log),
            (erfs[k], libm_erf(x), &mut worst_erf),
        ] {
            if !want.is_finite() || want == 0.0 || !got.is_finite() || got == 0.0 {
                // Overflow, underflow and special values: exactly libm's.
                // (Results within 2 ulp of the underflow threshold may round
                // to 0 on one side and the smallest subnormal on the other.)
                let near_underflow =
                    want.abs() <= 3.0 * f32::from_bits(1) && got.abs() <= 3.0 * f32::from_bits(1);
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
    println!("erf: at most {} ulp (x = {:e})", worst_erf.0, worst_erf.1);
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
    assert!(
        worst_erf.0 <= 2,
        "erf is {} ulp off at {:e}",
        worst_erf.0,
        worst_erf.1
    );
}
