// Matrix-vector kernels for matmul's thin shapes, C (m x n) = A (m x k) B (k x n), row-major.
// Both are memory-bound: the large operand is read once, 16 bytes per lane per load, and the
// sums are kept in the accumulation type (f32 for f16 and bf16), each entry of C rounded once.
//
// vector_matrix (m <= 16): C's rows are sums of B's rows, weighted by A's entries. A block
// takes a group of kRows rows of A (all m where kRows >= m) and 32 lanes x 16 bytes of
// columns of B, over one part of k;
// its 8 warps each walk a contiguous run of the part's rows of B, a lane loading its 16-byte
// piece of each row (8 rows in flight; 4 element by element at two blocks an SM) and the
// warp reading the kRows weights A[r][p] at one address each (a broadcast). Per lane kRows x
// 16 bytes' elements of sums. At the end the warps' sums meet in shared memory, one row of C
// at a time, and are added in warp order.
// Each row of B is read once: two groups of 8 rows of A reading it side by side (the first
// version, for m of 9 to 16) fetched it from DRAM twice (f64 16 x 8192 x 8192: 333 us, at
// the DRAM peak for 1.07 GB, against 186 us for one row).
//
// matrix_vector (n <= 16): each entry of C is a row of A (the large operand) times a column
// of B. A block takes 32 rows of A (4 per warp) and one part of k, which it walks in tiles of
// GemvTile::kTileK rows of B, copied first into shared memory transposed and widened
// (B[p][j] at b_tile[j][p]), so that B comes from global memory once per block. A warp's
// lanes take 16-byte pieces of its 4 rows (lane l: elements l V .. l V + V - 1 of the 32 V the
// step covers, V elements to 16 bytes) and the same entries of each column of the tile
// (16-byte shared reads, no bank conflicts). At the end each sum goes through a fixed
// butterfly of shuffles over the warp's lanes.
//
// Where rows of the streamed operand do not start 16-byte aligned (n, or k, not a multiple of
// V) the same kernels load element by element: lane l takes elements l, l + 32, ... of the
// 32 V a warp covers, so each load instruction still reads 32 neighbouring elements.
// 16-bit matrix_vector with 16-byte loads at 1 or 2 columns skips the tile: each lane loads
// its own 16 or 32 bytes of B (matrix_vector_direct_kernel, below).
//
// Splits of k follow the host's plan (src/gemm_dispatch.hpp): part p's sums go to a
// workspace, and the last of a piece's parts to finish (counted in `arrivals`) adds them in
// part order, so results carry the same bits on every run, with no second launch (a second
// kernel cost 3.5 us of 42 at 16-bit 1 x 8192 x 8192 on an H200).
#include "kernels/gemv.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/launch_check.cuh"
#include "kernels/vec16.cuh"

