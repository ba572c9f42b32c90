//! `ARRC_TEST_EXPORT=DIR arrc test --target nvptx-emu PATHS`: besides
//! running the cases as usual, writes every tested program built for
//! `--target nvptx` (`DIR/bin/`), each compiled case's input and the
//! reference interpreter's outcome (`DIR/cases/`) and one JSON line a case
//! (`DIR/cases.jsonl`), so that a machine with a GPU but no arrc runs the
//! golden suite there (benches/gpu/golden.py, also under
//! `compute-sanitizer`). Inputs come from the emulator build, so script
//! inputs (`input { f x }`) work; cases with no interpreter outcome
//! (`compiled` cases) are not exported. `ARRC_TEST_EXPORT_TARGET=nvptx-emu`
//! exports emulator builds instead (to check the runner without a GPU).

use super::pipeline::{self, Options};
use super::test_runner::Outcome;
use crate::codegen::Target;
use crate::runtime::value;
use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) struct Export {
    dir: PathBuf,
    target: Target,
    manifest: std::fs::File,
    cases: usize,
}

impl Export {
    /// The export `ARRC_TEST_EXPORT` asks for, its folders made; an error
    /// when they cannot be.
    pub(crate) fn from_env() -> Result<Option<Export>, String> {
        let Some(dir) = std::env::var_os("ARRC_TEST_EXPORT") else {
            return Ok(None);
        };
        let dir = PathBuf::from(dir);
        let target = match std::env::var("ARRC_TEST_EXPORT_TARGET").as_deref() {
            Err(_) | Ok("nvptx") => Target::NvPtx,
            Ok("nvptx-emu") => Target::NvPtxEmu,
            Ok(other) => return Err(format!("unknown ARRC_TEST_EXPORT_TARGET `{other}`")),
        };
        let make = |d: &Path| {
            std::fs::create_dir_all(d).map_err(|e| format!("cannot make `{}`: {e}", d.display()))
        };
        make(&dir.join("bin"))?;
        make(&dir.join("cases"))?;
        let path = dir.join("cases.jsonl");
        let manifest = std::fs::File::create(&path)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        Ok(Some(Export {
            dir,
            target,
            manifest,
            cases: 0,
        }))
    }

    /// Builds `file` for the export's target into `bin/`; returns its name
    /// there (the source path with `/` as `_`).
    pub(crate) fn program(&mut self, file: &Path, options: &Options) -> Result<String, String> {
        let name: String = file
            .to_string_lossy()
            .trim_start_matches("./")
            .trim_end_matches(".arr")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut o = options.clone();
        o.codegen.target = self.target;
        pipeline::build_executable(file, &o, &self.dir.join("bin").join(&name))
            .map_err(|f| format!("export: build failed: {}", f.render()))?;
        Ok(name)
    }

    /// One case: its input and the interpreter's outcome, and its line in
    /// the manifest (`exact`: floats must agree bit for bit).
    pub(crate) fn case(
        &mut self,
        exe: &str,
        what: &str,
        entry: &str,
        input: &[u8],
        expected: &Outcome,
        exact: bool,
    ) -> Result<(), String> {
        let id = self.cases;
        self.cases += 1;
        let write = |name: String, bytes: &[u8]| {
            let path = self.dir.join("cases").join(&name);
            std::fs::write(&path, bytes)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
                .map(|()| format!("cases/{name}"))
        };
        let input = write(format!("{id}.in"), input)?;
        let (output, error) = match expected {
            Outcome::Values(values) => {
                let mut bytes = Vec::new();
                for v in values {
                    value::write_binary(v, &mut bytes);
                }
                (Some(write(format!("{id}.out"), &bytes)?), None)
            }
            Outcome::Failed(message) => (None, Some(message.clone())),
        };
        let line = serde_json::json!({
            "case": what, "exe": format!("bin/{exe}"), "entry": entry, "input": input,
            "output": output, "error": error, "exact": exact,
        });
        writeln!(self.manifest, "{line}").map_err(|e| format!("cannot write the manifest: {e}"))
    }
}
