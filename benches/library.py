#!/usr/bin/env python3
"""Python module overhead: calls per second of a small kernel and the time
of a call returning a 10M-element array, for this checkout's arrc and a
baseline arrc binary, in the same run, rounds alternating between them.
Prints min/median/max of each and the ratios (new / baseline).

Usage: python3 benches/library.py BASELINE_ARRC [ROUNDS]
(build this checkout first: cargo build --release)."""

import os
import statistics
import subprocess
import sys
import tempfile

PROGRAM = """
entry small (xs: []f32) : []f32 = map (\\x -> 2 * x + 1) xs
entry big (n: i64) : []f32 = map (\\i -> f32.i64 i * 0.5) (iota n)
"""

MEASURE = r"""
import sys, time, numpy as np
sys.path.insert(0, sys.argv[1])
import prog
ctx = prog.Context(threads=1)
xs = np.ones(100, dtype=np.float32)
for _ in range(200):
    ctx.small(xs)
n = 3000
t0 = time.perf_counter()
for _ in range(n):
    ctx.small(xs)
calls = n / (time.perf_counter() - t0)
ctx.big(10_000_000)
best = float("inf")
for _ in range(3):
    t0 = time.perf_counter()
    r = ctx.big(10_000_000)
    r.sum()
    best = min(best, time.perf_counter() - t0)
    del r
print(calls, best * 1000)
"""


def build(arrc, where):
    src = os.path.join(where, "prog.arr")
    with open(src, "w") as f:
        f.write(PROGRAM)
    subprocess.run([arrc, "build", "--python", src], check=True)


def main():
    baseline = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    new = os.path.join(here, "target", "release", "arrc")
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {"baseline": os.path.join(tmp, "base"), "new": os.path.join(tmp, "new")}
        for name, arrc in (("baseline", baseline), ("new", new)):
            os.mkdir(dirs[name])
            build(arrc, dirs[name])
        results = {name: ([], []) for name in dirs}
        for _ in range(rounds):
            for name in ("baseline", "new"):
                out = subprocess.run(
                    [sys.executable, "-c", MEASURE, dirs[name]],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.split()
                results[name][0].append(float(out[0]))
                results[name][1].append(float(out[1]))

    def mmm(v):
        return min(v), statistics.median(v), max(v)

    print("%d rounds; one thread" % rounds)
    for i, what in enumerate(["small kernel, calls/s", "10M-element result, ms"]):
        b, n = mmm(results["baseline"][i]), mmm(results["new"][i])
        print("%-24s baseline %9.1f / %9.1f / %9.1f   new %9.1f / %9.1f / %9.1f   (min/median/max)"
              % ((what,) + b + n))
        print("%-24s new / baseline: %.2f / %.2f / %.2f" % ("", n[0] / b[0], n[1] / b[1], n[2] / b[2]))


if __name__ == "__main__":
    main()
