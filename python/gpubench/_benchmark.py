"""gpubench.benchmark and gpubench.compare_functions: any callable, measured by gpubench's runner."""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from . import _core
from ._results import Results

# (device, stream pointer, device ordinal, library) of a call.
Target = Tuple[str, int, int, str]


def _module_of(value: Any) -> str:
    return type(value).__module__.split(".")[0]


def _gpu_library(values: Iterable[Any]) -> Optional[str]:
    """'cupy' or 'torch' when one of the values is a CuPy array or a CUDA tensor."""
    for value in values:
        module = _module_of(value)
        if module == "cupy":
            return "cupy"
        if module == "torch" and getattr(value, "is_cuda", False):
            return "torch"
    return None


def _referenced_values(fn: Callable[..., Any]) -> List[Any]:
    """What a function reads from its closure and module globals (lambda: cp.sum(x) reads x)."""
    values: List[Any] = []
    code = getattr(fn, "__code__", None)
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    namespace = getattr(fn, "__globals__", {})
    for name in getattr(code, "co_names", ()):
        if name in namespace:
            values.append(namespace[name])
    return values


def _stream_of(library: str) -> Tuple[int, int]:
    """(stream pointer, device ordinal) of the library's current stream."""
    if library == "cupy":
        import cupy
        return int(cupy.cuda.get_current_stream().ptr), int(cupy.cuda.Device().id)
    import torch
    return int(torch.cuda.current_stream().cuda_stream), int(torch.cuda.current_device())


def resolve_target(fn: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any],
                   device: Optional[str], stream: Optional[int]) -> Target:
    """Where fn's work runs: device="cpu" or "cuda" as given, else a CUDA device when its
    arguments (or, for a function of none, the values it reads) are CuPy arrays or CUDA
    tensors; the stream is `stream` when given, else that library's current stream."""
    if device not in (None, "cpu", "cuda"):
        raise ValueError(f"device: expected 'cpu' or 'cuda', got {device!r}")
    library = _gpu_library(list(args) + list(kwargs.values()))
    if library is None and not args and not kwargs:
        library = _gpu_library(_referenced_values(fn))
    if device is None:
        device = "cuda" if library is not None or stream is not None else "cpu"
    if device == "cpu":
        if stream is not None:
            raise ValueError("stream= needs device='cuda'")
        return "cpu", 0, 0, "numpy"
    if library is None:
        imported = {name for name in ("cupy", "torch") if sys.modules.get(name) is not None}
        library = "cupy" if "cupy" in imported else "torch" if "torch" in imported else ""
    if stream is not None:
        ordinal = _stream_of(library)[1] if library else 0
        return "cuda", int(stream), ordinal, library or "cuda"
    if not library:
        raise ValueError("device='cuda' needs CuPy or PyTorch imported, or stream= (a cudaStream_t as an int)")
    pointer, ordinal = _stream_of(library)
    return "cuda", pointer, ordinal, library


def _side_stream(library: str) -> Tuple[int, Callable[[Callable[[], None]], Callable[[], None]]]:
    """A stream of the library's own (the default stream cannot be captured into a CUDA
    graph) and a wrapper that makes it the library's current stream around a call."""
    if library == "cupy":
        import cupy
        cupy.cuda.Device().synchronize()  # the inputs, made on other streams, are ready
        stream = cupy.cuda.Stream(non_blocking=True)
        pointer, current = int(stream.ptr), lambda: stream
    else:
        import torch
        torch.cuda.synchronize()
        torch_stream = torch.cuda.Stream()
        pointer, current = int(torch_stream.cuda_stream), lambda: torch.cuda.stream(torch_stream)

    def on_stream(call: Callable[[], None]) -> Callable[[], None]:
        def wrapped() -> None:
            with current():
                call()
        return wrapped
    return pointer, on_stream


def _to_numpy(value: Any) -> Any:
    import numpy
    if _module_of(value) == "cupy":
        return value.get()
    if _module_of(value) == "torch":
        return value.detach().cpu().numpy()
    return numpy.asarray(value)


