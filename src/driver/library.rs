//! `arrc build --library` and `arrc build --python`: the pass list to a
//! shared library (`pipeline::Goal::Library`), then the header `NAME.h` or
//! the Python module `NAME.py` beside it (docs/library.md).

use super::cli::CompileArgs;
use super::pipeline::{self, Failure, Goal, Output, Session};
use crate::codegen;
use std::path::{Path, PathBuf};

/// Where a library's files go: the directory and the name (`-o DIR/NAME`,
/// else the source's directory and stem). A name given with the extension
/// of a file the build writes (`-o DIR/NAME.py` for a module, `NAME.h` or
/// `libNAME.so` for a C library) names the same files as `-o DIR/NAME`.
fn destination(
    program: &Path,
    output: Option<&Path>,
    python: bool,
) -> Result<(PathBuf, String), Failure> {
    let named = output.unwrap_or(program);
    let stem = if output.is_some() {
        named.file_name()
    } else {
        named.file_stem()
    };
    let name = stem
        .and_then(|s| s.to_str())
        .map(|s| {
            if output.is_some() {
                without_file_extension(s, python)
            } else {
                s
            }
        })
        .filter(|s| !s.is_empty() && !s.contains(['/', '\0']))
        .ok_or_else(|| {
            Failure::Usage(format!("cannot name a library after `{}`", named.display()))
        })?
        .to_string();
    let dir = named
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    Ok((dir, name))
}

/// `name` less the extension of a file that `--python` (`.py`) or
/// `--library` (`.h`, and `lib....so`) writes.
fn without_file_extension(name: &str, python: bool) -> &str {
    if python {
        return name.strip_suffix(".py").unwrap_or(name);
    }
    if let Some(header) = name.strip_suffix(".h") {
        return header;
    }
    name.strip_suffix(".so")
        .map(|base| base.strip_prefix("lib").unwrap_or(base))
        .unwrap_or(name)
}

fn python_identifier(name: &str) -> bool {
    name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// Builds the library (and the header or the module) of `program`.
pub fn build(
    program: &Path,
    output: Option<&Path>,
    compile: &CompileArgs,
    python: bool,
    time_passes: bool,
) -> Result<(), Failure> {
    let (dir, name) = destination(program, output, python)?;
    if python && !python_identifier(&name) {
        return Err(Failure::Usage(format!(
            "`{name}` is not a Python module name (name the module with -o DIR/NAME)"
        )));
    }
    let mut options = compile.options();
    // A library travels: a portable level unless asked otherwise, with a
    // second copy for x86-64-v3 chosen at run time (compute-bound loops
    // gain from AVX2 and FMA: docs/library.md).
    // (Not for a GPU target, whose host code only launches kernels.)
    let wide = compile.cpu.is_none() && options.codegen.target == codegen::Target::X86_64;
    if wide {
        options.codegen.cpu = codegen::Cpu::Level(2);
    }
    let so = dir.join(format!("lib{name}.so"));
    let mut session = Session::new(None);
    let compiled = pipeline::compile(program, &options, Goal::Library(&so, wide), &mut session);
    if time_passes {
        eprint!("{}", session.times());
    }
    let Output::Library(loops, api) = compiled? else {
        return Err(Failure::Internal(
            "no loop nests from a library build".into(),
        ));
    };
    let (file, text) = if python {
        (
            dir.join(format!("{name}.py")),
            codegen::python_module(&loops, &api, &name),
        )
    } else {
        (
            dir.join(format!("{name}.h")),
            codegen::library_header(&loops, &api, &name),
        )
    };
    std::fs::write(&file, text)
        .map_err(|e| Failure::Message(format!("cannot write `{}`: {e}", file.display())))
}

#[cfg(test)]
mod tests {
    use super::destination;
    use std::path::{Path, PathBuf};

    fn named(output: &str, python: bool) -> (PathBuf, String) {
        destination(Path::new("src/prog.arr"), Some(Path::new(output)), python).unwrap()
    }

    #[test]
    fn output_names_may_carry_the_written_extension() {
        let plain = (PathBuf::from("out"), "saxpy".to_string());
        assert_eq!(named("out/saxpy", true), plain);
        assert_eq!(named("out/saxpy.py", true), plain);
        assert_eq!(named("out/saxpy", false), plain);
        assert_eq!(named("out/saxpy.h", false), plain);
        assert_eq!(named("out/libsaxpy.so", false), plain);
        // Only the extension of what the build writes is taken off.
        assert_eq!(named("out/saxpy.h", true).1, "saxpy.h");
        assert_eq!(named("out/saxpy.py", false).1, "saxpy.py");
        let source = destination(Path::new("src/prog.arr"), None, true).unwrap();
        assert_eq!(source, (PathBuf::from("src"), "prog".to_string()));
    }
}
