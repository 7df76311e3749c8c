"""Every shell command of README.md's code blocks, run as written on a machine without a GPU.

The commands are taken from the README's ```sh blocks (a trailing backslash joins lines, a
comment is dropped) and run in bash, block by block (a block's variables carry over to its
next commands), in a checkout-like directory: build/release/gpubench is this build and is
first on PATH (as the README's `export PATH="$PWD/build/release:$PATH"` puts it), scripts/,
tests/data/ and docs/ are the repository's, and configs/ holds the repository's suites, except
that the suites whose CPU half takes minutes on two cores (ci, sweep, spmv-zoo, performance)
are small CPU suites of the same name with the same kind of cases; each real one is checked
with `--dry-run`. The directory is a git repository with one commit (the History block tags
runs with its SHA).

Each command has its documented outcome here: RUNNABLE gives the exit codes allowed (0; 2
where the README says the command is refused without a GPU, such as a named GPU backend or a
suite with only GPU groups: "nothing to measure"; 0, 1 or 4 for a comparison, whose verdict
a busy machine may move), a fragment its output must hold and the files it must write.
NOT_RUNNABLE lists the commands that cannot run inside a test, each with the reason. A
README command on neither list fails the test, and so does an entry that names no README
command any more."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from gpubench_cli import GPUBENCH, SOURCE_DIR, SKIP

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")

# Commands that cannot run inside a test, with the reason.
NOT_RUNNABLE = {
    "scripts/run.sh": "installs packages and rebuilds Release (the test runs the build it is given)",
    "scripts/test.sh": "installs packages, rebuilds and runs the whole test suite, this test included",
    "gpubench run --device 0,2 --devices-serial ...": "needs GPUs 0 and 2; '...' stands for the case's flags",
    "srun --gpus-per-task=1 gpubench run ... --out 'fleet-{host}-{rank}.json'":
        "needs Slurm and GPU nodes; '...' stands for the case's flags",
    "gpubench merge fleet-*.json --out fleet.json": "merges the reports of the srun step above, which needs Slurm",
    "gpubench report fleet.json --fail-on-outlier 5": "reads the merged fleet report of the srun step",
    "gpubench compare before.json after.json --match-devices uuid": "compares two fleet reports of GPUs, measured before and after",
    "nsys profile --capture-range=cudaProfilerApi --capture-range-end=repeat -t cuda,nvtx -o gpubench-matmul gpubench run "
    "--op matmul --size 4096 --profile": "needs Nsight Systems and a GPU",
    "nsys stats --report nvtx_sum,cuda_gpu_kern_sum gpubench-matmul.nsys-rep": "reads the nsys profile above",
    "ncu --nvtx --nvtx-include 'gpubench@matmul\\/cuda\\/f32\\/4096x4096x4096/measure' --section SpeedOfLight gpubench run "
    "--op matmul --size 4096 --backend cuda --profile": "needs Nsight Compute and a GPU",
    "scripts/compare_peers.py perf.json --agreement warm.json --out peers.json":
        "reads warm.json, the report of configs/agreement.json, whose cases all run on a GPU (cuBLAS, CUB)",
    "scripts/performance_report.py perf.json --peers peers.json --out docs/PERFORMANCE.md":
        "reads peers.json of compare_peers.py above, which needs the GPU agreement report",
}

COMPARISON = (0, 1, 4)  # a verdict: a busy machine may make an A/A pair look slower or leave it inconclusive


def ok(*files, fragment=None):
    return {"codes": (0,), "files": files, "fragment": fragment}


def refused(fragment):
    """Exit 2 without a GPU, as the README says (a named GPU backend; nothing to measure)."""
    return {"codes": (2,), "files": (), "fragment": fragment}


def verdict(*files):
    return {"codes": COMPARISON, "files": files, "fragment": None}


RUNNABLE = {
    "gpubench run --op matmul --size 1024": ok(fragment="matmul/eigen/f32/1024x1024x1024"),
    "gpubench run --op sin,sqrt,sum --size 1M,16M --dtype f32,f64 --backend eigen": ok(fragment="sum/eigen/f64/16777216"),
    "gpubench run --op spmv --rows 1M --nnz-per-row 16 --pattern random": ok(fragment="spmv/eigen/f32/1048576x1048576/16/random"),
    "gpubench run --config configs/spmv-zoo.json": ok(fragment="spmv/eigen/f64"),
    "gpubench run --config configs/spmv-fewrows.json": refused("nothing to measure"),
    "gpubench run --config configs/gemm-zoo.json": refused("nothing to measure"),
    "scripts/gemm_cliffs.py --gpubench build/release/gpubench --count 200 --seed 7": None,  # set below: it depends on numbers
    "gpubench run --op spmv --matrix tests/data/mm_symmetric.mtx": ok(fragment="file:mm_symmetric.mtx"),
    "gpubench run --config configs/ci.json --format json --out results.json": ok("results.json"),
    "gpubench run --op sum --size 1K..16M:x4 --out sweep.json --out sweep.csv": ok("sweep.json", "sweep.csv"),
    "gpubench run --op matmul --shape 1000x333x77 --dtype f64": ok(fragment="matmul/eigen/f64/1000x333x77"),
    "gpubench run --op sum --size 1K..256M:x4 --dry-run": ok(fragment="sum/eigen/f32/268435456"),
    "gpubench list": ok(fragment="matmul"),
    "gpubench list --format json": ok(fragment='"ops"'),
    "gpubench info": ok(fragment="CPU"),
    "gpubench --version": ok(fragment="gpubench"),
    "source <(gpubench completion bash)": ok(),
    "gpubench run --op matmul --size 4096 --backend cublas --dtype f64 --soak 30": refused("cublas"),
    "gpubench run --op sum --size 1M --l2 warm": None,  # set below
    "gpubench run --config configs/ci.json --out baseline.json": ok("baseline.json"),
    "gpubench run --config configs/ci.json --out current.json": ok("current.json"),
    "gpubench compare baseline.json current.json": verdict(),
    'gpubench compare baseline.json current.json --format markdown >> "$GITHUB_STEP_SUMMARY"': verdict(),
    "gpubench run --config configs/ci.json --baseline baseline.json": verdict(),
    "gpubench run --device all --op sum,sin --size 256M --backend cuda": refused("cuda"),
    "SHA=$(git rev-parse --short=12 HEAD)": ok(),
    "gpubench run --config configs/ci.json --db gpubench.db --tag commit=$SHA --tag branch=main": ok("gpubench.db"),
    "gpubench history list --tag branch=main": ok(fragment="branch=main"),
    "gpubench history show --case sum/eigen/f32/4194304 --html trend.html": ok("trend.html"),
    "gpubench history check": ok(),
    'gpubench compare "db:gpubench.db?branch=main&last=10" current.json': verdict(),
    "gpubench history export --format csv --out history.csv": ok("history.csv"),
    "gpubench run --config configs/performance.json --out perf.json": ok("perf.json"),
    "gpubench run --config configs/agreement.json --out warm.json": refused("nothing to measure"),
    "gpubench run --op sin,sum,matmul,spmv --size 1K..1M:x4 --timing e2e --out sweep.json": ok("sweep.json"),
    "gpubench run --config configs/sweep.json --out sweep.json": ok("sweep.json"),
    "gpubench report sweep.json": ok(fragment="CPU versus GPU"),
    "gpubench report sweep.json --html sweep.html": ok("sweep.html"),
    "gpubench report sweep.json --relative-to eigen": ok(fragment="vs eigen"),
    "scripts/screenshot_report.sh sweep.html sweep.png": ok("sweep.png") if BROWSER else
        {"codes": (1,), "files": (), "fragment": "no chromium"},
}
# gemm_cliffs.py runs the GPU backends (cuda, cublas by default): without them gpubench
# refuses the named backend and the script exits 2 saying so.
RUNNABLE["scripts/gemm_cliffs.py --gpubench build/release/gpubench --count 200 --seed 7"] = {
    "codes": (2,), "files": (), "fragment": "backend 'cuda' is unavailable"}
# --l2 warm measures the CPU case batched, as every CPU case is: it runs.
RUNNABLE["gpubench run --op sum --size 1M --l2 warm"] = ok(fragment="sum/eigen/f32/1048576")

# Small CPU suites in place of those whose CPU half takes minutes on two cores. Their cases
# keep the real suites' kind (ci: the CPU groups' case ids, which the History block names).
FAST = {"warmup": 1, "min_samples": 5, "max_samples": 20, "min_time": 0, "max_time": 0.2, "seed": 42, "threads": 1}
SMALL_SUITES = {
    "ci": {"name": "ci", "settings": dict(FAST, repetitions=2), "thresholds": {"*": 0.5},
           "groups": [{"ops": ["sin", "sum"], "dtypes": ["f32"], "sizes": ["4M"], "backends": ["eigen"]},
                      {"ops": ["matmul"], "dtypes": ["f32"], "sizes": [128], "backends": ["eigen", "openblas"]},
                      {"ops": ["spmv"], "dtypes": ["f32"], "rows": ["16K"], "nnz_per_row": 16, "pattern": "random",
                       "backends": ["eigen"]},
                      {"ops": ["sum"], "dtypes": ["f32"], "sizes": ["64M"], "backends": ["cuda", "cub"]}]},
    "sweep": {"name": "sweep", "settings": FAST,
              "groups": [{"ops": ["sin", "sum"], "dtypes": ["f32", "f64"], "sizes": ["1K..1M:x4"], "backends": ["eigen"]},
                         {"ops": ["matmul"], "dtypes": ["f32"], "sizes": ["32..256:x2"], "backends": ["eigen", "openblas"]},
                         {"ops": ["sum"], "dtypes": ["f32"], "sizes": ["1K..1M:x4"], "backends": ["cuda", "cub"]}]},
    "spmv-zoo": {"name": "spmv-zoo", "settings": FAST,
                 "groups": [{"ops": ["spmv"], "dtypes": ["f32", "f64"], "rows": ["4K"],
                             "pattern": ["random", "powerlaw", "wide", "dense"], "backends": ["eigen"]},
                            {"ops": ["spmv"], "dtypes": ["f32"], "rows": ["1M"], "pattern": ["random"],
                             "backends": ["cuda", "cusparse"]}]},
    "performance": {"name": "performance", "settings": FAST,
                    "groups": [{"ops": ["sin"], "dtypes": ["f64"], "sizes": ["1M"], "backends": ["eigen"]},
                               {"ops": ["matmul"], "dtypes": ["f32", "f64"], "sizes": [256], "backends": ["eigen", "openblas"]},
                               {"ops": ["matmul"], "dtypes": ["f32"], "sizes": [4096], "backends": ["cuda", "cublas"]}]},
}

SHELL_BLOCK = re.compile(r"```(?:sh|bash)\n(.*?)```", re.S)


def strip_comment(line):
    """The line without a trailing # comment (a # outside quotes, at the start or after a blank)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def readme_blocks():
    """Per ```sh block of README.md, its commands: continuation lines joined, comments dropped,
    blanks collapsed to one."""
    with open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    blocks = []
    for block in SHELL_BLOCK.findall(text):
        commands, pending = [], ""
        for line in block.splitlines():
            line = strip_comment(line).rstrip()
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            command = " ".join((pending + line).split())
            pending = ""
            if command:
                commands.append(command)
        blocks.append(commands)
    return blocks


