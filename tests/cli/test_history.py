"""End-to-end tests of the results store: `gpubench run --db`, `history ingest|list|show|
export|check` and `compare --baseline db:...`, on SQLite and on the PostgreSQL server that
ctest starts (tests/postgres/cluster.py); sixteen concurrent ingests; SIGKILL during
ingestion leaving no partial run."""
import copy
import csv
import io
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import time
import unittest

from gpubench_cli import FAST, GPUBENCH, CliTestCase, gpubench, main, write_file

STATE = os.environ.get("GPUBENCH_TEST_POSTGRES_STATE")
PAUSE = "GPUBENCH_TEST_INGEST_PAUSE_FILE"
TEMPLATE = None  # a real report, the shape of every synthetic one


def template_report():
    global TEMPLATE
    if TEMPLATE is None:
        process = gpubench("run", "--op", "sum,sin", "--size", "1K", "--backend", "eigen", *FAST, "--format", "json")
        assert process.returncode == 0, process.stderr
        TEMPLATE = json.loads(process.stdout)
    return TEMPLATE


def synthetic_report(run, levels, results_per_case=1, samples=30):
    """Run `run` of a history: each ok result's samples tight around levels[case id] (or its
    template median), context timestamp in run order."""
    report = copy.deepcopy(template_report())
    report["context"]["timestamp"] = f"2024-11-{1 + run // 1440:02d}T{run // 60 % 24:02d}:{run % 60:02d}:00Z"
    results = []
    for template in report["results"]:
        for copy_index in range(results_per_case):
            result = copy.deepcopy(template)
            if copy_index:
                result["shape"]["n"] += copy_index  # a distinct case id
                result["shape"]["label"] = str(result["shape"]["n"])
                result["id"] = f"{result['op']}/{result['backend']}/{result['dtype']}/{result['shape']['n']}"
            level = levels.get(result["id"], 1e-6)
            values = [level * (1 + 0.004 * ((k % 7) / 6 - 0.5)) for k in range(samples)]
            result["samples_s"] = values
            result["host_samples_s"] = values
            statistics = result["statistics"]
            statistics.update(count=samples, min=min(values), max=max(values), median=level, mean=level,
                              p5=level * 0.998, p95=level * 1.002, q1=level * 0.999, q3=level * 1.001,
                              median_ci_low=level * 0.999, median_ci_high=level * 1.001)
            result["host_statistics"] = dict(statistics)
            results.append(result)
    report["results"] = results
    return report


def case_ids():
    return [result["id"] for result in template_report()["results"]]


