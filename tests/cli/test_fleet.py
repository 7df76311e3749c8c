"""Many ranks without MPI: Slurm-style variables choose the GPU and expand --out paths,
`gpubench merge` joins the ranks' reports (and refuses mixed ones), `gpubench report` shows
the fleet view and gates on outliers, `compare` pairs two fleets rank by rank."""
import copy
import json
import os

from gpubench_cli import FAST, CliTestCase, gpubench, main

# These tests place CPU cases and name GPUs by ordinal: they see no GPU, so that they hold
# alike on every machine (tests/gpu/ runs cases on every GPU of a machine that has them).
os.environ["CUDA_VISIBLE_DEVICES"] = ""

SUITE = ["--op", "sum,sqrt", "--size", "4K", "--backend", "eigen", "--threads", "1", *FAST]


def slurm(rank, local_rank, host, tasks=2):
    return {"SLURM_PROCID": str(rank), "SLURM_LOCALID": str(local_rank), "SLURM_NTASKS": str(tasks),
            "SLURM_NODEID": str(rank), "SLURMD_NODENAME": host}


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def save(path, report):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(report, handle)
    return path


def steady(result, median):
    """Replaces a record's measurement with 30 samples within 0.2 % of `median`: the verdicts
    of these tests must not depend on how busy the machine running them is."""
    offsets = [-0.002, -0.001, 0.0, 0.001, 0.002] * 6
    result["samples_s"] = [median * (1 + offset) for offset in offsets]
    result.pop("sample_waits_s", None)  # the measured waits pair with the measured samples only
    result.pop("cpu_telemetry", None)  # and the measured load with them
    result["statistics"].update({"count": 30, "min": median * 0.998, "max": median * 1.002, "mean": median, "median": median,
                                 "p5": median * 0.998, "p95": median * 1.002, "q1": median * 0.999, "q3": median * 1.001,
                                 "median_ci_low": median * 0.999, "median_ci_high": median * 1.001})


def steady_fleet(report, slow_rank=None, factor=1.0, op=None):
    """Every record steady at 1 ms, those of slow_rank (and op, when given) `factor` slower."""
    for result in report["results"]:
        slow = result["rank"] == slow_rank and op in (None, result["op"])
        steady(result, 1e-3 * (factor if slow else 1.0))
    return report


