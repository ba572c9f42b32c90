//! Front-end speed on generated programs (`cargo bench --bench frontend`):
//! chains of `let`s (parse, type check and core lowering) and chains of
//! definitions each calling the one before twice (type check). Issue 17's
//! bounds: 100,000 `let`s build in under 10 s, a 30-deep chain of
//! definitions type-checks in under 1 s. Prints min/median/max of 5 runs.

use arrc::syntax::{parse_program, SourceMap};
use std::time::{Duration, Instant};

fn lets(n: usize) -> String {
    let mut s = String::from("entry main (x: i32) : i32 =\n  let x0 = x\n");
    for i in 1..n {
        s += &format!("  let x{i} = x{} + x0\n", i - 1);
    }
    s + &format!("  in x{}\n", n - 1)
}

fn chain(depth: usize) -> String {
    let mut s = String::from("def f0 x = x + 1\n");
    for i in 1..depth {
        s += &format!("def f{i} x = f{p} x + f{p} (x + 1)\n", p = i - 1);
    }
    s + &format!(
        "entry main (x: i32) (y: f32) = (f{0} x, f{0} y)\n",
        depth - 1
    )
}

/// Times `f` five times: (min, median, max).
fn time(mut f: impl FnMut()) -> (Duration, Duration, Duration) {
    let mut runs: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    runs.sort();
    (runs[0], runs[2], runs[4])
}

fn frontend(src: &str, lower: bool) {
    let mut sources = SourceMap::default();
    let file = sources.add("bench.arr".into(), src.to_string());
    let program = parse_program(&sources, file).expect("generated program parses");
    let checked = arrc::types::check(&sources, &[program]).expect("generated program checks");
    if lower {
        std::hint::black_box(arrc::core::lower(&checked, &sources));
    }
}

fn main() {
    println!(
        "{:<28} {:>10} {:>10} {:>10}",
        "program", "min", "median", "max"
    );
    let ms = |d: Duration| format!("{:.1}ms", d.as_secs_f64() * 1e3);
    let cases: Vec<(String, String, bool)> = vec![
        ("10,000 lets (check+lower)".into(), lets(10_000), true),
        ("100,000 lets (check+lower)".into(), lets(100_000), true),
        ("15-deep def chain (check)".into(), chain(15), false),
        ("30-deep def chain (check)".into(), chain(30), false),
    ];
    // The whole work runs on a thread with a big stack, as in `arrc`.
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            for (name, src, lower) in cases {
                let (lo, mid, hi) = time(|| frontend(&src, lower));
                println!("{name:<28} {:>10} {:>10} {:>10}", ms(lo), ms(mid), ms(hi));
            }
        })
        .expect("spawns")
        .join()
        .expect("benchmark thread");
}
