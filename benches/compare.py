#!/usr/bin/env python3
"""Benchmarks arrc against hand-written C, numpy, numba and JAX, and writes
docs/performance.md with a bar chart (docs/performance.png).

    python3 benches/compare.py            # the full comparison
    python3 benches/compare.py --quick    # small sizes, one round: a smoke test
    python3 benches/compare.py --base OLD_ARRC --contenders arrc,base
                                          # A/B: this arrc against another build
    python3 benches/compare.py --target nvptx|nvptx-emu ...
                                          # the GPU comparison (benches/gpu/compare_gpu.py)
    python3 benches/compare.py --realtime # every process under `chrt -f 20`

Steps, all in one go:
 1. writes the inputs (benches/baselines/gen_data.py) into
    $ARRC_BENCH_DATA/<full|quick> (default /tmp/arrc-bench-data), from fixed
    seeds; every contender reads the same files on standard input;
 2. checks the small test cases of benches/programs/*.arr: a copy of each
    program without its bench-tagged cases goes through `arrc test -O3`,
    which runs the reference interpreter and the compiled binary and
    compares them (`arrc test` on the programs themselves would run the big
    cases on the slow interpreter);
 3. builds every program with `arrc build -O3` (timing the command: that is
    the compile time reported) and every C baseline with
    `gcc -O3 -march=native -fopenmp`;
 4. runs ROUNDS rounds; in each, every program runs under every contender
    in turn, the contenders' order rotating from program to program and
    round to round, so that the drift of a noisy machine spreads over all of
    them. A contender's process runs the kernel once as a warm-up, then up
    to RUNS timed runs (C, numpy, numba and JAX stop early after BUDGET
    seconds of timed runs; arrc's binaries, run with `-r N -t FILE`, get as
    many runs as fit in BUDGET at the median of the earlier rounds).
    Input reading, JIT compilation and result output are not timed;
 5. compares every contender's result with arrc's (relative tolerance
    0.002, as the test blocks), computes min, median and max per program and
    contender, the ratios arrc / baseline of the medians and their geometric
    means, and the bandwidth of the memory-bound programs as a fraction of
    the STREAM triad's, and writes the page. Text between the
    `<!-- notes -->` and `<!-- /notes -->` lines of an existing page is kept.

With `--base PATH`, a contender `base` runs the programs built by another
arrc binary (an older commit's), interleaved like the others; the page is
then an A/B table (arrc / base per program, min/median/max, the geometric
mean) instead of docs/performance.md.

The compiler is $ARRC, else this checkout's target/release/arrc (built
with `cargo build --release` when missing), else `arrc` on the PATH. Needs gcc and Python with numpy, numba, jax and matplotlib
(`pip install numpy numba "jax[cpu]" matplotlib`).
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "benches", "baselines")
PROGS_DIR = os.path.join(ROOT, "benches", "programs")
sys.path.insert(0, BASE)
import fvalues  # noqa: E402
import suite  # noqa: E402

CONTENDERS = ["arrc", "c", "numpy", "numba", "jax"]
LABEL = {"arrc": "arrc", "c": "C", "numpy": "numpy", "numba": "numba", "jax": "JAX", "base": "base arrc"}
# Contenders that are binaries built by an arrc compiler: `base` by --base.
ARRC_BUILT = ("arrc", "base")
TOLERANCE = 0.002
TIMEOUT = 900
# With --realtime, every contender's process is run under this prefix.
RUN_PREFIX = []


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def find_arrc():
    env = os.environ.get("ARRC")
    if env:
        return env
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    default = os.path.join(root, "target", "release", "arrc")
    if not os.path.exists(default) and shutil.which("cargo"):
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=root, check=False)
    if os.path.exists(default):
        return default
    return shutil.which("arrc") or default


def headers(path):
    """The values of a binary value file as numpy stand-ins: arrays are
    unallocated np.empty of the right shape, scalars are read."""
    import numpy as np
    vals = []
    with open(path, "rb") as f:
        while True:
            c = f.read(1)
            if not c:
                return vals
            version, rank = f.read(2)
            dtype = np.dtype(fvalues.TYPES[f.read(4).decode()])
            shape = tuple(int(x) for x in np.frombuffer(f.read(8 * rank), dtype="<i8"))
            count = int(np.prod(shape)) if rank else 1
            if rank == 0:
                vals.append(np.frombuffer(f.read(dtype.itemsize), dtype=dtype)[0])
            else:
                vals.append(np.empty(shape, dtype=dtype))
                f.seek(count * dtype.itemsize, 1)


def strip_bench_cases(src, dst):
    """Copies a program without its bench-tagged cases: drops each
    `tags { bench }` line with the case line before it, and then any `-- ==`
    that introduces no case."""
    out = []
    for line in open(src).read().split("\n"):
        if re.match(r"^--\s*tags\s*\{.*\bbench\b", line):
            if out and re.match(r"^--\s*(random input|input)\b", out[-1]):
                out.pop()
            continue
        out.append(line)
    res = []
    for i, line in enumerate(out):
        if line.strip() == "-- ==":
            nxt = out[i + 1] if i + 1 < len(out) else ""
            if not re.match(r"^--\s*(entry:|input|random input)", nxt):
                continue
        res.append(line)
    with open(dst, "w") as f:
        f.write("\n".join(res))


def verify_small(arrc, progs, work):
    """`arrc test -O3` on copies without the big cases; returns (ok, text)."""
    d = os.path.join(work, "small")
    os.makedirs(d, exist_ok=True)
    paths = []
    for p in progs:
        dst = os.path.join(d, p + ".arr")
        strip_bench_cases(os.path.join(PROGS_DIR, p + ".arr"), dst)
        paths.append(dst)
    r = subprocess.run([arrc, "test", "-O3"] + paths, capture_output=True, text=True, timeout=TIMEOUT)
    text = (r.stdout + r.stderr).strip()
    return r.returncode == 0, text


def build(compilers, progs, work):
    """Builds every program with each arrc-built contender's compiler
    (`compilers`: contender -> arrc binary) and the C baselines; returns
    (arrc's compile seconds, errors)."""
    ctimes, errors = {}, {}
    for p in progs:
        for c, arrc in compilers.items():
            exe = os.path.join(work, f"{c}-{p}")
            t0 = time.perf_counter()
            r = subprocess.run([arrc, "build", "-O3", os.path.join(PROGS_DIR, p + ".arr"), "-o", exe],
                               capture_output=True, text=True, timeout=TIMEOUT)
            if c == "arrc":
                ctimes[p] = time.perf_counter() - t0
            if r.returncode != 0:
                errors[(p, c)] = f"{LABEL[c]} build failed: " + (r.stderr or r.stdout).strip()
                log(errors[(p, c)])
        if "c" not in CONTENDERS:
            continue
        r = subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", "-o", os.path.join(work, "c-" + p),
                            os.path.join(BASE, "c", p + ".c"), "-lm"], capture_output=True, text=True)
        if r.returncode != 0:
            errors[(p, "c")] = "gcc failed: " + r.stderr.strip()
            log(errors[(p, "c")])
    return ctimes, errors


