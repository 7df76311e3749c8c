"""The CSV names each row by its case id (the one compare and the console use), says why
sampling stopped, and leaves the L2 mode, a GPU setting, empty on CPU rows."""
import csv
import io
import json

from gpubench_cli import FAST, CliTestCase, gpubench, main


class CsvColumns(CliTestCase):
    def test_id_stop_reason_and_no_l2_on_cpu_rows(self):
        args = ["run", "--op", "sum,matmul", "--size", "64", "--backend", "eigen,openblas", *FAST]
        process = gpubench(*args, "--format", "csv")
        self.assertOk(process)
        rows = list(csv.DictReader(io.StringIO(process.stdout)))
        header = process.stdout.splitlines()[0].split(",")
        self.assertEqual(header[0], "id")
        self.assertLess(header.index("timer"), header.index("stop_reason"))
        report = json.loads(gpubench(*args, "--format", "json").stdout)
        measured = [r for r in report["results"] if r["status"] == "ok"]
        self.assertEqual([row["id"] for row in rows], [r["id"] for r in report["results"]])
        self.assertGreater(len(measured), 1)
        for row in rows:
            with self.subTest(case=row["id"]):
                self.assertEqual(row["device"], "cpu")
                self.assertEqual(row["l2"], "")
                if row["status"] == "ok":
                    reasons = row["stop_reason"].split("+")
                    self.assertTrue(reasons and set(reasons) <= {"converged", "max_time", "max_samples"}, row["stop_reason"])
                else:
                    self.assertEqual(row["stop_reason"], "")


if __name__ == "__main__":
    main()
