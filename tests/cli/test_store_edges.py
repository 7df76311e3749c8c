"""The results store at its edges, on SQLite and on the PostgreSQL server that ctest starts:
no password in anything gpubench writes, connection and statement timeouts, databases that
take no writes, special files and other programs' databases, signals and closed pipes around
the commit, reports of interrupted runs, corrupted rows and control characters in stored text."""
import json
import os
import re
import signal
import socket
import stat
import subprocess
import time

from gpubench_cli import FAST, GPUBENCH, CliTestCase, gpubench, main, write_file
from history_support import PAUSE, SKIP_POSTGRES, HistoryBase, PostgresEngine, SqliteEngine, synthetic_report

RUN = ["run", "--op", "sum", "--size", "1K", "--backend", "eigen", *FAST]
PAUSE_AT = "GPUBENCH_TEST_INGEST_PAUSE_AT"


class StoreEdgeCases(HistoryBase):
    """Run on both engines."""

    def read_only_database(self):
        """A database holding a history that this test's gpubench may read but not write: the
        URL, and the gpubench to run (a function of its arguments)."""
        raise NotImplementedError

    def test_run_db_refuses_a_database_that_takes_no_writes_before_measuring(self):
        db, run_gpubench = self.read_only_database()
        out = os.path.join(self.dir, "never.json")
        process = run_gpubench(*RUN, "--db", db, "--out", out)
        self.assertUsageError(process, "does not take writes (read-only?)")
        self.assertFalse(os.path.exists(out), "the run measured and wrote its report before the database refused it")

    def test_closed_stdout_still_stores_the_run_and_fails(self):
        db = self.new_db()
        out = os.path.join(self.dir, "r.json")
        reader, writer = os.pipe()
        os.close(reader)  # `gpubench run ... | true`: nobody reads standard output
        try:
            process = subprocess.run([GPUBENCH, *RUN, "--db", db, "--out", out], stdout=writer, stderr=subprocess.PIPE,
                                     text=True, timeout=120)
        finally:
            os.close(writer)
        self.assertEqual(process.returncode, 2, process.stderr)
        self.assertIn("stored as run 1", process.stderr)
        self.assertRegex(process.stderr, r"gpubench: error: cannot write to standard output .*everything else was done")
        self.assertEqual(self.count(db, "runs"), 1)
        self.assertTrue(os.path.exists(out))

    def test_a_signal_inside_the_ingest_transaction_stores_nothing(self):
        db = self.new_db()
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {}, results_per_case=4)))
        marker = os.path.join(self.dir, "paused")
        process = subprocess.Popen([GPUBENCH, "history", "ingest", report, "--db", db], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env={**os.environ, PAUSE: marker})
        self.wait_for(marker, process)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 130, stderr)
        self.assertNotIn("stored", stdout)
        self.assertRegex(stderr, r"^gpubench: interrupted by SIGINT: nothing stored in ")
        self.assertEqual(self.count(db, "runs"), 0)
        # Nothing half-stored: the retry goes in.
        self.assertOk(gpubench("history", "ingest", report, "--db", db))
        self.assertEqual(self.count(db, "runs"), 1)

    def test_a_signal_after_the_commit_keeps_the_run_and_exit_0(self):
        db = self.new_db()
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        marker = os.path.join(self.dir, "paused")
        process = subprocess.Popen([GPUBENCH, "history", "ingest", report, "--db", db], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, PAUSE: marker, PAUSE_AT: "commit"})
        self.wait_for(marker, process)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 0, stderr)
        self.assertIn("as run 1", stdout)
        self.assertIn("SIGINT came after the commit: the run is stored", stdout)
        self.assertEqual(self.count(db, "runs"), 1)
        self.assertUsageError(gpubench("history", "ingest", report, "--db", db), "already stored, as run 1")

    def wait_for(self, marker, process):
        deadline = time.monotonic() + 120
        while not os.path.exists(marker):
            self.assertIsNone(process.poll(), "ingest ended before pausing")
            self.assertLess(time.monotonic(), deadline, "ingest never reached its pause")
            time.sleep(0.02)

    def test_interrupted_reports_need_allow_interrupted(self):
        db = self.new_db()
        sum_id = synthetic_report(1, {})["results"][0]["id"]
        for run in range(1, 8):
            self.assertOk(self.store(db, synthetic_report(run, {sum_id: 1e-3}), f"commit=c{run}"))
        interrupted = synthetic_report(8, {sum_id: 5e-3})  # much slower, and interrupted
        interrupted["interrupted"] = True
        path = write_file(self.dir, "interrupted.json", json.dumps(interrupted))
        self.assertUsageError(gpubench("history", "ingest", path, "--db", db), "interrupted", "--allow-interrupted")
        self.assertEqual(self.count(db, "runs"), 7)
        stored = gpubench("history", "ingest", path, "--db", db, "--allow-interrupted", "--tag", "commit=c8")
        self.assertOk(stored)
        self.assertIn("interrupted", stored.stdout)
        exported = json.loads(gpubench("history", "export", "--db", db, "--format", "json").stdout)
        self.assertIs(exported["runs"][-1]["report"].get("interrupted"), True)

        # compare against the history leaves the interrupted run out unless told otherwise.
        current = write_file(self.dir, "current.json", json.dumps(synthetic_report(9, {sum_id: 1e-3})))
        left_out = gpubench("compare", "db:" + db, current, "--format", "json")
        self.assertOk(left_out)
        self.assertIn("through c7; 1 interrupted run left out", left_out.stdout)
        db_interrupted_only = self.new_db()
        self.assertOk(gpubench("history", "ingest", path, "--db", db_interrupted_only, "--allow-interrupted"))
        self.assertUsageError(gpubench("compare", "db:" + db_interrupted_only, current), "no stored run",
                              "1 interrupted run left out")
        included = gpubench("compare", "db:" + db, current, "--allow-interrupted", "--format", "json")
        self.assertOk(included)
        self.assertIn("through c8", included.stdout)

    def test_corrupted_rows_are_one_line_errors(self):
        db = self.new_db()
        self.assertOk(self.store(db, synthetic_report(1, {}), "commit=c1"))
        current = write_file(self.dir, "current.json", json.dumps(synthetic_report(2, {})))
        case = synthetic_report(1, {})["results"][0]["id"]
        deep = "[" * 200000 + "]" * 200000
        for column, table, corruption in [("context_json", "runs", deep), ("context_json", "runs", '{"timestamp": 1e999}'),
                                          ("record_json", "results", deep), ("record_json", "results", "[1, 2")]:
            with self.subTest(column=column, corruption=corruption[:20]):
                original = self.scalar(db, f"SELECT {column} FROM {table} LIMIT 1")
                self.execute(db, f"UPDATE {table} SET {column} = ?", corruption)
                # Every command that reads the piece: the context for the thresholds, the
                # record for a whole run or a baseline.
                readers = [["history", "export", "--db", db, "--format", "json"], ["compare", "db:" + db, current]]
                if column == "context_json":
                    readers += [["history", "check", "--db", db], ["history", "show", "--db", db, "--case", case]]
                for args in readers:
                    self.assertUsageError(gpubench(*args), "run 1")
                self.execute(db, f"UPDATE {table} SET {column} = ?", original)

    def test_control_characters_in_stored_text_are_escaped(self):
        db = self.new_db()
        report = synthetic_report(1, {})
        report["context"]["hostname"] = "evil\x1b]0;owned\x07host"
        self.assertOk(self.store(db, report, "commit=\x1b[2Jwiped"))
        listing = gpubench("history", "list", "--db", db)
        self.assertOk(listing)
        self.assertNotIn("\x1b", listing.stdout)
        self.assertNotIn("\x07", listing.stdout)
        self.assertIn("\\x1b[2Jwiped", listing.stdout)
        self.assertIn("evil\\x1b]0;owned\\x07host", listing.stdout)


