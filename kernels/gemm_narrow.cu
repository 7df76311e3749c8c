// The narrow GEMM, C (m x n) = A (m x k) B (k x n) for f16 and bf16, n of at most 64 (past the
// matrix-vector kernels' 4 columns). Its work is streaming A once: 2 bytes an element against
// 2 n flops, 32 flops a byte at n = 16, which the tensor cores hide under the copy bandwidth
// while the CUDA cores would not (f32 FMAs per element streamed outrun them from about 8
// columns). The wgmma tiles are 256 columns wide: at n = 16 they multiply 16 times the
// products needed, and few tiles leave SMs idle.
//
// A block of 8 warps takes 128 rows of A and C (16 a warp: one mma.sync's rows) and one part
// of k; parts fill the SMs where row blocks are fewer than the blocks in flight (the dispatch
// splits k). Per step of 32 along k a lane loads 16 bytes of each of its two rows of A (rows
// g and g + 8 of the warp's 16, g = lane / 4), its 8 elements at depth 8 t .. 8 t + 7 (t =
// lane % 4): the four lanes of a row read 64 contiguous bytes, straight from global memory
// into registers (no shared memory for A: each element is used by one warp only), four steps
// of loads in flight before their MMAs. Two m16n8k16 MMAs consume a step. Their 16 depths are
// a permutation of the step's 32 (any fixed order of k gives the product): for MMA s, the
// fragment's depths 2 t, 2 t + 1 are the step's 8 t + 4 s, + 1 and its depths 2 t + 8, + 9
// are 8 t + 4 s + 2, + 3, so each lane's registers are the pairs of its own 16-byte load as
// they lie. B takes the same permutation: it is staged per kStageK rows in shared memory
// transposed (b_tile[column][depth], 16 bytes of a column's depths a read), rows padded to
// 288 elements (144 words, 16 banks on from the last), so the 8 columns x 4 lanes of a
// fragment read all 32 banks once per quarter warp. Depths past k and columns past n are
// zeros in the stage, rows of A past k zeros in the registers. At 32 and 64 columns, where B's
// rows are 16-byte aligned, a variant stages B by a cp.async pipeline instead
// (gemm_narrow_pipelined_kernel, below).
//
// The sums of each output run over k in one fixed order, rounded once (to T, or written as
// f32 partials added in part order by launch_add_partials): the same bits on every run. A warp
// whose rows lie past m loads nothing and multiplies nothing; it only helps stage B.
#include "kernels/gemm_narrow.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/cp_async.cuh"
#include "kernels/launch_check.cuh"
#include "kernels/mma_f64.cuh"
#include "kernels/mma_sync.cuh"
#include "kernels/numeric.cuh"

namespace gpb::kernels {
namespace {

using Tile = NarrowGemmTile;
constexpr int kStageRow = Tile::kStageK + 32;  // a staged column's elements: 144 words, 16 banks on
constexpr int kStepsInFlight = 4;              // steps of A loaded before their MMAs
static_assert(Tile::kStageK % (Tile::kChunk * kStepsInFlight) == 0, "whole groups of steps per stage");

// 8 elements of row `row` of A at depth k0: one 16-byte load where all 8 lie before k_end and
// the row is 16-byte aligned there (kVectorized), else element by element, zeros from k_end.
template <bool kVectorized>
__device__ __forceinline__ uint4 load_a(const unsigned short* __restrict__ row, int k0, int k_end) {
  if (kVectorized && k0 + 8 <= k_end) return __ldcs(reinterpret_cast<const uint4*>(row + k0));
  unsigned short values[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) values[j] = k0 + j < k_end ? row[k0 + j] : static_cast<unsigned short>(0);
  return make_uint4(values[0] | static_cast<unsigned>(values[1]) << 16, values[2] | static_cast<unsigned>(values[3]) << 16,
                    values[4] | static_cast<unsigned>(values[5]) << 16, values[6] | static_cast<unsigned>(values[7]) << 16);
}

// Calls store(tile, i, at) for each accumulator i of each n8 tile a lane holds that lies in C:
// the m16n8 fragment's rows g and g + 8 (i / 2) and columns 2 t and 2 t + 1 (i % 2), of the
// warp's rows from row0; at is the entry's index in an m x n row-major matrix.
template <int kTiles, class Store>
__device__ __forceinline__ void for_each_output(int row0, int g, int t, int m, int n, Store store) {
#pragma unroll
  for (int tile = 0; tile < kTiles; ++tile) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row0 + g + 8 * half;
      if (row >= m) continue;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int column = tile * 8 + 2 * t + e;
        if (column < n) store(tile, 2 * half + e, static_cast<std::int64_t>(row) * n + column);
      }
    }
  }
}

