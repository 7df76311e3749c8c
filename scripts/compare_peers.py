#!/usr/bin/env python3
"""Run the cases of a gpubench JSON report in the peers a user would otherwise reach for,
CuPy and PyTorch on the GPU and NumPy/SciPy on the CPU, and compare medians.

  scripts/compare_peers.py results.json --out peers.json
  scripts/compare_peers.py results.json --agreement warm.json --ncu ncu.csv --out peers.json

For every verified case of the report (kernel timing; e2e and TF32 cases are left out) it
builds inputs of the same op, dtype, shape and distribution (not bit-identical: the peers
draw their own random numbers; spmv matrices have the same rows, nonzeros per row and
pattern), times the peer, checks a sample of the peer's output against a float64 NumPy
reference, and prints one table: case, gpubench backend and median, peer and median, and
the ratio (peer time / gpubench time, or for spmv the ratio of effective GB/s, since a
power-law matrix drawn again has a slightly different nonzero count; above 1: gpubench is
faster).

Which peer runs a case (peer_route; the table's peer column names it):
  GPU f32, f64                          CuPy
  GPU f16 sin, sqrt, sum                CuPy (float16; the sum accumulates in and returns float32)
  GPU f16 matmul and spmv, every bf16   PyTorch on "cuda": torch.matmul, torch.sin, torch.sqrt,
                                        torch.sum(dtype=torch.float32), torch.mv of a sparse CSR tensor
                                        (CuPy has no bfloat16, and its sparse matrices no float16)
  CPU f32, f64                          NumPy (SciPy for spmv)
  CPU f16, bf16                         none: NumPy has no bfloat16, nor a BLAS for float16
A case whose peer is missing (no PyTorch, no CuPy, --no-gpu, no SciPy) or cannot run it is
listed with a one-line reason instead of a time. PyTorch's reduced-precision reductions are
turned off, so its 16-bit GEMMs accumulate and reduce in f32, as gpubench's cuBLAS
(CUBLAS_COMPUTE_32F) and custom kernels do.

16-bit inputs are drawn in f32 and rounded to the dtype on the host (bf16 to nearest even,
held in float32 arrays since NumPy has no bfloat16, so that torch's conversion to bfloat16 is
exact), and the float64 reference is computed from the rounded values, as gpubench's is. The
byte model and the error bounds follow gpubench's (src/model/op_table.cpp, src/model/dtype_table.hpp):
2-byte elements, and the sum of f16/bf16 stores an f32 result.

Timing. CuPy: cupyx.profiler.benchmark's GPU time (CUDA events around each call), median.
It does not flush L2, so for a gpubench case that flushed L2 (the default) this script
flushes it itself before each call (a memset of twice the L2 size, as gpubench does) and
times the call alone with CUDA events; cases run with `--l2 warm` use the benchmark as is.
PyTorch: warm-ups, then torch.cuda.Event around each call, median, with the same L2 policy
(flushed before each call, or warm for `--l2 warm` cases).
NumPy: time.perf_counter around each call, median; NumPy and SciPy's sparse product run on
one thread, matmul on OpenBLAS's threads.

Agreement (--agreement REPORT): the same library call timed by gpubench and by CuPy must
agree within --tolerance (3 %): cuBLAS matmul (gpubench --backend cublas) against
cupy.matmul and CUB sum (--backend cub) against cupy.sum (CuPy's CUB reduction), f32 and
f64. That report should be run with `--l2 warm`, matching cupyx.profiler.benchmark, which
does not flush. --ncu FILE (with --ncu-case, both repeatable, paired in order) adds Nsight
Compute's gpu__time_duration.sum (CSV from `ncu --csv`) for one case of the main report as
a third clock.

Copy bandwidth. The script measures its own copy ceilings (a device-to-device copy of
2^28 float32 through CuPy; a NumPy copy of 2^26 float64 on one thread), read + written
bytes, so that a report without gpubench's roofline fields still has a ceiling.

Without CuPy or PyTorch (or with --no-gpu) the rest runs and says so. `--help` needs nothing.
"""

import argparse
import collections
import importlib
import json
import math
import os
import platform
import statistics
import sys
import time


def load_report(path):
    """A gpubench JSON report; one that cannot be read, parsed or is no report ends the script with
    one line naming it, exit 2."""
    try:
        with open(path) as handle:
            report = json.load(handle)
    except (OSError, ValueError) as error:
        print(f"compare_peers.py: error: cannot read {path}: {getattr(error, 'strerror', None) or error}",
              file=sys.stderr)
        sys.exit(2)
    if not isinstance(report, dict) or report.get("schema") != "gpubench-report":
        print(f"compare_peers.py: error: {path}: not a gpubench JSON report", file=sys.stderr)
        sys.exit(2)
    return report


# ----------------------------------------------------------------------------- cases

def case_key(record):
    shape = record.get("shape", {})
    return (record["op"], record["dtype"], shape.get("label", ""))