class ReadmeWalk(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        build = os.path.join(cls.dir, "build", "release")
        os.makedirs(build)
        os.symlink(GPUBENCH, os.path.join(build, "gpubench"))
        for name in ("scripts", "docs"):
            os.symlink(os.path.join(SOURCE_DIR, name), os.path.join(cls.dir, name))
        os.makedirs(os.path.join(cls.dir, "tests"))
        os.symlink(os.path.join(SOURCE_DIR, "tests", "data"), os.path.join(cls.dir, "tests", "data"))
        shutil.copytree(os.path.join(SOURCE_DIR, "configs"), os.path.join(cls.dir, "configs"))
        for name, suite in SMALL_SUITES.items():
            with open(os.path.join(cls.dir, "configs", name + ".json"), "w", encoding="utf-8") as handle:
                json.dump(suite, handle)
        git = ["git", "-c", "user.name=readme", "-c", "user.email=readme@example.invalid"]
        for command in (["init", "-q"], ["add", "configs"], ["commit", "-q", "-m", "a checkout"]):
            subprocess.run(git + command, cwd=cls.dir, check=True, capture_output=True)
        cls.summary = os.path.join(cls.dir, "step-summary.md")
        cls.env = {name: value for name, value in os.environ.items() if not name.startswith("GPUBENCH_TEST_")}
        cls.env.update(PATH=build + os.pathsep + os.environ["PATH"], GITHUB_STEP_SUMMARY=cls.summary, NO_COLOR="1")
        cls.env.pop("GPUBENCH_HOST", None)
        # The walk is a machine without a GPU's: on one that has some, the CUDA runtime is shown none.
        cls.env["CUDA_VISIBLE_DEVICES"] = ""

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_command_is_runnable_or_listed(self):
        commands = [command for block in readme_blocks() for command in block]
        self.assertGreater(len(commands), 30)
        unknown = [command for command in commands if command not in RUNNABLE and command not in NOT_RUNNABLE]
        self.assertEqual(unknown, [], "README commands that this test neither runs nor lists as not runnable (with why)")
        stale = [command for command in list(RUNNABLE) + list(NOT_RUNNABLE) if command not in commands]
        self.assertEqual(stale, [], "entries that name no README command")
        self.assertEqual(set(RUNNABLE) & set(NOT_RUNNABLE), set())
        for command, reason in NOT_RUNNABLE.items():
            self.assertTrue(reason.strip(), command)

    def test_the_small_suites_stand_for_real_ones(self):
        """Each replaced suite still exists in configs/ and plans without error, as written."""
        for name in SMALL_SUITES:
            real = os.path.join(SOURCE_DIR, "configs", name + ".json")
            process = subprocess.run([GPUBENCH, "run", "--config", real, "--dry-run"], capture_output=True, text=True,
                                     env=self.env, cwd=self.dir, timeout=120, stdin=subprocess.DEVNULL)
            # Without a GPU a suite with CPU groups plans its CPU half (exit 0).
            self.assertEqual(process.returncode, 0, f"{name}: {process.stderr}")

    def test_commands_run_as_written(self):
        walk = os.path.join(self.dir, ".walk")
        os.makedirs(walk)
        results = []
        for block_index, block in enumerate(readme_blocks()):
            script = ["set +e"]
            ran = []
            for command in block:
                if command in NOT_RUNNABLE or command not in RUNNABLE:
                    continue
                index = len(results) + len(ran)
                stem = os.path.join(walk, str(index))
                # Braces, not a subshell: an assignment (SHA=...) or `source` holds for the block's next commands.
                script.append(f"{{\n{command}\n}} >{stem}.out 2>{stem}.err </dev/null\necho $? >{stem}.rc")
                ran.append((index, command))
            if not ran:
                continue
            process = subprocess.run(["bash", "-c", "\n".join(script)], cwd=self.dir, env=self.env, capture_output=True,
                                     text=True, timeout=900)
            self.assertEqual(process.returncode, 0, f"block {block_index}: {process.stderr}")
            for index, command in ran:
                stem = os.path.join(walk, str(index))
                with open(stem + ".rc", encoding="utf-8") as handle:
                    code = int(handle.read())
                with open(stem + ".out", encoding="utf-8", errors="replace") as handle:
                    out = handle.read()
                with open(stem + ".err", encoding="utf-8", errors="replace") as handle:
                    err = handle.read()
                results.append((command, code, out, err))

        self.assertGreater(len(results), 30)
        for command, code, out, err in results:
            expected = RUNNABLE[command]
            with self.subTest(command=command):
                self.assertIn(code, expected["codes"], f"exit {code}\nstdout:\n{out[-3000:]}\nstderr:\n{err[-3000:]}")
                if expected["fragment"]:
                    self.assertIn(expected["fragment"], out + err)
                if expected["codes"] == (2,) and command.startswith("gpubench "):
                    lines = [line for line in err.splitlines() if line.strip()]
                    self.assertEqual(len(lines), 1, f"one line saying why:\n{err}")
                for name in expected["files"]:
                    path = os.path.join(self.dir, name)
                    self.assertTrue(os.path.isfile(path) and os.path.getsize(path) > 0, f"{name} not written")
        # The Markdown comparison went to the step summary.
        with open(self.summary, encoding="utf-8") as handle:
            self.assertIn("|", handle.read())


if __name__ == "__main__":
    import sys

    if not GPUBENCH:
        print("GPUBENCH not set: run through ctest", file=sys.stderr)
        sys.exit(SKIP)
    unittest.main()
