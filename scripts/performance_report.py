#!/usr/bin/env python3
"""Write docs/PERFORMANCE.md from a gpubench JSON report and the peers JSON of
scripts/compare_peers.py: the machine, the results with their roofline percentages, the
GPU telemetry of each case (clocks, power, throttling, energy), the peer comparison, the
measurement agreement, and the performance targets, each met or not with the numbers that
decide it.

  scripts/performance_report.py performance.json --peers peers.json --out docs/PERFORMANCE.md
  scripts/performance_report.py performance.json --zoo spmv-zoo.json ...

--zoo adds the SpMV matrix zoo table (a report of configs/spmv-zoo.json): class x dtype x
backend, median, GB/s, % of the copy ceiling and the ratio to cuSPARSE (cuSPARSE's median
over the backend's: above 1, faster than cuSPARSE), with the kernel the cuda backend chose.
--gemm-zoo adds the GEMM zoo table (a report of configs/gemm-zoo.json, whose groups' "class"
names each shape's class): class x shape x dtype, the cuda and cublas medians, their ratio
(cuBLAS's median over cuda's: above 1, cuda is faster), the roofline percentage and the
kernel the cuda backend chose; then, per dtype, the worst ratio and its shape.

Ceilings: a result's own roofline object (gpubench's measured copy bandwidth, theoretical
peaks) when the report has it; otherwise GB/s over the copy bandwidth the peers script
measured itself (CuPy's device-to-device copy; NumPy's one-thread copy for the CPU).
"""

import argparse
import json
import os
import sys


def load(path):
    """A JSON file's contents; a file that cannot be read or parsed ends the script with one line
    naming it, exit 2."""
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError) as error:
        print(f"performance_report.py: error: cannot read {path}: {getattr(error, 'strerror', None) or error}",
              file=sys.stderr)
        sys.exit(2)


def seconds_text(seconds):
    if seconds is None:
        return "-"
    for unit, factor in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= factor:
            return f"{seconds / factor:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def setting_number(value, scale=1, spec="g"):
    """A run setting as a number: reports hold numbers (older ones strings such as "2.000000")."""
    return "?" if value is None else format(float(value) * scale, spec)


def number(value, digits=0):
    return "-" if value in (None, 0) else f"{value:,.{digits}f}"


class Results:
    def __init__(self, report, peers):
        self.report = report
        self.peers = peers or {}
        self.context = report.get("context", {})
        gpus = self.context.get("gpus") or [{}]
        self.gpu = gpus[0]
        copies = self.peers.get("copy_gbps", {})
        # Measured copy ceilings: gpubench's own where the report has them, else the peers'.
        self.gpu_copy = self.gpu.get("copy_gbps") or copies.get("gpu") or 0
        self.gpu_copy_source = "gpubench" if self.gpu.get("copy_gbps") else ("CuPy copy" if copies.get("gpu") else None)
        self.cpu_copy = self.context.get("cpu_copy_gbps") or copies.get("cpu_one_thread") or 0
        self.cpu_copy_source = "gpubench" if self.context.get("cpu_copy_gbps") else (
            "NumPy one-thread copy" if copies.get("cpu_one_thread") else None)

    def ok(self):
        return [r for r in self.report.get("results", []) if r.get("status") == "ok"]

    def find(self, op, backend, dtype, label=None, predicate=None):
        for record in self.ok():
            if (record["op"], record["backend"], record["dtype"]) != (op, backend, dtype):
                continue
            if record.get("settings", {}).get("tf32") or record.get("settings", {}).get("timing") == "e2e":
                continue
            if label is not None and record["shape"].get("label") != label:
                continue
            if predicate is not None and not predicate(record):
                continue
            return record
        return None

    def ceiling_fraction(self, record):
        """(fraction, ceiling name) of a result: its roofline, else GB/s over a copy."""
        roofline = record.get("roofline") or {}
        if roofline.get("fraction"):
            return roofline["fraction"], roofline.get("ceiling_name", "")
        gbps = record.get("throughput", {}).get("gbps", 0)
        if record["op"] == "matmul":
            return None, ""
        copy = self.gpu_copy if record["device"] == "gpu" else self.cpu_copy
        source = self.gpu_copy_source if record["device"] == "gpu" else self.cpu_copy_source
        return (gbps / copy, f"copy ({source})") if copy else (None, "")

    def peer_row(self, case_id_prefix, backend):
        for row in self.peers.get("cases", []):
            if row["backend"] == backend and f"{row['op']}/{row['dtype']}/{row['shape'].get('label')}" == case_id_prefix:
                return row
        return None


