"""Help that leads somewhere: "did you mean" for every kind of word on the command line, the
dtype spellings of NumPy, PyTorch and CUDA, hints for sizes written as shapes or with
thousands separators; help, `list` and `info` within 80 columns with examples, defaults and
exit codes; completion scripts for bash (run in bash) and zsh, generated from the CLI."""
import json
import os
import re
import shutil
import subprocess
import unittest

from gpubench_cli import FAST, CliTestCase, gpubench, main

COMMANDS = [[], ["run"], ["list"], ["info"], ["compare"], ["history"], ["history", "ingest"], ["history", "list"],
            ["history", "show"], ["history", "export"], ["history", "check"], ["report"], ["merge"], ["completion"], ["ab"]]


def widest(text):
    return max((len(line) for line in text.splitlines()), default=0)


class DidYouMean(CliTestCase):
    def test_commands_and_options(self):
        cases = [
            (["runn"], ["unknown command 'runn'", "did you mean 'run'?", "see gpubench --help"]),
            (["hsitory", "list"], ["did you mean 'history'?"]),
            (["history", "lst"], ["unknown command 'lst' for gpubench history", "did you mean 'list'?"]),
            (["run", "--sizes", "1K"], ["unknown option '--sizes' for gpubench run", "did you mean '--size'?",
                                        "see gpubench run --help"]),
            (["compare", "a.json", "b.json", "--treshold", "5"], ["did you mean '--threshold'?"]),
            (["history", "show", "--cases", "x"], ["did you mean '--case'?", "gpubench history show --help"]),
            # other tools' words for the same option, short ones included ('-o' is not '-h')
            (["run", "--iterations", "5"], ["unknown option '--iterations' for gpubench run",
                                            "did you mean '--min-samples'?"]),
            (["run", "--repeat", "3"], ["did you mean '--repetitions'?"]),
            # after a flag, which takes no value
            (["run", "--op", "sin", "--quiet", "--repeat", "3"], ["unknown option '--repeat' for gpubench run",
                                                                 "did you mean '--repetitions'?"]),
            (["compare", "a.json", "b.json", "--allow-missing", "--treshold", "5"], ["did you mean '--threshold'?"]),
            (["run", "-o", "r.json"], ["unknown option '-o'", "did you mean '--out'?"]),
            (["run", "--gpu", "1"], ["did you mean '--device'?"]),
            (["list", "--json"], ["unknown option '--json' for gpubench list", "did you mean '--format json'?"]),
            (["history", "export", "--csv"], ["did you mean '--format csv'?"]),
            (["info", "--format", "json", "--csv"], ["unknown option '--csv' for gpubench info (see"]),
            (["history", "list", "--database", "h.db"], ["did you mean '--db'?"]),
            # an option of a subcommand written before it
            (["history", "--db", "h.db", "list"], ["unknown option '--db' for gpubench history",
                                                   "write it after the command, e.g. gpubench history ingest --db"]),
            (["--op", "sin"], ["unknown option '--op' for gpubench", "it is an option of its command run",
                               "gpubench run --op"]),
        ]
        for args, fragments in cases:
            with self.subTest(args=args):
                self.assertUsageError(gpubench(*args), *fragments)

    def test_values(self):
        cases = [
            (["--op", "sine"], ["unknown op 'sine'", "did you mean 'sin'?"]),
            (["--op", "spvm"], ["did you mean 'spmv'?"]),
            (["--op", "sin", "--backend", "cubla"], ["unknown backend 'cubla'", "did you mean 'cublas'?"]),
            (["--op", "sin", "--dtype", "f23"], ["unknown dtype 'f23'", "did you mean 'f32'?"]),
            (["--op", "sin", "--dtype", "flaot16"], ["did you mean 'float16'?", "expected one of: f32, f64, f16, bf16"]),
            (["--op", "spmv", "--pattern", "powerlow"], ["unknown pattern 'powerlow'", "did you mean 'powerlaw'?"]),
            (["--op", "sin", "--timing", "e2"], ["did you mean 'e2e'?"]),
        ]
        for args, fragments in cases:
            with self.subTest(args=args):
                self.assertUsageError(gpubench("run", *args, *FAST), *fragments)
        # Far from every word: no guess, the list only.
        process = gpubench("run", "--op", "transpose", *FAST)
        self.assertUsageError(process, "expected one of: sin, sqrt, sum, matmul, spmv")
        self.assertNotIn("did you mean", process.stderr)

    def test_dtype_aliases(self):
        for alias, dtype in (("float32", "f32"), ("fp32", "f32"), ("float64", "f64"), ("double", "f64"),
                             ("float16", "f16"), ("half", "f16"), ("fp16", "f16"), ("bfloat16", "bf16")):
            with self.subTest(alias=alias):
                process = gpubench("run", "--op", "sum", "--size", "64", "--backend", "eigen", "--dtype", alias, *FAST,
                                   "--format", "json")
                self.assertOk(process)
                self.assertEqual([r["dtype"] for r in json.loads(process.stdout)["results"]], [dtype])

    def test_sizes_that_are_not_sizes(self):
        self.assertUsageError(gpubench("run", "--op", "matmul", "--size", "4096x4096", *FAST), "is a shape", "--shape")
        self.assertUsageError(gpubench("run", "--op", "sum", "--size", "1,000", *FAST),
                              "a comma separates the sizes of a list", "1 and 000", "1000")
        # A real list is still a list.
        process = gpubench("run", "--op", "sum", "--size", "16,256", "--backend", "eigen", *FAST, "--format", "json")
        self.assertOk(process)
        self.assertEqual([r["shape"]["n"] for r in json.loads(process.stdout)["results"]], [16, 256])
        # A word that is no size and no option is malformed, not "an option"; an option is.
        process = gpubench("run", "--op", "sum", "--size", "eigen", *FAST)
        self.assertUsageError(process, "malformed size 'eigen'")
        self.assertNotIn("is an option", process.stderr)
        process = gpubench("run", "--op", "sum", "--size", "--out", "x.json", *FAST)
        self.assertUsageError(process, "size '--out' is an option, not a number")
        self.assertEqual(process.stderr.count("is an option"), 1, process.stderr)  # said once

    def test_a_value_of_another_option(self):
        # A multi-valued option reads the words after it as its own: the refusal names the
        # option the word belongs to.
        cases = [
            (["--op", "sin", "4096"], ["unknown op '4096'", "'4096' is a value of --size, not of --op",
                                       "write --size 4096"]),
            (["--op", "sin,4096"], ["'4096' is a value of --size, not of --op"]),
            (["--op", "sum", "--backend", "eigen", "f64"], ["unknown backend 'f64'", "write --dtype f64"]),
            (["--backend", "eigen", "sin"], ["unknown backend 'sin'", "write --op sin"]),
            (["--op", "sum", "--dtype", "f64", "cublas"], ["unknown dtype 'cublas'", "write --backend cublas"]),
            (["--op", "matmul", "--shape", "64x64x64", "f16"], ["malformed matmul shape 'f16'", "write --dtype f16"]),
            (["--op", "matmul", "--shape", "4096,4096,4096"], ["did you mean --shape 4096x4096x4096?"]),
            (["--op", "matmul", "--shape", "64", "64", "32"], ["did you mean --shape 64x64x32?"]),
            (["--op", "matmul", "--shape", "64*64*32"], ["did you mean '64x64x32'?"]),
            (["--op", "matmul", "--size", "64", "64x64x64"], ["write --shape 64x64x64"]),
            (["--op", "spmv", "--pattern", "banded", "f64"], ["unknown pattern 'f64'", "write --dtype f64"]),
            (["--op", "sum", "--timing", "kernel", "e2"], ["did you mean 'e2e'?"]),
        ]
        for args, fragments in cases:
            with self.subTest(args=args):
                self.assertUsageError(gpubench("run", *args, *FAST), *fragments)
        # A word of no option: the refusal alone.
        process = gpubench("run", "--op", "sin", "transpose", *FAST)
        self.assertUsageError(process, "unknown op 'transpose'")
        self.assertNotIn("is a value of", process.stderr)

    def test_arguments_out_of_place(self):
        cases = [
            (["run", "sin"], ["unexpected argument 'sin' for gpubench run", "the op goes after --op: --op sin"]),
            (["run", "--op", "sum", "4K"], ["'4K' is a value of --size, not of --op"]),
            (["run", "4096"], ["unexpected argument '4096' for gpubench run", "--size 4096"]),
            (["run", "64x64x64"], ["--shape 64x64x64"]),
            (["run", "matmul", "4096", "bf16"], ["unexpected arguments 'matmul', '4096' and 'bf16' for gpubench run",
                                                 "every value follows its option: --op matmul --size 4096 --dtype bf16"]),
            (["run", "matmul", "quickly"], ["the op goes after --op: --op matmul"]),
            (["run", "suite.json"], ["a suite file goes after --config"]),
            (["run", "--op", "spmv", "random,wide"], ["'random' is a value of --pattern, not of --op"]),
            (["run", "--op", "spmv", "--rows", "1K", "random,wide"], ["'random,wide' is a value of --pattern: --pattern random,wide"]),
            (["run", "f16,bf16"], ["'f16,bf16' is a value of --dtype: --dtype f16,bf16"]),
            (["run", "h.db"], ["a database goes after --db: --db h.db"]),
            (["history", "check", "h.db"], ["unexpected argument 'h.db' for gpubench history check",
                                            "a database goes after --db: --db h.db"]),
            (["run", "--op", "--op", "sum"], ["unknown op '--op'", "'--op' is an option: the value of --op before it is missing"]),
            (["report", "a.json", "b.json"], ["unexpected argument 'b.json' for gpubench report",
                                              "gpubench compare BASELINE CURRENT", "gpubench merge"]),
            (["compare", "a.json", "b.json", "c.json"], ["unexpected argument 'c.json' for gpubench compare",
                                                         "two reports"]),
            (["list", "x", "y"], ["unexpected arguments 'x' and 'y' for gpubench list"]),
            (["completion", "bash", "zsh"], ["unexpected argument 'zsh'", "one shell: bash or zsh"]),
            (["compare", "a.json"], ["missing current for gpubench compare", "current report (JSON)",
                                     "gpubench compare BASELINE CURRENT"]),
            (["merge", "--out", "m.json"], ["missing reports for gpubench merge", "gpubench merge REPORTS..."]),
            (["history", "ingest"], ["missing report for gpubench history ingest", "gpubench history ingest REPORT"]),
            # a one-value option given more than once
            (["run", "--op", "sum", "--min-samples", "0", "--min-samples", "3"],
             ["--min-samples is given 2 times; it takes one value: give it once"]),
            (["run", "--seed", "1", "--seed", "2", "--seed", "3"], ["--seed is given 3 times"]),
            # CLI11's refusals of values, in words
            (["ab", "--a", "x", "--b", "y", "--rounds", "0"], ["--rounds: 0 is out of range (at least 1, at most 1000)"]),
            (["ab", "--a", "x", "--b", "y", "--rounds", "many"], ["--rounds: expected a number from 1 to 1000, got 'many'"]),
            (["ab", "--a", "x", "--b", "y", "--time", "-1"], ["--time: -1 is not above 0: give a positive number"]),
            (["ab", "--a", "x", "--b", "y", "--time", "0"], ["--time: 0 is not above 0: give a positive number"]),
            (["ab", "--a", "x", "--b", "y", "--time", "soon"], ["--time: expected a positive number, got 'soon'"]),
            (["run", "--op", "sin", "--resolve-time", "0"], ["--resolve-time: 0 is not above 0"]),
            (["report", "r.json", "--fail-on-outlier", "x"], ["--fail-on-outlier: expected a number, got 'x'"]),
            (["run", "--op", "sum", "--warmup"], ["--warmup needs a value (INT)"]),
            # a cache's state for what is done to it
            (["run", "--op", "sum", "--l2", "cold"], ["unknown L2 mode 'cold'", "did you mean 'flush'?"]),
            (["run", "--op", "sum", "--l2", "hot"], ["did you mean 'warm'?"]),
            (["run", "--op", "sum", "--data", "gaussian"], ["unknown input data 'gaussian'", "did you mean 'normal'?"]),
            (["run", "--op", "sum", "--device", "gpu1"], ["for 'gpu1' write 1"]),
            # HTML is a page of its own, from report --html
            (["report", "r.json", "--format", "html"], ["unknown report format 'html'",
                                                        "gpubench report REPORT.json --html PAGE.html"]),
            (["run", "--op", "sum", "--out", "page.html"], ["cannot tell the report format of 'page.html'",
                                                           "gpubench report REPORT.json --html PAGE.html"]),
            (["report", "r.json", "--format", "md"], ["Markdown is 'markdown'"]),
        ]
        for args, fragments in cases:
            with self.subTest(args=args):
                self.assertUsageError(gpubench(*args), *fragments)


