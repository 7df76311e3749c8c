"""The IPython magic %gpubench (like %timeit): `%load_ext gpubench`, then `%gpubench expr`."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from ._benchmark import benchmark

_PARSER = argparse.ArgumentParser(prog="%gpubench", add_help=False)
_PARSER.add_argument("--device", choices=["cpu", "cuda"])
_PARSER.add_argument("--l2", choices=["flush", "warm"], default="flush")
_PARSER.add_argument("--max-noise", type=float, help="a fraction: 0.01 for 1 %%")
_PARSER.add_argument("--max-time", type=float)
_PARSER.add_argument("--min-samples", type=int)
_PARSER.add_argument("--warmup", type=int)
_PARSER.add_argument("statement", nargs=argparse.REMAINDER)


def _parse(line: str) -> "tuple[dict[str, Any], str]":
    words = shlex.split(line, posix=True)
    # Options come first; the statement is the rest of the line, as typed.
    options: "list[str]" = []
    while words and words[0].startswith("--"):
        options.append(words.pop(0))
        if "=" not in options[-1] and words:
            options.append(words.pop(0))
    parsed = _PARSER.parse_args(options)
    statement = line
    for option in options:
        statement = statement.replace(option, "", 1)
    settings = {key: value for key, value in vars(parsed).items() if key != "statement" and value is not None}
    if settings.get("max_time") is not None and "min_time" not in settings:
        settings["min_time"] = min(0.05, settings["max_time"])
    return settings, statement.strip()


def gpubench_magic(line: str, cell: str = "", user_ns: Any = None, local_ns: Any = None) -> Any:
    """%gpubench [--device cpu|cuda] [--l2 flush|warm] [--max-noise F] [--max-time S]
    [--min-samples N] [--warmup N] STATEMENT: the statement timed by gpubench.benchmark, its
    names looked up in the notebook's namespace; %%gpubench times the cell."""
    settings, statement = _parse(line)
    source = cell if cell else statement
    if not source:
        raise ValueError("%gpubench needs a statement to time, e.g. %gpubench cp.sum(x)")
    namespace = dict(user_ns or {})
    if local_ns:
        namespace.update(local_ns)
    code = compile(source, "<gpubench>", "exec")

    def timed() -> None:
        exec(code, namespace)

    timed.__qualname__ = source.strip().splitlines()[0][:60]
    device = settings.pop("device", None)
    if device is None:
        # What the statement names decides, as benchmark() decides for a function of none.
        from ._benchmark import _gpu_library
        names = [namespace[name] for name in code.co_names if name in namespace]
        device = "cuda" if _gpu_library(names) else "cpu"
    return benchmark(timed, device=device, **settings)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext gpubench`: registers %gpubench and %%gpubench."""
    def line_magic(line: str, local_ns: Any = None) -> Any:
        return gpubench_magic(line, user_ns=ipython.user_ns, local_ns=local_ns)

    line_magic.needs_local_scope = True  # what IPython's @needs_local_scope sets

    def cell_magic(line: str, cell: str) -> Any:
        return gpubench_magic(line, cell, user_ns=ipython.user_ns)

    ipython.register_magic_function(line_magic, "line", "gpubench")
    ipython.register_magic_function(cell_magic, "cell", "gpubench")