def target_rows(res):
    """(target, measured, met) rows; met is True, False or None (not measured)."""
    rows = []

    def gbps(record):
        return record["throughput"]["gbps"]

    def copy_fraction_row(name, record):
        if record is None or not res.gpu_copy:
            return (name, "not measured", None)
        fraction = gbps(record) / res.gpu_copy
        return (name, f"{gbps(record):,.0f} GB/s = {fraction:.1%} of {res.gpu_copy:,.0f}", fraction >= 0.90)

    def peer_ratio_row(name, peer, ours, theirs, minimum, missing):
        if peer is None or "ratio" not in peer:
            return (name, missing, None)
        times = (f"{ours} {seconds_text(peer['gpubench_median_s'])}", f"{theirs} {seconds_text(peer['peer']['median_s'])}")
        if ours == "gpubench":  # CuPy rows name the peer first
            times = times[::-1]
        return (name, f"{peer['ratio']:.2f}x ({times[0]}, {times[1]})", peer["ratio"] >= minimum)

    for op in ("sin", "sqrt"):
        for dtype in ("f32", "f64"):
            rows.append(copy_fraction_row(f"cuda {op} {dtype} 256M ≥ 90 % of copy bandwidth",
                                          res.find(op, "cuda", dtype, "268435456")))
            if dtype == "f32":
                rows.append(peer_ratio_row(f"cuda {op} f32 256M ≥ 2x CuPy", res.peer_row(f"{op}/{dtype}/268435456", "cuda"),
                                           "gpubench", "CuPy", 2.0, "no CuPy figure"))
    def sum_row(dtype):
        cuda, cub = res.find("sum", "cuda", dtype, "268435456"), res.find("sum", "cub", dtype, "268435456")
        name = f"cuda sum {dtype} 256M ≥ 95 % of cub"
        if cuda is None or cub is None:
            return (name, "not measured", None)
        ratio = cub["statistics"]["median"] / cuda["statistics"]["median"]
        return (name, f"{gbps(cuda):,.0f} vs {gbps(cub):,.0f} GB/s = {ratio:.1%}", ratio >= 0.95)

    for dtype in ("f32", "f64"):
        rows.append(sum_row(dtype))
        rows.append(copy_fraction_row(f"cuda sum {dtype} 256M ≥ 90 % of copy bandwidth (bytes read)",
                                      res.find("sum", "cuda", dtype, "268435456")))
    labels = sorted({r["shape"]["label"] for r in res.ok() if r["op"] == "spmv" and r["shape"].get("rows", 0) >= 1 << 20},
                    key=lambda label: (label.split("/")[-1], label))
    for label in labels:
        for dtype in ("f32", "f64"):
            cuda, ref = res.find("spmv", "cuda", dtype, label), res.find("spmv", "cusparse", dtype, label)
            if cuda is None or ref is None:
                continue
            ratio = gbps(cuda) / gbps(ref)
            rows.append((f"cuda spmv {dtype} {label} ≥ cusparse",
                         f"{gbps(cuda):,.0f} vs {gbps(ref):,.0f} GB/s = {ratio:.1%}", ratio >= 1.0))
    def gemm_row(name, dtype, label, minimum):
        cuda, cublas = res.find("matmul", "cuda", dtype, label), res.find("matmul", "cublas", dtype, label)
        if cuda is None or cublas is None:
            return (name, "not measured", None)
        ratio = cuda["throughput"]["gflops"] / cublas["throughput"]["gflops"]
        return (name, f"{cuda['throughput']['gflops']:,.0f} vs {cublas['throughput']['gflops']:,.0f} GFLOP/s "
                      f"= {ratio:.1%}", ratio >= minimum)

    for label, minimum in (("4096x4096x4096", 0.90), ("4097x4097x4097", 0.85), ("1000x333x77", 0.80)):
        rows.append(gemm_row(f"cuda matmul f32 {label} ≥ {minimum:.0%} of cublas (no tensor cores)", "f32", label,
                             minimum))
    rows.append(gemm_row("cuda matmul f64 4096 ≥ 80 % of cublas (FP64 tensor cores)", "f64", "4096x4096x4096", 0.80))
    for dtype in ("bf16", "f16"):
        for n in (8192, 4096):
            rows.append(gemm_row(f"cuda matmul {dtype} {n} ≥ 90 % of cublas (tensor cores)", dtype, f"{n}x{n}x{n}", 0.90))
    rows.append(peer_ratio_row("cuda matmul bf16 8192 ≥ 0.95x torch.matmul",
                               res.peer_row("matmul/bf16/8192x8192x8192", "cuda"), "gpubench", "PyTorch", 0.95,
                               "no PyTorch figure"))
    for dtype in ("f16", "bf16"):
        for op in ("sin", "sqrt"):
            rows.append(copy_fraction_row(f"cuda {op} {dtype} 256M ≥ 90 % of copy bandwidth",
                                          res.find(op, "cuda", dtype, "268435456")))
        rows.append(sum_row(dtype))
    rows.append(peer_ratio_row("eigen sin f64 16M, all cores ≥ 4x numpy.sin", res.peer_row("sin/f64/16777216", "eigen"),
                               "eigen", "numpy", 4.0, "no NumPy figure"))
    for dtype in ("f32", "f64"):
        rows.append(peer_ratio_row(f"openblas matmul {dtype} 4096 within 10 % of numpy @",
                                   res.peer_row(f"matmul/{dtype}/4096x4096x4096", "openblas"),
                                   "openblas", "numpy", 0.9, "no NumPy figure"))
    for row in res.peers.get("agreement", []):
        name = (f"agreement {row['case']}: {row.get('clock_a', 'gpubench')} vs {row.get('clock_b', 'ncu')} "
                f"within {row.get('tolerance', 0.03):.0%}")
        if "difference" not in row:
            rows.append((name, row.get("error", "not measured"), None))
        else:
            rows.append((name, f"{seconds_text(row['median_a_s'])} vs {seconds_text(row['median_b_s'])} = "
                               f"{row['difference']:+.1%}", row["agrees"]))
    return rows


