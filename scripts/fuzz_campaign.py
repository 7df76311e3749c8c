#!/usr/bin/env python3
"""A fuzz campaign through the command line: mutants of the three file formats gpubench reads
(Matrix Market matrices, suites, reports), made from the seed corpora in tests/fuzz/corpus,
and of results databases (a SQLite history of the seed reports whose rows are corrupted:
JSON truncated, nested deep, of the wrong type or huge; columns of the wrong SQL type; rows
deleted), each fed to every command that reads it, on each given binary (the Release build
and the ASan/UBSan one). Where the libFuzzer targets (tests/fuzz) drive the parsers
in-process, this drives the whole program: argument handling, the run, the report writers,
the store's reader, exit codes.

For every invocation it checks:
  - no crash (death by a signal) and no sanitizer report on stderr;
  - an exit code in {0, 1, 2, 3}, and 1 only from a verdict (compare, run --baseline,
    history check);
  - exit 2 with exactly one error line on stderr, and no report file or temporary left behind;
  - the same exit code from every binary.
Mutants that break a rule are kept in OUT/findings with the command lines and outputs.

  scripts/fuzz_campaign.py --binary build/cpu-only/gpubench --binary build/asan/gpubench \\
      --mutants 10000 --jobs 2 --out /tmp/campaign
  scripts/fuzz_campaign.py --binary build/cpu-only/gpubench --formats database --mutants 2000 \\
      --out /tmp/database-campaign
"""
import argparse
import collections
import concurrent.futures
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

SOURCE_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CORPUS = os.path.join(SOURCE_DIR, "tests", "fuzz", "corpus")
FILE_FORMATS = ("matrix_market", "suite", "report")
FORMATS = (*FILE_FORMATS, "database")
# Every run stays tiny: one quick CPU backend on one thread, few samples, short time budgets.
# A run that gets as far as measuring still spends a second or so on the host copy
# bandwidth it measures first, so reports go through run --baseline in a third of the
# cases (report and compare read every one).
TINY = ["--threads", "1", "--warmup", "0", "--min-samples", "2", "--max-samples", "3", "--min-time", "0", "--max-time",
        "0.01", "--quiet"]
# A mutant can declare a large valid workload (a 5e8-row matrix, a 1G-element suite) that the
# memory checks rightly accept; the campaign keeps each invocation to MEMORY_GUARD so that two
# jobs on a shared machine stay safe, and counts what the guard stopped on its own.
MEMORY_GUARD_MIB = 4096
MEMORY_GUARD_MARKERS = ("hard rss limit exhausted", "std::bad_alloc", "cannot allocate memory", "out of memory")
SANITIZER_MARKERS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:",
                     "MemorySanitizer", "ThreadSanitizer")
HOSTILE_NUMBERS = ["0", "-1", "-0", "1e999", "-1e999", "1e308", "4.9e-324", "0.5", "-0.5", "2147483647", "2147483648",
                   "4294967297", "9223372036854775807", "9223372036854775808", "18446744073709551616",
                   "-9223372036854775809", "1099511627776", "1e-300", "3.0000000000000001"]
HOSTILE_VALUES = [None, True, False, "", "x", "1K..1024G:x2", "16M..1024G:x1099511607776", "4096G", "NaN", "-1", [], {},
                  [None], ["sin", "sin"], {"": 1}, [[[[[]]]]], 2 ** 31 - 1, 2 ** 63 - 1, -(2 ** 63), 2 ** 64, 1e308, -1.5,
                  1e-320, 0, 0.7, 10]
# (table, column) pairs a database mutant corrupts: the JSON a run is read back from, and the
# columns the listings, trends and baselines read directly.
DATABASE_COLUMNS = [("runs", "context_json")] * 4 + [("results", "record_json")] * 4 + [
    ("runs", "run_timestamp"), ("runs", "machine"), ("runs", "hostname"), ("runs", "git_sha"),
    ("runs", "report_schema_version"), ("runs", "interrupted"), ("runs", "digest"), ("results", "case_id"),
    ("results", "median_s"), ("results", "median_ci_low_s"), ("results", "sample_count"), ("results", "status"),
    ("results", "result_index"), ("samples", "seconds"), ("samples", "sample_index"), ("run_tags", "tag_value"),
    ("schema_version", "version")]
