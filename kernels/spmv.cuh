// y = A x for a CSR matrix with 32-bit indices.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/launch_config.cuh"
#include "kernels/numeric.cuh"

namespace gpb::kernels {

struct CsrView {
  std::int64_t rows = 0;
  const std::int32_t* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
};

// "Vector" CSR kernel: a group of threads_per_row lanes (2, 4, 8, 16 or 32) of one warp
// shares each row, strides over its entries and combines its partial sums with shuffles.
// Values and indices are read with streaming loads, so that they do not evict x from L2;
// with vector_loads, 16 bytes of them at a time where the row allows (for scattered
// columns), else one entry per lane (for contiguous columns, whose x reads then coalesce).
// Rows longer than long_row_limit entries are skipped, y left unwritten there for
// launch_spmv_row_segments (spmv_segments.cuh). config.threads must be a multiple of 32; values and col_idx must
// be 16-byte aligned, as cudaMalloc'd buffers are.
template <class T>
void launch_spmv_vector(int threads_per_row, bool vector_loads, CsrView matrix, const T* values, const T* x, T* y,
                        std::int32_t long_row_limit, LaunchConfig config, cudaStream_t stream);

// Merge-path CSR kernel (Merrill and Garland's merge-based SpMV), for every element type
// (float, double, __half, __nv_bfloat16): the work is the merge of
// the row ends (row_ptr[1..rows]) with the nonzero indices (0..nnz-1), one item each, and
// every block takes an equal share of it, SpmvMergeTile<T>::kItems items, however the
// nonzeros fall into rows. Tile t starts at row tile_rows[t] and nonzero tile_nonzeros[t]
// (t = 0..tiles, the last entry being (rows, nnz)): the merge path's point on diagonal
// t * kItems, found on the host (untimed, in prepare). A block computes its
// nonzeros' products (coalesced streaming loads, 16-byte vectors of values, 4 f32, 2 f64 or
// 8 16-bit, and the matching 32-bit indices, between the tile's first and last vector
// boundary, single entries at its two ends; values and col_idx must be 16-byte aligned),
// each thread walks kItemsPerThread items of the path, a block-wide segmented scan joins
// the partial sums of rows that cross thread boundaries, and the rows that end in the tile
// are written once, coalesced. Products, sums, scan and carries are kept in Accumulate<T>
// (the element type for f32 and f64, f32 for the 16-bit types, whose y entries are rounded
// once, when written). The partial sum of the row a tile leaves unfinished goes to
// tile_carries[t * kCarrySlots] (tile_carries holds `tiles * kCarrySlots` elements; the
// 16-bit types' second slot holds the tile's part of its first row where earlier tiles
// began it, which the carry kernel then completes and rounds, instead of the tile writing
// y). A second kernel adds each row's carries to the row: the carry runs
// (SpmvCarryRuns, listed on the host) name the row and its tiles. Its first
// `long_runs` blocks take one long run each, the block's threads striding over the run's
// carries and combining them in a fixed tree; the blocks after them take
// kCarryThreads short runs each, one thread a run summing in tile order. No atomics and a
// summation order fixed by the matrix alone: the result is the same bits on every run.
// Items per thread, measured on an H200 (8M rows, power-law mean 16, merge path forced):
// 4 items 1230 us f32 / 2275 us f64; 8 (f32) and 6 (f64) 1236 / 2300; 12 and 8 1234 / 2317.
// The 16-bit types take 8, so that a tile's nonzeros are about one 16-byte vector of 8
// values a thread, as f32's 4 are.
template <class T>
struct SpmvMergeTile {
  static constexpr int kThreads = 256;
  static constexpr int kItemsPerThread = sizeof(T) == 2 ? 8 : 4;
  static constexpr int kItems = kThreads * kItemsPerThread;
  static constexpr int kCarrySlots = sizeof(Accumulate<T>) == sizeof(T) ? 1 : 2;
};

// One row's carries: tiles [first_tile, end_tile) all stopped inside `row`.
struct SpmvCarryRun {
  std::int32_t row;
  std::int32_t first_tile;
  std::int32_t end_tile;
};

// The carry runs of a merge-path split, long runs (more than kLongTiles tiles: a row across
// kLongTiles * kItems nonzeros or more, as in a skewed matrix) first, in row order, then the
// short ones. count == 0: no row spans tiles, and the carry kernel is not launched.
struct SpmvCarryRuns {
  static constexpr int kLongTiles = 32;
  static constexpr unsigned kCarryThreads = 256;
  const SpmvCarryRun* runs = nullptr;
  unsigned count = 0;
  unsigned long_runs = 0;
};

template <class T>
void launch_spmv_merge_path(CsrView matrix, const std::int32_t* tile_rows, const std::int32_t* tile_nonzeros,
                            unsigned tiles, const T* values, const T* x, T* y, Accumulate<T>* tile_carries,
                            SpmvCarryRuns carry_runs, cudaStream_t stream);

// "Scalar" CSR kernel: one thread per row; for matrices whose rows are mostly empty or
// single entries, where a shared row would leave most lanes idle. Rows longer than
// long_row_limit entries are skipped, as in the vector kernel.
template <class T>
void launch_spmv_scalar(CsrView matrix, const T* values, const T* x, T* y, std::int32_t long_row_limit,
                        LaunchConfig config, cudaStream_t stream);

}  // namespace gpb::kernels