# gpubench's dtype table (src/model/dtype_table.hpp): bytes per element, unit roundoff, and the
# type sums and dot products accumulate in.
DTypeRule = collections.namedtuple("DTypeRule", "size unit_roundoff accumulation")
DTYPES = {"f32": DTypeRule(4, 2.0 ** -24, "f32"), "f64": DTypeRule(8, 2.0 ** -53, "f64"),
          "f16": DTypeRule(2, 2.0 ** -11, "f32"), "bf16": DTypeRule(2, 2.0 ** -8, "f32")}

# The spmv structures make_csr_arrays draws; the matrix zoo's other classes
# (configs/spmv-zoo.json) are compared with cuSPARSE inside gpubench and have no peer here.
PEER_PATTERNS = ("random", "banded", "powerlaw", "file")


def usable(record):
    """A kernel-only case that ran, of a dtype in DTYPES, on a structure the peers draw."""
    settings = record.get("settings", {})
    return (record.get("status") == "ok" and settings.get("timing", "kernel") == "kernel"
            and record.get("dtype") in DTYPES
            and not settings.get("tf32", False) and record.get("statistics", {}).get("median", 0) > 0
            and record.get("shape", {}).get("pattern", "random") in PEER_PATTERNS)


def peer_route(device, op, dtype):
    """(library, None) for the library that runs the case as its peer, or (None, why none)."""
    if device == "cpu":
        if dtype in ("f16", "bf16"):
            return None, "no CPU peer for 16-bit dtypes: NumPy has no bfloat16, nor a BLAS for float16"
        return ("scipy" if op == "spmv" else "numpy"), None
    if dtype == "bf16" or (dtype == "f16" and op in ("matmul", "spmv")):
        return "torch", None
    return "cupy", None


def op_bytes(op, shape, dtype):
    """gpubench's byte model (src/model/op_table.cpp): sum writes one element of its accumulation
    type (f32 for f16/bf16)."""
    element = DTYPES[dtype].size
    if op in ("sin", "sqrt"):
        return 2 * shape["n"] * element
    if op == "sum":
        return shape["n"] * element + DTYPES[DTYPES[dtype].accumulation].size
    if op == "matmul":
        m, n, k = shape["m"], shape["n"], shape["k"]
        return (m * k + k * n + m * n) * element
    nnz, rows = shape["nnz"], shape["rows"]
    return nnz * (element + 4) + (rows + 1) * 4 + nnz * element + rows * element


# ----------------------------------------------------------------------------- inputs

POWERLAW_ALPHA = 2.5  # src/model/csr.cpp


def powerlaw_mean(np, scale, cap):
    exact = min(cap, 2048)
    j = np.arange(1, exact + 1, dtype=np.float64)
    mean = float(np.sum((1 + j / scale) ** -POWERLAW_ALPHA))
    if cap > exact:
        def antiderivative(x):
            return scale / (POWERLAW_ALPHA - 1) * (1 + x / scale) ** (1 - POWERLAW_ALPHA)
        mean += antiderivative(exact + 0.5) - antiderivative(cap + 0.5)
    return mean


def powerlaw_scale(np, target, cap):
    low, high = 1e-3, 1.0
    while powerlaw_mean(np, high, cap) < target and high < 1e15:
        high *= 2
    for _ in range(64):
        middle = 0.5 * (low + high)
        if powerlaw_mean(np, middle, cap) < target:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def make_csr_arrays(np, shape, rng):
    """(row_ptr, col_idx, rows, cols) with gpubench's structure: random rows hold distinct
    sorted columns spread uniformly (one per stratum), banded rows the diagonals from
    -(nnz/2) up, power-law rows a Lomax(alpha 2.5) length with gpubench's scale."""
    rows, per_row, pattern = shape["rows"], shape.get("nnz_per_row", 0), shape.get("pattern", "random")
    if pattern == "file":
        import scipy.io
        matrix = scipy.io.mmread(shape["matrix_path"]).tocsr()
        return matrix.indptr.astype(np.int32), matrix.indices.astype(np.int32), matrix.shape[0], matrix.shape[1]
    if pattern == "banded":
        row = np.arange(rows, dtype=np.int64)
        lowest = row - per_row // 2
        first = np.maximum(0, lowest)
        lengths = np.minimum(rows - 1, lowest + per_row - 1) - first + 1
    elif pattern == "powerlaw":
        scale = powerlaw_scale(np, float(per_row), rows)
        uniform = 1 - rng.random(rows)
        lengths = np.minimum(np.floor(scale * (uniform ** (-1 / POWERLAW_ALPHA) - 1)), rows).astype(np.int64)
    else:
        lengths = np.full(rows, per_row, dtype=np.int64)
    row_ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=row_ptr[1:])
    nnz = int(row_ptr[-1])
    owner = np.repeat(np.arange(rows, dtype=np.int64), lengths)
    position = np.arange(nnz, dtype=np.int64) - row_ptr[owner]
    if pattern == "banded":
        col_idx = first[owner] + position
    else:
        width = rows / np.maximum(lengths[owner], 1)
        col_idx = np.minimum(rows - 1, np.floor((position + rng.random(nnz)) * width)).astype(np.int64)
    return row_ptr.astype(np.int32), col_idx.astype(np.int32), rows, rows