def telemetry_lines(res):
    """The Telemetry section: each GPU case's clocks, power, throttling and energy while it
    measured (NVML), and the GPU's management state; nothing when no case has telemetry."""
    records = [r for r in res.report.get("results", []) if r.get("telemetry")]
    if not records:
        return []
    nvml = res.gpu.get("nvml") or {}
    state = ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in nvml.items()
                      if key not in ("available", "reason") and value is not None)
    threshold = records[0]["telemetry"].get("throttle_threshold")
    lines = ["## Telemetry", "",
             "What the GPU's sensors read (NVML, every 10 ms) while each case measured: SM clock median "
             "[min-max], mean/max of NVML's one-second average board power (it lags a short case), peak "
             "temperature, the share of readings with a power or thermal "
             f"limit holding the clocks, samples taken below {threshold} x the maximum SM clock, and energy per op "
             "(the energy counter over a window of at least 10 of its update intervals, +- its uncertainty, where "
             "the report has it; else the counter's average power x the median)." +
             (f" GPU state: {state}." if state else ""), "",
             "| case | SM MHz | NVML 1 s avg W mean/max | max °C | throttled | flagged | energy/op | efficiency | soak |",
             "|---|---|---|---|---|---|---|---|---|"]
    for record in records:
        t = record["telemetry"]
        soak = record.get("soak")
        flops = record["op"] in ("matmul", "spmv")
        measured = record.get("energy") or {}
        if measured.get("reason") or measured.get("energy_per_op_j") is None:
            measured = {}
        source = measured or t
        efficiency = source.get("gflops_per_j") if flops else source.get("gb_per_j")
        reasons = [r for r in t.get("clock_events", [])
                   if r not in ("gpu_idle", "applications_clocks_setting", "display_clock_setting")]
        share = t.get("throttled_share")
        energy = source.get("energy_per_op_j")
        throttled = ("-" if share is None else f"{share:.0%}") + "".join(f" {reason}" for reason in reasons)
        samples = record["statistics"]["count"] + t.get("discarded_samples", 0)
        energy_text = "-" if energy is None else f"{energy:.3g} J"
        if measured.get("uncertainty_j") is not None:
            energy_text = f"{energy:.3g} ± {measured['uncertainty_j']:.2g} J"
        efficiency_text = "-" if efficiency is None else f"{efficiency:.3g} {'GFLOP/J' if flops else 'GB/J'}"
        soak_text = "-" if not soak else f"{soak['seconds']:.0f} s{' settled' if soak.get('settled') else ''}"
        lines.append(f"| {record['id']} | {number(t.get('sm_clock_median_mhz'))} [{number(t.get('sm_clock_min_mhz'))}-"
                     f"{number(t.get('sm_clock_max_mhz'))}] | {number(t.get('power_mean_w'))}/{number(t.get('power_max_w'))} | "
                     f"{number(t.get('temperature_max_c'))} | {throttled} | {t.get('flagged_samples', 0)}/{samples} | "
                     f"{energy_text} | {efficiency_text} | {soak_text} |")
    lines.append("")
    return lines


