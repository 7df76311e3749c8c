"""What the results store's CLI tests share: synthetic reports shaped like a real one, fresh
databases on SQLite and on the PostgreSQL server that ctest starts (tests/postgres/cluster.py),
and counting and integrity checks on each engine."""
import copy
import json
import os
import sqlite3
import subprocess
import time
import unittest

from gpubench_cli import FAST, gpubench, write_file

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
            result.pop("sample_waits_s", None)  # the measured waits pair with the measured samples only
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

    def sql_from_stdin(self, url, statement):
        result = subprocess.run([self.psql, url, "-v", "ON_ERROR_STOP=1", "-At", "-f", "-"], input=statement,
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"psql {statement[:80]!r}: {result.stderr}")
        return result.stdout.strip()

    def new_database(self):
        PostgresServer.counter += 1
        name = f"gpubench_cli_{os.getpid()}_{PostgresServer.counter}"
        self.sql(self.url, f"CREATE DATABASE {name}")
        return self.url.replace("/postgres?", f"/{name}?"), name

    def drop(self, name):
        self.sql(self.url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class HistoryBase:
    """Helpers for tests that run on both engines; the engine mixins below make the databases."""

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

class SqliteEngine:
    """Fresh SQLite files in the test's directory."""

    def new_db(self):
        return os.path.join(self.dir, f"history-{time.monotonic_ns()}.db")

    def scalar(self, db, statement):
        with sqlite3.connect(db) as connection:
            return connection.execute(statement).fetchone()[0]

    def execute(self, db, statement, *values):
        """Runs a statement with '?' placeholders bound to values."""
        with sqlite3.connect(db) as connection:
            connection.execute(statement, values)

    def check_engine_integrity(self, db):
        with sqlite3.connect(db) as connection:
            self.assertEqual(connection.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            self.assertEqual(connection.execute("PRAGMA foreign_key_check").fetchall(), [])
            self.assertEqual(connection.execute("PRAGMA journal_mode").fetchone()[0], "wal")


class PostgresEngine:
    """Fresh databases on the server ctest started, dropped after each test."""

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

    def execute(self, db, statement, *values):
        """Runs a statement with '?' placeholders bound to values (as dollar-quoted literals,
        sent on stdin: a value may be larger than a command line takes)."""
        parts = statement.split("?")
        assert len(parts) == len(values) + 1, statement
        text = parts[0] + "".join(f"$gpb${value}$gpb$" + part for value, part in zip(values, parts[1:]))
        self.server.sql_from_stdin(db, text)

    def check_engine_integrity(self, db):
        self.assertEqual(self.server.sql(db, "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                                             "AND state LIKE 'idle in transaction%'"), "0")


SKIP_POSTGRES = unittest.skipIf(STATE == "off", "PostgreSQL tests turned off (GPUBENCH_POSTGRES_TESTS=OFF)")