namespace gpb::kernels {
namespace {

using Tile = GemvTile;

template <class T>
constexpr int kLanes = 16 / sizeof(T);  // elements in 16 bytes

// Where element e of lane `lane`'s piece sits within the 32 x kLanes elements a warp covers.
template <class T, bool kVectorized>
__device__ __forceinline__ int piece_offset(int lane, int e) {
  return kVectorized ? lane * kLanes<T> + e : lane + 32 * e;
}

// Lane `lane`'s piece of the 32 x kLanes elements from `base`; elements at offsets of `limit`
// or more read as zero (vectorized, a piece is wholly inside or outside).
template <class T, bool kVectorized>
__device__ __forceinline__ Vec16<T> load_piece(const T* base, int lane, int limit) {
  Vec16<T> piece{};
  if constexpr (kVectorized) {
    if (lane * kLanes<T> < limit) piece = *reinterpret_cast<const Vec16<T>*>(base + lane * kLanes<T>);
  } else {
#pragma unroll
    for (int e = 0; e < kLanes<T>; ++e)
      if (lane + 32 * e < limit) piece.lane[e] = base[lane + 32 * e];
  }
  return piece;
}

// acc[r][e] += A[r][p] * piece[e] for the block's rows r.
template <class T, int kRows>
__device__ __forceinline__ void weigh_row(Accumulate<T> (&acc)[kRows][kLanes<T>], const Vec16<T>& piece,
                                          const T* const (&a_rows)[kRows], int p) {
  Accumulate<T> weights[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) weights[r] = Arithmetic<T>::load(a_rows[r][p]);
#pragma unroll
  for (int e = 0; e < kLanes<T>; ++e) {
    const Accumulate<T> value = Arithmetic<T>::load(piece.lane[e]);
#pragma unroll
    for (int r = 0; r < kRows; ++r) acc[r][e] += weights[r] * value;
  }
}

// Writes sum, C's entry `at` (row-major m x n), to C rounded, or to part `part`'s partials.
template <class T>
__device__ __forceinline__ void store_entry(Accumulate<T> sum, std::int64_t at, T* c, Accumulate<T>* partials,
                                            int part, int m, int n) {
  if (partials)
    partials[static_cast<std::int64_t>(part) * m * n + at] = sum;
  else
    c[at] = Arithmetic<T>::store(sum);
}

// Called by every thread of a block once its part's partials are written: true in the block
// that finishes last among the `parts` blocks of piece `piece` (whose counter it resets for
// the next launch), which then reads the other blocks' partials. The fences order each
// block's partials before its count, and the count before the last block's reads.
__device__ __forceinline__ bool last_part_to_finish(unsigned* arrivals, int piece, int parts) {
  __shared__ unsigned ticket;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) ticket = atomicAdd(&arrivals[piece], 1u);
  __syncthreads();
  if (ticket != static_cast<unsigned>(parts) - 1) return false;
  __threadfence();
  if (threadIdx.x == 0) arrivals[piece] = 0;
  return true;
}

// C's entry `at` = the sum of its `parts` partials (m x n each), added in part order and
// rounded once, as launch_add_partials adds them: the same bits. Read past L1, which may
// hold no other block's writes; unrolled, so that 16 parts' loads are in flight at a time
// (the adds wait on the loads, not on each other).
template <class T>
__device__ __forceinline__ void add_entry_partials(const Accumulate<T>* partials, int parts, std::int64_t part_stride,
                                                   std::int64_t at, T* c) {
  Accumulate<T> sum = __ldcg(partials + at);
#pragma unroll 16
  for (int part = 1; part < parts; ++part) sum += __ldcg(partials + part * part_stride + at);
  c[at] = Arithmetic<T>::store(sum);
}

// Blocks per SM the kernels are compiled for: two where a thread's sums and operands fit in
// 128 registers, else one (vector_matrix at 16 rows of f32 or f64 sums, the wide
// matrix_vector ones).
template <class T, int kRows>
constexpr int kVectorMatrixBlocksPerSm = kRows * kLanes<T> * sizeof(Accumulate<T>) / 4 > 48 ? 1 : 2;
template <class T, int kColumns>
constexpr int kMatrixVectorBlocksPerSm =
    Tile::kRowsPerWarp * (kColumns + kLanes<T>) * sizeof(Accumulate<T>) / 4 > 60 ? 1 : 2;

template <class T, int kRows, bool kVectorized>
__global__ void __launch_bounds__(Tile::kThreads, (kVectorMatrixBlocksPerSm<T, kRows>))
    vector_matrix_kernel(int m, int n, int k, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                         Accumulate<T>* __restrict__ partials, int parts, int split_k, unsigned* arrivals) {
  using Acc = Accumulate<T>;
  constexpr int kColumns = Tile::kColumnsPerBlock<T>;
  // Rows of B loaded before the first is used: with 16-byte loads 8, 128 bytes a lane, at one
  // block an SM or two (at 4 with two blocks, 16-bit 1 x 8192 x 8192 ran at 74 % of the copy
  // rate on an H200); element by element 8 over the blocks an SM holds (8 would spill).
  constexpr int kInFlight = kVectorized ? 8 : 8 / kVectorMatrixBlocksPerSm<T, kRows>;
  __shared__ Acc sums[Tile::kWarps][kColumns];

  // Blocks by column block, then group of kRows rows of A, then part of k; a piece (its
  // arrival counter) is a column block's group of rows.
  const int column_blocks = (n + kColumns - 1) / kColumns;
  const int row_groups = (m + kRows - 1) / kRows;
  const int column_block = static_cast<int>(blockIdx.x) % column_blocks;
  const int row_group = static_cast<int>(blockIdx.x) / column_blocks % row_groups;
  const int part = static_cast<int>(blockIdx.x) / column_blocks / row_groups;
  const int piece = row_group * column_blocks + column_block;
  const int row0 = row_group * kRows;
  const int col0 = column_block * kColumns;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int part_begin = part * split_k, part_end = min(k, part_begin + split_k);
  const int per_warp = (part_end - part_begin + Tile::kWarps - 1) / Tile::kWarps;
  const int begin = min(part_end, part_begin + warp * per_warp), end = min(part_end, begin + per_warp);

  // Rows past m read row m - 1; their sums are never stored.
  const T* a_rows[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) a_rows[r] = a + static_cast<std::int64_t>(min(row0 + r, m - 1)) * k;
  const T* b_block = b + col0;
  const int columns_inside = n - col0;

  Acc acc[kRows][kLanes<T>] = {};
  int p = begin;
  for (; p + kInFlight <= end; p += kInFlight) {
    Vec16<T> pieces[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      pieces[u] = load_piece<T, kVectorized>(b_block + static_cast<std::int64_t>(p + u) * n, lane, columns_inside);
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) weigh_row<T, kRows>(acc, pieces[u], a_rows, p + u);
  }
  for (; p < end; ++p)
    weigh_row<T, kRows>(acc, load_piece<T, kVectorized>(b_block + static_cast<std::int64_t>(p) * n, lane, columns_inside),
                        a_rows, p);

  const int rows_inside = min(kRows, m - row0);
#pragma unroll
  for (int row = 0; row < kRows; ++row) {
    if (row >= rows_inside) break;  // the same for the whole block
#pragma unroll
    for (int e = 0; e < kLanes<T>; ++e) sums[warp][piece_offset<T, kVectorized>(lane, e)] = acc[row][e];
    __syncthreads();
    for (int col = static_cast<int>(threadIdx.x); col < kColumns; col += Tile::kThreads) {
      Acc sum = sums[0][col];
#pragma unroll
      for (int w = 1; w < Tile::kWarps; ++w) sum += sums[w][col];
      if (col < columns_inside)
        store_entry(sum, static_cast<std::int64_t>(row0 + row) * n + col0 + col, c, partials, part, m, n);
    }
    __syncthreads();  // the sums are read before the next row overwrites them
  }
  if (partials && last_part_to_finish(arrivals, piece, parts)) {
    // Every thread an entry of the block's rows and columns at a time (row by row, a narrow
    // C left most threads idle: f32 13 x 28 x 10117 ran 2.6x slower than cuBLAS).
    const int columns = min(kColumns, columns_inside);
    for (int entry = static_cast<int>(threadIdx.x); entry < rows_inside * columns; entry += Tile::kThreads)
      add_entry_partials(partials, parts, static_cast<std::int64_t>(m) * n,
                         static_cast<std::int64_t>(row0 + entry / columns) * n + col0 + entry % columns, c);
  }
}

// A matrix_vector block's block of rows and part of k (from blockIdx.x), and its warp's first row.
struct MatrixVectorPlace {
  int row_block, part, row0, part_begin, part_end;
};
__device__ __forceinline__ MatrixVectorPlace matrix_vector_place(int m, int k, int split_k) {
  const int row_blocks = (m + Tile::kRowsPerBlock - 1) / Tile::kRowsPerBlock;
  MatrixVectorPlace place;
  place.row_block = static_cast<int>(blockIdx.x) % row_blocks;
  place.part = static_cast<int>(blockIdx.x) / row_blocks;
  place.row0 = place.row_block * Tile::kRowsPerBlock + static_cast<int>(threadIdx.x) / 32 * Tile::kRowsPerWarp;
  place.part_begin = place.part * split_k;
  place.part_end = min(k, place.part_begin + split_k);
  return place;
}

// A warp's rows of A from row0; rows past m read row m - 1 (their sums are never stored).
template <class T>
__device__ __forceinline__ void warp_rows(const T* (&a_rows)[Tile::kRowsPerWarp], const T* a, int row0, int m, int k) {
#pragma unroll
  for (int i = 0; i < Tile::kRowsPerWarp; ++i) a_rows[i] = a + static_cast<std::int64_t>(min(row0 + i, m - 1)) * k;
}

// The end of matrix_vector: each of a warp's sums through a fixed butterfly of shuffles, lane
// 0 storing them to C or to its part's partials, and the last part of the row block to
// finish adding the partials into C.
template <class T, int kColumns>
__device__ __forceinline__ void finish_matrix_vector(Accumulate<T> (&acc)[Tile::kRowsPerWarp][kColumns], int row_block,
                                                     int row0, int lane, int m, int n, T* c,
                                                     Accumulate<T>* partials, int part, int parts, unsigned* arrivals) {
#pragma unroll
  for (int i = 0; i < Tile::kRowsPerWarp; ++i)
#pragma unroll
    for (int j = 0; j < kColumns; ++j)
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) acc[i][j] += __shfl_xor_sync(0xffffffffu, acc[i][j], offset);
  if (lane == 0) {
#pragma unroll
    for (int i = 0; i < Tile::kRowsPerWarp; ++i) {
      const int row = row0 + i;
      if (row >= m) break;
#pragma unroll
      for (int j = 0; j < kColumns; ++j)
        if (j < n) store_entry(acc[i][j], static_cast<std::int64_t>(row) * n + j, c, partials, part, m, n);
    }
  }
  if (partials && last_part_to_finish(arrivals, row_block, parts)) {
    const int first_row = row_block * Tile::kRowsPerBlock;
    const int entries = min(Tile::kRowsPerBlock, m - first_row) * n;
    for (int e = static_cast<int>(threadIdx.x); e < entries; e += Tile::kThreads)
      add_entry_partials(partials, parts, static_cast<std::int64_t>(m) * n,
                         static_cast<std::int64_t>(first_row) * n + e, c);
  }
}

