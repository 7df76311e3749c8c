#!/usr/bin/env bash
# The many-GPU check, for a machine with (at least) two GPUs: `--device all` concurrently and
# serially, an MPI build under `mpirun -n 2` with one merged report, and the outlier rule on
# a GPU deliberately slowed by a second gpubench process (flagged) and on an unloaded pair
# (not flagged). Prints each fleet view; reports and logs go to OUTDIR. A few minutes after
# the build. Exit 0 when every step ran and both verdicts came out as expected.
#
#   scripts/fleet_check.sh OUTDIR
#
# MPI: whatever CMake's FindMPI finds. An MPI outside the system paths (e.g. PyPI's `mpich`
# wheel installed with `pip install --prefix /opt/mpich mpich`) is found through MPI_HOME
# (and MPICC, when its compiler wrapper is not $MPI_HOME/bin/mpicc). GPUBENCH_CMAKE_ARGS:
# extra configure arguments (word-split), as for scripts/device-check.sh.
set -euo pipefail

out=${1:?usage: scripts/fleet_check.sh OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${GPUBENCH_FLEET_BUILD:-build/fleet-check}

gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
if ((gpus < 2)); then
  echo "fleet_check: needs two GPUs, nvidia-smi lists $gpus" >&2
  exit 2
fi

# The program and its MPI variant from one build: tests/CMakeLists.txt builds gpubench_mpi
# (main.cpp with MPI_COMM_WORLD as its process group) whenever MPI is found.
read -r -a extra_cmake_args <<<"${GPUBENCH_CMAKE_ARGS:-}"
configure=(-S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${extra_cmake_args[@]}")
[[ -n "${MPI_HOME:-}" ]] && configure+=(-DMPI_HOME="$MPI_HOME")
[[ -n "${MPICC:-}" ]] && configure+=(-DMPI_C_COMPILER="$MPICC")
echo "== building in $build (log: $out/build.log)"
cmake "${configure[@]}" >"$out/build.log" 2>&1
cmake --build "$build" -j "$(nproc)" --target gpubench >>"$out/build.log" 2>&1
# tests/CMakeLists.txt defines gpubench_mpi only where CMake found MPI.
cmake --build "$build" -j "$(nproc)" --target gpubench_mpi >>"$out/build.log" 2>&1 ||
  echo "fleet_check: no MPI variant built (CMake found no MPI: set MPI_HOME); the MPI step will fail" >&2
gpubench=$build/gpubench

# Short cases on the custom kernels: two memory-bound ops at two sizes beyond L2.
suite=(--op "sum,sin" --size "64M,256M" --backend cuda --min-time 0.3 --max-time 1 --quiet)
failures=()

# Prints the fleet view of a report (from its "Fleet:" line to the CPU-versus-GPU summary).
fleet_view() {
  "$gpubench" report "$@" | awk '/^Fleet:/ {show = 1} /^CPU versus GPU/ {show = 0} show'
}

step() {
  echo
  echo "== $1"
}

step "--device all, concurrent"
timeout 300 "$gpubench" run --device all "${suite[@]}" --out "$out/concurrent.json" || failures+=("concurrent run")
fleet_view "$out/concurrent.json" || true

step "--device all --devices-serial"
timeout 300 "$gpubench" run --device all --devices-serial "${suite[@]}" --out "$out/serial.json" || failures+=("serial run")
fleet_view "$out/serial.json" || true

step "MPI build under mpirun -n 2 (rank 0 writes one merged report)"
mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt")
mpi_flags=()
if "$mpiexec" --version 2>&1 | grep -qiE "open mpi|openrte"; then
  mpi_flags=(--allow-run-as-root --oversubscribe)
  # Open MPI 4 wants an ssh or rsh to name even on one host; a container has neither.
  command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm_rsh_agent=sh
fi
if [[ -x "$build/gpubench_mpi" ]] &&
  timeout 300 "$mpiexec" "${mpi_flags[@]}" -n 2 "$build/gpubench_mpi" run "${suite[@]}" --out "$out/mpi.json"; then
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("ranks:", [(x["rank"], x["host"], x["devices"]) for x in r["context"]["ranks"]])' "$out/mpi.json"
  fleet_view "$out/mpi.json" || true
else
  failures+=("MPI run")
fi

# GPU 1 shares its time with a long cuBLAS matmul in a second process while both GPUs run
# a matmul of a few milliseconds: without MPS the two processes take turns on GPU 1 in time
# slices, so each timed product there spans the other's slices. (A case of microseconds
# fits in one slice and only gains spread, not a slower median.) GPU 1 must be flagged at 5 %.
contended=(--op matmul --size 4096 --backend cublas --min-time 1 --max-time 3 --quiet)
step "GPU 1 loaded by a second gpubench (expect GPU 1 flagged)"
"$gpubench" run --device 1 --op matmul --size 8192 --backend cublas --min-time 120 --max-time 120 --min-samples 1000000 \
  --max-samples 1000000 --quiet >"$out/loader.log" 2>&1 &
loader=$!
sleep 8  # inputs built, uploaded and warmed up: the matmuls are running
timeout 300 "$gpubench" run --device all "${contended[@]}" --out "$out/loaded.json" || failures+=("loaded run")
kill "$loader" 2>/dev/null || true
wait "$loader" 2>/dev/null || true
set +e
fleet_view "$out/loaded.json" --fail-on-outlier 5
"$gpubench" report "$out/loaded.json" --fail-on-outlier 5 >/dev/null
loaded_exit=$?
set -e
echo "report --fail-on-outlier 5: exit $loaded_exit (expected 1)"
((loaded_exit == 1)) || failures+=("loaded pair not flagged (exit $loaded_exit)")

step "unloaded pair (expect no outlier)"
timeout 300 "$gpubench" run --device all "${contended[@]}" --out "$out/unloaded.json" || failures+=("unloaded run")
set +e
fleet_view "$out/unloaded.json" --fail-on-outlier 5
"$gpubench" report "$out/unloaded.json" --fail-on-outlier 5 >/dev/null
unloaded_exit=$?
set -e
echo "report --fail-on-outlier 5: exit $unloaded_exit (expected 0)"
((unloaded_exit == 0)) || failures+=("unloaded pair flagged (exit $unloaded_exit)")

echo
if ((${#failures[@]})); then
  printf 'fleet_check: FAILED: %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "fleet_check: all steps as expected; reports in $out"
