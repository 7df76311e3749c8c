"""The GEMM zoo (configs/gemm-zoo.json) and the cliff check (scripts/gemm_cliffs.py), without a
GPU: the zoo names a class for each of its groups; the cliff check's seeded draw and its verdict
(a backend more than the threshold slower than the best for a case, or a case that failed);
the cliff check end to end on the CPU backends; and performance_report.py's zoo table with
the worst cuda/cublas ratio per dtype."""
import contextlib
import copy
import io
import json
import os
import random
import subprocess
import sys

from gpubench_cli import FAST, GPUBENCH, SOURCE_DIR, CliTestCase, load_script, main, run_json, write_file

ZOO = os.path.join(SOURCE_DIR, "configs", "gemm-zoo.json")
CLASSES = ["square", "odd", "long-k", "matrix-vector", "tall-skinny", "short-wide", "tiny", "batched-looking"]
cliffs = load_script("gemm_cliffs")
report_script = load_script("performance_report")


def record(dtype, label, backend, median, status="ok", passed=True):
    m, n, k = (int(part) for part in label.split("x"))
    return {"id": f"matmul/{backend}/{dtype}/{label}", "op": "matmul", "dtype": dtype, "backend": backend,
            "device": "gpu", "status": status, "shape": {"label": label, "m": m, "n": n, "k": k},
            "statistics": {"median": median}, "verification": {"checked": True, "passed": passed},
            "details": f"kernel={backend}_kernel (x) split_k=4x512 rule: r"}


