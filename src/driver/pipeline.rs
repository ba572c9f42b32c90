//! The pass list: every pass of the compiler, named and run in order from
//! here (as Futhark's `Passes.hs` lists its pipelines). `--time-passes`
//! prints one line per pass, `--dump-after PASS` the IR after the last run
//! of the pass of that name, and the verifier of each IR runs after every
//! pass over it in tests and debug builds (`passes`).
//!
//! ```text
//! source files
//!   parse                      syntax::parse_program, every import  -> syntax::ast::Program per file
//!   typecheck                  types::check                         -> types::CheckedProgram
//!   lower-core                 core::lower                          -> core::ir::Program
//!   simplify-{fold, cse, columns, dce, inline, hoist, tabulate, element,
//!             regular, flat-index, scatter-split, compaction}
//!                              in rounds until none changes anything (not at -O0)
//!   fusion                     fusion::fuse, nested clusters too   -> fusion::ast::FusedProgram
//!   lower-loopy                loopy::lower                         -> loopy::ir::Program
//!   loopy-{unflat, generators, bounds, inplace, rows, unroll, hoist, hists}
//!   loopy-donate               executables on the CPU: dead array arguments
//!                              overwritten in place (not a library's)
//!   loopy-{block, jam, tile}   when the target's tuning asks for them (CPU)
//!   loopy-wrap                 `(i + c) % n` with `c` known in `0..n`: a conditional subtraction
//!   loopy-borrow               where host memory is device memory: a `for` loop that
//!                              only reads its initial array starts from it, uncopied
//!   loopy-memory               launched nests and memory spaces
//!   loopy-scratch              per-thread scratch for per-iteration arrays
//!   loopy-plan                 how each nest runs in parallel
//!   lint                       loopy::check (a failure is an internal error)
//!   exact-fallback-loopy       executables and libraries built with fusion: the same core
//!                              unfused, fusion to lint again (quietly)
//!   emit                       codegen::emit: emission + the target's backend -> LLVM module
//!   target-attributes          the target's function attributes
//!   llvm-opt                   LLVM's default<On> pipeline
//!   prefetch                   software prefetches (CPU; not with ARRC_NO_PREFETCH)
//!   nontemporal                streaming stores of large fresh outputs (CPU)
//!   masks                      guarded stores' masks as bits (CPU; codegen::cpu::masked)
//!   sanitize                   --sanitize address|thread: the instrumentation
//!   assembly | object          the module as text (--emit asm) or machine code
//!   exact-fallback-object      when the code can fail: the fallback at -O0
//!   link                       cc with the glue and the runtime      -> executable
//! ```
//!
//! `compile` runs the list up to a `Goal` (what `--emit` and the other
//! commands want); nothing else in the compiler calls the stages in order.

pub use super::passes::{Failure, Session};

use super::sources;
use crate::codegen::{self, CodegenOptions};
use crate::core;
use crate::fusion::{self, ast::FusedProgram, FusionOptions};
use crate::loopy;
use crate::simplify::{self, SimplifyOptions};
use crate::types;
use std::path::Path;

/// Options that choose what the middle and back end do.
#[derive(Clone, Debug)]
pub struct Options {
    /// `None` at `-O0`: the core IR goes to fusion as lowered.
    pub simplify: Option<SimplifyOptions>,
    pub fusion: FusionOptions,
    pub codegen: CodegenOptions,
    /// Run the `prefetch` pass where the target has it (`ARRC_NO_PREFETCH`
    /// turns it off, for comparisons).
    pub prefetch: bool,
    /// Let an executable's entries overwrite dead array arguments
    /// (`loopy::donate`; `ARRC_NO_DONATE` turns it off, for comparisons).
    pub donate: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            simplify: Some(SimplifyOptions::default()),
            fusion: FusionOptions::new(fusion::ast::Strategy::Ilp),
            codegen: CodegenOptions::default(),
            prefetch: true,
            donate: true,
        }
    }
}

