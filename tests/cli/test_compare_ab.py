"""A real A/B through the CLI: the same suite with --threads 2 as baseline and --threads 1 as
current must flag the multithreaded CPU cases as slower (exit 1). Its verdict depends on the
machine having its cores to itself (on a busy host two threads can lose to one), so ctest
labels it perf: scripts/device-check.sh runs it, the default test run does not.
test_compare_slowdown.py proves the same through a slowdown of known size on any host."""
import json
import os

from gpubench_cli import CliTestCase, gpubench, main, write_file

SUITE = {
    "name": "ab",
    "settings": {"warmup": 2, "min_samples": 30, "max_noise": 0.01, "min_time": 1, "max_time": 5},
    # Two threads against one is a 1.5x to 1.8x effect. compare calls a side noisy when its p5
    # runs more than the threshold below its median (interference): on the 16-core H100 host
    # one-thread Eigen runs showed p5 gaps of 15-25 %, which left a 1.5x slowdown "same
    # (noisy)" at a 15 % threshold. 30 % is still far inside the effect (label perf).
    "thresholds": {"*": 0.30},
    "groups": [
        # sin is compute-bound at any size; sum only while it stays in the last-level cache
        # (beyond it one core already draws most of a small VM's memory bandwidth).
        {"ops": ["sin"], "sizes": ["16M"], "backends": ["eigen"]},
        {"ops": ["sum"], "sizes": ["2M"], "backends": ["eigen"]},
        # Eigen splits a 512 product poorly over two threads (1.2x on a 16-core H100 host):
        # 1024 gives each thread enough blocks. OpenBLAS is left out: Ubuntu 24.04's 0.3.26 on
        # that host ran a 512 product as fast on one thread as on two.
        {"ops": ["matmul"], "sizes": [1024], "backends": ["eigen"]},
    ],
}


class CompareAbTests(CliTestCase):
    def run_suite(self, name, threads):
        suite = write_file(self.dir, "ab.json", json.dumps(SUITE))
        out = os.path.join(self.dir, name)
        process = gpubench("run", "--config", suite, "--threads", str(threads), "--out", out, "--quiet")
        self.assertOk(process)
        return out

    def test_two_threads_against_one(self):
        if (os.cpu_count() or 1) < 2:
            self.skipTest("needs two cores")
        baseline = self.run_suite("two.json", 2)
        current = self.run_suite("one.json", 1)
        process = gpubench("compare", baseline, current, "--format", "json")
        self.assertEqual(process.returncode, 1, process.stdout + process.stderr)
        verdicts = {case["id"]: case["verdict"] for case in json.loads(process.stdout)["cases"]}
        self.assertEqual(len(verdicts), 3, verdicts)
        for case_id, verdict in verdicts.items():
            self.assertEqual(verdict, "slower", f"{case_id}: {verdict}\n{process.stdout}")
        self.assertIn("threads", process.stderr)  # the thread-count difference is a warning


if __name__ == "__main__":
    main()
