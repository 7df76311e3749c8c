"""NVTX ranges are emitted with the documented names and nesting, checked without a GPU or a
profiler: a recorder library is injected through NVTX_INJECTION64_PATH."""
import os
import sys

from gpubench_cli import FAST, SKIP, CliTestCase, gpubench, main

RECORDER = os.environ.get("GPUBENCH_NVTX_RECORDER", "")
if not RECORDER:
    print("built without the nvtx3 headers: NVTX ranges compile away, nothing to check", file=sys.stderr)
    sys.exit(SKIP)


def parse_ranges(lines):
    """Turns push/pop lines into (depth, domain, name) tuples, checking balance."""
    stack, ranges = [], []
    for line in lines:
        kind, rest = line.split(" ", 1)
        if kind == "push":
            domain, name = rest.split("|", 1)
            ranges.append((len(stack), domain, name))
            stack.append(domain)
        else:
            assert stack and stack[-1] == rest, f"pop of {rest} does not match {stack}"
            stack.pop()
    assert not stack, f"unclosed ranges: {stack}"
    return ranges


class NvtxTests(CliTestCase):
    def record(self, *args):
        log = os.path.join(self.dir, "nvtx.log")
        process = gpubench("run", *args, *FAST, env={"NVTX_INJECTION64_PATH": RECORDER, "GPUBENCH_NVTX_LOG": log})
        self.assertOk(process)
        with open(log, encoding="utf-8") as handle:
            return parse_ranges([line.rstrip("\n") for line in handle if line.strip()])

    def test_case_and_phase_ranges(self):
        ranges = self.record("--op", "sin,matmul", "--size", "64", "--backend", "eigen")
        self.assertTrue(all(domain == "gpubench" for _, domain, _ in ranges), ranges)
        cases = [name for depth, _, name in ranges if depth == 0]
        self.assertEqual(cases, ["sin/eigen/f32/64", "matmul/eigen/f32/64x64x64"])
        phases = [name for depth, _, name in ranges if depth == 1]
        # CPU cases: no host_cost range (their call is the op).
        self.assertEqual(phases, ["prepare", "first_call", "warmup", "measure", "verify"] * 2)

    def test_e2e_case_name(self):
        ranges = self.record("--op", "sum", "--size", "1K", "--backend", "eigen", "--timing", "e2e")
        self.assertEqual(ranges[0], (0, "gpubench", "sum/eigen/f32/1024/e2e"))

    def test_profile_mode_runs_a_handful_of_samples(self):
        ranges = self.record("--op", "sqrt", "--size", "1K", "--backend", "eigen", "--profile")
        self.assertEqual([name for depth, _, name in ranges if depth == 1],
                         ["prepare", "first_call", "warmup", "measure", "verify"])


if __name__ == "__main__":
    main()
