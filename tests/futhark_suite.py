#!/usr/bin/env python3
"""Measures how much of Futhark's own test suite and benchmark suite arrc
runs unmodified (issue 22). Called by tests/futhark-suite.sh; see there.

Futhark's tests: every .fut file of the language-feature folders, run with
`arrc test --threads 1,2`. A file is *runnable* when a block has a case with
an input, a *compile-error test* when its blocks only expect a compile error
(`error:` without an input), and otherwise has nothing to run (a library
another test imports, or `structure` lines only). A runnable file *passes*
when every case passes on the interpreter and compiled, is *rejected* when
arrc refuses to compile it, and *fails* otherwise.

Benchmarks: every .fut file outside `lib/` folders must type-check
(`arrc check`). Those that do are run on made-up small inputs (every
dimension 4, integers 0..3, floats in (0, 2)): the case passes when the
interpreter and the compiled program both succeed and agree.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

FOLDERS = [
    "soacs", "fusion", "hist", "scatter", "loops", "primitive", "operator",
    "higher-order-functions", "rosettacode", "tiling", "segredomap", "update",
    "constants", "overflowing", "safety", "shapes", "types", "uniqueness",
    "sumtypes", "enums", "modules", "attributes", "existential-ifs", "flattening",
]

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def blocks(source):
    """The text of each `-- ==` test block (its comment lines after `==`)."""
    out, lines, i = [], source.splitlines(), 0
    while i < len(lines):
        if lines[i].strip() == "-- ==":
            i += 1
            body = []
            while i < len(lines) and lines[i].lstrip().startswith("--"):
                if lines[i].strip() == "-- ==":
                    break
                body.append(lines[i].lstrip()[2:])
                i += 1
            out.append("\n".join(body))
        else:
            i += 1
    return out


def kind(source):
    bs = blocks(source)
    if any(re.search(r"tags\s*\{[^}]*\bdisable\b", b) for b in bs):
        return "disabled"
    if any(re.search(r"\binput\s*(\{|@)", b) for b in bs):
        return "runnable"
    if any(re.search(r"^\s*error:", b, re.M) for b in bs):
        return "compile-error"
    return "none"


def run(cmd, timeout, cwd=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=cwd, errors="replace")
        return p.returncode, ANSI.sub("", p.stdout), ANSI.sub("", p.stderr)
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def first_error(text):
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Error:") or line.startswith("error:"):
            return line
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def reason(line):
    """A failure line with locations, paths and long values taken out."""
    line = re.sub(r"^FAIL \S+:\d+ \([^)]*\): ", "", line)
    line = re.sub(r"^FAIL \S+: ", "", line)
    line = re.sub(r"--threads \d+: ", "", line)
    line = re.sub(r"\bat \S+:\d+:\d+", "", line)
    line = re.sub(r"`[^`]{40,}`", "`...`", line)
    line = re.sub(r"\b\d+(\.\d+)?([iuf](8|16|32|64))?\b", "N", line)
    return line.strip()[:110]


def test_file(args, path):
    with open(path, errors="replace") as f:
        source = f.read()
    k = kind(source)
    if k in ("none", "disabled"):
        return k, None
    if k == "compile-error":
        rc, out, err = run([args.arrc, "check", path], args.timeout)
        if rc == 0:
            return "error-accepted", "compiled, but Futhark rejects it"
        return "error-rejected", None
    rc, out, err = run([args.arrc, "check", path], args.timeout)
    if rc is None:
        return "failed", "timeout (type check)"
    if rc != 0:
        return "rejected", reason(first_error(err))
    rc, out, err = run([args.arrc, "test", "--threads", args.threads, path],
                       args.test_timeout)
    if rc is None:
        return "failed", "timeout"
    fails = [l for l in out.splitlines() if l.startswith("FAIL ")]
    if rc == 0 and not fails:
        if re.search(r"^0 passed", out, re.M):
            return "none", None
        return "passed", None
    if not fails:
        return "failed", reason(first_error(err or out))
    first = fails[0]
    if "compilation failed" in first:
        return "rejected", "back end: " + reason(first.split("compilation failed:", 1)[1]
                                                 .strip().splitlines()[0])
    # A rendered diagnostic spans lines: its first line is the message.
    return "failed", reason(first)


def futhark_tests(args):
    tests = os.path.join(args.futhark, "tests")
    jobs = []
    for folder in args.folders:
        for root, dirs, files in os.walk(os.path.join(tests, folder)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".fut"):
                    jobs.append((folder, os.path.join(root, name)))
    results = collections.defaultdict(collections.Counter)
    reasons = collections.Counter()
    folder_reasons = collections.defaultdict(collections.Counter)
    detail = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(test_file, args, p): (f, p) for f, p in jobs}
        for fut in concurrent.futures.as_completed(futures):
            folder, path = futures[fut]
            status, why = fut.result()
            results[folder][status] += 1
            if why:
                reasons[(status, why)] += 1
                folder_reasons[folder][why] += 1
            detail.append((os.path.relpath(path, tests), status, why))
    print("## Futhark's tests (arrc test --threads %s)\n" % args.threads)
    print("| folder | runnable | passed | failed | rejected | compile-error tests rejected | other files |")
    print("|---|---|---|---|---|---|---|")
    total = collections.Counter()
    for folder in args.folders:
        c = results[folder]
        total.update(c)
        runnable = c["passed"] + c["failed"] + c["rejected"]
        errs = c["error-rejected"] + c["error-accepted"]
        print("| %s | %d | %d | %d | %d | %d/%d | %d |" % (
            folder, runnable, c["passed"], c["failed"], c["rejected"],
            c["error-rejected"], errs, c["none"] + c["disabled"]))
    runnable = total["passed"] + total["failed"] + total["rejected"]
    errs = total["error-rejected"] + total["error-accepted"]
    pct = 100.0 * total["passed"] / runnable if runnable else 0.0
    print("| **all** | %d | **%d (%.0f%%)** | %d | %d | %d/%d | %d |" % (
        runnable, total["passed"], pct, total["failed"], total["rejected"],
        total["error-rejected"], errs, total["none"] + total["disabled"]))
    print("\n### Most common reasons (files)\n")
    for (status, why), n in reasons.most_common(args.reasons):
        print("- %d %s: %s" % (n, status, why))
    if args.per_folder:
        for folder in args.folders:
            print("\n### %s\n" % folder)
            for why, n in folder_reasons[folder].most_common(8):
                print("- %d: %s" % (n, why))
    return detail


def entry_params(args, path):
    """Entry points and their parameter types, from the core IR dump."""
    rc, out, err = run([args.arrc, "build", path, "--emit", "core", "-O0"], args.timeout)
    if rc != 0:
        return None
    entries = []
    for m in re.finditer(r"^entry (\S+)[^(]*\(([^)]*)\)", out, re.M):
        params = [p.split(":", 1)[1].strip() for p in m.group(2).split(",") if ":" in p]
        entries.append((m.group(1), params))
    return entries


def made_up_value(ty, seed):
    rank = ty.count("[]")
    elem = ty.replace("[]", "")
    def scalar(i):
        if elem == "bool":
            return "true" if i % 2 else "false"
        if elem.startswith("f"):
            return "%s%s" % (repr(0.1 + 0.3 * (i % 7)), elem)
        return "%d%s" % (i % 4, elem)
    if rank == 0:
        return "4%s" % elem if elem[0] in "iu" else scalar(seed)
    def build(r, base):
        if r == 0:
            return scalar(base)
        return "[" + ", ".join(build(r - 1, base * 4 + i) for i in range(4)) + "]"
    return build(rank, seed)


def bench_file(args, path):
    rc, out, err = run([args.arrc, "check", path], args.timeout)
    if rc is None:
        return "reject", "timeout (type check)", None
    if rc != 0:
        return "reject", reason(first_error(err)), None
    entries = entry_params(args, path)
    if not entries:
        return "checks", None, "no plain entry points"
    with open(path, errors="replace") as f:
        source = f.read()
    source = re.sub(r"^--\s*==\s*$", "-- (a benchmark block, disabled here)", source, flags=re.M)
    block = ["-- =="]
    for name, params in entries:
        values = " ".join(made_up_value(t, i + 1) for i, t in enumerate(params))
        block += ["-- entry: %s" % name, "-- input { %s }" % values]
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(suffix=".fut", prefix="arrc-suite-", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(block) + "\n\n" + source)
    try:
        rc, out, err = run([args.arrc, "test", "--threads", args.threads, tmp],
                           args.test_timeout)
    finally:
        os.unlink(tmp)
    if rc is None:
        return "checks", None, "timeout"
    fails = [l for l in out.splitlines() if l.startswith("FAIL ")]
    if not fails:
        return "checks", None, "agree"
    if "compilation failed" in fails[0]:
        return "checks", None, "back end rejects it"
    if all("interpreter: unexpected error" in l for l in fails):
        return "checks", None, "error on the made-up data"
    return "checks", None, "disagree: " + reason(fails[0])


def benchmarks(args):
    jobs = []
    for root, dirs, files in os.walk(args.benchmarks):
        dirs[:] = sorted(d for d in dirs if d != "lib" and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".fut") and not name.startswith("arrc-suite-"):
                jobs.append(os.path.join(root, name))
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for path, r in zip(jobs, pool.map(lambda p: bench_file(args, p), jobs)):
            results.append((os.path.relpath(path, args.benchmarks),) + r)
    checks = sum(1 for r in results if r[1] == "checks")
    print("\n## futhark-benchmarks\n")
    print("%d of %d programs type-check (%.0f%%)." % (
        checks, len(results), 100.0 * checks / max(1, len(results))))
    runs = collections.Counter(r[3].split(":")[0] for r in results if r[1] == "checks")
    print("On made-up small inputs (every entry point): " + ", ".join(
        "%d %s" % (n, what) for what, n in runs.most_common()) + ".")
    reasons = collections.Counter(r[2] for r in results if r[1] == "reject")
    print("\n### Why the others are rejected\n")
    for why, n in reasons.most_common(args.reasons):
        print("- %d: %s" % (n, why))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("futhark", help="a checkout of github.com/diku-dk/futhark")
    ap.add_argument("--benchmarks", help="a checkout of github.com/diku-dk/futhark-benchmarks")
    ap.add_argument("--arrc", default=os.path.join(os.path.dirname(__file__),
                                                   "..", "target", "release", "arrc"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per type check")
    ap.add_argument("--test-timeout", type=float, default=300, help="seconds per `arrc test`")
    ap.add_argument("--folders", default=",".join(FOLDERS))
    ap.add_argument("--reasons", type=int, default=40, help="how many reasons to list")
    ap.add_argument("--per-folder", action="store_true", help="list reasons per folder")
    ap.add_argument("--json", help="write every file's outcome here")
    args = ap.parse_args()
    args.folders = [f for f in args.folders.split(",") if f]
    if not os.path.exists(args.arrc):
        sys.exit("no arrc at %s: build it first (cargo build --release)" % args.arrc)
    detail = {"tests": futhark_tests(args)} if args.folders else {}
    if args.benchmarks:
        detail["benchmarks"] = benchmarks(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(detail, f, indent=1)


if __name__ == "__main__":
    main()
