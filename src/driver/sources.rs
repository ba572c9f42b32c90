//! Source files in, parsed programs out: the standard library (embedded),
//! the main file and every file it imports, in dependency order.

use super::passes::Failure;
use crate::syntax::{self, ast, Diagnostic, SourceMap};
use std::path::{Path, PathBuf};

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
    /// The file each loaded canonical path became.
    files: Vec<(PathBuf, usize)>,
}

/// Every `import "x"` of a declaration list, also those inside modules
/// (`module m = import "x"`, `open import "x"`), with where it is written.
fn imports_in(decls: &[ast::Decl], out: &mut Vec<(String, ast::Span)>) {
    for decl in decls {
        match decl {
            ast::Decl::Import(target, span) => out.push((target.clone(), span.clone())),
            ast::Decl::Module(m) => imports_in_module(&m.body, out),
            ast::Decl::Open(m, _) => imports_in_module(m, out),
            ast::Decl::Local(d, _) => imports_in(std::slice::from_ref(&**d), out),
            ast::Decl::Def(_) | ast::Decl::Type(_) | ast::Decl::ModType(_) => {}
        }
    }
}

fn imports_in_module(m: &ast::ModExp, out: &mut Vec<(String, ast::Span)>) {
    match m {
        ast::ModExp::Import(target, span) => out.push((target.clone(), span.clone())),
        ast::ModExp::Struct(decls, _) => imports_in(decls, out),
        ast::ModExp::Ascribe(m, _, _) | ast::ModExp::Lambda(_, _, m, _) => {
            imports_in_module(m, out)
        }
        ast::ModExp::Apply(f, a, _) => {
            imports_in_module(f, out);
            imports_in_module(a, out);
        }
        ast::ModExp::Var(_) => {}
    }
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
        let mut program = syntax::parse_program(&self.sources, file)
            .map_err(|diags| Failure::Diagnostics(Box::new(self.sources.clone()), diags))?;
        self.visiting.push(canonical.clone());
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut targets = Vec::new();
        imports_in(&program.decls, &mut targets);
        for (written, span) in targets {
            let target = import_path(&dir, &written);
            self.load(&target, Some((file, span)))?;
            let canonical = target.canonicalize().unwrap_or(target);
            if let Some((_, f)) = self.files.iter().find(|(p, _)| *p == canonical) {
                program.imports.push((written, *f));
            }
        }
        self.visiting.pop();
        self.files.push((canonical.clone(), file));
        self.loaded.push(canonical);
        self.programs.push(program);
        Ok(())
    }
}

/// The file `import "target"` names from a file in `dir`: `target.arr`, or
/// Futhark's `target.fut` when only that exists.
pub fn import_path(dir: &Path, target: &str) -> PathBuf {
    let arr = dir.join(format!("{target}.arr"));
    let fut = dir.join(format!("{target}.fut"));
    if !arr.exists() && fut.exists() {
        fut
    } else {
        arr
    }
}
