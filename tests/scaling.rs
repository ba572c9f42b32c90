//! The front end scales (issue 17): long chains of `let`s and deep chains of
//! definitions, each calling the one before twice, go through with time to
//! spare. The limits are generous (a debug build on a busy machine); the
//! quadratic and exponential behaviour they guard against took minutes.
//! `cargo bench --bench frontend` measures the same programs.

use arrc::syntax::{parse_program, SourceMap};
use std::time::{Duration, Instant};

fn front_end(src: String, lower: bool) -> Duration {
    // On a big stack, as `arrc` runs its passes.
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            let start = Instant::now();
            let mut sources = SourceMap::default();
            let file = sources.add("scaling.arr".into(), src);
            let program = parse_program(&sources, file).expect("parses");
            let checked = arrc::types::check(&sources, &[program]).expect("checks");
            if lower {
                let core = arrc::core::lower(&checked, &sources);
                assert_eq!(core.entries.len(), 1);
            }
            start.elapsed()
        })
        .expect("spawns")
        .join()
        .expect("front end thread")
}

#[test]
fn a_hundred_thousand_lets_check_and_lower() {
    let n = 100_000;
    let mut src = String::from("entry main (x: i32) : i32 =\n  let x0 = x\n");
    for i in 1..n {
        // Every `let` reads the first one too: lookups deep in the scope.
        src += &format!("  let x{i} = x{} + x0\n", i - 1);
    }
    src += &format!("  in x{}\n", n - 1);
    let took = front_end(src, true);
    assert!(took < Duration::from_secs(120), "took {took:?}");
}

#[test]
fn a_deep_chain_of_definitions_checks() {
    let mut src = String::from("def f0 x = x + 1\n");
    for i in 1..40 {
        src += &format!("def f{i} x = f{p} x + f{p} (x + 1)\n", p = i - 1);
    }
    src += "entry main (x: i32) (y: f64) = (f39 x, f39 y)\n";
    let took = front_end(src, false);
    assert!(took < Duration::from_secs(20), "took {took:?}");
}
