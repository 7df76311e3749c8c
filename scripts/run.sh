#!/usr/bin/env bash
# The main job: install what is missing, build Release, run the default suite.
# Extra arguments go to `gpubench run` (e.g. scripts/run.sh --out results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
exec build/release/gpubench run "$@"
