"""What a run says and does where no GPU can run (a build without CUDA, a machine without an
NVIDIA driver or device): the missing piece is named once, a gate that must measure GPUs
refuses to become a CPU gate (--require-gpu), GPU-only flags are refused rather than ignored,
and a run that would measure nothing has one rule (exit 2). Skipped where a GPU is present."""
import json
import os
import re
import unittest

from gpubench_cli import FAST, CliTestCase, gpubench, main, write_file

# A suite shaped like configs/ci.json, small enough for a test: GPU groups naming every GPU
# backend, and a CPU group.
SUITE = {
    "settings": {"warmup": 1, "min_samples": 3, "max_samples": 10, "min_time": 0, "max_time": 0.1},
    "groups": [
        {"ops": ["sin", "sum"], "dtypes": ["f32"], "sizes": ["1M"], "backends": ["cuda", "cub"]},
        {"ops": ["matmul"], "dtypes": ["f32"], "sizes": [256], "backends": ["cuda", "cublas"]},
        {"ops": ["spmv"], "dtypes": ["f32"], "rows": ["64K"], "backends": ["cuda", "cusparse"]},
        {"ops": ["sum"], "dtypes": ["f32"], "sizes": ["4K"], "backends": ["eigen"]},
    ],
}


def gpu_context():
    process = gpubench("info", "--format", "json")
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)["context"]


class WithoutGpu(CliTestCase):
    @classmethod
    def setUpClass(cls):
        context = gpu_context()
        if context["gpus"]:
            raise unittest.SkipTest("a GPU is present: these tests are about machines without one")
        reasons = [note[len("GPU backends unavailable: "):] for note in context["notes"]
                   if note.startswith("GPU backends unavailable: ")]
        assert len(reasons) == 1, context["notes"]
        cls.reason = reasons[0]

    def suite(self, **changes):
        suite = dict(SUITE, **changes)
        return write_file(self.dir, "suite.json", json.dumps(suite))

    def test_the_reason_names_what_is_missing(self):
        self.assertNotIn("insufficient", self.reason)
        self.assertTrue(self.reason == "built without the CUDA toolkit" or self.reason.startswith(
            ("no NVIDIA driver", "no CUDA device", "the NVIDIA driver is too old")), self.reason)
        if self.reason.startswith("no NVIDIA driver"):
            self.assertFalse(any(name.startswith("nvidia") for name in os.listdir("/dev")))

    def test_said_once_on_stderr_in_the_report_and_the_page(self):
        out = os.path.join(self.dir, "r.json")
        process = gpubench("run", "--config", self.suite(), "--out", out, "--quiet")
        self.assertOk(process)
        self.assertEqual(process.stderr.count(self.reason), 1, process.stderr)
        self.assertNotIn("backend cuda skipped", process.stderr)
        with open(out, encoding="utf-8") as handle:
            notes = json.load(handle)["context"]["notes"]
        self.assertEqual(sum(self.reason in note for note in notes), 1, notes)
        html = os.path.join(self.dir, "r.html")
        self.assertOk(gpubench("report", out, "--html", html))
        with open(html, encoding="utf-8") as handle:
            self.assertEqual(handle.read().count(self.reason), 1)

    def test_require_gpu_refuses_before_measuring(self):
        out = os.path.join(self.dir, "never.json")
        for args in (["--config", self.suite(), "--require-gpu"],
                     ["--config", self.suite(settings=dict(SUITE["settings"], require_gpu=True))],
                     ["--op", "sum", "--size", "4K", "--backend", "eigen", *FAST, "--require-gpu"]):
            with self.subTest(args=args):
                self.assertUsageError(gpubench("run", *args, "--out", out), "--require-gpu", self.reason)
                self.assertFalse(os.path.exists(out))
        # Where the GPU is not required, the same suite measures its CPU cases.
        self.assertOk(gpubench("run", "--config", self.suite(), "--out", out, "--quiet"))

    def test_gpu_flags_are_refused_not_ignored(self):
        small = ["--op", "sum", "--size", "4K", *FAST]
        for flags in (["--device", "1"], ["--device", "0,2", "--devices-serial"], ["--device", "all"],
                      ["--devices-serial"]):
            for backends in ([], ["--backend", "eigen"]):
                with self.subTest(flags=flags, backends=backends):
                    self.assertUsageError(gpubench("run", *small, *backends, *flags), flags[0], self.reason)
        self.assertUsageError(gpubench("run", "--config", self.suite(), "--device", "1"), "--device 1", self.reason)

    def test_nothing_measured_is_one_rule(self):
        command_line = gpubench("run", "--op", "sin", "--backend", "openblas", *FAST)
        self.assertUsageError(command_line, "nothing to measure", "openblas provides no sin")
        suite = self.suite(groups=[{"ops": ["sin"], "dtypes": ["f32"], "sizes": ["4K"], "backends": ["openblas"]}])
        self.assertUsageError(gpubench("run", "--config", suite), "nothing to measure", "openblas provides no sin")
        gpu_only = self.suite(groups=SUITE["groups"][:3])
        self.assertUsageError(gpubench("run", "--config", gpu_only), "nothing to measure")
        # One supported case is enough: the unsupported ones are skipped rows, as before.
        self.assertOk(gpubench("run", "--op", "sin,matmul", "--size", "64", "--backend", "openblas", *FAST))


class HelpNamesTheFlag(CliTestCase):
    def test_require_gpu_in_help(self):
        process = gpubench("run", "--help")
        self.assertOk(process)
        self.assertTrue(re.search(r"--require-gpu", process.stdout), process.stdout)


if __name__ == "__main__":
    main()
