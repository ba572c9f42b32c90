//! Compatibility of arrc's value formats with a reader and writer nobody
//! here wrote: the `futhark_data` Python package (`pip install futhark-data
//! numpy`). Python writes arguments of every element type and several ranks
//! (binary, with some scalars as text in between); a compiled program and
//! `arrc run` read them; the program's `-b` output is read back by Python
//! and compared with results numpy computed, in type, shape and bits; its
//! text output is read back too (values futhark_data's text reader knows).
//!
//! Fails when `python3 -c "import futhark_data, numpy"` does: tests/deps.sh
//! installs both, and a test that cannot run must not pass.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const PROGRAM: &str = "\
-- Every element type, ranks 0 to 3, empty arrays; see compat.py.
entry all (a: [][]f32) (b: []i64) (c: bool) (d: [][][]u8) (e: i16) (f: []f64)
          (g: [][]i8) (h: []u64) (k: [][][]i32) (l: u16) (m: []u32) (n: [][]bool)
          (x: f32) (y: u8) (z: []f16) (w: f16)
        : ([][]f32, []i64, bool, [][][]u8, i16, []f64, [][]i8, []u64, [][][]i32,
           u16, []u32, [][]bool, f32, u8, []f16, f16) =
  ( map (\\r -> map (\\v -> v * 2) r) a, map (+ 1) b, !c, d, e + 1, f, g
  , map (* 3) h, k, l, m, n, x * 2, y + 100, map (* 2) z, w + 1 )

entry finite (a: [][]f32) (b: []i64) (k: [][][]i32) (x: f64) (t: [][]bool) (h: []f16)
           : ([][]f32, []i64, [][][]i32, f64, [][]bool, []f16) =
  (a, b, k, x, t, h)
";

fn script() -> String {
    format!(
        "{}/tests/futhark_data/compat.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn futhark_data_available() -> bool {
    Command::new("python3")
        .args(["-c", "import futhark_data, numpy"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run(cmd: &mut Command, stdin: &Path) -> Output {
    let input = std::fs::File::open(stdin).expect("input file");
    let out = cmd
        .stdin(input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("spawn");
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn python(mode: &str, dir: &Path) {
    let out = Command::new("python3")
        .arg(script())
        .arg(mode)
        .arg(dir)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "compat.py {mode}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn futhark_data_reads_and_writes_our_values() {
    assert!(
        futhark_data_available(),
        "`python3 -c 'import futhark_data, numpy'` fails: run tests/deps.sh \
         (pip install futhark-data numpy)"
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let prog = dir.join("compat.arr");
    std::fs::write(&prog, PROGRAM).unwrap();
    python("write", dir);

    let exe = dir.join("compat");
    let build = Command::new(env!("CARGO_BIN_EXE_arrc"))
        .arg("build")
        .arg(&prog)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("arrc build");
    assert!(
        build.status.success(),
        "arrc build: {}",
        String::from_utf8_lossy(&build.stderr)
    );

    for entry in ["all", "finite"] {
        let input = dir.join(format!("{entry}.in"));
        let compiled = run(Command::new(&exe).args(["-e", entry]), &input);
        let interpreted = run(
            Command::new(env!("CARGO_BIN_EXE_arrc"))
                .arg("run")
                .arg(&prog)
                .args(["-e", entry]),
            &input,
        );
        assert_eq!(
            String::from_utf8_lossy(&compiled.stdout),
            String::from_utf8_lossy(&interpreted.stdout),
            "entry {entry}: the compiled program and the interpreter print differently"
        );
        std::fs::write(dir.join(format!("{entry}.out")), &compiled.stdout).unwrap();
    }
    let binary = run(
        Command::new(&exe).args(["-e", "all", "-b"]),
        &dir.join("all.in"),
    );
    std::fs::write(dir.join("all.out"), &binary.stdout).unwrap();
    python("check", dir);
    // The format has one spelling per value: futhark_data's bytes exactly.
    let expected = std::fs::read(dir.join("all.expected")).unwrap();
    assert!(
        binary.stdout == expected,
        "-b output differs from futhark_data's encoding of the same values"
    );
}
