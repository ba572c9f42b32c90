//! Simplifier speed on generated core IR programs of 100, 1,000 and 10,000
//! statements (`cargo bench --bench simplify`). The bound: below one
//! second at 10,000.

use arrc::driver::pipeline;
use arrc::simplify::{synth, walk::node_total, SimplifyOptions};
use std::time::{Duration, Instant};

fn main() {
    let options = SimplifyOptions::default();
    println!(
        "{:>8} {:>8} {:>12} {:>12}",
        "nodes", "after", "best", "mean"
    );
    for size in [100, 1_000, 10_000] {
        let programs: Vec<_> = (0..5).map(|seed| synth::program(size, seed)).collect();
        let before: usize = programs.iter().map(node_total).sum::<usize>() / programs.len();
        let mut times = Vec::new();
        let mut after = 0;
        for p in &programs {
            let start = Instant::now();
            let out = pipeline::simplify(p.clone(), &options).expect("simplified");
            times.push(start.elapsed());
            after += node_total(&out);
        }
        let best = times.iter().min().copied().unwrap_or_default();
        let mean = times.iter().sum::<Duration>() / times.len() as u32;
        println!(
            "{before:>8} {:>8} {:>10.3}ms {:>10.3}ms",
            after / programs.len(),
            best.as_secs_f64() * 1e3,
            mean.as_secs_f64() * 1e3
        );
    }
}