ZOO_CLASSES = ("random", "banded", "powerlaw", "longtail", "skew", "short", "blockdiag", "wide", "tall", "fewrows",
               "dense")
ZOO_DTYPES = ("f32", "f64", "f16", "bf16")


def zoo_lines(zoo):
    """The SpMV zoo table from a report of configs/spmv-zoo.json (its GPU cases)."""
    lines = ["## SpMV matrix zoo", "",
             "configs/spmv-zoo.json: each generated class at 16M nonzeros or more (README.md describes them). "
             "Ratio to cuSPARSE: cuSPARSE's median over the backend's (above 1: faster). Target: the cuda backend "
             "at 1.0x or better on every class in f32 and f64, none below 0.95x; 0.9x or better in f16 and bf16.", "",
             "| class | shape | dtype | backend | median | GB/s | % of copy | ratio to cuSPARSE | cuda kernel |",
             "|---|---|---|---|---|---|---|---|---|"]
    gpu_records = [r for r in zoo.ok() if r["op"] == "spmv" and r.get("device") == "gpu"]
    for pattern in ZOO_CLASSES:
        for dtype in ZOO_DTYPES:
            records = [r for r in gpu_records if r["shape"].get("pattern") == pattern and r["dtype"] == dtype]
            reference = next((r for r in records if r["backend"] == "cusparse"), None)
            if not records:
                lines.append(f"| {pattern} | - | {dtype} | - | not measured | | | | |")
            for record in sorted(records, key=lambda r: r["backend"]):
                median = record["statistics"]["median"]
                ratio = reference["statistics"]["median"] / median if reference and median else None
                fraction, _ = zoo.ceiling_fraction(record)
                kernel = record.get("details", "").split(" ")[0] if record["backend"] == "cuda" else ""
                lines.append(f"| {pattern} | {record['shape'].get('label', '').split('/')[0]} | {dtype} | "
                             f"{record['backend']} | {seconds_text(median)} | "
                             f"{number(record.get('throughput', {}).get('gbps'))} | "
                             f"{'-' if fraction is None else f'{fraction:.1%}'} | "
                             f"{'-' if ratio is None else f'{ratio:.3f}x'} | {kernel} |")
    failed = [r["id"] for r in zoo.report.get("results", []) if r.get("status") != "ok"]
    if failed:
        lines += ["", "Not measured (skipped or failed): " + ", ".join(failed) + "."]
    return lines + [""]


def gemm_zoo_classes(config):
    """Shape label -> class, from the groups of configs/gemm-zoo.json."""
    classes = {}
    for group in config.get("groups", []):
        labels = [f"{size}x{size}x{size}" for size in group.get("sizes", [])] + list(group.get("shapes", []))
        for label in labels:
            classes[label] = group.get("class", "-")
    return classes


def gemm_zoo_rows(zoo, classes):
    """(class, label, dtype, cuda record, cublas record, ratio) per zoo case with both backends
    measured, in the config's class order; ratio is cuBLAS's median over cuda's."""
    records = {}
    for record in zoo.ok():
        if record["op"] == "matmul" and record.get("device") == "gpu":
            records[(record["shape"]["label"], record["dtype"], record["backend"])] = record
    order = list(dict.fromkeys(classes.values()))
    rows = []
    labels = sorted({label for label, _, _ in records}, key=lambda label: (
        order.index(classes[label]) if label in classes else len(order), label))
    for label in labels:
        for dtype in ("f32", "f64", "f16", "bf16"):
            cuda, cublas = records.get((label, dtype, "cuda")), records.get((label, dtype, "cublas"))
            if cuda is None or cublas is None:
                continue
            ratio = cublas["statistics"]["median"] / cuda["statistics"]["median"]
            rows.append((classes.get(label, "-"), label, dtype, cuda, cublas, ratio))
    return rows


