"""scripts/compare_peers.py's rules without NumPy: the byte model against gpubench's own for
every op and dtype, which cases it keeps, which peer runs each case, the error bounds of the
16-bit dtypes, and the one-line reason a case whose peer is missing gets instead of a time."""
import argparse
import contextlib
import io
import json
import types

from gpubench_cli import FAST, CliTestCase, gpubench, load_script, main, write_file

peers = load_script("compare_peers")

DTYPES = ["f32", "f64", "f16", "bf16"]
SUITE = {"groups": [{"ops": ["sin", "sqrt", "sum"], "sizes": ["4K"], "dtypes": DTYPES, "backends": ["eigen"]},
                    {"ops": ["matmul"], "shapes": ["24x40x56"], "dtypes": DTYPES, "backends": ["eigen"]},
                    {"ops": ["spmv"], "rows": ["2K"], "pattern": "powerlaw", "dtypes": DTYPES, "backends": ["eigen"]}]}


def record(op, dtype, device="gpu", backend="cuda", **changes):
    """A report record as gpubench writes it, with what a test changes."""
    base = {"op": op, "dtype": dtype, "device": device, "backend": backend, "status": "ok",
            "shape": {"label": "4096", "n": 4096}, "settings": {"timing": "kernel", "l2": "flush"},
            "statistics": {"median": 1e-3}}
    base.update(changes)
    return base


