//! `arrc random` (hidden): the random differential tester of
//! `crate::testgen` on the command line.

use crate::testgen::run::{Build, RunConf, Settings};
use crate::testgen::{campaign, Campaign};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct RandomArgs {
    /// Seed of the first program; program k uses seed + k.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of programs (100 unless --seconds is given).
    #[arg(long)]
    count: Option<u64>,
    /// Test programs until this many seconds have passed.
    #[arg(long)]
    seconds: Option<u64>,
    /// Programs tested at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Seconds spent shrinking each failing program (0: no shrinking).
    #[arg(long = "shrink-seconds", default_value_t = 120)]
    shrink_seconds: u64,
    /// Write each failing program, its input and the commands to a folder here.
    #[arg(long)]
    save: Option<PathBuf>,
    /// Targets to build for (comma-separated); `python` is the library
    /// path: a Python module (`--python`, needs numpy and futhark-data)
    /// called from a script.
    #[arg(long, value_delimiter = ',', default_value = "x86_64,nvptx-emu")]
    target: Vec<String>,
    /// Optimisation levels (comma-separated).
    #[arg(long = "opt", value_delimiter = ',', default_value = "0,3")]
    opt: Vec<u8>,
    /// Fusion strategies (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "ilp,greedy,none")]
    fusion: Vec<String>,
    /// Thread counts to run every CPU binary with (comma-separated); each
    /// also runs with `ARRC_GRAIN=1` (tiny grains).
    #[arg(long, value_delimiter = ',', default_value = "1,2,7")]
    threads: Vec<u32>,
    /// Emulator threads for `--target nvptx-emu` binaries (comma-separated);
    /// each also runs with `ARRC_GPU_SHRINK=1` (tiny launches, many blocks).
    #[arg(long = "emu-threads", value_delimiter = ',', default_value = "1,3")]
    emu_threads: Vec<u32>,
    /// Threads of the library's context for `--target python` (each with
    /// `ARRC_GRAIN=1` only: a run starts Python).
    #[arg(long = "lib-threads", value_delimiter = ',', default_value = "2")]
    lib_threads: Vec<u32>,
    /// Seconds any one run may take.
    #[arg(long, default_value_t = 20)]
    timeout: u64,
    /// Print the programs that were skipped, and why.
    #[arg(long)]
    verbose: bool,
    /// Seeds known to fail (comma-separated): counted as skipped.
    #[arg(long, value_delimiter = ',')]
    known: Vec<u64>,
    /// Print the program and inputs of the first seed and stop.
    #[arg(long)]
    print: bool,
    /// Long programs: 12 to 30 statements instead of 2 to 7.
    #[arg(long)]
    long: bool,
    /// No arrays of the unit type `()` (they are on by default).
    #[arg(long = "no-unit-arrays")]
    no_unit_arrays: bool,
    /// Many matrix products, long float sums and reductions of many rows
    /// (the outer-product, block-folding and column-tree kernels).
    #[arg(long)]
    kernels: bool,
    /// Many `while` loops per point, guarded writes, gathers by `iota`,
    /// elements of maps and zipped rows under transposes (the while jam,
    /// masked stores and the simplifier's newest rewrites).
    #[arg(long)]
    rewrites: bool,
    /// Many flat indices split by `k / m` and `k % m`, products of mapped
    /// operands, reductions whose operator can fail and maps over
    /// flattened map nests (`simplify-flat-index`, `fusion::rows`, the
    /// GPU's block tree, `fusion::reshape`).
    #[arg(long)]
    nests: bool,
    /// Many compactions by scan and scatter, scatters over `++`, pair
    /// reductions with tie rules and stencils with `||` borders
    /// (`simplify-compaction`, `simplify-scatter-split`, strided pair
    /// lanes, the chunked stencil's proof through `or`).
    #[arg(long)]
    idioms: bool,
    /// Many scans and histograms of rows over many rows of few columns,
    /// argmax per wide row, rotations by negative and oversized amounts,
    /// vector-matrix products and long chains of maps (the GPU's chunked
    /// scans and histograms, strided pair lanes, the rotated read, column
    /// jams, fusion's chain contraction).
    #[arg(long)]
    chunks: bool,
    /// Many loops reading `xs[i + s]` wrapped around or guarded, scatters
    /// over concatenations of parts of one size, histograms of rows with
    /// atomic operators over many bins, and `==` on arrays (the cut loops,
    /// scatter chains, the GPU's atomic histograms of rows).
    #[arg(long)]
    cuts: bool,
    /// Many `for` loops that only read their array, `(i + c) % n` reads,
    /// flattened map nests, reductions down columns and scans of few long
    /// rows (`loopy::borrow`, `loopy::wrap`, `fusion::flat_index` and
    /// `loopy::unflat`, `loopy::jam::stream` under a small
    /// `ARRC_STREAM_FROM`, the GPU's split row scans).
    #[arg(long)]
    wraps: bool,
    /// x86-64 processors to build for (comma-separated, as `arrc build
    /// --cpu`: `native`, `x86-64-v3`, ...).
    #[arg(long, value_delimiter = ',', default_value = "native")]
    cpu: Vec<String>,
}

pub fn random(args: &RandomArgs) -> i32 {
    let shape = crate::testgen::stms::Shape {
        long: args.long,
        unit_arrays: !args.no_unit_arrays,
        kernels: args.kernels,
        rewrites: args.rewrites,
        nests: args.nests,
        idioms: args.idioms,
        chunks: args.chunks,
        cuts: args.cuts,
        wraps: args.wraps,
    };
    if args.print {
        let p = crate::testgen::stms::generate_with(args.seed, shape);
        let mut text = p.source();
        for input in &p.inputs {
            text.push_str(&format!("-- input: {}\n", input.join(" ")));
        }
        // A reader that stops early (`| head`, `| grep -q`) closes the
        // pipe: that ends the command quietly, as it does `cat`.
        return match crate::testgen::say(&text) {
            Ok(()) => 0,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
            Err(e) => {
                eprintln!("Error: cannot write the program: {e}");
                1
            }
        };
    }
    let Ok(arrc) = std::env::current_exe() else {
        eprintln!("Error: cannot find the arrc executable");
        return 1;
    };
    let mut builds = Vec::new();
    for target in &args.target {
        for &opt in &args.opt {
            for fusion in &args.fusion {
                for cpu in &args.cpu {
                    builds.push(Build {
                        target: target.clone(),
                        opt,
                        fusion: fusion.clone(),
                        cpu: cpu.clone(),
                    });
                }
            }
        }
    }
    // Each thread count with and without tiny grains (shrunk launches).
    let confs = |threads: &[u32]| -> Vec<RunConf> {
        threads
            .iter()
            .flat_map(|&threads| {
                [false, true].map(|tiny_grain| RunConf {
                    threads,
                    tiny_grain,
                    python: false,
                })
            })
            .collect()
    };
    let lib_runs = args
        .lib_threads
        .iter()
        .map(|&threads| RunConf {
            threads,
            tiny_grain: true,
            python: true,
        })
        .collect();
    campaign(&Campaign {
        settings: Settings {
            arrc,
            builds,
            runs: confs(&args.threads),
            emu_runs: confs(&args.emu_threads),
            lib_runs,
            timeout: Duration::from_secs(args.timeout),
        },
        seed: args.seed,
        count: args.count,
        seconds: args.seconds,
        jobs: args.jobs,
        shrink_seconds: args.shrink_seconds,
        save: args.save.clone(),
        verbose: args.verbose,
        shape,
        known: args.known.clone(),
    })
}
