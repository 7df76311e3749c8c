// Tiled GEMM for __half and __nv_bfloat16 on tensor cores: PTX
// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 (sm_80 and newer), fed from
// shared memory by ldmatrix and into it by a cp.async pipeline. For rows of whole 16-byte
// chunks (leading dimensions multiples of 8); the host pads other shapes into such copies.
//
// Each block of 256 threads (8 warps, 2 x 4) computes a 128 x 256 tile of C, walking k in
// stages of 32:
//   - Four shared-memory stages in flight: while the warps multiply stage s, the copies of
//     stages s + 1 .. s + 3 are under way (cp.async.cg, 16 bytes, global to shared without
//     passing through registers). One barrier per stage: it publishes the stage just landed
//     and retires the one the next copy overwrites. Chunks outside A or B (rows past m,
//     columns past k or n: with n and k multiples of 8 a chunk is wholly in or out) are
//     zero-filled by the copy itself (source size 0), so partial tiles add nothing.
//   - Swizzled, unpadded shared layout, so that each 8 x 8 matrix an ldmatrix phase reads
//     (8 rows of 16 bytes) touches all 32 banks once:
//       A slice, rows of 32 elements (4 chunks of 16 bytes): chunk c of row r sits at chunk
//       c ^ ((r >> 1) & 3). Eight consecutive rows r0 .. r0 + 7 (r0 a multiple of 8) at one
//       logical chunk then land on 16-byte units (4r + (c ^ ((r >> 1) & 3))) mod 8, all
//       different: the two rows of a pair differ by 4, the four pairs by the XOR.
//       B slice, rows of 256 elements (32 chunks): chunk c of row r sits at c ^ (r & 7);
//       eight consecutive rows at one logical chunk land on units (c ^ r) mod 8.
//     The copies write whole rows (A: 8 rows of 4 chunks per warp; B: one row of 32 chunks),
//     permuted within the row, also free of conflicts.
//   - Each warp owns a 64 x 64 tile of C: 4 x 8 accumulator fragments of 16 x 8 (four
//     floats per lane), 128 registers. Per 16-deep step it loads 4 A fragments (16 x 16,
//     ldmatrix.x4) and 8 B fragments (16 x 8, four ldmatrix.x4.trans, two fragments each)
//     and issues 32 MMAs: 4 KiB of shared-memory reads for 32 x 4096 flops.
//   - Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point
//     type"), with g = lane / 4 and t = lane % 4, each register holding two 16-bit elements:
//       A (16 x 16, row): reg 0 = A[g][2t, 2t+1], reg 1 = A[g+8][2t, 2t+1],
//                         reg 2 = A[g][2t+8, 2t+9], reg 3 = A[g+8][2t+8, 2t+9];
//       B (16 x 8, col):  reg 0 = B[2t, 2t+1][g], reg 1 = B[2t+8, 2t+9][g];
//       C (16 x 8, f32):  c0, c1 = C[g][2t, 2t+1], c2, c3 = C[g+8][2t, 2t+1].
//     ldmatrix.x4 takes the row addresses of matrix q from lanes 8q .. 8q + 7 and hands lane
//     l, for matrix q, row l / 4, elements 2(l % 4) and 2(l % 4) + 1, into register q; with
//     .trans the matrix is transposed first, so lane l gets rows 2(l % 4), 2(l % 4) + 1 of
//     column l / 4. Hence for A the four matrices are (rows 0-7, k 0-7), (rows 8-15, k 0-7),
//     (rows 0-7, k 8-15), (rows 8-15, k 8-15) = registers 0..3; for B (row-major k x n,
//     loaded with .trans) they are (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15),
//     (k 8-15, n 8-15) = registers 0, 1 of fragment j and 0, 1 of fragment j + 1.
//   - Epilogue: each accumulator pair is rounded once to T (a 4-byte pair) into a per-warp
//     64 x 64 tile in shared memory (the stages' memory, free after a barrier; chunk c of row
//     r at c ^ (r & 7), conflict-free both ways), then read back as 16-byte chunks and
//     stored to C as 16-byte stores, a row's 128 bytes per 8 lanes; chunks past m or n are
//     skipped (with n a multiple of 8 a chunk is wholly in or out). Rows of C that are not
//     whole 16-byte chunks (odd widths) are stored element by element from the tile,
//     neighbouring lanes on neighbouring columns (store_tile_elements).
//   - Blocks are ordered in groups of 8 block rows (consecutive blocks walk down a group's
//     rows before moving right), so the blocks resident at one time share A and B slices
//     in L2.
//   - Split k (blockIdx.y: part y of k, split_k deep): the blocks of a part write their f32
//     sums, unrounded, straight from the accumulators to the y-th m x n slab of `partials`
//     (8-byte stores, four lanes to a 32-byte row segment), which gemm_split_k.cuh adds;
//     with one part the epilogue above writes C. Warps whose 64 x 64 of C lies wholly
//     outside C skip their MMAs.
// What it leaves out: sm_90's wgmma (asynchronous warpgroup MMA reading shared memory
// directly) and TMA (bulk tensor copies with hardware swizzling), which is what reaches
// cuBLAS on Hopper; docs/kernel-notes.md has the prediction.
#include "kernels/gemm_mma.cuh"
#include "kernels/mma_sync.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/cp_async.cuh"
#include "kernels/gemm_store.cuh"
#include "kernels/launch_check.cuh"

