"""Seeded random misuse of the command line: valid command lines of every command, each mutated
(a word dropped, doubled, swapped with its neighbour, mistyped, or replaced with a stray value:
negative, huge, empty, a path, another command's option). Whatever comes in, gpubench must end
with one of its exit codes, never a signal; a refusal (exit 2) is one line on stderr; nothing
crashes (no sanitizer report, no uncaught exception); the input reports and database are left
as they were; and a refused command leaves no file behind. The seed is printed with any failure,
and GPUBENCH_MISUSE_SEED and GPUBENCH_MISUSE_COUNT pick another draw."""
import hashlib
import json
import os
import random
import shlex

from gpubench_cli import SANITIZED, CliTestCase, gpubench, main

EXIT_CODES = {0, 1, 2, 3, 4, 5}
CRASH_SIGNS = ("Traceback", "terminate called", "AddressSanitizer", "UndefinedBehaviorSanitizer", "runtime error:",
               "Segmentation fault", "core dumped", "Assertion", "what():")
STRAYS = ["-1", "0", "99999999999999999999", "1e308", "", " ", "nan", "x", "--", "-", "1,,2", "ä", "4096x",
          "/nonexistent/dir/file.json", "f16", "sin", "matmul", "eigen", "--out", "--size", "--db", "--help-all",
          "1K..1M:x0", "3..1", "1..1G:x1", "8x8x8,", "all", "bf16,f64", "{}", "'", "\"", "$HOME"]


def digest(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def mutate(words, rng):
    """One random slip applied to a command line's words (the command itself, words[0], stays)."""
    words = list(words)
    at = rng.randrange(1, len(words)) if len(words) > 1 else 1
    kind = rng.randrange(6)
    if kind == 0 and len(words) > 1:
        del words[at]
    elif kind == 1 and len(words) > 1:
        words.insert(at, words[at])
    elif kind == 2 and len(words) > 2:
        at = min(at, len(words) - 2)
        words[at], words[at + 1] = words[at + 1], words[at]
    elif kind == 3 and len(words) > 1 and words[at]:
        word = words[at]
        spot = rng.randrange(len(word))
        letter = rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-,.x")
        word = rng.choice([word[:spot] + word[spot + 1:], word[:spot] + letter + word[spot:],
                           word[:spot] + letter + word[spot + 1:]])
        words[at] = word
    elif kind == 4 and len(words) > 1:
        words[at] = rng.choice(STRAYS)
    else:
        words.insert(at, rng.choice(STRAYS))
    return words


class MisuseTests(CliTestCase):
    def setUp(self):
        super().setUp()
        # A real report and a real database to feed compare, report, merge and history.
        self.report = os.path.join(self.dir, "r.json")
        process = gpubench("run", "--op", "sum,sin", "--size", "64", "--backend", "eigen", "--warmup", "0",
                           "--min-samples", "3", "--max-samples", "3", "--min-time", "0", "--max-time", "0.01",
                           "--no-energy", "--quiet", "--out", self.report)
        self.assertOk(process)
        self.db = os.path.join(self.dir, "h.db")
        self.assertOk(gpubench("history", "ingest", self.report, "--db", self.db, "--tag", "branch=main"))
        suite = {"groups": [{"ops": ["sum"], "sizes": ["64"], "backends": ["eigen"]}]}
        self.suite = os.path.join(self.dir, "s.json")
        with open(self.suite, "w", encoding="utf-8") as handle:
            json.dump(suite, handle)

    def valid_command_lines(self):
        # Every run line ends in --dry-run, added after the slip: a mutated line measures nothing
        # (a slip that drops --max-time must not start a long run).
        r, db, s = self.report, self.db, self.suite
        return [
            ["run", "--op", "matmul", "--shape", "64x32x16,5x6x7", "--dtype", "f32,bf16", "--backend", "eigen"],
            ["run", "--op", "sum,sin", "--size", "1K..64K:x4", "--backend", "eigen,openblas", "--threads", "1"],
            ["run", "--op", "spmv", "--rows", "1K", "--pattern", "random,wide", "--nnz-per-row", "8", "--backend", "eigen"],
            ["run", "--config", s, "--dtype", "f64", "--l2", "warm", "--seed", "7", "--data", "normal"],
            ["run", "--op", "sqrt", "--size", "4096", "--backend", "eigen", "--timing", "e2e", "--repetitions", "2"],
            ["run", "--op", "sum", "--size", "64", "--backend", "eigen", "--baseline", r, "--out", "o.json"],
            ["compare", r, r, "--threshold", "5", "--format", "json"],
            ["compare", r, r, "--alpha", "0.01", "--p-adjust", "holm", "--inconclusive", "pass"],
            ["report", r, "--format", "markdown", "--relative-to", "eigen"],
            ["report", r, "--html", "page.html"],
            ["merge", r, r, "--out", "m.json"],
            ["history", "list", "--db", db, "--tag", "branch=main"],
            ["history", "show", "--db", db, "--case", "sum/eigen/f32/64"],
            ["history", "export", "--db", db, "--format", "csv"],
            ["history", "check", "--db", db],
            ["list", "--format", "json"],
            ["info", "--format", "json"],
            ["completion", "bash"],
        ]

    def test_mutated_command_lines_end_cleanly(self):
        seed = int(os.environ.get("GPUBENCH_MISUSE_SEED", "20261207"))
        count = int(os.environ.get("GPUBENCH_MISUSE_COUNT", "60" if SANITIZED else "240"))
        rng = random.Random(seed)
        inputs = {path: digest(path) for path in (self.report, self.db, self.suite)}
        lines = self.valid_command_lines()
        for trial in range(count):
            words = mutate(rng.choice(lines), rng)
            if rng.random() < 0.3:
                words = mutate(words, rng)  # two slips
            if words and words[0] == "run":
                words = words + ["--dry-run"]
            before = set(os.listdir(self.dir))
            process = gpubench(*words, cwd=self.dir, timeout=120)
            shown = f"seed {seed} trial {trial}: gpubench {shlex.join(words)}"
            with self.subTest(trial=trial, command=shown):
                self.assertIn(process.returncode, EXIT_CODES, f"{shown}\n{process.stderr}")
                for sign in CRASH_SIGNS:
                    self.assertNotIn(sign, process.stderr, shown)
                if process.returncode == 2:
                    lines_out = [line for line in process.stderr.splitlines() if line.strip()]
                    self.assertEqual(len(lines_out), 1, f"{shown}\n{process.stderr}")
                    self.assertIn("error", lines_out[0], shown)
                    self.assertEqual(set(os.listdir(self.dir)) - before, set(), f"{shown}: a refused command left files")
                for path, hashed in inputs.items():
                    self.assertEqual(digest(path), hashed, f"{shown}: changed {os.path.basename(path)}")
            # What a command that succeeded wrote goes, so the next trial starts from the inputs alone.
            for name in set(os.listdir(self.dir)) - before:
                os.remove(os.path.join(self.dir, name))


if __name__ == "__main__":
    main()
