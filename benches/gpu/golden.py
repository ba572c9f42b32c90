#!/usr/bin/env python3
"""Runs an exported golden suite (src/driver/export.rs: `ARRC_TEST_EXPORT=DIR
arrc test --target nvptx-emu PATHS`) on a machine with a GPU but no arrc,
each case's binary against the reference interpreter's outcome, optionally
under NVIDIA's compute-sanitizer:

    python3 benches/gpu/golden.py DIR                      # plain runs
    python3 benches/gpu/golden.py DIR --sanitizer memcheck,racecheck

A case passes when the binary prints the interpreter's values (floats
within a relative 0.002, or bit for bit where the case says `exact`, zeros
of either sign alike, as `arrc test` compares) or fails with exit 1 or 2
and the interpreter's message, and (under a sanitizer) the sanitizer
reports nothing (`--error-exitcode 99`). --deadline stops starting cases
after that many seconds. Prints one line a failure and `N passed, N failed,
N skipped` (skipped: not started before the deadline) for each pass; with
--out, the same as a markdown page. Exit 1 on any failure."""
import argparse
import concurrent.futures
import io
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "baselines"))
import fvalues  # noqa: E402

TOLERANCE = 0.002


def same_values(got, want, exact):
    if len(got) != len(want):
        return f"{len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"result {i + 1}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        if w.dtype.kind != "f":
            if not np.array_equal(g, w):
                return f"result {i + 1} differs"
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        nan = np.isnan(g64) & np.isnan(w64)
        if exact:
            ok = nan | (g64 == w64)  # -0.0 == 0.0: zeros of either sign agree
            if not ok.all() and w.dtype == g.dtype:
                ok |= (g.view(np.uint8).reshape(g.shape + (-1,)) == w.view(np.uint8).reshape(w.shape + (-1,))).all(-1)
        else:
            with np.errstate(invalid="ignore"):
                ok = nan | (g64 == w64) | (np.abs(g64 - w64) <= TOLERANCE * np.maximum(1.0, np.abs(w64)))
        if not ok.all():
            k = int(np.argmin(ok.reshape(-1)))
            return (f"result {i + 1}{' (exact)' if exact else ''}: element {k} is {g64.reshape(-1)[k]!r}, "
                    f"expected {w64.reshape(-1)[k]!r}")
    return None


def find_sanitizer():
    for c in (shutil.which("compute-sanitizer"), "/usr/local/cuda/bin/compute-sanitizer"):
        if c and os.path.exists(c):
            return c
    return None


def run_case(root, case, sanitizer, timeout):
    cmd = [os.path.join(root, case["exe"]), "-e", case["entry"], "-b"]
    if sanitizer:
        cmd = [find_sanitizer(), "--tool", sanitizer, "--error-exitcode", "99", "--print-limit", "5"] + cmd
    with open(os.path.join(root, case["input"]), "rb") as f:
        try:
            r = subprocess.run(cmd, stdin=f, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"timed out after {timeout} s"
    err = r.stderr.decode(errors="replace")
    if r.returncode == 99 and sanitizer:
        lines = [ln for ln in err.splitlines() if ln.startswith("========")]
        return f"{sanitizer}: " + " | ".join(lines[:6])
    if case["error"] is not None:
        own = [ln for ln in err.splitlines() if not ln.startswith("========")]
        first = own[0].strip() if own else ""
        first = first[len("Error: "):] if first.startswith("Error: ") else first
        if r.returncode not in (1, 2):
            return f"exit {r.returncode}, expected the error `{case['error']}`: {err.strip()[-300:]}"
        return None if first == case["error"] else f"error `{first}`, expected `{case['error']}`"
    if r.returncode != 0:
        return f"exit {r.returncode}: {err.strip()[-300:]}"
    try:
        got = fvalues.read_all(io.BytesIO(r.stdout))
        with open(os.path.join(root, case["output"]), "rb") as f:
            want = fvalues.read_all(f)
    except (ValueError, EOFError, KeyError) as e:
        return f"unreadable output: {e}"
    return same_values(got, want, case["exact"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--sanitizer", default="", help="comma-separated compute-sanitizer tools, after a plain pass")
    ap.add_argument("--no-plain", action="store_true", help="skip the plain pass")
    ap.add_argument("--deadline", type=float, default=1e9, help="seconds after which no case starts")
    ap.add_argument("--jobs", type=int, default=4, help="cases at once")
    ap.add_argument("--timeout", type=float, default=120, help="seconds a case may take")
    ap.add_argument("--shrink", action="store_true",
                    help="ARRC_GPU_SHRINK=1: small blocks and grids, so small inputs take the multi-block paths")
    ap.add_argument("--out", help="markdown summary to write")
    args = ap.parse_args()
    if args.shrink:
        os.environ["ARRC_GPU_SHRINK"] = "1"
    cases = [json.loads(ln) for ln in open(os.path.join(args.dir, "cases.jsonl")) if ln.strip()]
    passes = ([] if args.no_plain else [""]) + [t for t in args.sanitizer.split(",") if t]
    t0 = time.time()
    page = ["# arrc's golden suite on the GPU\n"]
    gpu = subprocess.run(["sh", "-c", "nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1"],
                         capture_output=True, text=True).stdout.strip()
    page.append(f"{len(cases)} cases of {len({c['exe'] for c in cases})} programs, "
                f"GPU: {gpu or 'none found'}{', ARRC_GPU_SHRINK=1' if args.shrink else ''}.\n")
    failed_any = False
    for tool in passes:
        name = tool or "plain"
        if tool and not find_sanitizer():
            page.append(f"## {name}\n\nnot run: compute-sanitizer not found\n")
            print(f"{name}: not run: compute-sanitizer not found", file=sys.stderr)
            failed_any = True
            continue
        results = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {}
            for i, c in enumerate(cases):
                if time.time() - t0 > args.deadline:
                    break
                futures[pool.submit(run_case, args.dir, c, tool, args.timeout)] = i
                # keep at most a few queued, so the deadline is honoured
                while len([f for f in futures if not f.done()]) >= 2 * args.jobs:
                    time.sleep(0.01)
            for f, i in futures.items():
                results[i] = f.result()
        fails = [(cases[i]["case"], why) for i, why in sorted(results.items()) if why]
        skipped = len(cases) - len(results)
        summary = f"{len(results) - len(fails)} passed, {len(fails)} failed, {skipped} skipped"
        page.append(f"## {name}\n\n{summary} ({time.time() - t0:.0f} s so far)\n")
        page.extend(f"- {what}: `{why}`" for what, why in fails)
        page.append("")
        for what, why in fails:
            print(f"FAIL [{name}] {what}: {why}")
        print(f"{name}: {summary}", file=sys.stderr)
        failed_any |= bool(fails)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(page))
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
