"""SIGINT/SIGTERM during a run: gpubench stops after the current sample, writes every report
with the cases finished so far marked interrupted, leaves no temporary file and exits 130
(SIGINT) or 143 (SIGTERM); compare refuses such a report unless --allow-interrupted."""
import csv
import json
import os
import pty
import select
import signal
import subprocess
import time

from gpubench_cli import GPUBENCH, CliTestCase, gpubench, main

SIZES = ["64K", "128K", "256K"]


class InterruptTests(CliTestCase):
    def interrupted_run(self, signal_number):
        """Starts a run of three cases of about two seconds each, with stderr on a terminal so
        that the progress line ("[1/3 done, ...") shows when the first case has finished, sends the
        signal then, and returns (exit code, output paths, stderr text)."""
        outputs = {ext: os.path.join(self.dir, "partial." + ext) for ext in ("json", "csv", "md")}
        args = ["run", "--op", "sin", "--size", ",".join(SIZES), "--backend", "eigen", "--warmup", "1",
                "--min-samples", "5", "--max-samples", "1000000", "--max-noise", "0.0000001",
                "--min-time", "2", "--max-time", "2"]
        for path in outputs.values():
            args += ["--out", path]
        controller, terminal = pty.openpty()
        process = subprocess.Popen([GPUBENCH, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=terminal)
        os.close(terminal)
        seen = b""
        deadline = time.monotonic() + 240
        try:
            while b"[1/3 done" not in seen:
                self.assertLess(time.monotonic(), deadline, f"no progress line for the second case: {seen!r}")
                ready, _, _ = select.select([controller], [], [], 1.0)
                if ready:
                    try:
                        seen += os.read(controller, 4096)
                    except OSError:  # the terminal closed: the run ended early
                        break
                self.assertIsNone(process.poll(), f"run ended before the signal: {seen!r}")
            process.send_signal(signal_number)
            stdout, _ = process.communicate(timeout=120)
            while True:
                ready, _, _ = select.select([controller], [], [], 0.1)
                if not ready:
                    break
                try:
                    chunk = os.read(controller, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.close(controller)
        return process.returncode, outputs, seen.decode(errors="replace") + stdout.decode(errors="replace")

    def check_partial_reports(self, outputs, signal_name):
        with open(outputs["json"], encoding="utf-8") as handle:
            report = json.load(handle)
        self.assertIs(report.get("interrupted"), True)
        ids = [result["id"] for result in report["results"]]
        # The first case finished; the one running at the signal and the rest are left out.
        self.assertEqual(len(ids), 1, ids)
        self.assertIn("/65536", ids[0])
        result = report["results"][0]
        self.assertEqual(result["status"], "ok")
        self.assertGreaterEqual(len(result["samples_s"]), 5)
        self.assertNotEqual(result["settings"]["stop_reason"], "interrupted")
        notes = report["context"]["notes"]
        self.assertTrue(any(f"interrupted by {signal_name}: 1 of 3 cases finished" in note for note in notes), notes)
        with open(outputs["csv"], encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["interrupted"], "true")
        with open(outputs["md"], encoding="utf-8") as handle:
            self.assertIn(f"interrupted by {signal_name}", handle.read())
        self.assertEqual(sorted(os.listdir(self.dir)), ["partial.csv", "partial.json", "partial.md"],
                         "a temporary file was left behind")
        return outputs["json"]

    def test_sigint_writes_finished_cases_and_exits_130(self):
        code, outputs, output = self.interrupted_run(signal.SIGINT)
        self.assertEqual(code, 130, output)
        partial = self.check_partial_reports(outputs, "SIGINT")
        self.assertIn("interrupted by SIGINT", output)  # the console table says so too

        # compare refuses an interrupted report unless told otherwise.
        refused = gpubench("compare", partial, partial)
        self.assertUsageError(refused, "interrupted", "--allow-interrupted")
        allowed = gpubench("compare", partial, partial, "--allow-interrupted", "--format", "json")
        self.assertOk(allowed)
        self.assertEqual([case["verdict"] for case in json.loads(allowed.stdout)["cases"]], ["same"])
        # So does run --baseline, before it measures anything.
        rerun = os.path.join(self.dir, "never.json")
        refused = gpubench("run", "--op", "sin", "--size", "64K", "--backend", "eigen", "--baseline", partial,
                           "--out", rerun)
        self.assertUsageError(refused, "interrupted")
        self.assertFalse(os.path.exists(rerun))

    def test_sigterm_exits_143(self):
        code, outputs, output = self.interrupted_run(signal.SIGTERM)
        self.assertEqual(code, 143, output)
        self.check_partial_reports(outputs, "SIGTERM")


if __name__ == "__main__":
    main()
