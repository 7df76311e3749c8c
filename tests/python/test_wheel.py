"""The package as a user installs it: a wheel built through scikit-build-core from this tree,
installed into a fresh virtual environment, imported there and run on a small CPU function,
and its `gpubench` command. The wheel packages the module and program this build made
(GPUBENCH_PYTHON_PREBUILT): compiling the core again would double the test suite's build."""

import os
import pathlib
import subprocess
import sys
import zipfile

import pytest

from conftest import source_dir


def run(args, **options):
    completed = subprocess.run(list(map(str, args)), capture_output=True, text=True, timeout=900, **options)
    assert completed.returncode == 0, f"{' '.join(map(str, args))}:\n{completed.stdout}\n{completed.stderr}"
    return completed


def test_wheel_installs_into_a_fresh_environment(tmp_path):
    build_dir = os.environ.get("GPUBENCH_BUILD_DIR")
    if not build_dir:
        pytest.fail("GPUBENCH_BUILD_DIR names no build directory (ctest sets it)")
    for module in ("scikit_build_core", "nanobind"):
        if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode != 0:
            pytest.fail(f"{module} is not installed for {sys.executable} (scripts/setup.sh installs it)")
    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", source_dir(), "--no-deps", "--no-build-isolation", "--wheel-dir", wheels,
         f"--config-settings=cmake.define.GPUBENCH_PYTHON_PREBUILT={build_dir}",
         f"--config-settings=build-dir={tmp_path / 'wheel-build'}"])
    [wheel] = list(wheels.glob("gpubench-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert any(name.startswith("gpubench/_core") for name in names), names
    assert {"gpubench/__init__.py", "gpubench/_core.pyi", "gpubench/py.typed"} <= set(names), names
    assert any(name.endswith("/scripts/gpubench") for name in names), names

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "--no-index", "--no-deps", wheel])
    script = ("import gpubench, json\n"
              "r = gpubench.benchmark(lambda: sum(range(1000)), min_samples=5, min_time=0, max_time=0.2)\n"
              "print(json.dumps([r[0]['id'], r[0]['status'], r[0]['statistics']['count'], gpubench.__file__]))\n")
    # Out of the source tree, so that only the installed package can be imported.
    printed = run([python, "-c", script], cwd=tmp_path, env={"PATH": os.environ.get("PATH", "")}).stdout
    record_id, status, count, location = __import__("json").loads(printed)
    assert (record_id, status) == ("callable/numpy/f32/1", "ok") and count >= 5
    assert pathlib.Path(location).is_relative_to(venv)
    listed = run([venv / "bin" / "gpubench", "list"]).stdout
    assert "eigen" in listed
