"""The spmv matrix zoo (configs/spmv-zoo.json) on the CPU backends: every generated class runs,
in both dtypes, and verifies; the GPU groups are the same classes at 16M nonzeros and more."""
import json
import os

from gpubench_cli import FAST, SOURCE_DIR, CliTestCase, gpubench, main, run_json

ZOO = os.path.join(SOURCE_DIR, "configs", "spmv-zoo.json")
CLASSES = {"random", "banded", "powerlaw", "longtail", "skew", "short", "blockdiag", "wide", "tall"}


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

    def test_gpu_groups_hold_every_class_at_16m_nonzeros_against_cusparse_and_cub(self):
        with open(ZOO, encoding="utf-8") as handle:
            suite = json.load(handle)
        covered = set()
        for group in suite["groups"]:
            if "cuda" not in group["backends"]:
                continue
            self.assertEqual(set(group["backends"]), {"cuda", "cusparse", "cub"})
            self.assertEqual(set(group["dtypes"]), {"f32", "f64"})
            for pattern in group["pattern"]:
                covered.add(pattern)
                # Expected nonzeros (short: one a row at nnz_per_row 2); the count itself is
                # checked on the device, where the report holds it.
                rows = {"K": 1 << 10, "M": 1 << 20}[group["rows"][0][-1]] * int(group["rows"][0][:-1])
                per_row = 1 if pattern == "short" else group["nnz_per_row"]
                self.assertGreaterEqual(rows * per_row, 16_000_000, (pattern, group))
        self.assertEqual(covered, CLASSES)

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
