"""`gpubench run` refuses bad settings before it measures anything: bounded threads, numbers that
fit their type, writable outputs, a usable baseline, one run per case, a bounded plan, and flags
that either apply or are refused. Each test feeds the exact input of the defect it guards
against (docs/bounds.md lists the bounds)."""
import json
import os
import subprocess

from gpubench_cli import FAST, CliTestCase, gpubench, main, run_json, write_file

# A stopping rule that would take ten minutes per case: a test that passes with it shows that
# the error came before any measuring (the subprocess would time out otherwise).
SLOW = ["--min-time", "600", "--max-time", "600"]
TINY_SUITE = {"groups": [{"ops": ["sum"], "sizes": ["1K"], "backends": ["eigen"]}]}


class RunValidationTests(CliTestCase):
    def suite(self, document, name="suite.json"):
        return write_file(self.dir, name, json.dumps(document) if not isinstance(document, str) else document)

    def refused(self, *args, fragments=(), timeout=120):
        """Exit 2 with one line naming the problem, well before any case could have been measured,
        and no report file left behind."""
        out = os.path.join(self.dir, "never.json")
        process = gpubench("run", *args, "--out", out, timeout=timeout)
        self.assertUsageError(process, *fragments)
        self.assertEqual([name for name in os.listdir(self.dir) if name.startswith(("never", ".never"))], [])
        return process

    def tiny_report(self, name="base.json"):
        path = os.path.join(self.dir, name)
        self.assertOk(gpubench("run", "--config", self.suite(TINY_SUITE), "--out", path, "--quiet", *FAST))
        return path

    # ---- item 2: threads ----

    def test_threads_are_bounded(self):
        for threads in ("100000", "32768"):
            with self.subTest(threads=threads):
                self.refused("--op", "sum", "--size", "1K", "--threads", threads, *SLOW, fragments=("--threads", threads))
        suite = self.suite('{"settings": {"threads": 4294967297}, "groups": [{"ops": ["sum"], "sizes": ["1K"]}]}')
        self.refused("--config", suite, *SLOW, fragments=("settings.threads", "4294967297"))

    # ---- item 4: suite values of the wrong shape or size ----

    def test_suite_values_that_do_not_fit_name_the_key(self):
        group = '"ops": ["spmv"], "backends": ["eigen"]'
        cases = {
            '{"settings": {"l2": []}, "groups": [{%s}]}' % group: "settings.l2",
            '{"groups": [{%s, "pattern": []}]}' % group: "pattern",
            '{"groups": [{%s, "matrix": []}]}' % group: "matrix",
            '{"groups": [{%s, "pattern": ["banded", "zigzag"]}]}' % group: "zigzag",
            '{"settings": {"warmup": 0.7}, "groups": [{%s}]}' % group: "settings.warmup",
            '{"settings": {"seed": -1}, "groups": [{%s}]}' % group: "settings.seed",
            '{"settings": {"max_time": 1e999}, "groups": [{%s}]}' % group: "1e999",
            '{"groups": [{%s, "nnz_per_row": 1e30}]}' % group: "nnz_per_row",
            '{"groups": [{%s, "nnz_per_row": 9223372036854775808}]}' % group: "nnz_per_row",
            '{"groups": [{"ops": ["sum"], "sizes": [18446744073709551615]}]}': "18446744073709551615",
        }
        for text, fragment in cases.items():
            with self.subTest(suite=text):
                self.refused("--config", self.suite(text), *SLOW, fragments=(fragment,))

    # ---- item 5: everything that can be checked is checked before measuring ----

    def test_every_output_is_checked_before_running(self):
        first = os.path.join(self.dir, "a.json")
        process = gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--out", first,
                           "--out", "/nonexistent/x.json", *SLOW, timeout=120)
        self.assertUsageError(process, "/nonexistent/x.json")
        self.assertFalse(os.path.exists(first))
        directory = os.path.join(self.dir, "reports.json")
        os.mkdir(directory)
        self.refused("--op", "sum", "--size", "1K", "--out", directory, *SLOW, fragments=("reports.json", "directory"))

    def test_threshold_and_baseline_are_checked_before_running(self):
        baseline = self.tiny_report()
        self.refused("--config", self.suite(TINY_SUITE), "--baseline", baseline, "--threshold", "150", *SLOW,
                     fragments=("--threshold", "150%"))
        def edited(name, edit):
            with open(baseline, encoding="utf-8") as handle:
                report = json.load(handle)
            edit(report)
            return write_file(self.dir, name, json.dumps(report))

        other = edited("other.json", lambda report: report["context"].update(cpu_model="Another CPU"))
        self.refused("--config", self.suite(TINY_SUITE), "--baseline", other, *SLOW, fragments=("different machines",))
        twice = edited("twice.json", lambda report: report["results"].append(report["results"][0]))
        self.refused("--config", self.suite(TINY_SUITE), "--baseline", twice, *SLOW, fragments=("twice",))
        self.refused("--config", self.suite(TINY_SUITE), "--baseline", os.path.join(self.dir, "absent.json"), *SLOW,
                     fragments=("absent.json",))

    # ---- item 6: reports that compare would refuse are not written ----

    def test_a_case_asked_for_twice_is_refused_by_its_id(self):
        self.refused("--op", "sum", "--size", "1K,1K", "--backend", "eigen", *SLOW, fragments=("sum/eigen/f32/1024",))
        self.refused("--op", "sum", "--size", "1K", "--backend", "eigen,eigen", *SLOW, fragments=("sum/eigen/f32/1024",))
        repeated = self.suite({"groups": TINY_SUITE["groups"] * 2})
        self.refused("--config", repeated, *SLOW, fragments=("sum/eigen/f32/1024",))

    def test_thresholds_follow_compares_rule(self):
        self.refused("--op", "sum", "--size", "1K", "--threshold", "nan", *SLOW, fragments=("--threshold",))
        for thresholds in ({"*": 5}, {"sum": 1.0}, {"*": 0}):
            with self.subTest(thresholds=thresholds):
                suite = self.suite({"thresholds": thresholds, "groups": TINY_SUITE["groups"]})
                self.refused("--config", suite, *SLOW, fragments=("thresholds",))
        group = dict(TINY_SUITE["groups"][0], threshold=9.5)
        self.refused("--config", self.suite({"groups": [group]}), *SLOW, fragments=("threshold",))
        report = self.tiny_report()
        process = gpubench("compare", report, report, "--threshold", "nan")
        self.assertUsageError(process, "--threshold")

    # ---- item 7: no signed overflow ----

    def test_size_range_and_nonzeros_that_would_overflow(self):
        self.refused("--op", "sum", "--size", "16M..1024G:x1099511607776", *SLOW, fragments=("16M..1024G",))
        self.refused("--op", "spmv", "--nnz-per-row", "9223372036854775807", *SLOW, fragments=("--nnz-per-row",))
        self.refused("--op", "spmv", "--rows", "1K", "--nnz-per-row", "2048", *SLOW,
                     fragments=("spmv/", "cannot exceed the row count"))

    # ---- item 8: numbers that do not fit ----

    def test_not_a_number_and_infinity_are_refused(self):
        for flag in ("--max-time", "--min-time", "--max-noise", "--threshold"):
            for value in ("nan", "inf", "-inf", "1e999"):
                with self.subTest(flag=flag, value=value):
                    self.refused("--op", "sum", "--size", "1K", flag, value, fragments=(flag,))

    def test_seed_takes_exactly_zero_to_two_to_the_64_minus_one(self):
        for seed in ("-1", "18446744073709551616", "2^64", "1.5"):
            with self.subTest(seed=seed):
                self.refused("--op", "sum", "--size", "1K", "--seed", seed, *SLOW, fragments=("--seed",))
        process, report = run_json("--op", "sum", "--size", "1K", "--backend", "eigen", "--seed", "18446744073709551615", *FAST)
        self.assertOk(process)
        self.assertEqual(report["context"]["settings"]["seed"], 18446744073709551615)
        self.assertEqual(report["results"][0]["settings"]["seed"], 18446744073709551615)

    def test_counts_are_positive_whole_numbers(self):
        self.refused("--op", "sum", "--size", "1K", "--max-samples", "-1", *SLOW, fragments=("--max-samples",))
        self.refused("--op", "sum", "--size", "1K", "--warmup", "1.5", *SLOW, fragments=("--warmup",))
        suite = self.suite({"settings": {"warmup": 0.7}, "groups": TINY_SUITE["groups"]})
        self.refused("--config", suite, *SLOW, fragments=("warmup", "0.7"))

    # ---- item 10: the plan is bounded before it is built ----

    def test_the_number_of_cases_is_bounded(self):
        sizes = []
        for _ in range(100):
            sizes += ["--size", "1..10000:+1"]
        self.refused("--op", "sum", *sizes, *SLOW, fragments=("100000",), timeout=60)
        self.refused("--op", "sum,sin", "--backend", "eigen", *sizes[:20], *SLOW, fragments=("100000",), timeout=60)
        suite = self.suite({"groups": [{"ops": ["sum"], "sizes": ["1K"] * 200000, "backends": ["eigen"]}]})
        self.refused("--config", suite, *SLOW, fragments=("100000",), timeout=60)

    # ---- item 11: a flag applies or is refused ----

    def test_dtype_selects_from_the_default_suite(self):
        process, report = run_json("--dtype", "f64", *FAST, timeout=300)
        self.assertOk(process)
        self.assertEqual({r["dtype"] for r in report["results"]}, {"f64"})
        self.assertEqual({r["op"] for r in report["results"]}, {"sin", "sqrt", "sum", "matmul", "spmv"})
        self.refused("--dtype", "f16x", *SLOW, fragments=("f16x",))

    def test_op_backend_and_timing_select_from_a_suite(self):
        suite = self.suite({"groups": [
            {"ops": ["sin", "sum"], "dtypes": ["f32", "f64"], "sizes": ["1K"], "backends": ["eigen"],
             "timing": ["kernel", "e2e"]},
            {"ops": ["matmul"], "sizes": [16], "backends": ["eigen", "openblas"]}]})
        process, report = run_json("--config", suite, "--op", "sum,matmul", "--timing", "e2e", *FAST)
        self.assertOk(process)
        self.assertEqual([r["id"] for r in report["results"]], ["sum/eigen/f32/1024/e2e", "sum/eigen/f64/1024/e2e"])
        process, report = run_json("--config", suite, "--backend", "openblas", *FAST)
        self.assertOk(process)
        self.assertEqual([r["id"] for r in report["results"]], ["matmul/openblas/f32/16x16x16"])
        self.refused("--config", suite, "--dtype", "f64", "--op", "matmul", *SLOW, fragments=("nothing to measure",))

    def test_flags_that_would_be_ignored_are_refused(self):
        matrix = write_file(self.dir, "m.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n")
        for args, flag in (
                (["--op", "sum", "--matrix", matrix], "--matrix"),
                (["--op", "sum", "--rows", "1K"], "--rows"),
                (["--op", "sin", "--shape", "4x4x4"], "--shape"),
                (["--op", "sum", "--tf32"], "--tf32"),
                (["--op", "matmul", "--dtype", "f64", "--tf32"], "--tf32"),
                (["--op", "spmv", "--matrix", matrix, "--pattern", "banded"], "--pattern"),
                (["--op", "matmul", "--size", "64", "--shape", "4x4x4"], "--size"),
                (["--op", "sum", "--size", "1K", "--allow-missing"], "--allow-missing"),
                (["--size", "1K"], "--size"),
                (["--config", self.suite(TINY_SUITE), "--shape", "4x4x4"], "--shape")):
            with self.subTest(args=args):
                self.refused(*args, *SLOW, fragments=(flag,))

    def test_format_with_out_files_chooses_the_terminal_report(self):
        out = os.path.join(self.dir, "r.csv")
        process = gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--out", out, "--format", "json", *FAST)
        self.assertOk(process)
        self.assertEqual(json.loads(process.stdout)["results"][0]["id"], "sum/eigen/f32/1024")
        self.assertTrue(os.path.exists(out))


if __name__ == "__main__":
    main()
