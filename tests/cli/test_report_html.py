"""`gpubench report`: the CPU-versus-GPU summary on the console and in the JSON and Markdown
reports, --relative-to, and the HTML report rendered in headless Chromium, whose DOM must
hold the plots, series and points that the JSON report implies, laid out inside their plots.

A CPU-only report renders no speed-up plot and no empty plot, says once why there is no
speed-up, names each op's x axis (elements, m·n, nonzeros) and spells microseconds as the
console does; notes that differ only in the backend they name render as one; the history's
trend page marks a run measured with GPUBENCH_TEST_SLOWDOWN, and scripts/screenshot_report.sh
renders it.

A real CPU run supplies the CPU side; GPU records are derived from it with known speed-ups
(this machine may have no GPU): kernel-only the GPU runs size/8192 times faster than the best
CPU backend, so it wins from 8192 elements exactly; end to end it never wins.

Without a chromium (or chromium-browser) binary the browser checks cannot run: the other
checks still do, and the test then exits 77 (skipped) with a message saying so.
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from html.parser import HTMLParser

from gpubench_cli import FAST, GPUBENCH, SKIP, SOURCE_DIR, gpubench

AXIS_TITLES = {"sin": "size: elements (n)", "sqrt": "size: elements (n)", "sum": "size: elements (n)",
               "matmul": "size: m\u00b7n (entries of C)", "spmv": "size: nonzeros"}
SKIP_REASON = "CUDA driver version is insufficient for CUDA runtime version"

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
NO_BROWSER = "no chromium or chromium-browser binary (scripts/setup.sh installs chromium): HTML rendering checks skipped"
CROSSOVER = 8192.0  # elements, by construction of the GPU records

ELEMENTWISE = ("sin", "sqrt", "sum")


def footprint(result):
    shape = result["shape"]
    if result["op"] in ELEMENTWISE:
        return shape["n"]
    if result["op"] == "matmul":
        return shape["m"] * shape["n"]
    return shape["nnz"] or shape["rows"] * shape["nnz_per_row"]


def variant(result):
    parts = [result["shape"]["pattern"]] if result["op"] == "spmv" else []
    if result["settings"]["tf32"]:
        parts.append("tf32")
    if result["settings"]["l2"] == "warm":
        parts.append("l2warm")
    return "+".join(parts)


def group_key(result):
    return (result["op"], result["dtype"], variant(result))


def comparable(result):
    verification = result["verification"]
    return (result["status"] == "ok" and verification["checked"] and verification["passed"]
            and (result["statistics"]["median"] or 0) > 0)


def scaled(record, factor):
    """The record's statistics and samples scaled by factor (a faster or slower twin)."""
    for stats in (record["statistics"], record["host_statistics"]):
        for key, value in stats.items():
            if key not in ("count", "rel_stddev") and isinstance(value, (int, float)):
                stats[key] = value * factor
    record["samples_s"] = [s * factor for s in record["samples_s"]]
    if "sample_waits_s" in record:  # a CPU case's waits scale with its samples
        record["sample_waits_s"] = [s * factor for s in record["sample_waits_s"]]
    record["host_samples_s"] = [s * factor for s in record["host_samples_s"]]
    median = record["statistics"]["median"]
    record["throughput"]["gbps"] = record["throughput"]["bytes"] / median / 1e9
    record["throughput"]["gflops"] = record["throughput"]["flops"] / median / 1e9


def with_gpu_records(report):
    """Adds a GPU backend "cuda" (kernel and e2e records) for every shape the CPU measured."""
    best_cpu = {}
    for result in report["results"]:
        if comparable(result):
            key = (group_key(result), footprint(result))
            if key not in best_cpu or result["statistics"]["median"] < best_cpu[key]["statistics"]["median"]:
                best_cpu[key] = result
    for (key, size), cpu in sorted(best_cpu.items()):
        cpu_median = cpu["statistics"]["median"]
        kernel_s = cpu_median * CROSSOVER / size
        copy_s = cpu_median  # each way: end to end the GPU is always over twice as slow
        for timing in ("kernel", "e2e"):
            gpu = copy.deepcopy(cpu)
            gpu.update(backend="cuda", device="gpu", id=cpu["id"].replace(cpu["backend"], "cuda"), details="synthetic")
            gpu["settings"].update(timing=timing, timer="cuda_event")
            total = kernel_s + (2 * copy_s if timing == "e2e" else 0)
            scaled(gpu, total / cpu_median)
            if timing == "e2e":
                gpu["phases"] = [{"name": name, "samples_s": [value] * 3,
                                  "statistics": {"count": 3, "min": value, "max": value, "mean": value, "median": value,
                                                 "p5": value, "p95": value, "q1": value, "q3": value}}
                                 for name, value in (("h2d", copy_s), ("op", kernel_s), ("d2h", copy_s))]
            report["results"].append(gpu)
    report["context"]["gpus"] = [{"ordinal": 0, "name": "Synthetic GPU <test>", "theoretical_bandwidth_gbps": 3352.32,
                                  "copy_gbps": 2900}]
    return report