class SqliteStoreEdges(SqliteEngine, StoreEdgeCases, CliTestCase):
    def read_only_database(self):
        db = self.new_db()
        self.assertOk(self.store(db, synthetic_report(1, {})))
        if os.geteuid() != 0:
            os.chmod(db, 0o444)
            return db, gpubench
        # Root writes any file: the run goes as an unprivileged user, who may create the
        # database's -wal and -shm files in the directory but not write the database itself.
        os.chmod(self.dir, 0o777)
        os.chmod(db, 0o644)
        user = "nobody"

        def as_user(*args):
            return subprocess.run(["runuser", "-u", user, "--", GPUBENCH, *args], capture_output=True, text=True,
                                  timeout=120, stdin=subprocess.DEVNULL, cwd=self.dir)
        return db, as_user

    def test_special_files_are_refused(self):
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        journal_before = os.path.exists("/dev/null-journal")
        for path in ("/dev/null", fifo, self.dir):
            with self.subTest(path=path):
                self.assertUsageError(gpubench("history", "ingest", report, "--db", path), "not a SQLite file")
                self.assertUsageError(gpubench(*RUN, "--db", path), "not a SQLite file")
        self.assertEqual(os.path.exists("/dev/null-journal"), journal_before)
        self.assertEqual(sorted(os.listdir(self.dir)), ["fifo", "r.json"])

    def test_a_file_that_is_no_database_is_refused_and_left_as_it_was(self):
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        text = write_file(self.dir, "notes.db", "garbage, no SQLite header\n")
        other_report = write_file(self.dir, "other.json", json.dumps(synthetic_report(2, {})))
        for path in (text, other_report):
            with open(path, "rb") as handle:
                before = handle.read()
            with self.subTest(path=path):
                for args in (["history", "ingest", report, "--db", path], ["history", "list", "--db", path],
                             [*RUN, "--db", path]):
                    process = gpubench(*args)
                    self.assertUsageError(process, f"database '{path}' is not a SQLite file", "--db takes a history file")
                    self.assertNotIn("(file is not a database)", process.stderr)  # said once
            with open(path, "rb") as handle:
                self.assertEqual(handle.read(), before)
        self.assertEqual(sorted(os.listdir(self.dir)), ["notes.db", "other.json", "r.json"])

    def test_another_programs_database_is_refused(self):
        db = self.new_db()
        self.execute(db, "CREATE TABLE invoices (id INTEGER, note TEXT)")
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        self.assertUsageError(gpubench("history", "ingest", report, "--db", db), "holds other tables (invoices)")
        self.assertUsageError(gpubench(*RUN, "--db", db), "holds other tables (invoices)")
        self.assertEqual(self.scalar(db, "SELECT group_concat(name) FROM sqlite_master WHERE type = 'table'"), "invoices")


