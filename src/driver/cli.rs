//! The `arrc` command line: parses arguments with clap and runs the pass
//! list (`pipeline`). Exit codes: 0 success, 1 compile error or failed
//! test, 2 bad usage or bad input, 3 no usable GPU (`arrc test` and `bench`
//! with `--target nvptx`), 70 internal compiler error.

use super::pipeline::{self, Failure, Goal, Options, Output, Session};
use crate::codegen::{CodegenOptions, Cpu, Sanitizer, Target};
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
        /// Run the cases on this backend only (default: both).
        #[arg(long, value_enum)]
        backend: Option<BackendArg>,
        /// Interpreter only (`futhark test -i`).
        #[arg(short = 'i', conflicts_with_all = ["backend", "compiled_only"])]
        interpreted_only: bool,
        /// Compiled only (`futhark test -c`).
        #[arg(short = 'c', conflicts_with = "backend")]
        compiled_only: bool,
        /// Skip programs and cases with these tags (repeatable or
        /// comma-separated; `disable` and `notest` always are).
        #[arg(
            long = "exclude-tag",
            visible_alias = "exclude",
            value_name = "TAG",
            value_delimiter = ','
        )]
        exclude_tag: Vec<String>,
        /// Check the `structure { ... }` lines instead of running cases.
        #[arg(short = 's', long = "structure")]
        structure: bool,
        /// Fail a case whose result depends on what the language leaves
        /// unspecified: a scatter writing two values to one index, a
        /// neutral element that is not neutral, ... (the interpreter's
        /// checking mode; also `ARRC_CHECK_UNSPECIFIED=1`).
        #[arg(long)]
        check_unspecified: bool,
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
        /// Skip programs and cases with this tag (repeatable; `disable` and
        /// `nobench` always are).
        #[arg(
            long = "exclude-tag",
            visible_alias = "exclude",
            value_name = "TAG",
            value_delimiter = ','
        )]
        exclude_tag: Vec<String>,
    },
    /// Random differential testing: generated programs on the interpreter
    /// and as binaries of every configuration (see src/testgen).
    #[command(hide = true)]
    Random(super::random::RandomArgs),
}

/// Where `arrc test` runs cases.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum BackendArg {
    Interpreter,
    /// The native executable (`c` and `multicore`, Futhark's names for its
    /// CPU backends, mean it too).
    #[value(alias = "c", alias = "multicore")]
    Compiled,
}