namespace gpb::kernels {
namespace {

using Tile = MmaGemmTile;
constexpr int kChunk = 8;  // 16-bit elements per 16-byte chunk
constexpr int kAChunksPerRow = Tile::kBlockK / kChunk;  // 4
constexpr int kBChunksPerRow = Tile::kBlockN / kChunk;  // 32
constexpr int kAStageElements = Tile::kBlockM * Tile::kBlockK;
constexpr int kBStageElements = Tile::kBlockK * Tile::kBlockN;
constexpr int kStageElements = kAStageElements + kBStageElements;
constexpr int kFragmentsM = Tile::kWarpM / Tile::kMmaM;  // 4
constexpr int kFragmentsN = Tile::kWarpN / Tile::kMmaN;  // 8
constexpr int kWarpChunksPerRow = Tile::kWarpN / kChunk;  // 8: the epilogue tile's rows
constexpr int kGroupRows = 8;                             // block rows per group of the block order
static_assert(2 * kStageElements * Tile::kStages == Tile::kSharedBytes, "the stages fill kSharedBytes");
static_assert(kAChunksPerRow == 4, "the A swizzle permutes the 4 chunks of a row");
static_assert(kBChunksPerRow % 8 == 0 && kWarpChunksPerRow == 8, "the B and epilogue swizzles permute 8 chunks");
static_assert(2 * Tile::kWarpM * Tile::kWarpN * Tile::kWarpsM * Tile::kWarpsN <= Tile::kSharedBytes,
              "the epilogue tiles fit in the stages' memory");
static_assert(Tile::kBlockK % Tile::kMmaK == 0 && kFragmentsN % 2 == 0, "whole MMA steps and B fragment pairs");

// Element offsets of logical chunk `chunk` of row `row` in the swizzled A and B slices.
__device__ __forceinline__ int a_slice_offset(int row, int chunk) {
  return row * Tile::kBlockK + (chunk ^ ((row >> 1) & 3)) * kChunk;
}
__device__ __forceinline__ int b_slice_offset(int row, int chunk) {
  return row * Tile::kBlockN + (chunk ^ (row & 7)) * kChunk;
}

// Starts the copies of A's 128 x 32 slice and B's 32 x 256 slice at depth k0 into one stage
// (A at the front, B after it); consecutive threads take consecutive chunks of a row, so
// the global reads coalesce along rows. Depths from k_end on read as zero (a chunk that
// starts before k_end is copied whole: A's padding past k holds zeros).
template <class T>
__device__ __forceinline__ void copy_stage(T* stage, int m, int n, int k_end, int lda, int ldb,
                                           const T* __restrict__ a, const T* __restrict__ b, int m0, int n0, int k0) {
  constexpr int kACopies = Tile::kBlockM * kAChunksPerRow / Tile::kThreads;  // 2
  constexpr int kBCopies = Tile::kBlockK * kBChunksPerRow / Tile::kThreads;  // 4
  static_assert(kACopies * Tile::kThreads == Tile::kBlockM * kAChunksPerRow &&
                    kBCopies * Tile::kThreads == Tile::kBlockK * kBChunksPerRow,
                "the copies must divide evenly among the threads");
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int i = 0; i < kACopies; ++i) {
    const int index = tid + i * Tile::kThreads;
    const int row = index / kAChunksPerRow, chunk = index % kAChunksPerRow;
    const int global_row = m0 + row, global_col = k0 + chunk * kChunk;
    const bool inside = global_row < m && global_col < k_end;
    const T* source = inside ? a + static_cast<std::int64_t>(global_row) * lda + global_col : a;
    copy_async<16>(stage + a_slice_offset(row, chunk), source, inside);
  }
  T* b_slice = stage + kAStageElements;
#pragma unroll
  for (int i = 0; i < kBCopies; ++i) {
    const int index = tid + i * Tile::kThreads;
    const int row = index / kBChunksPerRow, chunk = index % kBChunksPerRow;
    const int global_row = k0 + row, global_col = n0 + chunk * kChunk;
    const bool inside = global_row < k_end && global_col < n;
    const T* source = inside ? b + static_cast<std::int64_t>(global_row) * ldb + global_col : b;
    copy_async<16>(b_slice + b_slice_offset(row, chunk), source, inside);
  }
}

template <class T>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    gemm_mma_kernel(int m, int n, int k, int lda, int ldb, int ldc, int c_columns, int split_k,
                    const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, float* __restrict__ partials) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // no mma.sync m16n8k16, bf16 or cp.async before sm_80; launch_gemm_mma's callers check the device
#else
  extern __shared__ __align__(128) unsigned char shared_memory[];
  T* stages = reinterpret_cast<T*>(shared_memory);

