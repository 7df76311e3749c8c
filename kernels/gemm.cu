// Tiled GEMM with register blocking.
//
// Each block of 256 threads computes a 128 x 128 tile of C (GemmTile), walking k in
// stages of 16 (f64: 8, simt_stage_depth); products too small to fill the device with those
// may take 64 x 64 tiles (SmallGemmTile: 4 x 4 per thread, one group, stages of 16), C of at
// most 32 columns 128 x 32 ones (SlimGemmTile: 128 threads of 8 x 4, stages of 16), and C of
// at most 32 rows 32 x 128 ones (WideGemmTile, the same threads); the dispatch prices the
// four. The same code otherwise:
//   - A's 128 x 16 slice and B's 16 x 128 slice are loaded from global memory with 16-byte
//     loads (two per thread per matrix for f32), coalesced along rows.
//   - A's slice is stored transposed (a_tile[kk][row]) so that the inner loop reads a
//     thread's 8 A values for one kk as two 16-byte shared loads, like B's; the row is
//     padded by one 16-byte vector, and f32 steps 8 to 15 swap rows in blocks of 8, so the
//     transposing stores do not collide in one bank.
//   - Each thread owns an 8 x 8 register tile of C: per kk it reads 8 A and 8 B values
//     (4 shared loads) and issues 64 FMAs, so arithmetic, not shared memory, bounds it.
//     The 8 rows (and columns) are two groups of 4, 64 apart: a warp's B reads then cover
//     a contiguous 256-byte span (no bank conflicts) and its C stores are coalesced.
//   - Two shared-memory stages: the next slice is fetched into registers before the
//     current one is multiplied and stored to the other stage afterwards, so global
//     latency hides behind the FMAs and one barrier per stage suffices. The fetch is
//     unconditional (zeros past the end): a conditional one compiled to a block after the
//     FMAs (kernel-notes.md, GEMM version 10).
//   - Edges: loads outside A or B read as zero and stores outside C are skipped, so any
//     m, n, k work. A's and B's rows are lda and ldb apart: where they are not whole 16-byte
//     chunks the same kernel runs with element-wise global accesses (template parameter
//     kVectorized), or the caller pads them into copies whose rows are (zeros past k and n)
//     and C, n wide, is stored element by element where its rows are not whole chunks.
//   - Split k (blockIdx.z: part z of k, split_k deep): each part's blocks write their
//     product over that part to the z-th m x n slab of the output, which is then a workspace
//     of partials (gemm_split_k.cuh adds them); with one part the slab is C.
//   - f16 and bf16 (launch_gemm_widened): the same kernel with A's and B's elements loaded
//     one at a time and widened to f32 on their way to the shared tiles, which, the register
//     tiles and the sums are f32 (Accumulate<T>), so the inner loop is f32's; C's entries are
//     rounded once as they are stored. All of k in one part.
#include "kernels/gemm.cuh"

#include <cstdint>

#include "kernels/launch_check.cuh"
#include "kernels/numeric.cuh"
#include "kernels/tile_grid.cuh"
#include "kernels/vec16.cuh"