def host_array(np, values, dtype):
    """values rounded to dtype, as the peers and the reference read them. NumPy has no
    bfloat16: bf16 values are rounded to nearest even on its 8 significand bits and kept in
    float32, from which torch's conversion to bfloat16 is exact."""
    if dtype == "bf16":
        bits = values.astype(np.float32).view(np.uint32)
        bits += np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
        bits &= np.uint32(0xFFFF0000)
        return bits.view(np.float32)
    return values.astype({"f32": np.float32, "f64": np.float64, "f16": np.float16}[dtype], copy=False)


def make_inputs(np, op, dtype, shape, rng):
    """Host inputs in gpubench's distributions (README, Cases); 16-bit ones drawn in f32 and
    rounded (host_array)."""
    def uniform(low, high, size):
        return host_array(np, rng.uniform(low, high, size), dtype)
    if op == "sin":
        return {"x": uniform(-math.pi, math.pi, shape["n"])}
    if op == "sqrt":
        return {"x": uniform(0, 1000, shape["n"])}
    if op == "sum":
        return {"x": host_array(np, rng.random(shape["n"], dtype=np.float64 if dtype == "f64" else np.float32), dtype)}
    if op == "matmul":
        m, n, k = shape["m"], shape["n"], shape["k"]
        return {"a": uniform(-1, 1, (m, k)), "b": uniform(-1, 1, (k, n))}
    row_ptr, col_idx, rows, cols = make_csr_arrays(np, shape, rng)
    return {"row_ptr": row_ptr, "col_idx": col_idx, "rows": rows, "cols": cols,
            "values": uniform(-1, 1, len(col_idx)), "x": uniform(-1, 1, cols)}


def peer_shape(np, op, shape, inputs):
    """The shape the peer actually ran (spmv: its own nonzero count)."""
    if op != "spmv":
        return dict(shape)
    result = dict(shape)
    result["nnz"] = int(len(inputs["col_idx"]))
    result["rows"], result["cols"] = int(inputs["rows"]), int(inputs["cols"])
    return result


# ----------------------------------------------------------------------------- checking

def bound_factor(op, dtype, growth):
    """The error bound over the entry's scale: 8u growth, with u the unit roundoff of the
    type the op accumulates or computes in, plus 8u of the output where the output is
    coarser (one rounding of a stored 16-bit result: src/model/op_table.cpp's
    accumulated_tolerance). 8u, four machine epsilons, is this script's headroom. sum stores
    its result in the accumulation type (f32 for f16/bf16), so it takes that type's u alone."""
    rule = DTYPES[dtype]
    accumulation = DTYPES[rule.accumulation].unit_roundoff
    output = accumulation if op == "sum" else rule.unit_roundoff
    return 8 * (accumulation * growth + (output if output > accumulation else 0))


def check_output(np, op, dtype, inputs, output, rng, samples=4096):
    """Largest sampled error over its bound, against a float64 NumPy reference computed from
    the (rounded) inputs the peer read; the bounds follow src/model/op_table.cpp in spirit
    (bound_factor): a few ulps for sin/sqrt, a sqrt(length)-scaled rounding bound for dot
    products, log2(n)-scaled for sum."""
    output = np.asarray(output)
    if op in ("sin", "sqrt"):
        x = inputs["x"]
        index = rng.integers(0, len(x), min(samples, len(x)))
        ref = (np.sin if op == "sin" else np.sqrt)(x[index].astype(np.float64))
        scale = np.abs(ref) + (0.25 if op == "sin" else 0)
        error = np.abs(output[index].astype(np.float64) - ref) / (bound_factor(op, dtype, 1) * np.maximum(scale, 1e-300))
    elif op == "sum":
        x = inputs["x"]
        ref = float(np.sum(x, dtype=np.float64))  # pairwise in float64: far below the bound
        bound = bound_factor(op, dtype, max(1.0, math.log2(len(x)))) * float(np.sum(np.abs(x), dtype=np.float64))
        error = np.array([abs(float(output) - ref) / bound])
    elif op == "matmul":
        a, b = inputs["a"], inputs["b"]
        count = min(samples, a.shape[0] * b.shape[1], 512)
        i = rng.integers(0, a.shape[0], count)
        j = rng.integers(0, b.shape[1], count)
        terms = a[i, :].astype(np.float64) * b[:, j].T.astype(np.float64)
        ref, scale = terms.sum(axis=1), np.abs(terms).sum(axis=1)
        bound = bound_factor(op, dtype, math.sqrt(a.shape[1])) * np.maximum(scale, 1e-300)
        error = np.abs(output[i, j].astype(np.float64) - ref) / bound
    else:
        row_ptr, col_idx, values, x = inputs["row_ptr"], inputs["col_idx"], inputs["values"], inputs["x"]
        rows = rng.integers(0, inputs["rows"], min(samples, inputs["rows"]))
        error = np.zeros(len(rows))
        for e, row in enumerate(rows):
            begin, end = row_ptr[row], row_ptr[row + 1]
            terms = values[begin:end].astype(np.float64) * x[col_idx[begin:end]].astype(np.float64)
            bound = bound_factor(op, dtype, 2 * math.sqrt(end - begin) + 16) * max(float(np.abs(terms).sum()), 1e-300)
            error[e] = abs(float(output[row]) - float(terms.sum())) / bound
    worst = float(np.max(error)) if error.size else 0.0
    return {"passed": bool(worst <= 1.0), "worst_error_over_bound": worst, "entries_checked": int(error.size)}


