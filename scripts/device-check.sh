#!/usr/bin/env bash
# Full check on a machine with a CUDA GPU: which build dependencies the machine has, a
# Release build for Hopper (sm_90), every ctest label (the timing-dependent perf tests
# included, which scripts/test.sh leaves out) and the GPU test program as one process,
# compute-sanitizer memcheck over the GPU tests and racecheck over the reduction and SpMV
# tests, the default suite, and the performance step: the performance suite
# (configs/performance.json), the agreement suite (configs/agreement.json), the SpMV
# matrix zoo (configs/spmv-zoo.json) and the GEMM zoo (configs/gemm-zoo.json) to JSON, two
# Nsight Compute runs as a third clock, then scripts/compare_peers.py (CuPy, PyTorch, NumPy) and
# scripts/performance_report.py (docs/PERFORMANCE.md). Ends with a summary block; exits
# non-zero if any step failed or did not run.
#
#   bash scripts/device-check.sh
#
# Logs and reports go to $OUT when it is set (the device machine's return folder, which
# brings back at most 8 files: this script writes seven, the performance step's files
# bundled in performance.tar.gz), else to build/device/check.
# Environment:
#   GPUBENCH_CMAKE_ARGS        extra configure arguments (word-split)
#   GPUBENCH_CHECK_STEPS       the steps after the build to run, of "tests memcheck
#                              racecheck suites performance" ("sanitizers": memcheck and
#                              racecheck; "none": the build alone; default: all of them)
#   GPUBENCH_CHECK_DEADLINE_S  wall-clock budget in seconds for the whole script; each
#                              step's timeout is cut to what is left, and steps that no
#                              longer fit are reported as not run (0: no budget)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=build/device
logs=${OUT:-$build/check}
jobs=$(nproc)
deadline_s=${GPUBENCH_CHECK_DEADLINE_S:-0}
read -r -a check_steps <<<"${GPUBENCH_CHECK_STEPS:-tests memcheck racecheck suites performance}"
started=$SECONDS
# A misspelt step would otherwise run nothing and pass: every name must be known.
expanded_steps=()
for name in "${check_steps[@]}"; do
  case $name in
    tests | memcheck | racecheck | suites | performance) expanded_steps+=("$name") ;;
    sanitizers) expanded_steps+=(memcheck racecheck) ;;
    none) ;;
    *)
      echo "device-check: unknown step '$name' in GPUBENCH_CHECK_STEPS (steps: tests memcheck racecheck sanitizers suites performance none)" >&2
      exit 2
      ;;
  esac
done
check_steps=("${expanded_steps[@]}")
mkdir -p "$logs"

wanted() { [[ " ${check_steps[*]} " == *" $1 "* ]]; }

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

# --- dependencies ------------------------------------------------------------------
# What the machine itself offers, before any copy a caller may pass in GPUBENCH_CMAKE_ARGS
# (CMAKE_PREFIX_PATH): scripts/setup.sh installs these on Debian and Ubuntu, but a machine
# without package registries has only what its image holds.
deps_summary=()
probe_dependency() {
  local name=$1 package=$2 found=""
  shift 2
  for path in "$@"; do
    if compgen -G "$path" >/dev/null; then found=$(compgen -G "$path" | head -1); break; fi
  done
  local version
  version=$(dpkg-query -W -f='${Version}' "$package" 2>/dev/null || true)
  if [[ -n $found ]]; then
    deps_summary+=("$name: yes (${version:-no package}, $found)")
  else
    deps_summary+=("$name: MISSING")
  fi
}
probe_dependency GoogleTest libgtest-dev /usr/include/gtest/gtest.h /usr/local/include/gtest/gtest.h
probe_dependency Eigen libeigen3-dev /usr/include/eigen3/Eigen/Core /usr/local/include/eigen3/Eigen/Core
probe_dependency OpenBLAS libopenblas-dev '/usr/lib/x86_64-linux-gnu/libopenblas.so*' '/usr/lib/x86_64-linux-gnu/openblas*/libblas.so*' '/usr/local/lib/libopenblas.so*'
probe_dependency CLI11 libcli11-dev /usr/include/CLI/CLI.hpp /usr/local/include/CLI/CLI.hpp
probe_dependency nlohmann_json nlohmann-json3-dev /usr/include/nlohmann/json.hpp /usr/local/include/nlohmann/json.hpp
{
  echo "=== dependencies in this machine's image"
  printf '  %s\n' "${deps_summary[@]}"
  echo "  extra configure arguments: ${GPUBENCH_CMAKE_ARGS:-none}"
} | tee -a "$build_log"