namespace gpb::kernels {
namespace {

// T: the element type of A, B and C; S = Accumulate<T>: the type of the shared tiles, the
// register tiles and the sums (f32 for f16 and bf16, whose elements are widened as they are
// loaded and C rounded once as it is stored; 16-bit runs only element by element).
template <class T, bool kVectorized, bool kStoreVectors, class Tile>
__global__ void __launch_bounds__(Tile::kThreads, (simt_min_blocks_per_sm<Accumulate<T>, Tile>()))
    gemm_kernel(int m, int n, int k, int lda, int ldb, int split_k, const T* __restrict__ a, const T* __restrict__ b,
                T* __restrict__ c) {
  using S = Accumulate<T>;
  static_assert(sizeof(T) == sizeof(S) || !kVectorized, "16-bit elements are loaded one at a time");
  constexpr int kBM = Tile::kBlockM, kBN = Tile::kBlockN, kBK = simt_stage_depth<S, Tile>();
  constexpr int kTM = Tile::kThreadM, kTN = Tile::kThreadN, kThreads = Tile::kThreads;
  using Vec = Vec16<S>;  // shared-memory reads; 16-byte global accesses are of S = T
  constexpr int kGlobalLanes = kVectorized ? Vec::kLanes : 1;  // elements per global access
  constexpr int kALoads = kBM * kBK / (kGlobalLanes * kThreads);
  constexpr int kBLoads = kBK * kBN / (kGlobalLanes * kThreads);
  static_assert(kALoads >= 1 && kBLoads >= 1, "tile too small for the block");
  constexpr int kGroups = Tile::kGroups;
  constexpr int kHalfM = kTM / kGroups, kHalfN = kTN / kGroups;  // a group's rows and columns
  static_assert(kHalfM % Vec::kLanes == 0 && kHalfN % Vec::kLanes == 0, "register groups must be whole vectors");

  __shared__ __align__(16) S a_tile[2][kBK][kBM + Vec::kLanes];
  __shared__ __align__(16) S b_tile[2][kBK][kBN];

  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * kBM;
  const int n0 = static_cast<int>(blockIdx.x) * kBN;
  const int ty = tid / (kBN / kTN);
  const int tx = tid % (kBN / kTN);
  const int k_begin = static_cast<int>(blockIdx.z) * split_k, k_end = min(k, k_begin + split_k);
  c += static_cast<std::int64_t>(blockIdx.z) * m * n;

  // Where row `row` of A's transposed slice sits at step kk: f32 steps 8 to 15 swap rows in
  // blocks of 8 (whole 16-byte vectors), so a warp's transposing stores of steps kk and kk + 8
  // land in different banks.
  auto a_position = [](int row, int kk) { return sizeof(S) == 4 && kBK > 8 ? row ^ (((kk >> 3) & 1) << 3) : row; };

  S a_stage[kALoads][kGlobalLanes];
  S b_stage[kBLoads][kGlobalLanes];
  S acc[kTM][kTN] = {};

  auto load_stage = [&](int k0) {
#pragma unroll
    for (int i = 0; i < kALoads; ++i) {
      const int v = tid + i * kThreads;
      const int row = v / (kBK / kGlobalLanes);
      const int col = (v % (kBK / kGlobalLanes)) * kGlobalLanes;
      const bool inside = m0 + row < m && k0 + col < k_end;
      const T* source = a + static_cast<std::int64_t>(m0 + row) * lda + (k0 + col);
      if constexpr (kVectorized) {
        const Vec loaded = inside ? *reinterpret_cast<const Vec*>(source) : Vec{};
#pragma unroll
        for (int l = 0; l < kGlobalLanes; ++l) a_stage[i][l] = loaded.lane[l];
      } else {
        a_stage[i][0] = inside ? Arithmetic<T>::load(*source) : S(0);
      }
    }
#pragma unroll
    for (int i = 0; i < kBLoads; ++i) {
      const int v = tid + i * kThreads;
      const int row = v / (kBN / kGlobalLanes);
      const int col = (v % (kBN / kGlobalLanes)) * kGlobalLanes;
      const bool inside = k0 + row < k_end && n0 + col < n;
      const T* source = b + static_cast<std::int64_t>(k0 + row) * ldb + (n0 + col);
      if constexpr (kVectorized) {
        const Vec loaded = inside ? *reinterpret_cast<const Vec*>(source) : Vec{};
#pragma unroll
        for (int l = 0; l < kGlobalLanes; ++l) b_stage[i][l] = loaded.lane[l];
      } else {
        b_stage[i][0] = inside ? Arithmetic<T>::load(*source) : S(0);
      }
    }
  };

  auto store_stage = [&](int stage) {
#pragma unroll
    for (int i = 0; i < kALoads; ++i) {
      const int v = tid + i * kThreads;
      const int row = v / (kBK / kGlobalLanes);
      const int col = (v % (kBK / kGlobalLanes)) * kGlobalLanes;
#pragma unroll
      for (int l = 0; l < kGlobalLanes; ++l) a_tile[stage][col + l][a_position(row, col + l)] = a_stage[i][l];
    }
#pragma unroll
    for (int i = 0; i < kBLoads; ++i) {
      const int v = tid + i * kThreads;
      const int row = v / (kBN / kGlobalLanes);
      const int col = (v % (kBN / kGlobalLanes)) * kGlobalLanes;
#pragma unroll
      for (int l = 0; l < kGlobalLanes; ++l) b_tile[stage][row][col + l] = b_stage[i][l];
    }
  };

  auto multiply_stage = [&](int stage) {
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      S a_frag[kTM];
      S b_frag[kTN];
#pragma unroll
      for (int half = 0; half < kGroups; ++half) {
#pragma unroll
        for (int v = 0; v < kHalfM / Vec::kLanes; ++v) {
          const int row = half * kBM / kGroups + ty * kHalfM + v * Vec::kLanes;
          const Vec loaded = *reinterpret_cast<const Vec*>(&a_tile[stage][kk][a_position(row, kk)]);
#pragma unroll
          for (int l = 0; l < Vec::kLanes; ++l) a_frag[half * kHalfM + v * Vec::kLanes + l] = loaded.lane[l];
        }
#pragma unroll
        for (int v = 0; v < kHalfN / Vec::kLanes; ++v) {
          const Vec loaded = *reinterpret_cast<const Vec*>(&b_tile[stage][kk][half * kBN / kGroups + tx * kHalfN + v * Vec::kLanes]);
#pragma unroll
          for (int l = 0; l < Vec::kLanes; ++l) b_frag[half * kHalfN + v * Vec::kLanes + l] = loaded.lane[l];
        }
      }
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
    }
  };

  const int k_stages = (k_end - k_begin + kBK - 1) / kBK;
  load_stage(k_begin);
  store_stage(0);
  __syncthreads();
  for (int s = 0; s < k_stages; ++s) {
    const int stage = s & 1;
    // Unconditional: past the last stage every load reads as zero (k0 >= k_end) and the store
    // goes to the buffer nobody reads again. Behind `if (s + 1 < k_stages)` the loads sat in a
    // block of their own after the FMAs, their latency exposed at every stage.
    load_stage(k_begin + (s + 1) * kBK);
    multiply_stage(stage);
    store_stage(stage ^ 1);
    __syncthreads();
  }