@SKIP_POSTGRES
class PostgresStoreEdges(PostgresEngine, StoreEdgeCases, CliTestCase):
    def read_only_database(self):
        db = self.new_db()
        self.assertOk(self.store(db, synthetic_report(1, {})))
        return db + "&options=-c%20default_transaction_read_only%3Don", gpubench

    def socket_and_name(self, db):
        match = re.fullmatch(r"postgresql://gpubench@/(\w+)\?host=(.+)", db)
        self.assertIsNotNone(match, db)
        return match.group(1), match.group(2)

    def test_no_password_in_anything_written(self):
        """gpubench run with passwords in every form a URL takes, then every command that
        reads the store: no file, database row or line of output holds a password."""
        db = self.new_db()
        name, host = self.socket_and_name(db)
        forms = [
            f"postgresql://gpubench:TopSecret41@/{name}?host={host}",
            f"postgresql://gpubench:pa%2FSecret42@/{name}?host={host}",
            f"postgresql://gpubench:pa/Secret43@/{name}?host={host}",
            f"postgresql://gpubench:pa@Secret44@/{name}?host={host}",
            f"postgresql://gpubench:pa?Secret45@/{name}?host={host}",
            f"postgresql://gpubench@/{name}?host={host}&password=Secret46",
            f"postgresql://gpubench@/{name}?host={host}&PASSWORD=Secret47",
            f"postgresql://gpubench@/{name}?host={host}&pass%77ord=Secret48",
            f"postgres://gpubench:Secret49@/{name}?host={host}",
            f"host={host} user=gpubench password=Secret50 dbname={name}",
            f"host={host} user=gpubench password='Secret 51' dbname={name}",
            f"postgresql://gpubench@/{name}?host={host}&PassWord=Se%63ret52",
            f"postgresql://gpubench:Se%63ret53@/{name}?host={host}",
            f"host={host} user=gpubench password = Secret54 dbname={name}",
            f"host={host} user=gpubench PASSWORD=Secret55 dbname={name}",
        ]
        output = []

        def run(*args, code=0):
            process = gpubench(*args, cwd=self.dir)
            output.append(process.stdout + process.stderr)
            if code is not None:  # a comparison's verdict may be either
                self.assertOk(process, code)
            return process

        for index, url in enumerate(forms):
            with self.subTest(url=url):
                stem = os.path.join(self.dir, f"r{index}")
                run(*RUN, "--db", url, "--tag", f"commit=f{index}", "--out", stem + ".json", "--out", stem + ".md",
                    "--out", stem + ".csv")
                run("report", stem + ".json", "--html", stem + ".html", "--format", "markdown")
                run("compare", "db:" + url, stem + ".json", "--allow-machine-mismatch", code=None)
                run(*RUN, "--baseline", "db:" + url, "--db", url, "--out", stem + "-again.json", code=None)
                run("history", "ingest", stem + ".json", "--db", url, code=2)  # already stored: the message names the database
                run("history", "list", "--db", url)
                run("history", "check", "--db", url, code=None)
                run("history", "export", "--db", url, "--format", "json", "--out", stem + "-export.json")
                run("history", "export", "--db", url, "--format", "csv", "--out", stem + "-export.csv")
                wrong_host = url.replace(host, host + "-missing")
                run("history", "list", "--db", wrong_host, code=2)
        tables = []
        for table in ("runs", "run_tags", "results", "samples", "schema_version"):
            tables.append(self.scalar(db, f"SELECT string_agg(t::text, E'\\n') FROM {table} t"))
        written = {}
        for directory, _, files in os.walk(self.dir):
            for file_name in files:
                with open(os.path.join(directory, file_name), "rb") as handle:
                    written[os.path.join(directory, file_name)] = handle.read().decode(errors="replace")
        self.assertGreater(len(written), 5 * len(forms))
        self.assertIn("--db", written[os.path.join(self.dir, "r0.json")])
        for where, text in [*written.items(), ("the database rows", "\n".join(tables)), ("the output", "\n".join(output)),
                            ("the file names", "\n".join(written))]:
            found = re.findall(r".{0,40}(?:Secret|Se%63ret).{0,10}", text)
            self.assertEqual(found, [], f"a password in {where}")

    def test_a_server_that_never_answers_costs_the_connect_timeout(self):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)  # the kernel completes the connections; nobody answers them
        port = listener.getsockname()[1]
        try:
            started = time.monotonic()
            process = gpubench("history", "list", "--db", f"postgresql://ci:Secret7@127.0.0.1:{port}/perf", timeout=60)
            waited = time.monotonic() - started
            self.assertUsageError(process, "timeout expired after connect_timeout=10 s", "connect_timeout=N")
            self.assertGreater(waited, 9)
            self.assertNotIn("Secret7", process.stderr)
            started = time.monotonic()
            process = gpubench("history", "list", "--db", f"postgresql://ci@127.0.0.1:{port}/perf?connect_timeout=2",
                               timeout=60)
            self.assertUsageError(process, "connect_timeout=2 s")
            self.assertLess(time.monotonic() - started, 8)
        finally:
            listener.close()

    def test_a_statement_that_waits_too_long_names_statement_timeout(self):
        db = self.new_db()
        self.assertOk(self.store(db, synthetic_report(1, {})))
        holder = subprocess.Popen([self.server.psql, db, "-c",
                                   "BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30); COMMIT;"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while self.server.sql(db, "SELECT COUNT(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND granted "
                                      "AND relation = 'runs'::regclass") != "1":
                self.assertLess(time.monotonic(), deadline, "the lock was never taken")
                time.sleep(0.1)
            started = time.monotonic()
            process = gpubench("history", "list", "--db", db + "&options=-c%20statement_timeout%3D2s")
            self.assertUsageError(process, "statement timeout", "statement_timeout 2s", "options=-c statement_timeout=")
            self.assertLess(time.monotonic() - started, 20)
        finally:
            holder.kill()
            holder.wait()

    def test_another_programs_database_is_refused(self):
        db = self.new_db()
        self.execute(db, "CREATE TABLE invoices (id BIGINT)")
        report = write_file(self.dir, "r.json", json.dumps(synthetic_report(1, {})))
        self.assertUsageError(gpubench("history", "ingest", report, "--db", db), "holds other tables (invoices)")
        self.assertEqual(self.scalar(db, "SELECT string_agg(table_name, ',') FROM information_schema.tables "
                                         "WHERE table_schema = current_schema()"), "invoices")


class UrlFormTests(CliTestCase):
    def test_a_libpq_keyword_string_is_never_a_file_name(self):
        # Taken for a SQLite path, this made a file named after the whole string, password included.
        process = gpubench(*RUN, "--db", "host=127.0.0.1 port=1 user=ci password=KvPw49 dbname=hist connect_timeout=2",
                           cwd=self.dir)
        self.assertUsageError(process, "password=***")
        self.assertNotIn("KvPw49", process.stderr)
        self.assertEqual(os.listdir(self.dir), [])


if __name__ == "__main__":
    main()
