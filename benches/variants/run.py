#!/usr/bin/env python3
"""Times the idiomatic variants in this folder against their `canonical`
entry (issue 20: a variant over 1.5x the canonical time is a cliff), and
the idiomatic programs with a hand-written C version beside them (`X.c`
next to `X.arr`) against that C.

Each program is timed in `--rounds` interleaved rounds (all programs once
per round, under `chrt -f 20` with --realtime). A program with a `canonical`
entry is timed by `arrc bench`; each round's per-entry median is divided by
that round's canonical median. A program with a C version is built by
`arrc build -O3` and its C by `gcc -O3 -march=native -fopenmp`; both read
the same input, written once from the bench case's `input` or `random
input` (floats uniform in [0, 1), integers over their whole range, from a
fixed seed), and run in turn, the order alternating from round to round;
each round's median of the arrc binary (entry `main`) is divided by the
C's, and the results' signatures (benches/baselines/fvalues.py) must agree.
The table gives min/median/max of the ratios over the rounds.

    benches/variants/run.py [--arrc target/release/arrc] [--rounds 3]
        [--runs 5] [--realtime] [PROGRAM ...]
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--arrc", default=os.path.join(here, "../../target/release/arrc"))
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--realtime", action="store_true")
ap.add_argument("programs", nargs="*")
args = ap.parse_args()
programs = args.programs or sorted(
    f[:-4] for f in os.listdir(here) if f.endswith(".arr"))

sys.path.insert(0, os.path.join(here, "../baselines"))
import fvalues  # noqa: E402

DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
          "f32": np.float32, "f64": np.float64, "bool": np.bool_}


def bench_values(path, rng):
    """The values of the bench-tagged case of `path`'s test blocks: `[d]...t`
    random, `5i64`-style (or plain integer: i32) constants as written."""
    blocks = open(path).read().split("-- ==\n")[1:]
    block = next(b for b in blocks if re.search(r"tags\s*\{[^}]*\bbench\b", b))
    spec = re.search(r"input\s*\{([^}]*)\}", block).group(1)
    values = []
    for tok in spec.split():
        if tok.startswith("["):
            dims = [int(d) for d in re.findall(r"\[(\d+)\]", tok)]
            t = DTYPES[tok.rsplit("]", 1)[1]]
            if t == np.bool_:
                values.append(rng.random(dims) < 0.5)
            elif np.issubdtype(t, np.floating):
                values.append(rng.random(dims, dtype=np.float64).astype(t))
            else:
                info = np.iinfo(t)
                values.append(rng.integers(info.min, info.max, size=dims, dtype=t,
                                           endpoint=True))
        else:
            m = re.fullmatch(r"(-?[0-9.]+)([a-z]+[0-9]*)?", tok)
            t = DTYPES[m.group(2) or ("f64" if "." in m.group(1) else "i32")]
            values.append(t(float(m.group(1)) if "." in m.group(1) else int(m.group(1))))
    return values


def timed(cmd, data, tf, out, binary):
    """Runs `cmd` on the input file `data`; returns (median microseconds,
    signature of its results)."""
    with open(data, "rb") as fi, open(out, "wb") as fo:
        subprocess.run(cmd, stdin=fi, stdout=fo, check=True)
    us = statistics.median(float(x) for x in open(tf).read().split())
    if binary:
        with open(out, "rb") as f:
            sig = fvalues.signature(fvalues.read_all(f))
    else:
        sig = [float(x) for x in open(out).read().split()]
    return us, sig


def agree(a, b):
    return len(a) == len(b) and all(
        abs(x - y) <= 0.002 * max(1.0, abs(y)) for x, y in zip(a, b))


def with_c(p, r, work, prefix):
    """One round of program `p` against its C version; returns arrc's and
    C's median microseconds."""
    arrc_bin, c_bin = os.path.join(work, p), os.path.join(work, "c-" + p)
    data = os.path.join(work, p + ".in")
    if r == 0:
        subprocess.run([args.arrc, "build", "-O3", os.path.join(here, p + ".arr"),
                        "-o", arrc_bin], check=True)
        subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", "-I",
                        os.path.join(here, "../baselines/c"),
                        os.path.join(here, p + ".c"), "-o", c_bin, "-lm"], check=True)
        rng = np.random.default_rng(20)
        with open(data, "wb") as f:
            for v in bench_values(os.path.join(here, p + ".arr"), rng):
                fvalues.write_value(f, v)
    tf, out = os.path.join(work, "times"), os.path.join(work, "out")
    runs = [("arrc", prefix + [arrc_bin, "-e", "main", "-b", "-r", str(args.runs), "-t", tf]),
            ("c", prefix + [c_bin, str(args.runs), tf])]
    if r % 2:
        runs.reverse()
    res = {who: timed(cmd, data, tf, out, who == "arrc") for who, cmd in runs}
    if not agree(res["arrc"][1], res["c"][1]):
        print(f"{p}: results differ: arrc {res['arrc'][1]}, C {res['c'][1]}", file=sys.stderr)
    return res["arrc"][0], res["c"][0]


ratios = {}  # (program, entry) -> [ratio per round]
with tempfile.TemporaryDirectory() as work:
    for r in range(args.rounds):
        for p in programs:
            prefix = ["chrt", "-f", "20"] if args.realtime else []
            if os.path.exists(os.path.join(here, p + ".c")):
                us, c_us = with_c(p, r, work, prefix)
                ratios.setdefault((p, "main / C"), []).append((us / c_us, us))
                print(f"round {r + 1}: {p} done", file=sys.stderr)
                continue
            out = os.path.join(work, f"{p}.{r}.json")
            cmd = [args.arrc, "bench", "--runs", str(args.runs), "--json", out,
                   os.path.join(here, p + ".arr")]
            if args.realtime:
                cmd = ["chrt", "-f", "20"] + cmd
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            medians = {}
            for key, rep in json.load(open(out)).items():
                entry = key.rsplit(":", 1)[1]
                # The bench case is the largest; the small test cases are timed too.
                medians[entry] = max(ds["median_us"] for ds in rep["datasets"].values())
            base = medians["canonical"]
            for entry, us in medians.items():
                ratios.setdefault((p, entry), []).append((us / base, us))
            print(f"round {r + 1}: {p} done", file=sys.stderr)

print(f"{'program':<10} {'entry':<14} {'median ms':>9}  ratio min/median/max")
for (p, entry), rs in ratios.items():
    rv = [x for x, _ in rs]
    ms = statistics.median(us for _, us in rs) / 1000
    # A variant over 1.5x its canonical entry, or a program over 1.1x its C.
    limit = 1.1 if entry == "main / C" else 1.5
    flag = "  CLIFF" if statistics.median(rv) > limit else ""
    print(f"{p:<10} {entry:<14} {ms:>9.2f}  "
          f"{min(rv):.2f}/{statistics.median(rv):.2f}/{max(rv):.2f}{flag}")
