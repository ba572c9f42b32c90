#!/usr/bin/env bash
# The GPU session's one command, run on the device machine from the
# repository root with the folder that `benches/compare.py --target nvptx
# --prepare DIR` filled here (docs/gpu.md, "Measuring on a GPU"):
#
#   bash benches/gpu/run_on_gpu.sh DIR
#
# 1. benchmarks: arrc's binaries against the CUDA baselines and jax.jit on
#    the GPU, the copy yardstick (benches/gpu/compare_gpu.py), stopping new
#    runs after $BENCH_SECONDS (default 300);
# 2. the golden suite: every exported case plain, then under
#    compute-sanitizer's memcheck and racecheck, with shrunk launches
#    (benches/gpu/golden.py), stopping new cases after $GOLDEN_SECONDS
#    (default 150).
# Results go to $OUT (the device tool's folder that comes back; default
# /tmp/arrc-gpu-out): gpu-performance.md, golden.md, the logs and raw times.
set -u
dir=${1:?usage: run_on_gpu.sh DIR}
out=${OUT:-/tmp/arrc-gpu-out}
mkdir -p "$out"
cd "$(dirname "$0")/../.."
{ nvidia-smi; command -v nvcc && nvcc --version; command -v compute-sanitizer; } > "$out/machine.txt" 2>&1
python3 benches/compare.py --target nvptx --prebuilt "$dir" --out "$out/gpu-performance.md" \
    --work "$out/bench" --deadline "${BENCH_SECONDS:-300}" ${BENCH_ARGS:-} > "$out/bench.log" 2>&1
echo "benchmarks: exit $? (log: bench.log)"
python3 benches/gpu/golden.py "$dir/golden" --shrink --sanitizer memcheck,racecheck \
    --deadline "${GOLDEN_SECONDS:-150}" --jobs 8 --timeout 60 --out "$out/golden.md" > "$out/golden.log" 2>&1
echo "golden suite: exit $? (log: golden.log)"
tail -n 3 "$out/golden.log"
