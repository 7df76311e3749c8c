"""scripts/device-check.sh's step list (GPUBENCH_CHECK_STEPS), on any machine: a misspelt step is
refused in one line with exit 2 before anything is built or any log is written, so a check
that was asked for cannot be skipped silently."""
import os
import subprocess
import tempfile

from gpubench_cli import SOURCE_DIR, CliTestCase, main

SCRIPT = os.path.join(SOURCE_DIR, "scripts", "device-check.sh")


class DeviceCheckStepTests(CliTestCase):
    def run_steps(self, steps, out):
        environment = dict(os.environ, GPUBENCH_CHECK_STEPS=steps, OUT=out)
        return subprocess.run(["bash", SCRIPT], env=environment, capture_output=True, text=True, timeout=60)

    def test_unknown_steps_are_refused_before_anything_runs(self):
        for steps, bad in (("tests sanitiser", "sanitiser"), ("Tests", "Tests"), ("memcheck racecheck perf", "perf")):
            with self.subTest(steps=steps), tempfile.TemporaryDirectory() as out:
                result = self.run_steps(steps, out)
                self.assertEqual(result.returncode, 2, result.stderr)
                lines = result.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn(f"unknown step '{bad}'", lines[0])
                for known in ("tests", "memcheck", "racecheck", "sanitizers", "suites", "performance"):
                    self.assertIn(known, lines[0])
                self.assertEqual(result.stdout, "")
                self.assertEqual(os.listdir(out), [], "nothing may be written for a refused step list")


if __name__ == "__main__":
    main()