class PlotCollector(HTMLParser):
    """Collects <svg class="plot"> elements with their series and points from a DOM dump."""

    def __init__(self):
        super().__init__()
        self.plots = []
        self.stack = []  # open elements inside the current plot
        self.series = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "svg" and "plot" in classes:
            self.plots.append({"attrs": attributes, "series": []})
            self.stack = ["svg"]
            return
        if not self.stack:
            return
        self.stack.append(tag)
        if tag == "g" and "series" in classes:
            self.series = {"attrs": attributes, "points": 0, "depth": len(self.stack)}
            self.plots[-1]["series"].append(self.series)
        elif tag == "circle" and "point" in classes and self.series is not None:
            self.series["points"] += 1

    def handle_endtag(self, tag):
        if not self.stack:
            return
        if self.series is not None and tag == "g" and len(self.stack) == self.series["depth"]:
            self.series = None
        self.stack.pop()


def dump_dom(path, profile):
    command = [BROWSER, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
               "--dump-dom", "file://" + os.path.abspath(path)]
    process = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    if process.returncode != 0 or "<html" not in process.stdout:
        raise AssertionError(f"{BROWSER} --dump-dom failed (exit {process.returncode}):\n{process.stderr[-2000:]}")
    return process.stdout


# Measures every point against its plot once the browser has laid the page out, and leaves
# the verdict in the DOM for --dump-dom.
LAYOUT_PROBE = """<script>
const problems = [];
for (const plot of document.querySelectorAll('svg.plot')) {
  const box = plot.getBoundingClientRect();
  if (box.width < 100 || box.height < 100) problems.push('tiny plot ' + plot.getAttribute('aria-label'));
  for (const point of plot.querySelectorAll('circle.point')) {
    const r = point.getBoundingClientRect();
    const inside = r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    if (!inside) problems.push('point outside ' + plot.getAttribute('aria-label') + ': ' + point.getAttribute('data-size'));
  }
}
document.body.setAttribute('data-layout-problems', JSON.stringify(problems));
document.body.setAttribute('data-points-measured', String(document.querySelectorAll('circle.point').length));
</script>"""


class ReportTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.cpu_json = os.path.join(cls.dir, "cpu.json")
        process = gpubench("run", "--op", "sin,sum,matmul,spmv", "--size", "4K..64K:x4", "--backend", "eigen,openblas",
                           *FAST, "--out", cls.cpu_json, "--quiet")
        if process.returncode != 0:
            raise AssertionError(f"gpubench run failed: {process.stderr}")
        with open(cls.cpu_json, encoding="utf-8") as handle:
            cls.cpu_report = json.load(handle)
        cls.gpu_report = with_gpu_records(copy.deepcopy(cls.cpu_report))
        cls.gpu_json = os.path.join(cls.dir, "gpu.json")
        with open(cls.gpu_json, "w", encoding="utf-8") as handle:
            json.dump(cls.gpu_report, handle)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def report(self, *args):
        process = gpubench("report", *args)
        self.assertEqual(process.returncode, 0, f"stdout:\n{process.stdout}\nstderr:\n{process.stderr}")
        return process.stdout

    def groups(self):
        return sorted({group_key(r) for r in self.gpu_report["results"] if comparable(r)})

    # ---- console, Markdown, JSON ----

    def test_console_has_the_table_and_the_summary(self):
        text = self.report(self.gpu_json)
        self.assertIn("sum/eigen/f32/16384", text)  # the results table
        self.assertIn("CPU versus GPU", text)
        for op, dtype, var in self.groups():
            name = " ".join([op, dtype] + ([var.replace("+", " ")] if var else []))
            unit = {"matmul": "entries of C", "spmv": "nonzeros"}.get(op, "elements")  # what the op's size counts
            self.assertRegex(text, re.escape(name) + r"\n  crossover, kernel-only: \u22488(\.00)?K " + unit + " "
                             r"\(interpolated between 4K and 16K\)\n  crossover, end-to-end: never: the GPU is not faster "
                             r"at the largest size compared, 64K\n")
        cpu_only = self.report(self.cpu_json)
        self.assertIn("Nothing to compare:\n  sin f32 (no GPU result)\n", cpu_only)

    def test_json_summary_matches_the_records(self):
        document = json.loads(self.report(self.gpu_json, "--format", "json"))
        summary = {(g["op"], g["dtype"], g["variant"]): g for g in document["summary"]["groups"]}
        self.assertEqual(sorted(summary), self.groups())
        for key, group in summary.items():
            kernel, e2e = group["crossover"]["kernel"], group["crossover"]["e2e"]
            self.assertEqual((kernel["kind"], kernel["interpolated"]), ("at", True), key)
            self.assertAlmostEqual(kernel["size"] / CROSSOVER, 1, places=9)
            self.assertEqual((kernel["last_losing_size"], kernel["first_winning_size"]), (4096, 16384))
            self.assertEqual(e2e["kind"], "never")
            self.assertEqual([row["size"] for row in group["rows"]], [4096, 16384, 65536])
            for row in group["rows"]:
                candidates = [r for r in document["results"] if comparable(r) and group_key(r) == key
                              and footprint(r) == row["size"] and r["device"] == "cpu"]
                best = min(candidates, key=lambda r: r["statistics"]["median"])
                self.assertEqual(row["cpu"], {"backend": best["backend"], "median_s": best["statistics"]["median"]})
                self.assertEqual(row["kernel"]["gpu"]["backend"], "cuda")
                self.assertAlmostEqual(row["kernel"]["speedup"] / (row["size"] / CROSSOVER), 1, places=9)

    def test_markdown_and_relative_to(self):
        markdown = self.report(self.gpu_json, "--format", "markdown", "--relative-to", "eigen")
        self.assertIn("**CPU versus GPU**", markdown)
        self.assertIn("vs eigen", markdown)
        self.assertIn("vs eigen", self.report(self.gpu_json, "--relative-to", "eigen"))

    def test_usage_errors(self):
        for args, fragment in ((["--relative-to", "nosuch"], "nosuch"), (["--format", "yaml"], "yaml")):
            process = gpubench("report", self.gpu_json, *args)
            self.assertEqual(process.returncode, 2, process.stderr)
            self.assertIn(fragment, process.stderr)
        missing = gpubench("report", os.path.join(self.dir, "missing.json"))
        self.assertEqual(missing.returncode, 2)
        self.assertIn("missing.json", missing.stderr)

    # ---- HTML ----

    def write_html(self, name):
        path = os.path.join(self.dir, name)
        self.report(self.gpu_json, "--html", path)
        with open(path, encoding="utf-8") as handle:
            return path, handle.read()

    def test_html_is_self_contained(self):
        _, html = self.write_html("static.html")
        self.assertIsNone(re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I))
        self.assertNotIn("http://", html)
        self.assertNotIn("https://", html)
        self.assertIn("Synthetic GPU &lt;test&gt;", html)

    @unittest.skipUnless(BROWSER, NO_BROWSER)
    def test_html_renders_every_plot_series_and_point(self):
        path, html = self.write_html("browser.html")
        probe = path.replace(".html", "-probe.html")
        with open(probe, "w", encoding="utf-8") as handle:
            handle.write(html.replace("</body>", LAYOUT_PROBE + "</body>"))
        with tempfile.TemporaryDirectory() as profile:
            dom = dump_dom(probe, profile)
        collector = PlotCollector()
        collector.feed(dom)

        # What the JSON report implies: per group, a series per backend and timing with a
        # point per comparable record (time and throughput), and one per timing with a
        # point per size that has a speed-up.
        document = json.loads(self.report(self.gpu_json, "--format", "json"))
        expected = {}
        for result in document["results"]:
            if comparable(result):
                series = expected.setdefault((*group_key(result), "time"), {})
                name = (result["backend"], result["settings"]["timing"])
                series[name] = series.get(name, 0) + 1
        for (op, dtype, var, _), series in list(expected.items()):
            expected[(op, dtype, var, "throughput")] = series
        for group in document["summary"]["groups"]:
            speedups = {}
            for timing in ("kernel", "e2e"):
                points = sum(1 for row in group["rows"] if row[timing]["speedup"] is not None)
                if points:
                    speedups[("best-gpu-vs-best-cpu", timing)] = points
            expected[(group["op"], group["dtype"], group["variant"], "speedup")] = speedups

        found = {}
        for plot in collector.plots:
            attrs = plot["attrs"]
            key = (attrs["data-op"], attrs["data-dtype"], attrs["data-variant"], attrs["data-kind"])
            self.assertNotIn(key, found, "one plot of each kind per op/dtype")
            self.assertEqual(int(attrs["data-series"]), len(plot["series"]), key)
            for series in plot["series"]:
                self.assertEqual(int(series["attrs"]["data-points"]), series["points"], (key, series["attrs"]))
            found[key] = {(s["attrs"]["data-backend"], s["attrs"]["data-timing"]): s["points"] for s in plot["series"]}
        self.assertEqual(found, expected)
        self.assertEqual(len(collector.plots), 3 * len(self.groups()))

        body = re.search(r"<body[^>]*>", dom).group(0)
        problems = json.loads(re.search(r'data-layout-problems="([^"]*)"', body).group(1).replace("&quot;", '"'))
        self.assertEqual(problems, [])
        measured = int(re.search(r'data-points-measured="(\d+)"', body).group(1))
        self.assertEqual(measured, sum(p for plot in found.values() for p in plot.values()))

    def rendered(self, html_path):
        """The DOM Chromium builds from the page: (dom, plots as {op, kind, axis, points})."""
        with tempfile.TemporaryDirectory() as profile:
            dom = dump_dom(html_path, profile)
        plots = []
        for match in re.finditer(r"<svg ([^>]*class=\"plot\"[^>]*)>(.*?)</svg>", dom, re.S):
            attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', match.group(1)))
            axis = re.search(r'<text class="axis-title"[^>]*>([^<]*)</text>', match.group(2))
            plots.append({"op": attrs.get("data-op"), "kind": attrs.get("data-kind"), "axis": axis.group(1) if axis else None,
                          "points": len(re.findall(r'<circle class="point"', match.group(2)))})
        return dom, plots

    @unittest.skipUnless(BROWSER, NO_BROWSER)
    def test_cpu_only_page_has_no_empty_plot_and_names_its_axes(self):
        path = os.path.join(self.dir, "cpu.html")
        self.report(self.cpu_json, "--html", path)
        dom, plots = self.rendered(path)
        ops = {r["op"] for r in self.cpu_report["results"] if comparable(r)}
        self.assertEqual(ops, set(AXIS_TITLES) - {"sqrt"})
        self.assertEqual(len(plots), 2 * len({group_key(r) for r in self.cpu_report["results"] if comparable(r)}))
        for plot in plots:
            self.assertIn(plot["kind"], ("time", "throughput"), plot)
            self.assertGreater(plot["points"], 0, f"an empty plot: {plot}")
            self.assertEqual(plot["axis"], AXIS_TITLES[plot["op"]], plot)
        self.assertEqual(dom.count("No GPU cases: no speed-up"), 1)
        self.assertNotIn("No speed-up:", dom)
        self.assertNotIn("\u00b5", dom)  # microseconds as the console spells them: "us"
        self.assertRegex(dom, r">\d+ us</text>")
        # The GPU page names the same axes on all three plots of a group.
        _, gpu_plots = self.rendered(self.write_html("axes.html")[0])
        for plot in gpu_plots:
            self.assertEqual(plot["axis"], AXIS_TITLES[plot["op"]], plot)
            self.assertGreater(plot["points"], 0, plot)

    @unittest.skipUnless(BROWSER, NO_BROWSER)
    def test_backends_skipped_for_one_reason_are_one_note(self):
        report = copy.deepcopy(self.cpu_report)
        report["context"]["notes"] = [f"backend {name} skipped: {SKIP_REASON}" for name in ("cuda", "cublas", "cub", "cusparse")]
        report["context"]["notes"].append("backend openblas skipped: not built")
        source = os.path.join(self.dir, "notes.json")
        with open(source, "w", encoding="utf-8") as handle:
            json.dump(report, handle)
        path = os.path.join(self.dir, "notes.html")
        self.report(source, "--html", path)
        dom, _ = self.rendered(path)
        notes = re.findall(r'<p class="note">(.*?)</p>', dom)
        self.assertEqual(notes, [f"Note: backends cuda, cublas, cub, cusparse skipped: {SKIP_REASON}",
                                 "Note: backend openblas skipped: not built"])
        console = self.report(source)
        self.assertEqual(console.count(SKIP_REASON), 1, console)

    @unittest.skipUnless(BROWSER, NO_BROWSER)
    def test_history_page_marks_planted_slowdowns_and_screenshots(self):
        db = os.path.join(self.dir, "history.db")
        for index, slowdown in enumerate(("", "", "4", "")):
            env = {"GPUBENCH_TEST_SLOWDOWN": slowdown} if slowdown else None
            process = gpubench("run", "--op", "sum", "--size", "64K", "--backend", "eigen", *FAST, "--db", db,
                               "--tag", f"commit=c{index}", "--quiet", env=env)
            self.assertEqual(process.returncode, 0, process.stderr)
        trend = os.path.join(self.dir, "trend.html")
        shown = gpubench("history", "show", "--db", db, "--case", "sum/eigen/f32/65536", "--html", trend)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        dom, _ = self.rendered(trend)
        planted = re.findall(r'<circle class="run planted"[^>]*data-label="([^"]*)"[^>]*data-test-slowdown="([^"]*)"', dom)
        self.assertEqual(planted, [("c2", "4")])
        self.assertEqual(len(re.findall(r'<circle class="run"', dom)), 3)
        self.assertIn("planted slowdown: not a regression", dom)
        self.assertIn("GPUBENCH_TEST_SLOWDOWN=4 (a test knob, not a regression)", dom)
        self.assertNotIn("\u00b5", dom)

        png = os.path.join(self.dir, "trend.png")
        process = subprocess.run([os.path.join(SOURCE_DIR, "scripts", "screenshot_report.sh"), trend, png], capture_output=True,
                                 text=True, timeout=180, stdin=subprocess.DEVNULL)
        self.assertEqual(process.returncode, 0, process.stderr)
        with open(png, "rb") as handle:
            self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n")
        # A failure says why in one line.
        missing = subprocess.run([os.path.join(SOURCE_DIR, "scripts", "screenshot_report.sh"), trend,
                                  os.path.join(self.dir, "no-such-dir", "x.png")], capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        self.assertNotEqual(missing.returncode, 0)
        self.assertEqual(len(missing.stderr.strip().splitlines()), 1, missing.stderr)
        self.assertIn("screenshot_report:", missing.stderr)

    @unittest.skipUnless(BROWSER, NO_BROWSER)
    def test_screenshot_script(self):
        path, _ = self.write_html("shot.html")
        png = os.path.join(self.dir, "shot.png")
        process = subprocess.run([os.path.join(SOURCE_DIR, "scripts", "screenshot_report.sh"), path, png], capture_output=True,
                                 text=True, timeout=180, stdin=subprocess.DEVNULL)
        self.assertEqual(process.returncode, 0, process.stderr)
        with open(png, "rb") as handle:
            data = handle.read()
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        self.assertEqual(width, 1400)
        self.assertGreater(height, 1000)
        # A blank page compresses to a few kilobytes; plots, tables and text do not.
        self.assertGreater(len(data), 50_000)


if __name__ == "__main__":
    if not GPUBENCH:
        print("GPUBENCH not set: run through ctest", file=sys.stderr)
        sys.exit(SKIP)
    result = unittest.main(exit=False, verbosity=2).result
    if not result.wasSuccessful():
        sys.exit(1)
    if not BROWSER:
        print(f"test_report_html: {NO_BROWSER}", file=sys.stderr)
        sys.exit(SKIP)
    sys.exit(0)