# ----------------------------------------------------------------------------- timing

def median_cpu(fn, min_reps=5, max_seconds=3.0):
    fn()
    times = []
    started = time.perf_counter()
    while len(times) < min_reps or (time.perf_counter() - started < max_seconds and len(times) < 200):
        begin = time.perf_counter()
        fn()
        times.append(time.perf_counter() - begin)
        if time.perf_counter() - started > 4 * max_seconds and len(times) >= 3:
            break
    return statistics.median(times), len(times)


def event_median(fn, new_event, elapsed_s, flush, n_repeat, warmups=3):
    """(median seconds, samples) of fn between two CUDA events, after warm-ups; flush(rep),
    where given, runs before each call and outside the events (the L2 flush)."""
    for _ in range(warmups):
        fn()
    start, stop = new_event(), new_event()
    times = []
    for rep in range(n_repeat):
        if flush is not None:
            flush(rep)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(elapsed_s(start, stop))
    return statistics.median(times), len(times)


FLUSHED = "L2 flushed before each call"


class CupyPeer:
    """CuPy timing: cupyx.profiler.benchmark (warm L2) or an event loop with an L2 flush."""

    def __init__(self, cp):
        import cupyx.profiler
        self.cp = cp
        self.version = cp.__version__
        self.benchmark = cupyx.profiler.benchmark
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        self.name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        self.l2_bytes = int(props.get("l2CacheSize", 50 << 20))
        self.flush_buffer = cp.empty(2 * self.l2_bytes, dtype=cp.uint8)

    def median(self, fn, l2, n_repeat=50):
        cp = self.cp
        if l2 == "warm":
            result = self.benchmark(fn, (), n_repeat=n_repeat, n_warmup=5)
            return float(statistics.median(result.gpu_times[0])), len(result.gpu_times[0]), "cupyx.profiler.benchmark (L2 warm)"
        seconds, count = event_median(fn, cp.cuda.Event, lambda start, stop: cp.cuda.get_elapsed_time(start, stop) * 1e-3,
                                      lambda rep: self.flush_buffer.fill(rep & 0xFF), n_repeat)
        return seconds, count, "CUDA events, " + FLUSHED

    def copy_gbps(self):
        cp = self.cp
        source = cp.ones(1 << 28, dtype=cp.float32)
        target = cp.empty_like(source)
        seconds, _, _ = self.median(lambda: cp.copyto(target, source), "flush", n_repeat=11)
        return 2 * source.nbytes / seconds / 1e9

    def run(self, op, dtype, inputs):
        """(function to time, function returning the output as NumPy, the call's name)."""
        cp = self.cp
        if op in ("sin", "sqrt"):
            x = cp.asarray(inputs["x"])
            y = cp.empty_like(x)
            ufunc = cp.sin if op == "sin" else cp.sqrt
            return (lambda: ufunc(x, out=y)), (lambda: cp.asnumpy(y)), "cupy." + op
        if op == "sum":
            x = cp.asarray(inputs["x"])
            # gpubench sums f16 in f32 and stores the f32 result; f32/f64 keep CuPy's default.
            accumulation = {"dtype": cp.float32} if DTYPES[dtype].accumulation != dtype else {}
            holder = {}

            def run():
                holder["s"] = cp.sum(x, **accumulation)
            return run, (lambda: float(holder["s"].get())), "cupy.sum"
        if op == "matmul":
            a, b = cp.asarray(inputs["a"]), cp.asarray(inputs["b"])
            c = cp.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
            return (lambda: cp.matmul(a, b, out=c)), (lambda: cp.asnumpy(c)), "cupy.matmul"
        import cupyx.scipy.sparse
        matrix = cupyx.scipy.sparse.csr_matrix(
            (cp.asarray(inputs["values"]), cp.asarray(inputs["col_idx"]), cp.asarray(inputs["row_ptr"])),
            shape=(inputs["rows"], inputs["cols"]))
        x = cp.asarray(inputs["x"])
        holder = {}

        def run_spmv():
            holder["y"] = matrix @ x
        return run_spmv, (lambda: cp.asnumpy(holder["y"])), "cupyx.scipy.sparse.csr_matrix @"

    def release(self):
        self.cp.get_default_memory_pool().free_all_blocks()


