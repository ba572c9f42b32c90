#!/usr/bin/env bash
# The whole test suite: dependencies, formatting, lints, then every test
# (unit tests, golden programs on the interpreter and compiled, golden dumps
# and diagnostics).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/deps.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo fmt --check
cargo clippy --all-targets -q -- -D warnings
cargo test
