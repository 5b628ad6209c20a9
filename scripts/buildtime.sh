#!/usr/bin/env bash
# Build time of a crate of 200 `#[tool]`s against the same functions written by
# hand (issue 9, "Build time"). Generates a workspace of its own (with this
# repository's Cargo.lock) of three crates:
#
#   tools     200 `#[tool]` functions;
#   control   the same 200 functions, each with its argument struct deriving
#             serde's `Deserialize` and schemars' `JsonSchema` by hand;
#   handlers  `control` plus a hand-written dispatcher per tool (`from_str` into
#             the struct, the call, `to_value`): what an application without
#             toolkit also compiles to call its tools.
#
# The dependencies are built once, untimed. Then RUNS rounds each build the three
# crates in turn (tools, control, handlers, tools, control, ...: interleaved, so a
# change in the machine's load falls on all three alike), dev profile, no
# incremental compilation, the crate's source touched first so only it
# recompiles. Each build's CPU time (user + system of cargo and the rustc it
# runs, from /usr/bin/time) is the figure: on a shared machine it moves far less
# with the load than the wall time, which is printed beside it. The script
# prints every build, the medians and the ratios of the medians.
#
# It builds into CARGO_TARGET_DIR (default: this repository's target/) and
# generates the crates under BUILDTIME_DIR (default: $CARGO_TARGET_DIR/buildtime).
# On a machine where others build too, give it a target dir of its own, so the
# shared one's lock does not serialize it behind them (the first run then builds
# toolkit's dependencies there, untimed):
#
#   CARGO_TARGET_DIR=/tmp/buildtime-target scripts/buildtime.sh 7
#
# Two copies of this workspace (say, of two checkouts of toolkit) must not share
# a target dir: cargo names a path package's build by its path relative to its
# workspace root, so the second copy's `control` and `handlers` look already
# built and nothing is compiled (the script stops when a build takes no time).
#
# Usage: scripts/buildtime.sh [RUNS]   (default 5)
set -euo pipefail

RUNS=${1:-5}
TOOLS=200
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
DIR=${BUILDTIME_DIR:-$CARGO_TARGET_DIR/buildtime}
export CARGO_INCREMENTAL=0

[ -x /usr/bin/time ] || { echo "needs GNU time as /usr/bin/time (Debian: apt-get install time)" >&2; exit 1; }
mkdir -p "$DIR"
cp "$ROOT/Cargo.lock" "$DIR/Cargo.lock"
cat > "$DIR/Cargo.toml" <<TOML
[workspace]
resolver = "3"
members = ["tools", "control", "handlers"]

[workspace.dependencies]
toolkit = { path = "$ROOT/toolkit", package = "toolkit-llm" }
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

CRATES=(tools control handlers)
declare -A CPU WALL
for round in $(seq "$RUNS"); do
  for crate in "${CRATES[@]}"; do
    touch "$crate/src/lib.rs"
    # %U and %S include the children cargo waited for: every rustc it ran.
    /usr/bin/time -o "$DIR/time" -f '%U %S %e' cargo build --offline --quiet -p "buildtime-$crate" >&2
    read -r user sys wall <"$DIR/time"
    if [ "$(echo "$user + $sys < 0.5" | bc)" = 1 ]; then
      echo "buildtime-$crate was not rebuilt (another copy of this workspace in the same target dir?)" >&2
      exit 1
    fi
    CPU[$crate]+="$(echo "$user + $sys" | bc) "
    WALL[$crate]+="$wall "
    echo "round $round: $crate $(echo "$user + $sys" | bc) s CPU, $wall s wall" >&2
  done
done

median() { printf '%s\n' $1 | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"; }
declare -A MEDIAN
for crate in "${CRATES[@]}"; do
  MEDIAN[$crate]=$(median "${CPU[$crate]}")
  echo "$crate: CPU ${CPU[$crate]}s (median ${MEDIAN[$crate]} s); wall ${WALL[$crate]}s (median $(median "${WALL[$crate]}") s)"
done
printf 'tools / control (derives only), CPU: %.2fx\n' "$(echo "${MEDIAN[tools]} / ${MEDIAN[control]}" | bc -l)"
printf 'tools / handlers (derives + hand-written dispatch), CPU: %.2fx\n' "$(echo "${MEDIAN[tools]} / ${MEDIAN[handlers]}" | bc -l)"