class TorchPeer:
    """PyTorch on "cuda", timed with torch.cuda.Event after warm-ups, the L2 flushed before
    each call (a fill of twice the L2 size, as gpubench does) unless the case ran warm."""

    def __init__(self, torch):
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.torch = torch
        self.version = f"{torch.__version__} (CUDA {torch.version.cuda})"
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.name = props.name
        # L2_cache_size is missing from older PyTorch; the fallback, 64 MiB, is more than an
        # H100's or H200's 50 MiB.
        self.flush_buffer = torch.empty(2 * int(getattr(props, "L2_cache_size", 64 << 20)), dtype=torch.uint8, device="cuda")
        # cuBLAS may otherwise reduce split-K partial sums of 16-bit GEMMs in 16 bits; gpubench
        # accumulates and reduces in f32.
        for setting in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
            if hasattr(torch.backends.cuda.matmul, setting):
                setattr(torch.backends.cuda.matmul, setting, False)
        self.element = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}

    def median(self, fn, l2, n_repeat=50):
        torch = self.torch
        flush = None if l2 == "warm" else (lambda rep: self.flush_buffer.fill_(rep & 0xFF))
        seconds, count = event_median(fn, lambda: torch.cuda.Event(enable_timing=True),
                                      lambda start, stop: start.elapsed_time(stop) * 1e-3, flush, n_repeat)
        return seconds, count, "torch.cuda.Event, " + ("L2 warm" if flush is None else FLUSHED)

    def run(self, op, dtype, inputs):
        """(function to time, function returning the output as NumPy, the call's name); 16-bit
        outputs come back as float32 (exact), since NumPy has no bfloat16."""
        torch = self.torch
        element = self.element[dtype]

        def device(array):
            return torch.from_numpy(array).to("cuda", dtype=element)

        def host(tensor):
            return (tensor.float() if tensor.dtype in (torch.float16, torch.bfloat16) else tensor).cpu().numpy()
        if op in ("sin", "sqrt"):
            x = device(inputs["x"])
            y = torch.empty_like(x)
            function = torch.sin if op == "sin" else torch.sqrt
            return (lambda: function(x, out=y)), (lambda: host(y)), "torch." + op
        if op == "sum":
            x = device(inputs["x"])
            accumulation = self.element[DTYPES[dtype].accumulation]
            holder = {}

            def run():
                holder["s"] = torch.sum(x, dtype=accumulation)
            return run, (lambda: float(holder["s"].item())), "torch.sum"
        if op == "matmul":
            a, b = device(inputs["a"]), device(inputs["b"])
            c = torch.empty((a.shape[0], b.shape[1]), dtype=element, device="cuda")
            return (lambda: torch.matmul(a, b, out=c)), (lambda: host(c)), "torch.matmul"
        matrix = torch.sparse_csr_tensor(torch.from_numpy(inputs["row_ptr"]).to("cuda"),
                                         torch.from_numpy(inputs["col_idx"]).to("cuda"), device(inputs["values"]),
                                         size=(inputs["rows"], inputs["cols"]))
        x = device(inputs["x"])
        holder = {}

        def run_spmv():
            holder["y"] = torch.mv(matrix, x)
        return run_spmv, (lambda: host(holder["y"])), "torch.mv (sparse CSR)"

    def release(self):
        self.torch.cuda.empty_cache()


def numpy_run(np, op, inputs):
    if op in ("sin", "sqrt"):
        x = inputs["x"]
        y = np.empty_like(x)
        ufunc = np.sin if op == "sin" else np.sqrt
        return (lambda: ufunc(x, out=y)), (lambda: y), "numpy." + op
    if op == "sum":
        holder = {}

        def run():
            holder["s"] = np.sum(inputs["x"])
        return run, (lambda: float(holder["s"])), "numpy.sum"
    if op == "matmul":
        a, b = inputs["a"], inputs["b"]
        c = np.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
        return (lambda: np.matmul(a, b, out=c)), (lambda: c), "numpy.matmul (@)"
    import scipy.sparse
    matrix = scipy.sparse.csr_matrix((inputs["values"], inputs["col_idx"], inputs["row_ptr"]),
                                     shape=(inputs["rows"], inputs["cols"]))
    x = inputs["x"]
    holder = {}

    def run_spmv():
        holder["y"] = matrix @ x
    return run_spmv, (lambda: holder["y"]), "scipy.sparse.csr_matrix @"


# ----------------------------------------------------------------------------- main parts

def blas_info():
    try:
        import threadpoolctl
        return [{k: v for k, v in pool.items() if k in ("internal_api", "version", "architecture",
                                                       "num_threads", "threading_layer", "filepath")}
                for pool in threadpoolctl.threadpool_info()]
    except Exception as error:  # threadpoolctl is optional
        return [{"note": f"threadpoolctl unavailable: {error}"}]


