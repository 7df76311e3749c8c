// Tiled GEMM for __half and __nv_bfloat16 on tensor cores through WMMA (nvcuda::wmma,
// 16 x 16 x 16 fragments, float accumulators). The cuda backend runs it where gemm_mma.cu's
// mma.sync kernel cannot: n or k not a multiple of 8, or a device that lacks sm_80 or its
// shared memory. Its bf16 fragment loads use generic addresses (the toolkit's WMMA bf16
// loads do not take the shared state space), likely why bf16 runs at half the f16 rate here.
//
// Each block of 256 threads (8 warps, 2 x 4) computes a 128 x 128 tile of C, walking k in
// stages of 32:
//   - A's 128 x 32 slice and B's 32 x 128 slice are loaded from global memory into
//     registers (two 16-byte loads per thread per matrix, coalesced along rows; element by
//     element when n or k is not a multiple of 8) and stored to shared memory, the next
//     slice being fetched before the current one is multiplied, so that global latency
//     hides behind the tensor-core work.
//   - Shared rows are padded by 8 elements (16 bytes): the fragment loads of consecutive
//     rows then start in different banks, and every fragment still starts 32-byte aligned
//     as load_matrix_sync requires.
//   - Each warp owns a 64 x 32 tile of C as 4 x 2 float accumulator fragments; per 16-deep
//     step it loads 4 A and 2 B fragments and issues 8 MMAs.
//   - Edges: loads outside A or B read as zero, so a partial tile adds nothing; the epilogue
//     goes through a per-warp 16 x 16 float scratch in shared memory (the accumulator
//     layout is opaque) and stores only the entries inside C, each rounded once to T.
// Correct for any m, n, k. It is the straightforward WMMA design, not a tuned one:
// docs/kernel-notes.md says what it leaves out (multi-stage cp.async pipelines, wgmma/TMA on
// sm_90).
#include "kernels/gemm_tensor.cuh"

#include <mma.h>

#include <cstdint>

#include "kernels/launch_check.cuh"
#include "kernels/numeric.cuh"
#include "kernels/vec16.cuh"