HOSTILE_BYTES = [b"\x00", b"\r", b"\r\n", b"\xef\xbb\xbf", b"\xff\xfe", b"\xc3\x28", b"%", b"\n\n", b"\t", b" ", b"-",
                 b"+", b"e", b".", b"nan", b"inf", b"1e999", b"99999999999999999999", b"[", b"{", b"\"", b"\\u0000",
                 b"\\ud800", b"null", b","]


# ---- mutators ----

def byte_mutation(rng, data, seeds):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(7)
        position = rng.randrange(len(data) + 1)
        if choice == 0 and data:  # flip bits
            index = rng.randrange(len(data))
            data[index] ^= 1 << rng.randrange(8)
        elif choice == 1:  # insert an interesting token
            data[position:position] = rng.choice(HOSTILE_BYTES)
        elif choice == 2 and data:  # delete a range
            end = min(len(data), position + rng.randint(1, 16))
            del data[position:end]
        elif choice == 3:  # truncate
            del data[position:]
        elif choice == 4 and data:  # duplicate a range
            start = rng.randrange(len(data))
            chunk = data[start:start + rng.randint(1, 64)]
            data[position:position] = chunk * rng.randint(1, 8)
        elif choice == 5:  # splice another seed in
            other = rng.choice(seeds)
            start = rng.randrange(len(other) + 1)
            data[position:] = other[start:]
        else:  # replace a number with a hostile one
            text = bytes(data)
            numbers = list(re.finditer(rb"-?\d+(\.\d+)?([eE][-+]?\d+)?", text))
            if numbers:
                match = rng.choice(numbers)
                data[match.start():match.end()] = rng.choice(HOSTILE_NUMBERS).encode()
    return bytes(data)


def json_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_paths(item, path + (index,))


def set_at(document, path, value):
    if not path:
        return value
    target = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return document


def get_at(document, path):
    for step in path:
        document = document[step]
    return document


def nest(value, levels, rng):
    text = json.dumps(value)
    if rng.random() < 0.5:
        return "[" * levels + text + "]" * levels
    return '{"a":' * levels + text + "}" * levels


def json_mutation(rng, data, seeds):
    try:
        document = json.loads(data)
    except ValueError:
        return byte_mutation(rng, data, seeds)
    for _ in range(rng.randint(1, 3)):
        paths = list(json_paths(document))
        path = rng.choice(paths)
        choice = rng.randrange(8)
        if choice == 0:  # a hostile value
            document = set_at(document, path, rng.choice(HOSTILE_VALUES))
        elif choice == 1 and path:  # delete a member
            parent = get_at(document, path[:-1])
            del parent[path[-1]]
        elif choice == 2:  # a list made long
            value = get_at(document, path)
            if isinstance(value, list) and value:
                set_at(document, path, value * rng.choice([2, 10, 200]))
        elif choice == 3:  # numbers made extreme
            value = get_at(document, path)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                set_at(document, path, rng.choice([-value, value * 1e300, -1, 0, 2 ** 64, 2 ** 31]))
        elif choice == 4:  # a type swap
            value = get_at(document, path)
            swapped = {dict: [], list: {}, str: 1, int: "1", float: [1.0], bool: "true"}.get(type(value), None)
            document = set_at(document, path, swapped)
        elif choice == 5:  # samples made null or negative
            value = get_at(document, path)
            if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
                set_at(document, path, rng.choice([[None] * len(value), [-v for v in value], value[:1], []]))
        elif choice == 6:  # a key of another object copied in
            value = get_at(document, path)
            if isinstance(value, dict):
                value[rng.choice(["extra", "op", "schema", "groups", "n"])] = rng.choice(HOSTILE_VALUES)
    text = json.dumps(document)
    # Text-level: duplicated keys and deep nesting, which json.dumps cannot express.
    if rng.random() < 0.3:
        keys = list(re.finditer(r'"[a-z_]+": [^,{}\[\]]+', text))
        if keys:
            match = rng.choice(keys)
            text = text[:match.end()] + ", " + match.group(0) + text[match.end():]
    if rng.random() < 0.15:
        values = list(re.finditer(r'": (\[|\{|"|\d)', text))
        if values:
            match = rng.choice(values)
            levels = rng.choice([10, 63, 64, 65, 100, 1000, 100000])
            text = text[:match.start() + 3] + nest(1, levels, rng) + ", \"x\": " + text[match.start() + 3:]
    data = text.encode()
    if rng.random() < 0.2:
        data = byte_mutation(rng, data, seeds)
    return data


