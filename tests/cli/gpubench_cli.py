"""Shared helpers for the end-to-end CLI tests: run the built binary, parse its output."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

GPUBENCH = os.environ.get("GPUBENCH", "")
SOURCE_DIR = os.environ.get("GPUBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
# Quick stopping rule for tests: what is checked is behaviour, not timings.
FAST = ["--warmup", "1", "--min-samples", "3", "--max-samples", "20", "--min-time", "0", "--max-time", "0.2"]
SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests
# Environment variables of the launchers gpubench reads (src/fleet/launcher.hpp).
LAUNCHER_PREFIXES = ("SLURM_", "SLURMD_", "OMPI_COMM_WORLD_", "PMI_", "MPI_LOCALRANKID", "RANK", "LOCAL_RANK", "WORLD_SIZE",
                     "GROUP_RANK")
# A build with AddressSanitizer/UBSan runs several times slower than Release.
SANITIZED = os.environ.get("GPUBENCH_SANITIZED") == "1"


def gpubench(*args, timeout=300, env=None, cwd=None):
    """Runs gpubench with args (in cwd, when given); returns the CompletedProcess (stdout/stderr as text)."""
    if not GPUBENCH:
        raise RuntimeError("GPUBENCH is not set; run these tests through ctest")
    # A launcher the tests themselves run under (srun, mpirun) must not make gpubench a rank.
    full_env = {name: value for name, value in os.environ.items() if not name.startswith(LAUNCHER_PREFIXES)}
    full_env.pop("GPUBENCH_HOST", None)
    if env:
        full_env.update(env)
    return subprocess.run([GPUBENCH, *args], capture_output=True, text=True, timeout=timeout, env=full_env,
                          stdin=subprocess.DEVNULL, cwd=cwd)


def run_json(*args, **kwargs):
    """Runs `gpubench run ... --format json` and returns (process, parsed report)."""
    process = gpubench("run", *args, "--format", "json", **kwargs)
    report = json.loads(process.stdout) if process.stdout.strip().startswith("{") else None
    return process, report


def load_script(name):
    """scripts/<name>.py as a module, for tests of its functions (its top level imports the
    standard library only)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(SOURCE_DIR, "scripts", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_file(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


class CliTestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def assertOk(self, process, code=0):
        self.assertEqual(process.returncode, code, f"exit {process.returncode}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}")

    def assertUsageError(self, process, *fragments):
        """Exit 2 with a one-line message on stderr that names the problem."""
        self.assertEqual(process.returncode, 2, f"stdout:\n{process.stdout}\nstderr:\n{process.stderr}")
        lines = [line for line in process.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, f"expected one error line, got:\n{process.stderr}")
        self.assertIn("error", lines[0])
        for fragment in fragments:
            self.assertIn(fragment, lines[0])

    def assertNoHistory(self, process, *fragments):
        """Exit 5 with one line: nothing stored to compare with yet."""
        self.assertEqual(process.returncode, 5, f"stdout:\n{process.stdout}\nstderr:\n{process.stderr}")
        lines = [line for line in process.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, f"expected one line, got:\n{process.stderr}")
        self.assertTrue(lines[0].startswith("gpubench: no history yet: "), lines[0])
        for fragment in fragments:
            self.assertIn(fragment, lines[0])


def main():
    if not GPUBENCH:
        print("GPUBENCH not set: run through ctest", file=sys.stderr)
        sys.exit(SKIP)
    unittest.main()