class PercentSigns(CliTestCase):
    def test_every_percent_option_takes_a_percent_sign(self):
        # Each command's options of type PERCENT, read from its help: "5%" is read as 5, and a
        # refusal (if the command refuses for another reason) is not about the sign.
        found = 0
        for command in COMMANDS[1:]:
            for option in re.findall(r"(?m)^  (--[\w-]+) PERCENT", gpubench(*command, "--help").stdout):
                found += 1
                with self.subTest(command=command, option=option):
                    args = [*command, option, "5%"]
                    if command == ["run"]:
                        args += ["--op", "sin", "--size", "1K", "--dry-run"]
                    process = gpubench(*args)
                    self.assertNotIn(option + ": expected", process.stderr)
                    self.assertNotIn("'5%'", process.stderr)
        self.assertGreaterEqual(found, 6)  # run (4), compare, ab, report, history check
        process = gpubench("run", "--op", "sin", "--size", "1K", "--dry-run", "--max-noise", "5 %")
        self.assertEqual(process.returncode, 0, process.stderr)
        process = gpubench("compare", "a.json", "b.json", "--threshold", "150%")
        self.assertUsageError(process, "--threshold must be above 0 % and below 100 %", "got 150%")
        for malformed in ("%", "5%%", "five%"):
            with self.subTest(value=malformed):
                self.assertUsageError(gpubench("run", "--op", "sin", "--max-noise", malformed, *FAST),
                                      "--max-noise: expected a number, got '" + malformed + "'")


