//! Compiled `f32.exp`, `f32.log` and `f32.erf` (the vectorisable versions
//! in `codegen/emit/vmath/f32.rs`) against the system libm (Rust's
//! `f32::exp` and `f32::ln` call it; `erff` is called directly), in ulps,
//! over every 193rd `f32` of the ranges where the results are finite and
//! nonzero, plus special values, which must match exactly.

mod support;
mod vmath_support;
use vmath_support::{run, Worst};

extern "C" {
    fn erff(x: f32) -> f32;
}

fn libm_erf(x: f32) -> f32 {
    // SAFETY: erff is a pure function of its argument.
    unsafe { erff(x) }
}

#[test]
fn exp_log_and_erf_are_within_two_ulps_of_libm() {
    // Every 193rd float from the smallest positive subnormal to infinity,
    // and their negatives.
    let mut xs: Vec<f32> = (1..0x7f80_0000u32)
        .step_by(193)
        .map(f32::from_bits)
        .collect();
    let negatives: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(negatives);
    xs.extend([
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
    ]);
    let src = "entry main (xs: []f32) : ([]f32, []f32, []f32) =\n  \
               (map f32.exp xs, map f32.log xs, map f32.erf xs)\n";
    let out = run(src, &["@expf(", "@logf(", "@erff("], &[xs.clone()], 3);
    let mut worst = [Worst::new("exp"), Worst::new("log"), Worst::new("erf")];
    for (k, &x) in xs.iter().enumerate() {
        let want = [x.exp(), x.ln(), libm_erf(x)];
        for f in 0..3 {
            worst[f].see(out[f][k], want[f], || format!("x = {x:e}"));
        }
    }
    for w in &worst {
        w.within(2);
    }
}
