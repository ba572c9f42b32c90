//! The shape of the code arrc generates for the CPU: vectorised loops,
//! prefetches a page ahead of streams and gathers, reductions reading two
//! halves side by side, escape loops in lanes as wide as the vectors, and
//! multiply-adds contracted unless `--strict-fp`.
//! Each test builds a small program with `--emit llvm` or `--emit asm` and
//! looks for the instructions that make it fast.

mod support;

use support::arrc_verified as arrc;

/// `arrc build ARGS FILE` on `source` written to a temporary file: what it
/// prints, after checking that it succeeded.
fn emitted(source: &str, args: &[&str]) -> String {
    emitted_with(source, args, &[])
}

/// `emitted`, with the variables `env` set.
fn emitted_with(source: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.arr");
    std::fs::write(&src, source).unwrap();
    let out = arrc()
        .arg("build")
        .args(args)
        .arg(&src)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "arrc build {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A stencil whose border test is `i == 0 || j == 0 || ...` (folded to
/// `or`s by the simplifier) has its interior peeled and vectorised: the
/// peeled range's facts must decide the `or`s, or the interior's reads
/// are not proven in range and the loop stays scalar (conv3 was 7x slower).
#[test]
fn stencil_interior_under_or_border_tests_is_vectorised() {
    let ir = emitted(
        "entry main [n] [m] (img: [n][m]f32) (ker: [3][3]f32) : [n][m]f32 =\n  \
         tabulate_2d n m (\\i j ->\n    \
         if i == 0 || j == 0 || i == n - 1 || j == m - 1 then img[i, j]\n    \
         else f32.sum (map (\\di -> f32.sum (map (\\dj -> \
         img[i + di - 1, j + dj - 1] * ker[di, dj]) (iota 3))) (iota 3)))\n",
        &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"],
    );
    let vector_ops = ir
        .lines()
        .filter(|l| l.contains("<8 x float>") && (l.contains("fmul") || l.contains("fma")))
        .count();
    assert!(vector_ops > 0, "no <8 x float> arithmetic in:\n{ir}");
}

/// The loop of a saxpy-like map is vectorised (AVX2 vectors of 8 floats at
/// `--cpu x86-64-v3`; the native CPU may use wider ones).
#[test]
fn saxpy_loop_is_vectorised() {
    let ir = emitted(
        "entry main (a: f32) (xs: []f32) (ys: []f32) : []f32 =\n  map2 (\\x y -> a * x + y) xs ys\n",
        &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"],
    );
    let vector_ops = ir
        .lines()
        .filter(|l| l.contains("<8 x float>") && (l.contains("fmul") || l.contains("fma")))
        .count();
    assert!(vector_ops > 0, "no <8 x float> arithmetic in:\n{ir}");
}

#[test]
fn vectorised_streams_are_prefetched_a_page_ahead() {
    // A sum of squares and a dot product summed in f64: their loops load
    // f32 vectors narrower than a cache line.
    for src in [
        "entry main (xs: []f32) : f64 =\n  reduce (+) 0.0 (map (\\x -> f64.f32 x * f64.f32 x) xs)\n",
        "entry main (xs: []f32) (ys: []f32) : f64 =\n  reduce (+) 0.0 (map2 (\\x y -> f64.f32 (x * y)) xs ys)\n",
    ] {
        for cpu in ["x86-64-v3", "x86-64-v4"] {
            let ir = emitted(src, &["-O3", "--cpu", cpu, "--emit", "llvm"]);
            // In every vectorised loop body, one prefetch per 64-byte cache
            // line its vector loads read, not per load, each as far ahead as
            // the body's number of streams allows.
            let mut bodies = 0;
            for body in ir.split("\nvector.body").skip(1) {
                let body = &body[..body.find("\n\n").unwrap_or(body.len())];
                let bytes: u64 = body
                    .lines()
                    .filter(|l| l.contains(" = load <"))
                    .map(|l| vector_bytes(&l[l.find("load <").unwrap() + 5..]))
                    .sum();
                let distances = prefetch_distances(body);
                let prefetches = body.matches("call void @llvm.prefetch").count() as u64;
                assert!(bytes > 0 && bytes.is_multiple_of(64), "{cpu}: {body}");
                assert_eq!((distances.len() as u64, prefetches), (bytes / 64, bytes / 64), "{cpu}: {body}");
                let expected = distance_for_streams(stream_bases(body));
                assert!(distances.iter().all(|&d| d == expected), "{cpu}: {body}");
                bodies += 1;
            }
            assert!(bodies > 0, "no vectorised loop in:\n{ir}");
        }
    }
}

/// The bytes ahead of the prefetches of a loop body (`%ahead = getelementptr
/// i8, ptr %p, i64 BYTES`).
fn prefetch_distances(body: &str) -> Vec<u64> {
    body.lines()
        .filter(|l| l.trim_start().starts_with("%ahead") && l.contains("getelementptr i8"))
        .map(|l| l.rsplit("i64 ").next().unwrap().trim().parse().unwrap())
        .collect()
}

/// The streams a vectorised body of an `f32` loop reads: the element
/// addresses its counter indexes (the other loads of an unrolled body are
/// byte offsets from those).
fn stream_bases(body: &str) -> u64 {
    body.lines()
        .filter(|l| {
            l.contains("= getelementptr float,") || l.contains("= getelementptr inbounds float,")
        })
        .count() as u64
}

/// The prefetch distance of each stream of a body reading `streams`: a page
/// for one or two, 8 KiB shared out among more (a cache line's multiple, at
/// least 1 KiB).
fn distance_for_streams(streams: u64) -> u64 {
    (8192 / streams.max(1) / 64 * 64).clamp(1024, 4096)
}

#[test]
fn dot_product_halves_prefetch_their_four_streams_closer() {
    // A dot product's split loop reads two halves of two arrays: four
    // streams, each prefetched 2 KiB ahead (4 KiB ahead each read 4% slower
    // on the Intel Xeon); a sum of squares' two halves keep a page.
    let dot = "entry main (xs: []f32) (ys: []f32) : f64 =\n  \
               reduce (+) 0.0 (map2 (\\x y -> f64.f32 (x * y)) xs ys)\n";
    let sumsq = "entry main (xs: []f32) : f64 =\n  \
                 reduce (+) 0.0 (map (\\x -> f64.f32 x * f64.f32 x) xs)\n";
    for (src, streams, distance) in [(dot, 4, 2048), (sumsq, 2, 4096)] {
        let ir = emitted(src, &["-O3", "--cpu", "x86-64-v4", "--emit", "llvm"]);
        let split = &ir[ir.find("\nsplit:").unwrap()..ir.find("\nsplit.combine:").unwrap()];
        let body = &split[split.find("\nvector.body").expect("no vectorised halves")..];
        let body = &body[..body.find("\n\n").unwrap_or(body.len())];
        assert_eq!(stream_bases(body), streams, "{body}");
        let distances = prefetch_distances(body);
        assert!(
            !distances.is_empty() && distances.iter().all(|&d| d == distance),
            "{body}"
        );
    }
}

#[test]
fn streaming_reductions_read_two_halves_side_by_side() {
    // A sum of squares reads one stream; its loop runs each range as two
    // halves in one loop (`split.combine` joins them), whose vectorised
    // body loads both.
    let sumsq = "entry main (xs: []f32) : f64 =\n  \
                 reduce (+) 0.0 (map (\\x -> f64.f32 x * f64.f32 x) xs)\n";
    let ir = emitted(sumsq, &["-O3", "--cpu", "x86-64-v4", "--emit", "llvm"]);
    assert!(ir.contains("split.combine:"), "no split loop in:\n{ir}");
    let split = &ir[ir.find("\nsplit:").unwrap()..ir.find("\nsplit.combine:").unwrap()];
    let body = &split[split.find("\nvector.body").expect("no vectorised halves")..];
    let body = &body[..body.find("\n\n").unwrap_or(body.len())];
    let loads = body.matches(" = load <").count();
    assert!(loads >= 2 && loads.is_multiple_of(2), "{body}");
    // A gather whose index is checked may fail: its iterations stay in order.
    let gather = "entry main (xs: []f32) (is: []i64) : f32 =\n  \
                  reduce (+) 0.0 (map (\\i -> xs[i]) is)\n";
    let ir = emitted(gather, &["-O3", "--emit", "llvm"]);
    assert!(!ir.contains("split.combine"), "{ir}");
}

#[test]
fn gathers_of_a_float_sum_loop_are_prefetched_ahead() {
    // A CSR row's loop sums `vals[s + k] * x[cols[s + k]]` in order: each
    // iteration also prefetches the `x` element that `cols` names 64
    // entries on.
    let spmv = "entry main [n1] [nnz] [m] (offs: [n1]i64) (cols: [nnz]i32) (vals: [nnz]f32) \
                (x: [m]f32) : []f32 =\n  \
                tabulate (n1 - 1) (\\i -> let s = offs[i] in\n    \
                loop acc = 0f32 for k < offs[i + 1] - s do acc + vals[s + k] * x[i64.i32 cols[s + k]])\n";
    let ir = emitted(spmv, &["-O3", "--emit", "llvm"]);
    let ahead = ir.lines().filter(|l| l.contains("%gather.next")).count();
    assert!(ahead > 0 && ir.contains("@llvm.prefetch"), "{ir}");
    // An integer sum of the same gathers vectorises; it gets none.
    let ints = "entry main [n] [m] (cols: [n]i32) (x: [m]i32) : i32 =\n  \
                loop acc = 0i32 for k < n do acc + x[i64.i32 cols[k]]\n";
    let ir = emitted(ints, &["-O3", "--emit", "llvm"]);
    assert!(!ir.contains("gather.next"), "{ir}");
}

#[test]
fn private_histogram_loops_prefetch_their_input_a_page_ahead() {
    // The loop over a thread's private bins is scalar (no `vector.body`):
    // it prefetches the input 4096 bytes ahead, once per loop (its unrolled
    // body reads less than a cache line per iteration), never the bins.
    let src = "entry main [n] (xs: [n]i32) : [256]i32 =\n  \
               hist (+) 0 256 (map (\\x -> i64.i32 (x & 255)) xs) (replicate n 1)\n";
    let ir = emitted(src, &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"]);
    let start = ir
        .find(".private(")
        .map(|k| ir[..k].rfind("define").unwrap())
        .expect("no private-bins loop");
    let body = &ir[start..start + ir[start..].find("\n}\n").unwrap()];
    let prefetches = body.matches("call void @llvm.prefetch").count();
    let ahead = body
        .lines()
        .filter(|l| l.contains("getelementptr i8") && l.contains("i64 4096"))
        .count();
    // Blocks that branch back to themselves: the loops.
    let loops = body
        .split("\n\n")
        .filter_map(|b| {
            let label = &b[..b.find(':')?];
            let branch = b
                .lines()
                .rev()
                .find(|l| l.trim_start().starts_with("br "))?;
            Some(
                branch.contains(&format!("label %{label},"))
                    || branch.ends_with(&format!("label %{label}")),
            )
        })
        .filter(|&l| l)
        .count();
    assert!(prefetches > 0 && prefetches <= loops, "{body}");
    assert_eq!(ahead, prefetches, "{body}");
}

#[test]
fn compute_bound_vector_bodies_are_not_prefetched() {
    // A matrix product's register-blocked body (4 x 4 dot products) loads
    // 8 rows and computes 32 operations on them; its vector loads get no
    // prefetch, nor do those of the outer-product kernel.
    let src = "entry main [n] [k] [m] (a: [n][k]f32) (bt: [m][k]f32) : [n][m]f32 =\n  \
               map (\\x -> map (\\y -> reduce (+) 0.0f32 (map2 (*) x y)) bt) a\n";
    for cpu in ["x86-64-v3", "x86-64-v4"] {
        let args = ["-O3", "--cpu", cpu, "--emit", "llvm"];
        let ir = emitted(src, &args);
        let kernels: Vec<&str> = ir.split("\nouter.body:").skip(1).collect();
        assert!(!kernels.is_empty(), "no outer-product kernel in:\n{ir}");
        for body in kernels {
            let body = &body[..body.find("\n\n").unwrap_or(body.len())];
            assert!(!body.contains("@llvm.prefetch"), "{cpu}: {body}");
        }
        let ir = emitted_with(src, &args, &[("ARRC_REGISTER_BLOCK", "4x4")]);
        let mut blocked = 0;
        for body in ir.split("\nvector.body").skip(1) {
            let body = &body[..body.find("\n\n").unwrap_or(body.len())];
            let loads = body.matches(" = load <").count();
            if loads >= 8 && body.matches(" = fmul ").count() >= 16 {
                assert!(!body.contains("@llvm.prefetch"), "{cpu}: {body}");
                blocked += 1;
            }
        }
        assert!(blocked > 0, "no blocked body in:\n{ir}");
    }
}

/// The size in bytes of a vector type written `<N x T>` at the start of `t`.
fn vector_bytes(t: &str) -> u64 {
    let inner = &t[1..t.find('>').unwrap()];
    let (n, elem) = inner.split_once(" x ").unwrap();
    let width = match elem {
        "i8" => 1,
        "i16" | "half" => 2,
        "i32" | "float" => 4,
        "i64" | "double" => 8,
        other => panic!("element type {other}"),
    };
    n.parse::<u64>().unwrap() * width
}

#[test]
fn multiply_adds_contract_unless_strict_fp_and_fast_math_keeps_nan_and_infinity() {
    let source = "-- ==\n\
         -- input { [1.0f32, 0.0f32, 2.0f32] [0.0f32, 0.0f32, 4.0f32] }\n\
         -- output { [f32.inf, 0.0f32, 0.5f32] [false, true, false] 5.0f32 }\n\
         entry main (xs: []f32) (ys: []f32) : ([]f32, []bool, f32) =\n  \
         let q = map2 (/) xs ys\n  \
         in (map (\\x -> if f32.isnan x then 0.0f32 else x) q, map f32.isnan q,\n      \
         reduce (+) 0.0f32 (map2 (*) xs xs))\n";
    let asm = |flag: Option<&str>| {
        let mut args = vec!["-O3", "--cpu", "x86-64-v3", "--emit", "asm"];
        args.extend(flag);
        emitted(source, &args)
    };
    // Contraction is the default (LANGUAGE.md section 6); `--strict-fp`
    // forbids it.
    assert!(
        asm(Some("--fast-math")).contains("vfmadd"),
        "no FMA with --fast-math"
    );
    assert!(asm(None).contains("vfmadd"), "no FMA by default");
    assert!(
        !asm(Some("--strict-fp")).contains("vfmadd"),
        "FMA with --strict-fp"
    );
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("fm.arr");
    std::fs::write(&src, source).unwrap();
    let out = arrc()
        .args(["test", "-O3", "--fast-math"])
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An escape-time `while` loop per point runs 16 points under a mask where
/// the CPU has AVX-512 (`<16 x float>` arithmetic), 8 with AVX2 only.
#[test]
fn escape_loops_run_sixteen_lanes_with_avx512_and_eight_with_avx2() {
    let src = "entry main (cs: []f32) (limit: i32) : []i32 =\n  \
               map (\\c -> (loop (z, k) = (0.0f32, 0i32)\n    \
               while k < limit && z * z < 4.0f32 do (z * z + c, k + 1)).1) cs\n";
    let float_ops = |ir: &str, lanes: &str| {
        ir.lines()
            .filter(|l| l.contains(&format!("<{lanes} x float>")) && l.contains("fmul"))
            .count()
    };
    let ir = emitted(src, &["-O3", "--cpu", "x86-64-v4", "--emit", "llvm"]);
    assert!(
        float_ops(&ir, "16") > 0,
        "no <16 x float> arithmetic in:\n{ir}"
    );
    let ir = emitted(src, &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"]);
    assert!(
        float_ops(&ir, "8") > 0,
        "no <8 x float> arithmetic in:\n{ir}"
    );
    assert_eq!(float_ops(&ir, "16"), 0, "{ir}");
}

/// A map whose rows an `if` returns (edge rows `g[i]`, interior rows by
/// `tabulate m`, sizes not known equal) writes the rows into the result in
/// place where the sizes match (`loopy::rows`): the launched nest's result
/// is viewed by row, not filled by copies of per-thread rows.
#[test]
fn rows_returned_by_an_if_are_written_in_place() {
    let loopy = emitted(
        "entry main [n] [m] (sweeps: i32) (g0: [n][m]f32) : [n][m]f32 =\n  \
         loop g = g0 for _s < sweeps do\n    \
         map (\\i -> if i == 0 || i == n - 1 then g[i]\n      \
         else tabulate m (\\j -> if j == 0 || j == m - 1 then g[i, j]\n        \
         else 0.25f32 * (g[i - 1, j] + g[i + 1, j] + g[i, j - 1] + g[i, j + 1])))\n    \
         (iota n)\n",
        &["-O3", "--emit", "loopy"],
    );
    let lines: Vec<&str> = loopy.lines().map(str::trim).collect();
    let launch = lines
        .iter()
        .position(|l| l.starts_with("launch loop map") && l.contains("(cluster"))
        .expect("a launched map");
    let result = lines[..launch]
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("alloc device "))
        .and_then(|l| l.split(':').next())
        .expect("the map's result");
    let views = lines[launch..]
        .iter()
        .filter(|l| l.starts_with("row ") && l.contains(&format!("= {result}[")))
        .count();
    assert_eq!(
        views, 2,
        "both branches' rows not views of {result}:\n{loopy}"
    );
}

/// An argmax or argmin by `reduce` on (value, index) pairs, written the
/// common ways, runs in strided lanes (`loopy::select`) whose compares and
/// selects are vectors; operators whose result depends on the order
/// (`>=` with no index tie, a NaN element winning, pairs mixed)
/// keep the plain loop.
#[test]
fn pair_argmax_and_argmin_reductions_are_vectorised() {
    let entry = |ty: &str, neutral: &str, op: &str| {
        format!(
            "entry main [n] (xs: [n]{ty}) : ({ty}, i64) =\n  reduce ({op}) ({neutral}, -1i64) (zip xs (iota n))\n"
        )
    };
    let vectorised = [
        (
            "f64",
            "-f64.inf",
            r"\(a, i) (b, j) -> if b > a || (b == a && j < i) then (b, j) else (a, i)",
        ),
        (
            "f32",
            "f32.inf",
            r"\(a, i) (b, j) -> if b < a || (b == a && j < i) then (b, j) else (a, i)",
        ),
        (
            "i32",
            "i32.lowest",
            r"\(a, i) (b, j) -> if a > b || (a == b && i < j) then (a, i) else (b, j)",
        ),
        (
            "i64",
            "i64.highest",
            r"\(a, i) (b, j) -> if b < a then (b, j) else if a < b then (a, i) else if j < i then (b, j) else (a, i)",
        ),
    ];
    for (ty, neutral, op) in vectorised {
        let src = entry(ty, neutral, op);
        let loopy = emitted(&src, &["-O3", "--emit", "loopy"]);
        assert!(
            loopy.contains("in strided lanes"),
            "not in strided lanes:\n{loopy}"
        );
        // Nested `if`s on the pairs are flattened into selects
        // (`select::flatten_picks`), so they are vectors too.
        let ir = emitted(&src, &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"]);
        let compares = ir
            .lines()
            .filter(|l| (l.contains("fcmp") || l.contains("icmp")) && l.contains(" x "))
            .count();
        assert!(compares > 0, "no vector compares for {op}:\n{ir}");
    }
    let ordered = [
        r"\(a, i) (b, j) -> if b >= a then (b, j) else (a, i)",
        r"\(a, i) (b, j) -> if !(b <= a) then (b, j) else (a, i)",
        r"\(a, i) (b, j) -> if a >= b && !(a == b && j < i) then (a, i) else (b, j)",
        // On floats a NaN element wins (`a > b` fails), as in `i32` it cannot.
        r"\(a, i) (b, j) -> if a > b || (a == b && i < j) then (a, i) else (b, j)",
        r"\(a, i) (b, j) -> if b > a || (b == a && j < i) then (b, i) else (a, j)",
    ];
    for op in ordered {
        let loopy = emitted(&entry("f64", "-f64.inf", op), &["-O3", "--emit", "loopy"]);
        assert!(
            !loopy.contains("in strided lanes"),
            "in strided lanes:\n{loopy}"
        );
    }
}

/// A reduction down the columns of a matrix (`map (\c -> sum (map2 (*) c
/// v)) (transpose a)`) runs 64 neighbouring columns at a time, one
/// accumulator each, so that each step reads four cache lines of a row
/// instead of one element of each of 64 rows (`loopy::jam`; the
/// vector-matrix product was 9x slower than C).
#[test]
fn column_reductions_run_sixty_four_columns_at_a_time() {
    let loopy = emitted(
        "entry main [n] [m] (a: [n][m]f32) (v: [n]f32) : [m]f32 =\n  \
         map (\\col -> f32.sum (map2 (*) col v)) (transpose a)\n",
        &["-O3", "--emit", "loopy"],
    );
    // Wide matrices stream their rows instead (`loopy::jam::stream`, chosen
    // at run time); the strips are the other branch.
    let widest = loopy
        .lines()
        .filter(|l| l.contains("seqloop ("))
        .map(|l| l.matches(": f32 = 0.0f32").count())
        .max()
        .unwrap_or_else(|| panic!("no jammed loop in:\n{loopy}"));
    assert_eq!(widest, 64, "{loopy}");
}

/// The reads of a rotated row in a map (a periodic stencil by `rotate`)
/// wrap their index by a conditional subtraction, not a `rem`: an integer
/// division per element made the stencil twice as slow as C.
#[test]
fn rotated_reads_wrap_without_a_division() {
    let loopy = emitted(
        "entry main [n] [m] (g: [n][m]f32) : [n][m]f32 =\n  \
         map4 (map4 (\\c u l r -> c + u + l + r)) g (rotate (-1) g)\n    \
         (map (rotate (-1)) g) (map (rotate 1) g)\n",
        &["-O3", "--emit", "loopy"],
    );
    assert!(loopy.contains("wraps"), "{loopy}");
    assert!(!loopy.contains(" = rem "), "{loopy}");
}

/// A rotated read's wrap-around test (`i + s >= n`), and the same test
/// written as an `if`, cut the innermost loop into pieces in which it is
/// known (`LoopShape::Cut`): no conditional subtraction per element, and
/// the reads are contiguous.
#[test]
fn wrapped_indices_cut_the_loop() {
    let rotated = emitted(
        "entry main [n] [m] (g: [n][m]f32) : [n][m]f32 =\n  \
         map3 (map3 (\\c l r -> c + l + r)) g (map (rotate (-1)) g) (map (rotate 1) g)\n",
        &["-O3", "--emit", "loopy"],
    );
    assert!(rotated.contains("body cut (wraps_"), "{rotated}");
    let spelled = emitted(
        "entry main [n] (c: i64) (xs: [n]i32) : [n]i32 =\n  \
         map (\\i -> let j = i + c in if j >= n then xs[j - n] else xs[j]) (iota n)\n",
        &["-O3", "--emit", "loopy"],
    );
    assert!(spelled.contains("body cut ("), "{spelled}");
}

/// Nested `if`s on float pairs run in strided lanes too: their last test
/// (`j < i`, the tie rule) is reached by a NaN element, but never with an
/// element index below the accumulator's, so the body's cases a run can
/// meet are a lexicographic order (`loopy::select`), and their selects are
/// vectors. A nested spelling whose ties (and NaN) go to the element keeps
/// the plain loop.
#[test]
fn nested_float_pair_selections_run_in_strided_lanes() {
    let entry = |ty: &str, neutral: &str, op: &str| {
        format!(
            "entry main [n] (xs: [n]{ty}) : ({ty}, i64) =\n  reduce ({op}) ({neutral}, -1i64) (zip xs (iota n))\n"
        )
    };
    let nested = [
        (
            "f64",
            "-f64.inf",
            r"\(a, i) (b, j) -> if b > a then (b, j) else if a > b then (a, i) else if j < i then (b, j) else (a, i)",
        ),
        (
            "f32",
            "f32.inf",
            r"\(a, i) (b, j) -> if b < a then (b, j) else if a < b then (a, i) else if j < i then (b, j) else (a, i)",
        ),
    ];
    for (ty, neutral, op) in nested {
        let src = entry(ty, neutral, op);
        let loopy = emitted(&src, &["-O3", "--emit", "loopy"]);
        assert!(
            loopy.contains("in strided lanes"),
            "not in strided lanes:\n{loopy}"
        );
        let ir = emitted(&src, &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"]);
        let compares = ir
            .lines()
            .filter(|l| l.contains("fcmp") && l.contains(" x "))
            .count();
        assert!(compares > 0, "no vector compares for {op}:\n{ir}");
    }
    let last_wins = r"\(a, i) (b, j) -> if a > b then (a, i) else if b > a then (b, j) else (b, j)";
    let loopy = emitted(
        &entry("f64", "-f64.inf", last_wins),
        &["-O3", "--emit", "loopy"],
    );
    assert!(
        !loopy.contains("in strided lanes"),
        "in strided lanes:\n{loopy}"
    );
}

/// The stdlib's `argmin` of a map inside a map over points (kmeans2's
/// labels) runs 8 points per iteration (`loopy::jam`) and its compares
/// are vectors: its operator (`j == 0 || b < a`) leaves, after the first
/// centre, one compare and select per centre, which SLP packs. Spellings
/// with an index tie test (`b == a && j < i`) or a NaN test on the
/// accumulator left the 8 index selects scalar (1.06x to 5x slower).
#[test]
fn stdlib_argmin_of_a_map_is_jammed_and_vectorised() {
    let src = "entry main [n] [k] (xs: [n]f32) (ys: [n]f32) (cxs: [k]f32) (cys: [k]f32) : [n]i64 =\n  \
               map2 (\\x y -> argmin (map2 (\\cx cy -> (x - cx) * (x - cx) + (y - cy) * (y - cy)) cxs cys)) xs ys\n";
    let loopy = emitted(src, &["-O3", "--emit", "loopy"]);
    let jammed = loopy
        .lines()
        .find(|l| l.contains("seqloop ("))
        .unwrap_or_else(|| panic!("no jammed loop in:\n{loopy}"));
    assert_eq!(jammed.matches(": f32 = f32.inf").count(), 8, "{loopy}");
    let ir = emitted(src, &["-O3", "--cpu", "x86-64-v3", "--emit", "llvm"]);
    assert!(
        ir.lines().any(|l| l.contains("fcmp olt <")),
        "no vector compares:\n{ir}"
    );
}

/// On wide matrices the same reduction streams the rows instead
/// (`loopy::jam::stream`): chosen at run time by the column count (the
/// strips stay in the other branch), each block of columns with its sums
/// in per-thread memory, each row's block read by one inner loop. An
/// operator that does not commute takes it too: each column still folds
/// in row order.
#[test]
fn wide_column_reductions_stream_the_rows_through_per_thread_sums() {
    let vecmat = "entry main [n] [m] (a: [n][m]f32) (v: [n]f32) : [m]f32 =\n  \
                  map (\\col -> f32.sum (map2 (*) col v)) (transpose a)\n";
    let loopy = emitted_with(vecmat, &["-O3", "--emit", "loopy"], &[]);
    assert!(loopy.contains("let rows_streamed_"), "{loopy}");
    assert!(loopy.contains("alloc thread column_acc_"), "{loopy}");
    assert!(loopy.contains("seqloop (acc_"), "the strips:\n{loopy}");
    let never = emitted_with(
        vecmat,
        &["-O3", "--emit", "loopy"],
        &[("ARRC_STREAM_FROM", "0")],
    );
    assert!(!never.contains("rows_streamed"), "{never}");
    let composed = emitted(
        "entry main [n] [m] (a: [n][m]i32) (b: [n][m]i32) : [m]i32 =\n  \
         map2 (\\ca cb -> (reduce (\\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2))\n    \
         (1, 0) (zip ca cb)).1) (transpose a) (transpose b)\n",
        &["-O3", "--emit", "loopy"],
    );
    assert_eq!(composed.matches("alloc thread column_acc_").count(), 2);
}

/// The streamed form against the interpreter on every column-reduction
/// golden program, forced at every width and in blocks of 48 columns
/// (many blocks, a short last one) at 1, 2 and 7 threads.
#[test]
fn streamed_column_reductions_agree_with_the_interpreter() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = arrc()
        .args(["test", "--threads", "1,2,7"])
        .arg(root.join("tests/programs/column_stream.arr"))
        .arg(root.join("tests/programs/column_dots.arr"))
        .envs([("ARRC_STREAM_FROM", "1"), ("ARRC_STREAM_BLOCK", "48")])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains(" 0 failed"), "{text}");
}
