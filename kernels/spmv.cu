#include "kernels/spmv.cuh"

#include <cub/block/block_scan.cuh>

#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/block_reduce.cuh"
#include "kernels/launch_check.cuh"

namespace gpb::kernels {
namespace {

// 16 bytes of values and the matching column indices as CUDA's built-in vector types,
// which the streaming-load intrinsics take.
template <class T>
struct EntryVectors;
template <>
struct EntryVectors<float> {
  using Values = float4;
  using Indices = int4;
  static constexpr int kLanes = 4;
};
template <>
struct EntryVectors<double> {
  using Values = double2;
  using Indices = int2;
  static constexpr int kLanes = 2;
};
// 16-bit values: 8 to a vector, their 8 column indices two int4 (indices stay 32-bit), and
// the 8 products, widened to f32, two float4.
struct IndexOctet {
  int4 low;
  int4 high;
};
struct alignas(16) ProductOctet {
  float4 low;
  float4 high;
};
struct SixteenBitEntryVectors {
  using Values = uint4;
  using Indices = IndexOctet;
  static constexpr int kLanes = 8;
};
template <>
struct EntryVectors<__half> : SixteenBitEntryVectors {};
template <>
struct EntryVectors<__nv_bfloat16> : SixteenBitEntryVectors {};

// The 16-bit pair in one 32-bit word of a loaded vector.
template <class T>
__device__ __forceinline__ typename Arithmetic<T>::Pair pair_of(unsigned word) {
  typename Arithmetic<T>::Pair pair;
  static_assert(sizeof pair == sizeof word);
  std::memcpy(&pair, &word, sizeof pair);
  return pair;
}

// x[column], widened to the compute type (read-only path).
template <class T>
__device__ __forceinline__ Accumulate<T> x_at(const T* __restrict__ x, std::int32_t column) {
  return Arithmetic<T>::load(__ldg(x + column));
}

// Values and column indices are read once: streaming loads (evict-first) keep them from
// pushing x, which is gathered again and again, out of L2. x goes through the read-only
// path. (No evict-last hint on x: it would let x survive gpubench's L2 flush.)
template <class T>
__device__ __forceinline__ T product(const T* __restrict__ values, const std::int32_t* __restrict__ col_idx,
                                     const T* __restrict__ x, std::int32_t j) {
  return __ldcs(values + j) * __ldg(x + __ldcs(col_idx + j));
}

// A row group's share of row [start, end), kLanesPerRow lanes striding over it. With
// kVectorLoads: entries one at a time up to the first 16-byte boundary, then whole 16-byte
// vectors of values and indices (several independent gathers per load), then the tail;
// without: one entry per lane per step, which keeps a warp's x reads contiguous when the
// row's columns are (banded matrices).
template <class T, int kLanesPerRow, bool kVectorLoads>
__device__ T row_partial(const T* __restrict__ values, const std::int32_t* __restrict__ col_idx,
                         const T* __restrict__ x, std::int32_t start, std::int32_t end, int lane_in_row) {
  T sum = 0;
  if constexpr (kVectorLoads) {
    using Vectors = EntryVectors<T>;
    constexpr int kLanes = Vectors::kLanes;
    const std::int32_t first_vector = (start + kLanes - 1) / kLanes;
    const std::int32_t end_vector = end / kLanes;
    if (first_vector < end_vector) {
      for (std::int32_t j = start + lane_in_row; j < first_vector * kLanes; j += kLanesPerRow)
        sum += product(values, col_idx, x, j);
      const auto* value_vectors = reinterpret_cast<const typename Vectors::Values*>(values);
      const auto* index_vectors = reinterpret_cast<const typename Vectors::Indices*>(col_idx);
      for (std::int32_t v = first_vector + lane_in_row; v < end_vector; v += kLanesPerRow) {
        const typename Vectors::Values a = __ldcs(value_vectors + v);
        const typename Vectors::Indices c = __ldcs(index_vectors + v);
        if constexpr (kLanes == 4)
          sum += a.x * __ldg(x + c.x) + a.y * __ldg(x + c.y) + a.z * __ldg(x + c.z) + a.w * __ldg(x + c.w);
        else
          sum += a.x * __ldg(x + c.x) + a.y * __ldg(x + c.y);
      }
      start = end_vector * kLanes;  // the tail, below
    }
  }
  for (std::int32_t j = start + lane_in_row; j < end; j += kLanesPerRow) sum += product(values, col_idx, x, j);
  return sum;
}

template <class T, int kThreadsPerRow, bool kVectorLoads>
__global__ void spmv_vector_kernel(CsrView matrix, const T* __restrict__ values, const T* __restrict__ x,
                                   T* __restrict__ y, std::int32_t long_row_limit) {
  constexpr int kRowsPerWarp = kWarpSize / kThreadsPerRow;
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const int lane_in_row = lane % kThreadsPerRow;
  const int row_in_warp = lane / kThreadsPerRow;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  // The loop bound depends only on the warp, so all 32 lanes reach the shuffles together.
  for (std::int64_t first = warp * kRowsPerWarp; first < matrix.rows; first += warps * kRowsPerWarp) {
    const std::int64_t row = first + row_in_warp;
    bool owned = row < matrix.rows;
    T sum = 0;
    if (owned) {
      const std::int32_t start = matrix.row_ptr[row];
      const std::int32_t end = matrix.row_ptr[row + 1];
      owned = end - start <= long_row_limit;
      if (owned)
        sum = row_partial<T, kThreadsPerRow, kVectorLoads>(values, matrix.col_idx, x, start, end, lane_in_row);
    }
#pragma unroll
    for (int offset = kThreadsPerRow / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(kFullWarp, sum, offset, kThreadsPerRow);
    if (lane_in_row == 0 && owned) y[row] = sum;
  }
}

template <class T, bool kVectorLoads>
void launch_vector(int threads_per_row, CsrView matrix, const T* values, const T* x, T* y, std::int32_t long_row_limit,
                   LaunchConfig config, cudaStream_t stream) {
  switch (threads_per_row) {
    case 2:
      spmv_vector_kernel<T, 2, kVectorLoads>
          <<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y, long_row_limit);
      break;
    case 4:
      spmv_vector_kernel<T, 4, kVectorLoads>
          <<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y, long_row_limit);
      break;
    case 8:
      spmv_vector_kernel<T, 8, kVectorLoads>
          <<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y, long_row_limit);
      break;
    case 16:
      spmv_vector_kernel<T, 16, kVectorLoads>
          <<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y, long_row_limit);
      break;
    case 32:
      spmv_vector_kernel<T, 32, kVectorLoads>
          <<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y, long_row_limit);
      break;
    default:
      throw std::invalid_argument("spmv vector kernel: unsupported threads per row " + std::to_string(threads_per_row));
  }
  GPB_CHECK_LAUNCH();
}

