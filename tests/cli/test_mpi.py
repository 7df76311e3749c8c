"""Ranks under mpirun: the MPI build writes one merged report from rank 0; the plain build
reads Open MPI's variables and writes one report per rank, which `gpubench merge` joins."""
import json
import os
import shutil
import subprocess
import sys

from gpubench_cli import FAST, SKIP, CliTestCase, gpubench, main

MPI_PROGRAM = os.environ.get("GPUBENCH_MPI", "")
MPIEXEC = os.environ.get("GPUBENCH_MPIEXEC", "")
GPUBENCH = os.environ.get("GPUBENCH", "")

SUITE = ["--op", "sum,sqrt", "--size", "4K", "--backend", "eigen", "--threads", "1", *FAST]


def mpirun(*command):
    """Runs command under mpirun with two ranks on this host, whoever runs the tests (root too),
    outside any launcher the tests themselves may run under."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(("OMPI_", "PMI_", "PMIX_", "SLURM_"))}
    # Open MPI 4 refuses to start, even on one host, without an ssh or rsh to name as its
    # remote agent (open-mpi/ompi#12386); a machine without one (a container) names sh,
    # which a single-host run never calls.
    # The ranks place CPU cases and name GPUs by ordinal: they see no GPU, so that the tests
    # hold alike on every machine (scripts/fleet_check.sh runs ranks on real GPUs).
    env["CUDA_VISIBLE_DEVICES"] = ""
    if not (shutil.which("ssh") or shutil.which("rsh")):
        env["OMPI_MCA_plm_rsh_agent"] = "sh"
    return subprocess.run([MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-n", "2", *command], capture_output=True,
                          text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


class MpiTests(CliTestCase):
    def test_mpi_build_writes_one_merged_report(self):
        out = os.path.join(self.dir, "merged.json")
        process = mpirun(MPI_PROGRAM, "run", *SUITE, "--out", out)
        self.assertOk(process)
        self.assertEqual(os.listdir(self.dir), ["merged.json"], "only rank 0 writes")
        self.assertEqual(process.stdout.count("Fleet: 2 CPUs on 1 host, 2 ranks."), 1, "only rank 0 prints:\n" + process.stdout)
        report = load(out)
        ranks = report["context"]["ranks"]
        self.assertEqual([r["rank"] for r in ranks], [0, 1])
        self.assertEqual({r["world_size"] for r in ranks}, {2})
        self.assertEqual({r["launcher"] for r in ranks}, {"openmpi"})
        self.assertTrue(all(r["host"] for r in ranks), ranks)
        self.assertEqual(len(report["results"]), 4)
        by_rank = {}
        for result in report["results"]:
            self.assertEqual(result["status"], "ok", result)
            self.assertEqual(result["host"], ranks[result["rank"]]["host"])
            by_rank.setdefault(result["rank"], []).append(result["id"])
        self.assertEqual(sorted(by_rank), [0, 1])
        self.assertEqual(sorted(by_rank[0]), sorted(by_rank[1]), "every rank ran every case")
        self.assertEqual(len(report["fleet"]["cases"]), 2)
        # The merged report reads back and renders its fleet view.
        process = gpubench("report", out, "--format", "markdown")
        self.assertOk(process)
        self.assertIn("**Fleet view.**", process.stdout)

    def test_mpi_build_refuses_ranks_that_planned_differently(self):
        # Rank 1 makes two passes over the plan, rank 0 one: their runs differ.
        script = os.path.join(self.dir, "rank.sh")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write('#!/bin/sh\nif [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then set -- "$@" --repetitions 2; fi\nexec "$@"\n')
        os.chmod(script, 0o755)
        process = mpirun(script, MPI_PROGRAM, "run", *SUITE, "--out", os.path.join(self.dir, "x.json"))
        self.assertEqual(process.returncode, 2, process.stdout + process.stderr)
        self.assertIn("the ranks planned different runs", process.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x.json")))

    def test_plain_build_under_mpirun_writes_one_report_per_rank(self):
        out = os.path.join(self.dir, "rank-{rank}.json")
        process = mpirun(GPUBENCH, "run", *SUITE, "--quiet", "--out", out)
        self.assertOk(process)
        paths = [os.path.join(self.dir, f"rank-{rank}.json") for rank in (0, 1)]
        for rank, path in enumerate(paths):
            context = load(path)["context"]["ranks"][0]
            self.assertEqual((context["launcher"], context["rank"], context["local_rank"], context["world_size"]),
                             ("openmpi", rank, rank, 2))
        merged = os.path.join(self.dir, "fleet.json")
        self.assertOk(gpubench("merge", *paths, "--out", merged))
        self.assertEqual([r["rank"] for r in load(merged)["context"]["ranks"]], [0, 1])


if __name__ == "__main__":
    if not MPIEXEC or not MPI_PROGRAM:
        print("no MPI variant of gpubench in this build (MPI not found at configure time -- scripts/setup.sh installs "
              "openmpi-bin and libopenmpi-dev -- or a sanitizer build): MPI tests skipped", file=sys.stderr)
        sys.exit(SKIP)
    main()
