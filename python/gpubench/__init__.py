"""gpubench from Python: the program's suite, and any NumPy, CuPy or PyTorch function, measured
by the same C++ engine (warm-ups, a cold L2 per launch, noise-based stopping, the median's
confidence interval, telemetry, verification, the CPU-versus-GPU crossover).

    import gpubench
    results = gpubench.run(op="sum", size=1 << 20, backend="eigen")
    results.save("sum.json")                  # gpubench compare/report/merge/history read it
    r = gpubench.benchmark(lambda: x.sum())    # a function of your own
    table = gpubench.compare_functions({"numpy": f_cpu, "cupy": f_gpu}, sizes=[...], make_args=...)
    print(table.summary()); table.html("sweep.html")

docs/python.md documents the API.
"""

from . import _core
from ._benchmark import benchmark, compare_functions
from ._magic import load_ipython_extension
from ._results import Record, Results
from ._run import command_line, run

__version__: str = _core.version
have_cuda: bool = _core.have_cuda

load = Results.load

__all__ = ["Record", "Results", "benchmark", "command_line", "compare_functions", "have_cuda", "load",
           "load_ipython_extension", "run"]