class HelpWithin80Columns(CliTestCase):
    def test_every_help_fits_and_says_what_it_should(self):
        for command in COMMANDS:
            with self.subTest(command=command):
                process = gpubench(*command, "--help")
                self.assertOk(process)
                self.assertLessEqual(widest(process.stdout), 80, process.stdout)
        run = gpubench("run", "--help").stdout
        flowing = re.sub(r"\s+", " ", run)
        for fragment in ("Examples:", "gpubench run --op matmul --size 4096", "Exit codes:", "5 --baseline db:",
                         "Without --size: sin, sqrt and sum 16M elements, matmul 1024 (square), spmv 1M rows",
                         "x2 when no step", "(default 3)", "--dry-run", "--require-gpu", "float16"):
            self.assertIn(fragment, flowing)
        self.assertIn("4 --baseline: a case moved beyond its threshold", flowing)
        for command in (["compare"], ["ab"], ["report"], ["history"]):
            text = gpubench(*command, "--help").stdout
            self.assertIn("Examples:", text)
            self.assertIn("Exit codes:", text)
        for command in (["compare"], ["ab"]):
            self.assertIn("4 a case", re.sub(r"\s+", " ", gpubench(*command, "--help").stdout))
        self.assertIn("completion bash", gpubench("--help").stdout)

    def test_list_fits_and_has_a_json_form(self):
        listing = gpubench("list")
        self.assertOk(listing)
        self.assertLessEqual(widest(listing.stdout), 80, listing.stdout)
        self.assertRegex(listing.stdout, r"op/dtype +eigen +openblas +cuda +cublas +cub +cusparse")
        self.assertRegex(listing.stdout, r"\n  sin/f32 +yes +- ")
        document = json.loads(gpubench("list", "--format", "json").stdout)
        self.assertEqual([op["name"] for op in document["ops"]], ["sin", "sqrt", "sum", "matmul", "spmv"])
        openblas = next(b for b in document["backends"] if b["name"] == "openblas")
        self.assertEqual(openblas["support"]["matmul/f32"], {"supported": True})
        self.assertFalse(openblas["support"]["sin/f32"]["supported"])
        self.assertIn("sin", openblas["support"]["sin/f32"]["reason"])
        self.assertUsageError(gpubench("list", "--format", "csv"), "expected one of: console, json")

    def test_list_names_the_gemm_kernels(self):
        cuda = next(b for b in json.loads(gpubench("list", "--format", "json").stdout)["backends"] if b["name"] == "cuda")
        for kernel in ("wgmma", "mma.sync", "WMMA"):
            self.assertIn(kernel, cuda["description"])

    def test_info_shows_the_whole_context_and_no_table(self):
        process = gpubench("info")
        self.assertOk(process)
        self.assertLessEqual(widest(process.stdout), 80, process.stdout)
        context = json.loads(gpubench("info", "--format", "json").stdout)["context"]
        for name in ("gpubench", "host", "CPU", "memory", "libraries"):
            self.assertRegex(process.stdout, rf"(?m)^{name} +\S")
        for fact in (context["compiler"], context["cpu_model"], "eigen " + context["libraries"]["eigen"]):
            self.assertIn(fact, re.sub(r"\s+", " ", process.stdout))
        self.assertNotIn("0 cases", process.stdout)
        self.assertNotIn("median", process.stdout)
        self.assertUsageError(gpubench("info", "--format", "csv"), "expected one of: console, json)")


