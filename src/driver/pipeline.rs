//! Every stage of the compiler in order, with the IR type at each arrow:
//!
//! ```text
//! source files --syntax::parse_program--> syntax::ast::Program (per file)
//!   --types::check--> types::CheckedProgram
//!   --core::lower--> core::ir::Program
//!   --simplify::simplify_with--> core::ir::Program
//!   (skipped at -O0)
//!   --fusion::fuse--> fusion::ast::FusedProgram
//!   --loopy::lower--> loopy::ir::Program
//!   --codegen::{emit_llvm, emit_asm, link_executable}--> LLVM IR / assembly / executable
//! ```
//!
//! Nothing else lives here: options come from `cli`, files are read here only
//! to gather the sources.

use crate::codegen::{self, CodegenOptions};
use crate::core;
use crate::fusion::{self, ast::FusedProgram, FusionOptions};
use crate::loopy;
use crate::simplify;
use crate::syntax::{self, ast, Diagnostic, SourceMap};
use crate::types;
use std::path::{Path, PathBuf};

/// Why a compilation stopped.
#[derive(Debug)]
pub enum Failure {
    /// User mistakes in the program, with their sources for rendering.
    Diagnostics(Box<SourceMap>, Vec<Diagnostic>),
    /// A file could not be read, or a stage refused the program: one line.
    Message(String),
}

impl Failure {
    /// The text to print on standard error.
    pub fn render(&self) -> String {
        match self {
            Failure::Diagnostics(sources, diags) => {
                diags.iter().map(|d| d.render(sources)).collect::<String>()
            }
            Failure::Message(msg) => format!("Error: {msg}\n"),
        }
    }
}

/// Options that choose what the middle and back end do.
#[derive(Clone, Debug)]
pub struct Options {
    /// `None` at `-O0`: the core IR goes to fusion as lowered.
    pub simplify: Option<simplify::SimplifyOptions>,
    pub fusion: FusionOptions,
    pub codegen: CodegenOptions,
}

/// The standard library, embedded so that an installed `arrc` needs no files.
const STDLIB: &[(&str, &str)] = &[(
    "stdlib/prelude.arr",
    include_str!("../../stdlib/prelude.arr"),
)];

/// Parses the standard library, `path` and every file it imports
/// (transitively), returning the programs in dependency order: the standard
/// library first and the main file last.
pub fn parse_with_imports(path: &Path) -> Result<(SourceMap, Vec<ast::Program>), Failure> {
    let mut loader = Loader::default();
    for (name, text) in STDLIB {
        let file = loader.sources.add(name.to_string(), text.to_string());
        let program = syntax::parse_program(&loader.sources, file)
            .map_err(|diags| Failure::Diagnostics(Box::new(loader.sources.clone()), diags))?;
        loader.programs.push(program);
    }
    loader.load(path, None)?;
    Ok((loader.sources, loader.programs))
}

#[derive(Default)]
struct Loader {
    sources: SourceMap,
    programs: Vec<ast::Program>,
    /// Canonical paths of the files in `programs`.
    loaded: Vec<PathBuf>,
    /// The chain of files being loaded, to report import cycles.
    visiting: Vec<PathBuf>,
}

impl Loader {
    fn fail(&self, at: Option<(usize, ast::Span)>, msg: String) -> Failure {
        match at {
            Some((file, span)) => Failure::Diagnostics(
                Box::new(self.sources.clone()),
                vec![Diagnostic::new(file, span, msg)],
            ),
            None => Failure::Message(msg),
        }
    }

