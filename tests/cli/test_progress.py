"""The progress line: on a terminal (a real pseudo-terminal here) a line on stderr rewritten in
place with cases done/total, elapsed time and an ETA, cleared at the end; nothing on a pipe;
--progress always|never|auto."""
import os
import pty
import subprocess

from gpubench_cli import FAST, GPUBENCH, CliTestCase, gpubench, main

RUN = ["run", "--op", "sum,sqrt", "--size", "1K", "--backend", "eigen", *FAST]


def run_on_terminal(*args):
    """Runs gpubench with stderr on a pseudo-terminal; returns (exit code, stdout, what the terminal got)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([GPUBENCH, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=terminal)
    os.close(terminal)
    received = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # EIO: the process closed its end
            break
        if not chunk:
            break
        received += chunk
    os.close(controller)
    stdout = process.stdout.read().decode()
    process.stdout.close()
    return process.wait(timeout=120), stdout, received.decode(errors="replace")


class ProgressTests(CliTestCase):
    def test_terminal_shows_a_line_rewritten_in_place(self):
        code, stdout, terminal = run_on_terminal(*RUN, "--format", "csv")
        self.assertEqual(code, 0, terminal)
        self.assertIn("\r\x1b[K[0/2 done, 0:00 elapsed, ETA -] sum/eigen/f32/1024", terminal)
        self.assertRegex(terminal, r"\r\x1b\[K\[1/2 done, \d+:\d\d elapsed, ETA \d+:\d\d\] sqrt/eigen/f32/1024")
        self.assertTrue(terminal.endswith("\r\x1b[K"), repr(terminal[-40:]))  # cleared at the end
        self.assertNotIn("done,", stdout)  # the report on stdout stays clean
        self.assertTrue(stdout.startswith("id,op,backend"), stdout[:80])

    def test_pipe_gets_nothing(self):
        process = gpubench(*RUN, "--format", "csv")
        self.assertOk(process)
        self.assertNotIn("done,", process.stderr)
        self.assertNotIn("\x1b", process.stderr)

    def test_always_on_a_pipe_writes_plain_lines(self):
        process = gpubench(*RUN, "--format", "csv", "--progress", "always")
        self.assertOk(process)
        lines = [line for line in process.stderr.splitlines() if "done," in line]
        self.assertEqual(len(lines), 2, process.stderr)
        self.assertTrue(lines[0].startswith("[0/2 done, "), lines)
        self.assertTrue(lines[1].startswith("[1/2 done, "), lines)
        self.assertNotIn("\x1b", process.stderr)

    def test_never_and_quiet_keep_the_terminal_silent(self):
        for extra in (["--progress", "never"], ["--quiet"]):
            code, _, terminal = run_on_terminal(*RUN, "--format", "csv", *extra)
            self.assertEqual(code, 0, terminal)
            self.assertNotIn("done,", terminal, extra)

    def test_repetitions_count_every_pass(self):
        process = gpubench(*RUN, "--format", "csv", "--progress", "always", "--repetitions", "2")
        self.assertOk(process)
        lines = [line for line in process.stderr.splitlines() if "done," in line]
        self.assertEqual([line.split(" done")[0] for line in lines], ["[0/4", "[1/4", "[2/4", "[3/4"])
        self.assertIn("pass 2/2: sqrt/eigen/f32/1024", lines[-1])

    def test_unknown_mode_is_a_usage_error(self):
        self.assertUsageError(gpubench(*RUN, "--progress", "sometimes"), "--progress")


if __name__ == "__main__":
    main()
