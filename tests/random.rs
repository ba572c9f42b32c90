//! The random differential tester (`arrc random`, src/testgen) on a fixed
//! range of seeds: each generated program runs on the interpreter and as
//! binaries at `-O0` and `-O3` under every fusion strategy, on 1, 2 and 7
//! threads, with and without `ARRC_GRAIN=1`, and (fewer seeds) on the GPU
//! emulator; every outcome must agree.
//! A failure prints the shrunk program and the commands that show it.
//! `arrc random --seconds N` runs longer by hand.

use std::process::Command;

/// Runs `arrc random` on seeds `1..=count` with `extra` options and checks
/// its summary: nothing failed, few skipped.
fn sweep(count: usize, extra: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_arrc"))
        .args([
            "random",
            "--seed",
            "1",
            "--jobs",
            "2",
            "--shrink-seconds",
            "60",
        ])
        .args(["--count", &count.to_string()])
        .args(extra)
        .output()
        .expect("run arrc random");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    let summary = stdout.lines().last().unwrap_or("");
    let numbers: Vec<usize> = summary
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(out.status.success(), "random testing failed: {summary}");
    let [passed, failed, skipped] = numbers[..] else {
        panic!("no summary line: {summary}");
    };
    assert_eq!(failed, 0);
    assert_eq!(passed + skipped, count, "{summary}");
    // The generator makes well-typed programs: a few skipped (an
    // interpreter time-out) at most.
    assert!(
        skipped * 10 <= count,
        "{skipped} of {count} programs skipped"
    );
}

#[test]
fn random_programs_agree_across_backends() {
    // The count keeps this test to a few minutes.
    sweep(40, &["--target", "x86_64"]);
}

/// The GPU kernels on the emulator, on 1 and 3 workers with and without
/// shrunk launches: fewer seeds and configurations, since an emulator
/// build compiles its kernels with a C compiler.
#[test]
fn random_programs_agree_on_the_gpu_emulator() {
    sweep(
        12,
        &[
            "--target",
            "nvptx-emu",
            "--opt",
            "3",
            "--fusion",
            "ilp,none",
        ],
    );
}

/// The shape of `arrc random --chunks`.
fn chunks() -> arrc::testgen::stms::Shape {
    arrc::testgen::stms::Shape {
        chunks: true,
        ..Default::default()
    }
}

/// `--chunks` makes each of its shapes: scans and histograms of rows of
/// integer and float elements of 8 to 64 bits, argmax by `||` and by
/// nested `if`s, rotations by negative amounts, past the length and by
/// `i64`'s extremes, vector-matrix products down `transpose`, and chains
/// of at least 8 maps.
#[test]
fn chunk_shapes_are_generated() {
    let sources: Vec<String> = (5000..5050u64)
        .map(|seed| arrc::testgen::stms::generate_with(seed, chunks()).source())
        .collect();
    let lines: Vec<&str> = sources.iter().flat_map(|s| s.lines()).collect();
    let with =
        |what: &str| -> Vec<&str> { lines.iter().copied().filter(|l| l.contains(what)).collect() };
    let scans = with("in let s");
    let hists: Vec<&str> = with(" (replicate w")
        .into_iter()
        .filter(|l| l.contains("hist (") || l.contains("reduce_by_index dst"))
        .collect();
    // Elements of at least three of the four widths, floats among them.
    let widths = [
        &["i8.i64", "u8.i64"][..],
        &["i16.i64", "u16.i64"],
        &["i32.i64", "u32.i64", "f32.i64"],
        &["i64.i64", "u64.i64", "f64.i64"],
    ];
    for (what, found) in [("row scans", &scans), ("row histograms", &hists)] {
        let has = |elem: &str| found.iter().any(|l| l.contains(elem));
        let count = widths
            .iter()
            .filter(|names| names.iter().any(|n| has(n)))
            .count();
        assert!(count >= 3, "{what} of {count} widths only");
        assert!(has("f32.i64") || has("f64.i64"), "no {what} of floats");
    }
    for (what, text) in [
        ("a row scan by map2", "= scan (map2 "),
        ("a row scan by a lambda", "= scan (\\a"),
        ("a hist of rows", "in hist (map2 "),
        ("a reduce_by_index of rows", "in reduce_by_index dst"),
        ("argmax by ||", ") || ("),
        ("argmax by nested ifs", ") else if "),
        ("argmax tie first", "then (if "),
        ("a negative rotation", "rotate (-"),
        ("a rotation past the length", "rotate (length "),
        ("a rotation by i64.highest", "rotate i64.highest"),
        ("a rotation by i64.lowest", "rotate i64.lowest"),
        ("a vector-matrix product", ")) (transpose a"),
        ("a vector-matrix product by indices", "] * a"),
    ] {
        assert!(!with(text).is_empty(), "no {what} ({text})");
    }
    assert!(
        lines.iter().any(|l| l.matches(" in let c").count() >= 8),
        "no chain of 8 maps"
    );
}

/// The shape of `arrc random --cuts`.
fn cuts() -> arrc::testgen::stms::Shape {
    arrc::testgen::stms::Shape {
        cuts: true,
        ..Default::default()
    }
}

