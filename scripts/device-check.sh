#!/usr/bin/env bash
# Full check on a machine with a CUDA GPU: Release build for Hopper (sm_90), every ctest
# label (the GPU tests included), compute-sanitizer memcheck over the GPU tests and
# racecheck over the reduction and SpMV tests, then the benchmark suites with JSON
# reports. Ends with a summary block; exits non-zero if any step failed or did not run.
#
#   bash scripts/device-check.sh
#
# Logs and reports go to $OUT when it is set (the device machine's return folder, which
# brings back at most 8 files: this script writes at most 8), else to build/device/check.
# Environment:
#   GPUBENCH_CMAKE_ARGS        extra configure arguments (word-split)
#   GPUBENCH_CHECK_DEADLINE_S  wall-clock budget in seconds for the whole script; each
#                              step's timeout is cut to what is left, and steps that no
#                              longer fit are reported as not run (0: no budget)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=build/device
logs=${OUT:-$build/check}
mkdir -p "$logs"
jobs=$(nproc)
deadline_s=${GPUBENCH_CHECK_DEADLINE_S:-0}
started=$SECONDS

build_log=$logs/build_and_test.log  # configure, build and ctest
sanitizer_log=$logs/sanitizers.log
suite_log=$logs/suites.log
for log in "$build_log" "$sanitizer_log" "$suite_log"; do : >"$log"; done

failures=()
notes=()

# Seconds a step may take: its own limit, cut to what the deadline leaves (minus a
# reserve for the summary); 0 when too little is left to start it.
step_limit() {
  local limit=$1
  if ((deadline_s > 0)); then
    local left=$((deadline_s - (SECONDS - started) - 20))
    ((left < limit)) && limit=$left
    ((limit < 15)) && limit=0
  fi
  echo "$limit"
}

# step NAME LOG LIMIT_S COMMAND...: runs COMMAND under `timeout`, output shown and
# appended to LOG; a failure is recorded and the script goes on so that later steps
# still report.
step() {
  local name=$1 log=$2 limit
  limit=$(step_limit "$3")
  shift 3
  if ((limit == 0)); then
    failures+=("$name: not run, out of time")
    echo "=== $name: not run, out of time" | tee -a "$log"
    return 0
  fi
  printf '\n=== %s (limit %ss): %s\n' "$name" "$limit" "$*" | tee -a "$log"
  local begin=$SECONDS status=0
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$log" || status=$?
  echo "=== $name: exit $status after $((SECONDS - begin)) s" | tee -a "$log"
  if ((status == 124 || status == 137)); then
    failures+=("$name: timed out after ${limit} s")
  elif ((status != 0)); then
    failures+=("$name: exit $status")
  fi
  return 0
}

# --- build -------------------------------------------------------------------------
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
read -r -a extra_cmake_args <<<"${GPUBENCH_CMAKE_ARGS:-}"
step configure "$build_log" 300 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${generator[@]}" "${extra_cmake_args[@]}"
step build "$build_log" 900 cmake --build "$build" -j "$jobs"

