"""No command writes over one of its inputs: an output path that names an input (a report, a
suite, a matrix, a baseline, a database), however spelled -- relative, through a link, as a
hard link -- is refused with exit 2 and one line before anything is measured or written, and
the input is left byte for byte as it was."""
import os
import shutil

from gpubench_cli import FAST, CliTestCase, SOURCE_DIR, gpubench, main, write_file

SMALL = ["--op", "sum", "--size", "1K", "--backend", "eigen", *FAST]


class NoOverwrite(CliTestCase):
    def setUp(self):
        super().setUp()
        self.report = os.path.join(self.dir, "r.json")
        self.assertOk(gpubench("run", *SMALL, "--quiet", "--out", self.report))
        with open(self.report, "rb") as handle:
            self.report_bytes = handle.read()

    def assertRefused(self, process, kept_path, kept_bytes, *fragments):
        self.assertUsageError(process, "refusing to write over it", *fragments)
        with open(kept_path, "rb") as handle:
            self.assertEqual(handle.read(), kept_bytes, f"{kept_path} changed")

    def assertKeptReport(self, process, *fragments):
        self.assertRefused(process, self.report, self.report_bytes, *fragments)

    def test_report_html_over_its_input(self):
        self.assertKeptReport(gpubench("report", self.report, "--html", self.report), "--html", "the report")

    def test_relative_spellings_and_links(self):
        link = os.path.join(self.dir, "link.json")
        os.symlink(self.report, link)
        hard = os.path.join(self.dir, "hard.json")
        os.link(self.report, hard)
        sub = os.path.join(self.dir, "sub")
        os.mkdir(sub)
        for spelling in ["./r.json", "sub/../r.json", link, hard]:
            with self.subTest(spelling=spelling):
                self.assertKeptReport(gpubench("report", "r.json", "--html", spelling, cwd=self.dir))

    def test_merge_out_over_a_report(self):
        other = os.path.join(self.dir, "other.json")
        shutil.copy(self.report, other)
        self.assertKeptReport(gpubench("merge", other, self.report, "--out", self.report), "--out", "a report to merge")

    def test_run_out_over_its_suite(self):
        suite = write_file(self.dir, "suite.json", '{"groups": [{"ops": ["sum"], "sizes": ["1K"], "backends": ["eigen"]}]}')
        with open(suite, "rb") as handle:
            suite_bytes = handle.read()
        self.assertRefused(gpubench("run", "--config", suite, *FAST, "--out", suite), suite, suite_bytes,
                           "the suite of --config")

    def test_run_out_over_its_baseline_and_matrix(self):
        self.assertKeptReport(gpubench("run", *SMALL, "--baseline", self.report, "--out", self.report),
                              "the --baseline report")
        matrix = os.path.join(self.dir, "m.json")
        shutil.copy(os.path.join(SOURCE_DIR, "tests", "data", "mm_symmetric.mtx"), matrix)
        with open(matrix, "rb") as handle:
            matrix_bytes = handle.read()
        self.assertRefused(gpubench("run", "--op", "spmv", "--matrix", matrix, "--backend", "eigen", *FAST, "--out", matrix),
                           matrix, matrix_bytes, "the matrix file")

    def test_databases(self):
        # A SQLite file may have any name, a report's extension too: run --out takes only those.
        database = os.path.join(self.dir, "h.json")
        self.assertOk(gpubench("history", "ingest", self.report, "--db", database))
        with open(database, "rb") as handle:
            database_bytes = handle.read()
        for args in (["history", "export", "--format", "csv", "--db", database, "--out", database],
                     ["history", "show", "--case", "sum/eigen/f32/1024", "--db", database, "--html", database],
                     ["run", *SMALL, "--db", database, "--out", database],
                     ["run", *SMALL, "--baseline", f"db:sqlite:{database}?branch=main", "--out", database]):
            with self.subTest(args=args[:2]):
                self.assertRefused(gpubench(*args), database, database_bytes, "database")
        # The other way round: a database over a report.
        self.assertKeptReport(gpubench("history", "ingest", self.report, "--db", self.report), "the database of --db")
        self.assertKeptReport(gpubench("run", *SMALL, "--baseline", self.report, "--db", self.report), "--baseline")

    def test_run_measures_nothing_before_refusing(self):
        # A plan far too long to finish within the timeout: the refusal comes first.
        process = gpubench("run", "--op", "matmul", "--size", "4096", "--backend", "eigen", "--min-time", "60",
                           "--max-time", "60", "--baseline", self.report, "--out", self.report, timeout=30)
        self.assertKeptReport(process)

    def test_a_new_file_beside_the_input_is_fine(self):
        html = os.path.join(self.dir, "r.html")
        self.assertOk(gpubench("report", self.report, "--html", html))
        self.assertTrue(os.path.getsize(html) > 0)


if __name__ == "__main__":
    main()
