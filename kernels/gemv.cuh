// Matrix-vector kernels for matmul's thin shapes, C (m x n) = A (m x k) B (k x n), all
// row-major: memory-bound, so each streams its large operand once in 16-byte pieces and keeps
// the small one close; design notes in gemv.cu.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/numeric.cuh"

namespace gpb::kernels {

struct GemvTile {
  static constexpr int kWarps = 8;  // per block
  static constexpr int kThreads = 32 * kWarps;
  // vector_matrix: rows of A a block handles at most; 16-bit products of more rows run on
  // tensor cores (src/measure/gemm_dispatch.hpp: past 8 rows where B is wider than 64 columns
  // and its rows are not whole 16-byte chunks, else past 4), so their kernels stop at 8.
  template <class T>
  static constexpr int kMaxRows = sizeof(T) == 2 ? 8 : 16;
  // matrix_vector: rows of A per warp and per block, the most columns of B, and the rows of B
  // one shared-memory tile holds (32 KiB of sums at the widest kernel: 16 columns, or 4 for
  // 16-bit elements, whose tiles with 16-byte loads are 4 times deeper, so that a tile's A is
  // as many bytes; element by element the deeper tile ran 1.2x slower, 12345 x 3 x 7777 on an
  // H200): k's parts are multiples of it.
  static constexpr int kRowsPerWarp = 4;
  static constexpr int kRowsPerBlock = kRowsPerWarp * kWarps;
  template <class T>
  static constexpr int kMaxColumns = sizeof(T) == 2 ? 4 : 16;
  template <class T, bool kVectorized>
  static constexpr int kTileK = sizeof(T) == 8 ? 256 : sizeof(T) == 4 || !kVectorized ? 512 : 2048;
  // matrix_vector with 16-bit elements, 16-byte loads and n of 1 or 2 reads B straight from
  // global memory (L1), with no shared tile; src/gemm_dispatch.hpp says so in the rule.
  template <class T>
  static constexpr bool reads_b_directly(bool vectorized, int n) {
    return sizeof(T) == 2 && vectorized && (n == 1 || n == 2);
  }
  // vector_matrix: columns of B per block, 16 bytes a lane.
  template <class T>
  static constexpr int kColumnsPerBlock = 32 * 16 / static_cast<int>(sizeof(T));
  // The counters a launch with k split needs (`arrivals`): one a block of columns and group of
  // `rows` rows of A (vector_matrix, `rows` its launch's), or a block of rows (matrix_vector).
  template <class T>
  static constexpr int arrival_counters(bool vector_matrix, int m, int n, int rows) {
    return vector_matrix ? (n + kColumnsPerBlock<T> - 1) / kColumnsPerBlock<T> * ((m + rows - 1) / rows)
                         : (m + kRowsPerBlock - 1) / kRowsPerBlock;
  }
};

// m <= 16 (rows of A times B): kernels for 1, 2, 4, 8 and 16 `rows` of A (16-bit: up to
// kMaxRows, 8); each block takes a group of that many rows of A (all m where `rows` >= m; groups
// of fewer rows give a C of few columns and a short k more blocks, each group reading B), 32
// lanes x 16 bytes of columns of B and the rows of B of one part of k. `vectorized`: n a
// multiple of 16 bytes' elements, so B's and C's rows are aligned.
// With parts > 1, part p writes its sums to partials + p * m * n (m x n, in the accumulation
// type), and the last of a piece's parts to finish adds them into C in part order
// (launch_add_partials's sum, the same bits on every run), counting the parts in
// `arrivals`: one counter a block of columns and group of rows (GemvTile::arrival_counters), zero before the
// first launch and left at zero by each. With one part C is written directly and
// arrivals is not read. Each part spans split_k rows of B (the last may be shorter).
template <class T>
void launch_vector_matrix(int rows, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                          Accumulate<T>* partials, int parts, int split_k, unsigned* arrivals, cudaStream_t stream);

// n <= 16 (A times columns of B): kernels for 1, 2, 4, 8 and 16 `columns` (at least n;
// 16-bit: up to kMaxColumns, 4);
// blocks of 32 rows of A, lanes along k. `vectorized`: k a multiple of 16 bytes' elements,
// so A's rows are aligned. Parts as for launch_vector_matrix; split_k is a multiple of
// GemvTile::kTileK<Accumulate<T>>.
template <class T>
void launch_matrix_vector(int columns, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                          Accumulate<T>* partials, int parts, int split_k, unsigned* arrivals, cudaStream_t stream);

}  // namespace gpb::kernels
