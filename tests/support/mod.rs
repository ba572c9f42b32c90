#![allow(dead_code)] // each test crate uses some of these
//! What the library tests share: running arrc, a command that must
//! succeed, and a Python script.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn arrc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arrc"))
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn python(dir: &Path, script: &str) -> Output {
    Command::new("python3")
        .current_dir(dir)
        .arg("-c")
        .arg(script)
        .output()
        .expect("python3 runs")
}
