//! How the pass list (`pipeline`) runs a pass: timed for `--time-passes`,
//! its IR printed for `--dump-after`, and the IR verified after it (the
//! core and loopy verifiers) in tests and debug builds. A verifier that
//! fails is an internal compiler error, as is any other broken invariant.

use crate::syntax::{Diagnostic, SourceMap};
use crate::{codegen, core, fusion, loopy};
use std::time::{Duration, Instant};

/// Why a compilation stopped.
#[derive(Debug)]
pub enum Failure {
    /// User mistakes in the program, with their sources for rendering.
    Diagnostics(Box<SourceMap>, Vec<Diagnostic>),
    /// A file could not be read, or a stage refused the program: one line.
    Message(String),
    /// A bad command line (an unknown pass name): one line, exit 2.
    Usage(String),
    /// A bug in arrc: a broken invariant, a failed verifier, a panic.
    Internal(String),
}

impl Failure {
    /// The text to print on standard error.
    pub fn render(&self) -> String {
        match self {
            Failure::Diagnostics(sources, diags) => {
                diags.iter().map(|d| d.render(sources)).collect::<String>()
            }
            Failure::Message(msg) | Failure::Usage(msg) => format!("Error: {msg}\n"),
            Failure::Internal(msg) => format!("internal compiler error: {msg}\n"),
        }
    }

    /// The exit code of LANGUAGE.md section 9.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Diagnostics(..) | Failure::Message(_) => 1,
            Failure::Usage(_) => 2,
            Failure::Internal(_) => 70,
        }
    }
}

impl From<codegen::CodegenError> for Failure {
    fn from(e: codegen::CodegenError) -> Self {
        match e {
            codegen::CodegenError::Internal(msg) => Failure::Internal(msg),
            codegen::CodegenError::Refused(msg) => Failure::Message(msg),
        }
    }
}

/// An intermediate representation a pass gives: printed by `--dump-after`
/// and checked by its verifier.
pub trait Ir {
    fn print(&self) -> String;
    fn verify(&self) -> Result<(), String>;
}

impl Ir for core::ir::Program {
    fn print(&self) -> String {
        core::print::print_program(self)
    }
    fn verify(&self) -> Result<(), String> {
        core::check::check(self)
    }
}

impl Ir for fusion::ast::FusedProgram {
    fn print(&self) -> String {
        fusion::print::print_program(self)
    }
    fn verify(&self) -> Result<(), String> {
        fusion::check::check(self)
    }
}

impl Ir for loopy::ir::Program {
    fn print(&self) -> String {
        loopy::print::print_program(self)
    }
    fn verify(&self) -> Result<(), String> {
        loopy::check(self)
    }
}

impl Ir for codegen::LlvmModule<'_> {
    fn print(&self) -> String {
        codegen::LlvmModule::print(self)
    }
    fn verify(&self) -> Result<(), String> {
        codegen::LlvmModule::verify(self)
    }
}

/// What the passes of one compilation did.
pub struct Session {
    /// Verify the IR after every pass.
    verify: bool,
    dump_after: Option<String>,
    /// The IR after the last run of the pass named by `dump_after`.
    dump: Option<String>,
    /// Per pass in the order first run: its name, whether it gives an IR,
    /// its runs and their total time.
    passes: Vec<(&'static str, bool, usize, Duration)>,
}

impl Session {
    /// Verifying in debug builds and in tests (`ARRC_VERIFY=1`).
    pub fn new(dump_after: Option<String>) -> Session {
        Session {
            verify: cfg!(debug_assertions) || std::env::var_os("ARRC_VERIFY").is_some(),
            dump_after,
            dump: None,
            passes: Vec::new(),
        }
    }

    /// A session for a second compilation inside this one (the exact-errors
    /// fallback): verifying as this one does, dumping nothing.
    pub fn quiet(&self) -> Session {
        Session {
            verify: self.verify,
            dump_after: None,
            dump: None,
            passes: Vec::new(),
        }
    }

    fn record(&mut self, name: &'static str, gives_ir: bool, time: Duration) {
        match self.passes.iter_mut().find(|p| p.0 == name) {
            Some(pass) => {
                pass.2 += 1;
                pass.3 += time;
            }
            None => self.passes.push((name, gives_ir, 1, time)),
        }
    }

    /// A step whose result is no IR of ours (parsing, linking).
    pub fn step<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let start = Instant::now();
        let result = f();
        self.record(name, false, start.elapsed());
        result
    }