template <class T, int kColumns, bool kVectorized>
__global__ void __launch_bounds__(Tile::kThreads, (kMatrixVectorBlocksPerSm<T, kColumns>))
    matrix_vector_kernel(int m, int n, int k, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                         Accumulate<T>* __restrict__ partials, int parts, int split_k, unsigned* arrivals) {
  using Acc = Accumulate<T>;
  constexpr int kStep = 32 * kLanes<T>;  // k a warp covers per step
  constexpr int kTileK = Tile::kTileK<T, kVectorized>;
  constexpr int kSteps = kTileK / kStep;
  // Steps of A loaded ahead of each tile's barriers (none: f32 8192 x 1 x 8192 1.05x slower
  // on an H200; one: 16-bit element by element spills at 4 columns).
  constexpr int kEarlySteps = kSteps < 2 ? kSteps : 2;
  constexpr int kRowVectors = kLanes<T> * sizeof(Acc) / 16;  // 16-byte shared reads of a lane's tile entries
  static_assert(kTileK % kStep == 0 && kRowVectors >= 1, "whole steps per tile, whole 16-byte shared reads");
  __shared__ __align__(16) Acc b_tile[kColumns][kTileK];

  const MatrixVectorPlace place = matrix_vector_place(m, k, split_k);
  const int row_block = place.row_block, part = place.part, row0 = place.row0;
  const int part_begin = place.part_begin, part_end = place.part_end, lane = static_cast<int>(threadIdx.x) % 32;
  const T* a_rows[Tile::kRowsPerWarp];
  warp_rows(a_rows, a, row0, m, k);

  Acc acc[Tile::kRowsPerWarp][kColumns] = {};
  // acc += the step's pieces of the warp's rows of A times the tile's entries from `step`.
  const auto weigh = [&](int step, const Vec16<T> (&pieces)[Tile::kRowsPerWarp]) {
    Acc values[Tile::kRowsPerWarp][kLanes<T>];
#pragma unroll
    for (int i = 0; i < Tile::kRowsPerWarp; ++i)
#pragma unroll
      for (int e = 0; e < kLanes<T>; ++e) values[i][e] = Arithmetic<T>::load(pieces[i].lane[e]);
#pragma unroll
    for (int j = 0; j < kColumns; ++j) {
      Acc weights[kLanes<T>];
      if constexpr (kVectorized) {
#pragma unroll
        for (int v = 0; v < kRowVectors; ++v)
          *reinterpret_cast<Vec16<Acc>*>(&weights[v * Vec16<Acc>::kLanes]) =
              *reinterpret_cast<const Vec16<Acc>*>(&b_tile[j][step + lane * kLanes<T> + v * Vec16<Acc>::kLanes]);
      } else {
#pragma unroll
        for (int e = 0; e < kLanes<T>; ++e) weights[e] = b_tile[j][step + lane + 32 * e];
      }
#pragma unroll
      for (int i = 0; i < Tile::kRowsPerWarp; ++i)
#pragma unroll
        for (int e = 0; e < kLanes<T>; ++e) acc[i][j] += values[i][e] * weights[e];
    }
  };
  const auto load_step = [&](int tile, int step, int tile_rows, Vec16<T> (&pieces)[Tile::kRowsPerWarp]) {
#pragma unroll
    for (int i = 0; i < Tile::kRowsPerWarp; ++i)
      pieces[i] = load_piece<T, kVectorized>(a_rows[i] + tile + step, lane, tile_rows - step);
  };

  for (int tile = part_begin; tile < part_end; tile += kTileK) {
    const int tile_rows = min(kTileK, part_end - tile);
    // The first steps' pieces of A are loaded before the barriers and the fill of B, so that
    // their trip from memory overlaps them.
    Vec16<T> early[kEarlySteps > 0 ? kEarlySteps : 1][Tile::kRowsPerWarp];
#pragma unroll
    for (int s = 0; s < kEarlySteps; ++s) load_step(tile, s * kStep, tile_rows, early[s]);
    // The steps read whole kStep runs of the tile: the run holding its last row is filled to
    // its end with zeros, the runs past it are neither filled nor read (a short k, or the
    // last tile of a part, would otherwise pay for all kSteps).
    const int tile_fill = min(kTileK, (tile_rows + kStep - 1) / kStep * kStep);
    __syncthreads();  // every warp is done with the previous tile
    for (int q = static_cast<int>(threadIdx.x); q < tile_fill; q += Tile::kThreads) {
      const T* b_row = b + static_cast<std::int64_t>(tile + q) * n;
#pragma unroll
      for (int j = 0; j < kColumns; ++j) b_tile[j][q] = q < tile_rows && j < n ? Arithmetic<T>::load(b_row[j]) : Acc(0);
    }
    __syncthreads();
    if (tile_rows == kTileK) {
      // A whole tile: every step unrolled, so that the loads of later steps can be issued
      // before the products of earlier ones (a test for the last step inside the unrolled
      // loop kept them apart: f32 8192 x 1 x 8192 ran 1.18x slower on an H200).
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        if (s < kEarlySteps) {
          weigh(s * kStep, early[s < kEarlySteps ? s : 0]);
        } else {
          Vec16<T> pieces[Tile::kRowsPerWarp];
          load_step(tile, s * kStep, tile_rows, pieces);
          weigh(s * kStep, pieces);
        }
      }
    } else {
      // The last tile of a part: the steps that hold its rows.
#pragma unroll
      for (int s = 0; s < kEarlySteps; ++s)
        if (s * kStep < tile_rows) weigh(s * kStep, early[s]);
#pragma unroll 1
      for (int step = kEarlySteps * kStep; step < tile_rows; step += kStep) {
        Vec16<T> pieces[Tile::kRowsPerWarp];
        load_step(tile, step, tile_rows, pieces);
        weigh(step, pieces);
      }
    }
  }

  finish_matrix_vector<T, kColumns>(acc, row_block, row0, lane, m, n, c, partials, part, parts, arrivals);
}

