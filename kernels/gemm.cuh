// Dense C = A * B (row-major) with a tiled shared-memory kernel; design notes in gemm.cu.
#pragma once

#include <cuda_runtime_api.h>

namespace gpb::kernels {

struct GemmTile {
  static constexpr int kBlockM = 128;  // rows of C per block
  static constexpr int kBlockN = 128;  // columns of C per block
  static constexpr int kBlockK = 8;    // depth of one shared-memory stage
  static constexpr int kThreadM = 8;   // rows of C per thread
  static constexpr int kThreadN = 8;   // columns of C per thread
  static constexpr int kThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);
};

// C (m x n) = A (m x k) * B (k x n), all row-major, any m, n, k >= 1. `vectorized`
// selects 16-byte global loads and stores, legal only when n and k are multiples of the
// vector width (4 floats, 2 doubles) so that every row starts 16-byte aligned;
// otherwise the same tiling runs with element-wise global accesses.
template <class T>
void launch_gemm(int m, int n, int k, const T* a, const T* b, T* c, bool vectorized, cudaStream_t stream);

}  // namespace gpb::kernels
