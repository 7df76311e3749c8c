"""The JSON report of a real run validates against the documented schema (docs/report-schema.json)."""
import json
import os
import sys

from gpubench_cli import FAST, SKIP, SOURCE_DIR, CliTestCase, gpubench, main, write_file

try:
    import jsonschema
except ImportError:  # reported as skipped by ctest, not as passed
    print("python3-jsonschema is not installed (scripts/setup.sh installs it): schema test skipped", file=sys.stderr)
    sys.exit(SKIP)

SMALL_MTX = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 1\n"


class SchemaTests(CliTestCase):
    def setUp(self):
        super().setUp()
        with open(os.path.join(SOURCE_DIR, "docs", "report-schema.json"), encoding="utf-8") as handle:
            self.schema = json.load(handle)
        jsonschema.Draft7Validator.check_schema(self.schema)

    def validate(self, report):
        errors = sorted(jsonschema.Draft7Validator(self.schema).iter_errors(report), key=lambda e: list(e.path))
        self.assertEqual([f"{list(e.path)}: {e.message}" for e in errors], [])

    def test_every_op_and_status_validates(self):
        matrix = write_file(self.dir, "p.mtx", SMALL_MTX)
        out = os.path.join(self.dir, "r.json")
        suite = write_file(self.dir, "suite.json", json.dumps({"groups": [
            {"ops": ["sin", "sqrt", "sum"], "dtypes": ["f32", "f64"], "sizes": ["1K"], "backends": ["eigen", "openblas"]},
            {"ops": ["matmul"], "shapes": ["17x5x3"], "backends": ["eigen", "openblas"], "timing": ["kernel", "e2e"]},
            {"ops": ["spmv"], "rows": ["4K"], "pattern": "powerlaw", "backends": ["eigen"]},
            {"ops": ["spmv"], "matrix": matrix, "backends": ["eigen"]}]}))
        process = gpubench("run", "--config", suite, "--out", out, "--relative-to", "eigen", *FAST)
        self.assertOk(process)
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
        self.assertIn("skipped", {r["status"] for r in report["results"]})
        self.validate(report)

    def test_merged_fleet_report_validates(self):
        paths = []
        for host, rank in (("node-a", 0), ("node-b", 1)):
            env = {"SLURM_PROCID": str(rank), "SLURM_LOCALID": "0", "SLURM_NTASKS": "2", "SLURMD_NODENAME": host,
                   "CUDA_VISIBLE_DEVICES": ""}  # the same records whatever GPUs the machine has
            out = os.path.join(self.dir, "rank-{host}-{rank}.json")
            self.assertOk(gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--out", out,
                                   "--quiet", *FAST, env=env))
            paths.append(os.path.join(self.dir, f"rank-{host}-{rank}.json"))
            with open(paths[-1], encoding="utf-8") as handle:
                self.validate(json.load(handle))
        merged = os.path.join(self.dir, "fleet.json")
        self.assertOk(gpubench("merge", *paths, "--out", merged))
        with open(merged, encoding="utf-8") as handle:
            report = json.load(handle)
        self.assertEqual(len(report["context"]["ranks"]), 2)
        self.assertIn("fleet", report)
        self.validate(report)

    def test_soak_and_absent_telemetry_validate(self):
        out = os.path.join(self.dir, "r.json")
        self.assertOk(gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--soak", "0.01", "--out", out, *FAST))
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
        result = report["results"][0]
        self.assertIsNone(result["telemetry"])  # a CPU case has no GPU telemetry
        self.assertGreaterEqual(result["soak"]["seconds"], 0.01)
        self.assertIsNone(result["soak"]["settled"])  # nothing to judge settling by
        self.assertEqual(report["context"]["settings"]["soak_s"], 0.01)
        self.validate(report)

    def test_no_energy_says_so_in_each_record_and_in_the_settings(self):
        out = os.path.join(self.dir, "r.json")
        self.assertOk(gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--no-energy", "--out", out, *FAST))
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
        self.assertEqual(report["results"][0]["energy"]["reason"], "not measured: --no-energy")
        self.assertIsNone(report["results"][0]["energy"]["energy_per_op_j"])
        self.assertIs(report["context"]["settings"]["no_energy"], True)
        self.validate(report)

    def test_golden_report_with_gpu_telemetry_validates(self):
        # The golden report's cuBLAS case carries telemetry, a soak and the GPU's NVML state.
        with open(os.path.join(SOURCE_DIR, "tests", "golden", "report.json"), encoding="utf-8") as handle:
            report = json.load(handle)
        with_telemetry = [r for r in report["results"] if r["telemetry"] is not None]
        self.assertEqual(len(with_telemetry), 1)
        self.assertTrue(report["context"]["gpus"][0]["nvml"]["available"])
        self.validate(report)
        with_telemetry[0]["telemetry"]["flagged_samples"] = -1
        self.assertTrue(list(jsonschema.Draft7Validator(self.schema).iter_errors(report)))

    def test_schema_rejects_a_broken_report(self):
        out = os.path.join(self.dir, "r.json")
        self.assertOk(gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--out", out, *FAST))
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
        del report["results"][0]["statistics"]
        report["results"][0]["dtype"] = "f8"
        errors = list(jsonschema.Draft7Validator(self.schema).iter_errors(report))
        self.assertGreaterEqual(len(errors), 2)


if __name__ == "__main__":
    main()