/// How far to compile.
#[derive(Clone, Copy, Debug)]
pub enum Goal<'a> {
    /// Parse and type-check.
    Check,
    /// The core IR as lowered (what the interpreter runs).
    Lowered,
    /// The core IR after the simplifier.
    Core,
    Fused,
    Loopy,
    /// The LLVM module after every module pass, as text.
    Llvm,
    Asm,
    /// Machine code, not linked.
    Object,
    Executable(&'a Path),
    /// A shared library with the C API (`codegen::link_library`); the
    /// output is the loop nests its header and Python module describe.
    /// With `true`, a second copy of the entry points compiled for
    /// x86-64-v3 runs where the processor has it (`codegen::WIDE_SUFFIX`).
    Library(&'a Path, bool),
}

/// What `compile` reached.
pub enum Output {
    /// Checked, or an executable written.
    Done,
    Core(core::ir::Program),
    Fused(FusedProgram),
    Loopy(loopy::ir::Program),
    /// A library written: its loop nests and its API's types.
    Library(loopy::ir::Program, codegen::Api),
    Text(String),
    Object(Vec<u8>),
}

/// The simplifier's passes, in the order a round runs them over every
/// entry; a pass returns whether it changed the function.
pub const SIMPLIFY: [(&str, simplify::Pass); 12] = [
    ("simplify-fold", simplify::fold),
    ("simplify-cse", simplify::cse),
    ("simplify-columns", simplify::columns),
    ("simplify-dce", simplify::dce),
    ("simplify-inline", simplify::inline),
    ("simplify-hoist", simplify::hoist),
    ("simplify-tabulate", simplify::tabulate),
    ("simplify-element", simplify::element),
    ("simplify-regular", simplify::regular),
    ("simplify-flat-index", simplify::flat_index),
    ("simplify-scatter-split", simplify::scatter_split),
    ("simplify-compaction", simplify::compaction),
];

/// Compiles the program at `path` (with its imports and the standard
/// library) up to `goal`.
pub fn compile(
    path: &Path,
    options: &Options,
    goal: Goal,
    session: &mut Session,
) -> Result<Output, Failure> {
    let opaque_ok = matches!(goal, Goal::Library(..));
    compile_to(path, options, goal, session, opaque_ok)
}

/// `compile`; `opaque_ok`: entries may take and return opaque values (a
/// library's, or the interpreter's view of one in tests).
fn compile_to(
    path: &Path,
    options: &Options,
    goal: Goal,
    session: &mut Session,
    opaque_ok: bool,
) -> Result<Output, Failure> {
    let (sources, programs) = session.step("parse", || sources::parse_with_imports(path))?;
    let mut checked = session.step("typecheck", || {
        types::check(&sources, &programs)
            .map_err(|diags| Failure::Diagnostics(Box::new(sources.clone()), diags))
    })?;
    // Section 3: an executable's entry points are first-order. A program
    // whose every entry takes or returns an opaque value has nothing an
    // executable could run, so it is for a library only.
    if !opaque_ok && checked.entries.iter().all(|e| e.opaque.is_some()) {
        if let Some(diag) = checked.entries.iter().find_map(|e| e.opaque.clone()) {
            let diag = diag.with_note(
                "a library (`arrc build --library` or `--python`) takes and returns it as an opaque value",
            );
            return Err(Failure::Diagnostics(Box::new(sources.clone()), vec![diag]));
        }
    }
    if let Goal::Check = goal {
        return Ok(Output::Done);
    }
    // An entry taking or returning an opaque value is for a library only.
    // As Futhark's executables, which compile it but cannot read or print
    // the value, an executable leaves it out: the program still builds.
    if !opaque_ok {
        checked.entries.retain(|e| {
            let Some(diag) = &e.opaque else { return true };
            if let Goal::Executable(_) = goal {
                eprintln!(
                    "warning: {}: it is left out of the executable (a library, `arrc build \
                     --library` or `--python`, takes and returns it as an opaque value)",
                    diag.message
                );
            }
            false
        });
    }
    let api = matches!(goal, Goal::Library(..)).then(|| codegen::Api::new(&checked.entries));
    let mut core = session.pass("lower-core", || Ok(core::lower(&checked, &sources)))?;
    if let Goal::Lowered = goal {
        return Ok(Output::Core(core));
    }
    if let Some(simplify_options) = &options.simplify {
        simplify_rounds(&mut core, simplify_options, session)?;
    }
    if let Goal::Core = goal {
        return Ok(Output::Core(core));
    }
    let fused = session.pass("fusion", || {
        let fused = fusion::fuse(&core, &options.fusion);
        for note in &fused.notes {
            eprintln!("warning: {note}");
        }
        if options.fusion.report_stats {
            eprintln!("{}", fused.stats.summary(options.fusion.node_limit));
        }
        Ok(fused.program)
    })?;
    if let Goal::Fused = goal {
        return Ok(Output::Fused(fused));
    }
    // A library's caller keeps its arguments; a GPU entry's are copies.
    let donate =
        options.donate && !matches!(goal, Goal::Library(..)) && !options.codegen.target.is_gpu();
    let loops = loop_nests_in(&fused, options, donate, session)?;
    if let Goal::Loopy = goal {
        return Ok(Output::Loopy(loops));
    }
    // A GPU target's fallback runs on the CPU (a GPU library's on host
    // copies of the arguments: `arr_exact_inputs`).
    let wants_fallback = matches!(goal, Goal::Executable(_) | Goal::Library(..))
        && options.fusion.strategy != fusion::ast::Strategy::None;
    let fallback = match wants_fallback {
        true => {
            let mut quiet = session.quiet();
            let cpu_options = fallback_options(options);
            Some(session.step("exact-fallback-loopy", || {
                let unfused = fusion::fuse(&core, &FusionOptions::new(fusion::ast::Strategy::None));
                // It re-runs on the arguments after an error: it overwrites
                // none of them.
                loop_nests_in(&unfused.program, &cpu_options, false, &mut quiet)
            })?)
        }
        false => None,
    };
    back_end(
        &loops,
        api.as_ref(),
        fallback.as_ref(),
        options,
        goal,
        session,
    )
}

/// The simplifier: `SIMPLIFY` in rounds until a round changes nothing, at
/// most `max_iterations` rounds.
fn simplify_rounds(
    program: &mut core::ir::Program,
    options: &SimplifyOptions,
    session: &mut Session,
) -> Result<(), Failure> {
    // Ids are unique across the program's entries; passes only remove ids
    // or take new ones from here, so one walk before the rounds suffices.
    let mut fresh = core::fresh::Fresh::for_program(program);
    for _ in 0..options.max_iterations {
        let mut changed = false;
        for (name, pass) in SIMPLIFY {
            changed |= session.rewrite(name, program, |p| {
                Ok(p.entries
                    .iter_mut()
                    .fold(false, |changed, f| pass(f, options, &mut fresh) | changed))
            })?;
        }
        if !changed {
            break;
        }
    }
    Ok(())
}

/// Fusion AST to planned loop nests: the lowering, then every loop-nest
/// pass over each entry, then the lint; `donate`: the caller gives the
/// array arguments up (`loopy::donate`).
fn loop_nests_in(
    fused: &FusedProgram,
    options: &Options,
    donate: bool,
    session: &mut Session,
) -> Result<loopy::ir::Program, Failure> {
    let tuning = options.codegen.target.describe(options.codegen.cpu).tuning;
    let mut loops = session.pass("lower-loopy", || Ok(loopy::lower(fused)))?;
    let mut each = |name, pass: &dyn Fn(&mut loopy::ir::Function)| {
        session.rewrite(name, &mut loops, |p| {
            p.functions.iter_mut().for_each(pass);
            Ok(())
        })
    };
    each("loopy-unflat", &loopy::unflat::renest_flat_maps)?;
    each("loopy-generators", &loopy::generators::drop_unread)?;
    each("loopy-bounds", &loopy::bounds::drop_proven_checks)?;
    each("loopy-inplace", &loopy::inplace::reuse_dead_copies)?;
    if donate {
        each("loopy-donate", &loopy::donate::overwrite_dead_arguments)?;
    }
    each("loopy-rows", &loopy::rows::write_rows_in_place)?;
    each("loopy-unroll", &loopy::unroll::unroll_small_loops)?;
    each("loopy-hoist", &loopy::hoist::hoist_invariants)?;
    if tuning.merge_hists {
        each("loopy-hists", &loopy::hists::merge_column_hists)?;
    }
    if let Some(blocking) = tuning.block {
        each("loopy-block", &|f| {
            loopy::block::register_block(f, blocking)
        })?;
    }
    if let Some(lanes) = tuning.jam_lanes {
        each("loopy-jam", &|f| loopy::jam::jam_searches(f, lanes))?;
    }
    if let Some(side) = tuning.transpose_tile {
        each("loopy-tile", &|f| loopy::tile::tile_transposes(f, side))?;
    }
    each("loopy-wrap", &loopy::wrap::wrap_shifted_remainders)?;
    if !tuning.host_nests {
        each("loopy-borrow", &loopy::borrow::borrow_loop_inits)?;
    }
    each("loopy-memory", &|f| {
        loopy::memory::assign_spaces(f, tuning.host_nests)
    })?;
    each("loopy-scratch", &loopy::scratch::expand_scratch)?;
    each("loopy-plan", &|f| loopy::par::plan_nests(f, &tuning))?;
    session.rewrite("lint", &mut loops, |p| {
        loopy::check(p).map_err(Failure::Internal)
    })?;
    Ok(loops)
}

/// Loop nests to an LLVM module after every module pass.
fn optimised_module<'ctx>(
    context: &'ctx codegen::LlvmContext,
    loops: &loopy::ir::Program,
    options: &Options,
    session: &mut Session,
) -> Result<codegen::LlvmModule<'ctx>, Failure> {
    let target = options.codegen.target.describe(options.codegen.cpu);
    let mut module = session.pass("emit", || {
        Ok(codegen::emit(context, loops, &options.codegen)?)
    })?;
    session.rewrite(
        "target-attributes",
        &mut module,
        |m| Ok(m.set_attributes()?),
    )?;
    session.rewrite("llvm-opt", &mut module, |m| Ok(m.optimise()?))?;
    if target.prefetch && options.prefetch {
        session.rewrite("prefetch", &mut module, |m| Ok(m.prefetch()?))?;
    }
    if target.prefetch {
        session.rewrite("nontemporal", &mut module, |m| Ok(m.nontemporal()?))?;
        session.rewrite("masks", &mut module, |m| Ok(m.masks()?))?;
    }
    if let Some(sanitizer) = options.codegen.sanitize {
        session.rewrite("sanitize", &mut module, |m| Ok(m.sanitize(sanitizer)?))?;
    }
    Ok(module)
}