// matrix_vector where GemvTile::reads_b_directly (16-bit, 16-byte loads, n of 1 or 2, the
// kernel exactly n wide): a lane's entries of B for its 8 elements of a row of A are rows
// p .. p + 7 of B, 16 n neighbouring bytes, which it loads itself (from L1 after the first
// warp) rather than from a shared tile, so the block's warps never wait on each other at a
// tile's barriers, and kUnroll steps' loads of A and B are issued before their products.
// H200, against the tiled kernel: f16 8192 x 1 x 8192 75 to 79-80 % of the copy rate, bf16 75
// to 80-82 %, f16 8192 x 2 x 8192 71 to 79-80 %; at 4 columns (one step in flight) it ran
// 1.04x slower, so those keep the tile.
template <class T, int kColumns>
__global__ void __launch_bounds__(Tile::kThreads, (kMatrixVectorBlocksPerSm<T, kColumns>))
    matrix_vector_direct_kernel(int m, int n, int k, const T* __restrict__ a, const T* __restrict__ b,
                                T* __restrict__ c, Accumulate<T>* __restrict__ partials, int parts, int split_k,
                                unsigned* arrivals) {
  using Acc = Accumulate<T>;
  constexpr int kStep = 32 * kLanes<T>;
  static_assert(sizeof(T) == 2 && kColumns <= 2, "16-bit, 1 or 2 columns");
  // 4 steps at one column, 2 at two (16 and 8 bytes of B a lane); 6 at one column ran 1.05x slower.
  constexpr int kUnroll = 4 / kColumns;
  const MatrixVectorPlace place = matrix_vector_place(m, k, split_k);
  const int row_block = place.row_block, part = place.part, row0 = place.row0;
  const int part_begin = place.part_begin, part_end = place.part_end, lane = static_cast<int>(threadIdx.x) % 32;
  const T* a_rows[Tile::kRowsPerWarp];
  warp_rows(a_rows, a, row0, m, k);

  Acc acc[Tile::kRowsPerWarp][kColumns] = {};
  for (int first = part_begin; first < part_end; first += kUnroll * kStep) {
    Vec16<T> pieces[kUnroll][Tile::kRowsPerWarp];
    Vec16<T> weights[kUnroll][kColumns];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int step = first + u * kStep;
#pragma unroll
      for (int i = 0; i < Tile::kRowsPerWarp; ++i)
        pieces[u][i] = load_piece<T, true>(a_rows[i] + step, lane, part_end - step);
      const int p = step + lane * kLanes<T>;
#pragma unroll
      for (int j = 0; j < kColumns; ++j)
        weights[u][j] = p < part_end ? *reinterpret_cast<const Vec16<T>*>(b + static_cast<std::int64_t>(p) * kColumns +
                                                                          j * kLanes<T>)
                                     : Vec16<T>{};
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int e = 0; e < kLanes<T>; ++e)
#pragma unroll
        for (int j = 0; j < kColumns; ++j) {
          const int at = e * kColumns + j;  // B[p + e][j] among the lane's 8 kColumns elements
          const Acc weight = Arithmetic<T>::load(weights[u][at / kLanes<T>].lane[at % kLanes<T>]);
#pragma unroll
          for (int i = 0; i < Tile::kRowsPerWarp; ++i) acc[i][j] += Arithmetic<T>::load(pieces[u][i].lane[e]) * weight;
        }
  }
  finish_matrix_vector<T, kColumns>(acc, row_block, row0, lane, m, n, c, partials, part, parts, arrivals);
}

