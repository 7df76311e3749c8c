"""The spmv matrix zoo (configs/spmv-zoo.json) on the CPU backends: every generated class runs,
in f32 and f64, and verifies; the GPU groups are the same classes at 16M nonzeros and more, in
every dtype."""
import copy
import json
import os
import subprocess
import sys

from gpubench_cli import FAST, SOURCE_DIR, CliTestCase, gpubench, main, run_json, write_file

ZOO = os.path.join(SOURCE_DIR, "configs", "spmv-zoo.json")
CLASSES = {"random", "banded", "powerlaw", "longtail", "skew", "short", "blockdiag", "wide", "tall", "fewrows", "dense"}
ZOO_DTYPES = 4  # the zoo table's rows per class and backend: f32, f64, f16, bf16


class SpmvZooTests(CliTestCase):
    def test_every_class_verifies_on_the_cpu(self):
        process, report = run_json("--config", ZOO, "--backend", "eigen", *FAST, timeout=600)
        self.assertOk(process)
        results = report["results"]
        seen = set()
        for result in results:
            self.assertEqual(result["status"], "ok", result["id"])
            self.assertTrue(result["verification"]["checked"], result["id"])
            self.assertTrue(result["verification"]["passed"], result["id"])
            self.assertGreater(result["shape"]["nnz"], 0, result["id"])
            seen.add((result["shape"]["pattern"], result["dtype"]))
        self.assertEqual(seen, {(pattern, dtype) for pattern in CLASSES for dtype in ("f32", "f64")})
        shapes = {r["shape"]["pattern"]: r["shape"] for r in results}
        self.assertEqual(shapes["wide"]["cols"], 64 * shapes["wide"]["rows"])
        self.assertEqual(shapes["tall"]["rows"], 64 * shapes["tall"]["cols"])
        self.assertEqual(shapes["dense"]["nnz"], shapes["dense"]["rows"] * shapes["dense"]["cols"])
        fewrows = shapes["fewrows"]
        self.assertEqual(fewrows["nnz"], fewrows["rows"] * fewrows["nnz_per_row"])
        self.assertEqual(fewrows["cols"], fewrows["nnz_per_row"] * 9 // 8)
        self.check_zoo_table(report)

    def check_zoo_table(self, cpu_report):
        """performance_report.py --zoo: the GPU cases of a zoo report, class by class, with the
        ratio to cuSPARSE. The CPU report has none (every row "not measured"); its records
        relabelled as cuda and cusparse cases, cuSPARSE's median 1.25 times cuda's, give 1.250x."""
        def table(zoo):
            path = write_file(self.dir, "zoo.json", json.dumps(zoo))
            main_report = write_file(self.dir, "main.json", json.dumps(cpu_report))
            markdown = os.path.join(self.dir, "PERFORMANCE.md")
            process = subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "scripts", "performance_report.py"),
                                      main_report, "--zoo", path, "--out", markdown],
                                     capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
            self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
            with open(markdown, encoding="utf-8") as handle:
                text = handle.read()
            return [line for line in text[text.index("## SpMV matrix zoo"):].splitlines() if line.startswith("| ")][1:]
        rows = table(cpu_report)
        self.assertEqual(len(rows), len(CLASSES) * ZOO_DTYPES)
        self.assertTrue(all("not measured" in row for row in rows), rows)
        gpu = copy.deepcopy(cpu_report)
        gpu["results"] = []
        for record in cpu_report["results"]:
            for backend, scale in (("cuda", 1.0), ("cusparse", 1.25)):
                relabelled = copy.deepcopy(record)
                relabelled.update(backend=backend, device="gpu", details="kernel=csr_vector threads_per_row=4")
                relabelled["statistics"]["median"] = 1e-3 * scale
                gpu["results"].append(relabelled)
        rows = table(gpu)
        # f32 and f64: a cuda and a cusparse row each; f16 and bf16: not measured.
        self.assertEqual(len(rows), len(CLASSES) * 2 * 2 + len(CLASSES) * 2)
        self.assertEqual(sum("not measured" in row for row in rows), len(CLASSES) * 2)
        cuda_rows = [row for row in rows if "| cuda |" in row]
        self.assertEqual(len(cuda_rows), len(CLASSES) * 2)
        for row in cuda_rows:
            self.assertIn("| 1.250x | kernel=csr_vector |", row)

    def test_gpu_groups_hold_every_class_at_16m_nonzeros_against_cusparse_and_cub(self):
        """f32 and f64 against cuSPARSE and CUB, f16 and bf16 against cuSPARSE (CUB has no
        16-bit SpMV), every class in every dtype."""
        with open(ZOO, encoding="utf-8") as handle:
            suite = json.load(handle)
        covered = set()
        for group in suite["groups"]:
            if "cuda" not in group["backends"]:
                continue
            dtypes = set(group["dtypes"])
            self.assertIn(dtypes, ({"f32", "f64"}, {"f16", "bf16"}), group)
            expected = {"cuda", "cusparse", "cub"} if dtypes == {"f32", "f64"} else {"cuda", "cusparse"}
            self.assertEqual(set(group["backends"]), expected, group)
            for pattern in group["pattern"]:
                covered.update((pattern, dtype) for dtype in dtypes)
                # Expected nonzeros (short: one a row at nnz_per_row 2); the count itself is
                # checked on the device, where the report holds it.
                text = group["rows"][0]
                scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1])
                rows = int(text[:-1]) * scale if scale else int(text)
                per_row = 1 if pattern == "short" else group["nnz_per_row"]
                self.assertGreaterEqual(rows * per_row, 16_000_000, (pattern, group))
        self.assertEqual(covered, {(pattern, dtype) for pattern in CLASSES for dtype in ("f32", "f64", "f16", "bf16")})

    def test_pattern_lists_on_the_command_line(self):
        process, report = run_json("--op", "spmv", "--rows", "2K", "--nnz-per-row", "4", "--pattern", "skew,wide",
                                   "--backend", "eigen", *FAST)
        self.assertOk(process)
        self.assertEqual([r["id"] for r in report["results"]],
                         ["spmv/eigen/f32/2048x2048/4/skew", "spmv/eigen/f32/2048x131072/4/wide"])
        process = gpubench("run", "--op", "spmv", "--pattern", "random,zigzag", "--backend", "eigen", *FAST)
        self.assertUsageError(process, "zigzag")


if __name__ == "__main__":
    main()
