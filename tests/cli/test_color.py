"""Colour on a terminal for verdicts and failures, off on a pipe, NO_COLOR and --color
auto|always|never honoured; errors as one JSON object on stderr with --format json."""
import copy
import json
import os
import pty
import re
import subprocess

from gpubench_cli import FAST, GPUBENCH, CliTestCase, gpubench, main

RED = "\x1b[1;31m"
GREEN = "\x1b[32m"
RESET = "\x1b[0m"


def steady(result, median):
    """Thirty samples within 0.2 % of `median`: verdicts that do not depend on the machine's load."""
    samples = [median * (1 + offset) for offset in [-0.002, -0.001, 0.0, 0.001, 0.002] * 6]
    result["samples_s"] = samples
    result.pop("sample_waits_s", None)  # the measured waits pair with the measured samples only
    result.pop("cpu_telemetry", None)  # and the measured load with them: no "(interference)" on a busy host
    result["statistics"].update({"count": 30, "min": min(samples), "max": max(samples), "mean": median, "median": median,
                                 "p5": median * 0.998, "p95": median * 1.002, "q1": median * 0.999, "q3": median * 1.001,
                                 "median_ci_low": median * 0.999, "median_ci_high": median * 1.001})


def on_a_terminal(*args, env=None):
    """Runs gpubench with stdout and stderr on a pseudo-terminal; returns (exit code, what it wrote)."""
    primary, secondary = pty.openpty()
    full_env = dict(os.environ, TERM="xterm", **(env or {}))
    if env and env.get("NO_COLOR") is None:
        full_env.pop("NO_COLOR", None)
    process = subprocess.Popen([GPUBENCH, *args], stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary, env=full_env)
    os.close(secondary)
    output = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    os.close(primary)
    return process.wait(timeout=120), output.decode()



def painted(colour, verdict):
    """A verdict in its colour, with the qualifier a busy machine adds ("slower (interference)")."""
    return re.escape(colour + verdict) + r"( \([a-z, /]+\))?" + re.escape(RESET)

class Colour(CliTestCase):
    def setUp(self):
        super().setUp()
        process = gpubench("run", "--op", "sum,sqrt", "--size", "4K", "--backend", "eigen", *FAST, "--format", "json")
        self.assertOk(process)
        base = json.loads(process.stdout)
        for result in base["results"]:
            steady(result, 1e-3)
        slow = copy.deepcopy(base)
        steady(slow["results"][0], 2e-3)  # sum: twice as slow
        steady(slow["results"][1], 0.5e-3)  # sqrt: twice as fast
        self.base, self.slow = os.path.join(self.dir, "base.json"), os.path.join(self.dir, "slow.json")
        for path, report in ((self.base, base), (self.slow, slow)):
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(report, handle)

    def test_verdicts_on_a_terminal(self):
        code, text = on_a_terminal("compare", self.base, self.slow, env={"NO_COLOR": None})
        self.assertEqual(code, 1, text)
        self.assertRegex(text, painted(RED, "slower"))
        self.assertRegex(text, painted(GREEN, "faster"))
        self.assertIn(RED + "FAIL (exit 1)" + RESET, text)
        # The colour codes take no columns: the table stays aligned.
        lines = [line for line in text.splitlines() if line.startswith(("sum/", "sqrt/"))]
        plain = [line.replace(RED, "").replace(GREEN, "").replace(RESET, "") for line in lines]
        self.assertEqual(len(plain), 2, text)
        self.assertEqual(plain[0].index("% "), plain[1].index("% "), plain)
        self.assertEqual(len(plain[0].rstrip()) - len("slower"), len(plain[1].rstrip()) - len("faster"), plain)

    def test_no_colour_on_a_pipe_with_no_color_or_never(self):
        piped = gpubench("compare", self.base, self.slow)
        self.assertOk(piped, 1)
        self.assertNotIn("\x1b[", piped.stdout + piped.stderr)
        for args, env in ((["--color", "never"], {"NO_COLOR": None}), ([], {"NO_COLOR": "1"})):
            with self.subTest(args=args, env=env):
                code, text = on_a_terminal("compare", self.base, self.slow, *args, env=env)
                self.assertEqual(code, 1)
                self.assertNotIn("\x1b[", text)
        forced = gpubench("compare", self.base, self.slow, "--color", "always")
        self.assertRegex(forced.stdout, painted(RED, "slower"))
        self.assertRegex(gpubench("--color=always", "compare", self.base, self.slow).stdout, painted(RED, "slower"))

    def test_errors_and_history_check(self):
        code, text = on_a_terminal("run", "--op", "sine", env={"NO_COLOR": None})
        self.assertEqual(code, 2)
        self.assertIn("gpubench: " + RED + "error:" + RESET + " unknown op 'sine'", text)
        self.assertUsageError(gpubench("compare", self.base, self.slow, "--color", "sometimes"), "--color",
                              "expected one of: auto, always, never")
        database = os.path.join(self.dir, "h.db")
        for commit in ("a", "b"):
            self.assertOk(gpubench("history", "ingest", self.base if commit == "a" else self.slow, "--db", database,
                                   "--tag", f"commit={commit}"))
        process = gpubench("history", "check", "--db", database, "--color", "always")
        self.assertOk(process)
        self.assertIn(GREEN + "PASS (exit 0)", process.stdout)

    def test_errors_as_json(self):
        for args, kind, code in ((["run", "--op", "sine", "--format", "json"], "usage", 2),
                                 (["compare", os.path.join(self.dir, "missing.json"), self.base, "--format=json"], "usage", 2),
                                 (["run", "--sizes", "1K", "--format", "json"], "usage", 2),
                                 (["compare", "db:" + os.path.join(self.dir, "none.db"), self.base, "--format", "json"],
                                  "no_history", 5)):
            with self.subTest(args=args):
                process = gpubench(*args)
                self.assertEqual(process.returncode, code, process.stderr)
                self.assertEqual(process.stdout, "")
                lines = process.stderr.splitlines()
                self.assertEqual(len(lines), 1, process.stderr)
                error = json.loads(lines[0])["error"]
                self.assertEqual((error["kind"], error["exit_code"]), (kind, code))
                self.assertTrue(error["message"])


if __name__ == "__main__":
    main()