def gemm_zoo_worst(rows):
    """dtype -> (worst ratio, its class and label)."""
    worst = {}
    for klass, label, dtype, _, _, ratio in rows:
        if dtype not in worst or ratio < worst[dtype][0]:
            worst[dtype] = (ratio, f"{label} ({klass})")
    return worst


def gemm_zoo_lines(zoo, classes):
    """The GEMM zoo section from a report of configs/gemm-zoo.json."""
    rows = gemm_zoo_rows(zoo, classes)
    lines = ["## GEMM zoo", "",
             "configs/gemm-zoo.json: every class of matmul shape, each dtype, the cuda backend against cuBLAS in "
             "the same run. Ratio: cuBLAS's median over cuda's (above 1: cuda faster). Targets: at least 0.8x on "
             "every case, none below 0.5x; matrix-vector shapes at 80 % of the copy bandwidth or more (their "
             "roofline is the copy bandwidth).", "",
             "| class | shape | dtype | cuda | cublas | ratio | cuda % of ceiling | cuda kernel |",
             "|---|---|---|---|---|---|---|---|"]
    for klass, label, dtype, cuda, cublas, ratio in rows:
        fraction, ceiling = zoo.ceiling_fraction(cuda)
        kernel = cuda.get("details", "").split(" ")[0].replace("kernel=", "")
        split = next((part for part in cuda.get("details", "").split(" ") if part.startswith("split_k=")), "")
        lines.append(f"| {klass} | {label} | {dtype} | {seconds_text(cuda['statistics']['median'])} | "
                     f"{seconds_text(cublas['statistics']['median'])} | {ratio:.2f}x | "
                     f"{'-' if fraction is None else f'{fraction:.1%} ({ceiling})'} | {kernel} {split} |")
    lines += ["", "Worst ratio per dtype:", "", "| dtype | worst cuda/cublas | shape |", "|---|---|---|"]
    for dtype, (ratio, where) in sorted(gemm_zoo_worst(rows).items()):
        lines.append(f"| {dtype} | {ratio:.2f}x | {where} |")
    failed = [r["id"] for r in zoo.report.get("results", []) if r.get("status") != "ok" or
              not r.get("verification", {}).get("passed", True)]
    if failed:
        lines += ["", "Not measured or not verified: " + ", ".join(failed) + "."]
    return lines + [""]


