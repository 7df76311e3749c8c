#include "gpu_backend/event_timer.cuh"

namespace gpb::cuda {

double EventTimer::elapsed_seconds() {
  GPB_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
  float milliseconds = 0;
  GPB_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_.get(), stop_.get()));
  return static_cast<double>(milliseconds) * 1e-3;
}

}  // namespace gpb::cuda