#[derive(clap::Args, Debug, Clone)]
pub struct CompileArgs {
    /// Optimisation level 0 to 3 (`-O2`).
    #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
    /// What to compile for [default: x86_64; `arrc test`: x86_64, and
    /// nvptx too where a GPU is usable].
    #[arg(long, value_enum)]
    pub target: Option<TargetArg>,
    #[arg(long, value_enum, default_value_t = FusionArg::Ilp)]
    pub fusion: FusionArg,
    /// Work the ILP clusterer may use for the whole program before keeping
    /// the best clustering found: branch-and-bound nodes, each weighted by
    /// its LP's size (a node of a body of up to about 20 SOACs counts one).
    #[arg(long = "fusion-node-limit", default_value_t = crate::fusion::NODE_LIMIT)]
    pub fusion_node_limit: u64,
    /// Print what the ILP clusterer did on standard error: solves, nodes,
    /// work units, LP cells (rows times columns, summed over nodes) and
    /// frontier states.
    #[arg(long = "fusion-stats")]
    pub fusion_stats: bool,
    /// Allow float rewrites that can change results: reassociation,
    /// `x*0`, fused multiply-adds, reciprocals (NaN and infinity still hold).
    #[arg(long = "fast-math")]
    pub fast_math: bool,
    /// Forbid fused multiply-adds (by default a multiply feeding an add or
    /// subtract may be contracted into one, as C compilers do). Not with
    /// `--fast-math`, which asks for them.
    #[arg(long = "strict-fp", conflicts_with = "fast_math")]
    pub strict_fp: bool,
    /// x86-64 processor to compile for: `native` (this machine) or a
    /// microarchitecture level [default: native; x86-64-v2 for --library
    /// and --python].
    #[arg(long, value_enum)]
    pub cpu: Option<CpuArg>,
    /// The NVIDIA GPU architecture PTX is generated for (`--target nvptx`):
    /// sm_70 to sm_90 (newer GPUs JIT-compile sm_90's PTX).
    #[arg(long, default_value = "sm_70", value_parser = parse_gpu)]
    pub gpu: GpuArch,
    /// A checking build: exact allocations (no rounding, no reuse) and the
    /// code instrumented by AddressSanitizer or ThreadSanitizer (`alloc`:
    /// exact allocations only, for valgrind).
    #[arg(long, value_enum)]
    pub sanitize: Option<SanitizeArg>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SanitizeArg {
    Address,
    Thread,
    Alloc,
}

/// `--gpu sm_XX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuArch(pub u32);

fn parse_gpu(text: &str) -> Result<GpuArch, String> {
    let n = text
        .strip_prefix("sm_")
        .and_then(|n| n.parse::<u32>().ok())
        .ok_or_else(|| format!("`{text}` is not a GPU architecture such as sm_70 or sm_80"))?;
    // The architectures LLVM 19's NVPTX back end knows; any other makes it
    // abort. Newer GPUs JIT-compile sm_90's PTX.
    const KNOWN: [u32; 8] = [70, 72, 75, 80, 86, 87, 89, 90];
    if KNOWN.contains(&n) {
        Ok(GpuArch(n))
    } else {
        Err(format!(
            "`{text}`: arrc generates PTX for sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, \
             sm_89 and sm_90 (the driver JIT-compiles sm_90's PTX for newer GPUs)"
        ))
    }
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

/// The options of a compiled program (section 7), for the interpreter.
#[derive(clap::Args, Debug)]
struct RunArgs {
    program: PathBuf,
    /// Entry point to run.
    #[arg(
        short = 'e',
        long = "entry-point",
        visible_alias = "entry",
        default_value = "main"
    )]
    entry: String,
    /// Print the results in the binary value format.
    #[arg(short = 'b', long = "binary-output")]
    binary: bool,
    /// Print no results.
    #[arg(short = 'n', long = "no-print-result")]
    no_output: bool,
    /// Write the run time in microseconds (without input and output) to FILE.
    #[arg(short = 't', long = "write-runtime-to", value_name = "FILE")]
    timing: Option<PathBuf>,
    /// Run N times after a warm-up run (`-t` then writes one line per run).
    #[arg(short = 'r', long = "runs", value_parser = clap::value_parser!(u32).range(1..))]
    runs: Option<u32>,
    /// Accepted as a compiled program accepts it; the interpreter runs on
    /// one thread.
    #[arg(long = "threads", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    _threads: Option<u32>,
    /// Stop with an error where the result depends on what the language
    /// leaves unspecified (the checking mode of `arrc test
    /// --check-unspecified`; also `ARRC_CHECK_UNSPECIFIED=1`).
    #[arg(long)]
    check_unspecified: bool,
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
    /// Print how long each compiler pass took (standard error).
    #[arg(long = "time-passes")]
    time_passes: bool,
    /// Print the IR after the last run of the pass PASS (as `--time-passes`
    /// names them) to standard output instead of writing an executable.
    #[arg(long = "dump-after", value_name = "PASS")]
    dump_after: Option<String>,
    /// Write a C header NAME.h and a shared library libNAME.so with the C
    /// API of the entry points (`-o DIR/NAME`; default: beside the source).
    #[arg(long, conflicts_with_all = ["python", "emit", "dump_after", "count_traffic"])]
    library: bool,
    /// Write a Python module NAME.py (numpy in and out) and its shared
    /// library libNAME.so.
    #[arg(long, conflicts_with_all = ["emit", "dump_after", "count_traffic"])]
    python: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetArg {
    #[value(name = "x86_64")]
    X86_64,
    #[value(name = "nvptx")]
    NvPtx,
    /// The nvptx kernels run on the CPU by the GPU emulator (testing).
    #[value(name = "nvptx-emu")]
    NvPtxEmu,
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
        fusion.node_limit = self.fusion_node_limit;
        fusion.report_stats = self.fusion_stats;
        Options {
            simplify: (self.opt_level > 0).then(|| crate::simplify::SimplifyOptions {
                fast_math: self.fast_math,
                ..Default::default()
            }),
            fusion,
            codegen: CodegenOptions {
                opt_level: self.opt_level,
                target: match self.target.unwrap_or(TargetArg::X86_64) {
                    TargetArg::X86_64 => Target::X86_64,
                    TargetArg::NvPtx => Target::NvPtx,
                    TargetArg::NvPtxEmu => Target::NvPtxEmu,
                },
                count_traffic: false,
                cpu: match self.cpu.unwrap_or(CpuArg::Native) {
                    CpuArg::Native => Cpu::Native,
                    CpuArg::X86_64 => Cpu::Level(1),
                    CpuArg::X86_64V2 => Cpu::Level(2),
                    CpuArg::X86_64V3 => Cpu::Level(3),
                    CpuArg::X86_64V4 => Cpu::Level(4),
                },
                fast_math: self.fast_math,
                gpu_arch: self.gpu.0,
                strict_fp: self.strict_fp,
                exact_fallback: false,
                sanitize: self.sanitize.map(|s| match s {
                    SanitizeArg::Address => Sanitizer::Address,
                    SanitizeArg::Thread => Sanitizer::Thread,
                    SanitizeArg::Alloc => Sanitizer::Alloc,
                }),
            },
            // For comparisons; read here, not inside the compiler.
            prefetch: std::env::var_os("ARRC_NO_PREFETCH").is_none(),
            donate: std::env::var_os("ARRC_NO_DONATE").is_none(),
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
        Command::Check { program } => report(
            pipeline::compile(
                &program,
                &Options::default(),
                Goal::Check,
                &mut Session::new(None),
            )
            .map(|_| ()),
        ),
        Command::Test {
            paths,
            compile,
            threads,
            backend,
            interpreted_only,
            compiled_only,
            exclude_tag,
            structure,
            check_unspecified,
        } => {
            let backend = match (backend, interpreted_only, compiled_only) {
                (Some(b), _, _) => Some(b),
                (None, true, _) => Some(BackendArg::Interpreter),
                (None, _, true) => Some(BackendArg::Compiled),
                (None, false, false) => None,
            };
            let test = super::test_runner::TestOptions {
                interpreter: backend != Some(BackendArg::Compiled),
                compiled: backend != Some(BackendArg::Interpreter),
                every_backend: compile.target.is_none(),
                threads,
                exclude: exclude_tag,
                structure,
                check_unspecified: match interp::CheckMode::from_env() {
                    interp::CheckMode::Off if check_unspecified => interp::CheckMode::On,
                    from_env => from_env,
                },
            };
            super::test_runner::run_tests(&paths, &compile.options(), &test)
        }
        Command::Bench {
            paths,
            compile,
            runs,
            json,
            threads,
            exclude_tag,
        } => super::bench::run_benchmarks(
            &paths,
            &compile.options(),
            runs as usize,
            &threads,
            &exclude_tag,
            json.as_deref(),
        ),
        Command::Random(args) => super::random::random(&args),
    }
}

/// Prints a failure and gives the exit code for it.
fn report(result: Result<(), Failure>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(failure) => {
            eprint!("{}", failure.render());
            failure.exit_code()
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
    if args.library || args.python {
        return report(super::library::build(
            &args.program,
            args.output.as_deref(),
            &args.compile,
            args.python,
            args.time_passes,
        ));
    }
    let mut options = args.compile.options();
    options.codegen.count_traffic = args.count_traffic;
    // Bad usage (exit 2), not a compile error: these instrument CPU code only.
    if options.codegen.target.is_gpu() {
        let flag = if args.count_traffic {
            Some("--count-traffic")
        } else {
            args.compile.sanitize.map(|_| "--sanitize")
        };
        if let Some(flag) = flag {
            eprintln!("Error: {flag} is not supported with a GPU target");
            return 2;
        }
    }
    let mut session = Session::new(args.dump_after.clone());
    let out;
    let goal = match (args.dump_after.is_some(), args.emit) {
        // Every pass that gives an IR runs, so that any can be named.
        (true, _) => Goal::Llvm,
        (false, Some(stage)) => {
            if stage == Stage::Ptx {
                options.codegen.target = Target::NvPtx;
            }
            stage.goal()
        }
        (false, None) => {
            out = args
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
            Goal::Executable(&out)
        }
    };
    let compiled = pipeline::compile(&args.program, &options, goal, &mut session);
    if args.time_passes {
        eprint!("{}", session.times());
    }
    let text = match (compiled, args.dump_after.is_some(), args.emit) {
        (Err(failure), dumping, _) => {
            // The IR after the named pass helps most when a later pass fails.
            if dumping {
                if let Ok(text) = session.dumped() {
                    let _ = std::io::stdout().lock().write_all(text.as_bytes());
                }
            }
            return report(Err(failure));
        }
        (Ok(_), true, _) => session.dumped(),
        (Ok(output), false, Some(stage)) => stage.print(output),
        (Ok(_), false, None) => return 0,
    };
    match text {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            0
        }
        Err(failure) => report(Err(failure)),
    }
}

impl Stage {
    /// How far the pass list runs for this stage.
    fn goal(self) -> Goal<'static> {
        match self {
            Stage::Core => Goal::Core,
            Stage::Fused | Stage::Fusion | Stage::FusionDot => Goal::Fused,
            Stage::Loopy => Goal::Loopy,
            Stage::Llvm => Goal::Llvm,
            Stage::Asm | Stage::Ptx => Goal::Asm,
        }
    }

