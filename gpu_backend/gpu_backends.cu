// Registers the GPU backends and provides the profiler capture hooks.
#include <cuda_profiler_api.h>

#include <stdexcept>
#include <string>

#include "measure/backend.hpp"
#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/device.cuh"
#include "gpu_backend/gpu_backends.cuh"

namespace gpb {
namespace {

std::unique_ptr<Backend> make_gpu_backend(const GpuBackendEntry& entry) {
  switch (entry.kind) {
    case GpuBackendKind::cuda:
      return cuda::make_cuda_kernels_backend(entry);
    case GpuBackendKind::cublas:
      return cuda::make_cublas_backend(entry);
    case GpuBackendKind::cub:
      return cuda::make_cub_backend(entry);
    case GpuBackendKind::cusparse:
      return cuda::make_cusparse_backend(entry);
  }
  throw std::logic_error(std::string("no factory for GPU backend ") + entry.name);
}

}  // namespace

void append_gpu_backends(std::vector<std::unique_ptr<Backend>>& out) {
  for (const GpuBackendEntry& entry : kGpuBackends) out.push_back(make_gpu_backend(entry));
}

// Without a device there is nothing to capture (CPU-only profiling still works).
void profiler_capture_start() {
  if (cuda::device_availability().available) GPB_CUDA_CHECK(cudaProfilerStart());
}

void profiler_capture_stop() {
  if (cuda::device_availability().available) GPB_CUDA_CHECK(cudaProfilerStop());
}

}  // namespace gpb
