"""The Python package's tests: the package the build made (PYTHONPATH=<build>/python, set by
ctest) and the program beside it (GPUBENCH). Tests marked gpu need a CUDA device and CuPy or
PyTorch, and are skipped with the reason where one is missing; with GPUBENCH_PYTEST_ALL_SKIPPED
set, a session whose every test was skipped exits with that code (ctest's skip code), so a
skipped run never reads as a pass."""

import os
import pathlib
import shutil
import subprocess

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device and CuPy or PyTorch")


def pytest_sessionfinish(session, exitstatus):
    code = os.environ.get("GPUBENCH_PYTEST_ALL_SKIPPED")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not code or reporter is None or exitstatus not in (0, 5):
        return
    ran = sum(len(reporter.stats.get(kind, [])) for kind in ("passed", "failed", "error"))
    if ran == 0:
        session.exitstatus = int(code)


@pytest.fixture(scope="session")
def program():
    """The gpubench program of the same build."""
    path = os.environ.get("GPUBENCH") or shutil.which("gpubench")
    if not path:
        pytest.fail("GPUBENCH names no program (ctest sets it) and none is on PATH")
    return path


@pytest.fixture
def gpubench_cli(program):
    def run(*args, check=True):
        completed = subprocess.run([program, *map(str, args)], capture_output=True, text=True, timeout=600)
        if check and completed.returncode != 0:
            raise AssertionError(f"gpubench {' '.join(map(str, args))} exited {completed.returncode}:\n"
                                 f"{completed.stdout}\n{completed.stderr}")
        return completed
    return run


# Short stopping rules: the tests check what the records hold, not how fast anything is.
QUICK = dict(min_samples=5, min_time=0.0, max_time=0.2)


@pytest.fixture
def quick():
    return dict(QUICK)


def source_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("GPUBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
