// The short-k GEMM: C (m x n) = A (m x k) B (k x n), all row-major (lda = k, ldb = ldc = n),
// for k of at most ShortKTile<T>::kMaxK. Such a product is bound by writing C (m n outputs
// against m k + k n inputs), so the kernel runs on the CUDA cores and is rated against the
// copy bandwidth, like the matrix-vector kernels; design notes in gemm_short_k.cu, the rule
// that chooses it in src/measure/gemm_dispatch.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/numeric.cuh"

namespace gpb::kernels {

template <class T>
struct ShortKTile {
  static constexpr int kThreads = 256;
  // Columns of C a thread computes: one 16-byte store of C per row.
  static constexpr int kVector = 16 / static_cast<int>(sizeof(T));
  // Rows of C a thread computes: 32 sums a thread in every type (16-bit: 4 x 8 f32, f32:
  // 8 x 4, f64: 8 x 2 doubles).
  static constexpr int kRows = sizeof(T) == 2 ? 4 : 8;
  // The deepest k the shared tiles hold. The dispatch takes this kernel up to k = 16 (16-bit)
  // and 33 (f32, f64); 36 keeps the k loop in whole steps of its unroll by 4.
  static constexpr int kMaxK = sizeof(T) == 2 ? 16 : 36;
  // Threads across a block's columns: 32 (a warp along one row of C) down to the fewest
  // whose columns still cover the narrowest C the dispatch gives this kernel (n of 5 for
  // 16-bit, 17 otherwise: 32 columns).
  static constexpr int kMaxColumnThreads = 32;
  static constexpr int kMinColumnThreads = 32 / kVector;
  // A block's columns and rows with `column_threads` threads across.
  __host__ __device__ static constexpr int block_columns(int column_threads) { return column_threads * kVector; }
  __host__ __device__ static constexpr int block_rows(int column_threads) { return kThreads / column_threads * kRows; }
};

// Runs the kernel whose blocks are `block_columns` wide (ShortKTile<T>::block_columns of a
// power of two from kMinColumnThreads to kMaxColumnThreads; std::invalid_argument otherwise,
// or for k outside 1 .. kMaxK). `vectorized`: n is a multiple of ShortKTile<T>::kVector and
// B and C start 16-byte aligned, so B is loaded and C stored 16 bytes at a time (checked:
// std::invalid_argument where a pointer is not aligned); otherwise element by element.
template <class T>
void launch_gemm_short_k(int block_columns, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                         cudaStream_t stream);

}  // namespace gpb::kernels
