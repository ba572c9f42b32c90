#!/usr/bin/env bash
# Installs what arrc needs, builds it, compiles examples/normalise2.arr to a
# native executable and runs it on examples/normalise2.in.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/deps.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release -q
target/release/arrc build examples/normalise2.arr -o examples/normalise2
echo "input:  $(cat examples/normalise2.in)"
echo "output (ys1, ys2):"
examples/normalise2 < examples/normalise2.in