def matrix_mutation(rng, data, seeds):
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        choice = rng.randrange(8)
        if choice == 0:  # declared sizes
            for index, line in enumerate(lines):
                if line and not line.startswith(b"%"):
                    fields = line.split()
                    if fields:
                        fields[rng.randrange(len(fields))] = rng.choice(HOSTILE_NUMBERS).encode()
                        lines[index] = b" ".join(fields)
                    break
        elif choice == 1:  # header words
            header = lines[0].split() if lines else []
            if header:
                header[rng.randrange(len(header))] = rng.choice([b"pattern", b"integer", b"real", b"complex", b"symmetric",
                                                                 b"general", b"hermitian", b"array", b"coordinate", b"MATRIX"])
                lines[0] = b" ".join(header)
        elif choice == 2 and len(lines) > 2:  # entry lines duplicated
            index = rng.randrange(2, len(lines))
            lines[index:index] = [lines[index]] * rng.randint(1, 50)
        elif choice == 3 and len(lines) > 2:  # an entry with hostile indices or values
            index = rng.randrange(2, len(lines))
            fields = lines[index].split() or [b"1"]
            fields[rng.randrange(len(fields))] = rng.choice(HOSTILE_NUMBERS).encode()
            lines[index] = b" ".join(fields)
        elif choice == 4:  # line ends
            return rng.choice([b"\r", b"\r\n", b"\n\r"]).join(lines)
        elif choice == 5:  # a byte order mark
            return b"\xef\xbb\xbf" + b"\n".join(lines)
        elif choice == 6 and len(lines) > 1:  # lines dropped (truncation)
            del lines[rng.randrange(1, len(lines)):]
        else:
            return byte_mutation(rng, b"\n".join(lines), seeds)
    return b"\n".join(lines)


def database_mutation(rng, database, seeds):
    """Corrupts the SQLite history at path `database` in place, as a damaged disk, a hostile
    writer or another program could: one to three changes to rows of runs, results, samples,
    run_tags or schema_version."""
    connection = sqlite3.connect(database)
    try:
        for _ in range(rng.randint(1, 3)):
            table, column = rng.choice(DATABASE_COLUMNS)
            rows = [row[0] for row in connection.execute(f"SELECT rowid FROM {table}")]
            if not rows:
                continue
            rowid = rng.choice(rows)
            value = connection.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()[0]
            choice = rng.randrange(7)
            if choice == 0 and isinstance(value, str) and value.startswith("{"):  # the JSON mutated
                value = json_mutation(rng, value.encode(), seeds).decode(errors="replace")
            elif choice == 1 and isinstance(value, str):  # truncated
                value = value[:rng.randrange(len(value) + 1)]
            elif choice == 2 and isinstance(value, str) and value.startswith("{"):  # nested deep
                levels = rng.choice([63, 64, 65, 1000, 200000])
                value = value[:-1] + ', "deep": ' + nest(1, levels, rng) + "}"
            elif choice == 3:  # a huge string
                value = rng.choice(["x", "\x1b[2J", "\u00e9"]) * rng.choice([10 ** 5, 10 ** 7])
            elif choice == 4:  # another SQL type
                value = rng.choice([42, -1, 2 ** 63 - 1, 1e308, float("inf"), b"\xff\x00\xfe", "", "NaN", "1e999"])
            elif choice == 5:  # a hostile number, as SQL sees it
                value = rng.choice(HOSTILE_NUMBERS)
                value = float(value) if rng.random() < 0.5 else value
            else:  # the row gone
                connection.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
                continue
            try:
                connection.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (value, rowid))
            except sqlite3.IntegrityError:
                pass  # a NOT NULL or UNIQUE column: this change is not one a row can hold
        connection.commit()
    finally:
        connection.close()


