#!/usr/bin/env python3
"""Look for performance cliffs in matmul: draw random shapes, run every backend on them with
gpubench, and report each case where a backend is more than --threshold times slower than the
best backend for that case (and each case that failed or did not verify).

  scripts/gemm_cliffs.py --gpubench build/release/gpubench --count 200 --seed 7

Shapes: m, n and k drawn log-uniform over 1 .. --max-side (seeded, so a seed names a set of
shapes), redrawn while A, B and C together would exceed --max-bytes at 8 bytes an element (f64,
the widest dtype): the bound does not depend on --dtype, so one seed names the same shapes for
every dtype, and a long check can be split by dtype across runs (--dtype f32,f64, then
--dtype f16,bf16). One gpubench run per dtype measures the shapes (--l2 warm by default, as
the cliffs were first measured: back-to-back launches, medians; --no-energy, whose window of
about 1 s a case would otherwise be most of the check's time) and writes its JSON report
(--out FILE.json: FILE.<dtype>.json); each dtype's verdict is printed as its run ends. Exit
status 0 when no case is past the threshold and every case verified, 1 when some are past it
or failed, 2 on bad arguments or a run that wrote no report.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

DTYPE_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}
WIDEST_BYTES = max(DTYPE_BYTES.values())


class DrawError(ValueError):
    """The bounds leave fewer distinct shapes than were asked for."""


def draw_shapes(count, seed, max_side, max_bytes, element_bytes):
    """`count` distinct (m, n, k), each log-uniform over 1 .. max_side within the byte bound.

    DrawError where the bounds cannot give `count` distinct shapes: 1 x 1 x 1 does not fit
    max_bytes, or a long run of draws (far more than a feasible draw needs) added none."""
    if 3 * element_bytes > max_bytes:
        raise DrawError(f"no shape fits in {max_bytes:.0f} bytes: 1 x 1 x 1 takes {3 * element_bytes} "
                        f"(A, B and C at {element_bytes} bytes an element)")
    rng = random.Random(seed)
    shapes = []
    seen = set()
    misses = 0
    while len(shapes) < count:
        m, n, k = (max(1, min(max_side, round(math.exp(rng.uniform(0, math.log(max_side)))))) for _ in range(3))
        if (m * k + k * n + m * n) * element_bytes <= max_bytes and (m, n, k) not in seen:
            seen.add((m, n, k))
            shapes.append((m, n, k))
            misses = 0
            continue
        misses += 1
        if misses > 100000:
            raise DrawError(f"drew only {len(shapes)} distinct shapes of the {count} asked for within --max-side "
                            f"{max_side} and --max-bytes {max_bytes:.0f}: widen them or ask for fewer")
    return shapes


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments in one line on stderr, exit 2 (argparse's own prints the usage first)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def cliffs(report, threshold):
    """(cliff rows, failures, worst ratio per (dtype, backend), skipped, compared) from a gpubench
    JSON report.

    A cliff row: (dtype, shape label, backend, its median, best backend, best median, ratio).
    A failure: a case that failed or did not verify. Skipped: (dtype, backend, reason) with its
    count, cases a backend does not run (OpenBLAS without bf16): no finding, but said. Compared:
    the cases that ran on two backends or more, the only ones a ratio is taken of."""
    cases = {}
    failures = []
    skipped = {}
    for record in report.get("results", []):
        if record.get("op") != "matmul":
            continue
        key = (record["dtype"], record["shape"]["label"])
        if record.get("status") == "skipped":
            reason = (key[0], record["backend"], record.get("reason", ""))
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        if record.get("status") != "ok" or not record.get("verification", {}).get("passed"):
            failures.append((key[0], key[1], record["backend"], record.get("status"), record.get("reason", "")))
            continue
        cases.setdefault(key, []).append((record["statistics"]["median"], record["backend"]))
    rows = []
    worst = {}
    compared = sum(len(results) > 1 for results in cases.values())
    for (dtype, label), results in sorted(cases.items()):
        if len(results) < 2:
            continue  # one backend: no ratio to take
        best_median, best_backend = min(results)
        for median, backend in results:
            ratio = median / best_median
            if ratio > worst.get((dtype, backend), (0, ""))[0]:
                worst[(dtype, backend)] = (ratio, label)
            if ratio > threshold:
                rows.append((dtype, label, backend, median, best_backend, best_median, ratio))
    return rows, failures, worst, skipped, compared


def microseconds(seconds):
    return f"{seconds * 1e6:,.1f} us"


def main():
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpubench", default="build/release/gpubench", help="the gpubench binary")
    parser.add_argument("--count", type=int, default=200, help="random shapes (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the shape draw (default 1)")
    parser.add_argument("--dtype", default="f32,f64,f16,bf16", help="dtypes, comma-separated")
    parser.add_argument("--backend", default="cuda,cublas", help="backends, comma-separated")
    parser.add_argument("--max-side", type=int, default=16384, help="largest m, n or k (default 16384)")
    parser.add_argument("--max-bytes", type=float, default=1 << 30,
                        help="most bytes of A, B and C together in the widest dtype (default 1 GiB)")
    parser.add_argument("--threshold", type=float, default=2.0,
                        help="report a backend this many times slower than the best (default 2)")
    parser.add_argument("--l2", default="warm", choices=("warm", "flush"), help="gpubench --l2 (default warm)")
    parser.add_argument("--max-time", default="0.5", help="gpubench --max-time per case, seconds (default 0.5)")
    parser.add_argument("--out", help="where to keep gpubench's JSON reports: FILE.json keeps FILE.<dtype>.json, "
                        "one a dtype (default: a temporary directory)")
    args = parser.parse_args()
    dtypes = [d for d in args.dtype.split(",") if d]
    unknown = [d for d in dtypes if d not in DTYPE_BYTES]
    if unknown or not dtypes:
        parser.error(f"--dtype: unknown {', '.join(unknown) or 'empty list'} (expected some of {', '.join(DTYPE_BYTES)})")
    if args.count < 1 or args.max_side < 1 or args.max_bytes <= 0 or args.threshold <= 1:
        parser.error("--count and --max-side must be at least 1, --max-bytes positive and --threshold above 1")
    if not os.access(args.gpubench, os.X_OK):
        parser.error(f"--gpubench {args.gpubench}: not an executable (build it first: cmake --build --preset release)")

    try:
        shapes = draw_shapes(args.count, args.seed, args.max_side, args.max_bytes, WIDEST_BYTES)
    except DrawError as error:
        parser.error(str(error))
    out = args.out or os.path.join(tempfile.mkdtemp(prefix="gemm_cliffs."), "cliffs.json")
    stem = out[:-len(".json")] if out.endswith(".json") else out
    print(f"gemm_cliffs: seed {args.seed}, {len(shapes)} shapes x {len(dtypes)} dtypes on {args.backend}; "
          f"reports {stem}.<dtype>.json", flush=True)
    found = False
    for dtype in dtypes:
        report_path = f"{stem}.{dtype}.json"
        command = [args.gpubench, "run", "--op", "matmul", "--shape", ",".join(f"{m}x{n}x{k}" for m, n, k in shapes),
                   "--dtype", dtype, "--backend", args.backend, "--l2", args.l2, "--max-time", args.max_time,
                   "--no-energy", "--quiet", "--out", report_path]
        started = time.monotonic()
        run = subprocess.run(command)
        # Exit 3 is gpubench's "a case failed or did not verify": the report is written and lists
        # those cases, which are findings of this check like the cliffs.
        if run.returncode not in (0, 3) or not os.path.exists(report_path):
            print(f"gemm_cliffs: gpubench exited with {run.returncode} on {dtype}", file=sys.stderr)
            return 2
        with open(report_path) as handle:
            report = json.load(handle)
        print(f"\n{dtype}: {len(shapes)} shapes measured in {time.monotonic() - started:.0f} s")
        found = print_verdict(report, args.threshold, len(shapes)) or found
    return 1 if found else 0


def print_verdict(report, threshold, shape_count):
    """Print one report's worst ratios, cliffs, failures and skips; True when it has any cliff or
    failure, or compared no case at all (a check that measured nothing has not passed)."""
    rows, failures, worst, skipped, compared = cliffs(report, threshold)
    for (dtype, backend, reason), count in sorted(skipped.items()):
        print(f"Skipped: {backend} on {count} {dtype} shapes: {reason}")
    if compared == 0:
        print("Nothing compared: no case ran on two backends (name two that run this dtype)")
        sys.stdout.flush()
        return True
    print(f"Worst time over the best backend's, per dtype and backend (of {compared} shapes compared, "
          f"of {shape_count} drawn):")
    for (dtype, backend), (ratio, label) in sorted(worst.items()):
        print(f"  {dtype:5} {backend:8} {ratio:6.2f}x  {label}")
    # Each backend's count, and its cases together, the worst first: cuBLAS's own slow cases
    # (often tens of them) then neither hide nor outnumber the other backend's.
    backends = sorted({backend for _, backend in worst})
    counts = ", ".join(f"{backend} {sum(row[2] == backend for row in rows)}" for backend in backends)
    print(f"Cases where a backend is more than {threshold:g}x slower than the best: {len(rows)}"
          + (f" ({counts})" if rows else ""))
    for dtype, label, backend, median, best_backend, best_median, ratio in sorted(
            rows, key=lambda row: (backends.index(row[2]), -row[6])):
        print(f"  {dtype:5} {label:22} {backend:8} {microseconds(median):>14}  {ratio:6.2f}x  "
              f"(best {best_backend} {microseconds(best_median)})")
    if failures:
        print(f"Cases that failed or did not verify: {len(failures)}")
        for dtype, label, backend, status, reason in failures:
            print(f"  {dtype:5} {label:22} {backend:8} {status} {reason}")
    sys.stdout.flush()
    return bool(rows or failures)


if __name__ == "__main__":
    sys.exit(main())
