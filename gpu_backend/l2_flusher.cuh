// Evicts the op's data from L2 between samples, on the case's stream, so "flush" samples
// measure DRAM. It *reads* a buffer of twice the L2 size rather than writing one (as a
// memset would): a write leaves L2 full of dirty lines that the timed kernel then pays
// to write back (about 5 % of a 256M-element sum on an H200, seen against ncu), while
// reading leaves it full of clean lines that are simply dropped. Twice the size because
// L2's replacement is not strictly least-recently-used. The buffer is allocated on the
// first flush, so a case measured with a warm L2 (--l2 warm) never holds one.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "gpu_backend/device_buffer.cuh"
#include "kernels/launch_config.cuh"

namespace gpb::cuda {

class L2Flusher {
 public:
  L2Flusher(std::size_t l2_bytes, int sm_count);
  void flush(cudaStream_t stream);

 private:
  std::size_t words_;  // of the buffer, once allocated
  DeviceBuffer<uint4> scratch_;
  DeviceBuffer<uint4> sink_;
  kernels::LaunchConfig config_;
};

}  // namespace gpb::cuda
