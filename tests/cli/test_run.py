"""End-to-end tests of `gpubench run`, `list`, `info` and `--version` on the CPU backends."""
import csv
import io
import json
import os
import subprocess

from gpubench_cli import FAST, GPUBENCH, SANITIZED, SOURCE_DIR, CliTestCase, gpubench, main, run_json, write_file

SMALL_MTX = """%%MatrixMarket matrix coordinate real symmetric
% a small symmetric matrix with an empty row (row 3)
4 4 4
1 1 2.0
2 1 -1.5
4 2 0.25
4 4 1.0
"""


def ok_results(report):
    return [r for r in report["results"] if r["status"] == "ok"]


class RunTests(CliTestCase):
    def test_matmul_all_backends(self):
        process, report = run_json("--op", "matmul", "--size", "256", *FAST)
        self.assertOk(process)
        backends = {r["backend"] for r in report["results"]}
        self.assertTrue({"eigen", "openblas"} <= backends, backends)
        for result in report["results"]:
            self.assertEqual(result["status"], "ok", result)
            self.assertTrue(result["verification"]["passed"])
            self.assertEqual(result["shape"]["label"], "256x256x256")
            self.assertGreater(result["throughput"]["gflops"], 0)

    def test_elementwise_lists_of_sizes_and_dtypes(self):
        process, report = run_json("--op", "sin,sqrt,sum", "--size", "1K,64K", "--dtype", "f32,f64", "--backend", "eigen", *FAST)
        self.assertOk(process)
        self.assertEqual(len(report["results"]), 3 * 2 * 2)
        self.assertEqual(len(ok_results(report)), 12)
        self.assertEqual({r["shape"]["n"] for r in report["results"]}, {1024, 65536})

    def test_size_range(self):
        process, report = run_json("--op", "sum", "--size", "1K..16K:x4", "--backend", "eigen", *FAST)
        self.assertOk(process)
        self.assertEqual([r["shape"]["n"] for r in report["results"]], [1024, 4096, 16384])

    def test_spmv_generated(self):
        for pattern in ("random", "banded", "powerlaw"):
            process, report = run_json("--op", "spmv", "--rows", "16K", "--nnz-per-row", "8", "--pattern", pattern,
                                       "--backend", "eigen", *FAST)
            self.assertOk(process)
            self.assertEqual(len(report["results"]), 1)
            result = report["results"][0]
            self.assertEqual(result["status"], "ok", result)
            self.assertEqual(result["shape"]["pattern"], pattern)
            self.assertGreater(result["shape"]["nnz"], 0)

    def test_spmv_kernel_without_a_backend_that_runs_it_is_refused(self):
        # eigen chooses its own algorithm: with eigen alone the forced cuda kernel would change
        # nothing. (Beside cuda, eigen's case keeps its id: tests/unit/test_plan.cpp.)
        process = gpubench("run", "--op", "spmv", "--rows", "4K", "--backend", "eigen", "--spmv-kernel", "merge_path",
                           *FAST)
        self.assertUsageError(process, "--spmv-kernel applies to the cuda backend's spmv")
        process = gpubench("run", "--op", "matmul", "--shape", "4x4x4", "--spmv-kernel", "merge_path", *FAST)
        self.assertUsageError(process, "--spmv-kernel applies to spmv")

    def test_spmv_matrix_market_file(self):
        path = write_file(self.dir, "small.mtx", SMALL_MTX)
        process, report = run_json("--op", "spmv", "--matrix", path, "--dtype", "f32,f64", "--backend", "eigen", *FAST)
        self.assertOk(process)
        for result in report["results"]:
            self.assertEqual(result["status"], "ok", result)
            self.assertEqual(result["shape"]["nnz"], 6)  # symmetric entries mirrored
            self.assertEqual(result["shape"]["label"], "file:small.mtx")

    def test_matmul_non_square_shape(self):
        process, report = run_json("--op", "matmul", "--shape", "100x33x7", "--backend", "eigen,openblas", *FAST)
        self.assertOk(process)
        self.assertEqual([r["shape"]["label"] for r in report["results"]], ["100x33x7", "100x33x7"])

    def test_explicit_unsupported_backend_is_skipped_with_reason(self):
        # Beside a case that runs (alone, nothing would be measured: test_gpu_presence.py).
        process, report = run_json("--op", "sin", "--size", "1K", "--backend", "eigen,openblas", *FAST)
        self.assertOk(process)
        self.assertEqual([r["status"] for r in report["results"]], ["ok", "skipped"])
        self.assertIn("openblas", report["results"][1]["reason"])

    def test_config_json_out_file_and_console(self):
        out = os.path.join(self.dir, "results.json")
        suite = write_file(self.dir, "suite.json", json.dumps({
            "name": "tiny", "settings": {"min_samples": 3, "max_time": 0.2, "min_time": 0},
            "groups": [{"ops": ["sin"], "sizes": ["4K"], "backends": ["eigen"]},
                       {"ops": ["matmul"], "sizes": [64], "backends": ["eigen", "openblas"]}]}))
        process = gpubench("run", "--config", suite, "--format", "json", "--out", out)
        self.assertOk(process)
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
        self.assertEqual(report["schema"], "gpubench-report")
        self.assertEqual([r["op"] for r in report["results"]], ["sin", "matmul", "matmul"])
        self.assertIn("sin", process.stdout)  # the console table still goes to the terminal

    def test_several_outputs(self):
        paths = [os.path.join(self.dir, name) for name in ("r.json", "r.csv", "r.md")]
        process = gpubench("run", "--op", "sqrt", "--size", "4K", "--backend", "eigen", *FAST,
                           *sum((["--out", p] for p in paths), []))
        self.assertOk(process)
        with open(paths[0], encoding="utf-8") as handle:
            self.assertEqual(len(json.load(handle)["results"]), 1)
        with open(paths[1], encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual(rows[0]["op"], "sqrt")
        self.assertEqual(rows[0]["status"], "ok")
        with open(paths[2], encoding="utf-8") as handle:
            self.assertIn("| sqrt", handle.read())

    def test_csv_and_markdown_to_stdout(self):
        process = gpubench("run", "--op", "sum", "--size", "4K", "--backend", "eigen", "--format", "csv", *FAST)
        self.assertOk(process)
        rows = list(csv.DictReader(io.StringIO(process.stdout)))
        self.assertEqual(len(rows), 1)
        self.assertGreater(float(rows[0]["median_s"]), 0)
        process = gpubench("run", "--op", "sum", "--size", "4K", "--backend", "eigen", "--format", "markdown", *FAST)
        self.assertOk(process)
        self.assertIn("|", process.stdout)

    def test_threads_recorded(self):
        process, report = run_json("--op", "sin", "--size", "64K", "--backend", "eigen", "--threads", "1", *FAST)
        self.assertOk(process)
        self.assertEqual(report["results"][0]["settings"]["threads_used"], 1)
        self.assertEqual(report["context"]["threads"], 1)

    def test_threads_zero_means_the_cores_this_process_may_use(self):
        # As `taskset -c N gpubench ...`: one CPU in the affinity mask is one worker thread.
        cpu = min(os.sched_getaffinity(0))
        process = subprocess.run([GPUBENCH, "run", "--op", "sum", "--size", "4K", "--backend", "eigen", "--threads", "0",
                                  "--format", "json", *FAST], capture_output=True, text=True, timeout=300,
                                 stdin=subprocess.DEVNULL, preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        self.assertOk(process)
        report = json.loads(process.stdout)
        self.assertEqual(report["context"]["threads"], 1)
        self.assertEqual(report["context"]["cpu_cores"], 1)
        self.assertEqual(report["results"][0]["settings"]["threads_used"], 1)

    def test_settings_are_numbers_in_the_report(self):
        process, report = run_json("--op", "sum", "--size", "4K", "--backend", "eigen", *FAST)
        self.assertOk(process)
        settings = report["context"]["settings"]
        self.assertEqual(settings["max_time_s"], 0.2)
        self.assertEqual(settings["min_samples"], 3)
        self.assertEqual(settings["seed"], 42)
        self.assertIs(settings["profile"], False)
        self.assertEqual(settings["l2"], "flush")

    def test_samples_and_statistics_kept(self):
        process, report = run_json("--op", "sin", "--size", "4K", "--backend", "eigen", "--min-samples", "7",
                                   "--max-samples", "7", "--max-time", "5")
        self.assertOk(process)
        result = report["results"][0]
        self.assertEqual(len(result["samples_s"]), 7)
        stats = result["statistics"]
        self.assertLessEqual(stats["min"], stats["median"])
        self.assertLessEqual(stats["median"], stats["max"])
        self.assertEqual(stats["count"], 7)

    def test_default_suite_runs_every_op(self):
        # How long it takes depends on the machine's load: test_run_time.py (label perf) checks that.
        process = gpubench("run", timeout=900)
        self.assertOk(process)
        for op in ("sin", "sqrt", "sum", "matmul", "spmv"):
            self.assertIn(op, process.stdout)

    def test_list(self):
        process = gpubench("list")
        self.assertOk(process)
        for word in ("sin", "sqrt", "sum", "matmul", "spmv", "eigen", "openblas", "cuda", "cublas", "cub", "cusparse"):
            self.assertIn(word, process.stdout)

    def test_info(self):
        process = gpubench("info", "--format", "json")
        self.assertOk(process)
        context = json.loads(process.stdout)["context"]
        for key in ("tool_version", "git_sha", "hostname", "os", "cpu_model", "cpu_cores", "memory_gib", "libraries"):
            self.assertIn(key, context)
        self.assertIn("eigen", context["libraries"])
        process = gpubench("info")
        self.assertOk(process)
        self.assertIn(context["cpu_model"], process.stdout)

    def test_version(self):
        process = gpubench("--version")
        self.assertOk(process)
        self.assertTrue(process.stdout.startswith("gpubench "))

    def test_shipped_suites_parse(self):
        for name in ("default.json", "ci.json"):
            path = os.path.join(SOURCE_DIR, "configs", name)
            if not os.path.exists(path):
                continue
            # --max-samples 0 is rejected after parsing, so this checks the file without running it.
            process = gpubench("run", "--config", path, "--min-samples", "2", "--max-samples", "1")
            self.assertEqual(process.returncode, 2, process.stderr)
            self.assertIn("--min-samples", process.stderr)


if __name__ == "__main__":
    main()