  // The block's tile, in groups of kGroupRows block rows: within a group, consecutive
  // blocks go down the rows first.
  const int blocks_m = (m + Tile::kBlockM - 1) / Tile::kBlockM, blocks_n = (n + Tile::kBlockN - 1) / Tile::kBlockN;
  const int block = static_cast<int>(blockIdx.x);
  const int group = block / (kGroupRows * blocks_n), in_group = block % (kGroupRows * blocks_n);
  const int first_row = group * kGroupRows;
  const int group_rows = min(blocks_m - first_row, kGroupRows);
  const int m0 = (first_row + in_group % group_rows) * Tile::kBlockM;
  const int n0 = in_group / group_rows * Tile::kBlockN;

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_row = warp / Tile::kWarpsN * Tile::kWarpM, warp_col = warp % Tile::kWarpsN * Tile::kWarpN;
  const bool has_output = m0 + warp_row < m && n0 + warp_col < n;
  const int part = static_cast<int>(blockIdx.y);
  const int k_begin = part * split_k, k_end = min(k, k_begin + split_k);

  // The row this lane addresses for ldmatrix: matrix q = lane / 8, its row lane % 8.
  const int matrix = lane / 8, matrix_row = lane % 8;
  // A matrices (rows 0-7 | 8-15) x (k 0-7 | 8-15), rows varying fastest: this lane's row of
  // the warp's first fragment and its chunk in the first 16-deep step.
  const int a_row = warp_row + matrix_row + (matrix & 1) * 8;
  const int a_chunk = matrix >> 1;
  // B matrices (k 0-7 | 8-15) x (n 0-7 | 8-15), k varying fastest: this lane's k row in the
  // first step and its chunk of the warp's first fragment pair.
  const int b_row = matrix_row + (matrix & 1) * 8;
  const int b_chunk = warp_col / kChunk + (matrix >> 1);

  float acc[kFragmentsM][kFragmentsN][4] = {};

  const int k_stages = (k_end - k_begin + Tile::kBlockK - 1) / Tile::kBlockK;
  const auto copy = [&](int s, int buffer) {
    copy_stage(stages + buffer * kStageElements, m, n, k_end, lda, ldb, a, b, m0, n0, k_begin + s * Tile::kBlockK);
  };
  start_copy_pipeline<Tile::kStages>(k_stages, copy);
  for (int s = 0; s < k_stages; ++s) {
    const int buffer = advance_copy_pipeline<Tile::kStages>(s, k_stages, copy);
    if (!has_output) continue;

    const T* a_slice = stages + buffer * kStageElements;
    const T* b_slice = a_slice + kAStageElements;
#pragma unroll
    for (int step = 0; step < Tile::kBlockK / Tile::kMmaK; ++step) {
      unsigned a_fragments[kFragmentsM][4];
      unsigned b_fragments[kFragmentsN][2];
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
        load_matrices(a_fragments[i],
                      shared_address(a_slice + a_slice_offset(a_row + i * Tile::kMmaM, a_chunk + 2 * step)));
#pragma unroll
      for (int pair = 0; pair < kFragmentsN / 2; ++pair) {
        unsigned loaded[4];
        load_matrices_transposed(
            loaded, shared_address(b_slice + b_slice_offset(b_row + step * Tile::kMmaK, b_chunk + 2 * pair)));
        b_fragments[2 * pair][0] = loaded[0];
        b_fragments[2 * pair][1] = loaded[1];
        b_fragments[2 * pair + 1][0] = loaded[2];
        b_fragments[2 * pair + 1][1] = loaded[3];
      }
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragmentsN; ++j)
          MmaOps<T>::mma(acc[i][j], a_fragments[i], b_fragments[j][0], b_fragments[j][1]);
    }
  }

  const int g = lane / 4, t = lane % 4;
  if (partials) {
    float* slab = partials + static_cast<std::int64_t>(part) * m * n;
#pragma unroll
    for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = m0 + warp_row + i * Tile::kMmaM + half * 8 + g;
        if (row >= m) continue;
#pragma unroll
        for (int j = 0; j < kFragmentsN; ++j) {
          const int col = n0 + warp_col + j * Tile::kMmaN + 2 * t;  // even, and n is a multiple of 8
          if (col < n)
            *reinterpret_cast<float2*>(slab + static_cast<std::int64_t>(row) * n + col) =
                make_float2(acc[i][j][2 * half], acc[i][j][2 * half + 1]);
        }
      }
    return;
  }
  // Only empty groups can still be pending; after the barrier no warp reads a stage, and
  // the stages' memory holds the warps' epilogue tiles.
  wait_for_copies<0>();
  __syncthreads();
  T* own_tile = stages + warp * Tile::kWarpM * Tile::kWarpN;