template <class T>
__global__ void spmv_scalar_kernel(CsrView matrix, const T* __restrict__ values, const T* __restrict__ x,
                                   T* __restrict__ y, std::int32_t long_row_limit) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < matrix.rows;
       row += stride) {
    const std::int32_t start = matrix.row_ptr[row];
    const std::int32_t end = matrix.row_ptr[row + 1];
    if (end - start > long_row_limit) continue;
    T sum = 0;
    for (std::int32_t j = start; j < end; ++j) sum += values[j] * x[matrix.col_idx[j]];
    y[row] = sum;
  }
}

// A thread's partial sum of the row its share of the merge path ends in. Scanned with
// JoinRowPartials, thread k receives the sum of the partials that threads before it left
// for its first row (the run of threads that ended in that row).
template <class T>
struct RowPartial {
  int row;  // tile-local
  T sum;
};

struct JoinRowPartials {
  template <class T>
  __device__ RowPartial<T> operator()(const RowPartial<T>& earlier, const RowPartial<T>& later) const {
    return {later.row, earlier.row == later.row ? earlier.sum + later.sum : later.sum};
  }
};

// Tile-local merge path: the number of row ends consumed on diagonal `diagonal`, given the
// tile's row ends relative to its first nonzero. A row end and a nonzero index that are
// equal: the row end first (that nonzero belongs to the next row).
__device__ __forceinline__ int merge_path_rows(const std::int32_t* row_ends, int rows, int nonzeros, int diagonal) {
  int low = max(0, diagonal - nonzeros);
  int high = min(diagonal, rows);
  while (low < high) {
    const int middle = (low + high) / 2;
    if (row_ends[middle] <= diagonal - middle - 1)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

// Minimum blocks per SM 1 stated: ptxas then takes the registers it wants (f32 47, f64 56:
// 5 and 4 blocks per SM). Measured on an H200 against capping them for more blocks: f32 at
// 32 registers 0.1 % slower, f64 at 48 0.4 % and at 40 (spills) 2.4 % slower.
// Acc: what products, sums, the scan and the carries are kept in (Accumulate<T>: T for f32
// and f64, f32 for the 16-bit types, whose rows are rounded once, when written).
template <class T, class Acc>
__global__ void __launch_bounds__(SpmvMergeTile<T>::kThreads, 1)
    spmv_merge_path_kernel(CsrView matrix, const std::int32_t* __restrict__ tile_rows,
                           const std::int32_t* __restrict__ tile_nonzeros, const T* __restrict__ values,
                           const T* __restrict__ x, T* __restrict__ y, Acc* __restrict__ tile_carries) {
  using Tile = SpmvMergeTile<T>;
  using Vectors = EntryVectors<T>;
  constexpr int kLanes = Vectors::kLanes;
  constexpr bool kWidened = !std::is_same_v<T, Acc>;
  static_assert(std::is_same_v<Acc, Accumulate<T>> && Tile::kCarrySlots == (kWidened ? 2 : 1));
  using Scan = cub::BlockScan<RowPartial<Acc>, Tile::kThreads>;
  // Row ends relative to the tile's first nonzero, plus a sentinel for the unfinished row.
  __shared__ std::int32_t row_ends[Tile::kItems + 1];
  // From `shift` on: the products in [0, nonzeros), the finished rows' sums in [nonzeros,
  // nonzeros + rows) (the tile's items number at most kItems, rows and nonzeros together).
  // shift = first_nonzero % kLanes, so that vectors of products land 16-byte aligned.
  __shared__ __align__(16) Acc tile_values[Tile::kItems + kLanes];
  __shared__ typename Scan::TempStorage scan_storage;

  const int first_row = tile_rows[blockIdx.x];
  const int first_nonzero = tile_nonzeros[blockIdx.x];
  const int rows = tile_rows[blockIdx.x + 1] - first_row;
  const int nonzeros = tile_nonzeros[blockIdx.x + 1] - first_nonzero;
  const int thread = static_cast<int>(threadIdx.x);
  const int shift = first_nonzero % kLanes;
  Acc* const products = tile_values + shift;

  for (int i = thread; i < rows; i += Tile::kThreads)
    row_ends[i] = matrix.row_ptr[first_row + i + 1] - first_nonzero;
  if (thread == 0) row_ends[rows] = nonzeros;
  {
    // Whole 16-byte vectors of values and indices inside the tile's nonzeros, a thread's
    // vectors all loaded before the first x gather; the at most 2 (kLanes - 1) entries
    // before the first and after the last vector one per thread.
    constexpr int kSlots = (Tile::kItems / kLanes + Tile::kThreads - 1) / Tile::kThreads;
    const int end_nonzero = first_nonzero + nonzeros;
    const int first_vector = (first_nonzero + kLanes - 1) / kLanes;
    const int end_vector = max(first_vector, end_nonzero / kLanes);
    const int head = min(first_vector * kLanes, end_nonzero) - first_nonzero;
    const int tail_begin = max(end_vector * kLanes, first_vector * kLanes);
    const int tail = max(0, end_nonzero - tail_begin);
    const auto* value_vectors = reinterpret_cast<const typename Vectors::Values*>(values);
    const auto* index_vectors = reinterpret_cast<const typename Vectors::Indices*>(matrix.col_idx);
    typename Vectors::Values a[kSlots];
    typename Vectors::Indices c[kSlots];
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const int v = first_vector + thread + s * Tile::kThreads;
      if (v < end_vector) {
        a[s] = __ldcs(value_vectors + v);
        if constexpr (kLanes == 8) {
          c[s].low = __ldcs(&index_vectors[v].low);
          c[s].high = __ldcs(&index_vectors[v].high);
        } else {
          c[s] = __ldcs(index_vectors + v);
        }
      }
    }
    // The odd entry: head entries go to threads [0, head), tail entries to [head, head + tail).
    int odd = -1;
    if (thread < head)
      odd = first_nonzero + thread;
    else if (thread < head + tail)
      odd = tail_begin + thread - head;
    const std::int32_t odd_column = odd >= 0 ? __ldcs(matrix.col_idx + odd) : 0;
    const Acc odd_value = odd >= 0 ? Arithmetic<T>::load(__ldcs(values + odd)) : Acc(0);
    using ProductVector = std::conditional_t<kLanes == 8, ProductOctet, typename Vectors::Values>;
    auto* product_vectors = reinterpret_cast<ProductVector*>(tile_values);
    const int base_vector = first_nonzero / kLanes;  // tile_values[0] is entry base_vector * kLanes
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const int v = first_vector + thread + s * Tile::kThreads;
      if (v < end_vector) {
        if constexpr (kLanes == 8) {
          // Four packed conversions for the eight values, one per gathered x.
          const float2 v01 = Arithmetic<T>::load2(pair_of<T>(a[s].x));
          const float2 v23 = Arithmetic<T>::load2(pair_of<T>(a[s].y));
          const float2 v45 = Arithmetic<T>::load2(pair_of<T>(a[s].z));
          const float2 v67 = Arithmetic<T>::load2(pair_of<T>(a[s].w));
          const IndexOctet& columns = c[s];
          ProductOctet& p = product_vectors[v - base_vector];
          p.low = make_float4(v01.x * x_at(x, columns.low.x), v01.y * x_at(x, columns.low.y),
                              v23.x * x_at(x, columns.low.z), v23.y * x_at(x, columns.low.w));
          p.high = make_float4(v45.x * x_at(x, columns.high.x), v45.y * x_at(x, columns.high.y),
                               v67.x * x_at(x, columns.high.z), v67.y * x_at(x, columns.high.w));
        } else {
          typename Vectors::Values p;
          if constexpr (kLanes == 4) {
            p.x = a[s].x * __ldg(x + c[s].x);
            p.y = a[s].y * __ldg(x + c[s].y);
            p.z = a[s].z * __ldg(x + c[s].z);
            p.w = a[s].w * __ldg(x + c[s].w);
          } else {
            p.x = a[s].x * __ldg(x + c[s].x);
            p.y = a[s].y * __ldg(x + c[s].y);
          }
          product_vectors[v - base_vector] = p;
        }
      }
    }
    if (odd >= 0) products[odd - first_nonzero] = odd_value * x_at(x, odd_column);
  }
  __syncthreads();

  // This thread's items of the tile's path: rows finished on the way get their sums (this
  // thread's part of them), the row it stops in a partial sum.
  const int items = rows + nonzeros;
  const int begin = min(thread * Tile::kItemsPerThread, items);
  const int end = min(begin + Tile::kItemsPerThread, items);
  const int begin_row = merge_path_rows(row_ends, rows, nonzeros, begin);
  int row = begin_row;
  int nonzero = begin - begin_row;
  Acc sum = 0;
#pragma unroll
  for (int k = 0; k < Tile::kItemsPerThread; ++k) {
    if (begin + k < end) {
      if (nonzero < row_ends[row]) {
        sum += products[nonzero];
        ++nonzero;
      } else {
        products[nonzeros + row] = sum;
        sum = 0;
        ++row;
      }
    }
  }

  // The first row this thread finished began before it: add what earlier threads summed.
  RowPartial<Acc> earlier;
  RowPartial<Acc> whole_tile;
  Scan(scan_storage).ExclusiveScan(RowPartial<Acc>{row, sum}, earlier, JoinRowPartials{}, whole_tile);
  if (thread > 0 && row > begin_row) products[nonzeros + begin_row] += earlier.sum;
  if constexpr (kWidened) {
    // Two slots a tile: its carry, and its part of its first row where earlier tiles began
    // that row (every tile but the first that finishes a row): the carry kernel adds the
    // earlier tiles' carries to it in f32 and rounds the row once.
    if (thread == 0) tile_carries[2 * blockIdx.x] = whole_tile.sum;
    __syncthreads();
    for (int i = thread; i < rows; i += Tile::kThreads) {
      const Acc row_sum = products[nonzeros + i];
      if (i == 0 && blockIdx.x > 0)
        tile_carries[2 * blockIdx.x + 1] = row_sum;
      else
        y[first_row + i] = Arithmetic<T>::store(row_sum);
    }
  } else {
    if (thread == 0) tile_carries[blockIdx.x] = whole_tile.sum;
    __syncthreads();

    for (int i = thread; i < rows; i += Tile::kThreads) y[first_row + i] = products[nonzeros + i];
  }
}