  // 16-byte stores where C's rows are whole 16-byte chunks (kStoreVectors; with 16-byte loads
  // from padded copies of A and B, C's rows may not be).
  static_assert(kVectorized || !kStoreVectors, "16-byte stores come with 16-byte loads");
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = m0 + (i / kHalfM) * (kBM / kGroups) + ty * kHalfM + i % kHalfM;
    if (row >= m) continue;
    T* c_row = c + static_cast<std::int64_t>(row) * n;
#pragma unroll
    for (int half = 0; half < kGroups; ++half) {
#pragma unroll
      for (int v = 0; v < kHalfN / kGlobalLanes; ++v) {
        const int col = n0 + half * kBN / kGroups + tx * kHalfN + v * kGlobalLanes;
        const int j = half * kHalfN + v * kGlobalLanes;
        if (col >= n) continue;
        if constexpr (kStoreVectors) {
          Vec16<T> out;
#pragma unroll
          for (int l = 0; l < kGlobalLanes; ++l) out.lane[l] = acc[i][j + l];
          *reinterpret_cast<Vec16<T>*>(c_row + col) = out;
        } else {
#pragma unroll
          for (int l = 0; l < kGlobalLanes; ++l)
            if (col + l < n) c_row[col + l] = Arithmetic<T>::store(acc[i][j + l]);
        }
      }
    }
  }
}

template <class T, class Tile>
void launch_tiled(int m, int n, int k, int lda, int ldb, const T* a, const T* b, T* c, bool vectorized, int parts,
                  int split_k, cudaStream_t stream) {
  for_each_row_slab(m, n, Tile::kBlockM, Tile::kBlockN, parts, "the SIMT GEMM", [&](int first, int rows, dim3 grid) {
    const T* slab_a = a + static_cast<std::int64_t>(first) * lda;
    T* slab_c = c + static_cast<std::int64_t>(first) * n;
    if constexpr (sizeof(T) == 2) {
      gemm_kernel<T, false, false, Tile>
          <<<grid, Tile::kThreads, 0, stream>>>(rows, n, k, lda, ldb, split_k, slab_a, b, slab_c);
    } else if (vectorized && n % Vec16<T>::kLanes == 0)
      gemm_kernel<T, true, true, Tile>
          <<<grid, Tile::kThreads, 0, stream>>>(rows, n, k, lda, ldb, split_k, slab_a, b, slab_c);
    else if (vectorized)
      gemm_kernel<T, true, false, Tile>
          <<<grid, Tile::kThreads, 0, stream>>>(rows, n, k, lda, ldb, split_k, slab_a, b, slab_c);
    else
      gemm_kernel<T, false, false, Tile>
          <<<grid, Tile::kThreads, 0, stream>>>(rows, n, k, lda, ldb, split_k, slab_a, b, slab_c);
    GPB_CHECK_LAUNCH();
  });
}

}  // namespace

template <class T>
void launch_gemm(int m, int n, int k, int lda, int ldb, const T* a, const T* b, T* c, bool vectorized, SimtTile tile,
                 int parts, int split_k, cudaStream_t stream) {
  switch (tile) {
    case SimtTile::large:
      launch_tiled<T, GemmTile>(m, n, k, lda, ldb, a, b, c, vectorized, parts, split_k, stream);
      return;
    case SimtTile::small:
      launch_tiled<T, SmallGemmTile>(m, n, k, lda, ldb, a, b, c, vectorized, parts, split_k, stream);
      return;
    case SimtTile::slim:
      launch_tiled<T, SlimGemmTile>(m, n, k, lda, ldb, a, b, c, vectorized, parts, split_k, stream);
      return;
    case SimtTile::wide:
      launch_tiled<T, WideGemmTile>(m, n, k, lda, ldb, a, b, c, vectorized, parts, split_k, stream);
      return;
  }
}

template <class T>
void launch_gemm_widened(int m, int n, int k, const T* a, const T* b, T* c, SimtTile tile, cudaStream_t stream) {
  launch_gemm<T>(m, n, k, k, n, a, b, c, false, tile, 1, k, stream);
}

template void launch_gemm_widened<__half>(int, int, int, const __half*, const __half*, __half*, SimtTile, cudaStream_t);
template void launch_gemm_widened<__nv_bfloat16>(int, int, int, const __nv_bfloat16*, const __nv_bfloat16*,
                                                 __nv_bfloat16*, SimtTile, cudaStream_t);
template void launch_gemm<float>(int, int, int, int, int, const float*, const float*, float*, bool, SimtTile, int,
                                 int, cudaStream_t);
template void launch_gemm<double>(int, int, int, int, int, const double*, const double*, double*, bool, SimtTile, int,
                                  int, cudaStream_t);

}  // namespace gpb::kernels
