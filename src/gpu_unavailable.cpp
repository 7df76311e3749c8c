// Stand-in for gpu_backend/ in builds without the CUDA toolkit: the GPU backends are
// listed, each unavailable with the reason, so reports and `list` stay complete.
#include <memory>
#include <vector>

#include "backend.hpp"
#include "context.hpp"

namespace gpb {
namespace {

class UnbuiltGpuBackend final : public Backend {
 public:
  UnbuiltGpuBackend(std::string name, std::string description) : name_(std::move(name)), description_(std::move(description)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  DeviceKind kind() const override { return DeviceKind::gpu; }
  Availability availability() const override { return {false, "built without the CUDA toolkit"}; }
  Support supports(Op, DType) const override { return {false, "built without the CUDA toolkit"}; }
  std::unique_ptr<Prepared> prepare(const Problem&, const BackendSettings&) override {
    throw std::runtime_error(name_ + ": built without the CUDA toolkit");
  }

 private:
  std::string name_;
  std::string description_;
};

}  // namespace

void append_gpu_backends(std::vector<std::unique_ptr<Backend>>& out) {
  out.push_back(std::make_unique<UnbuiltGpuBackend>("cuda", "gpubench's own CUDA kernels"));
  out.push_back(std::make_unique<UnbuiltGpuBackend>("cublas", "cuBLAS GEMM"));
  out.push_back(std::make_unique<UnbuiltGpuBackend>("cub", "CUB device-wide primitives"));
  out.push_back(std::make_unique<UnbuiltGpuBackend>("cusparse", "cuSPARSE generic SpMV"));
}

void append_gpu_context(Context& context) { context.notes.push_back("GPU backends unavailable: built without the CUDA toolkit"); }

int visible_gpu_count() { return 0; }

// No GPU, no GPU ceilings: context.gpus is empty in this build.
void measure_gpu_ceilings(Context&, int) {}

void profiler_capture_start() {}
void profiler_capture_stop() {}

}  // namespace gpb
