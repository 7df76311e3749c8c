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

import os as _os
import sys as _sys


def _choose_openmp_wait_policy() -> None:
    """OpenMP's idle threads sleep rather than spin, as in the program (cpu_backend/threading.hpp
    says why), unless the environment chose or an OpenMP runtime is loaded already (it read
    the environment when it was): libgomp reads it when the module below loads it."""
    if "OMP_WAIT_POLICY" in _os.environ or "GOMP_SPINCOUNT" in _os.environ:
        return
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            if "libgomp" in maps.read():
                return
    except OSError:
        return
    _os.environ["OMP_WAIT_POLICY"] = "passive"


_choose_openmp_wait_policy()


def _load_the_cxx_runtime_globally() -> None:
    """The C++ runtime joins the process's global symbol scope before the module loads.

    The module links the program's core libraries, which carry weak copies of C++ runtime
    template code; Python loads extension modules with local scope, and then the module's
    copies, not the runtime's, can serve the module's own calls. Seen on Ubuntu 24.04 (GCC 13,
    a virtual environment's interpreter): the first number parsed from a stream crashed there,
    and ran with the runtime preloaded (LD_PRELOAD). Loaded here into the global scope, the
    runtime's definitions come first for every library loaded after it, as they would preloaded.
    """
    if not _sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)
    except OSError:
        pass  # no shared C++ runtime to share: the module's own is the only one


_load_the_cxx_runtime_globally()

from . import _core  # noqa: E402
from ._benchmark import benchmark, compare_functions
from ._magic import load_ipython_extension
from ._results import Record, Results
from ._run import command_line, run

__version__: str = _core.version
have_cuda: bool = _core.have_cuda

load = Results.load

__all__ = ["Record", "Results", "benchmark", "command_line", "compare_functions", "have_cuda", "load",
           "load_ipython_extension", "run"]
