"""--timing graph from the command line: CPU backends have nothing to capture, so a run of them
alone is refused and, beside kernel timing, their graph cases are skipped with the reason; the
graph case is a case of its own in the report."""
import json
import os

from gpubench_cli import FAST, CliTestCase, gpubench, main


class GraphTimingTests(CliTestCase):
    def test_cpu_backend_alone_is_refused(self):
        process = gpubench("run", "--op", "sin", "--size", "1K", "--backend", "eigen", "--timing", "graph", *FAST)
        self.assertUsageError(process, "--timing graph", "eigen runs on the CPU")

    def test_cpu_graph_case_is_skipped_beside_kernel(self):
        out = os.path.join(self.dir, "r.json")
        process = gpubench("run", "--op", "sin", "--size", "1K", "--backend", "eigen", "--timing", "kernel,graph",
                           "--out", out, *FAST)
        self.assertOk(process)
        with open(out, encoding="utf-8") as handle:
            report = json.load(handle)
        by_id = {r["id"]: r for r in report["results"]}
        self.assertEqual(sorted(by_id), ["sin/eigen/f32/1024", "sin/eigen/f32/1024/graph"])
        self.assertEqual(by_id["sin/eigen/f32/1024"]["status"], "ok")
        graph = by_id["sin/eigen/f32/1024/graph"]
        self.assertEqual(graph["status"], "skipped")
        self.assertEqual(graph["settings"]["timing"], "graph")
        self.assertIn("CUDA graph", graph["reason"])
        self.assertEqual(graph["samples_s"], [])
        self.assertIn("skipped", process.stdout)

    def test_bad_timing_names_the_modes(self):
        process = gpubench("run", "--op", "sin", "--size", "1K", "--backend", "eigen", "--timing", "grph", *FAST)
        self.assertUsageError(process, "grph", "graph")


if __name__ == "__main__":
    main()
