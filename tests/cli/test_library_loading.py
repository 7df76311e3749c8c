"""cuBLAS and cuSPARSE are loaded when a case or a run's context first needs them, not when the
program starts: commands that never touch them (--version, report, compare, list on a machine
without a device) start without their libraries' initialisers (0.1-0.2 s and 250 MB of
resident memory a process, linked). Seen through the dynamic loader's own log (LD_DEBUG=files),
which names every library it loads and why: "needed by" a linked one, "dynamically loaded by"
one opened with dlopen. A run still names both libraries' versions in its report. Skipped for a
build without the CUDA toolkit (no GPU backends, nothing to load)."""
import json
import os
import re

from gpubench_cli import CliTestCase, gpubench, main

LIBRARIES = ("libcublas.so", "libcublasLt.so", "libcusparse.so")


def built_with_cuda():
    return ", CUDA)" in gpubench("--version").stdout


def loaded(process):
    """{library name: how the loader brought it in} from LD_DEBUG=files' lines on stderr."""
    found = {}
    for line in process.stderr.splitlines():
        match = re.search(r"file=(\S+)\s+\[\d+\];\s+(needed by|dynamically loaded by)", line)
        if match:
            name = os.path.basename(match.group(1))
            found.setdefault(name, match.group(2))
    return found


def traced(*args, cwd=None):
    return gpubench(*args, cwd=cwd, env=dict(os.environ, LD_DEBUG="files"))


class LibraryLoadingTests(CliTestCase):
    def setUp(self):
        super().setUp()
        if not built_with_cuda():
            self.skipTest("built without the CUDA toolkit: no cuBLAS or cuSPARSE to load")

    def assert_none_loaded(self, process):
        self.assertOk(process)
        libraries = loaded(process)
        self.assertTrue(libraries, "the loader's log is empty: LD_DEBUG had no effect")
        for name, how in libraries.items():
            self.assertFalse(name.startswith(LIBRARIES), f"{name} {how}: {sorted(libraries)}")

    def test_version_list_report_and_compare_load_neither_library(self):
        report = os.path.join(self.dir, "run.json")
        self.assertOk(gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--quiet", "--out", report))
        self.assert_none_loaded(traced("--version"))
        self.assert_none_loaded(traced("report", report))
        self.assert_none_loaded(traced("compare", report, report))
        listing = traced("list", "--format", "json")
        gpu = [b for b in json.loads(listing.stdout)["backends"] if b["name"] in ("cuda", "cublas", "cub", "cusparse")]
        if all(not backend["available"] for backend in gpu):  # no device: availability stops before the libraries
            self.assert_none_loaded(listing)

    def test_a_run_loads_both_when_its_context_names_their_versions(self):
        report = os.path.join(self.dir, "run.json")
        process = traced("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--quiet", "--out", report)
        self.assertOk(process)
        libraries = loaded(process)
        for prefix in ("libcublas.so", "libcusparse.so"):
            names = [name for name in libraries if name.startswith(prefix)]
            self.assertEqual(len(names), 1, f"{prefix}: {sorted(libraries)}")
            self.assertEqual(libraries[names[0]], "dynamically loaded by", f"{names[0]} was linked")
        with open(report, encoding="utf-8") as handle:
            versions = json.load(handle)["context"]["libraries"]
        for library in ("cublas", "cusparse"):
            self.assertRegex(versions.get(library, ""), r"^\d+\.\d+\.\d+$", versions)


if __name__ == "__main__":
    main()