/// Loop nests to LLVM IR, assembly, an executable or a library. A CPU
/// executable or library whose code can fail also gets `fallback` (the same
/// entries unfused, built for a quick compile): after a run-time error the
/// runtime re-runs the entry there, so the error reported is the first in
/// sequential order, as the interpreter reports it, whatever fusion
/// reordered or interleaved.
fn back_end(
    loops: &loopy::ir::Program,
    api: Option<&codegen::Api>,
    fallback: Option<&loopy::ir::Program>,
    options: &Options,
    goal: Goal,
    session: &mut Session,
) -> Result<Output, Failure> {
    let context = codegen::LlvmContext::create();
    let module = optimised_module(&context, loops, options, session)?;
    match goal {
        Goal::Llvm => Ok(Output::Text(module.print())),
        Goal::Asm => Ok(Output::Text(
            session.step("assembly", || Ok(module.assembly()?))?,
        )),
        Goal::Object => Ok(Output::Object(
            session.step("object", || Ok(module.object()?))?,
        )),
        Goal::Executable(out) => {
            let object = session.step("object", || Ok(module.object()?))?;
            let fallback = exact_fallback(fallback, &module, options, session)?;
            session.step("link", || {
                let objects = codegen::Objects {
                    program: std::slice::from_ref(&object),
                    exact_fallback: fallback.as_deref(),
                };
                Ok(codegen::link(
                    loops,
                    &options.codegen,
                    objects,
                    module.gpu_artifacts(),
                    out,
                )?)
            })?;
            Ok(Output::Done)
        }
        Goal::Library(out, wide) => {
            let mut objects = vec![session.step("object", || Ok(module.object()?))?];
            let fallback = exact_fallback(fallback, &module, options, session)?;
            if wide {
                let mut wide_options = options.clone();
                wide_options.codegen.cpu = codegen::Cpu::Level(3);
                let context = codegen::LlvmContext::create();
                let mut module = optimised_module(&context, loops, &wide_options, session)?;
                module.rename_entries(codegen::WIDE_SUFFIX);
                objects.push(session.step("object", || Ok(module.object()?))?);
            }
            let api = api
                .cloned()
                .unwrap_or_else(|| codegen::Api::of_leaves(loops));
            session.step("link", || {
                let objects = codegen::Objects {
                    program: &objects,
                    exact_fallback: fallback.as_deref(),
                };
                Ok(codegen::link_library(
                    loops,
                    &api,
                    &options.codegen,
                    objects,
                    module.gpu_artifacts(),
                    wide,
                    out,
                )?)
            })?;
            Ok(Output::Library(loops.clone(), api))
        }
        Goal::Check | Goal::Lowered | Goal::Core | Goal::Fused | Goal::Loopy => Err(
            Failure::Internal("the back end was asked for a front-end goal".into()),
        ),
    }
}