// Writes a warp's sums to C, rounded once, or as f32 to part `part`'s partials (m x n each).
template <class T, int kTiles>
__device__ __forceinline__ void store_sums(const float (&sums)[kTiles][4], int row0, int g, int t, int m, int n,
                                           T* __restrict__ c, float* __restrict__ partials, int part) {
  for_each_output<kTiles>(row0, g, t, m, n, [&](int tile, int i, std::int64_t at) {
    if (partials)
      partials[static_cast<std::int64_t>(part) * m * n + at] = sums[tile][i];
    else
      c[at] = Arithmetic<T>::store(sums[tile][i]);
  });
}

template <class T, int kColumns, bool kVectorized>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSm)
    gemm_narrow_kernel(int m, int n, int k, int split_k, const T* __restrict__ a, const T* __restrict__ b,
                       T* __restrict__ c, float* __restrict__ partials) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // no mma.sync m16n8k16 or bf16 before sm_80; launch_gemm_narrow's callers check the device
#else
  constexpr int kTiles = kColumns / 8;  // n8 fragments of C a warp holds
  __shared__ __align__(16) unsigned short b_tile[kColumns][kStageRow];

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4;
  const int row0 = static_cast<int>(blockIdx.x) * Tile::kRows + warp * Tile::kRowsPerWarp;
  const bool has_rows = row0 < m;  // the same across the warp
  const int part = static_cast<int>(blockIdx.y);
  const int k_begin = part * split_k, k_end = min(k, k_begin + split_k);
  const auto* a_bits = reinterpret_cast<const unsigned short*>(a);
  const auto* b_bits = reinterpret_cast<const unsigned short*>(b);
  // B's rows start 16-byte aligned where n is a multiple of 8 (its start is: the caller checks).
  const bool b_aligned = n % 8 == 0;
  // Rows past m read row m - 1 (their sums are never stored).
  const unsigned short* a_low = a_bits + static_cast<std::int64_t>(min(row0 + g, m - 1)) * k;
  const unsigned short* a_high = a_bits + static_cast<std::int64_t>(min(row0 + g + 8, m - 1)) * k;

  float sums[kTiles][4] = {};
  constexpr int kItems = Tile::kStageK * kTiles / Tile::kThreads;  // a thread's 8-column items of a stage
  constexpr int kBatch = kItems < 4 ? kItems : 4;  // items in flight (8 spilled at 64 columns)
  static_assert(Tile::kStageK * kTiles % Tile::kThreads == 0 && kItems % kBatch == 0, "whole items, whole batches");
  for (int stage = k_begin; stage < k_end; stage += Tile::kStageK) {
    // Stage B's rows stage .. stage + kStageK, transposed: item i is 8 columns of one row,
    // neighbouring lanes on neighbouring rows (so their shared stores fall in neighbouring
    // words), one 16-byte load where B's rows are aligned and the 8 lie before n. A thread's
    // items are loaded kBatch at a time before they are stored, the first batch before the
    // barrier, so that their trips from memory overlap each other and the wait for the other
    // warps (one item at a time, f16 64 x 64 x 1048576 spent about a trip an item, 8 a stage).
#pragma unroll 1
    for (int batch = 0; batch < kItems; batch += kBatch) {
      uint4 items[kBatch];
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int item = static_cast<int>(threadIdx.x) + (batch + i) * Tile::kThreads;
        const int depth = item % Tile::kStageK, column0 = item / Tile::kStageK * 8;
        const int row = stage + depth;
        const unsigned short* source = b_bits + static_cast<std::int64_t>(row) * n + column0;
        if (row < k_end && b_aligned && column0 + 8 <= n) {
          items[i] = __ldg(reinterpret_cast<const uint4*>(source));
        } else {
          unsigned short values[8];
#pragma unroll
          for (int j = 0; j < 8; ++j)
            values[j] = row < k_end && column0 + j < n ? source[j] : static_cast<unsigned short>(0);
          items[i] = make_uint4(values[0] | static_cast<unsigned>(values[1]) << 16,
                                values[2] | static_cast<unsigned>(values[3]) << 16,
                                values[4] | static_cast<unsigned>(values[5]) << 16,
                                values[6] | static_cast<unsigned>(values[7]) << 16);
        }
      }
      if (batch == 0) __syncthreads();  // the previous stage's reads are done
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int item = static_cast<int>(threadIdx.x) + (batch + i) * Tile::kThreads;
        const int depth = item % Tile::kStageK, column0 = item / Tile::kStageK * 8;
        const unsigned words[4] = {items[i].x, items[i].y, items[i].z, items[i].w};
#pragma unroll
        for (int j = 0; j < 8; ++j)
          b_tile[column0 + j][depth] = static_cast<unsigned short>(words[j / 2] >> (16 * (j % 2)));
      }
    }
    __syncthreads();
    if (!has_rows) continue;
    const int stage_depth = min(Tile::kStageK, k_end - stage);
    for (int step0 = 0; step0 < stage_depth; step0 += Tile::kChunk * kStepsInFlight) {
      uint4 low[kStepsInFlight], high[kStepsInFlight];
#pragma unroll
      for (int s = 0; s < kStepsInFlight; ++s) {
        const int k0 = stage + step0 + s * Tile::kChunk + 8 * t;
        low[s] = load_a<kVectorized>(a_low, k0, k_end);
        high[s] = load_a<kVectorized>(a_high, k0, k_end);
      }
#pragma unroll
      for (int s = 0; s < kStepsInFlight; ++s) {
        if (step0 + s * Tile::kChunk >= stage_depth) break;
        const unsigned first[4] = {low[s].x, high[s].x, low[s].y, high[s].y};
        const unsigned second[4] = {low[s].z, high[s].z, low[s].w, high[s].w};
#pragma unroll
        for (int tile = 0; tile < kTiles; ++tile) {
          const uint4 depths =
              *reinterpret_cast<const uint4*>(&b_tile[tile * 8 + g][step0 + s * Tile::kChunk + 8 * t]);
          MmaOps<T>::mma(sums[tile], first, depths.x, depths.y);
          MmaOps<T>::mma(sums[tile], second, depths.z, depths.w);
        }
      }
    }
  }
  if (!has_rows) return;
  store_sums<T, kTiles>(sums, row0, g, t, m, n, c, partials, part);
