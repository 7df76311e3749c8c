"""A real run records the host's measured copy bandwidth once and holds each result against it."""
import json
import os

from gpubench_cli import FAST, CliTestCase, gpubench, main


class RooflineTests(CliTestCase):
    def test_cpu_results_are_held_against_the_measured_copy(self):
        out = os.path.join(self.dir, "r.json")
        process = gpubench("run", "--op", "sin,matmul", "--size", "64", "--backend", "eigen", "--out", out, *FAST)
        self.assertOk(process)
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
        copy_gbps = report["context"]["cpu_copy_gbps"]
        self.assertGreater(copy_gbps, 0)
        by_op = {r["op"]: r["roofline"] for r in report["results"]}
        self.assertEqual(by_op["sin"]["bound"], "memory")
        self.assertEqual(by_op["sin"]["ceiling_name"], "measured copy")
        self.assertEqual(by_op["sin"]["ceiling"], copy_gbps)
        self.assertGreater(by_op["sin"]["fraction"], 0)
        self.assertEqual(by_op["matmul"]["bound"], "compute")
        self.assertEqual(by_op["matmul"]["fraction"], 0)  # no theoretical peak for a host CPU
        # The console table, printed beside the file: the percentage column, the copy in the context.
        self.assertIn("%peak", process.stdout)
        self.assertIn("measured copy", process.stdout)

    def test_cpu_results_get_no_held_clock_figure_and_no_l2_mark(self):
        # No SM clock was read and CPU caches have no L2 mode: neither figure is made up.
        out = os.path.join(self.dir, "r.json")
        process = gpubench("run", "--op", "sin,matmul", "--size", "64", "--backend", "eigen", "--l2", "warm",
                           "--out", out, *FAST)
        self.assertOk(process)
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
        for record in report["results"]:
            for field in ("held_sm_clock_mhz", "peak_sm_clock_mhz", "fraction_at_held_clock", "l2_resident"):
                self.assertNotIn(field, record["roofline"], record["id"])
        self.assertNotIn("L2-resident", process.stdout)


if __name__ == "__main__":
    main()