#pragma unroll
  for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = i * Tile::kMmaM + half * 8 + g;
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j)
        *reinterpret_cast<typename MmaOps<T>::Pair*>(own_tile + row * Tile::kWarpN + (j ^ (row & 7)) * kChunk + 2 * t) =
            MmaOps<T>::round(acc[i][j][2 * half], acc[i][j][2 * half + 1]);
    }
  __syncwarp();
  constexpr int kPasses = Tile::kWarpM * kWarpChunksPerRow / 32;  // 16: four rows a pass
  const bool whole_chunks = ldc % kChunk == 0 && c_columns % kChunk == 0;
  if (!whole_chunks) {
    const auto* tile_bits = reinterpret_cast<const unsigned short*>(own_tile);
    store_tile_elements<Tile::kWarpM, Tile::kWarpN, 32>(
        c, ldc, m0 + warp_row, n0 + warp_col, m, c_columns, lane, [&](int row, int column) {
          return tile_bits[row * Tile::kWarpN + ((column / kChunk) ^ (row & 7)) * kChunk + column % kChunk];
        });
    return;
  }
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int index = pass * 32 + lane;
    const int row = index / kWarpChunksPerRow, chunk = index % kWarpChunksPerRow;
    const int global_row = m0 + warp_row + row, global_col = n0 + warp_col + chunk * kChunk;
    if (global_row < m && global_col < c_columns)
      *reinterpret_cast<uint4*>(c + static_cast<std::int64_t>(global_row) * ldc + global_col) =
          *reinterpret_cast<const uint4*>(own_tile + row * Tile::kWarpN + (chunk ^ (row & 7)) * kChunk);
  }
#endif
}

}  // namespace

void configure_gemm_mma() {
  GPB_CUDA_CHECK(cudaFuncSetAttribute(gemm_mma_kernel<__half>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(Tile::kSharedBytes)));
  GPB_CUDA_CHECK(cudaFuncSetAttribute(gemm_mma_kernel<__nv_bfloat16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(Tile::kSharedBytes)));
}

template <class T>
void launch_gemm_mma(const GemmOperands<T>& operands, cudaStream_t stream) {
  const GemmOperands<T>& o = operands;
  const int blocks_m = (o.m + Tile::kBlockM - 1) / Tile::kBlockM, blocks_n = (o.n + Tile::kBlockN - 1) / Tile::kBlockN;
  const dim3 grid(static_cast<unsigned>(blocks_m) * static_cast<unsigned>(blocks_n), static_cast<unsigned>(o.parts));
  gemm_mma_kernel<T><<<grid, Tile::kThreads, Tile::kSharedBytes, stream>>>(
      o.m, o.n, o.k, o.lda, o.ldb, o.ldc, o.c_columns, o.split_k, o.a, o.b, o.c, o.partials);
  GPB_CHECK_LAUNCH();
}

template void launch_gemm_mma<__half>(const GemmOperands<__half>&, cudaStream_t);
template void launch_gemm_mma<__nv_bfloat16>(const GemmOperands<__nv_bfloat16>&, cudaStream_t);

}  // namespace gpb::kernels
