// Evicts the op's data from L2 between samples by writing over an L2-sized buffer on
// the case's stream (nvbench's approach), so "flush" samples measure DRAM.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "gpu_backend/device_buffer.cuh"

namespace gpb::cuda {

class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes) : scratch_(l2_bytes, "L2 flush buffer") {}
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer<unsigned char> scratch_;
};

}  // namespace gpb::cuda
