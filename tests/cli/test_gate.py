"""The CI gate through the CLI: inconclusive comparisons and their exit code, run --baseline
--resolve and gpubench ab settling them round by round, run --case, the CPU interference
telemetry and the OpenMP wait policy in the report, and the usage errors of the new flags.

The sequential tests plant a 20x slowdown (GPUBENCH_TEST_SLOWDOWN=20) and take few samples a
round, so that the outcome follows from counting, not from timing: with 3 samples a side no
rank test can reach p below 0.1, so the first comparison is inconclusive for certain; pooled
rounds then give the exact test the samples it needs (2 / C(2n, n) for n samples a side,
fully separated), which a 20x change keeps separated on any host: a 5x one did not with a load
average of 13 on 2 cores, where single samples of the baseline stretched by more than 5x."""
import fnmatch
import json
import os
import random
import re

from gpubench_cli import CliTestCase, gpubench, main, write_file

CASE = ["--op", "sin", "--size", "1M", "--dtype", "f64", "--backend", "eigen", "--threads", "1"]
CASE_ID = "sin/eigen/f64/1048576"
SLOWDOWN = "20"


def samples(count):
    return ["--warmup", "1", "--min-samples", str(count), "--max-samples", str(count), "--min-time", "0", "--max-time", "60"]


