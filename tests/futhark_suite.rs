//! tests/futhark-suite.sh (tests/futhark_suite.py) on a made-up miniature
//! of Futhark's checkouts: each kind of file lands in its column, and the
//! benchmark programs are type-checked and run on made-up inputs.

use std::path::Path;
use std::process::Command;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn suite_script_sorts_files_into_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    let futhark = dir.path().join("futhark");
    let tests = "tests/soacs";
    write(
        &futhark,
        &format!("{tests}/pass.fut"),
        "-- ==\n-- input { [1, 2] } output { 3 }\ndef main (xs: []i32) = reduce (+) 0 xs\n",
    );
    write(
        &futhark,
        &format!("{tests}/fail.fut"),
        "-- ==\n-- input { [1, 2] } output { 4 }\ndef main (xs: []i32) = reduce (+) 0 xs\n",
    );
    write(
        &futhark,
        &format!("{tests}/reject.fut"),
        "-- ==\n-- input { 1 } output { 1 }\ndef main (x: i32) = nosuch x\n",
    );
    write(
        &futhark,
        &format!("{tests}/err.fut"),
        "-- ==\n-- error: .*\ndef main (x: i32) = nosuch x\n",
    );
    write(
        &futhark,
        &format!("{tests}/sub/lib.fut"),
        "def helper (x: i32) = x\n",
    );
    let bench = dir.path().join("benchmarks");
    write(
        &bench,
        "small/ok.fut",
        "-- ==\n-- input @ data/missing.in\nentry main (xs: []f32) (n: i64) = map (* f32.i64 n) xs\n",
    );
    write(&bench, "small/bad.fut", "entry main (x: i32) = nosuch x\n");
    write(&bench, "small/lib/skip.fut", "this is not even Arr\n");
    let json = dir.path().join("out.json");
    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/futhark_suite.py"
        ))
        .arg(&futhark)
        .arg("--benchmarks")
        .arg(&bench)
        .args(["--folders", "soacs", "--jobs", "1", "--arrc"])
        .arg(env!("CARGO_BIN_EXE_arrc"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // runnable, passed, failed, rejected, compile-error tests, others
    assert!(
        stdout.contains("| soacs | 3 | 1 | 1 | 1 | 1/1 | 1 |"),
        "{stdout}"
    );
    assert!(stdout.contains("unknown name `nosuch`"), "{stdout}");
    assert!(
        stdout.contains("1 of 2 programs type-check (50%)."),
        "{stdout}"
    );
    assert!(stdout.contains("1 agree"), "{stdout}");
    let detail: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(detail["tests"].as_array().map(Vec::len), Some(5));
}
