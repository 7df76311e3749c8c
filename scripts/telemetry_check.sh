#!/usr/bin/env bash
# Checks on a GPU machine what telemetry, soaking and cold timing are for (about 3 minutes
# on an H100 or H200):
#   (a) three back-to-back DGEMM 4096 runs (cuBLAS, f64, L2 warm) with --soak, each to JSON,
#       compared pairwise with `gpubench compare` (exit codes and verdicts printed) and the
#       spread of their medians;
#   (b) a 4 MiB sum (1M floats, cuda and cub) with --l2 flush and with --l2 warm: both medians;
#   (c) the telemetry summary of a DGEMM 4096 run without a soak.
#
#   scripts/telemetry_check.sh OUTDIR
#
# Environment: GPUBENCH (the binary; default build/release/gpubench, else
# build/device/gpubench), SOAK_S (default 30: the longest each soaked run may soak).
# Exits non-zero when a run fails; the comparisons' verdicts are printed, not judged.
set -euo pipefail

if (($# != 1)); then
  echo "usage: scripts/telemetry_check.sh OUTDIR" >&2
  exit 2
fi
out=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpubench=${GPUBENCH:-}
if [[ -z $gpubench ]]; then
  for candidate in "$root/build/release/gpubench" "$root/build/device/gpubench"; do
    if [[ -x $candidate ]]; then gpubench=$candidate; break; fi
  done
fi
if [[ -z $gpubench || ! -x $gpubench ]]; then
  echo "telemetry_check: no gpubench binary; build one (cmake --preset release && cmake --build --preset release) or set GPUBENCH" >&2
  exit 2
fi
soak_s=${SOAK_S:-30}
mkdir -p "$out"
started=$SECONDS

# summarize FILE...: one line per result: case, median, SM clock, power, throttling, soak.
summarize() {
  python3 - "$@" <<'PY'
import json, sys

def number(value, unit, scale=1.0, digits=0):
    return "-" if value is None else f"{value * scale:.{digits}f} {unit}"

for path in sys.argv[1:]:
    with open(path) as handle:
        report = json.load(handle)
    for record in report["results"]:
        t = record.get("telemetry") or {}
        soak = record.get("soak") or {}
        line = (f"{path.split('/')[-1]:18} {record['id']:38} median {number(record['statistics']['median'], 'us', 1e6, 1):>12}"
                f"  SM {number(t.get('sm_clock_median_mhz'), 'MHz'):>9} [{number(t.get('sm_clock_min_mhz'), '')}-"
                f"{number(t.get('sm_clock_max_mhz'), 'MHz')}]  power {number(t.get('power_mean_w'), 'W')} mean,"
                f" {number(t.get('power_max_w'), 'W')} max  {number(t.get('temperature_max_c'), 'C')}"
                f"  throttled {number(t.get('throttled_share'), '%', 100)} {','.join(t.get('clock_events', []))}"
                f"  flagged {t.get('flagged_samples', '-')}/{record['statistics']['count']}")
        if t.get("energy_per_op_j") is not None:
            line += f"  {t['energy_per_op_j']:.3g} J/op, {t.get('gflops_per_j') or 0:.3g} GFLOP/J"
        if soak:
            line += f"  soak {soak['seconds']:.1f} s settled={soak['settled']}"
        print(line)
    for gpu in report["context"]["gpus"]:
        print(f"  GPU {gpu['ordinal']} {gpu['name']}: nvml {json.dumps(gpu.get('nvml'))}")
PY
}

echo "=== (a) three back-to-back DGEMM 4096 runs with --soak $soak_s"
dgemm=(run --op matmul --size 4096 --backend cublas --dtype f64 --l2 warm --quiet)
for run in 1 2 3; do
  # Three seconds of samples each: a power-capped clock wanders over seconds.
  "$gpubench" "${dgemm[@]}" --soak "$soak_s" --min-time 3 --max-time 5 --out "$out/dgemm_soak_$run.json"
done
summarize "$out"/dgemm_soak_{1,2,3}.json
python3 - "$out"/dgemm_soak_{1,2,3}.json <<'PY'
import json, sys
medians = [json.load(open(path))["results"][0]["statistics"]["median"] for path in sys.argv[1:]]
print(f"medians: {', '.join(f'{m * 1e6:.1f} us' for m in medians)}; "
      f"largest / smallest = {max(medians) / min(medians):.4f} ({(max(medians) / min(medians) - 1) * 100:.2f} % apart)")
PY
for pair in "1 2" "1 3" "2 3"; do
  read -r a b <<<"$pair"
  status=0
  "$gpubench" compare "$out/dgemm_soak_$a.json" "$out/dgemm_soak_$b.json" --format json \
    >"$out/compare_${a}_$b.json" 2>"$out/compare_${a}_$b.stderr" || status=$?
  python3 - "$out/compare_${a}_$b.json" "$a" "$b" "$status" <<'PY'
import json, sys
path, a, b, status = sys.argv[1:]
try:
    cases = json.load(open(path))["cases"]
except (OSError, ValueError):
    with open(path.replace(".json", ".stderr")) as handle:
        print(f"compare {a} vs {b}: exit {status}: {handle.read().strip()}")
    sys.exit(0)
for case in cases:
    ratio = case["ratio"]
    print(f"compare {a} vs {b}: exit {status}, {case['id']}: {case['label']}"
          f" (ratio {ratio:.4f}, p {case['p_value']:.2g}) {case['note']}" if ratio is not None else
          f"compare {a} vs {b}: exit {status}, {case['id']}: {case['label']} {case['note']}")
PY
done

echo
echo "=== (b) 4 MiB sum (1M floats): L2 flushed before every launch against warm and batched"
for mode in flush warm; do
  "$gpubench" run --op sum --size 1M --dtype f32 --backend cuda,cub --l2 "$mode" --quiet --out "$out/sum4mib_$mode.json"
done
python3 - "$out/sum4mib_flush.json" "$out/sum4mib_warm.json" <<'PY'
import json, sys
rows = {}
for path in sys.argv[1:]:
    for record in json.load(open(path))["results"]:
        mode = record["settings"]["l2"]
        rows.setdefault(record["backend"], {})[mode] = record
for backend, modes in rows.items():
    flush, warm = modes["flush"], modes["warm"]
    if flush["status"] != "ok" or warm["status"] != "ok":
        print(f"sum f32 1M {backend:5}: flush {flush['status']}, warm {warm['status']}: {flush['reason'] or warm['reason']}")
        continue
    f, w = flush["statistics"]["median"], warm["statistics"]["median"]
    print(f"sum f32 1M {backend:5}: flush {f * 1e6:8.2f} us (batch {flush['settings']['batch']}), "
          f"warm {w * 1e6:8.2f} us (batch {warm['settings']['batch']}), flush / warm = {f / w:.2f}")
    if flush["settings"]["timing_note"]:
        print(f"  flush timing note: {flush['settings']['timing_note']}")
PY

echo
echo "=== (c) telemetry of a DGEMM 4096 run without a soak"
"$gpubench" "${dgemm[@]}" --out "$out/dgemm_plain.json" --out "$out/dgemm_plain.txt"
summarize "$out/dgemm_plain.json"
sed -n '/^GPU telemetry/,$p' "$out/dgemm_plain.txt"

echo
echo "telemetry_check: done in $((SECONDS - started)) s; files in $out"
