#include "callable_case.hpp"

#include <stdexcept>
#include <utility>

#include "cpu_backend/cpu_timer.hpp"
#include "model/op_table.hpp"
#include "model/problem.hpp"

namespace gpb::python {
namespace {

OpDef callable_definition() {
  OpDef def;
  def.name = kCallableOpName;
  def.description = "a function measured from Python";
  def.input_distribution = "the caller's";
  def.shape_kind = ShapeKind::elements;
  def.bound = Bound::memory;
  // What a function moves and computes is unknown here: no rates.
  def.shows_bandwidth = false;
  def.shows_flop_rate = false;
  def.bytes = [](const Shape&, DType) { return 0.0; };
  def.flops = [](const Shape&) { return 0.0; };
  // The function's output stays in Python: the reference= check compares it there.
  def.output_size = [](const Shape&) { return std::int64_t{0}; };
  def.build_inputs = [](Problem& problem) {
    require_positive(problem.shape.n, "callable size");
    problem.input_distribution = "the caller's";
  };
  def.references = [](const Problem&, const std::vector<std::int64_t>& entries) {
    return std::vector<Reference>(entries.size());
  };
  def.tolerance = [](const Problem&, const Rounding&) { return 0.0; };
  def.error_scale = "|y - reference| / (atol + rtol |reference|)";
  return def;
}

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
  bool runs_on_host_threads() const override { return gpu_ == nullptr; }
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

Op callable_op() {
  static const Op op = register_op(callable_definition());
  return op;
}

CallableBackend::CallableBackend(std::string name, CallableTarget target, std::function<void()> call)
    : name_(std::move(name)), target_(target), call_(std::move(call)) {}

Support CallableBackend::supports(Op op, DType) const {
  return op == callable_op() ? Support{} : no_kernel_for(name_, op);
}

std::unique_ptr<Prepared> CallableBackend::prepare(const Problem& problem, const BackendSettings&) {
  std::unique_ptr<GpuTiming> gpu = target_.device == DeviceKind::gpu ? make_gpu_timing(target_) : nullptr;
  return std::make_unique<CallablePrepared>(call_, std::move(gpu), op_output_dtype(problem.op, problem.dtype));
}

CaseSpec callable_case(const std::string& name, DeviceKind device, std::int64_t size, DType dtype, L2Mode l2) {
  CaseSpec spec;
  spec.op = callable_op();
  spec.backend = name;
  spec.dtype = dtype;
  spec.shape.n = size;
  if (device == DeviceKind::gpu) spec.l2 = l2;
  return spec;
}

}  // namespace gpb::python
