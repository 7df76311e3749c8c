"""Rows a reader should not take at face value are marked where people look, the results
table of the console and Markdown reports: a memory-bound rate far above the measured DRAM
copy says "in cache" instead of a %peak of 1477 %; a very wide (or bimodal) spread and
sampling that stopped before the noise rule was met are marked in the spread column, with
one line under the table saying why. The records are a real run's, edited to each case."""
import copy
import json
import os
import re

from gpubench_cli import FAST, CliTestCase, gpubench, main


class ReportDoubts(CliTestCase):
    def setUp(self):
        super().setUp()
        path = os.path.join(self.dir, "run.json")
        self.assertOk(gpubench("run", "--op", "sum", "--size", "64K", "--backend", "eigen", *FAST, "--out", path, "--quiet"))
        with open(path, encoding="utf-8") as handle:
            self.report = json.load(handle)

    def render(self, edit, fmt="console"):
        report = copy.deepcopy(self.report)
        record = report["results"][0]
        record["id"] = "sum/eigen/f32/65536"
        edit(report, record)
        path = os.path.join(self.dir, "edited.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(report, handle)
        process = gpubench("report", path, "--format", fmt)
        self.assertOk(process)
        return process.stdout

    @staticmethod
    def trusted(report, record):
        """A tight, converged record at 80 % of the copy rate."""
        stats = record["statistics"]
        stats.update(count=20, median=1e-3, q1=0.99e-3, q3=1.01e-3, median_ci_low=0.999e-3, median_ci_high=1.001e-3)
        record["settings"]["stop_reason"] = "converged"
        record["roofline"].update(bound="memory", fraction=0.8)

    def test_a_trusted_row_has_no_mark(self):
        text = self.render(self.trusted)
        self.assertRegex(text, r"sum/eigen/f32/65536 .* ±1.0% .* 80% ")
        self.assertNotIn("!", text)
        self.assertNotIn("in cache", text)

    def test_in_cache(self):
        def edit(report, record):
            self.trusted(report, record)
            record["roofline"]["fraction"] = 14.77
        text = self.render(edit)
        self.assertIn("in cache", text)
        self.assertNotIn("1477%", text)
        self.assertIn("in cache", self.render(edit, "markdown"))

    def test_wide_spread(self):
        def edit(report, record):
            self.trusted(report, record)
            record["statistics"].update(q1=0.5e-3, q3=51e-3)
        text = self.render(edit)
        self.assertRegex(text, r"±2500%!")
        self.assertRegex(text, r"(?m)^  ! sum/eigen/f32/65536: spread ±2500%")
        self.assertIn("bimodal or scattered", text)

    def test_noise_rule_not_met(self):
        def edit(report, record):
            self.trusted(report, record)
            record["settings"]["stop_reason"] = "max_time"
            record["statistics"].update(median_ci_low=0.97e-3, median_ci_high=1.03e-3)
            report["context"]["settings"]["max_noise"] = 0.01
        text = self.render(edit)
        self.assertRegex(text, r"±1.0%!")
        line = re.sub(r"\s+", " ", re.search(r"(?ms)^  ! .*?(?=^\S|\n\n)", text).group(0))
        for fragment in ("sum/eigen/f32/65536", "stopped at max_time", "noise rule", "±3", "1%"):
            self.assertIn(fragment, line)
        markdown = self.render(edit, "markdown")
        self.assertIn("stopped at max\\_time", markdown)  # Markdown escapes the underscore
        # Converged in another pass, or within the rule: no mark.
        def converged_once(report, record):
            edit(report, record)
            record["settings"]["stop_reason"] = "converged+max_time"
        self.assertNotIn("!", self.render(converged_once))


if __name__ == "__main__":
    main()
