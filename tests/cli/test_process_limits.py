"""gpubench under the limits a shell or a container sets: an address-space limit (ulimit -v),
a file-size limit (ulimit -f), a memory budget. No command hangs, every failure is one line,
no temporary file stays behind, and a small run takes little memory. Each limit is set with
`ulimit` in the shell that starts gpubench."""
import functools
import os
import re
import shlex
import subprocess
import sys
import time

import unittest

from gpubench_cli import FAST, GPUBENCH, SANITIZED, CliTestCase, main

QUICK_SUM = ["run", "--op", "sum", "--size", "1K", "--backend", "eigen", *FAST]
GIB_IN_KIB = 1024 * 1024


def ulimit_command(limit, args, shell_tail=""):
    """A shell command that sets the limit and execs gpubench with args, then shell_tail as
    the shell reads it (a process substitution)."""
    return f"ulimit {limit} && exec {shlex.quote(GPUBENCH)} {' '.join(shlex.quote(arg) for arg in args)} {shell_tail}"


def limited(limit, *args, cwd=None, timeout=120):
    """gpubench args under `ulimit <limit>` in a subshell (which execs gpubench); a hang
    fails the test after timeout seconds."""
    process = subprocess.Popen(["bash", "-c", ulimit_command(limit, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL, cwd=cwd)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(f"gpubench {' '.join(args)} under ulimit {limit} still ran after {timeout} s (a hang)")
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)


def peak_resident_bytes(limit, *args, shell_tail=""):
    """Runs gpubench args under `ulimit <limit>` and returns (CompletedProcess, its peak
    resident set in bytes), from wait4's rusage of that one process."""
    with open(os.devnull, "wb") as null:
        process = subprocess.Popen(["bash", "-c", ulimit_command(limit, args, shell_tail)], stdout=null, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        with process.stderr:
            stderr = process.stderr.read().decode(errors="replace")
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    return subprocess.CompletedProcess(args, process.returncode, "", stderr), usage.ru_maxrss * 1024


def links_cuda_libraries():
    """Whether the binary loads the CUDA libraries (a build with the GPU backends)."""
    linked = subprocess.run(["ldd", GPUBENCH], capture_output=True, text=True).stdout
    return "libcublas" in linked or "libcudart" in linked


@functools.lru_cache(maxsize=None)
def cuda_libraries_kib():
    """The address space cuBLAS and cuSPARSE (with cuBLASLt) map once loaded, in KiB; 0 in a
    build without them. gpubench loads them when a run's context names their versions, not at
    start: their files, from the loader's log of `gpubench info`, loaded into a fresh Python,
    whose address space is read before and after."""
    log = subprocess.run([GPUBENCH, "info"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                         env=dict(os.environ, LD_DEBUG="files")).stderr
    paths = sorted(set(re.findall(r"calling init: (\S*/lib(?:cublas|cusparse)\.so\.\d+)$", log, re.MULTILINE)))
    if not paths:
        return 0
    code = ("import ctypes, sys\n"
            "def size():\n"
            "    with open('/proc/self/status') as status:\n"
            "        return int(status.read().split('VmSize:')[1].split()[0])\n"
            "before = size()\n"
            "for path in sys.argv[1:]:\n"
            "    ctypes.CDLL(path)\n"
            "print(size() - before)\n")
    loaded = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, check=True)
    return int(loaded.stdout)


@functools.lru_cache(maxsize=None)
def mapped_at_start_kib():
    """The address space gpubench maps before it measures, in KiB: its libraries, read from
    /proc while `gpubench report /dev/stdin` waits for its input, and the CUDA libraries a run
    loads for its context (about 1 GiB in a build with the GPU backends, whether or not a GPU
    is there)."""
    libraries = cuda_libraries_kib()
    process = subprocess.Popen([GPUBENCH, "report", "/dev/stdin"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        for _ in range(500):
            with open(f"/proc/{process.pid}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
            with open(f"/proc/{process.pid}/wchan") as wchan:
                waiting = wchan.read().strip() not in ("", "0")
            if waiting and fields["State"].strip().startswith("S") and "VmSize" in fields:
                return int(fields["VmSize"].split()[0]) + libraries
            time.sleep(0.01)
        raise AssertionError("gpubench report /dev/stdin never waited for its input")
    finally:
        process.stdin.close()
        process.wait()


def tight_limit_kib():
    """The address-space limit the tests below hold gpubench to, in KiB: a gibibyte (a small
    container's), or, where the binary's own libraries already map nearly all of that (the CUDA
    libraries: about 980 MiB before main in a build with the GPU backends, most of it cuBLASLt),
    its start plus 128 MiB: room for OpenBLAS to load (about 50 MiB with libgfortran), far short
    of the 128 MiB a thread of its buffers asks for on a machine of several cores."""
    return max(GIB_IN_KIB, mapped_at_start_kib() + 128 * 1024)


SPMV_FROM_MATRIX = ["run", "--op", "spmv", "--backend", "eigen", *FAST, "--matrix"]


@functools.lru_cache(maxsize=None)
def footprint_of_a_short_matrix():
    """The peak resident set of the matrix tests' command when the text is three lines, the
    last one bad: what a run takes before and around the read (the binary, its libraries and,
    on a machine with a GPU, what starting CUDA maps: there, on an H100, these runs peaked about
    250 MiB above `gpubench --version`), so that the tests below measure only what a long text
    adds."""
    text = "<(printf '%%%%MatrixMarket matrix coordinate real general\\n2 2 1\\n1 1 x\\n')"
    process, peak = peak_resident_bytes("-v unlimited", *SPMV_FROM_MATRIX, shell_tail=text)
    if process.returncode != 2 or "value 'x' is not a number" not in process.stderr:
        raise AssertionError(f"the three-line matrix was not refused as expected: {process.stderr}")
    return peak


@unittest.skipIf(SANITIZED, "ASan maps terabytes of shadow memory: address-space limits and resident-set "
                 "bounds apply to the release build, whose run of this file checks them")
class AddressSpaceLimit(CliTestCase):
    def test_no_command_hangs_under_a_limit(self):
        # OpenBLAS used to start a thread per core as it loaded, each looping on a 128 MiB
        # allocation that failed, and exit() waited for them: --version never returned (under
        # 1 GiB on a machine of many cores; under 200 MiB on one of two).
        # A build with the GPU backends starts the CUDA runtime for `list` (and, on a machine
        # with a device, the driver and the libraries whose backends it lists, about 1 GiB):
        # that build is held to tight_limit_kib() alone.
        limits = (tight_limit_kib(),) if links_cuda_libraries() else (200 * 1024, tight_limit_kib())
        for limit in limits:
            for args in (["--version"], ["list"]):
                with self.subTest(limit=limit, args=args[0]):
                    self.assertOk(limited(f"-v {limit}", *args, timeout=60))
        self.assertOk(limited(f"-v {tight_limit_kib()}", *QUICK_SUM, "--out", os.path.join(self.dir, "r.json"),
                              timeout=60))

    def test_openblas_threads_beyond_the_limit_fail_the_case_with_one_reason(self):
        process = limited(f"-v {tight_limit_kib()}", "run", "--op", "matmul", "--size", "64", "--backend", "openblas",
                          "--threads", "16", *FAST, timeout=60)
        self.assertEqual(process.returncode, 3, process.stderr)
        output = " ".join((process.stdout + process.stderr).split())  # the summary wraps its lines
        self.assertIn("16 threads need about", output)
        self.assertIn("(ulimit -v): use fewer --threads or raise the limit", output)

    def test_openblas_within_the_limit_runs(self):
        # A gibibyte beyond what the binary's libraries map: OpenBLAS takes about 200 MiB a thread.
        self.assertOk(limited(f"-v {mapped_at_start_kib() + GIB_IN_KIB}", "run", "--op", "matmul", "--size", "64", "--backend", "openblas",
                              "--threads", "2", *FAST, "--quiet", timeout=60))

    def test_an_allocation_beyond_the_limit_is_one_line(self):
        # 256M doubles (2 GiB) under the tight limit.
        process = limited(f"-v {tight_limit_kib()}", "run", "--op", "sum", "--size", "256M", "--dtype", "f64", "--backend",
                          "eigen", *FAST, "--quiet", timeout=120)
        self.assertUsageError(process)
        self.assertRegex(process.stderr, r"memory|ulimit -v")


class FileSizeLimit(CliTestCase):
    def test_a_report_beyond_the_limit_fails_and_leaves_no_temporary_file(self):
        # ulimit -f counts 1024-byte blocks: a report of one case is several KiB.
        process = limited("-f 2", *QUICK_SUM, "--out", "r.json", "--quiet", cwd=self.dir)
        self.assertUsageError(process, "cannot write report 'r.json'", "File too large")
        self.assertEqual(os.listdir(self.dir), [], "a report or its temporary file stayed behind")


@unittest.skipIf(SANITIZED, "ASan maps terabytes of shadow memory: address-space limits and resident-set "
                 "bounds apply to the release build, whose run of this file checks them")
class MemoryFootprint(CliTestCase):
    def test_a_small_run_sizes_its_copy_probe_to_the_limit(self):
        # The host copy-bandwidth probe took two buffers of up to 1 GiB whatever the machine
        # allowed, so a 1K-element sum peaked at 1 to 2 GiB. Under a 3 GiB address-space
        # limit it takes at most an eighth of what is left.
        process, peak = peak_resident_bytes(f"-v {3 * GIB_IN_KIB}", *QUICK_SUM, "--out",
                                            os.path.join(self.dir, "r.json"), "--quiet")
        self.assertOk(process)
        self.assertLess(peak, 512 << 20, f"a 1K-element sum peaked at {peak >> 20} MiB under a 3 GiB limit")

    def test_a_matrix_is_read_as_a_stream(self):
        # 300 MB of comments from a pipe, then a bad entry: the text used to be read whole
        # into memory before parsing (a 3 GB pipe peaked at 6.5 GB).
        text = ("<({ printf '%%%%MatrixMarket matrix coordinate real general\\n'; "
                "yes '% a comment line, one of many' | head -c 300M; printf '\\n2 2 1\\n1 1 x\\n'; })")
        process, peak = peak_resident_bytes("-v unlimited", *SPMV_FROM_MATRIX, shell_tail=text)
        self.assertUsageError(process, "value 'x' is not a number")
        grown = peak - footprint_of_a_short_matrix()
        self.assertLess(grown, 128 << 20, f"reading a 300 MB matrix text took {grown >> 20} MiB more than a three-line one")

    def test_an_endless_line_is_refused_after_a_mebibyte(self):
        process, peak = peak_resident_bytes("-v unlimited", *SPMV_FROM_MATRIX, shell_tail="<(head -c 3G /dev/zero)")
        self.assertUsageError(process, "line 1: longer than 1 MiB (not a Matrix Market text?)")
        grown = peak - footprint_of_a_short_matrix()
        self.assertLess(grown, 128 << 20, f"reading /dev/zero as a matrix took {grown >> 20} MiB more than a three-line matrix")


if __name__ == "__main__":
    main()
