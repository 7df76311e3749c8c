// The narrow GEMM for 16-bit elements: C (m x n) = A (m x k) B (k x n), row-major, n of at
// most 64, on tensor cores (mma.sync m16n8k16, f32 sums). With n that narrow the product is
// bound by streaming A once; design notes in gemm_narrow.cu.
#pragma once

#include <cuda_runtime_api.h>

namespace gpb::kernels {

struct NarrowGemmTile {
  static constexpr int kWarps = 8;  // per block
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kRowsPerWarp = 16;                 // one mma.sync's rows
  static constexpr int kRows = kRowsPerWarp * kWarps;     // rows of A and C per block
  static constexpr int kChunk = 32;                       // depth a warp loads per step: 4 lanes x 8 elements
  static constexpr int kStageK = 256;                     // rows of B a shared-memory stage holds
  static constexpr int kMaxColumns = 64;
  static constexpr int kBlocksPerSm = 2;                  // its launch bounds' minimum
};

// T = __half or __nv_bfloat16. `columns` (8, 16, 32 or 64, at least n) is the width the
// kernel computes. `vectorized`: k a multiple of 8 and A 16-byte aligned, so that A's rows
// are read in 16-byte pieces (element by element otherwise). With parts > 1, k is split into
// parts of split_k (a multiple of kStageK; the last may be shorter) and part p writes its f32
// sums to partials + p * m * n (m x n) for launch_add_partials; with one part the kernel
// writes C, rounded once to T. Needs compute capability 8.0 or newer (below it the kernel
// traps): the caller checks.
template <class T>
void launch_gemm_narrow(int columns, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                        float* partials, int parts, int split_k, cudaStream_t stream);

}  // namespace gpb::kernels
