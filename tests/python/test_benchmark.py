"""gpubench.benchmark and compare_functions on the CPU: the runner calling back into Python."""

import time

import pytest

import gpubench

QUICK = dict(min_samples=5, min_time=0.0, max_time=0.2)


class Counted:
    def __init__(self, work=lambda: None):
        self.calls = 0
        self.work = work

    def __call__(self, *args):
        self.calls += 1
        return self.work(*args)


def test_cpu_record_holds_the_runners_measurement():
    numpy = pytest.importorskip("numpy")
    x = numpy.random.default_rng(7).random(1 << 12)
    results = gpubench.benchmark(numpy.sum, (x,), size=x.size, dtype="f64", **QUICK)
    record = results[0]
    assert record["op"] == "callable" and record["backend"] == "numpy" and record["device"] == "cpu"
    assert record["id"] == "callable/numpy/f64/4096"
    assert record["status"] == "ok"
    assert record["settings"]["timer"] == "steady_clock" and record["settings"]["l2"] is None
    assert len(record["samples_s"]) == len(record["host_samples_s"]) == record["statistics"]["count"] >= 5
    low, high = results.median_ci
    assert low <= results.median <= high
    assert record["verification"] == {"checked": False, "passed": False, "entries_checked": 0, "max_error": 0.0,
                                      "tolerance": 0.0, "method": "not checked (no reference given)"}
    assert record["cpu_telemetry"] is not None  # host interference, as the CPU backends record
    assert results.context["settings"]["min_samples"] == 5


def test_every_call_is_the_runners():
    # the first call, warm-ups, the calibration's call and batch of 8 (a call under 1 ms), then
    # batch calls per sample: nothing else calls it (a CPU callable has no host-cost calls: its
    # work runs on the calling thread).
    function = Counted()
    record = gpubench.benchmark(function, warmup=4, **QUICK)[0]
    assert record["settings"]["warmup"] == 4
    assert record["first_call"] is not None and record["host_cost"] is None
    assert function.calls == 1 + 4 + 1 + 8 + record["settings"]["batch"] * record["statistics"]["count"]


def test_a_sleep_is_timed_at_least_as_long():
    record = gpubench.benchmark(lambda: time.sleep(0.002), min_samples=3, min_time=0.0, max_time=0.1)[0]
    assert record["statistics"]["min"] >= 0.002
    assert min(record["host_samples_s"]) >= 0.002


def test_reference_check_passes_and_fails():
    numpy = pytest.importorskip("numpy")
    x = numpy.linspace(0, 1, 1000)
    good = gpubench.benchmark(numpy.sqrt, (x,), reference=lambda v: numpy.sqrt(v.astype(numpy.float64)), **QUICK)[0]
    assert good["status"] == "ok"
    assert good["verification"]["checked"] and good["verification"]["passed"]
    assert good["verification"]["entries_checked"] == 1000
    bad = gpubench.benchmark(numpy.sqrt, (x,), reference=lambda v: v, **QUICK)[0]
    assert bad["status"] == "failed" and not bad["verification"]["passed"]
    assert bad["verification"]["max_error"] > 1 and "verification failed" in bad["reason"]


def test_no_energy_says_so_in_the_record():
    record = gpubench.benchmark(lambda: None, no_energy=True, **QUICK)[0]
    assert record["status"] == "ok"
    assert record["energy"]["reason"] == "not measured: --no-energy"
    assert gpubench.benchmark(lambda: None, **QUICK)[0]["energy"]["reason"] != "not measured: --no-energy"
    with pytest.raises(ValueError, match="no_energy"):
        gpubench.benchmark(lambda: None, no_energy="yes", **QUICK)


def test_unknown_and_bad_settings_are_value_errors():
    with pytest.raises(ValueError, match=r"unknown setting 'min_sample'.*did you mean 'min_samples'"):
        gpubench.benchmark(lambda: None, min_sample=3)
    with pytest.raises(ValueError, match=r"unknown setting 'seed'"):
        gpubench.benchmark(lambda: None, seed=3)
    with pytest.raises(ValueError, match="l2"):
        gpubench.benchmark(lambda: None, l2="cold", **QUICK)
    with pytest.raises(ValueError, match="max_noise"):
        gpubench.benchmark(lambda: None, max_noise=2.0)
    with pytest.raises(ValueError, match="device"):
        gpubench.benchmark(lambda: None, device="tpu")


def test_the_functions_exception_comes_back_as_raised():
    with pytest.raises(ZeroDivisionError):
        gpubench.benchmark(lambda: 1 / 0, **QUICK)


def test_cuda_target_without_cuda_or_library_is_explained(monkeypatch):
    import sys
    if not gpubench.have_cuda:
        with pytest.raises(RuntimeError, match="without the CUDA toolkit"):
            gpubench.benchmark(lambda: None, device="cuda", stream=0, **QUICK)
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ValueError, match="CuPy or PyTorch"):
        gpubench._benchmark.resolve_target(lambda: None, (), {}, "cuda", None)


def test_device_is_found_from_the_arguments_and_what_a_function_reads():
    class FakeCupyArray:
        pass
    FakeCupyArray.__module__ = "cupy._core.core"
    resolve = gpubench._benchmark.resolve_target
    assert resolve(lambda v: v, (1.0,), {}, None, None)[0] == "cpu"
    assert gpubench._benchmark._gpu_library([FakeCupyArray()]) == "cupy"
    held = FakeCupyArray()
    assert gpubench._benchmark._gpu_library(gpubench._benchmark._referenced_values(lambda: held)) == "cupy"
    assert resolve(lambda: None, (), {}, "cpu", None)[0] == "cpu"


