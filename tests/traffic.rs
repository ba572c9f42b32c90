//! `arrc build --count-traffic`: the element traffic a binary counts equals
//! what the fusion traffic model (`--emit fusion`) predicts, for the thesis's
//! Figure 12 and for every program in tests/fusion/ under every strategy;
//! counting leaves standard output unchanged.

mod support;

use support::{arrc, root};

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

const STRATEGIES: [&str; 3] = ["none", "greedy", "ilp"];

/// Builds `program` (relative to the crate) into `out`. The fusion model
/// counts the copy of an argument that the executable's entry instead
/// overwrites in place (`loopy::donate`): that is off here, and
/// `an_overwritten_argument_is_not_copied` counts it.
fn build(program: &str, strategy: &str, count: bool, out: &Path) {
    let mut cmd = arrc();
    cmd.current_dir(root())
        .env("ARRC_NO_DONATE", "1")
        .args(["build", "--fusion", strategy, program, "-o"])
        .arg(out);
    if count {
        cmd.arg("--count-traffic");
    }
    let result = cmd.output().unwrap();
    assert!(
        result.status.success(),
        "build {program} --fusion {strategy}: {}",
        String::from_utf8_lossy(&result.stderr)
    );
}

/// Runs a binary on `input`: its standard output and error.
fn run(binary: &Path, input: &str) -> (String, String) {
    let out = support::feed(&mut Command::new(binary), input.as_bytes());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{}: {stderr}", binary.display());
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

/// `(reads, writes)` from the `traffic:` line, which must end standard error.
fn counted(stderr: &str) -> (i64, i64) {
    let line = stderr
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("traffic: "))
        .unwrap_or_else(|| panic!("no traffic line in {stderr:?}"));
    let field = |name: &str| -> i64 {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(name))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no `{name}` in {line:?}"))
    };
    (field("reads="), field("writes="))
}

/// The model's `reads:` and `writes:` formulas of entry `main`.
fn model(program: &str, strategy: &str) -> (String, String) {
    let out = arrc()
        .current_dir(root())
        .args(["build", "--emit", "fusion", "--fusion", strategy, program])
        .output()
        .unwrap();
    assert!(out.status.success(), "{program}");
    let report = String::from_utf8(out.stdout).unwrap();
    let field = |name: &str| {
        report
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .unwrap_or_else(|| panic!("no `{name}` line in\n{report}"))
            .trim()
            .to_string()
    };
    (field("reads:"), field("writes:"))
}

/// Evaluates a formula such as `2*n_xs + n_k*n_xs + 2`; every symbol must be
/// in `sizes`.
fn eval(formula: &str, sizes: &HashMap<String, i64>) -> i64 {
    formula
        .split(" + ")
        .map(|term| {
            term.split('*')
                .map(|factor| {
                    factor.parse::<i64>().unwrap_or_else(|_| {
                        *sizes
                            .get(factor)
                            .unwrap_or_else(|| panic!("unknown size `{factor}` in `{formula}`"))
                    })
                })
                .product::<i64>()
        })
        .sum()
}