#endif
}

// The kernel at 32 and 64 columns where B's rows are 16-byte aligned (n a multiple of 8): B is
// staged row-major, unpadded, by a cp.async pipeline of kPipeStages buffers of kPipeK rows,
// so that its copies run under the MMAs of earlier stages, and the fragments are read with
// ldmatrix.trans. Profiled at 64 columns (H200), the kernel above spent most of its time with
// no warp ready: a block stages B through registers and the two barriers, then loads A, and
// its warps stall on one and then the other (f16 8192 x 64 x 8192 at 42 % of the copy rate).
// The MMAs' permutation of each step's 32 depths is the one above: matrix q of ldmatrix.x4
// (MMA q / 2's fragment half q % 2) takes as its row r depth 8 (r / 2) + 4 (q / 2) + 2 (q % 2)
// + r % 2 of the step, so that lane (g, t) receives the depths the kernel above reads from its
// transposed stage. A row's 16-byte chunks are swizzled: chunk c of row d sits at c ^ f(d),
// f(d) = (d / 8) % 4, plus 4 (d % 2) at 64 columns, so that the 8 rows of each matrix
// (depths 8 a + const + e, a < 4, e < 2) fall on 8 different 16-byte bank groups.
// H200, kernel and sum of partials (kernel-notes.md, GEMM version 17): f16 8192 x 64 x 8192 84
// us (the staged kernel as it was) and 77 (its B loaded a batch at a time) to 65, 64 x 64 x
// 1048576 154 and 146 to 122, 2000 x 64 x 100000 213 and 196 to 164, 8192 x 32 x 8192 60 to 53.
constexpr int kPipeK = 128;      // rows of B a pipeline stage holds: 4 steps, one group of A's loads
constexpr int kPipeStages = 3;   // 3 x 128 rows x 128 bytes at 64 columns: 48 KiB, static
static_assert(Tile::kStageK % kPipeK == 0 && kPipeK == Tile::kChunk * kStepsInFlight,
              "a pipeline stage is one group of steps (a part, whole steps, may end inside one)");