class FleetTests(CliTestCase):
    def rank_reports(self, *extra, ranks=(("node-a", 0), ("node-b", 1))):
        """Runs the suite once per (host, rank) as Slurm would start it; returns the report paths."""
        paths = []
        tasks = max(rank for _, rank in ranks) + 1
        for host, rank in ranks:
            process = gpubench("run", *SUITE, *extra, "--quiet", "--out", os.path.join(self.dir, "fleet-{host}-{rank}.json"),
                               env=slurm(rank, 0, host, tasks=tasks))
            self.assertOk(process)
            paths.append(os.path.join(self.dir, f"fleet-{host}-{rank}.json"))
            self.assertTrue(os.path.exists(paths[-1]), os.listdir(self.dir))
        return paths

    def merged(self, paths, name="fleet.json"):
        out = os.path.join(self.dir, name)
        process = gpubench("merge", *paths, "--out", out)
        self.assertOk(process)
        self.assertIn(f"merged {len(paths)} reports", process.stdout)
        return out

    def test_host_names_from_the_environment_stay_one_file_name(self):
        inner = os.path.join(self.dir, "reports")
        os.mkdir(inner)
        os.mkdir(os.path.join(self.dir, "outside"))
        for env in ({"GPUBENCH_HOST": "../outside/escaped"}, slurm(0, 0, "../escaped", tasks=1), {"GPUBENCH_HOST": ".."}):
            with self.subTest(env=env):
                process = gpubench("run", *SUITE, "--quiet", "--out", os.path.join(inner, "{host}.json"), env=env)
                self.assertUsageError(process, "{host}", "not a single file name")
                self.assertEqual(os.listdir(inner), [])
                self.assertEqual(os.listdir(os.path.join(self.dir, "outside")), [], "a report was written outside")
                self.assertEqual(sorted(os.listdir(self.dir)), ["outside", "reports"], "a report was written outside")

    def test_world_size_zero_is_refused(self):
        process = gpubench("run", *SUITE, "--quiet", env={"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "0"})
        self.assertUsageError(process, "WORLD_SIZE=0")

    def test_slurm_variables_choose_the_gpu_and_expand_out_paths(self):
        out = os.path.join(self.dir, "r-{host}-{rank}-gpu{device}.json")
        process = gpubench("run", *SUITE, "--quiet", "--out", out, env=slurm(3, 1, "node-x", tasks=4))
        self.assertOk(process)
        path = os.path.join(self.dir, "r-node-x-3-gpu1.json")
        self.assertEqual(os.listdir(self.dir), ["r-node-x-3-gpu1.json"])
        rank = load(path)["context"]["ranks"]
        self.assertEqual(len(rank), 1)
        self.assertEqual(rank[0]["launcher"], "slurm")
        self.assertEqual((rank[0]["rank"], rank[0]["local_rank"], rank[0]["world_size"]), (3, 1, 4))
        self.assertEqual((rank[0]["host"], rank[0]["node"]), ("node-x", "3"))
        self.assertEqual(rank[0]["devices"], [1], "the local rank's GPU")
        # --device (which wins over the local rank: tests/unit/test_launcher.cpp) applies to GPU
        # cases, and these CPU cases have no GPU to run on: refused, not ignored.
        process = gpubench("run", *SUITE, "--quiet", "--device", "0", "--out", os.path.join(self.dir, "d-{rank}.json"),
                           env=slurm(3, 1, "node-x", tasks=4))
        self.assertUsageError(process, "--device 0")

    def test_ranks_must_not_share_an_out_path(self):
        process = gpubench("run", *SUITE, "--out", os.path.join(self.dir, "fleet-{host}.json"), env=slurm(1, 0, "node-b"))
        self.assertUsageError(process, "{rank}")
        self.assertEqual(os.listdir(self.dir), [])
        process = gpubench("run", *SUITE, "--out", os.path.join(self.dir, "fleet-{hots}-{rank}.json"), env=slurm(1, 0, "node-b"))
        self.assertUsageError(process, "{hots}")
        process = gpubench("run", *SUITE, env={"SLURM_PROCID": "one"})
        self.assertUsageError(process, "SLURM_PROCID")

    def test_started_directly_records_one_rank(self):
        out = os.path.join(self.dir, "plain-{rank}-{device}.json")
        self.assertOk(gpubench("run", *SUITE, "--quiet", "--out", out))
        rank = load(os.path.join(self.dir, "plain-0-0.json"))["context"]["ranks"]
        self.assertEqual(rank[0]["launcher"], "")
        self.assertEqual((rank[0]["rank"], rank[0]["world_size"], rank[0]["devices"]), (0, 1, [0]))

    def test_device_flags_without_gpus_are_refused(self):
        # Several GPUs running CPU cases once: tests/gpu/test_multi_device.cpp, on a machine with GPUs.
        out = os.path.join(self.dir, "r.json")
        for flags in (["--device", "0,1"], ["--device", "all", "--devices-serial"]):
            self.assertUsageError(gpubench("run", *SUITE, "--quiet", *flags, "--out", out), flags[1])
        self.assertFalse(os.path.exists(out))
        for bad in ("0,0", "gpu1", "-1"):
            self.assertUsageError(gpubench("run", *SUITE, "--device", bad), "--device")

    def test_merge_joins_ranks_and_report_shows_the_fleet(self):
        merged = load(self.merged(self.rank_reports()))
        ranks = merged["context"]["ranks"]
        self.assertEqual([(r["rank"], r["host"]) for r in ranks], [(0, "node-a"), (1, "node-b")])
        self.assertEqual(len(merged["results"]), 4)
        self.assertEqual({(r["rank"], r["host"]) for r in merged["results"]}, {(0, "node-a"), (1, "node-b")})
        self.assertIn("fleet", merged)
        self.assertEqual(len(merged["fleet"]["cases"]), 2)
        self.assertEqual([u["label"] for u in merged["fleet"]["units"]], ["node-a CPU", "node-b CPU"])

        process = gpubench("report", os.path.join(self.dir, "fleet.json"))
        self.assertOk(process)
        self.assertIn("Fleet: 2 CPUs on 2 hosts, 2 ranks.", process.stdout)
        self.assertIn("fleet median", process.stdout)
        for fmt, fragment in (("markdown", "**Fleet view.**"), ("json", '"fleet"')):
            process = gpubench("report", os.path.join(self.dir, "fleet.json"), "--format", fmt)
            self.assertOk(process)
            self.assertIn(fragment, process.stdout)
        html = os.path.join(self.dir, "fleet.html")
        self.assertOk(gpubench("report", os.path.join(self.dir, "fleet.json"), "--html", html))
        with open(html, encoding="utf-8") as handle:
            self.assertIn('<section id="fleet">', handle.read())

    def test_fail_on_outlier_gates_on_a_slow_unit(self):
        merged_path = self.merged(self.rank_reports())
        merged = load(merged_path)
        # Rank 1 as a unit 30 % slower would measure it; then a fleet that agrees.
        slowed = steady_fleet(copy.deepcopy(merged), slow_rank=1, factor=1.3)
        process = gpubench("report", save(os.path.join(self.dir, "slow.json"), slowed), "--fail-on-outlier", "5")
        self.assertEqual(process.returncode, 1, process.stdout + process.stderr)
        self.assertIn("outlier: node-b CPU: sum/eigen/f32/4096 ", process.stdout)
        self.assertIn("slower than the fleet median", process.stdout)
        self.assertIn("OUTLIER", process.stdout)
        # 30 % slower is 13 % above the median of two: a 20 % gate lets it pass.
        self.assertOk(gpubench("report", os.path.join(self.dir, "slow.json"), "--fail-on-outlier", "20"))

        even = steady_fleet(copy.deepcopy(merged), slow_rank=1, factor=1.01)
        process = gpubench("report", save(os.path.join(self.dir, "even.json"), even), "--fail-on-outlier", "5")
        self.assertOk(process)
        self.assertIn("no outliers", process.stdout)

        single = os.path.join(self.dir, "fleet-node-a-0.json")
        self.assertUsageError(gpubench("report", single, "--fail-on-outlier", "5"), "fleet view needs several")
        self.assertUsageError(gpubench("report", merged_path, "--fail-on-outlier", "0"), "--fail-on-outlier")

    def test_merge_refuses_mixed_reports(self):
        a, b = self.rank_reports()
        out = os.path.join(self.dir, "fleet.json")
        self.assertUsageError(gpubench("merge", a, "--out", out), "at least two")
        self.assertUsageError(gpubench("merge", a, b, "--out", os.path.join(self.dir, "fleet.csv")), ".json")
        self.assertUsageError(gpubench("merge", a, a, "--out", out), "both hold rank 0 on node-a")

        other_build = load(b)
        other_build["context"]["tool_version"] = "9.9.9"
        self.assertUsageError(gpubench("merge", a, save(os.path.join(self.dir, "v.json"), other_build), "--out", out),
                              "different gpubench builds")

        (seeded,) = self.rank_reports("--seed", "7", ranks=(("node-c", 2),))
        self.assertUsageError(gpubench("merge", a, seeded, "--out", out), "different suites", "setting seed")

        fewer = load(b)
        fewer["results"] = [r for r in fewer["results"] if r["op"] != "sqrt"]
        self.assertUsageError(gpubench("merge", a, save(os.path.join(self.dir, "f.json"), fewer), "--out", out),
                              "different suites", "sqrt/eigen/f32/4096 is only in")
        self.assertUsageError(gpubench("merge", a, os.path.join(self.dir, "missing.json"), "--out", out), "missing.json")
        self.assertFalse(os.path.exists(out))

    def test_compare_pairs_two_fleets_rank_by_rank(self):
        merged = load(self.merged(self.rank_reports(), "merged.json"))
        baseline = save(os.path.join(self.dir, "baseline.json"), steady_fleet(copy.deepcopy(merged)))
        current = steady_fleet(copy.deepcopy(merged), slow_rank=1, factor=1.5, op="sum")
        current_path = save(os.path.join(self.dir, "current.json"), current)
        for match in ("uuid", "ordinal"):
            process = gpubench("compare", baseline, current_path, "--match-devices", match)
            self.assertEqual(process.returncode, 1, process.stdout + process.stderr)
            slower = [line for line in process.stdout.splitlines() if " slower" in line and " CPU" in line]
            self.assertEqual(len(slower), 1, process.stdout)
            self.assertIn("sum/eigen/f32/4096 on node-b rank 1 CPU", slower[0])
        process = gpubench("compare", baseline, current_path, "--format", "json")
        devices = {c["device"] for c in json.loads(process.stdout)["cases"]}
        self.assertEqual(devices, {"node-a rank 0 CPU", "node-b rank 1 CPU"})
        self.assertUsageError(gpubench("compare", baseline, current_path, "--match-devices", "serial"), "--match-devices")

    def test_single_gpu_reports_compare_against_one_rank(self):
        # An ordinary report (no device fields, no ranks) against one rank's report.
        a, _ = self.rank_reports()
        plain = load(a)
        del plain["context"]["ranks"]
        process = gpubench("compare", save(os.path.join(self.dir, "plain.json"), plain), a, "--format", "json")
        self.assertOk(process)
        cases = json.loads(process.stdout)["cases"]
        self.assertEqual(len(cases), 2)
        self.assertTrue(all("device" not in case and case["verdict"] != "missing" for case in cases), cases)


if __name__ == "__main__":
    main()
