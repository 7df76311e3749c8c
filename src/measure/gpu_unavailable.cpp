// Stand-in for gpu_backend/ in builds without the CUDA toolkit: the GPU backends are
// listed, each unavailable with the reason, so reports and `list` stay complete.
#include <memory>
#include <vector>

#include "measure/backend.hpp"
#include "measure/context.hpp"
#include "measure/gpu_backend_list.hpp"
#include "measure/one_time_costs.hpp"

namespace gpb {
namespace {

class UnbuiltGpuBackend final : public Backend {
 public:
  explicit UnbuiltGpuBackend(const GpuBackendEntry& entry) : entry_(entry) {}
  std::string name() const override { return entry_.name; }
  std::string description() const override { return entry_.description; }
  DeviceKind kind() const override { return DeviceKind::gpu; }
  Availability availability() const override { return {false, "built without the CUDA toolkit"}; }
  Support supports(Op, DType) const override { return {false, "built without the CUDA toolkit"}; }
  std::unique_ptr<Prepared> prepare(const Problem&, const BackendSettings&) override {
    throw std::runtime_error(name() + ": built without the CUDA toolkit");
  }

 private:
  const GpuBackendEntry& entry_;
};

}  // namespace

void append_gpu_backends(std::vector<std::unique_ptr<Backend>>& out) {
  for (const GpuBackendEntry& entry : kGpuBackends) out.push_back(std::make_unique<UnbuiltGpuBackend>(entry));
}

void append_gpu_context(Context& context) { context.notes.push_back("GPU backends unavailable: built without the CUDA toolkit"); }

int visible_gpu_count() { return 0; }

// No GPU, no GPU ceilings: context.gpus is empty in this build.
void measure_gpu_ceilings(Context&, int) {}

OneTimeCosts measure_context_creation(int device) {
  OneTimeCosts costs;
  costs.device = device;
  costs.context_note = "not measured: built without the CUDA toolkit";
  return costs;
}

void profiler_capture_start() {}
void profiler_capture_stop() {}

}  // namespace gpb