def format_seconds(seconds):
    if seconds is None:
        return "-"
    for unit, factor in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= factor:
            return f"{seconds / factor:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def one_line(error):
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def run_peers(np, gpu_peers, missing, report, args):
    """One row per usable record. gpu_peers: library -> CupyPeer/TorchPeer that could start;
    missing: library -> why it is not there (a case routed to it is listed as skipped)."""
    rng = np.random.default_rng(args.seed)
    cases = {}
    for record in report["results"]:
        if usable(record):
            cases.setdefault(case_key(record), []).append(record)
    rows = []
    for key, records in cases.items():
        op, dtype, label = key
        shape = records[0]["shape"]
        # The L2 mode of the case's GPU records (CPU records have none).
        l2 = next((r["settings"]["l2"] for r in records if r.get("settings", {}).get("l2")), "flush")
        kinds = {r["device"] for r in records} - ({"cpu"} if args.no_cpu else set())
        peers, runs = {}, {}
        for kind in sorted(kinds):
            library, reason = peer_route(kind, op, dtype)
            if library is None or library in missing:
                peers[kind] = {"peer": library, "skipped": reason or missing[library]}
            else:
                runs[kind] = library
        print(f"  {op} {dtype} {label} ...", file=sys.stderr, flush=True)
        inputs = make_inputs(np, op, dtype, shape, rng) if runs else None
        shape_run = peer_shape(np, op, shape, inputs) if runs else None
        for kind, library in runs.items():
            if kind == "gpu":
                peer = gpu_peers[library]
                try:
                    fn, fetch, call = peer.run(op, dtype, inputs)
                    seconds, count, method = peer.median(fn, l2)
                    peers["gpu"] = {"peer": library, "call": call, "median_s": seconds, "samples": count,
                                    "method": method, "shape": shape_run,
                                    "check": check_output(np, op, dtype, inputs, fetch(), rng)}
                except Exception as error:  # a peer that cannot run the case is reported, not fatal
                    peers["gpu"] = {"peer": library, "error": one_line(error)}
                finally:
                    fn = fetch = None  # the closures hold the device arrays
                    peer.release()
            else:
                fn, fetch, call = numpy_run(np, op, inputs)
                seconds, count = median_cpu(fn, max_seconds=args.cpu_seconds)
                peers["cpu"] = {"peer": library, "call": call, "median_s": seconds, "samples": count,
                                "method": "time.perf_counter, median", "shape": shape_run,
                                "check": check_output(np, op, dtype, inputs, fetch(), rng)}
        for record in records:
            peer = peers.get(record["device"])
            row = {"case": f"{op}/{dtype}/{label}", "op": op, "dtype": dtype, "shape": shape,
                   "backend": record["backend"], "device": record["device"],
                   "l2": record.get("settings", {}).get("l2"),
                   "gpubench_median_s": record["statistics"]["median"],
                   "gpubench_gbps": record.get("throughput", {}).get("gbps"),
                   "gpubench_gflops": record.get("throughput", {}).get("gflops"), "peer": peer}
            if peer and "median_s" in peer:
                gpubench_rate = op_bytes(op, shape, dtype) / record["statistics"]["median"]
                peer_rate = op_bytes(op, peer["shape"], dtype) / peer["median_s"]
                row["peer_gbps"] = peer_rate / 1e9
                row["ratio"] = gpubench_rate / peer_rate
            rows.append(row)
        del inputs
    return rows


def run_agreement(np, cp_peer, report, args):
    rng = np.random.default_rng(args.seed + 1)
    results = []
    for record in report["results"]:
        # The same library call on both clocks: CuPy reaches cuBLAS's GEMM and CUB's sum
        # through the same calls only for f32 and f64.
        if (not usable(record) or record["dtype"] not in ("f32", "f64")
                or (record["backend"], record["op"]) not in (("cublas", "matmul"), ("cub", "sum"))):
            continue
        op, dtype, shape = record["op"], record["dtype"], record["shape"]
        l2 = record.get("settings", {}).get("l2", "flush")
        inputs = make_inputs(np, op, dtype, shape, rng)
        fn, fetch, call = cp_peer.run(op, dtype, inputs)
        seconds, count, method = cp_peer.median(fn, l2, n_repeat=100)
        mine = record["statistics"]["median"]
        difference = (mine - seconds) / seconds
        results.append({"case": record["id"], "clock_a": f"gpubench {record['backend']} (l2 {l2})",
                        "median_a_s": mine, "clock_b": f"{call} via {method}", "median_b_s": seconds,
                        "difference": difference, "tolerance": args.tolerance,
                        "agrees": abs(difference) <= args.tolerance,
                        "check": check_output(np, op, dtype, inputs, fetch(), rng)})
        del inputs, fn, fetch
        cp_peer.release()
    return results


