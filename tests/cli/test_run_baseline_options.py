"""compare's options where a run compares too: `run --baseline` takes `--alpha` as compare does
(the rank test's level reaches the verdict; out of (0, 1) it is refused before measuring), and
one suite spelt two ways (`configs/x.json`, `./configs/x.json`) is one suite to compare, while
another suite is still a setting that differs."""
import json
import os

from gpubench_cli import CliTestCase, gpubench, main, write_file

# Enough samples that, with a threshold of 95 %, neither side is too noisy to judge even on a
# busy host (one side's median CI must stay within the threshold), and a planted 10x slowdown
# far beyond it.
SETTINGS = {"warmup": 1, "min_samples": 60, "max_samples": 60, "min_time": 0, "max_time": 60, "threads": 1}
SLOWDOWN = 10


class RunBaselineAlpha(CliTestCase):
    def test_alpha_reaches_the_verdict(self):
        suite = write_file(self.dir, "suite.json", json.dumps({
            "name": "alpha", "settings": SETTINGS, "thresholds": {"*": 0.95},
            "groups": [{"ops": ["sin"], "sizes": ["64K"], "backends": ["eigen"]}]}))
        baseline = os.path.join(self.dir, "baseline.json")
        self.assertOk(gpubench("run", "--config", suite, "--out", baseline, "--quiet", env={"GPUBENCH_TEST_SLOWDOWN": ""}))
        # A 10x slowdown over 60 and 60 samples gives p far below 0.001, and never below 1e-30:
        # at that level the change is inconclusive (not settled), said with the level given.
        process = gpubench("run", "--config", suite, "--baseline", baseline, "--alpha", "1e-30",
                           env={"GPUBENCH_TEST_SLOWDOWN": str(SLOWDOWN)})
        self.assertIn("not settled", process.stdout, process.stdout + process.stderr)
        self.assertIn(">= alpha 1e-30", process.stdout)
        self.assertEqual(process.returncode, 4, process.stdout)
        # Out of range: refused before anything is measured or written.
        for alpha in ("0", "1", "2", "nan"):
            with self.subTest(alpha=alpha):
                out = os.path.join(self.dir, "never.json")
                self.assertUsageError(gpubench("run", "--config", suite, "--baseline", baseline, "--alpha", alpha,
                                               "--out", out), "alpha must be between 0 and 1")
                self.assertFalse(os.path.exists(out))


class SuiteSpelling(CliTestCase):
    def run_suite(self, config, out):
        process = gpubench("run", "--config", config, "--out", out, "--quiet", cwd=self.dir)
        self.assertOk(process)
        return os.path.join(self.dir, out)

    def test_one_suite_spelt_two_ways(self):
        os.mkdir(os.path.join(self.dir, "configs"))
        suite = {"name": "spelling", "settings": {"warmup": 1, "min_samples": 3, "max_samples": 5, "min_time": 0,
                                                  "max_time": 0.2},
                 "groups": [{"ops": ["sum"], "sizes": [4096], "backends": ["eigen"]}]}
        for name in ("x.json", "y.json"):
            write_file(os.path.join(self.dir, "configs"), name, json.dumps(suite))
        plain = self.run_suite("configs/x.json", "plain.json")
        dotted = self.run_suite("./configs/x.json", "dotted.json")
        doubled = self.run_suite("configs//x.json", "doubled.json")
        other = self.run_suite("configs/y.json", "other.json")
        for current in (dotted, doubled):
            with self.subTest(current=current):
                process = gpubench("compare", plain, current)
                self.assertNotIn("different setting suite", process.stderr)
        self.assertIn("different setting suite", gpubench("compare", plain, other).stderr)


if __name__ == "__main__":
    main()
