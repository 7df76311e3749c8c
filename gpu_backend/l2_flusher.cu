#include "gpu_backend/l2_flusher.cuh"

#include "gpu_backend/cuda_check.cuh"

namespace gpb::cuda {

void L2Flusher::flush(cudaStream_t stream) {
  if (scratch_.size() != 0) GPB_CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_.bytes(), stream));
}

}  // namespace gpb::cuda