def test_compare_functions_sweeps_and_renders(tmp_path):
    numpy = pytest.importorskip("numpy")
    results = gpubench.compare_functions(
        {"numpy": numpy.sum, "python": lambda v: sum(v.tolist())}, sizes=[256, 1024],
        make_args=lambda n, name: numpy.ones(n), reference="numpy", dtype="f64", **QUICK)
    assert [record["id"] for record in results] == ["callable/numpy/f64/256", "callable/python/f64/256",
                                                    "callable/numpy/f64/1024", "callable/python/f64/1024"]
    assert all(record["status"] == "ok" for record in results)
    # The reference is checked against a second call of itself: verified, as the others are.
    assert all(record["verification"]["checked"] and record["verification"]["passed"] for record in results)
    assert isinstance(results.summary(), str)
    page = results.html(tmp_path / "sweep.html")
    assert page.lstrip().lower().startswith("<!doctype html") and "callable/python/f64/1024" in page
    assert (tmp_path / "sweep.html").read_text() == page
    with pytest.raises(ValueError, match="reference 'cupy'"):
        gpubench.compare_functions({"numpy": numpy.sum}, [8], lambda n, name: numpy.ones(n), reference="cupy")


def test_nvtx_ranges_are_named_after_the_function(tmp_path):
    import os
    import subprocess
    import sys
    recorder = os.environ.get("GPUBENCH_NVTX_RECORDER")
    if not gpubench._core.have_nvtx or not recorder:
        pytest.skip("built without NVTX, or no NVTX recorder library (ctest names it)")
    log = tmp_path / "nvtx.log"
    script = ("import gpubench\n"
              "def scaled_sum():\n    return sum(range(100))\n"
              "gpubench.benchmark(scaled_sum, min_samples=3, min_time=0, max_time=0.1)\n")
    env = dict(os.environ, NVTX_INJECTION64_PATH=recorder, GPUBENCH_NVTX_LOG=str(log))
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=120)
    pushed = [line.split("|", 1)[1] for line in log.read_text().splitlines() if line.startswith("push ")]
    assert pushed[:5] == ["scaled_sum", "callable/numpy/f32/1", "prepare", "first_call", "warmup"], pushed
    assert "measure" in pushed


def test_function_records_are_read_by_compare_report_and_history(gpubench_cli, tmp_path):
    # Op "callable" is the op table's: the program's commands read what benchmark() saves.
    first = gpubench.benchmark(lambda: sum(range(100)), name="loop", size=100, **QUICK)
    second = gpubench.benchmark(lambda: sum(range(100)), name="loop", size=100, **QUICK)
    first.save(tmp_path / "a.json")
    second.save(tmp_path / "b.json")
    compared = gpubench_cli("compare", tmp_path / "a.json", tmp_path / "b.json", check=False)
    assert compared.returncode in (0, 1, 4), compared.stderr  # a verdict, not a refusal (2)
    assert "callable/loop/f32/100" in compared.stdout
    assert "callable/loop/f32/100" in gpubench_cli("report", tmp_path / "a.json").stdout
    database = tmp_path / "history.db"
    gpubench_cli("history", "ingest", tmp_path / "a.json", "--db", database)
    gpubench_cli("history", "ingest", tmp_path / "b.json", "--db", database)
    shown = gpubench_cli("history", "show", "--db", database, "--case", "callable/loop/f32/100", check=False)
    assert shown.returncode == 0, shown.stderr
    assert "callable/loop/f32/100" in shown.stdout


def test_callable_is_no_op_of_run():
    with pytest.raises(ValueError, match="gpubench.benchmark"):
        gpubench.run(op="callable")
    with pytest.raises(ValueError) as raised:
        gpubench.run(op="summ")
    assert "sum" in str(raised.value) and "callable" not in str(raised.value)


def test_timing_modes_of_a_function():
    with pytest.raises(ValueError, match="'kernel' or 'graph'"):
        gpubench.benchmark(lambda: None, timing="e2e", **QUICK)
    with pytest.raises(ValueError, match="did you mean 'graph'"):
        gpubench.benchmark(lambda: None, timing="grph", **QUICK)
    # A CPU function launches nothing a CUDA graph could hold: the case says why.
    with pytest.raises(RuntimeError, match="CUDA graph"):
        gpubench.benchmark(lambda: None, timing="graph", **QUICK)


def test_ctrl_c_stops_a_run_after_its_current_sample(tmp_path):
    # A run that would take 60 s (min_time per case) stops within seconds of SIGINT and raises
    # KeyboardInterrupt, as Ctrl-C at a prompt would; Python's own handler is back afterwards.
    import os
    import signal
    import subprocess
    import sys
    script = tmp_path / "interrupted.py"
    script.write_text(
        "import signal, sys, gpubench\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    gpubench.run(op='sum', size=4096, backend='eigen', dtype='f32', min_time=60, max_time=60,\n"
        "                 max_noise=1e-9, max_samples=1000000)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
        "    sys.exit(0)\n"
        "sys.exit(3)\n")
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=os.environ.copy())
    assert process.stdout.readline().strip() == "started"
    time.sleep(2.0)  # inside the run's samples (the import and start-up are done)
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("the run did not stop within 30 s of SIGINT")
    assert process.returncode == 0, (out, err)
    assert "interrupted" in out
    assert time.monotonic() - started < 30
