// The one interface every backend implements. The runner drives it without knowing
// whether the work happens on a CPU or a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/energy.hpp"
#include "model/host_array.hpp"
#include "model/problem.hpp"
#include "model/telemetry.hpp"
#include "model/types.hpp"

namespace gpb {

// Times one sample. CPU backends use std::chrono::steady_clock; GPU backends a CUDA
// event pair recorded on the backend's own stream.
class SampleTimer {
 public:
  virtual ~SampleTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Blocks until the work between start() and stop() has finished; returns seconds.
  virtual double elapsed_seconds() = 0;
  virtual std::string name() const = 0;  // "steady_clock", "cuda_event"
  // The timer's resolution in seconds; 0 when negligible or unknown.
  virtual double resolution_s() const { return 0; }
};

// Settings that change what a backend computes or how; part of a case's identity.
struct BackendSettings {
  int threads = 0;       // CPU worker threads (0: all cores); recorded as the value used
  bool tf32 = false;     // cuBLAS f32 matmul on tensor cores (TF32)
  SpmvKernelChoice spmv_kernel = SpmvKernelChoice::automatic;  // the cuda backend's SpMV kernel
  int device = 0;        // CUDA device ordinal
};

// A batch of a case's launches captured once (a CUDA graph on the case's stream), for
// --timing graph: replaying it enqueues every launch with one call, so the samples hold the
// op's own time without a launch's host overhead per op.
class LaunchGraph {
 public:
  virtual ~LaunchGraph() = default;
  // Enqueues the whole batch on the case's stream (asynchronous: the case's timer orders after it).
  virtual void replay() = 0;
  // The op's launches in one replay.
  virtual std::int64_t launches() const = 0;
};

// What capturing a case's launches gave: a graph, or why there is none (the case is then
// skipped with that reason; it is never timed another way).
struct GraphCapture {
  std::unique_ptr<LaunchGraph> graph;
  std::string reason;
};

// A case made ready to run: buffers allocated and filled, handles created, workspace
// sized. Nothing in here is timed except run(), upload() and download().
class Prepared {
 public:
  virtual ~Prepared() = default;
  // One iteration of the op. May be asynchronous: the timer's stop() orders after it.
  virtual void run() = 0;
  // Host-to-device copy of the inputs and device-to-host copy of the outputs, the
  // end-to-end phases. Backends whose data already lives on the host return false
  // from has_transfers() and leave these empty.
  virtual bool has_transfers() const { return false; }
  virtual void upload() {}
  virtual void download() {}
  // Evicts the last-level cache that the op's inputs could sit in (GPU: a read over a
  // buffer of twice the L2 size, allocated on the first call). Called outside the timed
  // region, and never for a case measured with a warm cache.
  virtual void flush_cache() {}
  // Whether flush_cache() evicts anything. A case that flushes times single launches:
  // in a batch, every launch after the first would find the cache warm again.
  virtual bool has_cache_flush() const { return false; }
  // The sensors of the device this case runs on, read beside the timed region; nullptr
  // where there are none to read (CPU cases, a GPU without NVML).
  virtual std::unique_ptr<TelemetrySource> telemetry_source() { return nullptr; }
  // The energy counter of the device this case runs on (a GPU's NVML counter, the CPU's
  // RAPL packages), or why there is none; read around the timed samples, never inside one.
  virtual EnergySource energy_source() { return {nullptr, "this backend has no energy counter"}; }
  // Whether the op's work runs on this process's threads (CPU backends): the runner then
  // records what the rest of the machine did to them while measuring (host interference).
  virtual bool runs_on_host_threads() const { return false; }
  // Waits for all outstanding work of this case.
  virtual void synchronize() {}
  // Captures `launches` runs of run() into a graph and instantiates it (untimed). With
  // `evictions`, an L2 eviction (what flush_cache() does) precedes every run, so each one
  // reads its inputs from DRAM; with `op` false, the graph holds the evictions alone (its
  // replay is what the runner subtracts). Cases that cannot be captured say why: a CPU case,
  // or a library call that allocates or synchronises inside run().
  virtual GraphCapture capture_graph(std::int64_t /*launches*/, bool /*evictions*/, bool /*op*/) {
    return {nullptr, "this backend's cases cannot be captured into a CUDA graph"};
  }
  virtual std::unique_ptr<SampleTimer> make_timer() = 0;
  // The op's output, copied to the host (untimed), for verification.
  virtual HostArray result() = 0;
  // Unit roundoff of the arithmetic the case really used, where it is coarser than the
  // dtype's (TF32 matmul: 2^-11); 0 means the dtype's own. Verification scales with it.
  virtual double unit_roundoff_override() const { return 0; }
  // Free-form facts about how the case ran ("kernel=vector", "algo=CUSPARSE_SPMV_CSR_ALG1").
  virtual std::string details() const { return {}; }
};

struct Availability {
  bool available = true;
  std::string reason;  // why not, e.g. "no CUDA device" or "built without the CUDA toolkit"
};

struct Support {
  bool supported = true;
  std::string reason;  // why not, e.g. "openblas has no sin; use eigen"
};

// A backend's answer for an op it has no kernel for (one defined outside the core, say).
Support no_kernel_for(const std::string& backend, Op op);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual DeviceKind kind() const = 0;
  virtual Availability availability() const = 0;
  virtual Support supports(Op op, DType dtype) const = 0;
  // Throws std::runtime_error (e.g. out of device memory): the case fails with that
  // message and the run goes on.
  virtual std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) = 0;
  // Threads actually used for these settings (CPU backends); 0 where not meaningful.
  virtual int threads_used(const BackendSettings&) const { return 0; }
};

// Whether a backend's cases can be measured with a timing mode: graph timing captures GPU
// launches, so a CPU backend's graph case is skipped with this reason (a run whose every case
// is skipped is refused, as for any other skip reason).
Support timing_support(const Backend& backend, TimingMode timing);

// The backend of that name; UsageError listing the known ones.
Backend& find_backend(std::vector<std::unique_ptr<Backend>>& backends, const std::string& name);

// All backends known to this build, CPU first; GPU backends appear even when they
// cannot run (their availability says why); then those register_backend added.
std::vector<std::unique_ptr<Backend>> make_all_backends();

// Adds a backend defined outside the core (a test's) to every later make_all_backends, so
// that the plan, `gpubench list` and the runner find it by name as they find the built-in
// ones. std::invalid_argument when its name is taken.
void register_backend(std::function<std::unique_ptr<Backend>()> factory);

// Provided by cpu_backend/ and by gpu_backend/ (or its stand-in when built without CUDA).
void append_cpu_backends(std::vector<std::unique_ptr<Backend>>& out);
void append_gpu_backends(std::vector<std::unique_ptr<Backend>>& out);

// Profiler capture range (cudaProfilerStart/Stop) around the measured phases in
// --profile mode, so `nsys profile --capture-range=cudaProfilerApi` records exactly them.
// No-ops without CUDA. Provided by gpu_backend/ or its stand-in.
void profiler_capture_start();
void profiler_capture_stop();

}  // namespace gpb
