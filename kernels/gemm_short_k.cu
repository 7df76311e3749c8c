// The short-k GEMM, C (m x n) = A (m x k) B (k x n), row-major, k of at most kMaxK (16 for
// f16 and bf16, 36 otherwise). With k that short a product is bound by writing C: m n outputs
// against m k + k n inputs, and k FMAs an output, few enough for the CUDA cores to hide under
// the write (the dispatch's threshold, src/measure/gemm_dispatch.hpp). The tensor-core tiles
// would pad k to their step (64 deep for wgmma, after a padding copy where k is not a multiple
// of 8) and leave SMs without tiles on a small C.
//
// A block of 256 threads takes block_rows x block_columns of C and all of k. It stages its
// tiles of A and B in shared memory once, in the accumulation type (f32 for f16 and bf16, so
// each value is widened once): A transposed (a_tile[p][r] = A[row0 + r][p]: its rows of the
// block are one contiguous run of A, read with neighbouring lanes on neighbouring elements),
// B as it is (b_tile[p][j] = B[p][col0 + j]). Entries past m, n are zeros. Then each thread
// computes kRows x kVector outputs (32 sums) with FMAs over p = 0 .. k - 1 in order, reading
// per step its kRows values of A (16-byte shared reads, the same address across the threads
// of one row group: a broadcast) and its kVector values of B; and stores each of its rows
// once, rounded once to T. No atomics, no split: the same bits on every run.
//
// Threads: column_threads across (a template parameter, 32 down to 32 / kVector, chosen by
// the dispatch to pad C least), the rest down the rows. Vectorized (n a multiple of kVector,
// B and C 16-byte aligned), thread x takes the kVector neighbouring columns x kVector ..,
// so that a row of threads stores one contiguous run of 16 x column_threads bytes of C with
// 16-byte stores. Otherwise thread x takes columns x, x + column_threads, .., and each store
// instruction of a row of threads writes neighbouring elements.
//
// A thread whose rows or columns all lie past C returns after the staging barrier (there is
// no barrier after it), so a block on C's edge spends no FMAs on its padding's row groups.
#include "kernels/gemm_short_k.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/launch_check.cuh"
#include "kernels/vec16.cuh"

namespace gpb::kernels {
namespace {

template <class T, int kColumnThreads, bool kVectorized>
__global__ void __launch_bounds__(ShortKTile<T>::kThreads, 3)
    gemm_short_k_kernel(int m, int n, int k, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c) {
  using Tile = ShortKTile<T>;
  using Acc = Accumulate<T>;
  constexpr int kV = Tile::kVector, kR = Tile::kRows;
  constexpr int kBlockM = Tile::block_rows(kColumnThreads), kBlockN = Tile::block_columns(kColumnThreads);
  constexpr int kAccPer16 = 16 / static_cast<int>(sizeof(Acc));  // Acc values in 16 bytes
  // A's transposed rows padded by 16 bytes: the staging writes (neighbouring p, one r) spread
  // over the banks, and each row stays 16-byte aligned for the reads.
  constexpr int kARow = kBlockM + kAccPer16;
  static_assert(kR % kAccPer16 == 0 && kV % kAccPer16 == 0, "whole 16-byte shared reads of A and B");
  __shared__ __align__(16) Acc a_tile[Tile::kMaxK][kARow];
  __shared__ __align__(16) Acc b_tile[Tile::kMaxK][kBlockN];

  const int tid = static_cast<int>(threadIdx.x);
  const int column_blocks = (n + kBlockN - 1) / kBlockN;
  const int row_block = static_cast<int>(blockIdx.x) / column_blocks;
  const int column_block = static_cast<int>(blockIdx.x) - row_block * column_blocks;
  const int row0 = row_block * kBlockM, col0 = column_block * kBlockN;
  const int rows_inside = min(kBlockM, m - row0), columns_inside = min(kBlockN, n - col0);

  // A's rows row0 .. row0 + rows_inside - 1: rows_inside * k neighbouring elements (lda = k).
  const T* a_block = a + static_cast<std::int64_t>(row0) * k;
  const int a_count = rows_inside * k;
  for (int i = tid; i < kBlockM * k; i += Tile::kThreads) {
    const int r = i / k, p = i - r * k;
    a_tile[p][r] = i < a_count ? Arithmetic<T>::load(a_block[i]) : Acc(0);
  }
  // B's rows 0 .. k - 1, columns col0 .. col0 + kBlockN - 1.
  const T* b_block = b + col0;
  if constexpr (kVectorized) {
    // n is a multiple of kV: a 16-byte piece is wholly inside C's columns or wholly past them.
    constexpr int kPieces = kBlockN / kV;
    for (int i = tid; i < k * kPieces; i += Tile::kThreads) {
      const int p = i / kPieces, j = (i - p * kPieces) * kV;
      Vec16<T> piece{};
      if (j < columns_inside)
        piece = *reinterpret_cast<const Vec16<T>*>(b_block + static_cast<std::int64_t>(p) * n + j);
      Acc wide[kV];
#pragma unroll
      for (int e = 0; e < kV; ++e) wide[e] = Arithmetic<T>::load(piece.lane[e]);
#pragma unroll
      for (int q = 0; q < kV / kAccPer16; ++q)
        *reinterpret_cast<Vec16<Acc>*>(&b_tile[p][j + q * kAccPer16]) =
            *reinterpret_cast<const Vec16<Acc>*>(&wide[q * kAccPer16]);
    }
  } else {
    for (int i = tid; i < k * kBlockN; i += Tile::kThreads) {
      const int p = i / kBlockN, j = i - p * kBlockN;
      b_tile[p][j] = j < columns_inside ? Arithmetic<T>::load(b_block[static_cast<std::int64_t>(p) * n + j]) : Acc(0);
    }
  }
  __syncthreads();  // the only barrier: threads past C may leave after it

  const int tx = tid % kColumnThreads, ty = tid / kColumnThreads;
  const int r0 = ty * kR;
  if (r0 >= rows_inside) return;
  const int first_column = kVectorized ? tx * kV : tx;
  if (first_column >= columns_inside) return;

  Acc acc[kR][kV] = {};
#pragma unroll 4
  for (int p = 0; p < k; ++p) {
    Acc a_values[kR], b_values[kV];
#pragma unroll
    for (int q = 0; q < kR / kAccPer16; ++q)
      *reinterpret_cast<Vec16<Acc>*>(&a_values[q * kAccPer16]) =
          *reinterpret_cast<const Vec16<Acc>*>(&a_tile[p][r0 + q * kAccPer16]);
    if constexpr (kVectorized) {
#pragma unroll
      for (int q = 0; q < kV / kAccPer16; ++q)
        *reinterpret_cast<Vec16<Acc>*>(&b_values[q * kAccPer16]) =
            *reinterpret_cast<const Vec16<Acc>*>(&b_tile[p][tx * kV + q * kAccPer16]);
    } else {
#pragma unroll
      for (int e = 0; e < kV; ++e) b_values[e] = b_tile[p][tx + kColumnThreads * e];
    }
#pragma unroll
    for (int r = 0; r < kR; ++r)
#pragma unroll
      for (int e = 0; e < kV; ++e) acc[r][e] += a_values[r] * b_values[e];
  }

#pragma unroll
  for (int r = 0; r < kR; ++r) {
    if (r0 + r >= rows_inside) break;
    T* c_row = c + static_cast<std::int64_t>(row0 + r0 + r) * n + col0;
    if constexpr (kVectorized) {
      Vec16<T> piece;
#pragma unroll
      for (int e = 0; e < kV; ++e) piece.lane[e] = Arithmetic<T>::store(acc[r][e]);
      *reinterpret_cast<Vec16<T>*>(c_row + tx * kV) = piece;  // first_column < columns_inside: wholly inside
    } else {
#pragma unroll
      for (int e = 0; e < kV; ++e)
        if (tx + kColumnThreads * e < columns_inside) c_row[tx + kColumnThreads * e] = Arithmetic<T>::store(acc[r][e]);
    }
  }
}

template <class T, int kColumnThreads>
void launch_with_columns(bool vectorized, int m, int n, int k, const T* a, const T* b, T* c, cudaStream_t stream) {
  using Tile = ShortKTile<T>;
  const std::int64_t blocks =
      static_cast<std::int64_t>((m + Tile::block_rows(kColumnThreads) - 1) / Tile::block_rows(kColumnThreads)) *
      ((n + Tile::block_columns(kColumnThreads) - 1) / Tile::block_columns(kColumnThreads));
  if (blocks > 0x7fffffff)
    throw std::invalid_argument("short-k GEMM of " + std::to_string(m) + " x " + std::to_string(n) + " needs " +
                                std::to_string(blocks) + " blocks, more than a grid holds");
  const auto grid = static_cast<unsigned>(blocks);
  if (vectorized)
    gemm_short_k_kernel<T, kColumnThreads, true><<<grid, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c);
  else
    gemm_short_k_kernel<T, kColumnThreads, false><<<grid, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c);
}