/// An input for entry `main` of `source` and the size of each parameter
/// (`n_NAME`, as the model names them, and named dimensions): every array
/// has 1000 elements or rows of 10 (map2 and friends need equal sizes), an
/// `i64` parameter is 1000 and another integer 3 (a loop count); elements are
/// small and nonzero, booleans true.
fn input_for(source: &str) -> (String, HashMap<String, i64>) {
    let header = source
        .lines()
        .find(|l| l.starts_with("entry main"))
        .expect("an entry main");
    let params = header
        .split(')')
        .filter_map(|p| p.split_once('(').map(|(_, p)| p))
        .filter_map(|p| p.split_once(':'))
        .map(|(name, ty)| (name.trim().to_string(), ty.trim().to_string()));
    let mut input = Vec::new();
    let mut sizes = HashMap::new();
    let n = 1000;
    for (name, ty) in params {
        let elem = |i: i64, t: &str| match t {
            "bool" => "true".to_string(),
            "f32" | "f64" => format!("{}.0{t}", i % 7 + 1),
            _ => format!("{}{t}", i % 7 + 1),
        };
        // `[]f32` has one unnamed dimension, `[n][m]i32` two named ones;
        // inner dimensions have 10 elements.
        let mut dims: Vec<&str> = Vec::new();
        let mut elem_ty = ty.as_str();
        while let Some((dim, rest)) = elem_ty.strip_prefix('[').and_then(|r| r.split_once(']')) {
            dims.push(dim);
            elem_ty = rest;
        }
        let extent = |d: usize| if d == 0 { n } else { 10 };
        fn nested(
            depth: usize,
            dims: usize,
            extent: &dyn Fn(usize) -> i64,
            leaf: &dyn Fn(i64) -> String,
        ) -> String {
            let items: Vec<String> = (0..extent(depth))
                .map(|i| {
                    if depth + 1 == dims {
                        leaf(i)
                    } else {
                        nested(depth + 1, dims, extent, leaf)
                    }
                })
                .collect();
            format!("[{}]", items.join(", "))
        }
        for (d, dim) in dims.iter().enumerate() {
            if !dim.is_empty() {
                sizes.insert(dim.to_string(), extent(d));
            }
        }
        match dims.len() {
            0 => {}
            k => {
                input.push(nested(0, k, &extent, &|i| elem(i, elem_ty)));
                sizes.insert(format!("n_{name}"), n);
                continue;
            }
        }
        match () {
            _ if ty == "i64" => input.push(format!("{n}i64")),
            _ if ["i8", "i16", "i32", "u8", "u16", "u32", "u64"].contains(&ty.as_str()) => {
                input.push(elem(2, &ty));
                sizes.insert(format!("n_{name}"), 3);
                continue;
            }
            _ => input.push(elem(0, &ty)),
        }
        sizes.insert(format!("n_{name}"), n);
    }
    (input.join(" "), sizes)
}

/// The model's and the counted `(reads, writes)` of `program` under
/// `strategy`, checking that counting leaves the results unchanged when
/// `compare_output` is set.
fn model_and_count(
    program: &str,
    strategy: &str,
    compare_output: bool,
) -> ((i64, i64), (i64, i64)) {
    let source = std::fs::read_to_string(root().join(program)).unwrap();
    let (input, sizes) = input_for(&source);
    let dir = tempfile::tempdir().unwrap();
    let counting = dir.path().join("counting");
    build(program, strategy, true, &counting);
    let (stdout, stderr) = run(&counting, &input);
    if compare_output {
        let plain = dir.path().join("plain");
        build(program, strategy, false, &plain);
        let (plain_stdout, plain_stderr) = run(&plain, &input);
        assert_eq!(stdout, plain_stdout, "{program} --fusion {strategy}");
        assert_eq!(
            plain_stderr, "",
            "{program}: no traffic line without counting"
        );
    }
    let (reads, writes) = model(program, strategy);
    (
        (eval(&reads, &sizes), eval(&writes, &sizes)),
        counted(&stderr),
    )
}

