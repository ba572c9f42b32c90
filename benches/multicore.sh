#!/usr/bin/env bash
# Multicore speed-up: times blackscholes, mandelbrot and n-body (benches/programs)
# with 1 and 2 threads in the same `arrc bench` run, case by case, and prints
# the speed-up of each program's largest case (sized to run about a second on
# one thread), from the fastest runs and from the medians: this VM's steal
# time makes single runs vary by a third. Usage: bash benches/multicore.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
cargo build --release --quiet
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for p in blackscholes mandelbrot nbody; do
    ./target/release/arrc bench -O3 --runs "$runs" --threads 1,2 \
        --json "$out/$p.json" "benches/programs/$p.arr"
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
print(f"{'program':<14}{'1 thread, min/median (ms)':>28}{'2 threads, min/median (ms)':>29}"
      f"{'speed-up, min/median':>23}")
for p in ["blackscholes", "mandelbrot", "nbody"]:
    ms = json.load(open(os.path.join(out, p + ".json")))
    line = max(ms, key=lambda m: m["median_us"])["line"]
    t = {m["threads"]: m for m in ms if m["line"] == line}
    one, two = t[1]["min_us"] / 1000, t[2]["min_us"] / 1000
    one_m, two_m = t[1]["median_us"] / 1000, t[2]["median_us"] / 1000
    print(f"{p:<14}{one:>15.1f} / {one_m:<10.1f}{two:>16.1f} / {two_m:<10.1f}"
          f"{one / two:>13.2f}x / {one_m / two_m:.2f}x")
PY