template <class T, int kRows>
void launch_vector_matrix_rows(bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                               Accumulate<T>* partials, int parts, int split_k, unsigned* arrivals,
                               cudaStream_t stream) {
  constexpr int kColumns = Tile::kColumnsPerBlock<T>;
  const unsigned blocks = static_cast<unsigned>((n + kColumns - 1) / kColumns) *
                          static_cast<unsigned>((m + kRows - 1) / kRows) * static_cast<unsigned>(parts);
  if (vectorized)
    vector_matrix_kernel<T, kRows, true>
        <<<blocks, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c, partials, parts, split_k, arrivals);
  else
    vector_matrix_kernel<T, kRows, false>
        <<<blocks, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c, partials, parts, split_k, arrivals);
}

template <class T, int kColumns>
void launch_matrix_vector_columns(bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                                  Accumulate<T>* partials, int parts, int split_k, unsigned* arrivals,
                                  cudaStream_t stream) {
  const unsigned blocks =
      static_cast<unsigned>((m + Tile::kRowsPerBlock - 1) / Tile::kRowsPerBlock) * static_cast<unsigned>(parts);
  if constexpr (sizeof(T) == 2 && kColumns <= 2) {
    if (Tile::reads_b_directly<T>(vectorized, n)) {
      matrix_vector_direct_kernel<T, kColumns><<<blocks, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c, partials, parts,
                                                                                      split_k, arrivals);
      return;
    }
  }
  if (vectorized)
    matrix_vector_kernel<T, kColumns, true>
        <<<blocks, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c, partials, parts, split_k, arrivals);
  else
    matrix_vector_kernel<T, kColumns, false><<<blocks, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c, partials, parts,
                                                                                    split_k, arrivals);
}

