#!/usr/bin/env bash
# Build time of a crate of 200 `#[tool]`s against the same functions written by
# hand (issue 9, "Build time"). Generates, under target/buildtime/ (a workspace of
# its own, with this repository's Cargo.lock, building into this repository's
# target dir so the dependencies are already built):
#
#   tools     200 `#[tool]` functions;
#   control   the same 200 functions, each with its argument struct deriving
#             serde's `Deserialize` and schemars' `JsonSchema` by hand;
#   handlers  `control` plus a hand-written dispatcher per tool (`from_str` into
#             the struct, the call, `to_value`): what an application without
#             toolkit also compiles to call its tools.
#
# Each crate is built RUNS times (dev profile, no incremental compilation), its
# source touched before each build so only that crate recompiles; the script
# prints each median and the ratios.
#
# Usage: scripts/buildtime.sh [RUNS]   (default 3)
set -euo pipefail

RUNS=${1:-3}
TOOLS=200
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$ROOT/target/buildtime
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export CARGO_INCREMENTAL=0

mkdir -p "$DIR"
cp "$ROOT/Cargo.lock" "$DIR/Cargo.lock"
cat > "$DIR/Cargo.toml" <<TOML
[workspace]
resolver = "3"
members = ["tools", "control", "handlers"]

[workspace.dependencies]
toolkit = { path = "$ROOT/toolkit" }
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["preserve_order"] }
schemars = { version = "1.2", features = ["preserve_order"] }
TOML

# The parameters of tool $1: three shapes, so the argument types vary as real ones do.
params() {
  case $(($1 % 3)) in
    0) printf '    /// What to look for.\n    query: String,\n    /// At most this many.\n    limit: Option<u32>,\n' ;;
    1) printf '    /// The record.\n    id: u32,\n    /// Labels to set.\n    labels: Vec<String>,\n    /// Keep it on top.\n    pinned: bool,\n' ;;
    *) printf '    /// The items to create.\n    items: Vec<Item>,\n' ;;
  esac
}
# The argument names, for the call.
names() {
  case $(($1 % 3)) in
    0) echo "query, limit" ;;
    1) echo "id, labels, pinned" ;;
    *) echo "items" ;;
  esac
}
body() {
  case $(($1 % 3)) in
    0) echo "Ok(vec![format!(\"{query} {}\", limit.unwrap_or($1))])" ;;
    1) echo "Ok(vec![format!(\"{id} {} {pinned}\", labels.len())])" ;;
    *) echo "Ok(items.into_iter().map(|item| item.title).collect())" ;;
  esac
}

ITEM='/// An item to create.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// Its title.
    pub title: String,
    /// When it is due.
    pub due: Option<String>,
}
'

generate() { # crate, kind
  local crate=$1 kind=$2 src="$DIR/$1/src"
  mkdir -p "$src"
  local deps='serde.workspace = true
schemars.workspace = true
serde_json.workspace = true'
  [ "$kind" = tools ] && deps="toolkit.workspace = true
$deps"
  cat > "$DIR/$crate/Cargo.toml" <<TOML
[package]
name = "buildtime-$crate"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$deps
TOML
  {
    echo "#![allow(missing_docs, clippy::all)]"
    [ "$kind" = tools ] && echo "use toolkit::tool;"
    echo "$ITEM"
    for i in $(seq 0 $((TOOLS - 1))); do
      local p; p=$(params "$i")
      if [ "$kind" = tools ]; then
        printf '/// Tool %d of the generated set.\n#[tool(scope = shared, tier = auto)]\npub fn get_item_%d(\n%s) -> Result<Vec<String>, String> {\n    %s\n}\n\n' \
          "$i" "$i" "$p" "$(body "$i")"
      else
        local fields; fields=$(printf '%s\n' "$p" | sed 's/^    \([a-z]*\): /    pub \1: /')
        printf '/// The arguments of tool %d.\n#[derive(serde::Deserialize, schemars::JsonSchema)]\n#[serde(deny_unknown_fields)]\npub struct Tool%dArguments {\n%s\n}\n\n' \
          "$i" "$i" "$fields"
        # Plain functions take no doc comments on parameters; the struct has them.
        printf '/// Tool %d of the generated set.\npub fn get_item_%d(\n%s\n) -> Result<Vec<String>, String> {\n    %s\n}\n\n' \
          "$i" "$i" "$(printf '%s\n' "$p" | grep -v '///')" "$(body "$i")"
        if [ "$kind" = handlers ]; then
          local n; n=$(names "$i")
          printf '/// Calls tool %d with the model'"'"'s JSON arguments.\npub fn call_tool_%d(arguments: &str) -> Result<serde_json::Value, String> {\n    let Tool%dArguments { %s } = serde_json::from_str(arguments).map_err(|error| error.to_string())?;\n    let value = get_item_%d(%s)?;\n    serde_json::to_value(value).map_err(|error| error.to_string())\n}\n\n' \
            "$i" "$i" "$i" "$n" "$i" "$n"
        fi
      fi
    done
    if [ "$kind" != tools ]; then
      echo "/// Every tool's argument schema."
      echo "pub fn schemas() -> Vec<schemars::Schema> {"
      echo "    vec!["
      for i in $(seq 0 $((TOOLS - 1))); do echo "        schemars::schema_for!(Tool${i}Arguments),"; done
      echo "    ]"
      echo "}"
    fi
  } > "$src/lib.rs"
}

generate tools tools
generate control control
generate handlers handlers

cd "$DIR"
echo "building the dependencies once (not timed)..." >&2
cargo build --offline --quiet -p buildtime-tools -p buildtime-control -p buildtime-handlers >&2

declare -A MEDIAN
for crate in tools control handlers; do
  times=()
  for _ in $(seq "$RUNS"); do
    touch "$crate/src/lib.rs"
    start=$(date +%s.%N)
    cargo build --offline --quiet -p "buildtime-$crate" >&2
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  MEDIAN[$crate]=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  echo "$crate: ${times[*]} s (median ${MEDIAN[$crate]} s)"
done
printf 'tools / control (derives only): %.2fx\n' "$(echo "${MEDIAN[tools]} / ${MEDIAN[control]}" | bc -l)"
printf 'tools / handlers (derives + hand-written dispatch): %.2fx\n' "$(echo "${MEDIAN[tools]} / ${MEDIAN[handlers]}" | bc -l)"