def markdown(res, args):
    ctx = res.context
    settings = ctx.get("settings", {})
    lines = ["# gpubench performance", "",
             f"Generated by `scripts/performance_report.py` from `{os.path.basename(args.report)}`"
             + (f" and `{os.path.basename(args.peers)}`" if args.peers else "") + ". Do not edit by hand.", "",
             "| | |", "|---|---|",
             f"| GPU | {res.gpu.get('name', 'none')} ({res.gpu.get('sm_count', '?')} SMs, "
             f"{res.gpu.get('l2_mib', '?')} MiB L2, {res.gpu.get('memory_gib', 0):.0f} GiB) |",
             f"| driver / runtime | {res.gpu.get('driver_version', '-')} / {res.gpu.get('runtime_version', '-')} |",
             f"| CPU | {ctx.get('cpu_model', '?')}, {ctx.get('cpu_cores', '?')} cores, {ctx.get('threads', '?')} threads used |",
             f"| date | {ctx.get('timestamp', '?')} |",
             f"| gpubench | {ctx.get('tool_version', '?')} (git {ctx.get('git_sha', '?')}, {ctx.get('build_type', '?')}, "
             f"{ctx.get('compiler', '?')}) |",
             f"| command | `{' '.join(ctx.get('argv', []))}`" + (f"; {args.command}" if args.command else "") + " |",
             *([f"| note | {args.note} |"] if args.note else []),
             f"| libraries | " + ", ".join(f"{k} {v}" for k, v in sorted(ctx.get("libraries", {}).items())) + " |",
             f"| ceilings | GPU copy {number(res.gpu_copy)} GB/s ({res.gpu_copy_source or 'none'}), theoretical "
             f"{number(res.gpu.get('theoretical_bandwidth_gbps'))} GB/s; CPU copy {number(res.cpu_copy)} GB/s "
             f"({res.cpu_copy_source or 'none'}) |",
             f"| settings | L2 {settings.get('l2', '?')}, medians over samples stopped at "
             f"{setting_number(settings.get('max_noise'), 100, '.1f')} % noise or "
             f"{setting_number(settings.get('max_time_s'))} s |", ""]
    if res.peers:
        versions = ", ".join(f"{k} {v}" for k, v in res.peers.get("versions", {}).items())
        blas = "; ".join(", ".join(f"{k}={v}" for k, v in pool.items() if k != "filepath")
                         for pool in res.peers.get("blas", []))
        lines += [f"Peers: {versions}. NumPy's BLAS: {blas or 'unknown'}.", ""]

    lines += ["## Targets", "", "| target | measured | met |", "|---|---|---|"]
    for name, measured, met in target_rows(res):
        lines.append(f"| {name} | {measured} | {'met' if met else ('not met' if met is False else 'not measured')} |")
    lines.append("")

    lines += ["## Results", "",
              "Medians; GB/s by gpubench's byte model (each input read once, each output written once; spmv also "
              "one x read per nonzero), GFLOP/s by its flop count; % of ceiling from the result's roofline "
              "(measured copy bandwidth for memory-bound ops, theoretical peak for matmul).", "",
              "| case | median | GB/s | GFLOP/s | % of ceiling | ceiling | verified | details |",
              "|---|---|---|---|---|---|---|---|"]
    for record in res.report.get("results", []):
        if record.get("status") != "ok":
            lines.append(f"| {record.get('id')} | {record.get('status')} | | | | | | {record.get('reason', '')} |")
            continue
        fraction, ceiling = res.ceiling_fraction(record)
        throughput = record.get("throughput", {})
        lines.append(f"| {record.get('id')} | {seconds_text(record['statistics']['median'])} | "
                     f"{number(throughput.get('gbps'))} | {number(throughput.get('gflops'))} | "
                     f"{'-' if fraction is None else f'{fraction:.1%}'} | {ceiling or '-'} | "
                     f"{'yes' if record.get('verification', {}).get('passed') else 'NO'} | "
                     f"{record.get('details', '')[:90]} |")
    lines.append("")

    lines += telemetry_lines(res)
    if args.zoo:
        lines += zoo_lines(Results(load(args.zoo), None)) if os.path.exists(args.zoo) else [
            "## SpMV matrix zoo", "", f"No zoo report (`{os.path.basename(args.zoo)}`): not measured.", ""]

    if args.gemm_zoo:
        lines += gemm_zoo_lines(Results(load(args.gemm_zoo), None), gemm_zoo_classes(load(args.gemm_zoo_config))) \
            if os.path.exists(args.gemm_zoo) else [
            "## GEMM zoo", "", f"No zoo report (`{os.path.basename(args.gemm_zoo)}`): not measured.", ""]

    if res.peers.get("cases"):
        lines += ["## Peers", "",
                  "The same op, dtype, shape and input distribution in CuPy or PyTorch (GPU backends: PyTorch for "
                  "bf16 and for f16 matmul and spmv) and NumPy/SciPy (CPU backends, f32 and f64), each peer's output "
                  "checked against a float64 NumPy reference on sampled entries; a case without a peer says why. "
                  "ratio = gpubench throughput / peer throughput (for equal shapes, peer time / gpubench time): "
                  "above 1 gpubench is faster.", "",
                  "| case | backend | gpubench | peer | peer median | peer timing | ratio | peer check |",
                  "|---|---|---|---|---|---|---|---|"]
        for row in res.peers["cases"]:
            peer = row.get("peer") or {}
            check = peer.get("check") or {}
            verdict = ("ok" if check.get("passed") else f"FAIL ({check.get('worst_error_over_bound', 0):.3g}x bound)") \
                if check else peer.get("skipped") or peer.get("error", "no peer")
            ratio = f"{row['ratio']:.2f}x" if "ratio" in row else "-"
            lines.append(f"| {row['case']} | {row['backend']} | {seconds_text(row['gpubench_median_s'])} | "
                         f"{peer.get('call') or peer.get('peer') or '-'} | {seconds_text(peer.get('median_s'))} | "
                         f"{peer.get('method', '-')} | {ratio} | {verdict} |")
        lines += [""] + [f"- {note}" for note in res.peers.get("notes", [])] + [""]

    if res.peers.get("agreement"):
        lines += ["## Agreement", "",
                  "One library call (or one kernel) timed by two clocks; they must agree within the tolerance.", "",
                  "| case | clock A | median A | clock B | median B | difference | agrees |", "|---|---|---|---|---|---|---|"]
        for row in res.peers["agreement"]:
            if "difference" not in row:
                lines.append(f"| {row['case']} | {row.get('clock_a', '-')} | - | {row.get('clock_b', '-')} | - | - | "
                             f"{row.get('error', 'not measured')} |")
                continue
            lines.append(f"| {row['case']} | {row['clock_a']} | {seconds_text(row['median_a_s'])} | {row['clock_b']} | "
                         f"{seconds_text(row['median_b_s'])} | {row['difference']:+.1%} | "
                         f"{'yes' if row['agrees'] else 'NO'} |")
        lines.append("")
    lines += ["## Method", "",
              "gpubench times each GPU case with CUDA events on its own stream, flushing L2 before every timed "
              "launch (`--l2 flush`: single launches, no batch) unless the case says `l2warm` (batched); CPU cases "
              "with a steady clock. Sampling stops once the "
              "median's 95 % confidence interval is within the noise target. Peers: `scripts/compare_peers.py` "
              "(its docstring gives the method). Kernel design notes and the history of each version: "
              "[kernel-notes.md](kernel-notes.md).", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="gpubench JSON report (e.g. of configs/performance.json)")
    parser.add_argument("--peers", help="JSON from scripts/compare_peers.py")
    parser.add_argument("--zoo", help="gpubench JSON report of configs/spmv-zoo.json, for the zoo table")
    parser.add_argument("--gemm-zoo", help="gpubench JSON report of configs/gemm-zoo.json, for the GEMM zoo table")
    parser.add_argument("--gemm-zoo-config", default=os.path.join(os.path.dirname(__file__), "..", "configs",
                                                                  "gemm-zoo.json"),
                        help="the suite whose groups name the GEMM zoo's classes (default configs/gemm-zoo.json)")
    parser.add_argument("--out", default="docs/PERFORMANCE.md")
    parser.add_argument("--command", help="how the reports were made, for the header")
    parser.add_argument("--note", help="anything else the header should say (source commit, driver build)")
    args = parser.parse_args()
    inputs = [path for path in (args.report, args.peers, args.zoo, args.gemm_zoo, args.gemm_zoo_config) if path]
    if any(os.path.exists(path) and os.path.exists(args.out) and os.path.samefile(path, args.out) for path in inputs):
        parser.error(f"--out {args.out} is one of the inputs: refusing to write over it")
    for path in (args.report, args.zoo, args.gemm_zoo):
        if path and os.path.exists(path):
            report = load(path)
            if not isinstance(report, dict) or report.get("schema") != "gpubench-report":
                parser.error(f"{path}: not a gpubench JSON report")
    res = Results(load(args.report), load(args.peers) if args.peers else None)
    text = markdown(res, args)
    try:
        with open(args.out + ".tmp", "w") as handle:
            handle.write(text)
        os.replace(args.out + ".tmp", args.out)
    except OSError as error:
        parser.error(f"cannot write --out {args.out}: {error.strerror or error}")
    for name, measured, met in target_rows(res):
        print(f"{'met' if met else ('NOT MET' if met is False else 'not measured'):13} {name}: {measured}")
    if args.gemm_zoo and os.path.exists(args.gemm_zoo):
        rows = gemm_zoo_rows(Results(load(args.gemm_zoo), None), gemm_zoo_classes(load(args.gemm_zoo_config)))
        for dtype, (ratio, where) in sorted(gemm_zoo_worst(rows).items()):
            print(f"gemm zoo      worst cuda/cublas {dtype}: {ratio:.2f}x at {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