class PostgresServer:
    """Fresh databases on the server ctest started."""
    counter = 0

    def __init__(self):
        with open(STATE, encoding="utf-8") as handle:
            state = json.load(handle)
        self.url = state["url"]
        self.psql = os.path.join(state["bindir"], "psql")

    def sql(self, url, statement):
        result = subprocess.run([self.psql, url, "-v", "ON_ERROR_STOP=1", "-At", "-c", statement], capture_output=True,
                                text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"psql {statement!r}: {result.stderr}")
        return result.stdout.strip()

    def new_database(self):
        PostgresServer.counter += 1
        name = f"gpubench_cli_{os.getpid()}_{PostgresServer.counter}"
        self.sql(self.url, f"CREATE DATABASE {name}")
        return self.url.replace("/postgres?", f"/{name}?"), name

    def drop(self, name):
        self.sql(self.url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class HistoryCases:
    """Tests run on both engines; subclasses say how a fresh database is made."""

    def new_db(self):
        raise NotImplementedError

    def scalar(self, db, statement):
        raise NotImplementedError

    def count(self, db, table):
        return int(self.scalar(db, f"SELECT COUNT(*) FROM {table}"))

    def check_integrity(self, db):
        """No sample or result without its run and result; then the engine's own checks."""
        self.assertEqual(int(self.scalar(db, "SELECT COUNT(*) FROM samples s LEFT JOIN results r ON r.run_id = s.run_id "
                                             "AND r.result_index = s.result_index WHERE r.run_id IS NULL")), 0)
        self.assertEqual(int(self.scalar(db, "SELECT COUNT(*) FROM results r LEFT JOIN runs u ON u.id = r.run_id "
                                             "WHERE u.id IS NULL")), 0)
        self.check_engine_integrity(db)

    def store(self, db, report, *tags, name=None, env=None):
        path = write_file(self.dir, name or f"report-{id(report)}-{time.monotonic_ns()}.json", json.dumps(report))
        args = ["history", "ingest", path, "--db", db]
        for tag in tags:
            args += ["--tag", tag]
        return gpubench(*args, env=env)

    def stepped_history(self, db, step_at=6, runs=10, factor=1.2):
        sum_id, sin_id = case_ids()
        for run in range(1, runs + 1):
            wobble = 1 + 0.004 * ((run * 7) % 5 - 2)
            levels = {sum_id: 1e-3 * wobble * (factor if run >= step_at else 1), sin_id: 5e-5 * wobble}
            self.assertOk(self.store(db, synthetic_report(run, levels), f"commit=run{run:02d}", "branch=main"))
        return sum_id

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
        self.assertRegex(failed.stdout, rf"\| {re.escape(sum_id)} \| .* \| slower \|")
        self.assertIn("medians of up to 10 runs through m10", failed.stdout)
        no_runs = gpubench("compare", f"db:{db}{separator}branch=feature", same)
        self.assertUsageError(no_runs, "no stored run on this machine", "branch=feature")

    # ---- concurrency and crashes ----

    def test_sixteen_concurrent_ingests_all_land(self):
        db = self.new_db()  # fresh: the sixteen also race to create the schema
        paths = []
        for run in range(16):
            report = synthetic_report(run + 1, {}, results_per_case=5, samples=200)
            paths.append(write_file(self.dir, f"concurrent-{run}.json", json.dumps(report)))
        processes = [subprocess.Popen([GPUBENCH, "history", "ingest", path, "--db", db, "--tag", f"job={i}"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for i, path in enumerate(paths)]
        outcomes = [(process.communicate(timeout=300)[1], process.returncode) for process in processes]
        for err, returncode in outcomes:
            self.assertEqual(returncode, 0, err)
        self.assertEqual(self.count(db, "runs"), 16)
        self.assertEqual(self.count(db, "results"), 16 * 5 * len(case_ids()))
        self.assertEqual(self.count(db, "samples"), 16 * 5 * len(case_ids()) * 200)
        self.assertEqual(self.count(db, "schema_version"), 1)
        listing = gpubench("history", "list", "--db", db)
        self.assertOk(listing)
        self.assertEqual({f"job={i}" for i in range(16)}, set(re.findall(r"job=\d+", listing.stdout)))

    def big_report(self, run):
        return synthetic_report(run, {}, results_per_case=10, samples=1500)

    def assert_whole_runs(self, db, expected_runs):
        """The runs stored are complete and exactly those expected; the database is sound."""
        exported = gpubench("history", "export", "--db", db, "--format", "csv")
        self.assertOk(exported)
        per_run = {}
        for row in csv.DictReader(io.StringIO(exported.stdout)):
            per_run[row["tags"]] = per_run.get(row["tags"], 0) + 1
        results = 10 * len(case_ids())
        self.assertEqual(per_run, {f"commit=k{run}": results for run in expected_runs})
        self.assertEqual(self.count(db, "samples"), len(expected_runs) * results * 1500)
        self.check_integrity(db)

    def test_sigkill_inside_the_ingest_transaction_leaves_no_partial_run(self):
        db = self.new_db()
        self.assertOk(self.store(db, self.big_report(1), "commit=k1"))
        marker = os.path.join(self.dir, "inside-transaction")
        path = write_file(self.dir, "killed.json", json.dumps(self.big_report(2)))
        process = subprocess.Popen([GPUBENCH, "history", "ingest", path, "--db", db, "--tag", "commit=k2"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, PAUSE: marker})
        deadline = time.monotonic() + 120
        while not os.path.exists(marker):
            self.assertIsNone(process.poll(), "ingest ended before pausing")
            self.assertLess(time.monotonic(), deadline, "ingest never reached its pause")
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        self.assertEqual(process.returncode, -signal.SIGKILL)
        self.assert_whole_runs(db, [1])
        # The killed report was never stored: it goes in now.
        self.assertOk(gpubench("history", "ingest", path, "--db", db, "--tag", "commit=k2"))
        self.assert_whole_runs(db, [1, 2])

    def test_sigkill_at_random_points_of_large_ingests(self):
        db = self.new_db()
        started = time.monotonic()
        self.assertOk(self.store(db, self.big_report(1), "commit=k1"))
        duration = time.monotonic() - started
        stored = [1]
        rng = random.Random(17)
        for run in range(2, 7):
            path = write_file(self.dir, f"random-kill-{run}.json", json.dumps(self.big_report(run)))
            process = subprocess.Popen([GPUBENCH, "history", "ingest", path, "--db", db, "--tag", f"commit=k{run}"],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(rng.uniform(0, 1.5 * duration))
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=60)
            # Killed before its commit, the run is not there; after it (or finished), it is, whole.
            landed = f"commit=k{run}" in gpubench("history", "list", "--db", db).stdout
            self.assertTrue(landed or process.returncode != 0, "an ingest that exited 0 lost its run")
            if landed:
                stored.append(run)
            self.assert_whole_runs(db, stored)


class SqliteHistoryTests(HistoryCases, CliTestCase):
    def new_db(self):
        return os.path.join(self.dir, f"history-{time.monotonic_ns()}.db")

    def scalar(self, db, statement):
        with sqlite3.connect(db) as connection:
            return connection.execute(statement).fetchone()[0]

    def check_engine_integrity(self, db):
        with sqlite3.connect(db) as connection:
            self.assertEqual(connection.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            self.assertEqual(connection.execute("PRAGMA foreign_key_check").fetchall(), [])
            self.assertEqual(connection.execute("PRAGMA journal_mode").fetchone()[0], "wal")

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
            (run + ["--baseline", "db:" + os.path.join(self.dir, "missing.db")], ["no such SQLite file"]),
            (run + ["--db", notes], ["notes.txt"]),
            (["history", "list", "--db", os.path.join(self.dir, "missing.db")], ["no such SQLite file"]),
            (["history", "list", "--db", notes], ["notes.txt"]),
            (["history", "list", "--db", db, "--since", "2024-13"], ["--since"]),
            (["history", "show", "--db", db], ["--case"]),
            (["history", "export", "--db", db, "--format", "xml"], ["csv or json"]),
            (["history", "check", "--db", db, "--threshold", "0"], ["--threshold"]),
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
        self.assertEqual(self.count(db, "runs"), 1)


@unittest.skipIf(STATE == "off", "PostgreSQL tests turned off (GPUBENCH_POSTGRES_TESTS=OFF)")
class PostgresHistoryTests(HistoryCases, CliTestCase):
    def setUp(self):
        super().setUp()
        if not STATE:
            self.fail("GPUBENCH_TEST_POSTGRES_STATE is not set: run through ctest, which starts the PostgreSQL server")
        self.assertTrue(os.path.exists(STATE), f"no PostgreSQL server state at {STATE} (did postgres.start fail?)")
        self.server = PostgresServer()
        self.databases = []

    def tearDown(self):
        for name in self.databases:
            self.server.drop(name)
        super().tearDown()

    def new_db(self):
        url, name = self.server.new_database()
        self.databases.append(name)
        return url

    def scalar(self, db, statement):
        return self.server.sql(db, statement)

    def check_engine_integrity(self, db):
        self.assertEqual(self.server.sql(db, "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                                             "AND state LIKE 'idle in transaction%'"), "0")

    def test_unreachable_server_is_a_usage_error(self):
        process = gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", *FAST,
                           "--db", "postgresql://ci:s3cret@/perf?host=/nonexistent-dir&connect_timeout=2")
        self.assertUsageError(process, "cannot connect", "ci:***@")
        self.assertNotIn("s3cret", process.stderr)


if __name__ == "__main__":
    main()