    fn load(
        &mut self,
        path: &Path,
        imported_at: Option<(usize, ast::Span)>,
    ) -> Result<(), Failure> {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if self.loaded.contains(&canonical) {
            return Ok(());
        }
        if self.visiting.contains(&canonical) {
            let msg = format!("import cycle through `{}`", path.display());
            return Err(self.fail(imported_at, msg));
        }
        let text = std::fs::read_to_string(path).map_err(|err| {
            self.fail(
                imported_at.clone(),
                format!("cannot read `{}`: {err}", path.display()),
            )
        })?;
        let file = self.sources.add(path.display().to_string(), text);
        let program = syntax::parse_program(&self.sources, file)
            .map_err(|diags| Failure::Diagnostics(Box::new(self.sources.clone()), diags))?;
        self.visiting.push(canonical.clone());
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for decl in &program.decls {
            if let ast::Decl::Import(target, span) = decl {
                let target = dir.join(format!("{target}.arr"));
                self.load(&target, Some((file, span.clone())))?;
            }
        }
        self.visiting.pop();
        self.loaded.push(canonical);
        self.programs.push(program);
        Ok(())
    }
}

/// Source to checked, lowered and simplified core IR.
pub fn frontend(path: &Path) -> Result<core::ir::Program, Failure> {
    let (sources, checked) = typecheck(path)?;
    Ok(core::lower(&checked, &sources))
}

/// Source parsed (with its imports) and type-checked: what `arrc check` does.
pub fn typecheck(path: &Path) -> Result<(SourceMap, types::CheckedProgram), Failure> {
    let (sources, programs) = parse_with_imports(path)?;
    let checked = types::check(&sources, &programs)
        .map_err(|diags| Failure::Diagnostics(Box::new(sources.clone()), diags))?;
    Ok((sources, checked))
}

/// The simplified core IR (unchanged at -O0).
pub fn simplified(program: core::ir::Program, options: &Options) -> core::ir::Program {
    match &options.simplify {
        Some(simplify_options) => simplify::simplify_with(program, simplify_options),
        None => program,
    }
}

/// Core IR to the explicit fusion AST. Remarks of the clusterer (a solver
/// that stopped at its time limit) go to standard error.
pub fn middle(program: core::ir::Program, options: &Options) -> Result<FusedProgram, Failure> {
    let program = simplified(program, options);
    let fused = fusion::fuse(&program, &options.fusion);
    for note in &fused.notes {
        eprintln!("warning: {note}");
    }
    Ok(fused.program)
}

/// Fusion AST to loop nests.
pub fn loop_nests(fused: &FusedProgram) -> loopy::ir::Program {
    loopy::lower(fused)
}

pub fn build_executable(path: &Path, options: &Options, out: &Path) -> Result<(), Failure> {
    build_timed(path, options, out).map(|_| ())
}

/// `build_executable`, returning how long each stage took.
pub fn build_timed(
    path: &Path,
    options: &Options,
    out: &Path,
) -> Result<Vec<(&'static str, std::time::Duration)>, Failure> {
    let mut times = Vec::new();
    let mut clock = std::time::Instant::now();
    let mut lap = |name: &'static str, times: &mut Vec<_>| {
        let now = std::time::Instant::now();
        times.push((name, now - clock));
        clock = now;
    };
    let (sources, programs) = parse_with_imports(path)?;
    lap("parse", &mut times);
    let checked = types::check(&sources, &programs)
        .map_err(|diags| Failure::Diagnostics(Box::new(sources.clone()), diags))?;
    lap("type check", &mut times);
    let core = core::lower(&checked, &sources);
    lap("core lowering", &mut times);
    let core = simplified(core, options);
    lap("simplify", &mut times);
    let fused = fusion::fuse(&core, &options.fusion);
    for note in &fused.notes {
        eprintln!("warning: {note}");
    }
    lap("fusion", &mut times);
    let loops = loop_nests(&fused.program);
    lap("loop nests", &mut times);
    let failure = |e: codegen::CodegenError| Failure::Message(e.to_string());
    let object = codegen::emit_object(&loops, &options.codegen).map_err(failure)?;
    lap("LLVM (build, optimise, emit)", &mut times);
    codegen::link_object(&loops, &options.codegen, &object, out).map_err(failure)?;
    lap("link (cc)", &mut times);
    Ok(times)
}