def _reference_check(output: Any, expected: Any, rtol: float, atol: float) -> Tuple[bool, float, float, int, str]:
    """numpy.allclose's rule, |y - ref| <= atol + rtol |ref|, as the record's verification: the
    largest error in units of that bound (so the tolerance is 1)."""
    import numpy
    y = numpy.asarray(_to_numpy(output), dtype=numpy.float64)
    ref = numpy.asarray(_to_numpy(expected), dtype=numpy.float64)
    if y.shape != ref.shape:
        return False, float("inf"), 1.0, int(ref.size), f"output shape {y.shape}, reference shape {ref.shape}"
    bound = atol + rtol * numpy.abs(ref)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        error = numpy.where(y == ref, 0.0, numpy.abs(y - ref) / bound)
    error = numpy.where(numpy.isfinite(y) | (y == ref), error, numpy.inf)
    worst = float(error.max()) if error.size else 0.0
    method = f"all {ref.size} entries against the reference, |y - ref| <= {atol:g} + {rtol:g} |ref|"
    return bool(worst <= 1.0), worst, 1.0, int(ref.size), method


def benchmark(fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: Optional[Mapping[str, Any]] = None, *,
              name: Optional[str] = None, device: Optional[str] = None, stream: Optional[int] = None,
              size: int = 1, dtype: str = "f32", l2: str = "flush", timing: str = "kernel",
              reference: Optional[Callable[..., Any]] = None, rtol: float = 1e-5, atol: float = 1e-8,
              **settings: Any) -> Results:
    """Times ``fn(*args, **kwargs)`` with gpubench's runner and returns its record.

    On the CPU (``device="cpu"``, NumPy) each sample is the steady clock around the calls; on
    a GPU (``device="cuda"``, or found from CuPy arrays or CUDA tensors among the arguments or,
    for a function of none, the values it reads) CUDA events on ``stream`` (default: the
    current CuPy or PyTorch stream) around them, with the host time of each call beside.
    The runner's rules apply: ``warmup`` untimed calls, then samples until the median's 95 %
    confidence interval is within ``max_noise`` (a fraction) or the ``min_time``/``max_time``
    budget is spent, at least ``min_samples``. ``l2="flush"`` (the default, GPU only) evicts
    the L2 before each single timed call with the flusher the program uses; ``"warm"`` batches
    short calls on a warm cache. GPU samples carry the telemetry summary (clocks, power,
    throttling). NVTX ranges are named after ``fn.__qualname__`` (or ``name``).

    ``timing="graph"`` (GPU only) captures a batch of calls into a CUDA graph and times its
    replay: the op's own time, without Python's cost of issuing each call, which is what a
    warm batch of fast calls otherwise measures (the record's timing note says when the host
    set the pace). The calls run on a stream of their own (CuPy's or PyTorch's, made current
    around each call; the default stream cannot be captured) unless ``stream=`` is given, after
    one call outside the capture so that the library's memory pool holds what the calls
    allocate. A function that synchronises or allocates anew inside the capture is refused
    with the reason. With ``l2="flush"`` each captured call follows an L2 eviction, timed in a
    graph of its own and subtracted.

    ``reference`` (a callable of the same arguments) is compared with fn's output after
    timing, by numpy.allclose's rule with ``rtol`` and ``atol``; the record's verification
    says how it went. ``size`` is the case's n (the size a sweep varies), ``dtype`` a label.
    An exception fn raises comes back as raised; an unknown setting is a ValueError; a case
    that cannot be measured (no CUDA device) a RuntimeError.
    """
    if timing not in ("kernel", "graph"):
        import difflib
        near = difflib.get_close_matches(str(timing), ["kernel", "graph"], n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise ValueError(f"timing: {timing!r} is not a timing of a function ({hint}expected 'kernel' or 'graph'; "
                         "'e2e' does not apply: a function's transfers are its own)")
    kwargs = dict(kwargs or {})
    args = tuple(args)
    target_device, pointer, ordinal, library = resolve_target(fn, args, kwargs, device, stream)
    label = name or (library if target_device == "cuda" else "numpy")
    range_name = name or getattr(fn, "__qualname__", None) or repr(fn)
    settings = dict(settings)
    settings["l2"] = l2

    def call() -> None:
        fn(*args, **kwargs)

    if timing == "graph" and target_device == "cuda" and stream is None and library in ("cupy", "torch"):
        pointer, on_stream = _side_stream(library)
        call = on_stream(call)

    check = None
    if reference is not None:
        def check() -> Tuple[bool, float, float, int, str]:
            output = fn(*args, **kwargs)
            expected = reference(*args, **kwargs)
            return _reference_check(output, expected, rtol, atol)

    argv = ["python", f"gpubench.benchmark({range_name})"]
    document = _core.measure_callable(call, label, target_device, pointer, ordinal, int(size), dtype, timing,
                                      settings, range_name, check, argv)
    results = Results([document])
    record = results[0]
    # A case that could not be measured is an error here; one whose output is wrong is a
    # record (status failed, its verification says how), as the program reports it.
    if record["status"] != "ok" and not record["verification"]["checked"]:
        raise RuntimeError(f"gpubench.benchmark({range_name}): {record['reason']}")
    return results


def compare_functions(functions: Mapping[str, Callable[..., Any]], sizes: Sequence[int],
                      make_args: Callable[[int, str], Any], *, dtype: str = "f32",
                      devices: Optional[Mapping[str, str]] = None, reference: Optional[str] = None,
                      rtol: float = 1e-5, atol: float = 1e-8, **settings: Any) -> Results:
    """Measures each function at each size, for the speed-up and crossover table gpubench
    gives for its own ops (``Results.summary()``) and its HTML report (``Results.html()``).

    ``make_args(n, name)`` builds the arguments of function ``name`` at size n: a tuple of
    positional arguments (or one value, passed alone), made before timing. ``devices`` names a
    function's device ("cpu" or "cuda") where its arguments do not tell. ``reference`` names
    the function whose output the others are checked against (and the reference against a
    second call of itself); the speed-up summary pairs verified records only, so without a
    reference it has nothing to compare. The other keywords are
    benchmark()'s settings. Records are labelled by the names given.
    """
    if not functions:
        raise ValueError("compare_functions needs at least one function")
    if reference is not None and reference not in functions:
        raise ValueError(f"reference {reference!r} is none of the functions: {', '.join(functions)}")
    devices = dict(devices or {})
    unknown = set(devices) - set(functions)
    if unknown:
        raise ValueError(f"devices names {', '.join(sorted(unknown))}, none of the functions: {', '.join(functions)}")
    documents: List[Tuple[str, str]] = []
    for n in sizes:
        for label, fn in functions.items():
            made = make_args(int(n), label)
            args = made if isinstance(made, tuple) else (made,)
            check_against = None
            if reference is not None:
                # The others against the reference; the reference against a second call of
                # itself (the same output twice), so that its records are verified too and the
                # summary pairs them (it compares verified records only).
                reference_args = make_args(int(n), reference) if label != reference else args
                reference_args = reference_args if isinstance(reference_args, tuple) else (reference_args,)
                reference_fn = functions[reference]
                check_against = (lambda *_ignored, _fn=reference_fn, _args=reference_args: _fn(*_args))
            result = benchmark(fn, args, name=label, device=devices.get(label), size=int(n), dtype=dtype,
                               reference=check_against, rtol=rtol, atol=atol, **settings)
            documents.append((result[0]["device"], result._documents[0]))
    # The first report's context is the joined report's: a GPU one holds the host's and the GPU's.
    documents.sort(key=lambda entry: entry[0] != "gpu")
    return Results([document for _, document in documents])
