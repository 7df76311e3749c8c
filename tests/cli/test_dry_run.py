"""`run --dry-run` prints the plan -- every case, the skipped ones with their reasons, notes,
an estimate of the time -- and measures and writes nothing; the usage errors a run would
meet before measuring it meets too."""
import json
import os
import re
import time

from gpubench_cli import CliTestCase, gpubench, main, write_file

# Budgets no test could sit through: a dry run must not spend them.
LONG = ["--min-time", "100", "--max-time", "200", "--warmup", "1000"]


class DryRun(CliTestCase):
    def test_prints_the_plan_and_measures_nothing(self):
        out = os.path.join(self.dir, "never.json")
        database = os.path.join(self.dir, "never.db")
        started = time.monotonic()
        process = gpubench("run", "--op", "sin,matmul", "--size", "4096", "--backend", "eigen,openblas", *LONG, "--out", out,
                           "--db", database, "--dry-run", timeout=60)
        self.assertOk(process)
        self.assertLess(time.monotonic() - started, 30)
        text = process.stdout
        self.assertIn("Plan: 4 cases, 3 to measure, 1 skipped", text)
        for case in ("sin/eigen/f32/4096", "sin/openblas/f32/4096", "matmul/eigen/f32/4096x4096x4096",
                     "matmul/openblas/f32/4096x4096x4096"):
            self.assertIn(f"  {case} (cpu)\n", text)
        self.assertRegex(text, r"sin/openblas/f32/4096 \(cpu\)\n    skipped: openblas provides no sin kernel")
        # Three cases of 100 to 200 s each.
        self.assertIn("Time measuring: 5:00 to 10:00", text)
        self.assertIn("Nothing was measured (--dry-run)", text)
        self.assertFalse(os.path.exists(out))
        self.assertFalse(os.path.exists(database))
        self.assertLessEqual(max(len(line) for line in text.splitlines()), 80, text)

    def test_a_suite_and_json(self):
        suite = write_file(self.dir, "suite.json", json.dumps({
            "settings": {"min_time": 1, "max_time": 4, "repetitions": 2},
            "groups": [{"ops": ["sum"], "sizes": ["1K", "2K"], "backends": ["eigen"]},
                       {"ops": ["sum"], "sizes": ["1K"], "backends": ["cuda"]}]}))
        process = gpubench("run", "--config", suite, "--dry-run", "--format", "json")
        self.assertOk(process)
        plan = json.loads(process.stdout)
        ids = [case["id"] for case in plan["cases"]]
        self.assertIn("sum/eigen/f32/1024", ids)
        self.assertIn("sum/eigen/f32/2048", ids)
        self.assertTrue(all(case["skipped"] is None for case in plan["cases"] if case["backend"] == "eigen"))
        if not any(case["backend"] == "cuda" for case in plan["cases"]):
            self.assertTrue(any(note.startswith("GPU backends unavailable") for note in plan["notes"]), plan["notes"])
        eigen = sum(case["backend"] == "eigen" for case in plan["cases"])
        self.assertGreaterEqual(plan["estimate_s"]["least"], eigen * 1)
        self.assertLessEqual(plan["estimate_s"]["least"], plan["estimate_s"]["most"])
        text = gpubench("run", "--config", suite, "--dry-run").stdout
        self.assertRegex(text, r"Plan: \d+ cases?, \d+ to measure, \d+ skipped, in 2 passes")

    def test_refuses_what_a_run_refuses(self):
        self.assertUsageError(gpubench("run", "--op", "sin", "--backend", "openblas", "--dry-run"), "nothing to measure")
        self.assertUsageError(gpubench("run", "--op", "sum", "--size", "1K,1K", "--dry-run"), "asked for twice")
        self.assertUsageError(gpubench("run", "--op", "sine", "--dry-run"), "did you mean 'sin'?")


if __name__ == "__main__":
    main()
