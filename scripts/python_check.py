#!/usr/bin/env python3
"""The Python package's checks on a GPU machine (issue 26's "done when"), printed as a report:

1. gpubench.benchmark(lambda: cp.sum(x)) for 256M f32 against the program's sum/cub median
   (cold L2 both; within 3 %) and against cupyx.profiler.benchmark (its GPU time, which has no
   L2 flush: compared with benchmark(..., l2="warm")).
2. Cold (flush) against warm for an L2-sized input, beside the program's sum/cub at that size,
   with kernel timing (for the record: Python's issue rate sets a warm batch's pace) and with
   graph timing (checked: the ratio as the program's).
3. A NumPy-versus-CuPy compare_functions sweep: the crossover table and the HTML report.

Usage: PYTHONPATH=build/release/python python3 scripts/python_check.py [--out DIR]
Exit 0 when every check holds, 1 otherwise.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

import cupy as cp
import cupyx.profiler
import gpubench

N_LARGE = 256 * 1024 * 1024


def program_median(program: str, size: int, l2: str, out_dir: pathlib.Path, timing: str = "kernel") -> float:
    path = out_dir / f"cli-sum-cub-{size}-{l2}-{timing}.json"
    path.unlink(missing_ok=True)
    subprocess.run([program, "run", "--op", "sum", "--backend", "cub", "--dtype", "f32", "--size", str(size),
                    "--l2", l2, "--timing", timing, "--quiet", "--out", str(path)], check=True)
    [record] = json.loads(path.read_text())["results"]
    assert record["status"] == "ok", record["reason"]
    return record["statistics"]["median"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=tempfile.mkdtemp(prefix="gpubench-python-check-"))
    parser.add_argument("--program", default=os.environ.get("GPUBENCH", "build/release/gpubench"))
    options = parser.parse_args()
    out = pathlib.Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    failures = []

    def check(name: str, holds: bool, text: str) -> None:
        print(f"[{'ok' if holds else 'FAIL'}] {name}: {text}")
        if not holds:
            failures.append(name)

    # 1. 256M f32 sum.
    x = cp.random.default_rng(42).random(N_LARGE, dtype=cp.float32)
    cold = gpubench.benchmark(lambda: cp.sum(x), size=N_LARGE, l2="flush",
                              reference=lambda: float(x.astype(cp.float64).sum()), rtol=1e-4)
    warm = gpubench.benchmark(lambda: cp.sum(x), size=N_LARGE, l2="warm")
    cli_cold = program_median(options.program, N_LARGE, "flush", out)
    ratio = cold.median / cli_cold
    check("sum 256M: benchmark(cp.sum) vs the program's sum/cub (flush)", abs(ratio - 1) <= 0.03,
          f"{cold.median * 1e6:.1f} us vs {cli_cold * 1e6:.1f} us ({(ratio - 1) * 100:+.1f} %); "
          f"CI {cold.median_ci[0] * 1e6:.1f}..{cold.median_ci[1] * 1e6:.1f} us, "
          f"verified {cold[0]['verification']['passed']}")
    profiled = cupyx.profiler.benchmark(cp.sum, (x,), n_repeat=200, n_warmup=10)
    cupyx_gpu = float(np.median(profiled.gpu_times[0]))
    cupyx_cpu = float(np.median(profiled.cpu_times))
    ratio = warm.median / cupyx_gpu
    check("sum 256M: benchmark(l2='warm') vs cupyx.profiler.benchmark GPU time", abs(ratio - 1) <= 0.05,
          f"{warm.median * 1e6:.1f} us vs {cupyx_gpu * 1e6:.1f} us ({(ratio - 1) * 100:+.1f} %); host time per call "
          f"{warm[0]['host_statistics']['median'] * 1e6:.1f} us vs cupyx CPU time {cupyx_cpu * 1e6:.1f} us; "
          f"telemetry {json.dumps(cold[0]['telemetry'] and {k: cold[0]['telemetry'].get(k) for k in ('sm_clock_median_mhz', 'power_mean_w', 'flagged_samples')})}")

    # 2. Cold vs warm for an L2-sized input (a quarter of the L2: a warm cache holds it), each
    # timed both ways. Kernel timing: Python issues a cp.sum call more slowly than the GPU runs
    # it, so warm batches time the host's issue rate (the record's timing note says so). Graph
    # timing replays captured calls without the host: the op's own time, cold and warm, which
    # the program's --timing graph gives for its sum/cub.
    l2_bytes = cp.cuda.Device().attributes["L2CacheSize"]
    n_small = l2_bytes // 4 // 4
    y = cp.random.default_rng(7).random(n_small, dtype=cp.float32)
    for timing in ("kernel", "graph"):
        small_cold = gpubench.benchmark(lambda: cp.sum(y), size=n_small, l2="flush", timing=timing)
        small_warm = gpubench.benchmark(lambda: cp.sum(y), size=n_small, l2="warm", timing=timing)
        cli_small_cold = program_median(options.program, n_small, "flush", out, timing)
        cli_small_warm = program_median(options.program, n_small, "warm", out, timing)
        python_ratio = small_cold.median / small_warm.median
        cli_ratio = cli_small_cold / cli_small_warm
        host = small_warm[0]["host_cost"]
        text = (f"benchmark cold/warm {small_cold.median * 1e6:.2f}/{small_warm.median * 1e6:.2f} us = "
                f"{python_ratio:.2f}x (warm batch {small_warm[0]['settings']['batch']}"
                + (f", host cost per call {host['statistics']['median'] * 1e6:.2f} us" if host else "")
                + f"); program cold/warm {cli_small_cold * 1e6:.2f}/{cli_small_warm * 1e6:.2f} us = {cli_ratio:.2f}x; "
                f"warm note: {small_warm[0]['settings']['timing_note'] or '-'}")
        if timing == "kernel":
            print(f"[info] sum {n_small} (L2/4), kernel timing: {text}")
            continue
        check(f"sum {n_small} (L2/4), graph timing: cold against warm as the program's (both above 1, within 20 %)",
              python_ratio > 1 and cli_ratio > 1 and abs(python_ratio / cli_ratio - 1) <= 0.2, text)

    # 3. NumPy vs CuPy sweep.
    sweep = gpubench.compare_functions(
        {"numpy": np.sum, "cupy": cp.sum}, sizes=[1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 26],
        make_args=lambda n, name: (cp.asarray if name == "cupy" else np.asarray)(
            np.random.default_rng(3).random(n, dtype="float32")),
        reference="numpy", rtol=1e-4, max_time=1.0)
    summary = sweep.summary()
    print(summary)
    html_path = out / "numpy-vs-cupy.html"
    html_path.unlink(missing_ok=True)
    sweep.html(html_path)
    check("numpy vs cupy sweep: crossover table and HTML", "cupy" in summary and html_path.stat().st_size > 0,
          f"{len(sweep)} records, {sum(r['status'] == 'ok' for r in sweep)} ok; HTML {html_path}")
    json_path = out / "numpy-vs-cupy.json"
    json_path.unlink(missing_ok=True)
    sweep.save(json_path)
    print(f"reports in {out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