// Adds the carries of tiles that ended inside a row to that row, which a later tile wrote.
// The first long_runs blocks: a block per long run, each thread summing every
// kCarryThreads-th carry of it, then a warp-shuffle and shared-memory tree (a row across a
// thousand tiles costs a few dependent steps, not a thousand). The other blocks: a thread
// per short run, summing it in tile order. Which thread sums which carries, and in what
// order, depends on the matrix alone. 16-bit (Acc f32): the carries are the even slots,
// and the row is written once, rounded: the finishing tile's part (its odd slot) plus the
// carries, in f32.
template <class Acc, class T>
__device__ __forceinline__ void finish_carried_row(const SpmvCarryRun& run, const Acc* __restrict__ tile_carries,
                                                   Acc carries, T* __restrict__ y) {
  if constexpr (std::is_same_v<T, Acc>)
    y[run.row] += carries;
  else
    y[run.row] = Arithmetic<T>::store(tile_carries[2 * run.end_tile + 1] + carries);
}

template <class T, class Acc>
__global__ void __launch_bounds__(SpmvCarryRuns::kCarryThreads)
    spmv_merge_path_carry_kernel(const SpmvCarryRun* __restrict__ runs, unsigned long_runs, unsigned count,
                                 const Acc* __restrict__ tile_carries, T* __restrict__ y) {
  constexpr int kSlots = SpmvMergeTile<T>::kCarrySlots;
  if (blockIdx.x < long_runs) {
    const SpmvCarryRun run = runs[blockIdx.x];
    Acc sum = 0;
    for (std::int32_t t = run.first_tile + static_cast<std::int32_t>(threadIdx.x); t < run.end_tile;
         t += SpmvCarryRuns::kCarryThreads)
      sum += tile_carries[kSlots * t];
    sum = block_sum(sum);
    if (threadIdx.x == 0) finish_carried_row(run, tile_carries, sum, y);
    return;
  }
  const std::int64_t index =
      long_runs + static_cast<std::int64_t>(blockIdx.x - long_runs) * SpmvCarryRuns::kCarryThreads + threadIdx.x;
  if (index >= count) return;
  const SpmvCarryRun run = runs[index];
  Acc carry = 0;
  for (std::int32_t t = run.first_tile; t < run.end_tile; ++t) carry += tile_carries[kSlots * t];
  finish_carried_row(run, tile_carries, carry, y);
}

}  // namespace

