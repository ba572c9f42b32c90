#!/usr/bin/env python3
"""Read-only streams against the STREAM triad on this machine (issue 20).

Builds readbw.c (hand-written AVX-512 loops in arrc's conditions, see its
header) and, with --arrc, arrc's sumsq, dotprod and triad from
benches/programs, then runs every case ROUNDS times, interleaved with the
order rotating per round, each a process of a warm-up and RUNS timed runs
(compare.py's shape). Prints per case the median of the processes' medians
(min-max of those medians), the bytes it must move over that time, and the
fraction of the triad of the same size and thread count in the same run.

  python3 benches/membw/run.py [--rounds 3] [--realtime] [--arrc PATH] [--cases A,B]

The cases: `fresh` (50M f32 as in compare.py: arrc's executables beside the
C loops with 1, 2, 4 and 8 streams per chunk), `flush` (every array flushed
from the caches before each timed run), `large` (arrays 8x larger, beyond
any share of the L3), `one` (one thread), `long` (40 runs in one process:
the first 5 against the last 10, with and without the flush).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
N = 50_000_000
BIG = 400_000_000
BYTES = {"sumsq": 4, "dot": 8, "triad": 12}


def cases(which, have_arrc):
    """(group, label, kind, n, env, runs, arrc program or None)"""
    out = []
    if "fresh" in which:
        if have_arrc:
            out += [("2T 50M", "arrc sumsq", "sumsq", N, {}, 5, "sumsq"),
                    ("2T 50M", "arrc dotprod", "dot", N, {}, 5, "dotprod"),
                    ("2T 50M", "arrc triad", "triad", N, {}, 5, "triad")]
        out += [("2T 50M", f"C sumsq S={s}", "sumsq", N, {"S": str(s), "PF": str(pf)}, 5, None)
                for s, pf in ((1, 4096), (2, 4096), (4, 2048), (8, 1024))]
        out += [("2T 50M", f"C dot S={s}", "dot", N, {"S": str(s), "PF": "2048"}, 5, None)
                for s in (1, 2)]
        out += [("2T 50M", "C triad", "triad", N, {}, 5, None)]
    if "flush" in which:
        out += [("2T 50M flushed", "C sumsq S=2", "sumsq", N, {"FLUSH": "1"}, 5, None),
                ("2T 50M flushed", "C triad", "triad", N, {"FLUSH": "1"}, 5, None)]
    if "large" in which:
        out += [("2T 400M", "C sumsq S=2", "sumsq", BIG, {}, 5, None),
                ("2T 400M", "C sumsq S=4", "sumsq", BIG, {"S": "4", "PF": "2048"}, 5, None),
                ("2T 400M", "C dot S=2", "dot", BIG // 2, {"PF": "2048"}, 5, None),
                ("2T 400M", "C triad", "triad", BIG, {}, 5, None)]
    if "one" in which:
        one = {"THREADS": "1", "ARRC_THREADS": "1"}
        if have_arrc:
            out += [("1T 50M", "arrc sumsq", "sumsq", N, one, 5, "sumsq"),
                    ("1T 50M", "arrc triad", "triad", N, one, 5, "triad")]
        out += [("1T 50M", "C sumsq S=2", "sumsq", N, one, 5, None),
                ("1T 50M", "C sumsq S=4", "sumsq", N, dict(one, S="4", PF="2048"), 5, None),
                ("1T 50M", "C triad", "triad", N, one, 5, None)]
    if "long" in which:
        out += [("2T 50M, 40 runs", "C sumsq S=2", "sumsq", N, {}, 40, None),
                ("2T 50M, 40 runs", "C sumsq S=2 flushed", "sumsq", N, {"FLUSH": "1"}, 40, None)]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--realtime", action="store_true", help="every process under `chrt -f 20`")
    ap.add_argument("--arrc", help="an arrc binary: its sumsq, dotprod and triad run too")
    ap.add_argument("--cases", default="fresh,flush,large,one,long")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="arrc-membw-")
    exe = os.path.join(work, "readbw")
    subprocess.run(["gcc", "-O3", "-march=native", "-pthread", "-o", exe,
                    os.path.join(HERE, "readbw.c")], check=True)
    inputs = {}
    if args.arrc:
        data = os.path.join(os.environ.get("ARRC_BENCH_DATA", "/tmp/arrc-bench-data"), "full")
        subprocess.run([sys.executable, os.path.join(ROOT, "benches", "baselines", "gen_data.py"),
                        data, "full"], check=True)
        for prog, names in (("sumsq", ["x"]), ("dotprod", ["x", "y"]), ("triad", ["s3", "x", "y"])):
            subprocess.run([args.arrc, "build", "-O3", os.path.join(ROOT, "benches", "programs",
                            prog + ".arr"), "-o", os.path.join(work, "arrc-" + prog)], check=True)
            inputs[prog] = os.path.join(work, prog + ".in")
            with open(inputs[prog], "wb") as f:
                for name in names:
                    with open(os.path.join(data, name + ".bin"), "rb") as g:
                        f.write(g.read())
    todo = cases(args.cases.split(","), bool(args.arrc))
    prefix = ["chrt", "-f", "20"] if args.realtime else []
    tf = os.path.join(work, "times")
    meds = {c[:2]: [] for c in todo}
    runs_of = {c[:2]: [] for c in todo}
    loads = []
    for r in range(args.rounds):
        k = r % len(todo)
        for group, label, kind, n, env, runs, prog in todo[k:] + todo[:k]:
            e = dict(os.environ, **env)
            if prog:
                with open(inputs[prog], "rb") as f:
                    subprocess.run(prefix + [os.path.join(work, "arrc-" + prog), "-r", str(runs),
                                   "-t", tf, "-b"], stdin=f, stdout=subprocess.DEVNULL,
                                   env=e, check=True)
            else:
                subprocess.run(prefix + [exe, kind, str(n), str(runs), tf],
                               stdout=subprocess.DEVNULL, env=e, check=True)
            with open(tf) as f:
                ts = [int(x) / 1000 for x in f.read().split()]
            runs_of[(group, label)].append(ts)
            meds[(group, label)].append(statistics.median(ts if runs <= 5 else ts[:5]))
        loads.append(os.getloadavg()[0])
        print(f"round {r + 1}/{args.rounds}, load {loads[-1]:.1f}", file=sys.stderr)
    cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                         capture_output=True, text=True).stdout.strip()
    print(f"{cpu}; load {min(loads):.1f}-{max(loads):.1f}; {args.rounds} rounds"
          f"{', chrt -f 20' if args.realtime else ''}")
    triad = {}
    for group, label, kind, n, env, runs, prog in todo:
        if kind == "triad":
            gbs = BYTES[kind] * n / statistics.median(meds[(group, label)]) / 1e6
            triad[group] = max(triad.get(group, 0), gbs)
    for group, label, kind, n, env, runs, prog in todo:
        m = meds[(group, label)]
        gbs = BYTES[kind] * n / statistics.median(m) / 1e6
        ref = group if group in triad else "2T 50M"
        frac = f"{100 * gbs / triad[ref]:4.0f}% of the triad ({ref})" if ref in triad else ""
        print(f"{group:<18}{label:<22}{statistics.median(m):9.2f} ms ({min(m):.2f}-{max(m):.2f})"
              f"{gbs:7.1f} GB/s  {frac}")
        if runs > 5:
            last = [statistics.median(ts[-10:]) for ts in runs_of[(group, label)]]
            gbs = BYTES[kind] * n / statistics.median(last) / 1e6
            frac = f"{100 * gbs / triad[ref]:4.0f}% of the triad ({ref})" if ref in triad else ""
            print(f"{'':<18}{'  runs 31-40':<22}{statistics.median(last):9.2f} ms "
                  f"({min(last):.2f}-{max(last):.2f}){gbs:7.1f} GB/s  {frac}")


if __name__ == "__main__":
    main()