// Where chunk `chunk` of row `row` (of a stage) sits among the row's kColumns / 8 chunks.
template <int kColumns>
__device__ __forceinline__ int swizzled_chunk(int row, int chunk) {
  static_assert(kColumns == 32 || kColumns == 64, "the swizzle spreads rows of 4 or 8 chunks");
  return chunk ^ (((row >> 3) & 3) | (kColumns == 64 ? (row & 1) << 2 : 0));
}

template <class T, int kColumns, bool kVectorized>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSm)
    gemm_narrow_pipelined_kernel(int m, int n, int k, int split_k, const T* __restrict__ a, const T* __restrict__ b,
                                 T* __restrict__ c, float* __restrict__ partials) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();
#else
  constexpr int kTiles = kColumns / 8;  // n8 fragments of C a warp holds
  constexpr int kChunks = kTiles;       // 16-byte chunks a row of B: one a fragment's 8 columns
  constexpr int kCopies = kPipeK * kChunks / Tile::kThreads;
  static_assert(kPipeK * kChunks % Tile::kThreads == 0, "whole copies a thread");
  __shared__ __align__(128) unsigned short stages[kPipeStages][kPipeK * kColumns];

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4;
  const int row0 = static_cast<int>(blockIdx.x) * Tile::kRows + warp * Tile::kRowsPerWarp;
  const bool has_rows = row0 < m;
  const int part = static_cast<int>(blockIdx.y);
  const int k_begin = part * split_k, k_end = min(k, k_begin + split_k);
  const int k_stages = (k_end - k_begin + kPipeK - 1) / kPipeK;
  const auto* a_bits = reinterpret_cast<const unsigned short*>(a);
  const auto* b_bits = reinterpret_cast<const unsigned short*>(b);
  const unsigned short* a_low = a_bits + static_cast<std::int64_t>(min(row0 + g, m - 1)) * k;
  const unsigned short* a_high = a_bits + static_cast<std::int64_t>(min(row0 + g + 8, m - 1)) * k;

  // Stage s's rows of B into buffer `buffer`: chunks past n or rows past k_end are zeros.
  const auto copy = [&](int s, int buffer) {
    const int first_row = k_begin + s * kPipeK;
#pragma unroll
    for (int i = 0; i < kCopies; ++i) {
      const int q = static_cast<int>(threadIdx.x) + i * Tile::kThreads;
      const int row = q / kChunks, chunk = q % kChunks;
      const bool inside = first_row + row < k_end && chunk * 8 < n;
      const unsigned short* source =
          inside ? b_bits + static_cast<std::int64_t>(first_row + row) * n + chunk * 8 : b_bits;
      copy_async<16>(&stages[buffer][row * kColumns + swizzled_chunk<kColumns>(row, chunk) * 8], source, inside);
    }
  };
  start_copy_pipeline<kPipeStages>(k_stages, copy);

  // This lane's ldmatrix row: matrix q = lane / 8, its row r = lane % 8.
  const int q = lane / 8, r = lane % 8;
  const int lane_row = 8 * (r / 2) + 4 * (q / 2) + 2 * (q % 2) + r % 2;
  float sums[kTiles][4] = {};
  for (int s = 0; s < k_stages; ++s) {
    const int buffer = advance_copy_pipeline<kPipeStages>(s, k_stages, copy);
    if (!has_rows) continue;
    const int stage = k_begin + s * kPipeK;
    uint4 low[kStepsInFlight], high[kStepsInFlight];
#pragma unroll
    for (int step = 0; step < kStepsInFlight; ++step) {
      const int k0 = stage + step * Tile::kChunk + 8 * t;
      low[step] = load_a<kVectorized>(a_low, k0, k_end);
      high[step] = load_a<kVectorized>(a_high, k0, k_end);
    }
    const unsigned base = shared_address(&stages[buffer][0]);
#pragma unroll
    for (int step = 0; step < kStepsInFlight; ++step) {
      if (stage + step * Tile::kChunk >= k_end) break;
      const unsigned first[4] = {low[step].x, high[step].x, low[step].y, high[step].y};
      const unsigned second[4] = {low[step].z, high[step].z, low[step].w, high[step].w};
      // The row's chunk 0, swizzled; chunk `tile` is then an XOR away (the row's start is a
      // multiple of 64 bytes, the chunk's offset within it below 64 or 128, in other bits).
      const int row = step * Tile::kChunk + lane_row;
      const unsigned row_address =
          base + 2u * static_cast<unsigned>(row * kColumns + swizzled_chunk<kColumns>(lane_row, 0) * 8);
#pragma unroll
      for (int tile = 0; tile < kTiles; ++tile) {
        unsigned depths[4];
        load_matrices_transposed(depths, row_address ^ (static_cast<unsigned>(tile) << 4));
        MmaOps<T>::mma(sums[tile], first, depths[0], depths[1]);
        MmaOps<T>::mma(sums[tile], second, depths[2], depths[3]);
      }
    }
  }
  if (!has_rows) return;  // every stage's copies have landed (advance_copy_pipeline waited on each)
  store_sums<T, kTiles>(sums, row0, g, t, m, n, c, partials, part);
