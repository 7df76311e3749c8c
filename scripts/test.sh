#!/usr/bin/env bash
# Install what is missing, build Release, run the whole test suite. GPU tests (label gpu)
# report "skipped" where no CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
ctest --test-dir build/release --output-on-failure -j "$(nproc)"

# The sanitizer build (clang, ASan + UBSan, CPU-only): the unit and CLI tests again, every
# fuzzer's seed corpus, then each fuzzer for a bounded time (GPUBENCH_FUZZ_SECONDS, default
# 45) from that corpus. A finding fails the script and leaves its input in build/asan/fuzz/.
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
ctest --test-dir build/asan --output-on-failure -j "$(nproc)" -L 'unit|cli|fuzz'
mkdir -p build/asan/fuzz
for target in matrix_market suite report size_shape; do
  work=$(mktemp -d)
  status=0
  build/asan/tests/fuzz/fuzz_"$target" -max_total_time="${GPUBENCH_FUZZ_SECONDS:-45}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=build/asan/fuzz/"$target"- "$work" tests/fuzz/corpus/"$target" \
    >build/asan/fuzz/"$target".log 2>&1 || status=$?
  rm -rf "$work"
  echo "fuzz_$target: $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' build/asan/fuzz/"$target".log || true)"
  if ((status != 0)); then
    tail -n 40 build/asan/fuzz/"$target".log >&2
    echo "test: fuzz_$target found a problem (exit $status); its input is in build/asan/fuzz/" >&2
    exit 1
  fi
done
