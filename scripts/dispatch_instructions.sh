#!/usr/bin/env bash
# Instructions per call of the assistant's 23 tools, through the registry and by
# hand (BENCHMARKS.md, "Dispatch"), counted by callgrind: a figure that does not move
# with the load of a shared machine, unlike the criterion times of
# `cargo bench -p toolkit-derive-tests --bench assistant`, which runs the same code.
#
# For each tool and path, the bench binary runs under callgrind in criterion's
# profile mode for one second; the instructions of `assistant::timed` (the timed
# loop) less its untimed batch set-up (the fresh seeded state, its drop, the
# clock), divided by the calls made, are the instructions of one call.
#
# Usage: scripts/dispatch_instructions.sh [TOOL...]   (default: all 23)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }
cargo bench -p toolkit-derive-tests --bench assistant --no-run >&2 2>/dev/null || \
  cargo bench -p toolkit-derive-tests --bench assistant --no-run >&2
BIN=$(ls -t target/release/deps/assistant-* | grep -v '\.d$' | head -1)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

TOOLS=("$@")
if [ ${#TOOLS[@]} -eq 0 ]; then
  TOOLS=(get_context set_project update_instructions get_entities search_entities
    search_gmail get_gmail create_memories search_memories get_memories update_memories
    delete_memories link_memories get_reminders create_reminders delete_reminders
    get_schedules create_schedules delete_schedules get_tasks create_tasks update_tasks
    delete_tasks)
fi

# Instructions per call from one callgrind profile of path $2.
per_call() {
  callgrind_annotate --tree=calling --inclusive=yes "$1" 2>/dev/null | python3 -c '
import re, sys
path = sys.argv[1]
lines = sys.stdin.read().split("\n")
start = next(i for i, l in enumerate(lines) if "*  ???:assistant::timed [" in l)
def ir(line): return int(line.split()[0].replace(",", ""))
total = ir(lines[start])
setup = 0
calls = 0
for line in lines[start + 1:]:
    if not line.strip(): break
    count = int(re.search(r"\(([\d,]+)x\)", line).group(1).replace(",", ""))
    if re.search(r"assistant::seeded|Arc<T,A>::drop_slow|Context::with|RawTable<T,A> as core::ops::drop::Drop|Instant>::(now|elapsed)", line):
        setup += ir(line)
    if "futures_executor::enter::enter" in line:
        calls = count
print(round((total - setup) / calls))
' "$2"
}

printf '| tool | direct | registry | ratio |\n|---|---:|---:|---:|\n'
LOGSUM=0
for tool in "${TOOLS[@]}"; do
  declare -A IR=()
  for path in direct registry; do
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$tool.$path" "$BIN" --bench \
      --profile-time 1 "^assistant/$tool/$path\$" >/dev/null 2>&1
    IR[$path]=$(per_call "$OUT/$tool.$path" "$path")
  done
  ratio=$(echo "${IR[registry]} / ${IR[direct]}" | bc -l)
  LOGSUM=$(echo "$LOGSUM + l($ratio)" | bc -l)
  printf '| `%s` | %d | %d | %.3fx |\n' "$tool" "${IR[direct]}" "${IR[registry]}" "$ratio"
done
printf '\ngeometric mean of %d ratios: %.3fx\n' "${#TOOLS[@]}" "$(echo "e($LOGSUM / ${#TOOLS[@]})" | bc -l)"
