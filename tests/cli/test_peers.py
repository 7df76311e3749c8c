"""scripts/compare_peers.py and scripts/performance_report.py on a real CPU report: the NumPy/SciPy
peers run the same cases, their outputs pass the float64 check, 16-bit cases without a peer say
why, and the generated Markdown carries the cases; the 16-bit rounding and error bounds the peers'
check uses. (CuPy, PyTorch and the GPU targets need a GPU machine: scripts/device-check.sh runs
them there.)"""
import json
import os
import subprocess
import sys

from gpubench_cli import FAST, SKIP, SOURCE_DIR, CliTestCase, gpubench, load_script, main, write_file

try:
    import numpy  # noqa: F401
    import scipy  # noqa: F401
except ImportError:
    print("NumPy/SciPy are not installed for this python (scripts/setup.sh installs them): peers test skipped",
          file=sys.stderr)
    sys.exit(SKIP)

SUITE = {"groups": [{"ops": ["sin", "sum"], "sizes": ["64K"], "dtypes": ["f32", "f64"], "backends": ["eigen"]},
                    {"ops": ["matmul"], "sizes": [128], "backends": ["openblas"]},
                    {"ops": ["spmv"], "rows": ["16K"], "pattern": "powerlaw", "backends": ["eigen"]},
                    {"ops": ["sin", "matmul"], "sizes": [64], "dtypes": ["f16", "bf16"], "backends": ["eigen"]}]}
SIXTEEN_BIT = ["sin/f16/64", "sin/bf16/64", "matmul/f16/64x64x64", "matmul/bf16/64x64x64"]


def script(name, *args, env=None):
    return subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "scripts", name), *args],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, env=env)


