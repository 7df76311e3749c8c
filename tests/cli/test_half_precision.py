"""End-to-end runs of the 16-bit dtypes (f16, bf16) on the CPU backends: every op verified
against the fp64 reference, odd sizes included, the sum stored in f32 and what a backend
cannot run skipped with its reason."""
import csv
import io

from gpubench_cli import FAST, CliTestCase, gpubench, main, run_json

HALF = ("--dtype", "f16,bf16")


class HalfPrecisionTests(CliTestCase):
    def test_every_op_runs_and_verifies_on_eigen(self):
        process, report = run_json("--op", "sin,sqrt,sum", "--size", "1000,65537", "--backend", "eigen", *HALF, *FAST)
        self.assertOk(process)
        self.assertEqual(len(report["results"]), 3 * 2 * 2)
        for result in report["results"]:
            self.assertEqual(result["status"], "ok", result)
            self.assertTrue(result["verification"]["checked"], result)
            self.assertTrue(result["verification"]["passed"], result)
            self.assertIn(result["dtype"], ("f16", "bf16"))
        for result in report["results"]:
            details = result["details"]
            if result["op"] == "sum":
                self.assertIn("accumulated in f32", details)
                # n 16-bit reads and one f32 result
                self.assertEqual(result["throughput"]["bytes"], result["shape"]["n"] * 2 + 4)
            else:
                self.assertIn("computed in f32", details)

    def test_odd_matmul_and_spmv_shapes_verify(self):
        process, report = run_json("--op", "matmul", "--shape", "100x33x77", "--backend", "eigen", *HALF, *FAST)
        self.assertOk(process)
        process_spmv, report_spmv = run_json("--op", "spmv", "--rows", "5003", "--nnz-per-row", "9", "--pattern", "powerlaw",
                                             "--backend", "eigen", *HALF, *FAST)
        self.assertOk(process_spmv)
        results = report["results"] + report_spmv["results"]
        self.assertEqual(len(results), 4)
        for result in results:
            self.assertEqual(result["status"], "ok", result)
            self.assertTrue(result["verification"]["passed"], result)
            self.assertIn("f32", result["details"])
        tolerances = {r["dtype"]: r["verification"]["tolerance"] for r in report["results"]}
        # f32 accumulation's growth plus one rounding to the output: bf16's coarser unit dominates.
        self.assertGreater(tolerances["bf16"], 7 * tolerances["f16"])

    def test_openblas_skips_what_it_cannot_run_with_a_reason(self):
        # Beside f32, which it runs: a run whose every case would be skipped measures nothing (exit 2).
        process, report = run_json("--op", "matmul", "--size", "64", "--backend", "openblas", "--dtype", "f32,f16,bf16", *FAST)
        self.assertOk(process)
        by_dtype = {r["dtype"]: r for r in report["results"]}
        self.assertEqual(by_dtype["f16"]["status"], "skipped")
        self.assertIn("no f16 gemm", by_dtype["f16"]["reason"])
        bf16 = by_dtype["bf16"]
        if bf16["status"] == "skipped":
            self.assertIn("cblas_sbgemm", bf16["reason"])
        else:
            self.assertEqual(bf16["status"], "ok", bf16)
            self.assertTrue(bf16["verification"]["passed"], bf16)
            self.assertIn("cblas_sbgemm", bf16["details"])

    def test_csv_and_list_name_the_new_dtypes(self):
        process = gpubench("run", "--op", "sqrt", "--size", "4K", "--backend", "eigen", *HALF, *FAST, "--format", "csv")
        self.assertOk(process)
        rows = list(csv.DictReader(io.StringIO(process.stdout)))
        self.assertEqual([row["dtype"] for row in rows], ["f16", "bf16"])
        listing = gpubench("list")
        self.assertOk(listing)
        self.assertIn("matmul/bf16", listing.stdout)
        self.assertIn("openblas matmul/f16: ", listing.stdout)

    def test_tf32_needs_an_f32_matmul(self):
        process = gpubench("run", "--op", "matmul", "--size", "64", "--dtype", "f16", "--tf32", *FAST)
        self.assertUsageError(process, "--tf32")


if __name__ == "__main__":
    main()
