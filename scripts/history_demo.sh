#!/usr/bin/env bash
# The results history on a GPU machine: ten runs of configs/ci.json (or $CONFIG) stored in a SQLite
# database (tags commit=run01..run10), runs 6 to 10 with a deliberately slower variant;
# then the trend of the cases history check flags, and its verdict.
#
#   SLOW_ENV="GPUBENCH_TEST_SLOWDOWN=2" scripts/history_demo.sh OUT_DIR
#
# Environment:
#   SLOW_ARGS   extra `gpubench run` arguments for the slow runs (split on spaces; they must
#               keep the case ids)
#   SLOW_ENV    VAR=value assignments for the slow runs (split on spaces)
#   EXTRA_ARGS  extra `gpubench run` arguments for every run
#   GPUBENCH    the binary (default: build/release/gpubench)
#   CASES       case ids to show (space-separated; default: those history check flags)
#   CONFIG      the suite (default: configs/ci.json)
# At least one of SLOW_ARGS and SLOW_ENV must be given. A run that completed (OUT_DIR/runNN.done)
# is not repeated: the script can be run again to finish an interrupted series.
# Writes to OUT_DIR: history.db, runNN.json and runNN.log, list.txt, show.txt, trend.html,
# check.txt and check.md (history check; check.rc its exit code), export.csv.
set -euo pipefail

if (($# != 1)); then
  echo "usage: [SLOW_ARGS=...] [SLOW_ENV=VAR=value] $0 OUT_DIR" >&2
  exit 2
fi
if [[ -z "${SLOW_ARGS:-}" && -z "${SLOW_ENV:-}" ]]; then
  echo "history_demo: set SLOW_ARGS or SLOW_ENV to the slower variant runs 6-10 use" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
gpubench=${GPUBENCH:-$root/build/release/gpubench}
[[ -x "$gpubench" ]] || { echo "history_demo: no gpubench at $gpubench (build it, or set GPUBENCH)" >&2; exit 2; }
out=$1
mkdir -p "$out"
db="$out/history.db"
read -r -a slow_args <<<"${SLOW_ARGS:-}"
read -r -a slow_env <<<"${SLOW_ENV:-}"
read -r -a extra_args <<<"${EXTRA_ARGS:-}"

cd "$root"
for run in $(seq 1 10); do
  label=$(printf 'run%02d' "$run")
  [[ -f "$out/$label.done" ]] && continue
  if ((run >= 6)); then variant=slow; prefix=(env "${slow_env[@]}"); args=("${slow_args[@]}")
  else variant=baseline; prefix=(); args=(); fi
  echo "history_demo: $label ($variant)"
  status=0
  "${prefix[@]}" "$gpubench" run --config "${CONFIG:-configs/ci.json}" --quiet --out "$out/$label.json" --db "$db" \
    --tag "commit=$label" --tag "variant=$variant" "${extra_args[@]}" "${args[@]}" >"$out/$label.log" 2>&1 || status=$?
  # 3: a case failed (the run is stored and reported); anything else is the end of the demo.
  if ((status != 0 && status != 3)); then
    echo "history_demo: $label failed (exit $status):" >&2
    tail -n 5 "$out/$label.log" >&2
    exit "$status"
  fi
  touch "$out/$label.done"
done

"$gpubench" history list --db "$db" >"$out/list.txt"
check_rc=0
"$gpubench" history check --db "$db" >"$out/check.txt" || check_rc=$?
echo "$check_rc" >"$out/check.rc"
"$gpubench" history check --db "$db" --format markdown >"$out/check.md" || true
"$gpubench" history export --db "$db" --format csv --out "$out/export.csv"

if [[ -n "${CASES:-}" ]]; then
  read -r -a cases <<<"$CASES"
else
  mapfile -t cases < <(sed -n 's/^slower: \([^ ]*\) on .*/\1/p' "$out/check.txt")
fi
if ((${#cases[@]})); then
  case_args=()
  for case_id in "${cases[@]}"; do case_args+=(--case "$case_id"); done
  "$gpubench" history show --db "$db" "${case_args[@]}" --html "$out/trend.html" >"$out/show.txt"
else
  echo "history check flagged no case; set CASES to show some" >"$out/show.txt"
fi
cat "$out/show.txt"
echo "== history check (exit $check_rc)"
cat "$out/check.txt"
