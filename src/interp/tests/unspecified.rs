//! The checking mode on small programs: each construct whose result the
//! contract leaves open is reported with its location, and the same
//! program with a determined result is not.

use super::*;
use crate::driver::pipeline;

/// Runs `main` of `source` on `input` (text values) in mode `check`: its
/// results as text, or the error's message.
fn checked(source: &str, input: &str, check: CheckMode) -> Result<Vec<String>, String> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("prog.arr");
    std::fs::write(&path, source).expect("write the program");
    let program = pipeline::lowered(&path).unwrap_or_else(|f| panic!("{}", f.render()));
    let main = program.entries.iter().find(|f| f.name == "main");
    let types: Vec<Type> = main.expect("main").params.iter().map(|p| p.ty).collect();
    let args = read_values(input.as_bytes(), &types).expect("input");
    run_entry_checked(&program, "main", args, check)
        .map(|vs| vs.iter().map(crate::runtime::value::write_text).collect())
        .map_err(|e| match e {
            RunError::Unspecified(m) => m.replace(&path.display().to_string(), "prog.arr"),
            other => format!("not unspecified: {other}"),
        })
}

fn reported(source: &str, input: &str) -> String {
    checked(source, input, CheckMode::On).expect_err("reported")
}

fn passes(source: &str, input: &str, check: CheckMode) {
    if let Err(e) = checked(source, input, check) {
        panic!("{e}");
    }
}

const SCATTER: &str = "entry main (is: []i64) (vs: []i32) : []i32 = scatter (replicate 3 0) is vs";

#[test]
fn a_scatter_writing_two_values_to_one_index() {
    let message = reported(SCATTER, "[2, 0, 2] [7, 8, 9]");
    assert_eq!(
        message,
        "this scatter writes two different values to index 2: 7i32 and 9i32 \
         (of which any one is stored) at prog.arr:1:46"
    );
    // Equal values, and duplicates out of range, are determined.
    passes(SCATTER, "[2, 0, 2] [7, 8, 7]", CheckMode::On);
    passes(SCATTER, "[5, 5, -1, -1] [1, 2, 3, 4]", CheckMode::On);
    // Off, the interpreter stores the later value.
    assert_eq!(
        checked(SCATTER, "[2, 0, 2] [7, 8, 9]", CheckMode::Off).unwrap(),
        ["[8i32, 0i32, 9i32]"]
    );
}

#[test]
fn a_scatter_of_rows_compares_whole_rows() {
    let rows = "entry main (is: []i64) (vs: [][2]f32) : [][2]f32 = \
                scatter (replicate 2 [0f32, 0f32]) is vs";
    passes(rows, "[1, 1] [[1f32, -0f32], [1f32, 0f32]]", CheckMode::On);
    passes(
        rows,
        "[1, 1] [[f32.nan, 2f32], [f32.nan, 2f32]]",
        CheckMode::On,
    );
    assert!(reported(rows, "[1, 1] [[1f32, 2f32], [1f32, 3f32]]").contains("index 1"));
}

#[test]
fn a_neutral_element_that_is_not_neutral_for_the_running_value() {
    let sum = "entry main (xs: []i32) : i32 = reduce (+) 1 xs";
    assert!(reported(sum, "[1, 2]").starts_with(
        "the neutral element 1i32 of this reduce is not neutral for the running value"
    ));
    let scan = "entry main (xs: []i32) : []i32 = scan (+) 1 xs";
    assert!(reported(scan, "[1, 2]").contains("of this scan"));
    let scanr = "entry main (xs: []i32) : []i32 = scanr (+) 1 xs";
    assert!(reported(scanr, "[1, 2]").contains("op 1i32 "));
    // Even no element: parallel code may combine the neutral element with
    // itself.
    assert!(reported(sum, "empty([0]i32)").contains("op 1i32 1i32 is 2i32"));
}

#[test]
fn a_neutral_element_that_skips_elements_passes_but_in_the_strict_mode() {
    // `f64.max` skips NaN, and the running value never is one.
    let max = "entry main (xs: []f64) : f64 = f64.maximum xs";
    passes(max, "[f64.nan, 1.0, f64.nan]", CheckMode::On);
    let strict = checked(max, "[f64.nan, 1.0]", CheckMode::Strict).unwrap_err();
    assert!(
        strict.contains("op -f64.inf f64.nan is -f64.inf, not f64.nan"),
        "{strict}"
    );
    let clamped = "entry main (xs: []i32) : i32 = reduce i32.max 0 xs";
    passes(clamped, "[-3, 2, -1]", CheckMode::On);
    assert!(checked(clamped, "[-3, 2, -1]", CheckMode::Strict).is_err());
}

#[test]
fn an_integer_operator_that_is_not_associative() {
    let minus = "entry main (xs: []i32) : i32 = reduce (-) 0 xs";
    assert!(reported(minus, "[5, 3, 1]").contains(
        "the operator of this reduce is not associative: on 5i32, 3i32, 1i32 it gives 1i32 \
         grouped to the left and 3i32 to the right"
    ));
    // Floats reassociate within the tolerance.
    passes(
        "entry main (xs: []f32) : f32 = reduce (-) 0 xs",
        "[5f32, 3f32, 1f32]",
        CheckMode::On,
    );
}

#[test]
fn a_histogram_operator_that_does_not_commute() {
    // The last non-zero value: 0 is neutral, but the order matters.
    let last = "entry main (is: []i64) (vs: []i32) : []i32 = \
                reduce_by_index (replicate 2 0) (\\a b -> if b == 0 then a else b) 0 is vs";
    assert!(reported(last, "[0, 0] [4, 5]").contains("op 4i32 5i32 is 5i32, op 5i32 4i32 is 4i32"));
    passes(last, "[0, 1] [4, 5]", CheckMode::On);
    // The destination's values are running values too.
    let add = "entry main (d: []i32) (is: []i64) (vs: []i32) : []i32 = \
               reduce_by_index d (+) 1 is vs";
    assert!(reported(add, "[3, 4] [1] [2]").contains("op 3i32 1i32 is 4i32"));
    passes(
        "entry main (d: []i32) (is: []i64) (vs: []i32) : []i32 = reduce_by_index d (+) 0 is vs",
        "[3, 4] [1, 1, 7] [2, 5, 6]",
        CheckMode::On,
    );
}

#[test]
fn the_bits_of_a_computed_nan() {
    let bits = "entry main (x: f32) : u32 = f32.to_bits (x / x)";
    assert!(reported(bits, "0f32").starts_with("to_bits of a NaN"));
    passes(bits, "2f32", CheckMode::On);
    let sign = "entry main (x: f64) : f64 = f64.copysign 1.0 (x / x)";
    assert!(reported(sign, "0.0").starts_with("copysign takes the sign of a NaN"));
}