NCU_UNITS = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
             "second": 1.0, "s": 1.0}


def ncu_agreement(path, report, case_id, tolerance, samples_taken):
    """Kernel durations from `ncu --csv --metrics gpu__time_duration.sum` over a gpubench
    --profile run of one case, filtered to its samples (the NVTX filter
    gpubench@<case, '/' escaped as '\\/'>/measure: the `samples_taken` samples that --profile
    fixes, no warm-ups): the launches of one sample are summed (an op may launch several kernels),
    then the median over samples is compared with gpubench's median for that case in the
    main report. The L2 flush between samples (l2_evict_kernel) runs inside the same range
    but outside gpubench's timed region, so it is left out."""
    import csv
    with open(path) as handle:
        lines = [line for line in handle if line.startswith('"')]
    kernels = []
    for row in csv.DictReader(lines):
        if row.get("Metric Name") == "gpu__time_duration.sum" and "l2_evict_kernel" not in row.get("Kernel Name", ""):
            value = float(row["Metric Value"].replace(",", ""))
            kernels.append((row.get("Kernel Name", ""), value * NCU_UNITS.get(row.get("Metric Unit", "nsecond"), 1e-9)))
    clocks = {"case": case_id, "clock_a": "gpubench (CUDA events, L2 flushed)",
              "clock_b": "ncu gpu__time_duration.sum", "tolerance": tolerance}
    if not kernels:
        return dict(clocks, error=f"{os.path.basename(path)}: no gpu__time_duration.sum rows (ncu profiled no kernel)")
    if len(kernels) % samples_taken != 0:
        return dict(clocks, error=f"{os.path.basename(path)}: {len(kernels)} launches do not split into "
                                  f"{samples_taken} samples")
    per_sample = len(kernels) // samples_taken
    samples = [sum(seconds for _, seconds in kernels[i:i + per_sample]) for i in range(0, len(kernels), per_sample)]
    record = next((r for r in report["results"] if r.get("id") == case_id and usable(r)), None)
    result = dict(clocks, clock_b=f"ncu gpu__time_duration.sum ({len(kernels)} launches, {len(samples)} samples)",
                  median_b_s=statistics.median(samples))
    if record is None:
        result["error"] = f"case {case_id} not in the main report"
        return result
    result["median_a_s"] = record["statistics"]["median"]
    result["difference"] = (result["median_a_s"] - result["median_b_s"]) / result["median_b_s"]
    result["agrees"] = abs(result["difference"]) <= tolerance
    return result


def peer_missing_text(peer):
    """Why a row has no peer time: skipped (no peer for it), the peer's error, or not asked."""
    if "skipped" in peer:
        return "skipped: " + peer["skipped"]
    return "error: " + peer["error"] if "error" in peer else "no peer run"