/// A scatter into an argument the entry no longer reads writes into the
/// argument itself (`loopy::donate`): the model's copy of `dest` (n reads,
/// n writes) is not made.
#[test]
fn an_overwritten_argument_is_not_copied() {
    let program = "tests/fusion/scan_then_scatter.arr";
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("donating");
    let built = arrc()
        .current_dir(root())
        .args(["build", "--count-traffic", program, "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    let input = "[5i64, 6i64, 7i64, 8i64, 9i64] [0i64, 0i64, 0i64, 0i64, 0i64]";
    let (stdout, stderr) = run(&out, input);
    assert_eq!(stdout, "[9i64, 8i64, 7i64, 6i64, 5i64]\n");
    let (reads, writes) = model(program, "ilp");
    let sizes = HashMap::from([("n".to_string(), 5)]);
    let n = 5;
    assert_eq!(
        counted(&stderr),
        (eval(&reads, &sizes) - n, eval(&writes, &sizes) - n)
    );
}

/// The fused filters whose outputs have data-dependent sizes (left out of
/// `model_equals_count_for_fusion_programs`), counted on an input whose kept
/// counts are known: under `ilp` each is one loop that reads `xs` once and
/// writes only what is kept (and the count), where `none` also writes and
/// re-reads the intermediate arrays.
#[test]
fn fused_filters_write_only_what_they_keep() {
    let n = 1000;
    let xs: Vec<i64> = (0..n).map(|i| i % 11 - 2).collect();
    let input = format!(
        "[{}]",
        xs.iter()
            .map(|x| format!("{x}i32"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let positive = xs.iter().filter(|&&x| x > 0).count() as i64;
    let above_three = xs.iter().filter(|&&x| x - 3 > 0).count() as i64;
    let cases = [
        // filter (> 0) (map (- 3) xs): the kept values.
        (
            "tests/fusion/map_filter.arr",
            (n, above_three),
            (2 * n, n + above_three),
        ),
        // map of the kept elements, returned, and their count.
        (
            "tests/fusion/filter_map_result.arr",
            (n, positive + 1),
            (n + positive, 2 * positive),
        ),
        // the sum of the kept mapped values, and another map of `xs`.
        (
            "tests/fusion/map_filter_reduce.arr",
            (n, n + 2),
            (3 * n + above_three, 2 * n + above_three + 1),
        ),
    ];
    for (program, ilp, none) in cases {
        for (strategy, want) in [("ilp", ilp), ("none", none)] {
            let dir = tempfile::tempdir().unwrap();
            let exe = dir.path().join("counting");
            build(program, strategy, true, &exe);
            let (_, stderr) = run(&exe, &input);
            assert_eq!(counted(&stderr), want, "{program} --fusion {strategy}");
        }
    }
}

/// Fusion through `flatten` and `unflatten` (`fusion::reshape`), counted on
/// 1,000 elements: the flattened map nest fuses with the map after it
/// (written and re-read under `none`); the map before an unflatten fuses
/// with the nest over its rows, which moves no more than before (the
/// result, a view of the flat array, is copied out where the nest wrote
/// it in place).
#[test]
fn reshapes_by_counting() {
    let row = |i: usize| {
        let xs: Vec<String> = (0..25)
            .map(|j| format!("{}i32", (i * 25 + j) % 97))
            .collect();
        format!("[{}]", xs.join(", "))
    };
    let matrix = format!("[{}]", (0..40).map(row).collect::<Vec<_>>().join(", "));
    let vector = format!(
        "[{}]",
        (0..1000)
            .map(|i| format!("{}i32", i % 97))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let cases = [
        (
            "tests/fusion/flatten_map.arr",
            &matrix,
            [(2000, 2000), (1000, 1000), (1000, 1000)],
        ),
        (
            "tests/fusion/unflatten_map.arr",
            &vector,
            [(2000, 2000), (2000, 2000), (2000, 2000)],
        ),
    ];
    for (program, input, expected) in cases {
        for (strategy, want) in STRATEGIES.into_iter().zip(expected) {
            let dir = tempfile::tempdir().unwrap();
            let exe = dir.path().join("counting");
            build(program, strategy, true, &exe);
            let (_, stderr) = run(&exe, input);
            assert_eq!(counted(&stderr), want, "{program} --fusion {strategy}");
        }
    }
}

/// Two rows per element flattened into a scatter (`fusion::flat_rows`,
/// Futhark's `WithAccs/issue2452`), 40 rows of 25 into 1,000 bins, every
/// index in range and distinct: under `greedy` and `ilp` one loop reads the
/// matrix and writes the scattered elements; under `none` both rows are
/// written and read again. Each also copies the destination (1,000 each
/// way: `build` turns `loopy::donate` off).
#[test]
fn flattened_rows_into_scatter_by_counting() {
    let row = |i: usize| {
        let xs: Vec<String> = (0..25)
            .map(|j| format!("{}i32", (i * 25 + j * 7) % 1000))
            .collect();
        format!("[{}]", xs.join(", "))
    };
    let matrix = format!("[{}]", (0..40).map(row).collect::<Vec<_>>().join(", "));
    let input = format!("{matrix} [{}]", vec!["0i32"; 1000].join(", "));
    let program = "tests/fusion/flat_rows_scatter.arr";
    for (strategy, want) in STRATEGIES
        .into_iter()
        .zip([(5000, 4000), (2000, 2000), (2000, 2000)])
    {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("counting");
        build(program, strategy, true, &exe);
        let (_, stderr) = run(&exe, &input);
        assert_eq!(counted(&stderr), want, "{program} --fusion {strategy}");
    }
}

/// Futhark's `horizontal-fusion-shared-input` (its entry's types inferred,
/// and its matrices' shapes chained, `W`'s columns `A`'s rows, so the input
/// above cannot be built for it): model and count agree under every
/// strategy for `W` of 6 x 4 and `A`, `WH` of 4 x 5.
#[test]
fn shared_free_row_model_equals_count() {
    let matrix = |rows: i64, cols: i64, offset: i64| {
        let row = |i: i64| {
            let xs: Vec<String> = (0..cols)
                .map(|j| format!("{}i32", (i * cols + j + offset) % 7 - 3))
                .collect();
            format!("[{}]", xs.join(", "))
        };
        format!("[{}]", (0..rows).map(row).collect::<Vec<_>>().join(", "))
    };
    let (n, k, m) = (6, 4, 5);
    let input = format!(
        "{} {} {}",
        matrix(n, k, 0),
        matrix(k, m, 1),
        matrix(k, m, 2)
    );
    let sizes: HashMap<String, i64> = [
        ("n_W", n),
        ("n_W_1", k),
        ("n_A", k),
        ("n_A_1", m),
        ("n_WH", k),
        ("n_WH_1", m),
    ]
    .into_iter()
    .map(|(name, size)| (name.to_string(), size))
    .collect();
    let program = "tests/fusion/shared_free_row.arr";
    for strategy in STRATEGIES {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("counting");
        build(program, strategy, true, &exe);
        let (_, stderr) = run(&exe, &input);
        let (reads, writes) = model(program, strategy);
        assert_eq!(
            (eval(&reads, &sizes), eval(&writes, &sizes)),
            counted(&stderr),
            "{program} --fusion {strategy}: model {reads} / {writes}"
        );
    }
}

/// `xss ++ yss` of matrices (40 and 20 rows of 25) is never made: both
/// row maps read the parts' rows in place (1,500 elements each, where
/// copying it moved 1,500 each way more), and under `ilp` they are merged
/// and read each row once.
#[test]
fn concatenated_matrices_by_counting() {
    let matrix = |rows: usize, offset: usize| {
        let row = |i: usize| {
            let xs: Vec<String> = (0..25)
                .map(|j| format!("{}i32", (i * 25 + j + offset) % 97))
                .collect();
            format!("[{}]", xs.join(", "))
        };
        format!("[{}]", (0..rows).map(row).collect::<Vec<_>>().join(", "))
    };
    let input = format!("{} {}", matrix(40, 0), matrix(20, 5));
    let program = "tests/fusion/concat_rows.arr";
    for (strategy, want) in STRATEGIES
        .into_iter()
        .zip([(3000, 120), (3000, 120), (1500, 120)])
    {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("counting");
        build(program, strategy, true, &exe);
        let (_, stderr) = run(&exe, &input);
        assert_eq!(counted(&stderr), want, "{program} --fusion {strategy}");
    }
}

/// Figure 12 of van Balen's thesis by counting, at n = 1000: reads 5n/4n/2n
/// and 6n/5n/2n, writes 3n/2n/2n and 4n/3n/3n for none/greedy/ilp, plus the
/// two reduction results (written once, read once each by the maps). For the
/// extended form arrc recomputes the cheap map in each consumer
/// (`fusion::recompute`), which beats the thesis under greedy (4n reads,
/// 2n writes) and ilp (2n writes).
#[test]
fn figure_12_by_counting() {
    let cases = [
        (
            "examples/normalise2.arr",
            [(5002, 3002), (4002, 2002), (2002, 2002)],
        ),
        (
            "tests/fusion/normalise2_extended.arr",
            [(6002, 4002), (4002, 2002), (2002, 2002)],
        ),
    ];
    for (program, expected) in cases {
        for (strategy, want) in STRATEGIES.into_iter().zip(expected) {
            let (by_model, by_count) = model_and_count(program, strategy, true);
            assert_eq!(by_count, want, "{program} --fusion {strategy}: counted");
            assert_eq!(by_model, want, "{program} --fusion {strategy}: model");
        }
    }
}

/// The examples of issue 21 reach the traffic of their best clustering by
/// counting, at n = 1000: three reads of an input where every strategy read
/// four (a clustering with more levels than the longest path), and `p`
/// written once and read once (reads per cluster, not per edge).
#[test]
fn issue_21_examples_by_counting() {
    let cases = [
        ("tests/fusion/horizontal_levels.arr", (3002, 2002)),
        ("tests/fusion/shared_reads_any_order.arr", (2001, 3001)),
    ];
    for (program, want) in cases {
        let (by_model, by_count) = model_and_count(program, "ilp", false);
        assert_eq!(by_count, want, "{program}: counted");
        assert_eq!(by_model, want, "{program}: model");
    }
}

/// `-r N` reports one run (the last), not the sum of all runs.
#[test]
fn repeated_runs_report_one_run() {
    let program = "examples/normalise2.arr";
    let (input, _) = input_for(&std::fs::read_to_string(root().join(program)).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("counting");
    build(program, "ilp", true, &binary);
    let once = counted(&run(&binary, &input).1);
    let out = support::feed(
        Command::new(&binary).args(["-r", "3", "-n"]),
        input.as_bytes(),
    );
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert_eq!(counted(&String::from_utf8(out.stderr).unwrap()), once);
}

/// Programs whose traffic the model does not describe, under the listed
/// strategies, with the reason.
const NOT_MODELLED: &[(&str, &[&str], &str)] = &[
    (
        "tests/fusion/shared_free_row.arr",
        &["none", "greedy", "ilp"],
        "its entry's types are inferred and its matrices' shapes chained: \
         shared_free_row_model_equals_count builds its input",
    ),
    (
        "tests/fusion/filter_count.arr",
        &["none"],
        "unfused, the filter's output is written and re-read, and its size depends on the data",
    ),
    (
        "tests/fusion/filter_filter.arr",
        &["none", "greedy", "ilp"],
        "a filter's output is a result, and its size depends on the data",
    ),
    (
        "tests/fusion/filter_map_reduce.arr",
        &["none", "greedy"],
        "unfused, the filter's output is written and re-read, and its size depends on the data",
    ),
    (
        "tests/fusion/filter_reduce.arr",
        &["none"],
        "unfused, the filter's output is written and re-read, and its size depends on the data",
    ),
    (
        "tests/fusion/filter_result_used_twice.arr",
        &["none", "greedy", "ilp"],
        "a filter's output is a result, and its size depends on the data",
    ),
    (
        "tests/fusion/filter_map_result.arr",
        &["none", "greedy", "ilp"],
        "a map of a filter's output is a result, and its size depends on the data",
    ),
    (
        "tests/fusion/map_filter.arr",
        &["none", "greedy", "ilp"],
        "a filter's output is a result, and its size depends on the data",
    ),
    (
        "tests/fusion/map_filter_reduce.arr",
        &["none"],
        "unfused, the filter's output is written and re-read, and its size depends on the data",
    ),
    (
        "tests/fusion/concat_map.arr",
        &["none"],
        "unfused, the map over a concatenation writes an array whose size is a sum",
    ),
    (
        "tests/fusion/flatten_map.arr",
        &["none", "greedy", "ilp"],
        "a flattened array's size is a product the model cannot name",
    ),
    (
        "tests/fusion/flat_rows_scatter.arr",
        &["none", "greedy", "ilp"],
        "a flattened array's size is a product the model cannot name (counted in \
         flattened_rows_into_scatter_by_counting)",
    ),
    (
        "tests/fusion/flatten_nest_map.arr",
        &["none", "greedy", "ilp"],
        "a flattened array's size is a product the model cannot name, and the result, a view \
         of the nest, is copied",
    ),
    (
        "tests/fusion/unflatten_map.arr",
        &["none", "greedy", "ilp"],
        "an unflattened size is a quotient the model cannot name, and the result, a view, \
         is copied",
    ),
    (
        "tests/fusion/concat_rows.arr",
        &["none", "greedy", "ilp"],
        "a concatenation's size is a sum the model cannot name (counted in \
         concatenated_matrices_by_counting)",
    ),
    (
        "tests/fusion/inner_slices.arr",
        &["none", "greedy", "ilp"],
        "a slice's size is a difference or a quotient the model cannot name",
    ),
    (
        "tests/fusion/strided_read.arr",
        &["none", "greedy", "ilp"],
        "a strided slice's size is a quotient the model cannot name",
    ),
];

fn modelled(program: &str, strategy: &str) -> bool {
    NOT_MODELLED
        .iter()
        .all(|(skip, strategies, _)| *skip != program || !strategies.contains(&strategy))
}

/// Model and count agree for every other program in tests/fusion/ under every
/// strategy, on an input built from the entry's parameter types (n = 1000).
#[test]
fn model_equals_count_for_fusion_programs() {
    let mut programs: Vec<String> = std::fs::read_dir(root().join("tests/fusion"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "arr"))
        .map(|p| format!("tests/fusion/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    programs.sort();
    assert!(programs.len() >= 20);
    // One thread per strategy: the builds dominate and there are cores to share.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = STRATEGIES
            .into_iter()
            .map(|strategy| {
                let programs = &programs;
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for program in programs.iter().filter(|p| modelled(p, strategy)) {
                        let (by_model, by_count) =
                            model_and_count(program, strategy, strategy == "ilp");
                        if by_model != by_count {
                            failures.push(format!(
                                "{program} --fusion {strategy}: model (reads, writes) \
                                 {by_model:?}, counted {by_count:?}"
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