#endif
}

template <class T, int kColumns>
void launch_width(bool vectorized, int m, int n, int k, const T* a, const T* b, T* c, float* partials, int parts,
                  int split_k, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((m + Tile::kRows - 1) / Tile::kRows), static_cast<unsigned>(parts));
  if constexpr (kColumns >= 32) {
    if (n % 8 == 0) {
      if (vectorized)
        gemm_narrow_pipelined_kernel<T, kColumns, true>
            <<<grid, Tile::kThreads, 0, stream>>>(m, n, k, split_k, a, b, c, partials);
      else
        gemm_narrow_pipelined_kernel<T, kColumns, false>
            <<<grid, Tile::kThreads, 0, stream>>>(m, n, k, split_k, a, b, c, partials);
      return;
    }
  }
  if (vectorized)
    gemm_narrow_kernel<T, kColumns, true><<<grid, Tile::kThreads, 0, stream>>>(m, n, k, split_k, a, b, c, partials);
  else
    gemm_narrow_kernel<T, kColumns, false><<<grid, Tile::kThreads, 0, stream>>>(m, n, k, split_k, a, b, c, partials);
}

// The checks both launches make: dimensions, parts of whole steps covering k, 16-byte loads
// only where allowed, B aligned.
void check_narrow_launch(const char* what, int columns, bool vectorized, int m, int n, int k, const void* a,
                         const void* b, int parts, int split_k, int split_step, int vector_elements,
                         bool has_partials) {
  const std::string name = std::string("narrow ") + what + " GEMM";
  if (m < 1 || n < 1 || k < 1 || n > columns)
    throw std::invalid_argument(name + " of " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                                std::to_string(k) + " on " + std::to_string(columns) +
                                " columns: m, n and k must be positive and n at most the columns");
  if (parts < 1 || (parts > 1 && (!has_partials || split_k % split_step != 0)) ||
      (parts == 1 ? split_k < k : static_cast<std::int64_t>(parts - 1) * split_k >= k ||
                                      static_cast<std::int64_t>(parts) * split_k < k))
    throw std::invalid_argument(name + ": " + std::to_string(parts) + " parts of " + std::to_string(split_k) +
                                " do not cover k = " + std::to_string(k) + " in whole steps of " +
                                std::to_string(split_step) + (parts > 1 && !has_partials ? " (no partials)" : ""));
  if (vectorized && (k % vector_elements != 0 || reinterpret_cast<std::uintptr_t>(a) % 16 != 0))
    throw std::invalid_argument(name + " asked for 16-byte loads of A, but k = " + std::to_string(k) +
                                " or A's start does not allow them");
  if (reinterpret_cast<std::uintptr_t>(b) % 16 != 0) throw std::invalid_argument(name + ": B must start 16-byte aligned");
}