// Calls launch(std::integral_constant<int, W>{}) for the kernel width W, the smallest power
// of two from 1 up to kMaxWidth that is at least `width`.
template <int kMaxWidth, int kWidth = 1, class Launch>
void with_width(int width, Launch&& launch) {
  if constexpr (kWidth < kMaxWidth) {
    if (width > kWidth) return with_width<kMaxWidth, 2 * kWidth>(width, launch);
  } else {
    if (width > kWidth)
      throw std::logic_error("matrix-vector kernel of width " + std::to_string(width) + " asked for; " +
                             std::to_string(kWidth) + " is the widest for this element type");
  }
  launch(std::integral_constant<int, kWidth>{});
}

}  // namespace

template <class T>
void launch_vector_matrix(int rows, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                          Accumulate<T>* partials, int parts, int split_k, unsigned* arrivals, cudaStream_t stream) {
  with_width<Tile::kMaxRows<T>>(rows, [&](auto width) {
    launch_vector_matrix_rows<T, decltype(width)::value>(vectorized, m, n, k, a, b, c, partials, parts, split_k,
                                                         arrivals, stream);
  });
  GPB_CHECK_LAUNCH();
}

template <class T>
void launch_matrix_vector(int columns, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                          Accumulate<T>* partials, int parts, int split_k, unsigned* arrivals, cudaStream_t stream) {
  with_width<Tile::kMaxColumns<T>>(columns, [&](auto width) {
    launch_matrix_vector_columns<T, decltype(width)::value>(vectorized, m, n, k, a, b, c, partials, parts, split_k,
                                                            arrivals, stream);
  });
  GPB_CHECK_LAUNCH();
}

#define GPB_INSTANTIATE(T)                                                                                        \
  template void launch_vector_matrix<T>(int, bool, int, int, int, const T*, const T*, T*, Accumulate<T>*, int, int, \
                                        unsigned*, cudaStream_t);                                                 \
  template void launch_matrix_vector<T>(int, bool, int, int, int, const T*, const T*, T*, Accumulate<T>*, int, int, \
                                        unsigned*, cudaStream_t);
GPB_FOR_EACH_ELEMENT_TYPE(GPB_INSTANTIATE)
#undef GPB_INSTANTIATE

}  // namespace gpb::kernels