template <class T>
void launch_spmv_vector(int threads_per_row, bool vector_loads, CsrView matrix, const T* values, const T* x, T* y,
                        std::int32_t long_row_limit, LaunchConfig config, cudaStream_t stream) {
  if (vector_loads)
    launch_vector<T, true>(threads_per_row, matrix, values, x, y, long_row_limit, config, stream);
  else
    launch_vector<T, false>(threads_per_row, matrix, values, x, y, long_row_limit, config, stream);
}

template <class T>
void launch_spmv_scalar(CsrView matrix, const T* values, const T* x, T* y, std::int32_t long_row_limit,
                        LaunchConfig config, cudaStream_t stream) {
  spmv_scalar_kernel<T><<<config.blocks, config.threads, 0, stream>>>(matrix, values, x, y, long_row_limit);
  GPB_CHECK_LAUNCH();
}

template <class T>
void launch_spmv_merge_path(CsrView matrix, const std::int32_t* tile_rows, const std::int32_t* tile_nonzeros,
                            unsigned tiles, const T* values, const T* x, T* y, Accumulate<T>* tile_carries,
                            SpmvCarryRuns carry_runs, cudaStream_t stream) {
  if (tiles == 0) return;
  using Acc = Accumulate<T>;
  spmv_merge_path_kernel<T, Acc><<<tiles, SpmvMergeTile<T>::kThreads, 0, stream>>>(
      matrix, tile_rows, tile_nonzeros, values, x, y, tile_carries);
  GPB_CHECK_LAUNCH();
  if (carry_runs.count == 0) return;
  constexpr unsigned kThreads = SpmvCarryRuns::kCarryThreads;
  const unsigned short_runs = carry_runs.count - carry_runs.long_runs;
  const unsigned blocks = carry_runs.long_runs + (short_runs + kThreads - 1) / kThreads;
  spmv_merge_path_carry_kernel<T, Acc><<<blocks, kThreads, 0, stream>>>(carry_runs.runs, carry_runs.long_runs,
                                                                       carry_runs.count, tile_carries, y);
  GPB_CHECK_LAUNCH();
}