    /// A pass that makes a new IR.
    pub fn pass<T: Ir>(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let start = Instant::now();
        let ir = f()?;
        self.record(name, true, start.elapsed());
        self.after(name, &ir)?;
        Ok(ir)
    }

    /// A pass that rewrites `ir` in place; gives what `f` returns.
    pub fn rewrite<T: Ir, R>(
        &mut self,
        name: &'static str,
        ir: &mut T,
        f: impl FnOnce(&mut T) -> Result<R, Failure>,
    ) -> Result<R, Failure> {
        let start = Instant::now();
        let result = f(ir)?;
        self.record(name, true, start.elapsed());
        self.after(name, ir)?;
        Ok(result)
    }

    fn after<T: Ir>(&mut self, name: &str, ir: &T) -> Result<(), Failure> {
        if self.verify {
            ir.verify()
                .map_err(|e| Failure::Internal(format!("after pass `{name}`: {e}")))?;
        }
        if self.dump_after.as_deref() == Some(name) {
            self.dump = Some(ir.print());
        }
        Ok(())
    }

    /// The IR after the pass `--dump-after` names; a usage error naming
    /// the passes that give one when none of that name ran.
    pub fn dumped(&mut self) -> Result<String, Failure> {
        if let Some(text) = self.dump.take() {
            return Ok(text);
        }
        let names: Vec<&str> = self.passes.iter().filter(|p| p.1).map(|p| p.0).collect();
        Err(Failure::Usage(format!(
            "`--dump-after {}`: no pass of that name gives an IR here; the passes are {}",
            self.dump_after.as_deref().unwrap_or(""),
            names.join(", ")
        )))
    }

    /// One line per pass for `--time-passes`, in order, then the total.
    pub fn times(&self) -> String {
        let mut out = String::new();
        let mut total = Duration::ZERO;
        for (name, _, runs, time) in &self.passes {
            total += *time;
            let runs = if *runs > 1 {
                format!(" ({runs} runs)")
            } else {
                String::new()
            };
            out.push_str(&format!(
                "{:>9.1} ms  {name}{runs}\n",
                time.as_secs_f64() * 1e3
            ));
        }
        out.push_str(&format!("{:>9.1} ms  total\n", total.as_secs_f64() * 1e3));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ir::{Atom, Body, Function, Program, Type, VarId};
    use crate::types::ScalarType;

    fn session(dump_after: Option<&str>) -> Session {
        Session {
            verify: true,
            dump_after: dump_after.map(str::to_string),
            dump: None,
            passes: Vec::new(),
        }
    }

    /// An entry returning a variable nothing binds.
    fn broken() -> Program {
        Program {
            files: Vec::new(),
            entries: vec![Function {
                name: "main".to_string(),
                params: Vec::new(),
                size_params: Vec::new(),
                body: Body {
                    stms: Vec::new(),
                    result: vec![Atom::Var(VarId(5))],
                },
                ret: vec![Type::Scalar(ScalarType::I64)],
            }],
        }
    }

    #[test]
    fn a_failing_verifier_is_an_internal_error_with_exit_code_70() {
        let mut s = session(None);
        let failure = s.pass("lower-core", || Ok(broken())).expect_err("refused");
        assert_eq!(failure.exit_code(), 70);
        let text = failure.render();
        assert!(
            text.starts_with("internal compiler error: after pass `lower-core`: core IR"),
            "{text}"
        );
    }

    #[test]
    fn passes_are_timed_in_order_and_dumped_by_name() {
        let mut s = session(Some("second"));
        let mut program = broken();
        program.entries[0].body.result = vec![Atom::Const(crate::types::Const::I64(1))];
        for name in ["first", "second", "second"] {
            s.rewrite(name, &mut program, |_| Ok(())).unwrap();
        }
        let times = s.times();
        let lines: Vec<&str> = times.lines().collect();
        assert!(lines[0].ends_with("  first"), "{times}");
        assert!(lines[1].ends_with("  second (2 runs)"), "{times}");
        assert!(lines[2].ends_with("  total"), "{times}");
        assert!(s.dumped().unwrap().starts_with("entry main"));
        let mut unknown = session(Some("third"));
        unknown.rewrite("first", &mut program, |_| Ok(())).unwrap();
        let failure = unknown.dumped().expect_err("no such pass");
        assert_eq!(failure.exit_code(), 2);
        assert!(failure.render().contains("the passes are first"));
    }
}