def make_history(binary, reports, path):
    """A SQLite history holding the seed reports (each twice over, a day apart, so that show and
    check have several runs), made by gpubench itself."""
    for index, report in enumerate(reports):
        for day in (1, 2):
            with open(report, encoding="utf-8") as handle:
                document = json.load(handle)
            document.setdefault("context", {})["timestamp"] = f"2026-01-0{day}T0{index}:00:00Z"
            copy = path + f".{index}.{day}.json"
            with open(copy, "w", encoding="utf-8") as handle:
                json.dump(document, handle)
            process = subprocess.run([binary, "history", "ingest", copy, "--db", path, "--allow-interrupted"],
                                     capture_output=True, text=True, stdin=subprocess.DEVNULL)
            os.remove(copy)
            if process.returncode != 0:
                raise RuntimeError(f"cannot make the seed history from {report}: {process.stderr}")
    connection = sqlite3.connect(path)
    case_ids = sorted({row[0] for row in connection.execute("SELECT case_id FROM results")})
    connection.close()
    return case_ids


# ---- commands ----

def commands_for(fmt, mutant, seed_path, rng):
    """(name, args, may_exit_1) per command that reads this format; args end in --out where a
    report is written, so that an exit 2 can be checked to leave nothing. seed_path is the
    mutant's seed report, or for a database (a case id it holds, a report to compare)."""
    if fmt == "matrix_market":
        return [("run --matrix", ["run", "--op", "spmv", "--matrix", mutant, "--backend", "eigen", *TINY], False)]
    if fmt == "suite":
        return [("run --config", ["run", "--config", mutant, "--backend", "eigen", *TINY], False)]
    if fmt == "database":
        case_id, report = seed_path
        allow = ["--allow-interrupted"] if rng.random() < 0.7 else []
        return [("history list", ["history", "list", "--db", mutant], False),
                ("history show", ["history", "show", "--db", mutant, "--case", case_id], False),
                ("history export", ["history", "export", "--db", mutant, "--format", rng.choice(["csv", "json"])], False),
                ("history check", ["history", "check", "--db", mutant], True),
                ("compare db:", ["compare", "db:" + mutant, report, *allow], True)]
    allow = ["--allow-machine-mismatch", "--allow-interrupted"] if rng.random() < 0.7 else []
    pair = [seed_path, mutant] if rng.random() < 0.5 else [mutant, seed_path]
    commands = [("report", ["report", mutant], False),
                ("compare", ["compare", *pair, *allow, "--format", rng.choice(["console", "json", "markdown"])], True)]
    if rng.random() < 1 / 3:
        commands.append(("run --baseline", ["run", "--op", "sum", "--size", "1K", "--backend", "eigen", *TINY,
                                            "--baseline", mutant, *allow], True))
    return commands


def sanitized(binary):
    with open(binary, "rb") as handle:
        return b"AddressSanitizer" in handle.read()


def limit_address_space():
    guard = MEMORY_GUARD_MIB << 20
    resource.setrlimit(resource.RLIMIT_AS, (guard, guard))


def run_one(binary, args, writes_report, workdir, timeout, is_sanitized):
    out = os.path.join(workdir, "out.json")
    full = [binary, *args] + (["--out", out] if writes_report else [])
    # ASan reserves terabytes of address space for its shadow: it gets an RSS limit instead.
    env = dict(os.environ, ASAN_OPTIONS=f"hard_rss_limit_mb={MEMORY_GUARD_MIB}")
    start = time.monotonic()
    try:
        process = subprocess.run(full, cwd=workdir, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, env=env,
                                 preexec_fn=None if is_sanitized else limit_address_space)
        code, stdout, stderr = process.returncode, process.stdout, process.stderr
    except subprocess.TimeoutExpired as expired:
        code, stdout, stderr = "timeout", expired.stdout or b"", expired.stderr or b""
    elapsed = time.monotonic() - start
    leftovers = sorted(os.listdir(workdir))
    for name in leftovers:
        os.remove(os.path.join(workdir, name))
    return code, stdout.decode(errors="replace"), stderr.decode(errors="replace"), leftovers, elapsed, full


