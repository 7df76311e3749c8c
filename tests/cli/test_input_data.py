"""--data and the suite key data: the inputs' distribution in the case id and the record, verified for
each op on the CPU; a bad value is one line naming the flag and the valid values (exit 2); the report
holds each case's first call and, for a GPU run, the run's one-time costs."""
import csv
import io
import json
import os

from gpubench_cli import FAST, CliTestCase, gpubench, main, write_file

CPU = ["--backend", "eigen,openblas"]


class InputDataTests(CliTestCase):
    def run_json(self, *args):
        out = os.path.join(self.dir, "report.json")
        process = gpubench("run", *args, "--out", out, "--quiet", *FAST)
        self.assertOk(process)
        with open(out, encoding="utf-8") as handle:
            return json.load(handle)

    def test_each_distribution_verifies_every_op_and_names_itself(self):
        for data in ("uniform", "normal", "zeros", "ones"):
            with self.subTest(data=data):
                report = self.run_json("--op", "sin,sqrt,sum,matmul,spmv", "--size", "1K", "--data", data, *CPU)
                results = [r for r in report["results"] if r["status"] != "skipped"]
                self.assertEqual({r["op"] for r in results}, {"sin", "sqrt", "sum", "matmul", "spmv"})
                for record in results:
                    self.assertEqual(record["status"], "ok", record["id"] + ": " + record["reason"])
                    self.assertTrue(record["verification"]["passed"], record["id"])
                    self.assertEqual(record["settings"]["data"], data)
                    self.assertEqual(record["id"].endswith("/" + data), data != "uniform", record["id"])
                    if data in ("zeros", "ones"):
                        self.assertIn(data, record["input_distribution"])
                    self.assertGreater(record["first_call"]["host_s"], 0, record["id"])
                    self.assertIsNone(record["host_cost"], record["id"])  # CPU work runs on the calling thread

    def test_the_suite_key_sets_it(self):
        suite = write_file(self.dir, "suite.json", json.dumps({
            "settings": {"data": "zeros"},
            "groups": [{"ops": ["sum"], "sizes": [1024], "backends": ["eigen"]}]}))
        report = self.run_json("--config", suite)
        self.assertEqual([r["id"] for r in report["results"]], ["sum/eigen/f32/1024/zeros"])
        self.assertEqual(report["results"][0]["input_distribution"], "zeros")

    def test_a_bad_value_names_the_flag_and_the_valid_values(self):
        process = gpubench("run", "--op", "sin", "--size", "1K", "--data", "gaussian", *FAST)
        self.assertUsageError(process, "--data", "gaussian", "uniform, normal, zeros, ones")

    def test_a_bad_suite_value_names_the_key(self):
        suite = write_file(self.dir, "suite.json", json.dumps({
            "settings": {"data": "random"},
            "groups": [{"ops": ["sum"], "sizes": [1024], "backends": ["eigen"]}]}))
        process = gpubench("run", "--config", suite, *FAST)
        self.assertUsageError(process, "data", "random", "uniform, normal, zeros, ones")

    def test_csv_holds_the_first_call_and_the_distribution(self):
        out = os.path.join(self.dir, "report.csv")
        self.assertOk(gpubench("run", "--op", "sum", "--size", "1K", "--data", "ones", "--backend", "eigen", "--out", out,
                               "--quiet", *FAST))
        with open(out, encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["data"], "ones")
        self.assertGreater(float(rows[0]["first_call_s"]), 0)
        self.assertEqual(rows[0]["host_cost_median_s"], "")

    def test_console_shows_first_calls(self):
        process = gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--format", "console", *FAST)
        self.assertOk(process)
        self.assertIn("First calls and host cost per call:", process.stdout)


if __name__ == "__main__":
    main()
