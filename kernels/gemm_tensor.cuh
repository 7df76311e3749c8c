// Dense C = A * B (row-major) for 16-bit elements on tensor cores; design notes in
// gemm_tensor.cu.
#pragma once

#include <cuda_runtime_api.h>

namespace gpb::kernels {

struct TensorGemmTile {
  static constexpr int kBlockM = 128;  // rows of C per block
  static constexpr int kBlockN = 128;  // columns of C per block
  static constexpr int kBlockK = 32;   // depth of one shared-memory stage
  static constexpr int kWarpsM = 2;    // warps along the rows of a block tile
  static constexpr int kWarpsN = 4;    // and along its columns
  static constexpr int kWarpM = kBlockM / kWarpsM;  // 64 rows of C per warp
  static constexpr int kWarpN = kBlockN / kWarpsN;  // 32 columns of C per warp
  static constexpr int kMma = 16;                   // the WMMA shape: 16 x 16 x 16
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
};

// C (m x n) = A (m x k) * B (k x n), all row-major, any m, n, k >= 1, for T = __half or
// __nv_bfloat16: products and sums in float on the tensor cores, C rounded once to T.
// `vectorized` selects 16-byte global loads, legal only when n and k are multiples of 8 so
// that every row starts 16-byte aligned; otherwise the same tiling loads element-wise.
// Needs sm_80 or newer.
template <class T>
void launch_gemm_tensor(int m, int n, int k, const T* a, const T* b, T* c, bool vectorized, cudaStream_t stream);

}  // namespace gpb::kernels
