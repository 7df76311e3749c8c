"""Hostile files (issue: deep nesting, huge numbers, endless inputs, Matrix Market headers
that drive allocations) get a one-line error and exit 2; pipes, byte order marks and CR
line ends are read; report files are written through symlinks, never over special files,
and two runs writing the same outputs leave one run's set."""
import csv
import json
import os
import stat
import subprocess
import tempfile
import threading

from gpubench_cli import FAST, GPUBENCH, CliTestCase, gpubench, main, write_file

QUICK_RUN = ["--op", "sum", "--size", "1K", "--backend", "eigen", *FAST]
SUITE_OPS_PREFIX = '{"groups": [{"ops": '
LEVELS = 300000  # a few hundred thousand levels, 600 KB: what overflowed the stack


def deep_array(levels=LEVELS):
    return "[" * levels + "]" * levels


def deep_object(levels=LEVELS):
    return '{"a": ' * levels + "1" + "}" * levels


def available_memory_bytes():
    with open("/proc/meminfo", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


class InputBoundsTests(CliTestCase):
    @classmethod
    def setUpClass(cls):
        cls.shared = tempfile.TemporaryDirectory()
        cls.good = os.path.join(cls.shared.name, "good.json")
        process = gpubench("run", *QUICK_RUN, "--out", cls.good, "--quiet")
        if process.returncode != 0:
            raise RuntimeError(f"the reference run failed: {process.stderr}")

    @classmethod
    def tearDownClass(cls):
        cls.shared.cleanup()

    def good_report(self):
        """A report of a quick run (shared by the tests; they only read it)."""
        return self.good

    def report_readers(self, path, good):
        """Every command that reads a report: report, compare (either side) and run --baseline."""
        return {
            "report": ("report", path),
            "compare current": ("compare", good, path),
            "compare baseline": ("compare", path, good),
            "run --baseline": ("run", *QUICK_RUN, "--baseline", path, "--quiet"),
        }

    def assert_every_reader_refuses(self, path, *fragments):
        good = self.good_report()
        for command, args in self.report_readers(path, good).items():
            with self.subTest(command=command):
                self.assertUsageError(gpubench(*args), os.path.basename(path), *fragments)

    # ---- JSON: nesting, numbers, size ----

    def test_deeply_nested_reports(self):
        # Deep values ahead of further keys: the reader used to copy them recursively.
        for name, deep in (("deep_array.json", deep_array()), ("deep_object.json", deep_object())):
            with self.subTest(name=name):
                path = write_file(self.dir, name, '{"notes": ' + deep + ', "schema": "gpubench-report", "schema_version": 1}')
                self.assert_every_reader_refuses(path, "nested more than 64 levels")

    def test_deeply_nested_suites(self):
        for name, text in (("deep_ops.json", SUITE_OPS_PREFIX + deep_array() + "}]}"),
                           ("deep_description.json", '{"description": ' + deep_object() + ', "groups": []}')):
            with self.subTest(name=name):
                path = write_file(self.dir, name, text)
                self.assertUsageError(gpubench("run", "--config", path), name, "nested more than 64 levels")

    def test_nesting_up_to_the_bound_is_read(self):
        # The report object, context, and notes as the outermost of 62 nested arrays: 64
        # levels, read (then refused for the type of notes[0]); one more is refused for its depth.
        with open(self.good_report(), encoding="utf-8") as handle:
            text = handle.read()
        for arrays, fragment in ((62, "context.notes[0]: expected a string, got array"), (63, "nested more than 64 levels")):
            with self.subTest(levels=arrays + 2):
                report = json.loads(text)
                report["context"]["notes"] = json.loads(deep_array(arrays))
                path = write_file(self.dir, f"levels{arrays + 2}.json", json.dumps(report))
                self.assertUsageError(gpubench("report", path), fragment)

    def test_numbers_beyond_a_double(self):
        with open(self.good_report(), encoding="utf-8") as handle:
            text = handle.read()
        report = write_file(self.dir, "huge.json", text.replace('"schema_version": 1', '"schema_version": 1e999', 1))
        self.assert_every_reader_refuses(report, "number overflow", "1e999")
        suite = write_file(self.dir, "huge_suite.json", '{"settings": {"max_time": 1e999}, "groups": [{"ops": ["sum"]}]}')
        self.assertUsageError(gpubench("run", "--config", suite), "huge_suite.json", "1e999")

    def test_endless_inputs(self):
        # Every reader reads through the same bounded function; two of them suffice here.
        self.assertUsageError(gpubench("report", "/dev/zero"), "/dev/zero", "1 GiB")
        self.assertUsageError(gpubench("compare", self.good_report(), "/dev/zero"), "/dev/zero", "1 GiB")
        self.assertUsageError(gpubench("run", "--config", "/dev/zero"), "/dev/zero", "16 MiB")

    def test_oversized_report_file(self):
        path = os.path.join(self.dir, "big.json")
        with open(path, "wb") as handle:
            handle.truncate(1024 * 1024 * 1024 + 1)  # sparse: no disk used
        self.assertUsageError(gpubench("report", path), "big.json", "is 1.0 GiB, more than the 1 GiB that gpubench reads")

    def test_a_report_as_large_as_the_largest_suite_writes_is_read(self):
        # A suite of 100000 cases (the most a run holds) writes about 300 MiB of JSON, which
        # the readers refused at 256 MiB. 300 MiB of spaces: read, then found to hold no JSON
        # (white space only: empty).
        path = os.path.join(self.dir, "large.json")
        with open(path, "wb") as handle:
            handle.write(b" " * (300 * 1024 * 1024))
        self.assertUsageError(gpubench("report", path), "large.json", "empty (white space only), no JSON document")

    # ---- reports with impossible samples ----

    def edited_report(self, name, edit):
        with open(self.good_report(), encoding="utf-8") as handle:
            report = json.load(handle)
        edit(report)
        return write_file(self.dir, name, json.dumps(report))

    def test_null_samples(self):
        def nulls(report):
            report["results"][0]["samples_s"] = [None] * len(report["results"][0]["samples_s"])
        path = self.edited_report("nulls.json", nulls)
        self.assert_every_reader_refuses(path, "results[0].samples_s[0]", "null")

    def test_negative_samples(self):
        def negative(report):
            report["results"][0]["samples_s"] = [-abs(value) for value in report["results"][0]["samples_s"]]
        path = self.edited_report("negative.json", negative)
        self.assert_every_reader_refuses(path, "results[0].samples_s[0]", "duration")

    def test_negative_statistics(self):
        def negative(report):
            report["results"][0]["statistics"]["median"] = -1e-3
        path = self.edited_report("negative_median.json", negative)
        self.assertUsageError(gpubench("report", path), "results[0].statistics.median")

    # ---- Matrix Market headers ----

    def run_matrix(self, path, *extra):
        return gpubench("run", "--op", "spmv", "--matrix", path, "--backend", "eigen", *FAST, *extra)

    def test_declared_rows_beyond_memory(self):
        path = write_file(self.dir, "rows.mtx", "%%MatrixMarket matrix coordinate real general\n2147483647 1 1\n1 1 1\n")
        needed = 20 * 2147483648  # row counts, fill positions and row pointers: 20 bytes a row
        if available_memory_bytes() >= needed:
            self.skipTest("this machine can read a 2^31-row matrix; the bound is covered by the unit tests")
        self.assertUsageError(self.run_matrix(path), "rows.mtx", "row count 2147483647", "available")

    def test_declared_entries_beyond_the_file(self):
        path = write_file(self.dir, "entries.mtx",
                          "%%MatrixMarket matrix coordinate real general\n65536 65536 2147483647\n1 1 1\n")
        self.assertUsageError(self.run_matrix(path), "entries.mtx", "entry count 2147483647", "bytes")

    def test_matrix_from_a_pipe(self):
        source = write_file(self.dir, "m.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.5\n3 2 -2\n")
        command = f'"$GPUBENCH" run --op spmv --matrix <(cat "$SOURCE") --backend eigen {" ".join(FAST)} --format json'
        process = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300,
                                 env={**os.environ, "GPUBENCH": GPUBENCH, "SOURCE": source}, stdin=subprocess.DEVNULL)
        self.assertOk(process)
        shape = json.loads(process.stdout)["results"][0]["shape"]
        self.assertEqual((shape["rows"], shape["cols"], shape["nnz"]), (3, 3, 2))

    def test_byte_order_mark_and_carriage_returns(self):
        body = ["%%MatrixMarket matrix coordinate real general", "3 3 2", "1 1 1.5", "3 2 -2", ""]
        variants = {"bom.mtx": "\ufeff" + "\n".join(body), "cr.mtx": "\r".join(body), "crlf.mtx": "\r\n".join(body),
                    "bom_cr.mtx": "\ufeff" + "\r".join(body)}
        groups = []
        for name, text in variants.items():
            path = os.path.join(self.dir, name)
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            groups.append({"ops": ["spmv"], "matrix": path, "backends": ["eigen"]})
        suite = write_file(self.dir, "matrices.json", json.dumps({"groups": groups}))
        process = gpubench("run", "--config", suite, *FAST, "--format", "json")
        self.assertOk(process)
        shapes = {result["shape"]["matrix_path"]: result["shape"] for result in json.loads(process.stdout)["results"]}
        for name in variants:
            shape = shapes[os.path.join(self.dir, name)]
            self.assertEqual((shape["rows"], shape["cols"], shape["nnz"]), (3, 3, 2), name)

    # ---- writing reports ----

    def test_out_through_a_symlink_writes_its_target(self):
        target = write_file(self.dir, "target.json", "old")
        link = os.path.join(self.dir, "link.json")
        os.symlink("target.json", link)
        self.assertOk(gpubench("run", *QUICK_RUN, "--out", link, "--quiet"))
        self.assertTrue(os.path.islink(link), "the link was replaced")
        self.assertEqual(os.readlink(link), "target.json")
        with open(target, encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["schema"], "gpubench-report")
        self.assertEqual(sorted(os.listdir(self.dir)), ["link.json", "target.json"])

    def test_special_files_are_refused_before_the_run(self):
        specials = {"fifo.json": lambda path: os.mkfifo(path), "dir.json": os.mkdir,
                    "null_link.json": lambda path: os.symlink("/dev/null", path)}
        if os.geteuid() == 0:  # as root, rename would replace a device file
            specials["device.json"] = lambda path: os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 3))
        for name, make in specials.items():
            with self.subTest(name=name):
                path = os.path.join(self.dir, name)
                make(path)
                before = os.lstat(path)
                process = gpubench("run", *QUICK_RUN, "--out", path)
                self.assertUsageError(process, name, "not a regular file")
                self.assertNotIn("sum/", process.stdout, "the run measured before refusing its output")
                after = os.lstat(path)
                self.assertEqual((before.st_ino, before.st_mode), (after.st_ino, after.st_mode), "it was replaced")
        leftovers = [name for name in os.listdir(self.dir) if name.endswith(".tmp")]
        self.assertEqual(leftovers, [])

    def test_concurrent_runs_leave_one_runs_outputs(self):
        json_path, csv_path = os.path.join(self.dir, "a.json"), os.path.join(self.dir, "a.csv")
        for round_number in range(2):
            processes = {}

            def run(size):
                processes[size] = gpubench("run", "--op", "sum", "--size", size, "--backend", "eigen", *FAST,
                                           "--out", json_path, "--out", csv_path, "--quiet")
            threads = [threading.Thread(target=run, args=(size,)) for size in ("1K", "2K")]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            for process in processes.values():
                self.assertOk(process)
            with open(json_path, encoding="utf-8") as handle:
                json_n = json.load(handle)["results"][0]["shape"]["n"]
            with open(csv_path, encoding="utf-8", newline="") as handle:
                csv_n = int(next(csv.DictReader(handle))["n"])
            self.assertEqual(json_n, csv_n, f"round {round_number}: JSON of one run, CSV of the other")
        self.assertEqual(sorted(os.listdir(self.dir)), ["a.csv", "a.json"])


if __name__ == "__main__":
    main()