// Calls launch_with_columns for the power of two `column_threads`, from kMinColumnThreads up.
template <class T, int kColumnThreads = ShortKTile<T>::kMinColumnThreads>
void with_column_threads(int column_threads, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                         cudaStream_t stream) {
  if (column_threads == kColumnThreads) return launch_with_columns<T, kColumnThreads>(vectorized, m, n, k, a, b, c, stream);
  if constexpr (kColumnThreads < ShortKTile<T>::kMaxColumnThreads)
    return with_column_threads<T, 2 * kColumnThreads>(column_threads, vectorized, m, n, k, a, b, c, stream);
  throw std::invalid_argument("short-k GEMM blocks of " + std::to_string(column_threads) +
                              " threads across asked for; this element type takes powers of two from " +
                              std::to_string(ShortKTile<T>::kMinColumnThreads) + " to " +
                              std::to_string(ShortKTile<T>::kMaxColumnThreads));
}

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

template <class T>
void launch_gemm_short_k(int block_columns, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                         cudaStream_t stream) {
  using Tile = ShortKTile<T>;
  if (m < 1 || n < 1 || k < 1 || k > Tile::kMaxK)
    throw std::invalid_argument("short-k GEMM of " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                                std::to_string(k) + ": m and n must be positive and k from 1 to " +
                                std::to_string(Tile::kMaxK));
  if (block_columns % Tile::kVector != 0)
    throw std::invalid_argument("short-k GEMM blocks of " + std::to_string(block_columns) +
                                " columns asked for; they are multiples of " + std::to_string(Tile::kVector));
  if (vectorized && (n % Tile::kVector != 0 || !aligned16(b) || !aligned16(c)))
    throw std::invalid_argument("short-k GEMM asked for 16-byte accesses, but n = " + std::to_string(n) +
                                " or the start of B or C does not allow them");
  with_column_threads<T>(block_columns / Tile::kVector, vectorized, m, n, k, a, b, c, stream);
  GPB_CHECK_LAUNCH();
}

#define GPB_INSTANTIATE(T) \
  template void launch_gemm_short_k<T>(int, bool, int, int, int, const T*, const T*, T*, cudaStream_t);
GPB_FOR_EACH_ELEMENT_TYPE(GPB_INSTANTIATE)
#undef GPB_INSTANTIATE

}  // namespace gpb::kernels
