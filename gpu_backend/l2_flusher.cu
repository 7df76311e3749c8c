#include "gpu_backend/l2_flusher.cuh"

#include "gpu_backend/cuda_check.cuh"
#include "kernels/l2_evict.cuh"

namespace gpb::cuda {
namespace {

// The scratch words are zero, so the XOR of what is read is zero: any non-zero value is
// one the kernel never sees.
constexpr unsigned kImpossibleFold = 0x9e3779b9u;

}  // namespace

L2Flusher::L2Flusher(std::size_t l2_bytes, int sm_count)
    : words_(2 * l2_bytes / sizeof(uint4)), config_{static_cast<unsigned>(sm_count > 0 ? 4 * sm_count : 256), 256} {}

void L2Flusher::flush(cudaStream_t stream) {
  if (words_ == 0) return;
  if (scratch_.size() == 0) {
    scratch_ = DeviceBuffer<uint4>(words_, "L2 flush buffer");
    sink_ = DeviceBuffer<uint4>(1, "L2 flush sink");
    // Zeroed once (the flushes only read it), in stream order before the first read.
    GPB_CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_.bytes(), stream));
  }
  kernels::launch_l2_evict(scratch_.data(), scratch_.size(), sink_.data(), kImpossibleFold, config_, stream);
}

}  // namespace gpb::cuda