// Calls launch(std::integral_constant<int, columns>) for the widths a kernel is compiled for:
// 8, 16, 32 and 64 up to kMaxColumns.
template <int kMaxColumns, class Launch>
void with_columns(int columns, const char* what, Launch launch) {
  const auto unknown = [&] {
    return std::invalid_argument(std::string("narrow ") + what + " GEMM of " + std::to_string(columns) +
                                 " columns: " + (kMaxColumns == 64 ? "8, 16, 32 or 64" : "8 or 16"));
  };
  if (columns == 8) {
    launch(std::integral_constant<int, 8>{});
  } else if (columns == 16) {
    launch(std::integral_constant<int, 16>{});
  } else if constexpr (kMaxColumns == 64) {
    if (columns == 32)
      launch(std::integral_constant<int, 32>{});
    else if (columns == 64)
      launch(std::integral_constant<int, 64>{});
    else
      throw unknown();
  } else {
    throw unknown();
  }
  GPB_CHECK_LAUNCH();
}
static_assert(NarrowGemmTile::kMaxColumns == 64 && NarrowF64GemmTile::kMaxColumns == 16,
              "with_columns knows these widths");

}  // namespace

template <class T>
void launch_gemm_narrow(int columns, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                        float* partials, int parts, int split_k, cudaStream_t stream) {
  check_narrow_launch("16-bit", columns, vectorized, m, n, k, a, b, parts, split_k, Tile::kChunk, 8,
                      partials != nullptr);
  with_columns<Tile::kMaxColumns>(columns, "16-bit", [&](auto width) {
    launch_width<T, decltype(width)::value>(vectorized, m, n, k, a, b, c, partials, parts, split_k, stream);
  });
}

template void launch_gemm_narrow<__half>(int, bool, int, int, int, const __half*, const __half*, __half*, float*, int,
                                         int, cudaStream_t);
template void launch_gemm_narrow<__nv_bfloat16>(int, bool, int, int, int, const __nv_bfloat16*, const __nv_bfloat16*,
                                                __nv_bfloat16*, float*, int, int, cudaStream_t);

