"""scripts/compare_peers.py and scripts/performance_report.py on a real CPU report: the NumPy/SciPy
peers run the same cases, their outputs pass the float64 check, and the generated Markdown carries
the cases. (CuPy and the GPU targets need a GPU machine: scripts/device-check.sh runs them there.)"""
import json
import os
import subprocess
import sys

from gpubench_cli import FAST, SKIP, SOURCE_DIR, CliTestCase, gpubench, main, write_file

try:
    import numpy  # noqa: F401
    import scipy  # noqa: F401
except ImportError:
    print("NumPy/SciPy are not installed for this python (scripts/setup.sh installs them): peers test skipped",
          file=sys.stderr)
    sys.exit(SKIP)

SUITE = {"groups": [{"ops": ["sin", "sum"], "sizes": ["64K"], "dtypes": ["f32", "f64"], "backends": ["eigen"]},
                    {"ops": ["matmul"], "sizes": [128], "backends": ["openblas"]},
                    {"ops": ["spmv"], "rows": ["16K"], "pattern": "powerlaw", "backends": ["eigen"]}]}


def script(name, *args):
    return subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "scripts", name), *args],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


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
            "spmv/f32/16384x16384/16/powerlaw"]))
        for case in cases:
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

    def test_performance_report_shows_gpu_telemetry(self):
        # The golden report's cuBLAS case carries telemetry and a soak.
        markdown = os.path.join(self.dir, "PERFORMANCE.md")
        process = script("performance_report.py", os.path.join(SOURCE_DIR, "tests", "golden", "report.json"), "--out", markdown)
        self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
        with open(markdown, encoding="utf-8") as handle:
            text = handle.read()
        self.assertIn("## Telemetry", text)
        self.assertIn("| matmul/cublas/f32/1024x1024x1024/tf32 | 1,755 [1,410-1,980] | 652/700 | 71 | 50% sw_power_cap | 1/6 | "
                      "0.0323 J | 66.5 GFLOP/J | 12 s settled |", text)

    def test_help_works_anywhere(self):
        for name in ("compare_peers.py", "performance_report.py"):
            process = script(name, "--help")
            self.assertEqual(process.returncode, 0, process.stderr)
            self.assertIn("usage", process.stdout)


if __name__ == "__main__":
    main()
