"""gpubench.run: the program's `gpubench run`, in this process, returning its JSON report."""

from __future__ import annotations

import os
import re
import signal
import tempfile
from typing import Any, Iterable, List, Optional, Sequence, Union

from . import _core
from ._results import Results

Names = Union[str, Sequence[str]]
Sizes = Union[int, str, Sequence[Union[int, str]]]

# Keywords run() decides itself: it reads the JSON report it asks for.
_RESERVED = {"format": "run() returns the records; render them with Results.render(format)",
             "out": "run() returns the records; write them with Results.save(path)",
             "quiet": "run() prints nothing", "progress": "run() prints nothing"}


def _values(value: Any) -> List[str]:
    if isinstance(value, (list, tuple)):
        return [str(item) for item in value]
    return [str(value)]


def _python_words(message: str) -> str:
    """The program's usage message in run()'s words: '--max-noise' -> 'max_noise'."""
    message = re.sub(r"--([a-z0-9][a-z0-9-]*)", lambda match: match.group(1).replace("-", "_"), message)
    message = message.replace("unknown option", "unknown setting").replace("for gpubench run", "for gpubench.run()")
    return message.strip().removeprefix("gpubench: ").removeprefix("gpubench run: ")


def command_line(op: Optional[Names] = None, size: Optional[Sizes] = None, backend: Optional[Names] = None,
                 dtype: Optional[Names] = None, **settings: Any) -> List[str]:
    """The arguments of `gpubench run` that run() passes for these keywords (without --out)."""
    args: List[str] = []
    for name, value in (("op", op), ("size", size), ("backend", backend), ("dtype", dtype)):
        if value is not None:
            for item in _values(value):
                args += [f"--{name}", item]
    table = {keyword: (flag, percent, switch) for keyword, flag, percent, switch in _core.setting_flags()}
    for keyword, value in settings.items():
        if keyword in _RESERVED:
            raise ValueError(f"gpubench.run(): '{keyword}' is not a setting here: {_RESERVED[keyword]}")
        flag, percent, switch = table.get(keyword, ("--" + keyword.replace("_", "-"), False, False))
        if isinstance(value, bool) or switch:
            if not isinstance(value, bool):
                raise ValueError(f"gpubench.run(): {keyword} takes True or False, got {value!r}")
            if value:
                args.append(flag)
            continue
        if value is None:
            continue
        for item in _values(value):
            if percent and isinstance(value, (int, float)):
                item = repr(float(value) * 100)  # keywords take fractions, as suites do; the flag percent
            args += [flag, item]
    return args


def run(op: Optional[Names] = None, size: Optional[Sizes] = None, backend: Optional[Names] = None,
        dtype: Optional[Names] = None, **settings: Any) -> Results:
    """Runs gpubench's suite, or the cases named, as `gpubench run` does, in this process.

    ``op``, ``size``, ``backend`` and ``dtype`` take one value or a list. Every other keyword
    is a `gpubench run` option spelled with underscores (``min_samples=20``,
    ``timing="e2e"``, ``l2="warm"``, ``config="configs/ci.json"``, ``tf32=True``);
    ``max_noise`` is a fraction (0.01 for 1 %) and ``min_time``/``max_time``/``soak``
    seconds, as in a suite's settings. An unknown keyword or a bad value raises ValueError
    naming it (and what was probably meant). Returns the records of the JSON report the
    program writes; RuntimeError when the program fails otherwise.
    """
    args = ["run"] + command_line(op, size, backend, dtype, **settings)
    with tempfile.TemporaryDirectory(prefix="gpubench-") as directory:
        # {rank}: under a launcher (torchrun, srun, mpirun) each rank writes its own report.
        pattern = os.path.join(directory, "report-{rank}.json")
        code, out, err = _core.run_program(args + ["--out", pattern, "--quiet", "--progress", "never"])
        _raise_for_signal(code)
        if code == 2:
            raise ValueError(_python_words(err))
        written = sorted(os.listdir(directory))
        if len(written) != 1:
            raise RuntimeError(f"gpubench run failed (exit {code}): {err.strip() or out.strip()}")
        with open(os.path.join(directory, written[0]), encoding="utf-8") as file:
            results = Results([file.read()])
    results.exit_code = code
    results.messages = err
    return results


def _raise_for_signal(code: int) -> None:
    """A command that a signal stopped (exit 128 + its number: the program's handlers stood in
    for Python's while it ran) ends here as Python would have ended: KeyboardInterrupt for
    SIGINT, the signal's own handling for the others."""
    if code == 128 + signal.SIGINT:
        raise KeyboardInterrupt("gpubench stopped by SIGINT")
    if code == 128 + signal.SIGTERM:
        signal.raise_signal(signal.SIGTERM)


def main(argv: Optional[Iterable[str]] = None) -> int:
    """`python -m gpubench ARGS`: the program's command line, in this process."""
    import sys
    code, out, err = _core.run_program(list(sys.argv[1:] if argv is None else argv))
    sys.stdout.write(out)
    sys.stderr.write(err)
    return code