namespace {

// The f64 kernel. Per 16-deep step a lane loads 4 doubles of each of its two rows (g and
// g + 8), depths 4 t .. 4 t + 3 of the step, as two 16-byte loads a row. The MMA's depths are a
// permutation of the step's (any fixed order of k gives the product): the fragment's depth
// t + 4 q is the step's 4 t + q, so the lane's A registers a_i = A[g + 8 (i % 2)][t + 4 (i / 2)]
// are its own loads as they lie, and its B registers b_q = B[t + 4 q][g] are the staged
// column g's depths 4 t .. 4 t + 3, two 16-byte shared loads. B is staged per kStageK rows
// transposed (b_tile[column][depth]), rows padded to 66 doubles: a quarter warp's 16-byte reads
// (two columns g, four lanes t) then cover all 32 banks once.
using F64Tile = NarrowF64GemmTile;
constexpr int kF64StageRow = F64Tile::kStageK + 2;
static_assert(kF64StageRow % 16 == 2, "the padding keeps the fragment reads free of bank conflicts");

// Doubles k0 and k0 + 1 of a row of A: one 16-byte load where both lie before k_end and the row
// is 16-byte aligned (kVectorized: k even), else element by element, zeros from k_end.
template <bool kVectorized>
__device__ __forceinline__ double2 load_a_pair(const double* __restrict__ row, int k0, int k_end) {
  if (kVectorized && k0 + 2 <= k_end) return __ldcs(reinterpret_cast<const double2*>(row + k0));
  return make_double2(k0 < k_end ? row[k0] : 0.0, k0 + 1 < k_end ? row[k0 + 1] : 0.0);
}

// A warp loads A in groups of steps, the next group while it multiplies the current one (the
// registers hold both), so its loads stay in flight across its MMAs and the staging of B. Groups
// of two steps (4 KiB) at 8 columns, of one step at 16, whose accumulators leave room for no
// more under the 128-register cap of two blocks an SM. (On an H200, one block of 8 warps loading
// four steps at a time, without the overlap, streamed 8192 x 32 x 8192 at 47 % of the copy rate,
// with it 57 %; two blocks at 8 columns 97 %.)
template <int kColumns>
constexpr int kF64GroupSteps = kColumns <= 8 ? 2 : 1;
static_assert(F64Tile::kStageK % (F64Tile::kStep * 2) == 0, "whole groups of steps per stage");

// A group of steps of A at depth k0 (its first step's): lane (g, t) takes depths 4 t .. 4 t + 3
// of each step, of rows g (low) and g + 8 (high), as pairs.
template <int kSteps>
struct F64Group {
  double2 low[kSteps][2], high[kSteps][2];
};

template <int kSteps, bool kVectorized>
__device__ __forceinline__ F64Group<kSteps> load_f64_group(const double* __restrict__ a_low,
                                                           const double* __restrict__ a_high, int k0, int k_end) {
  F64Group<kSteps> group;
#pragma unroll
  for (int s = 0; s < kSteps; ++s)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int depth = k0 + s * F64Tile::kStep + 2 * half;
      group.low[s][half] = load_a_pair<kVectorized>(a_low, depth, k_end);
      group.high[s][half] = load_a_pair<kVectorized>(a_high, depth, k_end);
    }
  return group;
}