template void launch_spmv_vector<float>(int, bool, CsrView, const float*, const float*, float*, std::int32_t,
                                        LaunchConfig, cudaStream_t);
template void launch_spmv_vector<double>(int, bool, CsrView, const double*, const double*, double*, std::int32_t,
                                         LaunchConfig, cudaStream_t);
template void launch_spmv_scalar<float>(CsrView, const float*, const float*, float*, std::int32_t, LaunchConfig,
                                        cudaStream_t);
template void launch_spmv_scalar<double>(CsrView, const double*, const double*, double*, std::int32_t, LaunchConfig,
                                         cudaStream_t);

template void launch_spmv_merge_path<float>(CsrView, const std::int32_t*, const std::int32_t*, unsigned, const float*,
                                            const float*, float*, float*, SpmvCarryRuns, cudaStream_t);
template void launch_spmv_merge_path<double>(CsrView, const std::int32_t*, const std::int32_t*, unsigned,
                                             const double*, const double*, double*, double*, SpmvCarryRuns,
                                             cudaStream_t);
template void launch_spmv_merge_path<__half>(CsrView, const std::int32_t*, const std::int32_t*, unsigned,
                                             const __half*, const __half*, __half*, float*, SpmvCarryRuns,
                                             cudaStream_t);
template void launch_spmv_merge_path<__nv_bfloat16>(CsrView, const std::int32_t*, const std::int32_t*, unsigned,
                                                    const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*,
                                                    float*, SpmvCarryRuns, cudaStream_t);

}  // namespace gpb::kernels