def run_one(contender, prog, files, runs, budget, work, env):
    """Runs one contender's process on one program; returns (times in
    microseconds, signature) or raises RuntimeError."""
    tf = os.path.join(work, f"{prog}.{contender}.times")
    out = os.path.join(work, f"{prog}.{contender}.out")
    if os.path.exists(tf):
        os.remove(tf)
    if contender in ARRC_BUILT:
        cmd = [os.path.join(work, f"{contender}-{prog}"), "-r", str(runs), "-t", tf, "-b"]
    elif contender == "c":
        cmd = [os.path.join(work, "c-" + prog), str(runs), tf, str(budget)]
    else:
        cmd = [sys.executable, os.path.join(BASE, "py_bench.py"), contender, prog, str(runs), tf, str(budget)]
    return timed_process(RUN_PREFIX + cmd, files, tf, out, env, contender in ARRC_BUILT, TIMEOUT)


def timed_process(cmd, files, tf, out, env, binary_output, timeout):
    """Runs `cmd` on the concatenated input `files`, writing its results to
    `out` and its run times to `tf`; returns (times in microseconds,
    signature of the results) or raises RuntimeError. Shared with
    benches/gpu/compare_gpu.py."""
    cat = subprocess.Popen(["cat"] + files, stdout=subprocess.PIPE)
    with open(out, "wb") as fo:
        try:
            r = subprocess.run(cmd, stdin=cat.stdout, stdout=fo, stderr=subprocess.PIPE, env=env,
                               timeout=timeout)
        finally:
            cat.stdout.close()
            cat.wait()
    if r.returncode != 0:
        msg = r.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"exit {r.returncode}: " + " | ".join(msg[-3:]))
    times = [float(x) for x in open(tf).read().split()]
    if binary_output:
        with open(out, "rb") as f:
            sig = fvalues.signature(fvalues.read_all(f))
    else:
        sig = [float(x) for x in open(out).read().split()]
    os.remove(out)
    return times, sig