# --- build -------------------------------------------------------------------------
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
read -r -a extra_cmake_args <<<"${GPUBENCH_CMAKE_ARGS:-}"
# The store tests start a throw-away PostgreSQL server (tests/postgres/cluster.py); an image
# without the server binaries and no way to install them tests the PostgreSQL half as
# skipped, and the summary says so, rather than leaving the SQLite half unrun behind a
# failed fixture.
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && ! command -v initdb >/dev/null; then
  extra_cmake_args+=(-DGPUBENCH_POSTGRES_TESTS=OFF)
  notes+=("no PostgreSQL server binaries (initdb) on this machine: the PostgreSQL store tests report skipped")
fi
step configure "$build_log" 300 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
  "${generator[@]}" "${extra_cmake_args[@]}"
# A machine whose image lacks a dependency and cannot install it can be handed copies in
# build/devdeps (e.g. Debian packages unpacked there, carried along): used only then.
if ((${#failures[@]} > 0)) && [[ -d build/devdeps && -z ${GPUBENCH_CMAKE_ARGS:-} ]]; then
  notes+=("configure failed with the image's own dependencies; configured again with the copies in build/devdeps")
  failures=()
  rm -rf "$build"
  step "configure (build/devdeps)" "$build_log" 300 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90a "${generator[@]}" "${extra_cmake_args[@]}" -DCMAKE_PREFIX_PATH="$root/build/devdeps"
fi
step build "$build_log" 900 cmake --build "$build" -j "$jobs"

gpu_tests=$build/tests/gpubench_gpu_tests
gpubench=$build/gpubench
built=true
((${#failures[@]} == 0)) || built=false

# --- tests -------------------------------------------------------------------------
# The GPU test program runs as one process, in about 100 s on an H100: through ctest, with a
# process and a CUDA context for each of its 1200-odd tests (about 3900 s of test time over 16
# jobs on one GPU), the whole ctest run had not finished after 450 s. ctest runs the rest (its
# tests named gpu/ are the program's).
gpu_tests_log=$logs/gpu_tests.log
: >"$gpu_tests_log"
if $built && wanted tests; then
  step ctest "$build_log" 600 ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 180 -E '^gpu/'
  step "gpu tests (one process)" "$gpu_tests_log" 400 "$gpu_tests" --gtest_brief=1
elif ! $built; then
  echo "build failed: tests, sanitizers, suites and performance not run" | tee -a "$build_log"
fi

# --- sanitizers --------------------------------------------------------------------
# API errors are left to the code's own checks (every call is checked and throws): the
# out-of-memory test fails a cudaMalloc on purpose, and the libraries probe with calls
# that may fail. The sanitizers count memory errors and races.
sanitizer=$(command -v compute-sanitizer || true)
[[ -z $sanitizer && -x /usr/local/cuda/bin/compute-sanitizer ]] && sanitizer=/usr/local/cuda/bin/compute-sanitizer
if $built && [[ -n $sanitizer ]]; then
  if wanted memcheck; then
    step memcheck "$sanitizer_log" 300 "$sanitizer" --tool memcheck --error-exitcode 1 --report-api-errors no "$gpu_tests"
  fi
  # cuSPARSE's own csrmv kernel reports shared-memory write-write hazards inside the
  # library (seen on H200, CUDA 13.0), nothing of ours: its cases stay out of racecheck.
  if wanted racecheck; then
    step racecheck "$sanitizer_log" 200 "$sanitizer" --tool racecheck --error-exitcode 1 --report-api-errors no \
      "$gpu_tests" --gtest_filter='*_sum_*:*_spmv_*:*Sum*:*Spmv*:-*cusparse*'
  fi
elif $built && { wanted memcheck || wanted racecheck; }; then
  failures+=("sanitizers: compute-sanitizer not found")
fi

# --- suites ------------------------------------------------------------------------
suite_default=$logs/suite_default.json
have_gpubench=false
$built && [[ -x $gpubench ]] && "$gpubench" run --help >/dev/null 2>&1 && have_gpubench=true
if $have_gpubench && wanted suites; then
  step "suite default" "$suite_log" 240 "$gpubench" run --out "$suite_default"
  # The two commands a user tries first: every backend side by side, wall time included
  # (kept with the performance files, which come back as one archive).
  mkdir -p "$logs/performance"
  step "matmul 4096, every backend (wall time)" "$suite_log" 120 \
    "$gpubench" run --op matmul --size 4096 --out "$logs/performance/matmul4096.json"
  step "sin,sqrt,sum,spmv f32 at 256M, every backend" "$suite_log" 240 \
    "$gpubench" run --op sin,sqrt,sum,spmv --size 256M --dtype f32 --out "$logs/performance/memory256M.json"
fi

# --- performance -------------------------------------------------------------------
# The targets' cases, the agreement cases (L2 warm, as CuPy's benchmark leaves it), two
# cases under Nsight Compute (their kernel durations as a third clock: ncu serialises and
# times each launch; clock control off, as the device's rules ask), then the peers and the
# report. Everything lands in one folder, returned as one archive. ncu picks the launches by
# NVTX range: the case's range (domain gpubench), then its "measure" range, which holds
# exactly the five samples of --profile. ncu's filter reads '/' as the separator of nested
# push/pop ranges, so the '/' inside a case name are escaped with a backslash; unescaped,
# the filter matched no kernel (H200, ncu 2025.3.1, with or without --profile-from-start off).
perf=$logs/performance
perf_archive=$logs/performance.tar.gz
if $have_gpubench && wanted performance; then
  mkdir -p "$perf"
  step "performance suite" "$suite_log" 420 "$gpubench" run --config configs/performance.json \
    --out "$perf/performance.json" --out "$perf/performance.md"
  step "agreement suite" "$suite_log" 120 "$gpubench" run --config configs/agreement.json --out "$perf/agreement.json"
  step "spmv zoo suite" "$suite_log" 420 "$gpubench" run --config configs/spmv-zoo.json --backend cuda,cusparse,cub \
    --out "$perf/spmv-zoo.json"
  step "gemm zoo suite" "$suite_log" 420 "$gpubench" run --config configs/gemm-zoo.json --out "$perf/gemm-zoo.json"
  ncu=$(command -v ncu || true)
  [[ -z $ncu && -x /usr/local/cuda/bin/ncu ]] && ncu=/usr/local/cuda/bin/ncu
  ncu_args=()
  if [[ -n $ncu ]]; then
    # case id, then the gpubench options that run it (the memory-bound sum, the compute-bound GEMM)
    for ncu_case in "sum/cuda/f32/268435456 --op sum --size 256M" "matmul/cuda/f32/4096x4096x4096 --op matmul --size 4096"; do
      read -r case_id case_options <<<"$ncu_case"
      read -r -a case_options <<<"$case_options"
      csv=$perf/ncu_${case_id%%/*}.csv
      nvtx_filter="gpubench@${case_id//\//\\/}/measure"
      ncu_command=("$ncu" --clock-control none --nvtx --nvtx-include "$nvtx_filter" --metrics gpu__time_duration.sum
        --csv "$gpubench" run "${case_options[@]}" --dtype f32 --backend cuda --profile --quiet
        --out "$perf/ncu_${case_id%%/*}_run.json")
      notes+=("ncu $case_id: $(printf '%q ' "${ncu_command[@]}")> $csv")
      step "ncu $case_id" "$suite_log" 120 bash -c '"${@:2}" >"$1"' _ "$csv" "${ncu_command[@]}"
      ncu_args+=(--ncu "$csv" --ncu-case "$case_id")
    done
  else
    notes+=("ncu not found: no Nsight Compute cross-check")
  fi
  step "compare_peers" "$suite_log" 420 env PYTHONUNBUFFERED=1 python3 scripts/compare_peers.py "$perf/performance.json" \
    --agreement "$perf/agreement.json" "${ncu_args[@]}" --out "$perf/peers.json"
  step "performance_report" "$suite_log" 60 python3 scripts/performance_report.py "$perf/performance.json" \
    --peers "$perf/peers.json" --zoo "$perf/spmv-zoo.json" --gemm-zoo "$perf/gemm-zoo.json" --out "$perf/PERFORMANCE.md" \
    --command "bash scripts/device-check.sh (configs/performance.json, configs/agreement.json, configs/spmv-zoo.json, configs/gemm-zoo.json)"
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
  echo "steps asked: build ${check_steps[*]:-} (n/a below: a step not asked, or stopped before its summary)"
  # "100% tests passed out of 358" or "98% tests passed, 7 tests failed out of 358"
  summary_line=$(grep -E '% tests passed.* out of [0-9]+' "$build_log" | tail -1 || true)
  if [[ -n $summary_line ]]; then
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$summary_line")
    failed=0
    [[ $summary_line =~ ([0-9]+)\ tests\ failed ]] && failed=${BASH_REMATCH[1]}
    skipped=$(grep -cE '\(Skipped\)' "$build_log" || true)
    echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped (of $total)"
    for label in unit gpu cli perf; do
      grep -E "^ *$label +=" "$build_log" | tail -1 | sed 's/^ */  label time: /' || true
    done
  else
    echo "tests: no ctest summary"
  fi
  # gtest's closing lines: "[  PASSED  ] 1214 tests.", "[  SKIPPED ] 1 test, listed below:",
  # "[  FAILED  ] 2 tests, listed below:"; a count it does not print is 0.
  gtest_count() {
    local count
    count=$(grep -E "^\[  $1 *\] [0-9]+ tests?[,.]" "$gpu_tests_log" | tail -1 | sed -E 's/.*\] ([0-9]+) .*/\1/' || true)
    echo "${count:-0}"
  }
  if grep -qE '^\[==========\] [0-9]+ tests? from .* ran' "$gpu_tests_log"; then
    echo "gpu test program: $(gtest_count PASSED) passed, $(gtest_count FAILED) failed, $(gtest_count SKIPPED) skipped"
  else
    echo "gpu test program: no gtest summary (not run, or it stopped: $gpu_tests_log)"
  fi
  echo "dependencies in the image:"
  printf '  %s\n' "${deps_summary[@]}"
  echo "memcheck errors: $(count_sanitizer_errors memcheck)   racecheck errors: $(count_sanitizer_errors racecheck)"
  if command -v python3 >/dev/null; then
    python3 - "$suite_default" "$perf/performance.json" "$perf/agreement.json" <<'PY' || true
import json, os, sys

rows = []
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    with open(path) as handle:
        report = json.load(handle)
    suite = os.path.basename(path).replace("suite_", "").replace(".json", "")
    for record in report.get("results", []):
        if record.get("device") != "gpu" and suite == "default":
            continue
        shape = record.get("shape", {})
        throughput = record.get("throughput", {})
        fraction = record.get("roofline", {}).get("fraction", 0)
        median = record.get("statistics", {}).get("median", 0)
        rows.append((suite[:8], record["op"], record["backend"], record["dtype"], shape.get("label", ""),
                     record["status"], median * 1e6, throughput.get("gbps", 0), throughput.get("gflops", 0),
                     f"{fraction:.0%}" if fraction else "-", record.get("verification", {}).get("passed"),
                     record.get("reason", "")))
if rows:
    print(f"{'suite':8} {'op':6} {'backend':9} {'dtype':5} {'shape':26} {'status':7} {'median_us':>11} {'GB/s':>8} {'GFLOP/s':>9} {'%peak':>6} verified")
    for suite, op, backend, dtype, label, status, median_us, gbps, gflops, peak, verified, reason in rows:
        line = (f"{suite:8} {op:6} {backend:9} {dtype:5} {label[:26]:26} {status:7} {median_us:11.1f} {gbps:8.1f} "
                f"{gflops:9.1f} {peak:>6} {verified}")
        print(line + (f"  ({reason[:60]})" if status != "ok" else ""))
else:
    print("suites: no reports")
PY
  fi
  if [[ -f $perf/PERFORMANCE.md ]]; then
    sed -n '/^## Targets/,/^## [^T]/p' "$perf/PERFORMANCE.md" | sed '$d'
    sed -n '/^Worst ratio per dtype/,/^## /p' "$perf/PERFORMANCE.md" | grep -v '^## ' || true
    sed -n '/^## Agreement/,/^## [^A]/p' "$perf/PERFORMANCE.md" | sed '$d'
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

# The performance step's files travel as one archive (the return folder takes 8 files).
if [[ -d $perf ]]; then
  tar -czf "$perf_archive" -C "$logs" performance && rm -rf "$perf"
fi

((${#failures[@]} == 0))
