#include "callable_case.hpp"

#include <stdexcept>
#include <utility>

#include "base/errors.hpp"
#include "cpu_backend/cpu_timer.hpp"
#include "model/op_table.hpp"
#include "model/problem.hpp"

namespace gpb::python {
namespace {

class CallablePrepared final : public Prepared {
 public:
  CallablePrepared(const std::function<void()>& call, std::unique_ptr<GpuTiming> gpu, DType output_dtype)
      : call_(call), gpu_(std::move(gpu)), output_dtype_(output_dtype) {}
  void run() override { call_(); }
  void flush_cache() override {
    if (gpu_) gpu_->flush_cache();
  }
  bool has_cache_flush() const override { return gpu_ != nullptr; }
  std::unique_ptr<TelemetrySource> telemetry_source() override { return gpu_ ? gpu_->telemetry_source() : nullptr; }
  EnergySource energy_source() override {
    if (gpu_) return gpu_->energy_source();
    return {nullptr, "a function measured on the CPU: its energy is not measured (RAPL counts the whole package)"};
  }
  bool runs_on_host_threads() const override { return gpu_ == nullptr; }
  GraphCapture capture_graph(std::int64_t launches, bool evictions, bool op) override {
    if (!gpu_) return {nullptr, "a function measured on the CPU launches nothing to capture into a CUDA graph"};
    return gpu_->capture(launches, evictions, op, call_);
  }
  void synchronize() override {
    if (gpu_) gpu_->synchronize();
  }
  std::unique_ptr<SampleTimer> make_timer() override {
    if (gpu_) return gpu_->make_timer();
    return std::make_unique<SteadyClockTimer>();
  }
  HostArray result() override { return HostArray(output_dtype_, 0); }

 private:
  const std::function<void()>& call_;
  std::unique_ptr<GpuTiming> gpu_;
  DType output_dtype_;
};

}  // namespace

CallableBackend::CallableBackend(std::string name, CallableTarget target, std::function<void()> call)
    : name_(std::move(name)), target_(target), call_(std::move(call)) {}

Support CallableBackend::supports(Op op, DType) const {
  return op == callable_op() ? Support{} : no_kernel_for(name_, op);
}

std::unique_ptr<Prepared> CallableBackend::prepare(const Problem& problem, const BackendSettings&) {
  std::unique_ptr<GpuTiming> gpu = target_.device == DeviceKind::gpu ? make_gpu_timing(target_) : nullptr;
  return std::make_unique<CallablePrepared>(call_, std::move(gpu), op_output_dtype(problem.op, problem.dtype));
}

CaseSpec callable_case(const std::string& name, DeviceKind device, std::int64_t size, DType dtype, L2Mode l2,
                       TimingMode timing) {
  if (timing == TimingMode::e2e)
    throw UsageError("timing 'e2e' does not apply to a function (its transfers, if any, are its own): 'kernel' or 'graph'");
  CaseSpec spec;
  spec.timing = timing;
  spec.op = callable_op();
  spec.backend = name;
  spec.dtype = dtype;
  spec.shape.n = size;
  if (device == DeviceKind::gpu) spec.l2 = l2;
  return spec;
}

}  // namespace gpb::python