def problems_of(name, may_exit_1, code, stdout, stderr, leftovers):
    problems = []
    if code == "timeout":
        return ["timeout"]
    if code != 0 and any(marker in stderr.lower() for marker in MEMORY_GUARD_MARKERS):
        return ["memory guard (the campaign's limit, a large valid workload)"]
    if code < 0:
        problems.append(f"killed by signal {-code}")
    if any(marker in stderr for marker in SANITIZER_MARKERS):
        problems.append("sanitizer report")
    if code not in (0, 1, 2, 3) and code >= 0:
        problems.append(f"exit {code}")
    error_lines = [line for line in stderr.splitlines() if "error" in line.lower()]
    if code == 1 and (not may_exit_1 or error_lines or not stdout.strip()):
        problems.append("exit 1 not from a compare verdict")
    if code == 2:
        if len(error_lines) != 1 or not stderr.strip().splitlines()[-1].startswith("gpubench: error:"):
            problems.append("exit 2 without exactly one error line")
        if leftovers:
            problems.append(f"exit 2 left files: {leftovers}")
    elif code in (0, 1, 3) and name.startswith("run") and [n for n in leftovers if n != "out.json"]:
        problems.append(f"temporary files left: {leftovers}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", action="append", required=True, help="a gpubench binary (give each build)")
    parser.add_argument("--mutants", type=int, default=10000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60, help="seconds per invocation before it counts as a hang")
    parser.add_argument("--out", required=True, help="directory for the summary and the findings")
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS),
                        help="what to mutate (default: every format); mutants take turns among them")
    options = parser.parse_args()
    formats = tuple(options.formats)
    options.binary = [os.path.abspath(binary) for binary in options.binary]
    is_sanitized = {binary: sanitized(binary) for binary in options.binary}

    os.makedirs(os.path.join(options.out, "findings"), exist_ok=True)
    seeds = {fmt: [os.path.join(CORPUS, fmt, name) for name in sorted(os.listdir(os.path.join(CORPUS, fmt)))]
             for fmt in FILE_FORMATS}
    seed_bytes = {fmt: [open(path, "rb").read() for path in paths] for fmt, paths in seeds.items()}
    mutate = {"matrix_market": matrix_mutation, "suite": json_mutation, "report": json_mutation}
    # Database mutants start from one history of the report seeds, made once.
    history = os.path.join(options.out, "seed-history.db")
    if "database" in formats:
        if os.path.exists(history):
            os.remove(history)
        history_cases = make_history(options.binary[0], seeds["report"], history)
    # Suites run what they list: the seeds' sizes made tiny, so that a mutant that stays valid
    # measures for a moment (a mutated size is mostly an extreme one, refused up front).
    tiny_suites = []
    for data in seed_bytes["suite"]:
        suite = json.loads(data)
        for group in suite.get("groups", []):
            for key, tiny in (("sizes", ["64", 128]), ("shapes", ["8x4x2"]), ("rows", ["64"])):
                if key in group:
                    group[key] = tiny
            if group.pop("matrix", None) is not None or ("spmv" in group.get("ops", []) and "sizes" not in group):
                group["rows"] = ["64"]
        tiny_suites.append(json.dumps(suite).encode())
    seed_bytes["suite"] = tiny_suites

    lock = threading.Lock()
    counts = collections.Counter()
    by_binary = collections.Counter()
    slowest = []
    findings = []
    done = [0]
    started = time.monotonic()

    def one_mutant(index):
        rng = random.Random(options.seed * 1000003 + index)
        fmt = formats[index % len(formats)]
        seed_fmt = "report" if fmt == "database" else fmt
        seed_index = rng.randrange(len(seeds[seed_fmt]))
        workdir = tempfile.mkdtemp(prefix="gpubench-campaign-")
        mutant_dir = tempfile.mkdtemp(prefix="gpubench-mutant-")
        seed_copy = os.path.join(mutant_dir, "seed.json")
        with open(seed_copy, "wb") as handle:
            handle.write(seed_bytes[seed_fmt][seed_index])
        if fmt == "database":
            mutant = os.path.join(mutant_dir, "mutant.db")
            shutil.copy(history, mutant)
            database_mutation(rng, mutant, seed_bytes["report"])
            seed = (rng.choice(history_cases), seed_copy)
        else:
            mutant = os.path.join(mutant_dir, "mutant" + (".mtx" if fmt == "matrix_market" else ".json"))
            with open(mutant, "wb") as handle:
                handle.write(mutate[fmt](rng, seed_bytes[fmt][seed_index], seed_bytes[fmt]))
            seed = seed_copy
        results = []
        for name, args, may_exit_1 in commands_for(fmt, mutant, seed, rng):
            codes = {}
            for binary in options.binary:
                writes = name.startswith("run")
                code, stdout, stderr, leftovers, elapsed, full = run_one(binary, args, writes, workdir, options.timeout,
                                                                         is_sanitized[binary])
                problems = problems_of(name, may_exit_1, code, stdout, stderr, leftovers)
                codes[binary] = code
                results.append((fmt, name, binary, code, problems, stdout, stderr, elapsed, full))
            if len(set(codes.values())) > 1:
                results.append((fmt, name, "all", "differ", [f"exit codes differ: {codes}"], "", "", 0, args))
        with lock:
            done[0] += 1
            for fmt_, name, binary, code, problems, stdout, stderr, elapsed, full in results:
                if binary != "all":
                    counts[(fmt_, name, code)] += 1
                    by_binary[(binary, code)] += 1
                    slowest.append((elapsed, " ".join(map(str, full))))
                if problems:
                    finding = os.path.join(options.out, "findings", f"{index:05d}-{fmt_}")
                    os.makedirs(finding, exist_ok=True)
                    shutil.copy(mutant, finding)
                    shutil.copy(seed_copy, finding)
                    with open(os.path.join(finding, "what.txt"), "a", encoding="utf-8") as handle:
                        handle.write(f"{binary} {name}: {problems}\n{full}\nexit {code}\n--- stdout\n{stdout[-3000:]}\n"
                                     f"--- stderr\n{stderr[-3000:]}\n\n")
                    findings.append({"mutant": index, "format": fmt_, "command": name, "binary": binary, "exit": code,
                                     "problems": problems, "stderr": stderr[-500:]})
            if done[0] % 250 == 0:
                print(f"{done[0]}/{options.mutants} mutants, {len(findings)} findings, "
                      f"{time.monotonic() - started:.0f} s", flush=True)
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(mutant_dir, ignore_errors=True)

    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        list(pool.map(one_mutant, range(options.mutants)))

    slowest.sort(reverse=True)
    exit_codes = collections.defaultdict(dict)
    for (fmt, name, code), n in sorted(counts.items(), key=str):
        exit_codes[f"{fmt} / {name}"][str(code)] = n
    summary = {
        "mutants": options.mutants,
        "mutants_per_format": {fmt: sum(1 for i in range(options.mutants) if formats[i % len(formats)] == fmt)
                               for fmt in formats},
        "binaries": options.binary,
        "invocations": sum(by_binary.values()),
        "seconds": round(time.monotonic() - started),
        "exit_codes": exit_codes,
        "exit_codes_per_binary": {binary: {str(code): n for (b, code), n in sorted(by_binary.items(), key=str)
                                           if b == binary} for binary in options.binary},
        "slowest": [f"{seconds:.2f} s: {command}" for seconds, command in slowest[:10]],
        "findings": len(findings),
        "finding_kinds": dict(collections.Counter(problem.split(":")[0] for f in findings for problem in f["problems"])),
    }
    with open(os.path.join(options.out, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2)
    with open(os.path.join(options.out, "findings.json"), "w", encoding="utf-8") as handle:
        json.dump(findings, handle, indent=2)
    print(json.dumps(summary, indent=2))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
