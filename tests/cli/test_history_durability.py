"""The results store under stress, on SQLite and on the PostgreSQL server that ctest starts:
sixteen concurrent ingests into one fresh database all land, and SIGKILL during ingestion (inside
its transaction, and at random points of large ingests) leaves whole runs only."""
import csv
import io
import json
import os
import random
import re
import signal
import subprocess
import time

from gpubench_cli import GPUBENCH, CliTestCase, gpubench, main, write_file
from history_support import PAUSE, SKIP_POSTGRES, HistoryBase, PostgresEngine, SqliteEngine, case_ids, synthetic_report


class DurabilityCases(HistoryBase):
    """Run on both engines."""

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
        self.assertEqual(self.count(db, "schema_version"), 2)  # each migration once
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


class SqliteDurabilityTests(SqliteEngine, DurabilityCases, CliTestCase):
    pass


@SKIP_POSTGRES
class PostgresDurabilityTests(PostgresEngine, DurabilityCases, CliTestCase):
    pass


if __name__ == "__main__":
    main()