/// The fallback's object file when there is one and `module`'s code can
/// fail (else nothing can be reported out of order).
fn exact_fallback(
    fallback: Option<&loopy::ir::Program>,
    module: &codegen::LlvmModule,
    options: &Options,
    session: &mut Session,
) -> Result<Option<Vec<u8>>, Failure> {
    // A GPU module's kernels report their errors through the device's
    // record (`locations`), not `arr_fail_*`.
    let device_checks = module
        .gpu_artifacts()
        .is_some_and(|a| !a.locations.is_empty());
    match fallback.filter(|_| module.can_fail() || device_checks) {
        Some(unfused) => Ok(Some(session.step("exact-fallback-object", || {
            fallback_object(unfused, options)
        })?)),
        None => Ok(None),
    }
}

/// The options the fallback is built with: the CPU's, whatever the
/// target (a GPU executable's fallback runs on the host).
fn fallback_options(options: &Options) -> Options {
    let mut cpu = options.clone();
    if cpu.codegen.target.is_gpu() {
        cpu.codegen.target = codegen::Target::X86_64;
    }
    cpu
}

/// The object file of the exact-errors fallback: `unfused` emitted with
/// its own entry symbols, at LLVM's `-O0` (it runs only after an error).
fn fallback_object(unfused: &loopy::ir::Program, options: &Options) -> Result<Vec<u8>, Failure> {
    let codegen_options = CodegenOptions {
        opt_level: 0,
        exact_fallback: true,
        count_traffic: false,
        ..fallback_options(options).codegen
    };
    let context = codegen::LlvmContext::create();
    let mut module = codegen::emit(&context, unfused, &codegen_options)?;
    module.set_attributes()?;
    module.optimise()?;
    if let Some(sanitizer) = codegen_options.sanitize {
        module.sanitize(sanitizer)?;
    }
    Ok(module.object()?)
}

