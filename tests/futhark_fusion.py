#!/usr/bin/env python3
"""arrc's loop-nest counts against the `structure` blocks of Futhark's own
fusion tests (issue 21); see tests/futhark-fusion.sh for the usage.

For every `tests/fusion/**/*.fut` of a Futhark checkout that has a
default-pipeline `structure` line arrc can map (`Screma`, `Hist`, `Loop`:
src/driver/structure.rs), runs `arrc test -s` under `--fusion ilp` and
prints a Markdown table: Futhark's count, arrc's, and whether arrc has at
most Futhark's (`=`), fewer (`better`) or more (`worse`). A file arrc
cannot compile is listed with the first line of its error. `ARRC=path`
runs another arrc binary.
"""
import os
import re
import subprocess
import sys
from pathlib import Path


def structure_counts(text):
    """`(path, count)` pairs of the default-pipeline structure lines."""
    pairs = []
    for m in re.finditer(r"--\s*structure\s*(\w[\w-]*)?\s*\{(.*?)\}", text, re.S):
        if m.group(1):  # another pipeline (gpu, seq-mem, ...)
            continue
        body = re.sub(r"\n\s*--", " ", m.group(2))
        for path, count in re.findall(r"(/?[A-Za-z][\w/]*)\s+(\d+)", body):
            parts = path.strip("/").split("/")
            if all(p in ("Screma", "Hist", "Loop") for p in parts):
                pairs.append((path, int(count)))
    return pairs


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    checkout = Path(sys.argv[1])
    default = Path(__file__).resolve().parent.parent / "target" / "release" / "arrc"
    arrc = Path(os.environ.get("ARRC", default))
    files = sorted((checkout / "tests" / "fusion").rglob("*.fut"))
    rows = []
    tally = {"=": 0, "better": 0, "worse": 0, "cannot compile": 0}
    for f in files:
        expected = structure_counts(f.read_text(errors="replace"))
        if not expected:
            continue
        run = subprocess.run(
            [str(arrc), "test", "-s", "--fusion", "ilp", str(f)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        out = run.stdout + run.stderr
        found = {}
        for path, got, want in re.findall(r"(/?[A-Za-z][\w/]*): (\d+), expected (\d+)", out):
            found[path] = int(got)
        fail = [l for l in out.splitlines() if l.startswith("FAIL") and "expected" not in l]
        name = str(f.relative_to(checkout / "tests" / "fusion"))
        if fail:
            why = fail[0].split(": ", 1)[-1][:70].replace("|", "\\|")
            rows.append((name, ", ".join(f"{p} {c}" for p, c in expected), "-", "cannot compile: " + why))
            tally["cannot compile"] += 1
            continue
        verdicts = []
        arrc_counts = []
        for path, want in expected:
            got = found.get(path, want)
            arrc_counts.append(f"{path} {got}")
            verdicts.append("=" if got == want else ("better" if got < want else "worse"))
        verdict = "worse" if "worse" in verdicts else ("better" if "better" in verdicts else "=")
        tally[verdict] += 1
        rows.append((name, ", ".join(f"{p} {c}" for p, c in expected), ", ".join(arrc_counts), verdict))
    print("| test | Futhark | arrc | |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print(", ".join(f"{k}: {v}" for k, v in tally.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