namespace gpb::kernels {
namespace {

using Tile = TensorGemmTile;
constexpr int kPad = 8;                            // elements added to each shared row
constexpr int kLdA = Tile::kBlockK + kPad;         // A slice: 128 rows of 32 (+8)
constexpr int kLdB = Tile::kBlockN + kPad;         // B slice: 32 rows of 128 (+8)
constexpr int kLanes = 8;                          // 16-bit elements per 16-byte vector
constexpr int kAElementsPerThread = Tile::kBlockM * Tile::kBlockK / Tile::kThreads;  // 16
constexpr int kBElementsPerThread = Tile::kBlockK * Tile::kBlockN / Tile::kThreads;  // 16

// One thread's share of a slice of A and of B, held in registers between the global load
// and the shared store.
template <class T>
struct StageRegisters {
  T a[kAElementsPerThread];
  T b[kBElementsPerThread];
};

template <class T, bool kVectorized>
__device__ void load_stage(StageRegisters<T>& stage, int m, int n, int k, const T* __restrict__ a,
                           const T* __restrict__ b, int m0, int n0, int k0) {
  const int tid = threadIdx.x;
  if constexpr (kVectorized) {
    constexpr int kAVectorsPerRow = Tile::kBlockK / kLanes;  // 4
    constexpr int kBVectorsPerRow = Tile::kBlockN / kLanes;  // 16
#pragma unroll
    for (int v = 0; v < kAElementsPerThread / kLanes; ++v) {
      const int index = tid + v * Tile::kThreads;
      const int row = m0 + index / kAVectorsPerRow, col = k0 + index % kAVectorsPerRow * kLanes;
      Vec16<T> loaded{};
      if (row < m && col < k) loaded = *reinterpret_cast<const Vec16<T>*>(a + static_cast<std::int64_t>(row) * k + col);
#pragma unroll
      for (int l = 0; l < kLanes; ++l) stage.a[v * kLanes + l] = loaded.lane[l];
    }
#pragma unroll
    for (int v = 0; v < kBElementsPerThread / kLanes; ++v) {
      const int index = tid + v * Tile::kThreads;
      const int row = k0 + index / kBVectorsPerRow, col = n0 + index % kBVectorsPerRow * kLanes;
      Vec16<T> loaded{};
      if (row < k && col < n) loaded = *reinterpret_cast<const Vec16<T>*>(b + static_cast<std::int64_t>(row) * n + col);
#pragma unroll
      for (int l = 0; l < kLanes; ++l) stage.b[v * kLanes + l] = loaded.lane[l];
    }
  } else {
#pragma unroll
    for (int e = 0; e < kAElementsPerThread; ++e) {
      const int index = tid + e * Tile::kThreads;
      const int row = m0 + index / Tile::kBlockK, col = k0 + index % Tile::kBlockK;
      stage.a[e] = row < m && col < k ? a[static_cast<std::int64_t>(row) * k + col] : T{};
    }
#pragma unroll
    for (int e = 0; e < kBElementsPerThread; ++e) {
      const int index = tid + e * Tile::kThreads;
      const int row = k0 + index / Tile::kBlockN, col = n0 + index % Tile::kBlockN;
      stage.b[e] = row < k && col < n ? b[static_cast<std::int64_t>(row) * n + col] : T{};
    }
  }
}

// The inverse of load_stage's index mapping, into the shared slices.
template <class T, bool kVectorized>
__device__ void store_stage(const StageRegisters<T>& stage, T (*a_tile)[kLdA], T (*b_tile)[kLdB]) {
  const int tid = threadIdx.x;
  if constexpr (kVectorized) {
    constexpr int kAVectorsPerRow = Tile::kBlockK / kLanes;
    constexpr int kBVectorsPerRow = Tile::kBlockN / kLanes;
#pragma unroll
    for (int v = 0; v < kAElementsPerThread / kLanes; ++v) {
      const int index = tid + v * Tile::kThreads;
      Vec16<T> value;
#pragma unroll
      for (int l = 0; l < kLanes; ++l) value.lane[l] = stage.a[v * kLanes + l];
      *reinterpret_cast<Vec16<T>*>(&a_tile[index / kAVectorsPerRow][index % kAVectorsPerRow * kLanes]) = value;
    }
#pragma unroll
    for (int v = 0; v < kBElementsPerThread / kLanes; ++v) {
      const int index = tid + v * Tile::kThreads;
      Vec16<T> value;
#pragma unroll
      for (int l = 0; l < kLanes; ++l) value.lane[l] = stage.b[v * kLanes + l];
      *reinterpret_cast<Vec16<T>*>(&b_tile[index / kBVectorsPerRow][index % kBVectorsPerRow * kLanes]) = value;
    }
  } else {
#pragma unroll
    for (int e = 0; e < kAElementsPerThread; ++e) {
      const int index = tid + e * Tile::kThreads;
      a_tile[index / Tile::kBlockK][index % Tile::kBlockK] = stage.a[e];
    }
#pragma unroll
    for (int e = 0; e < kBElementsPerThread; ++e) {
      const int index = tid + e * Tile::kThreads;
      b_tile[index / Tile::kBlockN][index % Tile::kBlockN] = stage.b[e];
    }
  }
}

template <class T, bool kVectorized>
__global__ void __launch_bounds__(Tile::kThreads)
    gemm_tensor_kernel(int m, int n, int k, const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c) {
  namespace wmma = nvcuda::wmma;
  constexpr int kFragmentsM = Tile::kWarpM / Tile::kMma;  // 4
  constexpr int kFragmentsN = Tile::kWarpN / Tile::kMma;  // 2
  using AFragment = wmma::fragment<wmma::matrix_a, Tile::kMma, Tile::kMma, Tile::kMma, T, wmma::row_major>;
  using BFragment = wmma::fragment<wmma::matrix_b, Tile::kMma, Tile::kMma, Tile::kMma, T, wmma::row_major>;
  using Accumulator = wmma::fragment<wmma::accumulator, Tile::kMma, Tile::kMma, Tile::kMma, float>;

  __shared__ __align__(128) T a_tile[Tile::kBlockM][kLdA];
  __shared__ __align__(128) T b_tile[Tile::kBlockK][kLdB];
  __shared__ __align__(128) float scratch[Tile::kWarpsM * Tile::kWarpsN][Tile::kMma * Tile::kMma];

  const int m0 = blockIdx.y * Tile::kBlockM, n0 = blockIdx.x * Tile::kBlockN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row = warp / Tile::kWarpsN * Tile::kWarpM, warp_col = warp % Tile::kWarpsN * Tile::kWarpN;

  Accumulator acc[kFragmentsM][kFragmentsN];
#pragma unroll
  for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragmentsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  StageRegisters<T> stage;
  load_stage<T, kVectorized>(stage, m, n, k, a, b, m0, n0, 0);
  for (int k0 = 0; k0 < k; k0 += Tile::kBlockK) {
    store_stage<T, kVectorized>(stage, a_tile, b_tile);
    __syncthreads();
    if (k0 + Tile::kBlockK < k) load_stage<T, kVectorized>(stage, m, n, k, a, b, m0, n0, k0 + Tile::kBlockK);
#pragma unroll
    for (int kk = 0; kk < Tile::kBlockK; kk += Tile::kMma) {
      AFragment a_fragments[kFragmentsM];
      BFragment b_fragments[kFragmentsN];
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i) wmma::load_matrix_sync(a_fragments[i], &a_tile[warp_row + i * Tile::kMma][kk], kLdA);
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j) wmma::load_matrix_sync(b_fragments[j], &b_tile[kk][warp_col + j * Tile::kMma], kLdB);
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragmentsN; ++j) wmma::mma_sync(acc[i][j], a_fragments[i], b_fragments[j], acc[i][j]);
    }
    __syncthreads();  // the slices are overwritten by the next stage's store
  }

  // Each lane writes 8 consecutive entries of one row of a 16 x 16 fragment.
  float* own_scratch = scratch[warp];
  const int fragment_row = lane / 2, fragment_col = lane % 2 * 8;
