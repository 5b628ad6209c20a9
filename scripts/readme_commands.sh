#!/usr/bin/env bash
# Runs every `cargo run` command README.md and the guide's chapters
# (toolkit/src/guide/*.md, the rustdoc modules `toolkit::guide::*`) give, as
# written, so a command that no longer works (a package with several binaries and
# no `--bin`, a renamed binary) fails CI instead of the reader.
#
# Commands come from the ```sh blocks of those files and from inline code spans
# (`cargo run ...`), in README order, then the chapters' order. Each runs from the repository root with a time limit; a
# command that serves (it is still running when the limit is reached) passes when
# it printed `listening on`. `cargo test` / `cargo build` lines are what CI runs
# anyway and are only listed.
#
#   README_TIMEOUT  seconds each command may run (default 600, building included)
#   README_ONLY     run only the commands containing this text
#   README_SKIP     skip the commands containing this text (CI skips `--release`:
#                   a second, optimised build of the workspace is not worth its time)
#   README_BUILT    a target directory whose binaries are current (CI passes the
#                   one `cargo test --workspace` has just built): a `cargo run -p P
#                   [--bin B] [-- ARGS]` whose binary is there runs as `DIR/debug/B
#                   ARGS`, once cargo's metadata says the command names it (P has
#                   B, or exactly one binary or a `default-run` when there is no
#                   --bin). `cargo run -p P` builds P's dependencies with P's
#                   features alone, which are not the test build's, so each such
#                   command rebuilt most of the tree. Anything else runs as written.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
docs=("$root/README.md" "$root"/toolkit/src/guide/*.md)
limit="${README_TIMEOUT:-600}"
cd "$root"

commands=()
for doc in "${docs[@]}"; do
    in_sh=0
    while IFS= read -r line; do
        if [[ "$line" =~ ^\`\`\`(sh|bash|console)$ ]]; then in_sh=1; continue; fi
        if [[ "$line" == '```' ]]; then in_sh=0; continue; fi
        if ((in_sh)) && [[ "$line" =~ ^cargo\ run ]]; then
            commands+=("${line%%#*}")
        fi
    done <"$doc"
    # Inline spans: `cargo run ...`
    while IFS= read -r span; do
        commands+=("$span")
    done < <(grep -o '`cargo run [^`]*`' "$doc" | tr -d '`')
done

# Each command once, trimmed, in order.
mapfile -t commands < <(printf '%s\n' "${commands[@]}" | sed 's/[[:space:]]*$//' | awk 'NF && !seen[$0]++')
((${#commands[@]} > 0)) || { echo "no cargo run command found in README.md or toolkit/src/guide/" >&2; exit 1; }
if [[ -n "${README_SKIP:-}" ]]; then
    for command in "${commands[@]}"; do
        [[ "$command" == *"$README_SKIP"* ]] && echo "skip $command (README_SKIP)"
    done
    mapfile -t commands < <(printf '%s\n' "${commands[@]}" | grep -vF -- "$README_SKIP")
fi
if [[ -n "${README_ONLY:-}" ]]; then
    mapfile -t commands < <(printf '%s\n' "${commands[@]}" | grep -F -- "$README_ONLY")
fi

# The binary `cargo run` would run for "$1", already built under README_BUILT,
# with its arguments, quoted for bash; nothing when the command has any other
# flag, names no binary cargo would pick, or that binary was not built.
built_command() {
    local -a words args=()
    read -ra words <<<"$1"
    local package="" bin="" i=2
    [[ "${words[0]:-} ${words[1]:-}" == "cargo run" ]] || return 0
    while ((i < ${#words[@]})); do
        case "${words[i]}" in
            -p | --package) package="${words[i + 1]:-}"; i=$((i + 2)) ;;
            --bin) bin="${words[i + 1]:-}"; i=$((i + 2)) ;;
            --) args=("${words[@]:i+1}"); break ;;
            *) return 0 ;;
        esac
    done
    [[ -n "$package" ]] || return 0
    local name
    name="$(cargo metadata --format-version 1 --no-deps --offline | python3 -c '
import json, sys
package, wanted = sys.argv[1], sys.argv[2]
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == package:
        names = [t["name"] for t in p["targets"] if "bin" in t["kind"]]
        if wanted:
            print(wanted if wanted in names else "")
        elif len(names) == 1:
            print(names[0])
        elif p.get("default_run") in names:
            print(p["default_run"])
' "$package" "$bin")"
    [[ -n "$name" && -x "$README_BUILT/debug/$name" ]] || return 0
    printf '%q ' "$README_BUILT/debug/$name" "${args[@]}"
}

failed=0
for command in "${commands[@]}"; do
    log="$(mktemp)"
    # Servers get a port of their own so they never collide with anything.
    run="${command/--addr 127.0.0.1:8080/--addr 127.0.0.1:0}"
    how=""
    if [[ -n "${README_BUILT:-}" ]]; then
        built="$(built_command "$run")"
        if [[ -n "$built" ]]; then
            run="$built"
            how=" (the tests' build: $built)"
        fi
    fi
    set +e
    # The example server generates its tokens and keys when none are set (it says
    # so); no secret is needed to try it.
    # Its own process group, so the server under `cargo run` stops with it.
    setsid timeout --kill-after=10 "$limit" bash -c "$run" >"$log" 2>&1 </dev/null &
    pid=$!
    status=""
    for _ in $(seq 1 $((limit * 10))); do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid"; status=$?; break
        fi
        if grep -q '^listening on ' "$log"; then
            status=serving; kill -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
            break
        fi
        sleep 0.1
    done
    set -e
    if [[ "$status" == 0 || "$status" == serving ]]; then
        echo "ok   $command$how"
    else
        failed=$((failed + 1))
        echo "FAIL $command$how (status ${status:-timeout})"
        tail -n 30 "$log" | sed 's/^/     /'
    fi
    rm -f "$log"
done

echo "README commands: $((${#commands[@]} - failed)) passed, $failed failed"
((failed == 0))
