#!/usr/bin/env bash
# Install what is missing, build Release, run the whole test suite. GPU tests (label gpu)
# report "skipped" where no CUDA device is present. Tests whose verdict depends on timing
# (label perf) need a quiet machine and are left out; scripts/device-check.sh runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
ctest --test-dir build/release --output-on-failure -j "$(nproc)" -LE perf

# The sanitizer build (clang, ASan + UBSan, CPU-only): the unit and CLI tests again (less
# those whose verdict is a timing: label perf, and the CPU copy-bandwidth bound, which the
# Release run above checks), every fuzzer's seed
# corpus, then each fuzzer for a bounded time (GPUBENCH_FUZZ_SECONDS, default 45) from that
# corpus, as many at once as there are cores. A finding fails the script and leaves its
# input in build/asan/fuzz/.
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
ctest --test-dir build/asan --output-on-failure -j "$(nproc)" -L 'unit|cli|fuzz' -LE perf \
  -E '^CpuCeilings\.CopyBandwidthIsPlausibleAndQuick$'
mkdir -p build/asan/fuzz
fuzz() {
  local target=$1 work status=0
  work=$(mktemp -d)
  build/asan/tests/fuzz/fuzz_"$target" -max_total_time="${GPUBENCH_FUZZ_SECONDS:-45}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=build/asan/fuzz/"$target"- "$work" tests/fuzz/corpus/"$target" \
    >build/asan/fuzz/"$target".log 2>&1 || status=$?
  rm -rf "$work"
  return $status
}
targets=(matrix_market suite report size_shape)
failed=()
for ((first = 0; first < ${#targets[@]}; first += $(nproc))); do
  batch=("${targets[@]:first:$(nproc)}")
  pids=()
  for target in "${batch[@]}"; do fuzz "$target" & pids+=($!); done
  for i in "${!batch[@]}"; do
    if wait "${pids[i]}"; then
      echo "fuzz_${batch[i]}: $(grep -m1 -o 'number_of_executed_units: [0-9]*' build/asan/fuzz/"${batch[i]}".log) inputs, no finding"
    else
      tail -n 30 build/asan/fuzz/"${batch[i]}".log >&2
      failed+=("${batch[i]}")
    fi
  done
done
if ((${#failed[@]})); then
  echo "test: fuzzing found problems in: ${failed[*]}; their inputs are in build/asan/fuzz/" >&2
  exit 1
fi
