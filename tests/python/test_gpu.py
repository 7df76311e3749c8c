"""GPU paths: CuPy and PyTorch functions timed with CUDA events on their current streams, the
L2 flusher before each cold sample, telemetry, and a NumPy-versus-CuPy crossover. Skipped,
with the reason, without a CUDA build, a device, or the library."""

import pytest

import gpubench

pytestmark = pytest.mark.gpu
QUICK = dict(min_samples=10, min_time=0.0, max_time=1.0)


def need_cuda_build():
    if not gpubench.have_cuda:
        pytest.skip("gpubench was built without the CUDA toolkit")


@pytest.fixture
def cupy():
    need_cuda_build()
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as error:
        pytest.skip(f"no CUDA device: {error}")
    return cupy


@pytest.fixture
def torch():
    need_cuda_build()
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


def test_cupy_function_on_its_stream(cupy):
    x = cupy.random.default_rng(1).random(1 << 24, dtype=cupy.float32)
    results = gpubench.benchmark(lambda: cupy.sum(x), size=x.size, reference=lambda: float(x.astype(cupy.float64).sum()),
                                 rtol=1e-4, **QUICK)
    record = results[0]
    assert record["device"] == "gpu" and record["backend"] == "cupy" and record["status"] == "ok"
    assert record["settings"]["timer"] == "cuda_event" and record["settings"]["l2"] == "flush"
    assert record["settings"]["batch"] == 1  # cold launches are timed one by one
    assert record["verification"]["passed"]
    assert len(record["host_samples_s"]) == len(record["samples_s"])
    assert 0 < record["statistics"]["median"] < 0.1


def test_cupy_on_a_stream_of_its_own(cupy):
    x = cupy.ones(1 << 20, dtype=cupy.float32)
    with cupy.cuda.Stream(non_blocking=True) as stream:
        record = gpubench.benchmark(lambda: cupy.sqrt(x), l2="warm", **QUICK)[0]
        assert gpubench._benchmark._stream_of("cupy")[0] == stream.ptr
    assert record["status"] == "ok" and record["settings"]["l2"] == "warm"


def test_torch_function_on_its_stream(torch):
    a = torch.randn(1024, 1024, device="cuda")
    record = gpubench.benchmark(torch.matmul, (a, a), reference=lambda p, q: (p.double() @ q.double()), rtol=1e-2,
                                atol=1e-2, **QUICK)[0]
    assert record["backend"] == "torch" and record["device"] == "gpu" and record["status"] == "ok"
    assert record["verification"]["passed"]


def test_cold_and_warm_l2_for_an_l2_sized_input(cupy):
    # A quarter of the L2: a warm cache holds it, a flushed one does not.
    l2_bytes = cupy.cuda.Device().attributes["L2CacheSize"]
    x = cupy.ones(l2_bytes // 4 // 4, dtype=cupy.float32)
    cold = gpubench.benchmark(lambda: cupy.sum(x), l2="flush", **QUICK)[0]
    warm = gpubench.benchmark(lambda: cupy.sum(x), l2="warm", **QUICK)[0]
    assert cold["settings"]["l2"] == "flush" and warm["settings"]["l2"] == "warm"
    assert cold["status"] == warm["status"] == "ok"


def test_numpy_against_cupy_crossover(cupy, tmp_path):
    numpy = pytest.importorskip("numpy")
    results = gpubench.compare_functions(
        {"numpy": numpy.sum, "cupy": cupy.sum}, sizes=[1 << 10, 1 << 16, 1 << 22],
        make_args=lambda n, name: (cupy if name == "cupy" else numpy).ones(n, dtype="float32"),
        reference="numpy", rtol=1e-4, **QUICK)
    assert {record["device"] for record in results} == {"cpu", "gpu"}
    summary = results.summary()
    assert "numpy" in summary and "cupy" in summary
    assert "<html" in results.html(tmp_path / "sweep.html").lower()


def test_graph_timing_of_a_cupy_function(cupy):
    # Captured on a stream of its own (CuPy's current one is the default stream, which cannot be
    # captured), replayed: the record says so; with l2="flush" each call follows an eviction.
    x = cupy.ones(1 << 16, dtype=cupy.float32)
    for l2 in ("warm", "flush"):
        record = gpubench.benchmark(lambda: cupy.sqrt(x), timing="graph", l2=l2, **QUICK)[0]
        assert record["status"] == "ok", record["reason"]
        assert record["settings"]["timing"] == "graph" and record["settings"]["l2"] == l2
        assert "CUDA graph of" in record["settings"]["timing_note"], record["settings"]["timing_note"]
        assert record["id"].startswith("callable/cupy/f32/")


def test_graph_timing_of_a_torch_function(torch):
    a = torch.ones(1 << 16, device="cuda")
    record = gpubench.benchmark(lambda: torch.sqrt(a), timing="graph", l2="warm", **QUICK)[0]
    assert record["status"] == "ok", record["reason"]
    assert record["backend"] == "torch" and record["settings"]["timing"] == "graph"


def test_the_default_stream_cannot_be_captured(cupy):
    x = cupy.ones(1 << 10, dtype=cupy.float32)
    with pytest.raises(RuntimeError, match="default stream"):
        gpubench.benchmark(lambda: cupy.sqrt(x), timing="graph", stream=0, l2="warm", **QUICK)
