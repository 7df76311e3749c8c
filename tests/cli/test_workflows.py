"""The GitHub Actions workflows of docs/ci.md and docs/history.md, played step by step: each
step's `run:` script is taken from the document and run in bash as written, in a checkout-like
directory whose build/release/gpubench is this build and whose configs/ci.json is a small CPU
suite. The GitHub context is the environment (GITHUB_SHA, GITHUB_EVENT_NAME, RUNNER_NAME,
GITHUB_STEP_SUMMARY); the cache of docs/ci.md is a directory. The stories: the first pull
request on an empty store or cache, runs of main, a pull request with a planted slowdown
(GPUBENCH_TEST_SLOWDOWN, which the gate must fail), and a runner without a GPU under
--require-gpu (this machine: the step must fail before measuring or storing anything). The
runs that stand for a GPU runner drop --require-gpu, since their suite is a CPU one.
docs/history.md's workflow runs on SQLite and on the PostgreSQL server ctest starts."""
import json
import os
import re
import shutil
import subprocess
import textwrap

from gpubench_cli import GPUBENCH, LAUNCHER_PREFIXES, SOURCE_DIR, CliTestCase, main, write_file
from history_support import SKIP_POSTGRES, PostgresEngine, SqliteEngine

# Sixty samples of a case of about a millisecond, and a threshold of 95 %, so that a busy host
# cannot make a side too noisy to judge while a tenfold slowdown is far beyond it.
SUITE = {
    "name": "ci",
    "settings": {"warmup": 1, "min_samples": 60, "max_samples": 60, "min_time": 0, "max_time": 60, "threads": 1},
    "thresholds": {"*": 0.95},
    "groups": [{"ops": ["sin"], "sizes": ["64K"], "backends": ["eigen"]}],
}
SLOWDOWN = {"GPUBENCH_TEST_SLOWDOWN": "10"}


def workflow_steps(document):
    """{step name: its run script} of the YAML workflow in docs/<document>."""
    with open(os.path.join(SOURCE_DIR, "docs", document), encoding="utf-8") as handle:
        text = handle.read()
    workflow = next(block for block in re.findall(r"```yaml\n(.*?)```", text, re.S) if "jobs:" in block)
    steps = {}
    for match in re.finditer(r"(?m)^( +)- name: (.+)\n((?:\1  .*\n|\s*\n)*)", workflow):
        body = match.group(3)
        block = re.search(r"(?m)^( +)run: \|\n((?:\1  .*\n|\s*\n)*)", body)
        line = re.search(r"(?m)^ +run: (?!\|)(.+)$", body)
        if block:
            steps[match.group(2).strip()] = textwrap.dedent(block.group(2))
        elif line:
            steps[match.group(2).strip()] = line.group(1) + "\n"
    return steps


class Workflow:
    """A checkout with this build and a small suite, and the steps of one document's workflow."""

    document = None

    def setUp(self):
        super().setUp()
        self.steps = workflow_steps(self.document)
        os.makedirs(os.path.join(self.dir, "build", "release"))
        os.symlink(GPUBENCH, os.path.join(self.dir, "build", "release", "gpubench"))
        os.makedirs(os.path.join(self.dir, "configs"))
        write_file(os.path.join(self.dir, "configs"), "ci.json", json.dumps(SUITE))
        self.summary = os.path.join(self.dir, "summary.md")
        self.commits = 0

    def new_job(self):
        """A job starts with an empty step summary."""
        open(self.summary, "w", encoding="utf-8").close()

    def play(self, step, event, env=None, gpu_runner=True):
        """Runs the named step's script as a job of `event` would; returns (exit code, output).
        A GPU runner's run drops --require-gpu (its suite here is a CPU one)."""
        script = self.steps[step]
        if gpu_runner:
            script = script.replace(" --require-gpu", "")
        self.commits += 1
        full_env = {name: value for name, value in os.environ.items()
                    if not name.startswith(("GPUBENCH_TEST_", "GPUBENCH_HOST") + LAUNCHER_PREFIXES)}
        full_env.update({"GITHUB_SHA": f"{self.commits:040x}", "GITHUB_EVENT_NAME": event, "RUNNER_NAME": "runner-1",
                         "GITHUB_STEP_SUMMARY": self.summary}, **(env or {}))
        process = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=self.dir, env=full_env,
                                 capture_output=True, text=True, timeout=600)
        return process.returncode, process.stdout + process.stderr

    def job_summary(self):
        with open(self.summary, encoding="utf-8") as handle:
            return handle.read()