def agree(a, b):
    if a is None or b is None or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if math.isnan(x) and math.isnan(y):
            continue
        if abs(x - y) > TOLERANCE * max(1.0, abs(y)):
            return False
    return True


def gmean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt_ms(us):
    ms = us / 1000
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}" if ms >= 1 else f"{ms:.3f}"


def chart(progs, stats, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    base = [c for c in CONTENDERS if c != "arrc"]
    fig, ax = plt.subplots(figsize=(12, 5))
    width = 0.8 / len(base)
    for k, c in enumerate(base):
        xs, ys = [], []
        for i, p in enumerate(progs):
            a, b = stats.get((p, "arrc")), stats.get((p, c))
            if a and b:
                xs.append(i + (k - (len(base) - 1) / 2) * width)
                ys.append(a["median"] / b["median"])
        ax.bar(xs, ys, width, label=f"arrc / {LABEL[c]}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(progs)))
    ax.set_xticklabels(progs, rotation=35, ha="right")
    ax.set_ylabel("time ratio arrc / baseline (median; < 1: arrc faster)")
    ax.set_title(title)
    ax.legend(ncol=4, fontsize=9)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def old_notes(path):
    if not os.path.exists(path):
        return None
    m = re.search(r"<!-- notes -->\n(.*?)<!-- /notes -->", open(path).read(), re.S)
    return m.group(1) if m else None


def write_page(args, progs, stats, sigs, errors, ctimes, small, meta, out_md):
    png = os.path.splitext(out_md)[0] + ".png"
    base = [c for c in CONTENDERS if c != "arrc"]
    L = []
    others = [LABEL[c] for c in CONTENDERS if c != "arrc"]
    L.append("# Performance: arrc against " + (", ".join(others[:-1]) + " and " if len(others) > 1 else "")
             + others[-1] + "\n")
    L.append(f"Generated by `python3 benches/compare.py{' --quick' if args.quick else ''}"
             f"{'' if args.rounds is None else f' --rounds {args.rounds}'}"
             f"{'' if not args.base else ' --base ' + args.base}` on {meta['date']}. "
             "Do not edit the tables by hand: run the script again (it keeps the notes section).\n")
    L.append("## Set-up\n")
    L.append(f"- Machine: {meta['cpu']}, {meta['cores']} cores, {meta['mem']}; a shared VM, so timings are noisy.")
    L.append(f"- arrc: `{meta['arrc']}` ({meta['arrc_version']}), `arrc build -O3`, all cores; "
             f"benchmark suite at commit {meta['commit']}.")
    if args.base:
        L.append(f"- base arrc: `{args.base}` ({cmd_out([args.base, '--version'])}), `arrc build -O3`.")
    L.append(f"- C: {meta['gcc']}, `gcc -O3 -march=native -fopenmp` (OpenMP on all cores; GCC contracts "
             "`a*b+c` into fused multiply-adds by default, and so does arrc unless `--strict-fp`).")
    L.append(f"- Python {meta['python']}: numpy {meta['numpy']}, numba {meta['numba']} "
             f"(`@njit(parallel=True)`), JAX {meta['jax']} (`jax.jit` on CPU, `jax_enable_x64` for the "
             "f64 sums, `block_until_ready` inside the timed region).")
    L.append(f"- Mode: {'quick (small sizes)' if args.quick else 'full sizes'}; "
             f"{meta['rounds_done']} of {args_rounds(args)} round(s) done, "
             f"each contender's process does a warm-up and up to {args.runs} timed runs "
             f"(stopping after about {args.budget:g} s of timed runs; arrc, which has no budget option, gets as many runs as fit in it at its median so far); contenders interleaved "
             "round-robin, order rotating per program and round. Times are of the kernel only: "
             "not input parsing, JIT compilation or output."
             + (" Every process ran under `chrt -f 20` (`--realtime`: real-time priority over the "
                "machine's other work)." if args.realtime else ""))
    L.append("- Inputs: benches/baselines/gen_data.py (fixed seeds, numpy's PCG64), one file of binary "
             "values per input, fed to every contender on standard input. Sizes: "
             + ", ".join(f"{k} = {v:,}" for k, v in suite.SIZES["quick" if args.quick else "full"].items())
             + " (see benches/baselines/suite.py).")
    L.append(f"- Small test cases (`arrc test -O3` on the programs without their bench cases): "
             f"{small}\n")

    L.append("## Times and ratios\n")
    L.append("Median time in milliseconds (min-max over all runs of all rounds), and the ratio of "
             "arrc's median to each baseline's (below 1: arrc is faster).\n")
    hdr = "| program | " + " | ".join(f"{LABEL[c]} ms" for c in CONTENDERS) + " | " + \
          " | ".join(f"arrc/{LABEL[c]}" for c in base) + " |"
    L.append(hdr)
    L.append("|" + "---|" * (1 + len(CONTENDERS) + len(base)))
    ratios = {c: [] for c in base}
    for p in progs:
        cells = []
        for c in CONTENDERS:
            s = stats.get((p, c))
            cells.append(f"{fmt_ms(s['median'])} ({fmt_ms(s['min'])}-{fmt_ms(s['max'])})" if s else "failed")
        rc = []
        for c in base:
            a, b = stats.get((p, "arrc")), stats.get((p, c))
            if a and b:
                r = a["median"] / b["median"]
                ratios[c].append(r)
                rc.append(f"{r:.2f}")
            else:
                rc.append("-")
        L.append(f"| {p} | " + " | ".join(cells) + " | " + " | ".join(rc) + " |")
    gm = {c: gmean(ratios[c]) for c in base}
    L.append("| **geometric mean** | " + " | ".join("" for _ in CONTENDERS) + " | " +
             " | ".join(f"**{gm[c]:.2f}**" if gm[c] else "-" for c in base) + " |")
    L.append("")
    L.append(f"![arrc / baseline time ratios]({os.path.basename(png)})\n")

    # bandwidth
    L.append("## Memory bandwidth\n")
    data = meta["data"]
    triad = {}
    for c in CONTENDERS:
        s = stats.get(("triad", c))
        if s and "triad" in progs:
            vals = [v for f in input_files(data, "triad") for v in headers(f)]
            triad[c] = suite.min_bytes("triad", vals, sigs.get(("triad", c))) / (s["median"] * 1e-6) / 1e9
    if triad:
        peak = max(triad.values())
        L.append("STREAM triad (`a = b + s * c`, 12 bytes per element) in GB/s (median): " +
                 ", ".join(f"{LABEL[c]} {v:.1f}" for c, v in triad.items()) +
                 f". The memory-bound programs below: the bytes they must move at least "
                 f"(each input read once, each output written once; see `min_bytes` in "
                 f"benches/baselines/suite.py), over the median time, as GB/s and as a fraction "
                 f"of the best triad ({peak:.1f} GB/s).\n")
        L.append("| program | MB moved | " + " | ".join(LABEL[c] for c in CONTENDERS) + " |")
        L.append("|" + "---|" * (2 + len(CONTENDERS)))
        for p in progs:
            vals = [v for f in input_files(data, p) for v in headers(f)]
            ref = sigs.get((p, "arrc")) or sigs.get((p, "c"))
            nb = suite.min_bytes(p, vals, ref) if ref else None
            if nb is None:
                continue
            cells = []
            for c in CONTENDERS:
                s = stats.get((p, c))
                if s:
                    bw = nb / (s["median"] * 1e-6) / 1e9
                    cells.append(f"{bw:.1f} ({bw / peak:.0%})")
                else:
                    cells.append("-")
            L.append(f"| {p} | {nb / 1e6:.0f} | " + " | ".join(cells) + " |")
        L.append("")
    else:
        L.append("(triad not run)\n")

    L.append("## Compile times\n")
    L.append("Wall time of `arrc build -O3 PROG.arr -o EXE` (parsing to linking, with the ILP fusion "
             "solver; one build each).\n")
    L.append("| program | seconds |")
    L.append("|---|---|")
    for p in progs:
        if p in ctimes:
            L.append(f"| {p} | {ctimes[p]:.2f} |")
    L.append("")

    L.append("## Result agreement\n")
    L.append("Every contender's result is reduced to a signature (a scalar result itself; an array its "
             "number of elements and the f64 sum of its elements), compared with arrc's within a "
             f"relative tolerance of {TOLERANCE} (the test blocks' tolerance).\n")
    bad = []
    for p in progs:
        ref = sigs.get((p, "arrc"))
        for c in base:
            s = sigs.get((p, c))
            if ref is not None and s is not None and not agree(s, ref):
                bad.append(f"- {p}: {LABEL[c]} gives {fmt_sig(s)}, arrc {fmt_sig(ref)}")
    L.extend(bad or ["All results agree."])
    L.append("")
    if errors:
        L.append("## Failures\n")
        for (p, c), e in sorted(errors.items()):
            L.append(f"- {p} / {LABEL[c]}: `{e[:400]}`")
        L.append("")
    notes = old_notes(out_md)
    L.append("## Notes\n")
    L.append("<!-- notes -->")
    L.append((notes or "(Observations on these numbers go here; the script keeps this section.)\n").rstrip("\n"))
    L.append("<!-- /notes -->\n")
    os.makedirs(os.path.dirname(os.path.abspath(out_md)), exist_ok=True)
    with open(out_md, "w") as f:
        f.write("\n".join(L))
    chart(progs, stats, png, f"arrc / baseline, median times ({'quick' if args.quick else 'full'} sizes)")
    return bad


def fmt_sig(s):
    return "[" + ", ".join(f"{x:.10g}" for x in s) + "]"


def args_rounds(args):
    return args.rounds if args.rounds is not None else (1 if args.quick else 3)


def input_files(data, prog):
    return [os.path.join(data, name + ".bin") for name in suite.PROGRAMS[prog]]


def cmd_out(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception:
        return "?"


def main():
    if any(a == "--target" or a.startswith("--target=") for a in sys.argv[1:]):
        # the GPU comparison: arrc's GPU binaries against CUDA and JAX
        sys.path.insert(0, os.path.join(ROOT, "benches", "gpu"))
        import compare_gpu
        return compare_gpu.main(sys.argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, one round (a smoke test)")
    ap.add_argument("--rounds", type=int, help="interleaved rounds (default 3, quick 1)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per process after the warm-up")
    ap.add_argument("--budget", type=float, default=2.0,
                    help="seconds of timed runs after which C/numpy/numba/JAX stop early")
    ap.add_argument("--programs", help="comma-separated subset")
    ap.add_argument("--contenders", help="comma-separated subset of arrc,c,numpy,numba,jax")
    ap.add_argument("--threads", type=int, help="threads for every contender (default: all cores)")
    ap.add_argument("--out", help="page to write (default docs/performance.md; quick: in the work folder)")
    ap.add_argument("--work", help="build and scratch folder (default a fresh temporary one)")
    ap.add_argument("--no-verify", action="store_true", help="skip the small test cases")
    ap.add_argument("--base", help="another arrc binary: contender `base`, and an A/B page")
    ap.add_argument("--realtime", action="store_true",
                    help="run every contender under `chrt -f 20` (SCHED_FIFO; needs root): "
                         "steady timings while other work loads the machine")
    args = ap.parse_args()
    if args.realtime:
        RUN_PREFIX[:] = ["chrt", "-f", "20"]
    if args.base:
        CONTENDERS.append("base")
    if args.contenders:
        CONTENDERS[:] = [c for c in list(CONTENDERS) if c in args.contenders.split(",")]
    mode = "quick" if args.quick else "full"
    progs = args.programs.split(",") if args.programs else list(suite.PROGRAMS)
    rounds = args_rounds(args)
    arrc = find_arrc()
    work = args.work or tempfile.mkdtemp(prefix="arrc-compare-")
    os.makedirs(work, exist_ok=True)
    out_md = args.out or (os.path.join(ROOT, "docs", "performance.md") if not (args.quick or args.base)
                          else os.path.join(work, "ab.md" if args.base else "performance.md"))
    data = os.path.join(os.environ.get("ARRC_BENCH_DATA", "/tmp/arrc-bench-data"), mode)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               NUMBA_CACHE_DIR=os.path.join(work, "numba-cache"))
    if args.threads:
        env.update(OMP_NUM_THREADS=str(args.threads), NUMBA_NUM_THREADS=str(args.threads),
                   ARRC_THREADS=str(args.threads))
    t_start = time.time()

    log(f"== inputs ({mode}) in {data}")
    subprocess.run([sys.executable, os.path.join(BASE, "gen_data.py"), data, mode], check=True, env=env)

    small = "skipped"
    if not args.no_verify:
        log("== small test cases (arrc test -O3, bench cases removed)")
        ok, text = verify_small(arrc, progs, work)
        last = text.splitlines()[-1] if text else ""
        small = ("passed: " if ok else "FAILED: ") + f"`{last}`"
        log(text if not ok else last)

    log("== building")
    compilers = {c: args.base if c == "base" else arrc for c in CONTENDERS if c in ARRC_BUILT}
    ctimes, errors = build(compilers, progs, work)

    samples = {}
    sigs = {}
    for r in range(rounds):
        for i, p in enumerate(progs):
            k = (r + i) % len(CONTENDERS)
            order = CONTENDERS[k:] + CONTENDERS[:k]
            for c in order:
                if (p, c) in errors:
                    continue
                runs = args.runs
                if c in ARRC_BUILT and samples.get((p, c)):
                    # arrc's binaries have no time budget: fewer runs for slow programs
                    med = statistics.median(samples[(p, c)]) * 1e-6
                    runs = max(1, min(args.runs, math.ceil(args.budget / med)))
                try:
                    times, sig = run_one(c, p, input_files(data, p), runs, args.budget, work, env)
                except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as e:
                    errors[(p, c)] = f"run failed: {e}"
                    log(f"{p} {c}: {errors[(p, c)]}")
                    continue
                samples.setdefault((p, c), []).extend(times)
                if (p, c) not in sigs:
                    sigs[(p, c)] = sig
                log(f"round {r + 1}/{rounds} {p:<13}{c:<7}{statistics.median(times) / 1000:10.2f} ms "
                    f"({len(times)} runs) {fmt_sig(sig)}  [{time.time() - t_start:.0f} s]")
        # the page after every round, so that a cut-short run still leaves one
        bad = report(args, progs, samples, sigs, errors, ctimes, small, arrc, data, work, out_md, r + 1)
    log(f"== wrote {out_md} and its chart; raw results in {work}/results.json "
        f"({time.time() - t_start:.0f} s)")
    for b in bad:
        log("disagreement: " + b[2:])
    return 0


def report(args, progs, samples, sigs, errors, ctimes, small, arrc, data, work, out_md, done):
    stats = {key: dict(min=min(v), median=statistics.median(v), max=max(v), n=len(v))
             for key, v in samples.items() if v}
    import numpy
    meta = dict(
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        cpu=cmd_out(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).strip(),
        cores=os.cpu_count(),
        mem=cmd_out(["sh", "-c", "free -g | awk '/Mem:/ {print $2 \" GB RAM\"}'"]),
        arrc=arrc, arrc_version=cmd_out([arrc, "--version"]),
        commit=cmd_out(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]),
        gcc=cmd_out(["sh", "-c", "gcc --version | head -1"]),
        python=platform.python_version(), numpy=numpy.__version__,
        numba=cmd_out([sys.executable, "-c", "import numba; print(numba.__version__)"]),
        jax=cmd_out([sys.executable, "-c", "import jax; print(jax.__version__)"]),
        data=data, rounds_done=done)
    bad = write_page(args, progs, stats, sigs, errors, ctimes, small, meta, out_md)
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(dict(samples={f"{p}/{c}": v for (p, c), v in samples.items()},
                       signatures={f"{p}/{c}": v for (p, c), v in sigs.items()},
                       errors={f"{p}/{c}": v for (p, c), v in errors.items()},
                       compile_seconds=ctimes, meta=meta), f, indent=1)
    return bad


if __name__ == "__main__":
    sys.exit(main())