class GateTests(CliTestCase):
    def run_case(self, name, count, slowdown=None, *extra):
        out = os.path.join(self.dir, name)
        env = {"GPUBENCH_TEST_SLOWDOWN": slowdown or ""}
        process = gpubench("run", *CASE, *samples(count), "--out", out, "--quiet", *extra, env=env)
        self.assertOk(process)
        with open(out, encoding="utf-8") as handle:
            return out, json.load(handle)

    def scaled_copy(self, report, name, factor):
        """The report with every sample multiplied by factor."""
        copy = json.loads(json.dumps(report))
        for result in copy["results"]:
            result["samples_s"] = [sample * factor for sample in result["samples_s"]]
            if "sample_waits_s" in result:  # a CPU case's waits scale with its samples
                result["sample_waits_s"] = [wait * factor for wait in result["sample_waits_s"]]
        return write_file(self.dir, name, json.dumps(copy))

    def test_an_unsettled_change_is_inconclusive_with_its_own_exit_code(self):
        path, report = self.run_case("three.json", 3)
        slower = self.scaled_copy(report, "slower.json", 1.5)
        process = gpubench("compare", path, slower, "--format", "json")
        self.assertEqual(process.returncode, 4, process.stdout + process.stderr)
        comparison = json.loads(process.stdout)
        self.assertEqual(comparison["exit_code"], 4)
        self.assertEqual(comparison["summary"]["inconclusive"], 1)
        self.assertEqual(comparison["p_adjust"], "bh")
        case = comparison["cases"][0]
        self.assertEqual(case["verdict"], "inconclusive")
        self.assertIn("--resolve", case["next_step"])
        self.assertIn("gpubench ab", comparison["next_step"])
        console = gpubench("compare", path, slower)
        self.assertEqual(console.returncode, 4)
        self.assertIn("INCONCLUSIVE (exit 4)", console.stdout)
        self.assertIn("Next: 1 case moved beyond the threshold", console.stdout)
        markdown = gpubench("compare", path, slower, "--format", "markdown")
        self.assertIn("> **Next:**", markdown.stdout)
        self.assertOk(gpubench("compare", path, slower, "--inconclusive", "pass"))

    def test_run_resolve_settles_a_slowdown_against_a_baseline_file(self):
        baseline, _ = self.run_case("baseline.json", 12)
        out = os.path.join(self.dir, "current.json")
        process = gpubench("run", *CASE, *samples(3), "--baseline", baseline, "--alpha", "0.01", "--resolve", "4",
                           "--out", out, env={"GPUBENCH_TEST_SLOWDOWN": SLOWDOWN})
        self.assertEqual(process.returncode, 1, process.stdout + process.stderr)
        self.assertIn("gpubench: resolve round 1: 1 case re-measured", process.stderr)
        self.assertRegex(process.stdout, r"alpha 0\.01 spent over 5 looks \(Hwang-Shih-DeCani, gamma -4\): \S+ at look [2-5]")
        self.assertRegex(process.stdout, r"sin/eigen/f64/1048576 .* slower .*after \d rounds? of re-measurement")
        with open(out, encoding="utf-8") as handle:
            record = json.load(handle)["results"][0]
        rounds = record["settings"]["resolve_rounds"]
        self.assertGreaterEqual(rounds, 1)
        self.assertEqual(len(record["samples_s"]), 3 * (1 + rounds))
        self.assertEqual(record["statistics"]["count"], len(record["samples_s"]))

    def test_ab_settles_a_slowdown_round_by_round(self):
        keep = os.path.join(self.dir, "kept")
        os.mkdir(keep)
        command = " ".join(["gpubench_placeholder", "run", *CASE, *samples(3)])
        a = command.replace("gpubench_placeholder", os.environ["GPUBENCH"])
        b = f"GPUBENCH_TEST_SLOWDOWN={SLOWDOWN} " + a
        process = gpubench("ab", "--a", a, "--b", b, "--alpha", "0.01", "--rounds", "5", "--keep", keep,
                           "--format", "json")
        self.assertEqual(process.returncode, 1, process.stdout + process.stderr)
        # 3 + 3 samples cannot decide (p >= 0.1), nor 6 + 6 (p >= 0.0022 > 0.01 / 5); 9 + 9 can.
        self.assertIn("gpubench ab: round 0: 1 case measured on A and B", process.stderr)
        self.assertIn("gpubench ab: round 2: 1 case measured on A and B", process.stderr)
        case = json.loads(process.stdout)["cases"][0]
        self.assertEqual((case["id"], case["verdict"], case["rounds"]), (CASE_ID, "slower", 2))
        for side in ("a.json", "b.json"):
            with open(os.path.join(keep, side), encoding="utf-8") as handle:
                record = json.load(handle)["results"][0]
            self.assertEqual(len(record["samples_s"]), 9, side)
            self.assertEqual(record["settings"]["resolve_rounds"], 2, side)

    def test_ab_of_a_command_with_itself_never_fails_the_gate(self):
        command = " ".join([os.environ["GPUBENCH"], "run", *CASE, *samples(5)])
        process = gpubench("ab", "--a", command, "--b", command, "--rounds", "3")
        self.assertIn(process.returncode, (0, 4), process.stdout + process.stderr)

    def test_ab_time_counts_from_the_first_round(self):
        # Round 0 alone outlasts a millisecond: no round after it starts, whatever the rounds allowed.
        command = " ".join([os.environ["GPUBENCH"], "run", *CASE, *samples(5)])
        process = gpubench("ab", "--a", command, "--b", command, "--rounds", "5", "--time", "0.001")
        self.assertIn(process.returncode, (0, 4), process.stdout + process.stderr)
        self.assertIn("gpubench ab: round 0:", process.stderr)
        self.assertNotIn("gpubench ab: round 1:", process.stderr)

    def test_ab_refuses_commands_that_fail_or_write_no_report(self):
        self.assertUsageError(gpubench("ab", "--a", "true", "--b", "true"), "the A command wrote no report")
        process = gpubench("ab", "--a", "exit 7", "--b", "true")
        self.assertUsageError(process, "the A command ended with exit 7")
        bad = os.environ["GPUBENCH"] + " run --op nosuch"
        self.assertUsageError(gpubench("ab", "--a", bad, "--b", bad), "the A command ended with exit 2", "nosuch")
        self.assertUsageError(gpubench("ab", "--a", "true", "--b", "true", "--keep", os.path.join(self.dir, "none")),
                              "--keep")
        # An empty command line is refused before either side runs.
        self.assertUsageError(gpubench("ab", "--a", "", "--b", "true"), "--a is empty", "gpubench run command line")
        self.assertUsageError(gpubench("ab", "--a", "exit 7", "--b", " \t"), "--b is empty")
        # A format the comparison cannot be rendered in is refused before either side runs.
        self.assertUsageError(gpubench("ab", "--a", "exit 7", "--b", "true", "--format", "csv"), "report format 'csv'",
                              "console, json, markdown")

    def test_run_case_picks_cases_by_id(self):
        out = os.path.join(self.dir, "picked.json")
        process = gpubench("run", "--op", "sin,sqrt", "--size", "1K", "--backend", "eigen", *samples(3),
                           "--case", "sqrt/eigen/f32/1024", "--out", out, "--quiet")
        self.assertOk(process)
        with open(out, encoding="utf-8") as handle:
            self.assertEqual([r["id"] for r in json.load(handle)["results"]], ["sqrt/eigen/f32/1024"])
        self.assertUsageError(gpubench("run", "--op", "sin", "--size", "1K", "--backend", "eigen", "--case", "sin/eigen/f32/2048"),
                              "--case sin/eigen/f32/2048 is not a case of this run")
        self.assertUsageError(gpubench("run", "--op", "sin", "--size", "1K", "--backend", "eigen", "--case", "sin/eigen/f32/1000"),
                              "did you mean sin/eigen/f32/1024?")

    def test_run_case_patterns_pick_what_fnmatch_picks(self):
        # Seeded random patterns over a plan's ids: the plan keeps what fnmatch matches ('*' crosses
        # '/'), a pattern that matches nothing is refused, and an exact id is never a pattern.
        base = ["run", "--op", "sin,sqrt,sum", "--size", "1K,2K,4K", "--dtype", "f32,f64", "--backend", "eigen", "--dry-run"]
        plan = re.compile(r"(?m)^  (\S+) \(cpu\)$")
        ids = plan.findall(gpubench(*base).stdout)
        self.assertEqual(len(ids), 18)
        generator = random.Random(20261208)
        for _ in range(25):
            parts = generator.choice(ids).split("/")
            for i in range(len(parts)):
                roll = generator.random()
                if roll < 0.35:
                    parts[i] = "*"
                elif roll < 0.5:
                    parts[i] = parts[i][:-1] + "?"
                elif roll < 0.6:
                    parts[i] = parts[i][0] + "*"
            pattern = "/".join(parts) if generator.random() < 0.8 else parts[0] + "*"
            with self.subTest(pattern=pattern):
                expected = [i for i in ids if fnmatch.fnmatchcase(i, pattern)]
                process = gpubench(*base, "--case", pattern)
                if expected:
                    self.assertOk(process)
                    self.assertEqual(plan.findall(process.stdout), expected)
                else:
                    self.assertUsageError(process, "--case " + pattern + " matches no case of this run")
        self.assertUsageError(gpubench(*base, "--case", "cos/*"), "--case cos/* matches no case of this run")
        # A pattern and an id together: their union, each case once.
        process = gpubench(*base, "--case", "sin/*/f64/*,sin/eigen/f64/1024,sum/eigen/f32/4096")
        self.assertEqual(plan.findall(process.stdout), ["sin/eigen/f64/1024", "sin/eigen/f64/2048", "sin/eigen/f64/4096",
                                                        "sum/eigen/f32/4096"])

    def test_the_comparison_flags_need_a_baseline_and_their_words(self):
        run = ["run", "--op", "sum", "--size", "1K", "--backend", "eigen"]
        for flag, value in (("--resolve", "2"), ("--alpha", "0.01"), ("--p-adjust", "holm"), ("--inconclusive", "pass")):
            self.assertUsageError(gpubench(*run, flag, value), flag, "applies to --baseline")
        baseline, _ = self.run_case("b.json", 3)
        self.assertUsageError(gpubench(*run, "--baseline", baseline, "--resolve-time", "5"), "--resolve-time", "--resolve")
        self.assertUsageError(gpubench(*run, "--baseline", baseline, "--resolve", "0"), "--resolve")
        self.assertUsageError(gpubench("compare", baseline, baseline, "--p-adjust", "fdr"), "--p-adjust 'fdr'",
                              "did you mean bh?")
        self.assertUsageError(gpubench("compare", baseline, baseline, "--p-adjust", "Bonferroni"), "did you mean holm?")
        process = gpubench("compare", baseline, baseline, "--p-adjust", "sidak")
        self.assertUsageError(process, "--p-adjust 'sidak': expected bh")
        self.assertNotIn("did you mean", process.stderr)
        self.assertUsageError(gpubench("compare", baseline, baseline, "--inconclusive", "ignore"), "--inconclusive 'ignore'")

    def test_cpu_cases_carry_interference_telemetry_and_the_wait_policy(self):
        _, report = self.run_case("t.json", 5)
        self.assertEqual(report["context"]["settings"]["omp_wait_policy"], "passive")
        telemetry = report["results"][0]["cpu_telemetry"]
        self.assertEqual(telemetry["cores"], report["context"]["cpu_cores"])
        self.assertGreaterEqual(telemetry["threads_obtained"], 1)
        self.assertGreater(telemetry["cpu_s"], 0)
        self.assertLessEqual(telemetry["oversubscribed_samples"], 5)
        self.assertIsNotNone(telemetry["load_average"])
        out = os.path.join(self.dir, "active.json")
        self.assertOk(gpubench("run", *CASE, *samples(3), "--out", out, "--quiet", env={"OMP_WAIT_POLICY": "active"}))
        with open(out, encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["context"]["settings"]["omp_wait_policy"], "active")
        console = gpubench("run", *CASE, *samples(3))
        self.assertIn("CPU interference while measuring:", console.stdout)


if __name__ == "__main__":
    main()