class GemmZooTests(CliTestCase):
    def test_every_class_is_named_and_runs_both_backends_in_every_dtype(self):
        with open(ZOO, encoding="utf-8") as handle:
            zoo = json.load(handle)
        self.assertEqual([group["class"] for group in zoo["groups"]], CLASSES)
        for group in zoo["groups"]:
            self.assertEqual(group["dtypes"], ["f32", "f64", "f16", "bf16"], group["class"])
            self.assertEqual(group["backends"], ["cuda", "cublas"], group["class"])
        classes = report_script.gemm_zoo_classes(zoo)
        for label in ("64x64x1048576", "1x8192x8192", "8192x1x8192", "4097x4097x4097", "2048x8192x1000",
                      "4096x4096x4096", "16x16x16"):
            self.assertIn(label, classes)
        self.assertEqual(classes["4096x4096x4096"], "square")
        self.assertEqual(classes["64x64x1048576"], "long-k")
        # gpubench reads it: the tiny class on the CPU, which runs no cuda or cublas here.
        tiny = copy.deepcopy(zoo)
        tiny["groups"] = [dict(group, backends=["eigen"]) for group in zoo["groups"] if group["class"] == "tiny"]
        process, report = run_json("--config", write_file(self.dir, "tiny.json", json.dumps(tiny)), *FAST)
        self.assertOk(process)
        self.assertEqual(len(report["results"]), 2 * 4)
        self.assertTrue(all(r["verification"]["passed"] for r in report["results"]))

    def test_the_draw_is_seeded_log_uniform_and_within_the_byte_bound(self):
        first = cliffs.draw_shapes(200, 7, 16384, 1 << 30, 8)
        self.assertEqual(first, cliffs.draw_shapes(200, 7, 16384, 1 << 30, 8))
        self.assertNotEqual(first, cliffs.draw_shapes(200, 8, 16384, 1 << 30, 8))
        self.assertEqual(len(set(first)), 200)
        for seed in range(20):
            bound = random.Random(seed).choice([1 << 20, 1 << 26, 1 << 30])
            for m, n, k in cliffs.draw_shapes(50, seed, 16384, bound, 4):
                self.assertTrue(1 <= min(m, n, k) and max(m, n, k) <= 16384)
                self.assertLessEqual((m * k + k * n + m * n) * 4, bound)
        # Log-uniform: about as many sides below 128 as above (128 = sqrt(16384)).
        sides = [side for shape in cliffs.draw_shapes(400, 3, 16384, 1 << 40, 2) for side in shape]
        below = sum(side < 128 for side in sides)
        self.assertGreater(below, 0.4 * len(sides))
        self.assertLess(below, 0.6 * len(sides))

    def test_the_verdict_names_each_case_past_the_threshold_and_each_failure(self):
        report = {"results": [record("f32", "64x64x1048576", "cuda", 3e-3), record("f32", "64x64x1048576", "cublas", 1e-3),
                              record("f32", "8x8x8", "cuda", 1e-6), record("f32", "8x8x8", "cublas", 1.9e-6),
                              record("bf16", "1x8192x8192", "cuda", 1e-4), record("bf16", "1x8192x8192", "cublas", 5e-4),
                              record("bf16", "3x3x3", "cuda", 1e-6, passed=False), record("bf16", "3x3x3", "cublas", 1e-6)]}
        rows, failures, worst, skipped, compared = cliffs.cliffs(report, 2.0)
        self.assertEqual((skipped, compared), ({}, 3))
        self.assertEqual([(r[0], r[1], r[2], r[4]) for r in rows],
                         [("bf16", "1x8192x8192", "cublas", "cuda"), ("f32", "64x64x1048576", "cuda", "cublas")])
        self.assertAlmostEqual(rows[1][6], 3.0)
        self.assertEqual([(f[0], f[1], f[2]) for f in failures], [("bf16", "3x3x3", "cuda")])
        self.assertAlmostEqual(worst[("f32", "cuda")][0], 3.0)
        self.assertEqual(worst[("f32", "cublas")][1], "8x8x8")  # 1.9x, under the threshold
        self.assertEqual(cliffs.cliffs(report, 5.0)[0], [])
        # The printed verdict: each backend's count, its cases together, the worst first.
        more = dict(report, results=report["results"] + [record("f32", "9x9x9", "cuda", 9e-6),
                                                         record("f32", "9x9x9", "cublas", 1e-6)])
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            self.assertTrue(cliffs.print_verdict(more, 2.0, 4))
        lines = printed.getvalue().splitlines()
        self.assertIn("Cases where a backend is more than 2x slower than the best: 3 (cublas 1, cuda 2)", lines)
        listed = [line.split()[1:3] for line in lines[lines.index(
            "Cases where a backend is more than 2x slower than the best: 3 (cublas 1, cuda 2)") + 1:][:3]]
        self.assertEqual(listed, [["1x8192x8192", "cublas"], ["9x9x9", "cuda"], ["64x64x1048576", "cuda"]])
        # Randomised: a case is reported exactly when its time exceeds threshold x the best.
        rng = random.Random(11)
        for _ in range(200):
            medians = {backend: rng.uniform(1e-6, 1e-3) for backend in ("cuda", "cublas", "other")}
            threshold = rng.uniform(1.01, 4)
            rows = cliffs.cliffs({"results": [record("f64", "5x6x7", b, t) for b, t in medians.items()]}, threshold)[0]
            best = min(medians.values())
            self.assertEqual(sorted(r[2] for r in rows), sorted(b for b, t in medians.items() if t > threshold * best))

    def test_skipped_cases_are_said_and_a_check_that_compared_nothing_fails(self):
        reason = "this OpenBLAS does not export cblas_sbgemm"
        skipped = [record("bf16", label, "openblas", 0, status="skipped") for label in ("2x3x4", "5x6x7")]
        for r in skipped:
            r["reason"] = reason
        measured = [record("bf16", "2x3x4", "eigen", 1e-6), record("bf16", "5x6x7", "eigen", 2e-6)]
        rows, failures, worst, counted, compared = cliffs.cliffs({"results": skipped + measured}, 2.0)
        # A backend that does not run a dtype is no failure, and one backend alone gives no ratio.
        self.assertEqual((rows, failures, worst, compared), ([], [], {}, 0))
        self.assertEqual(counted, {("bf16", "openblas", reason): 2})
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            self.assertTrue(cliffs.print_verdict({"results": skipped + measured}, 2.0, 2))
        self.assertIn(f"Skipped: openblas on 2 bf16 shapes: {reason}", printed.getvalue())
        self.assertIn("Nothing compared: no case ran on two backends", printed.getvalue())
        # With a second backend measured on one shape: that one is compared, the skips still said.
        more = {"results": skipped + measured + [record("bf16", "2x3x4", "other", 1.5e-6)]}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            self.assertFalse(cliffs.print_verdict(more, 2.0, 2))
        self.assertIn("Skipped: openblas on 2 bf16 shapes", printed.getvalue())
        self.assertIn("(of 1 shapes compared, of 2 drawn)", printed.getvalue())

    def test_bounds_that_cannot_be_drawn_are_refused_not_looped_on(self):
        with self.assertRaisesRegex(cliffs.DrawError, "no shape fits in 10 bytes"):
            cliffs.draw_shapes(3, 1, 16384, 10, 8)
        with self.assertRaisesRegex(cliffs.DrawError, "drew only 1 distinct shapes of the 3"):
            cliffs.draw_shapes(3, 1, 1, 1 << 30, 8)
        self.assertEqual(sorted(cliffs.draw_shapes(8, 1, 2, 1 << 30, 8)),
                         [(m, n, k) for m in (1, 2) for n in (1, 2) for k in (1, 2)])  # every shape there is
        self.assertEqual(cliffs.draw_shapes(1, 1, 16384, 24, 8), [(1, 1, 1)])  # the smallest bound that fits one
        script = os.path.join(SOURCE_DIR, "scripts", "gemm_cliffs.py")
        for args, fragment in ((["--max-bytes", "10"], "no shape fits"), (["--max-side", "1", "--count", "2"], "drew only"),
                               (["--seed", "x"], "--seed"), (["--bogus"], "--bogus")):
            bad = subprocess.run([sys.executable, script, "--gpubench", GPUBENCH, *args], capture_output=True, text=True,
                                 timeout=60, stdin=subprocess.DEVNULL)
            self.assertEqual(bad.returncode, 2, bad.stderr)
            self.assertEqual(len(bad.stderr.splitlines()), 1, bad.stderr)  # one line, no usage block
            self.assertIn(fragment, bad.stderr)

    def test_the_cliff_check_runs_gpubench_end_to_end(self):
        script = os.path.join(SOURCE_DIR, "scripts", "gemm_cliffs.py")
        out = os.path.join(self.dir, "cliffs.json")
        command = [sys.executable, script, "--gpubench", GPUBENCH, "--count", "3", "--seed", "5", "--dtype", "f32,f64",
                   "--backend", "eigen,openblas", "--max-side", "40", "--max-time", "0.05", "--threshold", "1e6",
                   "--out", out]
        process = subprocess.run(command, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
        # One gpubench run and one verdict per dtype, each as its run ends.
        self.assertEqual(process.stdout.count("Cases where a backend is more than 1e+06x slower than the best: 0"), 2)
        self.assertLess(process.stdout.index("f32: 3 shapes measured"), process.stdout.index("f64: 3 shapes measured"))
        self.assertFalse(os.path.exists(out))
        expected = {f"{m}x{n}x{k}" for m, n, k in cliffs.draw_shapes(3, 5, 40, 1 << 30, cliffs.WIDEST_BYTES)}
        for dtype in ("f32", "f64"):
            with open(os.path.join(self.dir, f"cliffs.{dtype}.json"), encoding="utf-8") as handle:
                results = json.load(handle)["results"]
            self.assertEqual({r["dtype"] for r in results}, {dtype})
            self.assertEqual({r["shape"]["label"] for r in results}, expected)
        # The byte bound does not depend on --dtype: a check split by dtype measures one set of shapes.
        self.assertEqual(cliffs.WIDEST_BYTES, 8)
        bad = subprocess.run([sys.executable, script, "--gpubench", GPUBENCH, "--dtype", "f8"], capture_output=True,
                             text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("f8", bad.stderr)

    def test_the_report_tables_the_zoo_and_the_worst_ratio_per_dtype(self):
        with open(ZOO, encoding="utf-8") as handle:
            classes = report_script.gemm_zoo_classes(json.load(handle))
        zoo = {"results": [record("f32", "4096x4096x4096", "cuda", 1.25e-3), record("f32", "4096x4096x4096", "cublas", 1e-3),
                           record("f32", "64x64x1048576", "cuda", 1e-3), record("f32", "64x64x1048576", "cublas", 2e-3),
                           record("bf16", "1x8192x8192", "cuda", 1e-4), record("bf16", "1x8192x8192", "cublas", 0.5e-4)]}
        results = report_script.Results(zoo, None)
        rows = report_script.gemm_zoo_rows(results, classes)
        self.assertEqual([(r[0], r[1], r[2]) for r in rows],
                         [("square", "4096x4096x4096", "f32"), ("long-k", "64x64x1048576", "f32"),
                          ("matrix-vector", "1x8192x8192", "bf16")])
        worst = report_script.gemm_zoo_worst(rows)
        self.assertAlmostEqual(worst["f32"][0], 0.8)
        self.assertEqual(worst["f32"][1], "4096x4096x4096 (square)")
        self.assertAlmostEqual(worst["bf16"][0], 0.5)
        lines = report_script.gemm_zoo_lines(results, classes)
        self.assertIn("| long-k | 64x64x1048576 | f32 | 1 ms | 2 ms | 2.00x | - | cuda_kernel split_k=4x512 |", lines)
        self.assertIn("| f32 | 0.80x | 4096x4096x4096 (square) |", lines)


if __name__ == "__main__":
    main()
