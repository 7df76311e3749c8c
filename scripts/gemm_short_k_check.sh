#!/usr/bin/env bash
# The memory-bound GEMM kernels against cuBLAS on a GPU machine: runs a suite of matmul
# cases, by default configs/gemm-short-k.json (the short-k kernel, every dtype; also
# configs/gemm-narrow.json, the narrow kernel), --l2 warm, medians, and prints, per case,
# cuda's and cuBLAS's medians, cuBLAS/cuda (above 1: cuda faster), cuda's kernel, and cuda's
# time against the kernel notes' prediction (A, B and C moved once at 3 TB/s) and its bytes'
# rate against the copy bandwidth the run measured; then the worst cuBLAS/cuda per kernel
# and dtype. Needs only the built binary and python3's standard library.
#
#   scripts/gemm_short_k_check.sh [gpubench binary] [output directory] [suite]
#
# Defaults: build/release/gpubench, a new temporary directory, where the JSON report (named
# after the suite) is kept, and configs/gemm-short-k.json. Exit status: gpubench's when it
# fails; 1 when a case failed or did not verify; else 0.
set -euo pipefail

gpubench=${1:-build/release/gpubench}
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/gemm_short_k.XXXXXX")}
config=${3:-"$(cd "$(dirname "$0")/.." && pwd)/configs/gemm-short-k.json"}
if [[ ! -f "$config" ]]; then
  echo "gemm_short_k_check: no suite $config" >&2
  exit 2
fi
if [[ ! -x "$gpubench" ]]; then
  echo "gemm_short_k_check: $gpubench is not an executable (build it first: cmake --build --preset release)" >&2
  exit 2
fi
mkdir -p "$out"
report="$out/$(basename "$config")"
if [[ -e "$report" ]]; then
  echo "gemm_short_k_check: $report exists; name another output directory" >&2
  exit 2
fi
"$gpubench" run --config "$config" --out "$report"

python3 - "$report" <<'PY'
import json
import sys

SIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}
PREDICTED_BYTES_PER_SECOND = 3.0e12  # the kernel notes' prediction: an H100 at ~3 TB/s

report = json.load(open(sys.argv[1]))
gpus = report.get("context", {}).get("gpus") or [{}]
copy_gbps = gpus[0].get("copy_gbps") or 0
print(f"device: {gpus[0].get('name', '?')}; measured copy: {copy_gbps:,.0f} GB/s" if copy_gbps else
      f"device: {gpus[0].get('name', '?')}; no measured copy bandwidth in the report")
cases = {}
failed = []
for record in report.get("results", []):
    if record.get("op") != "matmul":
        continue
    key = (record["dtype"], record["shape"]["label"])
    if record.get("status") != "ok" or not record.get("verification", {}).get("passed"):
        failed.append(f"{key[0]} {key[1]} {record['backend']}: {record.get('status')} {record.get('reason', '')}")
        continue
    cases.setdefault(key, {})[record["backend"]] = record

header = ("dtype", "shape", "cuda", "cublas", "cublas/cuda", "predicted", "cuda/predicted", "of copy", "cuda kernel")
rows = []
for (dtype, label), by_backend in cases.items():
    m, n, k = (int(x) for x in label.split("x"))
    moved = (m * n + m * k + k * n) * SIZE[dtype]
    predicted = moved / PREDICTED_BYTES_PER_SECOND
    cuda, cublas = by_backend.get("cuda"), by_backend.get("cublas")
    cuda_s = cuda["statistics"]["median"] if cuda else None
    cublas_s = cublas["statistics"]["median"] if cublas else None
    kernel = cuda.get("details", "").split(" ")[0].replace("kernel=", "") if cuda else "-"
    of_copy = f"{moved / cuda_s / 1e9 / copy_gbps:.0%}" if cuda_s and copy_gbps else "-"
    rows.append((dtype, label,
                 f"{cuda_s * 1e6:,.1f} us" if cuda_s else "-",
                 f"{cublas_s * 1e6:,.1f} us" if cublas_s else "-",
                 f"{cublas_s / cuda_s:.2f}" if cuda_s and cublas_s else "-",
                 f"{predicted * 1e6:,.1f} us",
                 f"{cuda_s / predicted:.2f}" if cuda_s else "-",
                 of_copy, kernel))
widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
ratios = [(float(row[4]), row[8], row[0], row[1]) for row in rows if row[4] != "-"]
for kernel, dtype in sorted({(r[1], r[2]) for r in ratios}):
    worst = min(r for r in ratios if r[1] == kernel and r[2] == dtype)
    print(f"worst cublas/cuda on {kernel}, {dtype}: {worst[0]:.2f} ({worst[3]})")
for line in failed:
    print("FAILED:", line)
sys.exit(1 if failed else 0)
PY