class PeersTests(CliTestCase):
    def test_numpy_peers_and_performance_report(self):
        suite = write_file(self.dir, "suite.json", json.dumps(SUITE))
        report = os.path.join(self.dir, "report.json")
        self.assertOk(gpubench("run", "--config", suite, "--out", report, "--quiet", *FAST))
        peers = os.path.join(self.dir, "peers.json")
        process = script("compare_peers.py", report, "--out", peers, "--cpu-seconds", "0.2", "--no-gpu")
        self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
        with open(peers, encoding="utf-8") as handle:
            cases = json.load(handle)["cases"]
        self.assertEqual(sorted(c["case"] for c in cases), sorted([
            "sin/f32/65536", "sin/f64/65536", "sum/f32/65536", "sum/f64/65536", "matmul/f32/128x128x128",
            "spmv/f32/16384x16384/16/powerlaw", *SIXTEEN_BIT]))
        for case in cases:
            if case["dtype"] in ("f16", "bf16"):  # NumPy has no bfloat16 and no BLAS for float16
                self.assertIn("no CPU peer for 16-bit dtypes", case["peer"]["skipped"])
                self.assertNotIn("ratio", case)
                continue
            self.assertTrue(case["peer"]["check"]["passed"], case)
            self.assertGreater(case["peer"]["median_s"], 0)
            # Throughput ratio: the peer's generated matrix may differ in nonzeros from ours.
            self.assertAlmostEqual(case["ratio"], case["gpubench_gbps"] / case["peer_gbps"], places=6)
        markdown = os.path.join(self.dir, "PERFORMANCE.md")
        process = script("performance_report.py", report, "--peers", peers, "--out", markdown)
        self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
        with open(markdown, encoding="utf-8") as handle:
            text = handle.read()
        self.assertIn("sin/eigen/f32/65536", text)
        self.assertIn("numpy", text)
        # A case without a peer says why in the peers table.
        self.assertRegex(text, r"\| sin/bf16/64 \| eigen \| .* \| no CPU peer for 16-bit dtypes: NumPy has no bfloat16")
        self.assertNotIn("## Telemetry", text)  # CPU cases carry none
        # Settings are numbers in the report and print as such: FAST stops at 0.2 s.
        self.assertIn("stopped at 0.5 % noise or 0.2 s |", text)
        # Reports written before settings were typed hold strings; they print the same.
        with open(report, encoding="utf-8") as handle:
            old = json.load(handle)
        old["context"]["settings"].update(max_noise="0.005000", max_time_s="2.000000")
        old_report = write_file(self.dir, "old.json", json.dumps(old))
        process = script("performance_report.py", old_report, "--out", markdown)
        self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
        with open(markdown, encoding="utf-8") as handle:
            self.assertIn("stopped at 0.5 % noise or 2 s |", handle.read())

    def test_gpu_cases_without_cupy_or_torch_are_skipped_with_the_reason(self):
        # A CPU report relabelled as GPU cases, run where importing cupy and torch fails (stub
        # packages that raise): every case gets one line on why, nothing crashes.
        suite = write_file(self.dir, "suite.json", json.dumps({"groups": [SUITE["groups"][-1]]}))
        report = os.path.join(self.dir, "report.json")
        self.assertOk(gpubench("run", "--config", suite, "--out", report, "--quiet", *FAST))
        with open(report, encoding="utf-8") as handle:
            document = json.load(handle)
        for result in document["results"]:
            result.update(device="gpu", backend="cuda")
        write_file(self.dir, "report.json", json.dumps(document))
        for package in ("cupy", "torch"):
            os.makedirs(os.path.join(self.dir, "stubs", package))
            write_file(os.path.join(self.dir, "stubs", package), "__init__.py",
                       f"raise ImportError('{package} stub: not installed here')\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(self.dir, "stubs"))
        peers = os.path.join(self.dir, "peers.json")
        process = script("compare_peers.py", report, "--out", peers, "--no-cpu", env=env)
        self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
        self.assertIn("PyTorch unavailable (ImportError: torch stub: not installed here): the GPU cases routed to it "
                      "have no peer", process.stderr)
        with open(peers, encoding="utf-8") as handle:
            cases = {case["case"]: case["peer"] for case in json.load(handle)["cases"]}
        self.assertEqual(sorted(cases), sorted(SIXTEEN_BIT))
        torch_missing = {"peer": "torch", "skipped": "PyTorch unavailable (ImportError: torch stub: not installed here)"}
        for case in ("sin/bf16/64", "matmul/f16/64x64x64", "matmul/bf16/64x64x64"):
            self.assertEqual(cases[case], torch_missing)
        self.assertEqual(cases["sin/f16/64"], {"peer": "cupy", "skipped": "CuPy unavailable (ImportError: cupy stub: not installed here)"})
        table = [line for line in process.stdout.splitlines() if line.startswith(("sin/", "matmul/"))]
        self.assertEqual(len(table), 4, process.stdout)
        for line in table:
            self.assertIn("skipped: ", line)

    def test_bf16_rounding_is_to_nearest_even(self):
        import numpy as np
        peers = load_script("compare_peers")
        ulp = 2.0 ** -7  # bf16's spacing in [1, 2)
        values = np.array([1.0, 1 + ulp / 2, 1 + 1.5 * ulp, 1 + ulp / 2 + 2.0 ** -20, -2.5, 1000.3, -1001.9])
        rounded = peers.host_array(np, values, "bf16")
        self.assertEqual(rounded.dtype, np.float32)
        # Ties go to the even neighbour, above a tie rounds up; the spacing at 1000 is 4.
        self.assertEqual(rounded.tolist(), [1.0, 1.0, 1 + 2 * ulp, 1 + ulp, -2.5, 1000.0, -1000.0])
        self.assertEqual(peers.host_array(np, values, "f16").dtype, np.float16)

    def test_check_holds_16_bit_outputs_to_their_bounds(self):
        import numpy as np
        peers = load_script("compare_peers")
        rng = np.random.default_rng(7)
        for dtype in ("f16", "bf16"):
            with self.subTest(dtype=dtype):
                k = 256
                inputs = {"a": peers.host_array(np, rng.uniform(-1, 1, (48, k)), dtype),
                          "b": peers.host_array(np, rng.uniform(-1, 1, (k, 40)), dtype)}
                a, b = inputs["a"].astype(np.float64), inputs["b"].astype(np.float64)
                exact, scale = a @ b, np.abs(a) @ np.abs(b)
                # The exact product rounded once to the dtype: at most u |ref| <= u scale, an
                # eighth of the bound.
                check = peers.check_output(np, "matmul", dtype, inputs, peers.host_array(np, exact, dtype), rng)
                self.assertLessEqual(check["worst_error_over_bound"], 0.125)
                # Errors just inside and just outside the bound, on every entry.
                bound = peers.bound_factor("matmul", dtype, np.sqrt(k)) * scale
                self.assertTrue(peers.check_output(np, "matmul", dtype, inputs, exact + 0.99 * bound, rng)["passed"])
                self.assertFalse(peers.check_output(np, "matmul", dtype, inputs, exact + 1.01 * bound, rng)["passed"])
                # The 16-bit sum is an f32 result, held to f32's bound: an error of one 16-bit
                # rounding fails.
                x = peers.host_array(np, rng.random(1 << 16), dtype)
                total = float(np.sum(x, dtype=np.float64))
                self.assertTrue(peers.check_output(np, "sum", dtype, {"x": x}, float(np.float32(total)), rng)["passed"])
                coarse = total * (1 + peers.DTYPES[dtype].unit_roundoff)
                self.assertFalse(peers.check_output(np, "sum", dtype, {"x": x}, coarse, rng)["passed"])

    def test_performance_report_shows_gpu_telemetry(self):
        # The golden report's cuBLAS case carries telemetry and a soak.
        markdown = os.path.join(self.dir, "PERFORMANCE.md")
        process = script("performance_report.py", os.path.join(SOURCE_DIR, "tests", "golden", "report.json"), "--out", markdown)
        self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
        with open(markdown, encoding="utf-8") as handle:
            text = handle.read()
        self.assertIn("## Telemetry", text)
        self.assertIn("| matmul/cublas/f32/1024x1024x1024/tf32 | 1,755 [1,410-1,980] | 652/700 | 71 | 50% sw_power_cap | 1/6 | "
                      "0.0268 ± 0.0026 J | 80.2 GFLOP/J | 12 s settled |", text)

    def test_bad_inputs_are_refused_in_one_line_and_no_input_is_written_over(self):
        report = write_file(self.dir, "report.json", json.dumps({"schema": "gpubench-report", "results": []}))
        other = write_file(self.dir, "other.json", json.dumps({"a": 1}))
        with open(report, encoding="utf-8") as handle:
            before = handle.read()
        for name in ("compare_peers.py", "performance_report.py"):
            extra = ["--no-gpu", "--no-cpu"] if name == "compare_peers.py" else []
            cases = [([os.path.join(self.dir, "missing.json")], "cannot read"),
                     ([self.dir], "cannot read"),
                     ([other], "not a gpubench JSON report"),
                     ([report, "--out", report], "is one of the inputs")]
            if name == "performance_report.py":
                cases.append(([report, "--out", os.path.join(self.dir, "no", "such", "dir.md")], "cannot write --out"))
            for args, fragment in cases:
                with self.subTest(script=name, args=args):
                    process = script(name, *args, *extra)
                    self.assertEqual(process.returncode, 2, process.stdout + process.stderr)
                    self.assertIn(fragment, process.stderr.splitlines()[-1])
                    self.assertNotIn("Traceback", process.stderr)
        with open(report, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), before)

    def test_help_works_anywhere(self):
        for name in ("compare_peers.py", "performance_report.py"):
            process = script(name, "--help")
            self.assertEqual(process.returncode, 0, process.stderr)
            self.assertIn("usage", process.stdout)


if __name__ == "__main__":
    main()
