#!/usr/bin/env bash
# arrc's loop-nest counts against the `structure` blocks of Futhark's own
# fusion tests (issue 21; the latest table is in docs/fusion.md).
#
#   bash tests/futhark-fusion.sh PATH_TO_FUTHARK_CHECKOUT
#
# The checkout is fetched by whoever runs this (git clone
# https://github.com/diku-dk/futhark) and never copied into this
# repository. Not part of tests/run-all.sh: it needs the checkout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 1 ]; then
    sed -n '2,9p' "$0"
    exit 2
fi
if [ ! -x "$here/../target/release/arrc" ]; then
    (cd "$here/.." && cargo build --release)
fi
exec python3 "$here/futhark_fusion.py" "$@"
