//! Compiled `f64` `exp`, `log`, `erf`, `sin`, `cos` and `pow` (the
//! vectorisable versions in `codegen/emit/vmath/`) against the system
//! libm (Rust's `f64` methods call it; `erf` is called directly), in ulps,
//! plus special values, which must match exactly.

mod support;
mod vmath_support;
use vmath_support::{run, Worst};

extern "C" {
    fn erf(x: f64) -> f64;
}

fn libm_erf(x: f64) -> f64 {
    // SAFETY: erf is a pure function of its argument.
    unsafe { erf(x) }
}

/// Deterministic values spread evenly over `[0, 1)`: the fractional
/// parts of the multiples of an irrational `step` (a Weyl sequence).
struct Weyl {
    k: u64,
    step: f64,
}

impl Weyl {
    fn new(step: f64) -> Self {
        Weyl { k: 0, step }
    }

    fn next(&mut self) -> f64 {
        self.k += 1;
        (self.k as f64 * self.step).fract()
    }
}

const SPECIALS: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    f64::MAX,
    5e-324,
    -3.5,
    268_435_455.9,
    268_435_456.0,
    1e300,
];

/// Evenly spaced bit patterns from the smallest subnormal to infinity,
/// and their negatives.
fn spread(count: u64) -> Vec<f64> {
    let top = f64::INFINITY.to_bits();
    let xs: Vec<f64> = (1..top)
        .step_by((top / count) as usize)
        .map(f64::from_bits)
        .collect();
    xs.iter().copied().chain(xs.iter().map(|x| -x)).collect()
}

#[test]
fn f64_exp_log_and_erf_are_within_two_ulps_of_libm() {
    let mut xs = spread(100_000);
    // Dense sweeps of exp's finite range and of erf's interesting one.
    xs.extend((0..100_000).map(|k| -745.2 + 1455.0 * f64::from(k) / 100_000.0));
    xs.extend((0..100_000).map(|k| -7.0 + 14.0 * f64::from(k) / 100_000.0));
    xs.extend(SPECIALS);
    xs.extend([
        709.782_712_893_384,
        709.782_712_893_385,
        -745.133_219_101_941_1,
        -708.396_418_532_264_1,
        std::f64::consts::LN_2,
        1.0 - f64::EPSILON,
        1.0 + f64::EPSILON,
        6.0,
        5.999_999_999_999_999,
        3.5,
    ]);
    let src = "entry main (xs: []f64) : ([]f64, []f64, []f64) =\n  \
               (map f64.exp xs, map f64.log xs, map f64.erf xs)\n";
    let out = run(src, &["@exp(", "@log(", "@erf("], &[xs.clone()], 3);
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

#[test]
fn f64_sin_and_cos_are_within_two_ulps_of_libm() {
    // The fast path's range densely, near multiples of pi/2, and every
    // magnitude (beyond 2^28 libm's own results).
    let mut xs: Vec<f64> = (0..100_000)
        .map(|k| -10.0 + 20.0 * f64::from(k) / 100_000.0)
        .collect();
    let mut rng = Weyl::new(0.618_033_988_749_894_9);
    xs.extend((0..100_000).map(|_| (rng.next() - 0.5) * 5.4e8));
    xs.extend((1..2000).map(|k| f64::from(k) * std::f64::consts::FRAC_PI_2));
    xs.extend([
        6_381_956_970_095_103.0 * 2f64.powi(-29),
        1.570_796_326_794_896_6e6,
    ]);
    xs.extend(spread(50_000));
    xs.extend(SPECIALS);
    let src = "entry main (xs: []f64) : ([]f64, []f64) = (map f64.sin xs, map f64.cos xs)\n";
    // libm's only behind the masked wrapper, never widened to every lane.
    let out = run(src, &["@llvm.sin", "@llvm.cos"], &[xs.clone()], 2);
    let mut worst = [Worst::new("sin"), Worst::new("cos")];
    for (k, &x) in xs.iter().enumerate() {
        let want = [x.sin(), x.cos()];
        for f in 0..2 {
            worst[f].see(out[f][k], want[f], || format!("x = {x:e}"));
        }
    }
    for w in &worst {
        w.within(2);
    }
}

#[test]
fn f64_pow_is_within_two_ulps_of_libm() {
    let mut bases = Weyl::new(0.618_033_988_749_894_9);
    let mut exponents = Weyl::new(0.414_213_562_373_095_1);
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    // Bases over many magnitudes, exponents that keep y log x moderate;
    // integer exponents of negative bases; exact powers.
    for k in 0..200_000 {
        let x = 2f64.powf((bases.next() - 0.5) * 60.0);
        let y = (exponents.next() - 0.5) * 40.0;
        if k % 4 == 0 {
            xs.push(-x);
            ys.push(y.round());
        } else {
            xs.push(x);
            ys.push(y);
        }
    }
    for base in [2.0, 3.0, 10.0, 0.5, -2.0] {
        for e in -40..=40 {
            xs.push(base);
            ys.push(f64::from(e));
        }
    }
    for &x in &SPECIALS {
        for &y in &SPECIALS {
            xs.push(x);
            ys.push(y);
        }
    }
    let src = "entry main (xs: []f64) (ys: []f64) : []f64 = map2 (\\x y -> x ** y) xs ys\n";
    let out = run(src, &["@pow(", "@llvm.pow"], &[xs.clone(), ys.clone()], 1);
    let mut worst = Worst::new("pow");
    for (k, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
        worst.see(out[0][k], x.powf(y), || format!("x = {x:e}, y = {y:e}"));
        if x.abs() == 2.0 || x == 10.0 {
            // Exact powers stay exact.
            let want = x.powf(y);
            if want.abs() < 9e15 && want.fract() == 0.0 {
                assert_eq!(out[0][k], want, "{x} ** {y}");
            }
        }
    }
    worst.within(2);
}
