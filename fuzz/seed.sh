#!/usr/bin/env bash
# Seeds the fuzzers' corpora from the test suite: every .arr program for
# parse_check; data files and the text inputs of test blocks (behind a
# first byte choosing the parameter type) for value_reader.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/parse_check corpus/value_reader
find ../tests ../examples ../benches/programs ../stdlib -name '*.arr' | while read -r f; do
  cp "$f" "corpus/parse_check/$(echo "$f" | tr '/.' '__')"
done
k=0
for f in $(find ../tests ../examples -name '*.in' -o -name '*.out' -o -name '*.bin*' | grep -v '\.py$'); do
  k=$((k + 1)); { printf '\x02'; cat "$f"; } > "corpus/value_reader/file$k"
done
grep -rhoE 'input \{[^}]*\}' ../tests ../examples | sed -E 's/^input \{(.*)\}$/\1/' | head -2000 |
  while IFS= read -r line; do
    k=$((k + 1)); { printf "\\x$(printf %02x $((k % 44)))"; printf '%s' "$line"; } > "corpus/value_reader/text$k"
  done
echo "parse_check: $(ls corpus/parse_check | wc -l) seeds, value_reader: $(ls corpus/value_reader | wc -l) seeds"
