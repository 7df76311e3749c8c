#!/usr/bin/env bash
# The CI gate settling a 3 % change that one comparison cannot: a baseline side A and a current
# side B of one case, B doing 3 % more work through the test knob. With few samples a side, a
# single `gpubench compare` is inconclusive (exit 4); `gpubench run --baseline A --resolve N`
# re-measures B round by round, and `gpubench ab` both sides in turn, until the case is `slower`
# (exit 1). Each step's case row, rounds and exit code end up in a short summary.
#
#   scripts/gate_demo.sh [--gpu] [OUT_DIR]
#
# CPU (default): sum/eigen/f64/32K on one thread. --gpu: sum/cuda/f32/64M, DRAM-resident
# (a build with the GPU backends and a GPU). Both sides run under GPUBENCH_TEST_SLOWDOWN, A at
# 1.01 and B at 1.04 (1.04 / 1.01: 2.97 % more work): a fractional factor times its samples in
# batches of 100 launches, so both sides must have one to be timed alike. The threshold is 1 %;
# a first look has 10 samples of A and 4 of B (4 and 4 in ab), which no rank test at alpha
# 0.001 can call a change (its p is at least 0.002): the first comparison cannot be slower, and
# is inconclusive wherever the median moved beyond the threshold. Re-measuring then needs the samples to settle the change: on
# a host whose cores are all busy (compare cites the interference) a CPU case can stay
# inconclusive, which is the gate doing its job. The GPU variant should take about a minute on
# an H100 (at most about 3: the rounds stop after 60 s for --resolve and 80 s for ab).
#
# Environment: GPUBENCH, the binary (default build/release/gpubench, else build/cpu-only/gpubench).
# Writes to OUT_DIR (default: a new temporary directory): a.json and b.json (the single
# comparison's reports), compare.txt, resolve.txt and resolve.log (run --resolve: its comparison
# and rounds), resolved.json (its pooled report), ab.txt and ab.log (gpubench ab), ab/ (its pooled
# reports), summary.txt. Exits 0 when every step ended as described, 1 otherwise.
set -euo pipefail

mode=cpu
if [[ "${1:-}" == --gpu ]]; then
  mode=gpu
  shift
fi
if (($# > 1)) || [[ "${1:-}" == -* ]]; then
  echo "usage: $0 [--gpu] [OUT_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
gpubench=${GPUBENCH:-}
if [[ -z "$gpubench" ]]; then
  for candidate in "$root/build/release/gpubench" "$root/build/cpu-only/gpubench"; do
    if [[ -x "$candidate" ]]; then
      gpubench=$candidate
      break
    fi
  done
fi
[[ -n "$gpubench" && -x "$gpubench" ]] || { echo "gate_demo: no gpubench binary (build it, or set GPUBENCH)" >&2; exit 2; }
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/gate-demo-XXXXXX")}
mkdir -p "$out/ab"

if [[ $mode == gpu ]]; then
  case_args=(--op sum --backend cuda --dtype f32 --size 64M)
  case_id=sum/cuda/f32/67108864
else
  case_args=(--op sum --backend eigen --dtype f64 --size 32K --threads 1)
  case_id=sum/eigen/f64/32768
fi
threshold=1
a_env=GPUBENCH_TEST_SLOWDOWN=1.01
b_env=GPUBENCH_TEST_SLOWDOWN=1.04
samples() { echo "--warmup 2 --min-samples $1 --max-samples $1 --min-time 0 --max-time 60"; }
run_side() {  # run_side ENV SAMPLES ARGS...: one side's run
  local env_setting=$1 count=$2
  shift 2
  # shellcheck disable=SC2046 # samples' words
  env "$env_setting" "$gpubench" run "${case_args[@]}" $(samples "$count") "$@"
}
side() {  # side ENV SAMPLES: the same as one shell command line, for gpubench ab
  printf '%q ' env "$1" "$gpubench" run "${case_args[@]}"
  samples "$2"
}

# step NAME EXPECTED_EXIT COMMAND...: runs it with stdout in OUT_DIR/NAME.txt and stderr in
# OUT_DIR/NAME.log; adds its case row and outcome line to the summary.
failures=0
summary=()
step() {
  local name=$1 expected=$2
  shift 2
  local status=0
  echo "gate_demo: $name" >&2
  "$@" >"$out/$name.txt" 2>"$out/$name.log" || status=$?
  local row outcome
  # The comparison's row: after the run's own table, where there is one.
  row=$(grep "^$case_id" "$out/$name.txt" | tail -n 1 | tr -s ' ' || true)
  outcome=$(grep -m1 -E '^(PASS|FAIL|INCONCLUSIVE) \(exit' "$out/$name.txt" || true)
  summary+=("$name: exit $status (expected $expected)" "  ${row:-no case row: see $out/$name.log}" "  $outcome")
  if ((status != expected)); then
    failures=$((failures + 1))
    summary+=("  not the exit expected: see $out/$name.txt and $out/$name.log")
  fi
}

cd "$root"
echo "gate_demo: A ($a_env) and B ($b_env), $case_id, in $out" >&2
for measured in "a $a_env 10" "b $b_env 4"; do
  read -r name env_setting count <<<"$measured"
  if ! run_side "$env_setting" "$count" --out "$out/$name.json" --quiet >"$out/$name.log" 2>&1; then
    echo "gate_demo: the run of side $name failed ($out/$name.log):" >&2
    tail -n 3 "$out/$name.log" >&2
    exit 2
  fi
done
step compare 4 "$gpubench" compare "$out/a.json" "$out/b.json" --threshold "$threshold"
step resolve 1 run_side "$b_env" 4 --baseline "$out/a.json" --threshold "$threshold" --resolve 8 --resolve-time 60 --out "$out/resolved.json"
step ab 1 "$gpubench" ab --a "$(side "$a_env" 4)" --b "$(side "$b_env" 4)" --threshold "$threshold" --rounds 8 \
  --time 80 --keep "$out/ab"

{
  echo "gate_demo ($mode): $case_id, A $a_env, B $b_env (2.97 % more work), threshold $threshold %"
  printf '%s\n' "${summary[@]}"
  echo "rounds of run --resolve:"
  grep 'resolve round' "$out/resolve.log" | sed 's/^/  /' || echo "  none"
  echo "rounds of gpubench ab:"
  grep 'gpubench ab: round' "$out/ab.log" | sed 's/^/  /' || echo "  none"
} | tee "$out/summary.txt"
((failures == 0))