/// The core IR as lowered, before the simplifier: what the interpreter
/// runs and the test runner compares against.
pub fn lowered(path: &Path) -> Result<core::ir::Program, Failure> {
    lowered_with(path, false)
}

/// `lowered`, with entries that take or return opaque values as a library
/// has them (flattened into their leaves): the interpreter's results for
/// a library's entries (tests).
pub fn lowered_library(path: &Path) -> Result<core::ir::Program, Failure> {
    lowered_with(path, true)
}

fn lowered_with(path: &Path, opaque_ok: bool) -> Result<core::ir::Program, Failure> {
    match compile_to(
        path,
        &Options::default(),
        Goal::Lowered,
        &mut Session::new(None),
        opaque_ok,
    )? {
        Output::Core(program) => Ok(program),
        _ => Err(Failure::Internal("no core IR from the front end".into())),
    }
}

pub fn build_executable(path: &Path, options: &Options, out: &Path) -> Result<(), Failure> {
    compile(
        path,
        options,
        Goal::Executable(out),
        &mut Session::new(None),
    )
    .map(|_| ())
}

/// `SIMPLIFY` in rounds, outside a compilation (tests, benchmarks); fails
/// only where the verifier finds a broken invariant (debug builds).
pub fn simplify(
    mut program: core::ir::Program,
    options: &SimplifyOptions,
) -> Result<core::ir::Program, Failure> {
    simplify_rounds(&mut program, options, &mut Session::new(None))?;
    Ok(program)
}

/// The fusion AST to planned loop nests, outside a compilation (tests).
pub fn loop_nests(fused: &FusedProgram, options: &Options) -> Result<loopy::ir::Program, Failure> {
    loop_nests_in(fused, options, false, &mut Session::new(None))
}

/// Planned loop nests to an executable linked with the real runtime,
/// outside a compilation (tests).
pub fn link_loop_nests(
    loops: &loopy::ir::Program,
    options: &Options,
    out: &Path,
) -> Result<(), Failure> {
    back_end(
        loops,
        None,
        None,
        options,
        Goal::Executable(out),
        &mut Session::new(None),
    )
    .map(|_| ())
}

/// Planned loop nests to LLVM IR or assembly text, or an object file
/// (tests).
pub fn emit_loop_nests(
    loops: &loopy::ir::Program,
    options: &Options,
    goal: Goal,
) -> Result<Output, Failure> {
    back_end(loops, None, None, options, goal, &mut Session::new(None))
}
