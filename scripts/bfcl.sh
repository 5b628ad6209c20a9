#!/usr/bin/env bash
# Routes every question of BFCL v4 `multiple` and `live_multiple` against one
# catalog pooling all their functions, with toolkit's LexicalRouter and plain BM25
# side by side, and prints the table of BENCHMARKS.md (labelled set first).
#
# BFCL (Apache-2.0) is downloaded as a wheel with pip into a temporary directory;
# nothing of it is committed. Usage: scripts/bfcl.sh [--misses]
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps bfcl-eval -d "$work"
wheel="$(ls "$work"/bfcl_eval-*.whl)"
echo "BFCL wheel: $(basename "$wheel")"
python3 -m zipfile -e "$wheel" "$work/unpacked"
cargo run --release --quiet -p routing-bench --bin routing -- --bfcl "$work/unpacked/bfcl_eval/data" "$@"
