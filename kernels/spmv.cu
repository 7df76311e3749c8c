#include "kernels/spmv.cuh"

#include <cub/block/block_scan.cuh>

#include <stdexcept>
#include <string>

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
template <class T>
__global__ void __launch_bounds__(SpmvMergeTile<T>::kThreads, 1)
    spmv_merge_path_kernel(CsrView matrix, const std::int32_t* __restrict__ tile_rows,
                           const std::int32_t* __restrict__ tile_nonzeros, const T* __restrict__ values,
                           const T* __restrict__ x, T* __restrict__ y, T* __restrict__ tile_carries) {
  using Tile = SpmvMergeTile<T>;
  using Vectors = EntryVectors<T>;
  constexpr int kLanes = Vectors::kLanes;
  using Scan = cub::BlockScan<RowPartial<T>, Tile::kThreads>;
  // Row ends relative to the tile's first nonzero, plus a sentinel for the unfinished row.
  __shared__ std::int32_t row_ends[Tile::kItems + 1];
  // From `shift` on: the products in [0, nonzeros), the finished rows' sums in [nonzeros,
  // nonzeros + rows) (the tile's items number at most kItems, rows and nonzeros together).
  // shift = first_nonzero % kLanes, so that 16-byte vectors of products land 16-byte aligned.
  __shared__ __align__(16) T tile_values[Tile::kItems + kLanes];
  __shared__ typename Scan::TempStorage scan_storage;

  const int first_row = tile_rows[blockIdx.x];
  const int first_nonzero = tile_nonzeros[blockIdx.x];
  const int rows = tile_rows[blockIdx.x + 1] - first_row;
  const int nonzeros = tile_nonzeros[blockIdx.x + 1] - first_nonzero;
  const int thread = static_cast<int>(threadIdx.x);
  const int shift = first_nonzero % kLanes;
  T* const products = tile_values + shift;

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
        c[s] = __ldcs(index_vectors + v);
      }
    }
    // The odd entry: head entries go to threads [0, head), tail entries to [head, head + tail).
    int odd = -1;
    if (thread < head)
      odd = first_nonzero + thread;
    else if (thread < head + tail)
      odd = tail_begin + thread - head;
    const std::int32_t odd_column = odd >= 0 ? __ldcs(matrix.col_idx + odd) : 0;
    const T odd_value = odd >= 0 ? __ldcs(values + odd) : T(0);
    auto* product_vectors = reinterpret_cast<typename Vectors::Values*>(tile_values);
    const int base_vector = first_nonzero / kLanes;  // tile_values[0] is entry base_vector * kLanes
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const int v = first_vector + thread + s * Tile::kThreads;
      if (v < end_vector) {
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
    if (odd >= 0) products[odd - first_nonzero] = odd_value * __ldg(x + odd_column);
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
  T sum = 0;
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
  RowPartial<T> earlier;
  RowPartial<T> whole_tile;
  Scan(scan_storage).ExclusiveScan(RowPartial<T>{row, sum}, earlier, JoinRowPartials{}, whole_tile);
  if (thread > 0 && row > begin_row) products[nonzeros + begin_row] += earlier.sum;
  if (thread == 0) tile_carries[blockIdx.x] = whole_tile.sum;
  __syncthreads();

  for (int i = thread; i < rows; i += Tile::kThreads) y[first_row + i] = products[nonzeros + i];
}

// Adds the carries of tiles that ended inside a row to that row, which a later tile wrote.
// The first long_runs blocks: a block per long run, each thread summing every
// kCarryThreads-th carry of it, then a warp-shuffle and shared-memory tree (a row across a
// thousand tiles costs a few dependent steps, not a thousand). The other blocks: a thread
// per short run, summing it in tile order. Which thread sums which carries, and in what
// order, depends on the matrix alone.
template <class T>
__global__ void __launch_bounds__(SpmvCarryRuns::kCarryThreads)
    spmv_merge_path_carry_kernel(const SpmvCarryRun* __restrict__ runs, unsigned long_runs, unsigned count,
                                 const T* __restrict__ tile_carries, T* __restrict__ y) {
  if (blockIdx.x < long_runs) {
    const SpmvCarryRun run = runs[blockIdx.x];
    T sum = 0;
    for (std::int32_t t = run.first_tile + static_cast<std::int32_t>(threadIdx.x); t < run.end_tile;
         t += SpmvCarryRuns::kCarryThreads)
      sum += tile_carries[t];
    sum = block_sum(sum);
    if (threadIdx.x == 0) y[run.row] += sum;
    return;
  }
  const std::int64_t index =
      long_runs + static_cast<std::int64_t>(blockIdx.x - long_runs) * SpmvCarryRuns::kCarryThreads + threadIdx.x;
  if (index >= count) return;
  const SpmvCarryRun run = runs[index];
  T carry = 0;
  for (std::int32_t t = run.first_tile; t < run.end_tile; ++t) carry += tile_carries[t];
  y[run.row] += carry;
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
                            unsigned tiles, const T* values, const T* x, T* y, T* tile_carries,
                            SpmvCarryRuns carry_runs, cudaStream_t stream) {
  if (tiles == 0) return;
  spmv_merge_path_kernel<T><<<tiles, SpmvMergeTile<T>::kThreads, 0, stream>>>(matrix, tile_rows, tile_nonzeros, values,
                                                                              x, y, tile_carries);
  GPB_CHECK_LAUNCH();
  if (carry_runs.count == 0) return;
  constexpr unsigned kThreads = SpmvCarryRuns::kCarryThreads;
  const unsigned short_runs = carry_runs.count - carry_runs.long_runs;
  const unsigned blocks = carry_runs.long_runs + (short_runs + kThreads - 1) / kThreads;
  spmv_merge_path_carry_kernel<T><<<blocks, kThreads, 0, stream>>>(carry_runs.runs, carry_runs.long_runs,
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

}  // namespace gpb::kernels