#pragma unroll
  for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragmentsN; ++j) {
      wmma::store_matrix_sync(own_scratch, acc[i][j], Tile::kMma, wmma::mem_row_major);
      __syncwarp();
      const int row = m0 + warp_row + i * Tile::kMma + fragment_row;
      const int col = n0 + warp_col + j * Tile::kMma + fragment_col;
      if (row < m) {
        T* c_row = c + static_cast<std::int64_t>(row) * n;
#pragma unroll
        for (int e = 0; e < 8; ++e)
          if (col + e < n) c_row[col + e] = Arithmetic<T>::store(own_scratch[fragment_row * Tile::kMma + fragment_col + e]);
      }
      __syncwarp();  // the scratch is overwritten by the next fragment
    }
}

}  // namespace

template <class T>
void launch_gemm_tensor(int m, int n, int k, const T* a, const T* b, T* c, bool vectorized, cudaStream_t stream) {
  const dim3 grid((n + Tile::kBlockN - 1) / Tile::kBlockN, (m + Tile::kBlockM - 1) / Tile::kBlockM);
  if (vectorized)
    gemm_tensor_kernel<T, true><<<grid, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c);
  else
    gemm_tensor_kernel<T, false><<<grid, Tile::kThreads, 0, stream>>>(m, n, k, a, b, c);
  GPB_CHECK_LAUNCH();
}

template void launch_gemm_tensor<__half>(int, int, int, const __half*, const __half*, __half*, bool, cudaStream_t);
template void launch_gemm_tensor<__nv_bfloat16>(int, int, int, const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*,
                                                bool, cudaStream_t);

}  // namespace gpb::kernels