    /// The stage's text, from what `goal` compiled to.
    fn print(self, output: Output) -> Result<String, Failure> {
        match (self, output) {
            (Stage::Core, Output::Core(p)) => Ok(core::print::print_program(&p)),
            (Stage::Fused, Output::Fused(p)) => Ok(fusion::print::print_program(&p)),
            (Stage::Fusion, Output::Fused(p)) => Ok(fusion::report::print_report(&p)),
            (Stage::FusionDot, Output::Fused(p)) => Ok(fusion::report::print_dot(&p)),
            (Stage::Loopy, Output::Loopy(p)) => Ok(loopy::print::print_program(&p)),
            (Stage::Llvm | Stage::Asm | Stage::Ptx, Output::Text(text)) => Ok(text),
            (stage, _) => Err(Failure::Internal(format!(
                "the pass list gave no output for --emit {stage:?}"
            ))),
        }
    }
}

/// `arrc run`: the reference interpreter on arguments read from stdin.
fn run(args: &RunArgs) -> i32 {
    let (program, entry) = (&args.program, args.entry.as_str());
    let core_program = match pipeline::lowered(program) {
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
        let check = match interp::CheckMode::from_env() {
            interp::CheckMode::Off if args.check_unspecified => interp::CheckMode::On,
            from_env => from_env,
        };
        let result = interp::run_entry_checked(&core_program, entry, values.clone(), check);
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