class PeerRulesTests(CliTestCase):
    def test_byte_model_matches_gpubench(self):
        # Every op in every dtype through a backend that runs them all: the script's byte count
        # is gpubench's (2-byte elements for f16/bf16; their sum writes one f32).
        suite = write_file(self.dir, "suite.json", json.dumps(SUITE))
        report_path = f"{self.dir}/report.json"
        self.assertOk(gpubench("run", "--config", suite, "--out", report_path, "--quiet", *FAST))
        with open(report_path, encoding="utf-8") as handle:
            results = json.load(handle)["results"]
        self.assertEqual(len(results), 5 * len(DTYPES))
        for result in results:
            with self.subTest(case=result["id"]):
                self.assertTrue(peers.usable(result))
                self.assertEqual(peers.op_bytes(result["op"], result["shape"], result["dtype"]),
                                 result["throughput"]["bytes"])
        sums = {r["dtype"]: r["throughput"]["bytes"] for r in results if r["op"] == "sum"}
        self.assertEqual(sums, {"f32": 4096 * 4 + 4, "f64": 4096 * 8 + 8, "f16": 4096 * 2 + 4, "bf16": 4096 * 2 + 4})

    def test_usable_keeps_kernel_cases_of_known_dtypes(self):
        self.assertTrue(peers.usable(record("sin", "bf16")))
        self.assertTrue(peers.usable(record("sum", "f16")))
        self.assertFalse(peers.usable(record("matmul", "f32", settings={"tf32": True})))
        self.assertFalse(peers.usable(record("sin", "f32", settings={"timing": "e2e"})))
        self.assertFalse(peers.usable(record("matmul", "fp8")))
        self.assertFalse(peers.usable(record("sin", "f16", status="skipped")))
        self.assertFalse(peers.usable(record("spmv", "bf16", shape={"label": "x", "pattern": "block"})))

    def test_each_case_goes_to_its_peer(self):
        expected = {
            ("gpu", "sin", "f32"): "cupy", ("gpu", "spmv", "f64"): "cupy", ("gpu", "matmul", "f32"): "cupy",
            ("gpu", "sin", "f16"): "cupy", ("gpu", "sqrt", "f16"): "cupy", ("gpu", "sum", "f16"): "cupy",
            ("gpu", "matmul", "f16"): "torch", ("gpu", "spmv", "f16"): "torch",
            ("gpu", "sin", "bf16"): "torch", ("gpu", "sqrt", "bf16"): "torch", ("gpu", "sum", "bf16"): "torch",
            ("gpu", "matmul", "bf16"): "torch", ("gpu", "spmv", "bf16"): "torch",
            ("cpu", "sin", "f64"): "numpy", ("cpu", "matmul", "f32"): "numpy", ("cpu", "spmv", "f32"): "scipy",
        }
        for (device, op, dtype), library in expected.items():
            with self.subTest(device=device, op=op, dtype=dtype):
                self.assertEqual(peers.peer_route(device, op, dtype), (library, None))
        for op in ("sin", "sum", "matmul", "spmv"):
            for dtype in ("f16", "bf16"):
                library, reason = peers.peer_route("cpu", op, dtype)
                self.assertIsNone(library)
                self.assertIn("no CPU peer for 16-bit dtypes", reason)

    def test_error_bounds_follow_the_formats(self):
        u32, u16, ubf16, u64 = 2.0 ** -24, 2.0 ** -11, 2.0 ** -8, 2.0 ** -53
        # f32 and f64 keep four machine epsilons times the growth.
        self.assertEqual(peers.bound_factor("matmul", "f32", 64), 4 * 2.0 ** -23 * 64)
        self.assertEqual(peers.bound_factor("sin", "f64", 1), 4 * 2.0 ** -52)
        # 16-bit: f32 growth plus one rounding of the stored 16-bit result, ...
        self.assertEqual(peers.bound_factor("matmul", "bf16", 64), 8 * (u32 * 64 + ubf16))
        self.assertEqual(peers.bound_factor("spmv", "f16", 24), 8 * (u32 * 24 + u16))
        self.assertEqual(peers.bound_factor("sqrt", "f16", 1), 8 * (u32 + u16))
        # ... but sum stores f32, so f32's bound alone.
        self.assertEqual(peers.bound_factor("sum", "bf16", 28), 8 * u32 * 28)
        self.assertEqual(peers.bound_factor("sum", "f64", 28), 8 * u64 * 28)

    def test_cases_without_their_peer_say_why(self):
        report = {"results": [
            record("matmul", "bf16", backend="cublas", shape={"label": "64x64x64", "m": 64, "n": 64, "k": 64}),
            record("sin", "f16"),
            record("sin", "bf16", device="cpu", backend="eigen"),
        ]}
        missing = {"torch": "PyTorch unavailable (ModuleNotFoundError: No module named 'torch')",
                   "cupy": "CuPy unavailable (ModuleNotFoundError: No module named 'cupy')"}
        # No peer runs, so no input is drawn: NumPy is needed for its random generator only.
        numpy_stub = types.SimpleNamespace(random=types.SimpleNamespace(default_rng=lambda seed: None))
        args = argparse.Namespace(seed=1, no_cpu=False, cpu_seconds=0.1)
        with contextlib.redirect_stderr(io.StringIO()):
            rows = peers.run_peers(numpy_stub, {}, missing, report, args)
        by_case = {row["case"] + "/" + row["backend"]: row for row in rows}
        self.assertEqual(by_case["matmul/bf16/64x64x64/cublas"]["peer"], {"peer": "torch", "skipped": missing["torch"]})
        self.assertEqual(by_case["sin/f16/4096/cuda"]["peer"], {"peer": "cupy", "skipped": missing["cupy"]})
        cpu = by_case["sin/bf16/4096/eigen"]["peer"]
        self.assertIsNone(cpu["peer"])
        self.assertIn("NumPy has no bfloat16", cpu["skipped"])
        for row in rows:
            self.assertNotIn("ratio", row)
        document = {"cases": rows, "host": {"gpu": None, "cpu": "test"}, "notes": [], "agreement": []}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            peers.print_tables(document)
        lines = printed.getvalue().splitlines()
        matmul = next(line for line in lines if line.startswith("matmul/bf16/64x64x64"))
        self.assertIn("torch", matmul)
        self.assertTrue(matmul.endswith("skipped: " + missing["torch"]), matmul)
        self.assertTrue(any(line.startswith("sin/bf16/4096") and "skipped: no CPU peer for 16-bit dtypes" in line
                            for line in lines), lines)


if __name__ == "__main__":
    main()