class HistoryWorkflow(Workflow):
    document = "history.md"
    MAIN = "Store the main-branch run and check the history"
    PR = "Judge the pull request against the main-branch history"

    def play(self, step, event, env=None, gpu_runner=True):
        self.new_job()  # each step here is the one step of its job that matters
        return super().play(step, event, env, gpu_runner)

    def stored_runs(self, db):
        return int(self.scalar(db, "SELECT COUNT(*) FROM runs"))

    def workflow_env(self, db):
        """The job's DB variable: the database's URL as the workflow writes it."""
        return {"DB": db}

    def test_the_workflow(self):
        db = self.new_db()
        env = self.workflow_env(db)
        # The first pull request: nothing stored yet, so nothing to compare with; it passes and says so.
        code, output = self.play(self.PR, "pull_request", env)
        self.assertEqual(code, 0, output)
        self.assertIn("No main-branch history on this runner yet", self.job_summary())
        # main stores its runs and checks the history. A history baseline bounds each case's
        # median from the medians of main's runs, so it takes six of them to judge a change.
        for run in range(6):
            code, output = self.play(self.MAIN, "push", env)
            self.assertEqual(code, 0, output)
            self.assertEqual(self.stored_runs(db), run + 1)
        # A pull request that made the op ten times slower fails the gate, with the comparison in the summary.
        code, output = self.play(self.PR, "pull_request", {**env, **SLOWDOWN})
        self.assertEqual(code, 1, output)
        self.assertIn("slower", self.job_summary())
        # A runner without a usable GPU: the step fails before measuring, and stores nothing.
        code, output = self.play(self.MAIN, "push", env, gpu_runner=False)
        self.assertEqual(code, 2, output)
        self.assertIn("--require-gpu", output)
        self.assertEqual(self.stored_runs(db), 6)


class SqliteHistoryWorkflow(SqliteEngine, HistoryWorkflow, CliTestCase):
    pass


@SKIP_POSTGRES
class PostgresHistoryWorkflow(PostgresEngine, HistoryWorkflow, CliTestCase):
    def workflow_env(self, db):
        """The test server listens on a unix socket (?host=DIR), which libpq also takes from
        PGHOST: the URL stays one without a query, as the workflow's is, for the step that
        appends "?branch=main&..." to it."""
        url, query = db.split("?", 1)
        host = dict(item.split("=", 1) for item in query.split("&"))["host"]
        return {"DB": url, "PGHOST": host}


class CiWorkflow(Workflow, CliTestCase):
    """docs/ci.md: the baseline travels in the runner's cache, a directory here."""

    document = "ci.md"
    RUN = "Run the CI suite"
    COMPARE = "Compare with the baseline"
    MAKE_BASELINE = "Make this run the baseline"

    def setUp(self):
        super().setUp()
        self.cache = os.path.join(self.dir, "cache")
        os.makedirs(self.cache)

    def job(self, event, env=None, gpu_runner=True):
        """Restore, run, compare and (on a push to main whose run succeeded) save the baseline."""
        self.new_job()
        baseline = os.path.join(self.dir, "gpubench-baseline.json")
        for path in (baseline, os.path.join(self.dir, "current.json")):
            if os.path.exists(path):
                os.remove(path)
        cached = os.path.join(self.cache, "gpubench-baseline.json")
        if os.path.exists(cached):
            shutil.copy(cached, baseline)
        run_code, run_output = self.play(self.RUN, event, env, gpu_runner)
        if run_code != 0:
            return "run", run_code, run_output
        code, output = self.play(self.COMPARE, event, env, gpu_runner)
        if event == "push":
            self.assertEqual(self.play(self.MAKE_BASELINE, event, env, gpu_runner)[0], 0)
            shutil.copy(baseline, cached)
        return "compare", code, output

    def test_the_workflow(self):
        # The first pull request: no baseline yet; it passes with a warning that nothing was compared.
        step, code, output = self.job("pull_request")
        self.assertEqual((step, code), ("compare", 0), output)
        self.assertIn("No baseline from main on this runner yet", self.job_summary())
        # main's first run on an empty cache fails loudly, and still becomes the baseline.
        step, code, output = self.job("push")
        self.assertEqual((step, code), ("compare", 1), output)
        self.assertIn("No baseline from main on this runner in the cache", self.job_summary())
        self.assertTrue(os.path.exists(os.path.join(self.cache, "gpubench-baseline.json")))
        # A pull request with a tenfold slowdown fails the gate, the comparison in the summary.
        step, code, output = self.job("pull_request", SLOWDOWN)
        self.assertEqual((step, code), ("compare", 1), output)
        self.assertIn("slower", self.job_summary())
        # A runner without a usable GPU: the run step fails before measuring.
        step, code, output = self.job("pull_request", gpu_runner=False)
        self.assertEqual((step, code), ("run", 2), output)
        self.assertIn("--require-gpu", output)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "current.json")))


if __name__ == "__main__":
    main()