def print_tables(document):
    rows = document["cases"]
    print(f"\npeers on {document['host']['gpu'] or 'no GPU'} / {document['host']['cpu']}")
    header = f"{'case':44} {'backend':9} {'median':>10} {'peer':>8} {'peer median':>12} {'ratio':>7}  peer check"
    print(header)
    print("-" * len(header))
    for row in rows:
        peer = row.get("peer") or {}
        ratio = f"{row['ratio']:.2f}x" if "ratio" in row else "-"
        check = peer.get("check", {})
        verdict = ("ok" if check.get("passed") else f"FAIL ({check.get('worst_error_over_bound', 0):.3g} x bound)") \
            if check else peer_missing_text(peer)
        print(f"{row['case'][:44]:44} {row['backend']:9} {format_seconds(row['gpubench_median_s']):>10} "
              f"{peer.get('peer') or '-':>8} {format_seconds(peer.get('median_s')):>12} {ratio:>7}  {verdict}")
    print("ratio: gpubench throughput / peer throughput (peer time / gpubench time); above 1: gpubench is faster")
    if document.get("agreement"):
        print(f"\nagreement (one call, two clocks; tolerance {document['tolerance']:.0%})")
        for row in document["agreement"]:
            if "error" in row:
                print(f"  {row['case']}: {row['error']}")
                continue
            print(f"  {row['case'][:40]:40} {row['clock_a'][:30]:30} {format_seconds(row['median_a_s']):>10}  "
                  f"{row['clock_b'][:44]:44} {format_seconds(row['median_b_s']):>10}  {row['difference']:+.1%}  "
                  f"{'agrees' if row['agrees'] else 'DISAGREES'}")
    for note in document["notes"]:
        print("note:", note)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="See the module docstring (head of this file) for the method.")
    parser.add_argument("report", help="gpubench JSON report whose cases to run in the peers")
    parser.add_argument("--agreement", metavar="REPORT",
                        help="gpubench report (run with --l2 warm) of cublas matmul and cub sum cases to time in CuPy")
    parser.add_argument("--ncu", metavar="CSV", action="append", default=[],
                        help="ncu --csv output of a gpubench --profile run of the matching --ncu-case (repeatable)")
    parser.add_argument("--ncu-case", action="append", default=[],
                        help="the case id the matching --ncu run profiled (repeatable; default sum/cuda/f32/268435456)")
    parser.add_argument("--ncu-samples", type=int, default=5, help="samples in that run (gpubench --profile: 5)")
    parser.add_argument("--out", help="write the comparison as JSON here")
    parser.add_argument("--tolerance", type=float, default=0.03, help="agreement tolerance (fraction, default 0.03)")
    parser.add_argument("--cpu-seconds", type=float, default=2.0, help="time budget per NumPy case (default 2 s)")
    parser.add_argument("--no-gpu", action="store_true", help="skip CuPy and PyTorch")
    parser.add_argument("--no-cpu", action="store_true", help="skip NumPy/SciPy")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    inputs = [args.report] + ([args.agreement] if args.agreement else []) + args.ncu
    if args.out and os.path.exists(args.out) and any(os.path.exists(path) and os.path.samefile(path, args.out)
                                                     for path in inputs):
        parser.error(f"--out {args.out} is one of the inputs: refusing to write over it")

    report = load_report(args.report)
    try:
        import numpy as np
    except ImportError:
        sys.exit("compare_peers.py needs NumPy (and SciPy for spmv): pip install numpy scipy")
    notes = []
    gpu_peers, missing = {}, {}
    routed = {peer_route(r["device"], r["op"], r["dtype"])[0] for r in report["results"] if usable(r)}
    for library, title, peer_class in (("cupy", "CuPy", CupyPeer), ("torch", "PyTorch", TorchPeer)):
        # CuPy starts for the copy ceiling and --agreement too; PyTorch only for its cases.
        if args.no_gpu:
            missing[library] = "--no-gpu"
        elif library == "cupy" or library in routed:
            try:
                gpu_peers[library] = peer_class(importlib.import_module(library))
            except Exception as error:  # no library, no GPU or no driver: the rest still runs
                missing[library] = f"{title} unavailable ({one_line(error)})"
                notes.append(f"{missing[library]}: the GPU cases routed to it have no peer")
    if args.no_gpu:
        notes.append("CuPy and PyTorch skipped (--no-gpu): GPU cases have no peer")
    if "torch" in gpu_peers:
        notes.append("PyTorch's reduced-precision reductions are off: its 16-bit GEMMs accumulate and reduce in f32")
    try:
        import scipy
    except ImportError as error:
        scipy = None
        missing["scipy"] = f"SciPy unavailable ({one_line(error)})"
        notes.append(missing["scipy"] + ": spmv has no CPU peer")
    for note in notes:
        print("note:", note, file=sys.stderr)

    gpu_names = [peer.name for peer in gpu_peers.values()]
    document = {
        "schema": "gpubench-peers", "schema_version": 1,
        "report": os.path.abspath(args.report), "gpubench_context": report.get("context", {}),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": {"cpu": platform.processor() or platform.machine(), "python": platform.python_version(),
                 "gpu": gpu_names[0] if gpu_names else None},
        "versions": {"numpy": np.__version__},
        "blas": blas_info(),
        "copy_gbps": {},
        "tolerance": args.tolerance,
        "notes": notes,
    }
    if scipy is not None:
        document["versions"]["scipy"] = scipy.__version__
    for library, peer in gpu_peers.items():
        document["versions"][library] = peer.version
    cp_peer = gpu_peers.get("cupy")
    if cp_peer is not None:
        # Which backend CuPy's reductions use (CUB or its own kernels) decides what cupy.sum is.
        document["versions"]["cupy_accelerators"] = os.environ.get("CUPY_ACCELERATORS", "(default)")
        document["copy_gbps"]["gpu"] = cp_peer.copy_gbps()
    if not args.no_cpu:
        source = np.ones(1 << 26)
        target = np.empty_like(source)
        seconds, _ = median_cpu(lambda: np.copyto(target, source), max_seconds=0.5)
        document["copy_gbps"]["cpu_one_thread"] = 2 * source.nbytes / seconds / 1e9

    document["cases"] = run_peers(np, gpu_peers, missing, report, args)
    document["agreement"] = []
    if args.agreement:
        if cp_peer is None:
            notes.append("agreement not run: it needs CuPy")
        else:
            document["agreement"] = run_agreement(np, cp_peer, load_report(args.agreement), args)
    for index, path in enumerate(args.ncu):
        case_id = args.ncu_case[index] if index < len(args.ncu_case) else "sum/cuda/f32/268435456"
        document["agreement"].append(ncu_agreement(path, report, case_id, args.tolerance, args.ncu_samples))

    print_tables(document)
    if args.out:
        with open(args.out + ".tmp", "w") as handle:
            json.dump(document, handle, indent=1)
        os.replace(args.out + ".tmp", args.out)
    failed = [row["case"] for row in document["cases"]
              if row.get("peer", {}) and row["peer"].get("check") and not row["peer"]["check"]["passed"]]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
