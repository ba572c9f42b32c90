#!/usr/bin/env python3
"""Times the idiomatic variants in this folder against their `canonical`
entry (issue 20: a variant over 1.5x the canonical time is a cliff).

Each program is timed by `arrc bench` in `--rounds` interleaved rounds (all
programs once per round, under `chrt -f 20` with --realtime); each round's
per-entry median is divided by that round's canonical median, and the table
gives min/median/max of those ratios over the rounds.

    benches/variants/run.py [--arrc target/release/arrc] [--rounds 3]
        [--runs 5] [--realtime] [PROGRAM ...]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

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

ratios = {}  # (program, entry) -> [ratio per round]
with tempfile.TemporaryDirectory() as work:
    for r in range(args.rounds):
        for p in programs:
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
    flag = "  CLIFF" if statistics.median(rv) > 1.5 else ""
    print(f"{p:<10} {entry:<14} {ms:>9.2f}  "
          f"{min(rv):.2f}/{statistics.median(rv):.2f}/{max(rv):.2f}{flag}")