template <int kColumns, bool kVectorized>
__global__ void __launch_bounds__(F64Tile::kThreads, F64Tile::kBlocksPerSm)
    gemm_narrow_f64_kernel(int m, int n, int k, int split_k, const double* __restrict__ a,
                           const double* __restrict__ b, double* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no f64 m16n8k16 before sm_90; launch_gemm_narrow_f64's callers check the device
#else
  constexpr int kTiles = kColumns / 8;
  __shared__ __align__(16) double b_tile[kColumns][kF64StageRow];

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4;
  const int row0 = static_cast<int>(blockIdx.x) * F64Tile::kRows + warp * F64Tile::kRowsPerWarp;
  const bool has_rows = row0 < m;  // the same across the warp
  const int part = static_cast<int>(blockIdx.y);
  const int k_begin = part * split_k, k_end = min(k, k_begin + split_k);
  c += static_cast<std::int64_t>(part) * m * n;
  const bool b_aligned = n % 2 == 0;  // B's rows start 16-byte aligned (its start is: the caller checks)
  // Rows past m read row m - 1 (their sums are never stored).
  const double* a_low = a + static_cast<std::int64_t>(min(row0 + g, m - 1)) * k;
  const double* a_high = a + static_cast<std::int64_t>(min(row0 + g + 8, m - 1)) * k;

  double sums[kTiles][4] = {};
  constexpr int kSteps = kF64GroupSteps<kColumns>;
  F64Group<kSteps> group = load_f64_group<kSteps, kVectorized>(a_low, a_high, k_begin + 4 * t, k_end);  // the first
  constexpr int kItems = F64Tile::kStageK * (kColumns / 2) / F64Tile::kThreads;  // a thread's items of a stage
  // Items of B's stage a thread loads before storing them: 2 (4 spilled at 32 columns, under the
  // register cap of two blocks an SM).
  constexpr int kBatch = kItems < 2 ? kItems : 2;
  static_assert(F64Tile::kStageK * (kColumns / 2) % F64Tile::kThreads == 0 && kItems % kBatch == 0,
                "whole items, whole batches");
  for (int stage = k_begin; stage < k_end; stage += F64Tile::kStageK) {
    // Stage B's rows stage .. stage + kStageK, transposed: item i is 2 columns of one row,
    // neighbouring lanes on neighbouring rows (their shared stores on neighbouring banks);
    // loaded a batch at a time before they are stored, the first before the barrier, as in the
    // 16-bit kernel.
#pragma unroll 1
    for (int batch = 0; batch < kItems; batch += kBatch) {
      double2 items[kBatch];
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int item = static_cast<int>(threadIdx.x) + (batch + i) * F64Tile::kThreads;
        const int depth = item % F64Tile::kStageK, column0 = item / F64Tile::kStageK * 2;
        const int row = stage + depth;
        const double* source = b + static_cast<std::int64_t>(row) * n + column0;
        items[i] = make_double2(0.0, 0.0);
        if (row < k_end) {
          if (b_aligned && column0 + 2 <= n)
            items[i] = __ldg(reinterpret_cast<const double2*>(source));
          else
            items[i] = make_double2(column0 < n ? source[0] : 0.0, column0 + 1 < n ? source[1] : 0.0);
        }
      }
      if (batch == 0) __syncthreads();  // the previous stage's reads are done
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int item = static_cast<int>(threadIdx.x) + (batch + i) * F64Tile::kThreads;
        const int depth = item % F64Tile::kStageK, column0 = item / F64Tile::kStageK * 2;
        b_tile[column0][depth] = items[i].x;
        b_tile[column0 + 1][depth] = items[i].y;
      }
    }
    __syncthreads();
    if (!has_rows) continue;
    const int stage_depth = min(F64Tile::kStageK, k_end - stage);
    for (int step0 = 0; step0 < stage_depth; step0 += F64Tile::kStep * kSteps) {
      // The next group's loads (past k_end: zeros, no memory touched) before this group's MMAs.
      const F64Group<kSteps> next =
          load_f64_group<kSteps, kVectorized>(a_low, a_high, stage + step0 + F64Tile::kStep * kSteps + 4 * t, k_end);
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        if (step0 + s * F64Tile::kStep >= stage_depth) break;
        // a_i: rows g (i even) and g + 8 (i odd), the step's depth 4 t + i / 2.
        const double fragment[8] = {group.low[s][0].x, group.high[s][0].x, group.low[s][0].y, group.high[s][0].y,
                                    group.low[s][1].x, group.high[s][1].x, group.low[s][1].y, group.high[s][1].y};
#pragma unroll
        for (int tile = 0; tile < kTiles; ++tile) {
          const double* depths = &b_tile[tile * 8 + g][step0 + s * F64Tile::kStep + 4 * t];
          const double2 first = *reinterpret_cast<const double2*>(depths);
          const double2 second = *reinterpret_cast<const double2*>(depths + 2);
          const double b_fragment[4] = {first.x, first.y, second.x, second.y};
          mma_m16n8k16_f64(sums[tile], fragment, b_fragment);
        }
      }
      group = next;
    }
  }
  if (!has_rows) return;
  for_each_output<kTiles>(row0, g, t, m, n, [&](int tile, int i, std::int64_t at) { c[at] = sums[tile][i]; });
#endif
}

template <int kColumns>
void launch_f64_width(bool vectorized, int m, int n, int k, const double* a, const double* b, double* c, int parts,
                      int split_k, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((m + F64Tile::kRows - 1) / F64Tile::kRows), static_cast<unsigned>(parts));
  if (vectorized)
    gemm_narrow_f64_kernel<kColumns, true><<<grid, F64Tile::kThreads, 0, stream>>>(m, n, k, split_k, a, b, c);
  else
    gemm_narrow_f64_kernel<kColumns, false><<<grid, F64Tile::kThreads, 0, stream>>>(m, n, k, split_k, a, b, c);
}

}  // namespace

void launch_gemm_narrow_f64(int columns, bool vectorized, int m, int n, int k, const double* a, const double* b,
                            double* c, int parts, int split_k, cudaStream_t stream) {
  check_narrow_launch("f64", columns, vectorized, m, n, k, a, b, parts, split_k, F64Tile::kStageK, 2, true);
  with_columns<F64Tile::kMaxColumns>(columns, "f64", [&](auto width) {
    launch_f64_width<decltype(width)::value>(vectorized, m, n, k, a, b, c, parts, split_k, stream);
  });
}

}  // namespace gpb::kernels
