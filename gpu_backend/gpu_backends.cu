// Registers the GPU backends and provides the profiler capture hooks.
#include <cuda_profiler_api.h>

#include "backend.hpp"
#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/device.cuh"
#include "gpu_backend/gpu_backends.cuh"

namespace gpb {

void append_gpu_backends(std::vector<std::unique_ptr<Backend>>& out) {
  out.push_back(cuda::make_cuda_kernels_backend());
  out.push_back(cuda::make_cublas_backend());
  out.push_back(cuda::make_cub_backend());
  out.push_back(cuda::make_cusparse_backend());
}

// Without a device there is nothing to capture (CPU-only profiling still works).
void profiler_capture_start() {
  if (cuda::device_availability().available) GPB_CUDA_CHECK(cudaProfilerStart());
}

void profiler_capture_stop() {
  if (cuda::device_availability().available) GPB_CUDA_CHECK(cudaProfilerStop());
}

}  // namespace gpb
