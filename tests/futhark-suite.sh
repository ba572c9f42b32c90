#!/usr/bin/env bash
# How much of Futhark's own test suite and benchmark suite arrc runs
# unmodified (issue 22; the latest table is in docs/futhark.md).
#
#   bash tests/futhark-suite.sh PATH_TO_FUTHARK_CHECKOUT \
#       [--benchmarks PATH_TO_FUTHARK_BENCHMARKS_CHECKOUT] [--jobs N] \
#       [--folders soacs,hist] [--per-folder] [--json OUT]
#
# The suites are fetched by whoever runs this (git clone
# https://github.com/diku-dk/futhark and .../futhark-benchmarks) and are
# never copied into this repository. Prints a Markdown table per folder
# (passed, failed, rejected at compile time) and the most common reasons.
# Not part of tests/run-all.sh: it needs the checkouts and takes a while.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 1 ]; then
    sed -n '2,13p' "$0"
    exit 2
fi
if [ ! -x "$here/../target/release/arrc" ]; then
    (cd "$here/.." && cargo build --release)
fi
exec python3 "$here/futhark_suite.py" "$@"