gpu_tests=$build/tests/gpubench_gpu_tests
gpubench=$build/gpubench
built=true
((${#failures[@]} == 0)) || built=false

# --- tests -------------------------------------------------------------------------
if $built; then
  step ctest "$build_log" 420 ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 180
else
  echo "build failed: tests, sanitizers and suites not run" | tee -a "$build_log"
fi

# --- sanitizers --------------------------------------------------------------------
# API errors are left to the code's own checks (every call is checked and throws): the
# out-of-memory test fails a cudaMalloc on purpose, and the libraries probe with calls
# that may fail. The sanitizers count memory errors and races.
sanitizer=$(command -v compute-sanitizer || true)
[[ -z $sanitizer && -x /usr/local/cuda/bin/compute-sanitizer ]] && sanitizer=/usr/local/cuda/bin/compute-sanitizer
if $built && [[ -n $sanitizer ]]; then
  step memcheck "$sanitizer_log" 300 "$sanitizer" --tool memcheck --error-exitcode 1 --report-api-errors no "$gpu_tests"
  # cuSPARSE's own csrmv kernel reports shared-memory write-write hazards inside the
  # library (seen on H200, CUDA 13.0), nothing of ours: its cases stay out of racecheck.
  step racecheck "$sanitizer_log" 200 "$sanitizer" --tool racecheck --error-exitcode 1 --report-api-errors no \
    "$gpu_tests" --gtest_filter='*_sum_*:*_spmv_*:*Sum*:*Spmv*:-*cusparse*'
elif $built; then
  failures+=("sanitizers: compute-sanitizer not found")
fi

# --- suites ------------------------------------------------------------------------
# spmv runs at 8M rows, not 256M: 256M rows of 16 entries exceed 32-bit CSR indices.
suite_default=$logs/suite_default.json
suite_memory=$logs/suite_memory.json
suite_spmv=$logs/suite_spmv.json
suite_matmul=$logs/suite_matmul.json
if $built && [[ -x $gpubench ]] && "$gpubench" run --help >/dev/null 2>&1; then
  step "suite default" "$suite_log" 240 "$gpubench" run --out "$suite_default"
  step "suite sin,sqrt,sum 256M" "$suite_log" 180 "$gpubench" run --op sin,sqrt,sum --size 256M --dtype f32 \
    --out "$suite_memory"
  step "suite spmv 8M rows" "$suite_log" 150 "$gpubench" run --op spmv --size 8M --dtype f32 --out "$suite_spmv"
  step "suite matmul 4096" "$suite_log" 150 "$gpubench" run --op matmul --size 4096 --out "$suite_matmul"
elif $built; then
  notes+=("suites skipped: $gpubench is missing or has no 'run' command yet")
  echo "${notes[-1]}" | tee -a "$suite_log"
fi

# --- summary -----------------------------------------------------------------------
# TOOL: the error count of that tool's run: "ERROR SUMMARY: N errors" (memcheck) or
# "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)" (racecheck).
count_sanitizer_errors() {
  awk -v tool="$1" '/^=== / { current = ($2 == tool) }
    current && /ERROR SUMMARY:/ { count = $(NF-1); found = 1 }
    current && /RACECHECK SUMMARY:/ { match($0, /\(([0-9]+) errors/); count = substr($0, RSTART + 1, RLENGTH - 8); found = 1 }
    END { print (found ? count : "n/a") }' "$sanitizer_log"
}

{
  echo
  echo "================================ device-check summary ================================"
  if command -v nvidia-smi >/dev/null; then
    echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | paste -sd ';')"
  else
    echo "device: nvidia-smi not found"
  fi
  # "100% tests passed out of 358" or "98% tests passed, 7 tests failed out of 358"
  summary_line=$(grep -E '% tests passed.* out of [0-9]+' "$build_log" | tail -1 || true)
  if [[ -n $summary_line ]]; then
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$summary_line")
    failed=0
    [[ $summary_line =~ ([0-9]+)\ tests\ failed ]] && failed=${BASH_REMATCH[1]}
    skipped=$(grep -cE '\(Skipped\)' "$build_log" || true)
    echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped (of $total)"
    for label in unit gpu cli; do
      grep -E "^ *$label +=" "$build_log" | tail -1 | sed 's/^ */  label time: /' || true
    done
  else
    echo "tests: no ctest summary"
  fi
  echo "memcheck errors: $(count_sanitizer_errors memcheck)   racecheck errors: $(count_sanitizer_errors racecheck)"
  if command -v python3 >/dev/null; then
    python3 - "$suite_default" "$suite_memory" "$suite_spmv" "$suite_matmul" <<'PY' || true
import json, os, sys

rows = []
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    with open(path) as handle:
        report = json.load(handle)
    for record in report.get("results", []):
        if record.get("device") != "gpu" and os.path.basename(path) != "suite_matmul.json":
            continue
        shape = record.get("shape", {})
        throughput = record.get("throughput", {})
        median = record.get("statistics", {}).get("median", 0)
        rows.append((os.path.basename(path).replace("suite_", "").replace(".json", ""), record["op"], record["backend"],
                     record["dtype"], shape.get("label", ""), record["status"], median * 1e6,
                     throughput.get("gbps", 0), throughput.get("gflops", 0),
                     record.get("verification", {}).get("passed"), record.get("reason", "")))
if rows:
    print(f"{'suite':8} {'op':6} {'backend':9} {'dtype':5} {'shape':26} {'status':7} {'median_us':>11} {'GB/s':>8} {'GFLOP/s':>9} verified")
    for suite, op, backend, dtype, label, status, median_us, gbps, gflops, verified, reason in rows:
        line = f"{suite:8} {op:6} {backend:9} {dtype:5} {label[:26]:26} {status:7} {median_us:11.1f} {gbps:8.1f} {gflops:9.1f} {verified}"
        print(line + (f"  ({reason[:60]})" if status != "ok" else ""))
else:
    print("suites: no reports")
PY
  fi
  for note in "${notes[@]}"; do echo "note: $note"; done
  if ((${#failures[@]} == 0)); then
    echo "result: PASS"
  else
    echo "result: FAIL"
    for failure in "${failures[@]}"; do echo "  - $failure"; done
  fi
  echo "logs: $logs"
} | tee "$logs/summary.txt"

((${#failures[@]} == 0))