/// `--cuts` makes each of its shapes: reads wrapped up and down at the
/// length, guarded on both sides, two tests in one body, rotations;
/// scatters over `++` of up to five parts; histograms of rows with each
/// atomic operator over many bins; `==` and `!=` on arrays of pairs,
/// records and rows.
#[test]
fn cut_shapes_are_generated() {
    let sources: Vec<String> = (6000..6050u64)
        .map(|seed| arrc::testgen::stms::generate_with(seed, cuts()).source())
        .collect();
    let lines: Vec<&str> = sources.iter().flat_map(|s| s.lines()).collect();
    let with =
        |what: &str| -> Vec<&str> { lines.iter().copied().filter(|l| l.contains(what)).collect() };
    for (what, text) in [
        ("a wrap up", "then xs"),
        ("a wrap up by j - n", "[j"),
        ("a guard on both sides", " || "),
        ("a shift past the length", " + (n"),
        ("a shift by i64.lowest", "+ i64.lowest"),
        ("a rotation", "(rotate "),
        ("a scatter chain", ") ++ (map2 (\\x"),
        ("a hist of rows", " in hist ("),
        ("a reduce_by_index of rows", " in reduce_by_index dst"),
        ("array equality", " == "),
        ("array inequality", " != "),
        ("equality of records", "{x"),
    ] {
        assert!(!with(text).is_empty(), "no {what} ({text})");
    }
    let ops = [
        "(map2 (&))",
        "(map2 (|))",
        "(map2 (^))",
        ".min) (replicate w",
    ];
    let found = ops.iter().filter(|op| !with(op).is_empty()).count();
    assert!(found >= 3, "atomic operators of rows: {found} of {ops:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("scatter d") && l.matches(") ++ (map2").count() >= 6),
        "no scatter of four parts"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("= 2000i64 in") || l.contains("= 3000i64 in")),
        "no histogram of 2,000 bins or more"
    );
}

/// The shape of `arrc random --wraps`.
fn wraps() -> arrc::testgen::stms::Shape {
    arrc::testgen::stms::Shape {
        wraps: true,
        ..Default::default()
    }
}

/// `--wraps` makes each of its shapes: `for` loops over a stencil's
/// rotations and over a matrix of copies, `(i + c) % n` and `(i + n - 1) %
/// n` reads, flattened nests unflattened again, reductions down columns,
/// scans of long rows, of pairs and after a row's maximum.
#[test]
fn wrap_shapes_are_generated() {
    let sources: Vec<String> = (7000..7050u64)
        .map(|seed| arrc::testgen::stms::generate_with(seed, wraps()).source())
        .collect();
    let lines: Vec<&str> = sources.iter().flat_map(|s| s.lines()).collect();
    let with =
        |what: &str| -> Vec<&str> { lines.iter().copied().filter(|l| l.contains(what)).collect() };
    for (what, text) in [
        ("a borrowing loop", " do map3 (\\c"),
        ("a loop over copied rows", " = replicate "),
        ("a wrap by one", " + 1) % n"),
        ("a wrap down", " + n"),
        ("a flattened nest", "flatten (map (\\a"),
        ("a flattened nest unflattened", "(unflatten (length xs"),
        ("a reduction down columns", ") (transpose a"),
        ("a scan of 5,000 columns", "5000i64"),
        ("a scan of pairs", "(a1 * a2, b1 * a2 + b2)"),
        ("a scan after a maximum", ".lowest row"),
        ("a gather before a scan", "(iota 10)["),
    ] {
        assert!(!with(text).is_empty(), "no {what} ({text})");
    }
}

/// The generator is deterministic and its programs type-check, those of
/// `--rewrites` (most statements shaped for the newest rewrites) and
/// `--nests` (flat indices, mapped products, failing reductions) and
/// `--idioms` (compactions by scan and scatter, scatters over `++`, pair
/// reductions, `||` stencils) too.
#[test]
fn generated_programs_type_check() {
    let dir = tempfile::tempdir().unwrap();
    let mut bad = Vec::new();
    let rewrites = arrc::testgen::stms::Shape {
        rewrites: true,
        ..Default::default()
    };
    let nests = arrc::testgen::stms::Shape {
        nests: true,
        ..Default::default()
    };
    let idioms = arrc::testgen::stms::Shape {
        idioms: true,
        ..Default::default()
    };
    let shapes = (1000..1100u64)
        .map(|seed| (seed, Default::default()))
        .chain((2000..2050u64).map(|seed| (seed, rewrites)))
        .chain((3000..3050u64).map(|seed| (seed, nests)))
        .chain((4000..4050u64).map(|seed| (seed, idioms)))
        .chain((5000..5050u64).map(|seed| (seed, chunks())))
        .chain((6000..6050u64).map(|seed| (seed, cuts())))
        .chain((7000..7050u64).map(|seed| (seed, wraps())));
    for (seed, shape) in shapes {
        let prog = arrc::testgen::stms::generate_with(seed, shape);
        let again = arrc::testgen::stms::generate_with(seed, shape);
        assert_eq!(prog.source(), again.source(), "seed {seed}");
        let path = dir.path().join(format!("p{seed}.arr"));
        std::fs::write(&path, prog.source()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_arrc"))
            .arg("check")
            .arg(&path)
            .output()
            .unwrap();
        if !out.status.success() {
            bad.push(format!(
                "seed {seed}:\n{}{}",
                prog.source(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A reader that stops early (`arrc random --print | grep -q x`) closes
/// the pipe: the command ends quietly with exit 0, in `--print` and in a
/// campaign, not as an internal error.
#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    for args in [
        &["random", "--print", "--seed", "7"][..],
        // A campaign of no programs prints its summary line alone.
        &["random", "--count", "0"][..],
    ] {
        // The read end is closed before the command starts, so its first
        // write fails whatever the timing.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_arrc"))
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("run arrc random");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}
