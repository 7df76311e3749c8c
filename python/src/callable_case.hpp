// A function of the caller's, measured by the runner like any case: an op of its own
// ("callable", registered once) and a backend whose prepared case calls the function. The
// runner's rules all apply -- warm-ups, cold launches from an evicted L2 or batches on a
// warm one, noise-based stopping, host time beside device time, telemetry, NVTX ranges --
// because the runner is what measures it; this file only adapts the function to Prepared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "measure/backend.hpp"
#include "measure/runner.hpp"
#include "model/result.hpp"

namespace gpb::python {

// Every callable's record names callable_op(), the op table's entry for functions measured
// from Python: no byte or flop counts (the runner cannot know what a function moves), so
// reports show times only; the program's commands read such records.

// Where the function's work runs and how it is timed.
struct CallableTarget {
  DeviceKind device = DeviceKind::cpu;
  // GPU: the CUDA stream the function enqueues its work on (a cudaStream_t as an integer; 0
  // is the legacy default stream) and the device's ordinal.
  std::uintptr_t stream = 0;
  int ordinal = 0;
};

// What a GPU target needs from the CUDA runtime: a CUDA event timer on the stream, the
// L2 flusher the GPU backends use, the device's NVML sensors and a stream synchronize.
// callable_gpu.cu provides it; without CUDA, callable_gpu_unavailable.cpp refuses.
class GpuTiming {
 public:
  virtual ~GpuTiming() = default;
  virtual std::unique_ptr<SampleTimer> make_timer() = 0;
  virtual void flush_cache() = 0;
  virtual std::unique_ptr<TelemetrySource> telemetry_source() = 0;
  virtual EnergySource energy_source() = 0;
  virtual void synchronize() = 0;
  // `launches` calls of `call` captured on the stream into a CUDA graph (Prepared::capture_graph),
  // each preceded by an L2 eviction with `evictions`; with `op` false, the evictions alone.
  virtual GraphCapture capture(std::int64_t launches, bool evictions, bool op, const std::function<void()>& call) = 0;
};
// std::runtime_error when the target cannot be timed (no CUDA in this build, a bad ordinal).
std::unique_ptr<GpuTiming> make_gpu_timing(const CallableTarget& target);

// A backend named `name` (the function's label in reports: "numpy", "cupy") whose one case
// calls `call` once per run(). `call` throws to fail the case; its exception's message is
// the record's reason.
class CallableBackend final : public Backend {
 public:
  CallableBackend(std::string name, CallableTarget target, std::function<void()> call);
  std::string name() const override { return name_; }
  std::string description() const override { return "a function measured from Python"; }
  DeviceKind kind() const override { return target_.device; }
  Availability availability() const override { return {}; }
  Support supports(Op op, DType) const override;
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override;

 private:
  std::string name_;
  CallableTarget target_;
  std::function<void()> call_;
};

// The case of a callable: op "callable", its size as n (the size a sweep varies, 1 when the
// function has none), the dtype as a label, the L2 mode on GPU targets only (as the plan
// sets it on GPU cases), the timing mode: kernel (calls on the stream, timed by events) or
// graph (calls captured in a CUDA graph, replayed); e2e is a UsageError (a function has no
// transfers of the runner's to time).
CaseSpec callable_case(const std::string& name, DeviceKind device, std::int64_t size, DType dtype, L2Mode l2,
                       TimingMode timing);

}  // namespace gpb::python
