//! The `arrc` command line: parses arguments with clap and runs the pipeline.
//! Exit codes: 0 success, 1 compile error or failed test, 2 bad usage or bad input.

use super::pipeline::{self, Failure, Options};
use crate::codegen::{self, CodegenOptions, Cpu, Target};
use crate::fusion::ast::Strategy;
use crate::fusion::FusionOptions;
use crate::runtime::value;
use crate::{core, fusion, interp, loopy};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(
    name = "arrc",
    version,
    about = "Optimising compiler for the Arr array language"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile a program to an executable (or print one stage with --emit).
    Build(BuildArgs),
    /// Run an entry point through the reference interpreter (stdin -> stdout).
    Run(RunArgs),
    /// Parse and type-check only.
    Check { program: PathBuf },
    /// Run the test blocks (`-- ==`) of programs on the interpreter and compiled.
    Test {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        compile: CompileArgs,
        /// Run every compiled case with each of these thread counts
        /// (comma-separated; default: the binary's default, all cores).
        #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
        threads: Vec<u32>,
    },
    /// Time the compiled programs on the cases of their test blocks.
    Bench {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        compile: CompileArgs,
        /// Timed runs per case, after one warm-up run.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
        /// Also write the measurements as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Time every case with each of these thread counts (comma-separated).
        #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
        threads: Vec<u32>,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct CompileArgs {
    /// Optimisation level 0 to 3 (`-O2`).
    #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
    #[arg(long, value_enum, default_value_t = TargetArg::X86_64)]
    pub target: TargetArg,
    #[arg(long, value_enum, default_value_t = FusionArg::Ilp)]
    pub fusion: FusionArg,
    /// Seconds the ILP clusterer may spend per body (shared by the windows a
    /// large body is solved in) before keeping the greedy clustering.
    #[arg(long = "fusion-time-limit", default_value_t = 2.0)]
    pub fusion_time_limit: f64,
    /// Allow float rewrites that can change results: reassociation,
    /// `x*0`, fused multiply-adds, reciprocals (NaN and infinity still hold).
    #[arg(long = "fast-math")]
    pub fast_math: bool,
    /// ILP solver for `--fusion ilp` (`cbc` needs arrc built with the `cbc` feature).
    #[arg(long, value_enum, default_value_t = SolverArg::Microlp)]
    pub solver: SolverArg,
    /// x86-64 processor to compile for: `native` (this machine) or a
    /// microarchitecture level.
    #[arg(long, value_enum, default_value_t = CpuArg::Native)]
    pub cpu: CpuArg,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuArg {
    Native,
    #[value(name = "x86-64")]
    X86_64,
    #[value(name = "x86-64-v2")]
    X86_64V2,
    #[value(name = "x86-64-v3")]
    X86_64V3,
    #[value(name = "x86-64-v4")]
    X86_64V4,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverArg {
    Microlp,
    Cbc,
}

/// The options of a compiled program (section 7), for the interpreter.
#[derive(clap::Args, Debug)]
struct RunArgs {
    program: PathBuf,
    /// Entry point to run.
    #[arg(short = 'e', long = "entry", default_value = "main")]
    entry: String,
    /// Print the results in the binary value format.
    #[arg(short = 'b')]
    binary: bool,
    /// Print no results.
    #[arg(short = 'n')]
    no_output: bool,
    /// Write the run time in microseconds (without input and output) to FILE.
    #[arg(short = 't')]
    timing: Option<PathBuf>,
    /// Run N times after a warm-up run (`-t` then writes one line per run).
    #[arg(short = 'r', value_parser = clap::value_parser!(u32).range(1..))]
    runs: Option<u32>,
}

#[derive(clap::Args, Debug)]
struct BuildArgs {
    program: PathBuf,
    /// Output executable (default: the source path without `.arr`).
    #[arg(short = 'o')]
    output: Option<PathBuf>,
    #[command(flatten)]
    compile: CompileArgs,
    /// Print one stage to standard output instead of writing an executable.
    #[arg(long, value_enum)]
    emit: Option<Stage>,
    /// Make the executable count the array elements it reads and writes and
    /// print `traffic: reads=R writes=W` on standard error after its results.
    #[arg(long = "count-traffic")]
    count_traffic: bool,
    /// Print how long each compiler stage took (standard error).
    #[arg(long = "time-passes")]
    time_passes: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetArg {
    #[value(name = "x86_64")]
    X86_64,
    #[value(name = "nvptx")]
    NvPtx,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FusionArg {
    Ilp,
    Greedy,
    None,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Core,
    Fused,
    Loopy,
    Llvm,
    Asm,
    Ptx,
    Fusion,
    #[value(name = "fusion-dot")]
    FusionDot,
}

impl CompileArgs {
    pub fn options(&self) -> Options {
        let strategy = match self.fusion {
            FusionArg::Ilp => Strategy::Ilp,
            FusionArg::Greedy => Strategy::Greedy,
            FusionArg::None => Strategy::None,
        };
        let mut fusion = FusionOptions::new(strategy);
        fusion.solver = match self.solver {
            SolverArg::Microlp => crate::fusion::ilp::Solver::Microlp,
            SolverArg::Cbc => crate::fusion::ilp::Solver::Cbc,
        };
        if self.fusion_time_limit.is_finite() && self.fusion_time_limit > 0.0 {
            fusion.time_limit = std::time::Duration::from_secs_f64(self.fusion_time_limit);
        }
        Options {
            simplify: (self.opt_level > 0).then(|| crate::simplify::SimplifyOptions {
                fast_math: self.fast_math,
                ..Default::default()
            }),
            fusion,
            codegen: CodegenOptions {
                opt_level: self.opt_level,
                target: match self.target {
                    TargetArg::X86_64 => Target::X86_64,
                    TargetArg::NvPtx => Target::NvPtx,
                },
                count_traffic: false,
                cpu: match self.cpu {
                    CpuArg::Native => Cpu::Native,
                    CpuArg::X86_64 => Cpu::Level(1),
                    CpuArg::X86_64V2 => Cpu::Level(2),
                    CpuArg::X86_64V3 => Cpu::Level(3),
                    CpuArg::X86_64V4 => Cpu::Level(4),
                },
                fast_math: self.fast_math,
            },
        }
    }
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Command::Build(args) => build(&args),
        Command::Run(args) => run(&args),
        Command::Check { program } => report(pipeline::typecheck(&program).map(|_| ())),
        Command::Test {
            paths,
            compile,
            threads,
        } => super::test_runner::run_tests(&paths, &compile.options(), &threads),
        Command::Bench {
            paths,
            compile,
            runs,
            json,
            threads,
        } => super::bench::run_benchmarks(
            &paths,
            &compile.options(),
            runs as usize,
            &threads,
            json.as_deref(),
        ),
    }
}

/// Prints a failure and gives the exit code for it.
fn report(result: Result<(), Failure>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(failure) => {
            eprint!("{}", failure.render());
            1
        }
    }
}

fn default_output(program: &Path) -> PathBuf {
    program.with_extension("")
}

/// Why the executable may not be written to `out`, if it may not.
fn unusable_output(program: &Path, out: &Path) -> Option<&'static str> {
    if out.is_dir() {
        return Some("it is a directory");
    }
    let same = match (program.canonicalize(), out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    same.then_some("it is the source file (name the output with -o)")
}

fn build(args: &BuildArgs) -> i32 {
    let mut options = args.compile.options();
    options.codegen.count_traffic = args.count_traffic;
    let Some(stage) = args.emit else {
        let out = args
            .output
            .clone()
            .unwrap_or_else(|| default_output(&args.program));
        if let Some(why) = unusable_output(&args.program, &out) {
            eprintln!(
                "Error: cannot write the executable to `{}`: {why}",
                out.display()
            );
            return 1;
        }
        let built = pipeline::build_timed(&args.program, &options, &out);
        if let (Ok(times), true) = (&built, args.time_passes) {
            let total: std::time::Duration = times.iter().map(|(_, t)| *t).sum();
            for (stage, t) in times {
                eprintln!("{:>9.1} ms  {stage}", t.as_secs_f64() * 1e3);
            }
            eprintln!("{:>9.1} ms  total", total.as_secs_f64() * 1e3);
        }
        return report(built.map(|_| ()));
    };
    match emit(&args.program, stage, &options) {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            0
        }
        Err(failure) => report(Err(failure)),
    }
}

fn emit(program: &Path, stage: Stage, options: &Options) -> Result<String, Failure> {
    let core_program = pipeline::frontend(program)?;
    if stage == Stage::Core {
        let simplified = pipeline::simplified(core_program, options);
        return Ok(core::print::print_program(&simplified));
    }
    let fused = pipeline::middle(core_program, options)?;
    let codegen_failure = |e: codegen::CodegenError| Failure::Message(e.to_string());
    match stage {
        Stage::Core => unreachable!("handled above"),
        Stage::Fused => Ok(fusion::print::print_program(&fused)),
        Stage::Fusion => Ok(fusion::report::print_report(&fused)),
        Stage::FusionDot => Ok(fusion::report::print_dot(&fused)),
        Stage::Loopy => Ok(loopy::print::print_program(&pipeline::loop_nests(&fused))),
        Stage::Llvm => codegen::emit_llvm(&pipeline::loop_nests(&fused), &options.codegen)
            .map_err(codegen_failure),
        Stage::Asm | Stage::Ptx => {
            let mut codegen_options = options.codegen;
            if stage == Stage::Ptx {
                codegen_options.target = Target::NvPtx;
            }
            codegen::emit_asm(&pipeline::loop_nests(&fused), &codegen_options)
                .map_err(codegen_failure)
        }
    }
}

/// `arrc run`: the reference interpreter on arguments read from stdin.
fn run(args: &RunArgs) -> i32 {
    let (program, entry) = (&args.program, args.entry.as_str());
    let core_program = match pipeline::frontend(program) {
        Ok(p) => p,
        Err(failure) => return report(Err(failure)),
    };
    let Some(function) = core_program.entries.iter().find(|f| f.name == entry) else {
        eprintln!(
            "Error: no entry point named `{entry}` in {}",
            program.display()
        );
        return 2;
    };
    let mut input = Vec::new();
    if let Err(err) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("Error: cannot read standard input: {err}");
        return 2;
    }
    let types: Vec<_> = function.params.iter().map(|p| p.ty).collect();
    let values = match value::read_values(&input, &types) {
        Ok(values) => values,
        Err(err) => {
            eprintln!("Error: {err}");
            return 2;
        }
    };
    // As a compiled program does: one warm-up run before timed runs.
    let runs = args.runs.map_or(1, |r| r as usize + 1);
    let mut times = Vec::new();
    let mut outcome = None;
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let result = interp::run_entry(&core_program, entry, values.clone());
        times.push(start.elapsed().as_micros());
        outcome = Some(result);
    }
    if args.runs.is_some() {
        times.remove(0);
    }
    if let Some(path) = &args.timing {
        let text: String = times.iter().map(|t| format!("{t}\n")).collect();
        if let Err(err) = std::fs::write(path, text) {
            eprintln!("Error: cannot write `{}`: {err}", path.display());
            return 2;
        }
    }
    match outcome.expect("at least one run") {
        Ok(results) => {
            if args.no_output {
                return 0;
            }
            let mut stdout = std::io::stdout().lock();
            for v in &results {
                if args.binary {
                    let mut bytes = Vec::new();
                    value::write_binary(v, &mut bytes);
                    // Futhark ends every value with a newline, binary ones too.
                    bytes.push(b'\n');
                    let _ = stdout.write_all(&bytes);
                } else {
                    let _ = writeln!(stdout, "{}", value::write_text(v));
                }
            }
            0
        }
        Err(err) => {
            eprintln!("Error: {err}");
            err.exit_code()
        }
    }
}
