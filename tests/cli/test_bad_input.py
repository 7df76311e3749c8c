"""Bad input: one-line error naming the problem, exit 2, no crash, no partial report file."""
import json
import os

from gpubench_cli import FAST, CliTestCase, gpubench, main, write_file


class BadInputTests(CliTestCase):
    def run_bad(self, *args, fragments=()):
        out = os.path.join(self.dir, "never.json")
        process = gpubench("run", *args, "--out", out, *FAST)
        self.assertUsageError(process, *fragments)
        self.assertFalse(os.path.exists(out), "a report file was written for a bad command")
        leftovers = [name for name in os.listdir(self.dir) if name.startswith("never")]
        self.assertEqual(leftovers, [], "a partial or temporary report file was left behind")
        return process

    def test_unknown_op(self):
        self.run_bad("--op", "cos", fragments=("cos",))

    def test_unknown_backend(self):
        self.run_bad("--op", "sin", "--backend", "magma", fragments=("magma",))

    def test_requested_gpu_backend_without_a_device(self):
        listing = gpubench("list").stdout
        unavailable = [name for name in ("cuda", "cublas", "cub", "cusparse")
                       if any(line.split()[:1] == [name] and "unavailable" in line for line in listing.splitlines())]
        if not unavailable:
            self.skipTest("a CUDA device is present")
        for name in unavailable:
            with self.subTest(backend=name):
                self.run_bad("--op", "sin", "--backend", name, fragments=(name, "unavailable"))

    def test_default_backends_without_a_device_say_so_once(self):
        process = gpubench("run", "--op", "sum", "--size", "1K", *FAST)
        self.assertOk(process)
        if "GPU backends unavailable" in process.stderr:
            self.assertEqual(process.stderr.count("GPU backends unavailable"), 1, process.stderr)

    def test_bad_telemetry_options(self):
        for args, fragment in ((["--throttle-threshold", "1.5"], "--throttle-threshold"),
                               (["--throttle-threshold", "0"], "--throttle-threshold"),
                               (["--soak", "-2"], "--soak"),
                               (["--progress", "maybe"], "--progress")):
            with self.subTest(args=args):
                self.run_bad("--op", "sum", "--size", "1K", *args, fragments=(fragment,))

    def test_unknown_dtype(self):
        self.run_bad("--op", "sin", "--dtype", "f8", fragments=("f8",))

    def test_malformed_sizes(self):
        for size in ("12Q", "abc", "1.5M", "K", "4K..1K", "1K..4K:x1", "1K..4K:y2"):
            with self.subTest(size=size):
                self.run_bad("--op", "sin", "--size", size)

    def test_zero_negative_absurd_sizes(self):
        self.run_bad("--op", "sin", "--size", "0", fragments=("zero",))
        self.run_bad("--op", "sin", "--size", "-5")
        self.run_bad("--op", "sin", "--size", "4096G", fragments=("large",))

    def test_size_that_cannot_be_allocated(self):
        # 2^36 doubles = 512 GiB: valid syntax, more memory than the machine has.
        self.run_bad("--op", "sin", "--dtype", "f64", "--size", "64G", fragments=("GiB",))
        self.run_bad("--op", "matmul", "--size", "1M", fragments=("GiB",))

    def test_malformed_matmul_shape(self):
        self.run_bad("--op", "matmul", "--shape", "10x10", fragments=("10x10",))
        # A bad side: the shape and the side are named.
        self.run_bad("--op", "matmul", "--shape", "0x4x4", fragments=("0x4x4", "m: ", "zero"))
        self.run_bad("--op", "matmul", "--shape", "64x64x1M0", fragments=("64x64x1M0", "k: ", "1M0"))

    def test_bad_pattern_and_nnz(self):
        self.run_bad("--op", "spmv", "--pattern", "diagonal", fragments=("diagonal",))
        self.run_bad("--op", "spmv", "--nnz-per-row", "0")

    def test_bad_spmv_kernel(self):
        self.run_bad("--op", "spmv", "--spmv-kernel", "fastest", fragments=("fastest", "merge_path"))
        # A group setting, like --pattern: a suite sets it per group.
        self.run_bad("--spmv-kernel", "merge_path", fragments=("--spmv-kernel", "suite"))

    def test_missing_config(self):
        self.run_bad("--config", os.path.join(self.dir, "nope.json"), fragments=("nope.json",))

    def test_malformed_config(self):
        for text, fragment in (("{not json", "JSON"), ('{"groups": []}', "groups"), ('{"groups": [{"ops": ["cos"]}]}', "cos"),
                               ('{"groups": [{"ops": ["sin"], "sizez": [1]}]}', "sizez"), ("[1, 2]", "object")):
            with self.subTest(text=text):
                path = write_file(self.dir, "bad_suite.json", text)
                self.run_bad("--config", path, fragments=(fragment,))

    def test_missing_matrix_file(self):
        self.run_bad("--op", "spmv", "--matrix", os.path.join(self.dir, "absent.mtx"), fragments=("absent.mtx",))

    def test_malformed_matrix_files(self):
        cases = {
            "no_header.mtx": "3 3 1\n1 1 1.0\n",
            "array.mtx": "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
            "out_of_range.mtx": "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n",
            "truncated.mtx": "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1.0\n",
            "not_a_number.mtx": "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n",
        }
        for name, text in cases.items():
            with self.subTest(name=name):
                path = write_file(self.dir, name, text)
                self.run_bad("--op", "spmv", "--matrix", path, "--backend", "eigen", fragments=(name,))
                os.remove(path)

    def test_unknown_flag(self):
        process = gpubench("run", "--bogus")
        self.assertUsageError(process, "bogus")

    def test_bad_format_and_extension(self):
        self.run_bad("--op", "sin", "--format", "xml", fragments=("xml",))
        process = gpubench("run", "--op", "sin", "--out", os.path.join(self.dir, "r.xlsx"), *FAST)
        self.assertUsageError(process, "r.xlsx")

    def test_unwritable_output_leaves_nothing(self):
        out = os.path.join(self.dir, "missing_dir", "r.json")
        process = gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--out", out, *FAST)
        self.assertUsageError(process, "r.json")
        self.assertFalse(os.path.exists(os.path.dirname(out)))

    def test_every_writer_names_a_missing_directory(self):
        # run --out, report --html, merge --out and history export --out: the same one-line refusal,
        # before anything is read or written.
        good = os.path.join(self.dir, "good.json")
        self.assertEqual(gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--out", good, *FAST).returncode, 0)
        missing = os.path.join(self.dir, "missing_dir")
        db = os.path.join(self.dir, "h.db")
        self.assertEqual(gpubench("history", "ingest", good, "--db", db).returncode, 0)
        commands = [
            ["run", "--op", "sum", "--size", "1K", "--backend", "eigen", *FAST, "--out", os.path.join(missing, "r.json")],
            ["report", good, "--html", os.path.join(missing, "p.html")],
            ["merge", good, good, "--out", os.path.join(missing, "m.json")],
            ["history", "export", "--db", db, "--format", "csv", "--out", os.path.join(missing, "h.csv")],
        ]
        for args in commands:
            with self.subTest(command=args[0]):
                self.assertUsageError(gpubench(*args), "cannot write report '" + missing + "/", "no directory '" + missing + "'")
        self.assertFalse(os.path.exists(missing))
        # An HTML page goes to a .html or .htm file (any case), from report and history show.
        for args in (["report", good, "--html"], ["history", "show", "--db", db, "--case", "sum/*", "--html"]):
            for name in ("page.json", "page.txt", "page"):
                with self.subTest(command=args[0], name=name):
                    path = os.path.join(self.dir, name)
                    self.assertUsageError(gpubench(*args, path), "--html '" + path + "': an HTML page is written to a .html")
                    self.assertFalse(os.path.exists(path))
            self.assertOk(gpubench(*args, os.path.join(self.dir, "PAGE.HTM")))
        # --relative-to a backend the report lacks names the ones it has, and the nearest.
        self.assertUsageError(gpubench("report", good, "--relative-to", "eigne"),
                              "no results of that backend", "did you mean eigen? its backends: eigen")

    def test_compare_bad_inputs(self):
        good = os.path.join(self.dir, "good.json")
        self.assertEqual(gpubench("run", "--op", "sum", "--size", "1K", "--backend", "eigen", "--out", good, *FAST).returncode, 0)
        missing = os.path.join(self.dir, "missing.json")
        self.assertUsageError(gpubench("compare", missing, good), "missing.json")
        malformed = write_file(self.dir, "malformed.json", "{\"schema\": ")
        self.assertUsageError(gpubench("compare", good, malformed), "malformed.json")
        with open(good, encoding="utf-8") as handle:
            report = json.load(handle)
        report["schema_version"] = 99
        wrong = write_file(self.dir, "wrong.json", json.dumps(report))
        self.assertUsageError(gpubench("compare", good, wrong), "99")
        for alpha in ("0", "1", "-0.5", "nan"):
            self.assertUsageError(gpubench("compare", good, good, "--alpha", alpha), "alpha")
        self.assertUsageError(gpubench("compare", good, good, "--alpha", "often"), "--alpha")


if __name__ == "__main__":
    main()