class Completion(CliTestCase):
    def complete(self, *words):
        """The words bash offers after `words` (the last one being completed)."""
        script = os.path.join(self.dir, "gpubench.bash")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(gpubench("completion", "bash").stdout)
        line = " ".join(f"'{word}'" for word in words)
        program = (f"source '{script}'\nCOMP_WORDS=({line})\nCOMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\n_gpubench\n"
                   "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
        process = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True,
                                 cwd=self.dir, timeout=60)
        self.assertEqual(process.returncode, 0, process.stderr)
        self.assertEqual(process.stderr, "")
        return [word for word in process.stdout.splitlines() if word]

    def test_bash_completes_commands_options_and_values(self):
        self.assertEqual(self.complete("gpubench", "r"), ["run", "report"])
        self.assertIn("compare", self.complete("gpubench", ""))
        self.assertEqual(self.complete("gpubench", "history", "e"), ["export"])
        self.assertEqual(self.complete("gpubench", "run", "--si"), ["--size"])
        self.assertIn("--require-gpu", self.complete("gpubench", "run", "--"))
        self.assertIn("--color", self.complete("gpubench", "compare", "--c"))
        self.assertEqual(self.complete("gpubench", "run", "--op", "s"), ["sin", "sqrt", "sum", "spmv"])
        self.assertEqual(self.complete("gpubench", "run", "--op", "sin,m"), ["sin,matmul"])
        self.assertEqual(self.complete("gpubench", "run", "--backend", "cu"), ["cuda", "cublas", "cub", "cusparse"])
        self.assertEqual(self.complete("gpubench", "run", "--dtype", "b"), ["bf16"])
        self.assertEqual(self.complete("gpubench", "compare", "--format", ""), ["console", "markdown", "json"])
        self.assertEqual(self.complete("gpubench", "ab", "--format", ""), ["console", "markdown", "json"])
        self.assertEqual(self.complete("gpubench", "history", "export", "--format", ""), ["csv", "json"])
        self.assertEqual(self.complete("gpubench", "completion", ""), ["bash", "zsh"])
        self.assertEqual(self.complete("gpubench", "run", "--size", ""), [], "a size is typed, not offered")
        # After a flag, which takes no value, the next word is an option again.
        for flag in ("--quiet", "--tf32", "--dry-run", "--no-energy", "--allow-missing"):
            self.assertEqual(self.complete("gpubench", "run", flag, "--si"), ["--size"], flag)
        self.assertEqual(self.complete("gpubench", "compare", "--color", "a"), ["auto", "always"])
        with open(os.path.join(self.dir, "suite.json"), "w", encoding="utf-8") as handle:
            handle.write("{}")
        self.assertIn("suite.json", self.complete("gpubench", "run", "--config", "su"))
        self.assertIn("suite.json", self.complete("gpubench", "report", "su"))

    def test_every_option_of_every_command_is_offered(self):
        for command in COMMANDS[1:]:
            with self.subTest(command=command):
                help_text = gpubench(*command, "--help").stdout
                options = set(re.findall(r"(?m)^  (?:-\w,)?(--[\w-]+)", help_text))
                offered = set(self.complete("gpubench", *command, "--"))
                self.assertTrue(options, help_text)
                self.assertLessEqual(options, offered)

    def test_zsh_script(self):
        script = gpubench("completion", "zsh")
        self.assertOk(script)
        self.assertTrue(script.stdout.startswith("#compdef gpubench\n"))
        self.assertIn("bashcompinit", script.stdout)
        self.assertIn("complete -F _gpubench gpubench", script.stdout)
        self.assertUsageError(gpubench("completion", "fish"), "unknown shell 'fish'")

    @unittest.skipUnless(shutil.which("zsh"), "zsh is not installed: the script is not sourced")
    def test_zsh_sources_the_script(self):
        path = os.path.join(self.dir, "_gpubench")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(gpubench("completion", "zsh").stdout)
        # zsh -f reads no .zshrc, so compinit is not loaded: the script must load what it needs and
        # register gpubench's completion with zsh.
        process = subprocess.run(["zsh", "-f", "-c", f"source '{path}' && print -r -- \"${{_comps[gpubench]}}\""],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(process.stdout.strip(), "_bash_complete -F _gpubench", process.stderr)


if __name__ == "__main__":
    main()
