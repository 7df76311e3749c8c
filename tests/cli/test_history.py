"""End-to-end tests of the results store: `gpubench run --db`, `history ingest|list|show|
export|check` and `compare --baseline db:...`, on SQLite and on the PostgreSQL server that
ctest starts (tests/postgres/cluster.py)."""
import csv
import io
import json
import os
import random
import re
import subprocess

from gpubench_cli import FAST, GPUBENCH, CliTestCase, gpubench, main, write_file
from history_support import SKIP_POSTGRES, HistoryBase, PostgresEngine, SqliteEngine, case_ids, synthetic_report


class HistoryCases(HistoryBase):
    """Run on both engines."""

    # ---- run --db, list, export ----

    def test_run_stores_the_run_it_reports(self):
        db = self.new_db()
        out = os.path.join(self.dir, "r.json")
        process = gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", *FAST, "--db", db,
                           "--tag", "commit=abc123", "--tag", "branch=main", "--out", out, "--quiet")
        self.assertOk(process)
        self.assertIn("stored as run 1", process.stderr)
        listing = gpubench("history", "list", "--db", db)
        self.assertOk(listing)
        self.assertIn("abc123", listing.stdout)
        self.assertIn("branch=main commit=abc123", listing.stdout)
        exported = gpubench("history", "export", "--db", db, "--format", "json")
        self.assertOk(exported)
        runs = json.loads(exported.stdout)["runs"]
        self.assertEqual(len(runs), 1)
        self.assertEqual(runs[0]["tags"], {"branch": "main", "commit": "abc123"})
        with open(out, encoding="utf-8") as handle:
            reported = json.load(handle)
        self.assertEqual(runs[0]["report"], reported)  # the database holds what the report holds

    def test_export_csv_one_row_per_result(self):
        db = self.new_db()
        self.stepped_history(db, runs=4)
        out = os.path.join(self.dir, "history.csv")
        self.assertOk(gpubench("history", "export", "--db", db, "--format", "csv", "--out", out))
        with open(out, encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual(len(rows), 4 * len(case_ids()))
        self.assertEqual(rows[0]["tags"], "branch=main;commit=run01")
        self.assertEqual({row["case_id"] for row in rows}, set(case_ids()))
        self.assertAlmostEqual(float(rows[0]["median_s"]), 1e-3 * (1 + 0.004 * ((7 % 5) - 2)))
        only = gpubench("history", "export", "--db", db, "--format", "csv", "--case", case_ids()[0], "--tag", "commit=run02")
        self.assertOk(only)
        self.assertEqual(len(list(csv.DictReader(io.StringIO(only.stdout)))), 1)
        # A --case that matches nothing is said, with the nearest stored case; a file named for the
        # other format is refused, and nothing is written.
        near = case_ids()[0][:-1] + "9"
        self.assertUsageError(gpubench("history", "export", "--db", db, "--format", "csv", "--case", near),
                              "holds no run of case " + near, "did you mean " + case_ids()[0] + "?")
        # Patterns: '*' across the id's parts; one that matches nothing is refused.
        op = case_ids()[0].split("/")[0]
        picked = gpubench("history", "export", "--db", db, "--format", "csv", "--case", op + "/*")
        self.assertOk(picked)
        self.assertEqual({row["case_id"] for row in csv.DictReader(io.StringIO(picked.stdout))},
                         {case for case in case_ids() if case.startswith(op + "/")})
        self.assertUsageError(gpubench("history", "export", "--db", db, "--format", "csv", "--case", "nosuchop/*"),
                              "holds no run of a case matching nosuchop/*")
        shown = gpubench("history", "show", "--db", db, "--case", op + "/*")
        self.assertOk(shown)
        for case in case_ids():
            (self.assertIn if case.startswith(op + "/") else self.assertNotIn)(case + " on ", shown.stdout)
        for fmt, name in (("csv", "runs.json"), ("json", "runs.CSV")):
            with self.subTest(fmt=fmt, name=name):
                path = os.path.join(self.dir, name)
                self.assertUsageError(gpubench("history", "export", "--db", db, "--format", fmt, "--out", path),
                                      "is named ." + ("json" if fmt == "csv" else "csv") + " but --format " + fmt)
                self.assertFalse(os.path.exists(path))

    # ---- show, check ----

    def test_planted_step_is_shown_and_checked(self):
        db = self.new_db()
        sum_id = self.stepped_history(db)
        check = gpubench("history", "check", "--db", db)
        self.assertOk(check, 1)
        self.assertRegex(check.stdout, rf"slower: {re.escape(sum_id)} on .*: \+2\d\.\d% \(threshold 5%\) since run06 \(run 6,")
        self.assertIn("FAIL (exit 1): 1 of 2 case histories", check.stdout)
        markdown = gpubench("history", "check", "--db", db, "--format", "markdown")
        self.assertOk(markdown, 1)
        self.assertIn("### gpubench history check: FAIL", markdown.stdout)
        self.assertIn("| run06 (run 6,", markdown.stdout)
        # Only the newest five runs: no change inside them; a 30 % threshold: not beyond it.
        self.assertOk(gpubench("history", "check", "--db", db, "--last", "5"))
        self.assertOk(gpubench("history", "check", "--db", db, "--threshold", "30"))

        html = os.path.join(self.dir, "trend.html")
        show = gpubench("history", "show", "--db", db, "--case", sum_id, "--html", html)
        self.assertOk(show)
        self.assertRegex(show.stdout, r"run06 .*<- \+2\d\.\d% \(p ")
        self.assertIn("newest segment slower by +2", show.stdout)
        with open(html, encoding="utf-8") as handle:
            page = handle.read()
        plots = re.findall(r'<svg class="plot trend" data-case="([^"]*)" data-machine="[^"]*" data-runs="(\d+)" '
                           r'data-change-points="(\d+)"', page)
        self.assertEqual(plots, [(sum_id, "10", "1")])
        self.assertEqual(len(re.findall(r'<circle class="run"', page)), 10)
        self.assertRegex(page, r'<g class="change-point" data-index="5" data-run-id="6" data-label="run06"')
        self.assertIn('class="ci-band"', page)
        self.assertEqual(len(re.findall(r'<g class="segment"', page)), 2)
        self.assertNotIn("<script", page)
        self.assertIsNone(re.search(r'(src|href)="(https?:)?//', page))

    def test_aa_history_and_single_spike_pass(self):
        db = self.new_db()
        sum_id, sin_id = case_ids()
        rng = random.Random(5)
        for run in range(1, 21):
            spike = 1.3 if run in (9, 20) else 1.0  # one outlier mid-history, one as the newest run
            levels = {sum_id: 1e-3 * (1 + rng.uniform(-0.03, 0.03)) * spike, sin_id: 5e-5 * (1 + rng.uniform(-0.03, 0.03))}
            self.assertOk(self.store(db, synthetic_report(run, levels), f"commit=c{run}"))
        check = gpubench("history", "check", "--db", db)
        self.assertOk(check)
        self.assertIn("PASS (exit 0): 0 of 2 case histories", check.stdout)

    # ---- compare against history ----

    def test_compare_against_the_history(self):
        db = self.new_db()
        sum_id, sin_id = case_ids()
        for run in range(1, 11):
            levels = {sum_id: 1e-3 * (1 + 0.01 * (run % 3)), sin_id: 5e-5}
            self.assertOk(self.store(db, synthetic_report(run, levels), "branch=main", f"commit=m{run}"))
        same = write_file(self.dir, "same.json", json.dumps(synthetic_report(50, {sum_id: 1.01e-3, sin_id: 5e-5})))
        slower = write_file(self.dir, "slower.json", json.dumps(synthetic_report(51, {sum_id: 1.3e-3, sin_id: 5e-5})))
        separator = "&" if "?" in db else "?"
        passed = gpubench("compare", f"db:{db}{separator}branch=main&last=10", same)
        self.assertOk(passed)
        self.assertIn("PASS (exit 0)", passed.stdout)
        failed = gpubench("compare", f"db:{db}", slower, "--format", "markdown")
        self.assertOk(failed, 1)
        # "slower (interference)" where the runs that made the reports shared a busy host.
        self.assertRegex(failed.stdout, rf"\| {re.escape(sum_id)} \| .* \| slower( \([^|]*\))? \|")
        self.assertIn("medians of up to 10 runs through m10", failed.stdout)
        no_runs = gpubench("compare", f"db:{db}{separator}branch=feature", same)
        self.assertNoHistory(no_runs, "no stored run on this machine", "branch=feature")


    # ---- no history yet ----

    def test_no_history_yet(self):
        """A fresh database (no file, an empty PostgreSQL database) has one outcome for compare,
        run --baseline and the history commands: exit 5 and one line. A run against it is still
        measured and stored, and the next one compares."""
        db = self.new_db()
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        for args in (["compare", f"db:{db}", report], ["history", "check", "--db", db], ["history", "list", "--db", db]):
            with self.subTest(args=args[:2]):
                self.assertNoHistory(gpubench(*args), "yet")
        out = os.path.join(self.dir, "first.json")
        run = ["run", "--op", "sum", "--size", "1K", "--backend", "eigen", *FAST, "--quiet", "--db", db, "--tag", "branch=main"]
        first = gpubench(*run, "--baseline", f"db:{db}", "--out", out)
        self.assertEqual(first.returncode, 5, first.stderr)
        self.assertIn("nothing to compare with", first.stderr)
        self.assertIn("stored as run 1", first.stderr)
        self.assertTrue(os.path.exists(out))
        self.assertEqual(self.count(db, "runs"), 1)
        # The next run compares (a verdict of one pooled run: same, slower or inconclusive).
        second = gpubench(*run, "--baseline", f"db:{db}")
        self.assertIn(second.returncode, (0, 1, 4), second.stdout + second.stderr)
        self.assertIn("sum/eigen/", second.stdout)
        self.assertEqual(self.count(db, "runs"), 2)


class SqliteHistoryTests(SqliteEngine, HistoryCases, CliTestCase):
    def test_an_empty_file_is_no_history_yet(self):
        empty = write_file(self.dir, "empty.db", "")
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        self.assertNoHistory(gpubench("compare", f"db:{empty}?branch=main&last=10", report), "holds no gpubench history yet")

    def test_sqlite_prefix_and_default_file(self):
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        self.assertOk(gpubench("history", "ingest", report, "--db", "sqlite:" + os.path.join(self.dir, "a.db")))
        self.assertEqual(self.count(os.path.join(self.dir, "a.db"), "runs"), 1)
        process = subprocess.run([GPUBENCH, "history", "ingest", report], cwd=self.dir, capture_output=True, text=True)
        self.assertEqual(process.returncode, 0, process.stderr)
        self.assertIn("in gpubench.db", process.stdout)
        self.assertEqual(self.count(os.path.join(self.dir, "gpubench.db"), "runs"), 1)

    def test_bad_input_is_one_line_and_exit_2(self):
        db = os.path.join(self.dir, "h.db")
        out = os.path.join(self.dir, "never.json")
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        notes = write_file(self.dir, "notes.txt", "not a database\n" * 100)
        run = ["run", "--op", "sum", "--size", "1K", "--backend", "eigen", *FAST, "--out", out]
        cases = [
            (run + ["--db", "mysql://root@db/perf"], ["unknown kind of URL"]),
            (run + ["--tag", "commit=x"], ["--tag needs --db"]),
            (run + ["--db", db, "--tag", "commit"], ["expected key=value"]),
            (run + ["--db", db, "--tag", "a=1", "--tag", "a=2"], ["given twice"]),
            (run + ["--db", notes], ["notes.txt"]),
            (["history", "list", "--db", notes], ["notes.txt"]),
            (["history", "list", "--db", db, "--since", "2024-13"], ["--since"]),
            (["history", "show", "--db", db], ["--case"]),
            (["history", "export", "--db", db, "--format", "xml"], ["csv or json"]),
            (["history", "check", "--db", db, "--threshold", "0"], ["--threshold"]),
            (["history", "show", "--db", db, "--case", "sum/eigen/f32/1024", "--last", "-1"], ["--last", "'-1'"]),
            (["history", "check", "--db", db, "--last", "-1"], ["--last", "'-1'"]),
            (["history", "ingest", os.path.join(self.dir, "missing.json"), "--db", db], ["missing.json"]),
            (["history", "ingest", notes, "--db", db], ["notes.txt"]),
            (["compare", "db:" + db + "?last=0", report], ["last=0"]),
            (["compare", "db:ftp://host/x", report], ["unknown kind of URL"]),
        ]
        for args, fragments in cases:
            with self.subTest(args=args):
                self.assertUsageError(gpubench(*args), *fragments)
                self.assertFalse(os.path.exists(out), "a report was written")
        # A database that exists but has no history, a filter matching nothing, a report twice.
        self.assertOk(gpubench("history", "ingest", report, "--db", db))
        self.assertUsageError(gpubench("history", "ingest", report, "--db", db), "already stored, as run 1")
        self.assertUsageError(gpubench("history", "check", "--db", db, "--tag", "branch=none"), "no stored run matches")
        self.assertUsageError(gpubench("history", "show", "--db", db, "--case", "sum/eigen/f32/3"), "no run of case")
        # A stored case near the one asked for is named; far from all, the count and where to list them.
        stored = case_ids()[0]
        near = stored[:-1] + ("0" if stored[-1] != "0" else "1")
        self.assertUsageError(gpubench("history", "show", "--db", db, "--case", near),
                              f"holds no run of case {near} (did you mean {stored}?)")
        process = gpubench("history", "show", "--db", db, "--case", "transpose/x")
        self.assertUsageError(process, "cases stored; gpubench history export lists them")
        self.assertNotIn("did you mean", process.stderr)
        self.assertEqual(self.count(db, "runs"), 1)


@SKIP_POSTGRES
class PostgresHistoryTests(PostgresEngine, HistoryCases, CliTestCase):
    def test_unreachable_server_is_a_usage_error(self):
        process = gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", *FAST,
                           "--db", "postgresql://ci:s3cret@/perf?host=/nonexistent-dir&connect_timeout=2")
        self.assertUsageError(process, "cannot connect", "ci:***@")
        self.assertNotIn("s3cret", process.stderr)


if __name__ == "__main__":
    main()
