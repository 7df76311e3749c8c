#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/l2_flusher.cuh"
#include "kernels/l2_evict.cuh"

namespace gpb::cuda {
namespace {

// The scratch words are zero, so the XOR of what is read is zero: any non-zero value is
// one the kernel never sees.
constexpr unsigned kImpossibleFold = 0x9e3779b9u;

}  // namespace

L2Flusher::L2Flusher(std::size_t l2_bytes, int sm_count)
    : scratch_(2 * l2_bytes / sizeof(uint4), "L2 flush buffer"), sink_(l2_bytes == 0 ? 0 : 1, "L2 flush sink") {
  if (scratch_.size() == 0) return;
  // Zeroed once here (untimed); the flushes only read it.
  GPB_CUDA_CHECK(cudaMemset(scratch_.data(), 0, scratch_.bytes()));
  GPB_CUDA_CHECK(cudaDeviceSynchronize());
  config_.threads = 256;
  config_.blocks = static_cast<unsigned>(sm_count > 0 ? 4 * sm_count : 256);
}

void L2Flusher::flush(cudaStream_t stream) {
  if (scratch_.size() != 0)
    kernels::launch_l2_evict(scratch_.data(), scratch_.size(), sink_.data(), kImpossibleFold, config_, stream);
}

}  // namespace gpb::cuda
