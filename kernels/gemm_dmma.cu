// Tiled f64 GEMM on the FP64 tensor cores: PTX mma.sync.aligned.row.col.f64 (DMMA), fed by a
// cp.async pipeline. Two instruction shapes from one kernel template (DmmaShape): m8n8k4,
// the only f64 shape of sm_80 to sm_89, and m16n8k16, added in sm_90 (PTX ISA 7.8), which
// does eight times the work per instruction; the host picks by device
// (dmma_shape_for_current_device).
//
// Each block of 256 threads (8 warps, 2 x 4) computes a 128 x 128 tile of C, walking k in stages of
// 16 (m8n8k4: 112 KiB for three) or 32 (m16n8k16: 207 KiB; DmmaGemmTile); the medium tile is the
// same kernel at 128 x 64 for 128 threads (4 warps, 2 x 2, the same warp tile) in two stages (58 or
// 106 KiB, two blocks an SM: one block's warps multiply while the other's wait at their barrier);
// the small tile, for products whose 128 x 128 tiles are fewer than the SMs, is the same kernel at
// 64 x 64 for 128 threads (4 warps, 2 x 2; 56 or 105 KiB, two blocks an SM), and the skinny one,
// for C of at most 16 rows, at 16 x 128 for 128 threads (4 warps, 1 x 4; 57 or 112.5 KiB, two
// blocks an SM): there the product is bound by streaming B (16 x 8192 x 8192: 512 MiB of B for 2
// GFLOP, 4 flops a byte), and the other tiles' rows past the 16th only multiply zeros:
//   - Three shared-memory stages in flight (two in the medium tile): while the warps multiply
//     stage s, the copies of stages s + 1 and s + 2 are under way (cp.async, global to shared
//     without passing through registers), so global latency hides behind two stages of
//     tensor-core work (one in the medium tile, whose SM holds a second block).
//     One barrier per stage: it publishes the stage just landed and retires the one the
//     next copy overwrites.
//   - Copies are 16 bytes (2 doubles) when n and k are even (every row then starts 16-byte
//     aligned), 8 bytes otherwise. Entries outside A or B are zero-filled by the copy
//     itself (cp.async with a source size of 0), so partial tiles add nothing.
//   - Each warp owns a 64 x 32 tile of C (large and medium; 32 x 32 in the small tile, half
//     the fragments below; 16 x 32 in the skinny one, a quarter), 64 accumulators (doubles) per lane: with m8n8k4,
//     8 x 4 fragments of 8 x 8 (2 per lane), 32 MMAs of 512 flops per 4-deep step; with
//     m16n8k16, 4 x 4 fragments of 16 x 8 (4 per lane), 16 MMAs of 4096 flops per 16-deep step.
//     Either way a warp reads 48 doubles per lane from shared memory per 16-deep step: 12 KiB per
//     warp for 1 MFLOP, so at the DMMA peak (256 flops per SM per clock) 48 of the 128 bytes
//     per clock that shared memory delivers.
//   - Fragment layouts (PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f64" and "for
//     mma.m16n8k16 with floating point type", .f64 rows), with g = lane / 4, t = lane % 4:
//       m8n8k4:   A (8 x 4)   a0 = A[g][t];  B (4 x 8) b0 = B[t][g];
//                 C (8 x 8)   c0, c1 = C[g][2t], C[g][2t + 1].
//       m16n8k16: A (16 x 16) a_i = A[g + 8 (i % 2)][t + 4 (i / 2)], i = 0..7;
//                 B (16 x 8)  b_i = B[t + 4i][g], i = 0..3;
//                 C (16 x 8)  c_i = C[g + 8 (i / 2)][2t + i % 2], i = 0..3.
//     Both are one rule: A rows g + 8r for the M / 8 row blocks r, A columns and B rows
//     t + 4q for the K / 4 column blocks q, and C pairs (2t, 2t + 1) in rows g + 8r; so the
//     loads and stores below are written once for both shapes.
//   - Shared rows are padded to 20 or 36 (A: 16 or 32 + 4) and 132 or 68 (B: 128 or 64 + 4) doubles: the
//     16 lanes of a half-warp then read 16 distinct 8-byte bank pairs in every fragment load
//     (A at row g (+ 8r), column t (+ 4q): (g * 20 + t) mod 16 = (g * 36 + t) mod 16 = 4g + t; B at row t (+ 4q),
//     column g: (t * 132 + g) mod 16 = (t * 68 + g) mod 16 = 4t + g; the offsets 8r * 20 = 160 and 4q * 132 move
//     all lanes alike), and every row still starts 16-byte aligned for the copies.
//   - Each thread's copies are set up once (StageCopier) and moved along k per stage.
//     Element-wise copies (n or k odd) are issued four at a time in a loop: unrolled whole,
//     the 32 of a 32-deep stage kept their addresses live across the MMAs and the m16n8k16
//     kernel spilled (255 registers and 284 bytes of spill stores, against 182 registers and
//     none now; 236 with 16-byte copies; CUDA 13.0, sm_90a).
//   - Edges: stores outside C are skipped; with n even the two accumulators of a pair go
//     out as one 16-byte store. A warp whose part of C lies wholly outside C (in a large
//     tile, m or n not above 64, as in long-k products with a small C) skips its MMAs.
//   - Split k (blockIdx.z: part z of k, split_k deep): each part's blocks write their product
//     over that part to the z-th m x n slab of the output, a workspace of partials that
//     gemm_split_k.cuh adds; with one part the slab is C.
// Correct for any m, n, k >= 1. What it leaves out: swizzled instead of padded layouts, a
// deeper pipeline, a schedule that keeps the DMMA pipe busier than 75 % at 4096^3 (cuBLAS's
// 97 %). 16-byte fragment loads were tried (docs/kernel-notes.md, GEMM version 13: the SASS
// DMMA takes A in consecutive registers, so the loaded pairs were moved, 1.19x slower);
// kernel-notes.md also has the design's floor and prediction.
#include "kernels/gemm_dmma.cuh"

#include <cstddef>
#include <cstdint>

#include "kernels/cp_async.cuh"
#include "kernels/launch_check.cuh"
#include "kernels/mma_f64.cuh"
#include "kernels/tile_grid.cuh"

namespace gpb::kernels {
namespace {

// A stage's layout in shared memory for one shape's tile: A's slice (kBlockM rows of
// kBlockK + pad), then B's (kBlockK rows of kBlockN + pad).
template <DmmaShape kShape, DmmaTileSize kSize>
struct StageLayout {
  using Tile = DmmaGemmTile<kShape, kSize>;
  static constexpr int kLdA = Tile::kBlockK + Tile::kPad;  // A slice: 128 or 64 rows of 16 or 32 (+4)
  static constexpr int kLdB = Tile::kBlockN + Tile::kPad;  // B slice: 16 or 32 rows of 128 or 64 (+4)
  static constexpr int kAStageDoubles = Tile::kBlockM * kLdA;
  static constexpr int kBStageDoubles = Tile::kBlockK * kLdB;
  static constexpr int kStageDoubles = kAStageDoubles + kBStageDoubles;
  static_assert(sizeof(double) * kStageDoubles * Tile::kStages == Tile::kSharedBytes, "the stages fill kSharedBytes");
  static_assert(kLdA % 2 == 0 && kLdB % 2 == 0 && kStageDoubles % 2 == 0,
                "shared rows and stages must stay 16-byte aligned");
  static_assert(kLdA % 16 == 4 && kLdB % 16 == 4, "the padding keeps the fragment loads free of bank conflicts");
};

// The names the kernel code uses, for one shape and tile size.
#define GPB_DMMA_LAYOUT(shape, size)                                  \
  using Layout = StageLayout<shape, size>;                            \
  using Tile = typename Layout::Tile;                                 \
  [[maybe_unused]] constexpr int kLdA = Layout::kLdA;                 \
  [[maybe_unused]] constexpr int kLdB = Layout::kLdB;                 \
  [[maybe_unused]] constexpr int kAStageDoubles = Layout::kAStageDoubles; \
  [[maybe_unused]] constexpr int kStageDoubles = Layout::kStageDoubles

// One mma.sync shape: its M x N x K and the instruction, d (M x N) += a (M x K) * b (K x N),
// with M * K / 32, K * N / 32 and M * N / 32 doubles per lane (fragment layouts in the
// header comment).
template <DmmaShape kShape>
struct Mma;

template <>
struct Mma<DmmaShape::m8n8k4> {
  static constexpr int kM = 8, kN = 8, kK = 4;
  __device__ __forceinline__ static void run(double (&d)[2], const double (&a)[1], const double (&b)[1]) {
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
        : "+d"(d[0]), "+d"(d[1])
        : "d"(a[0]), "d"(b[0]));
  }
};

template <>
struct Mma<DmmaShape::m16n8k16> {
  static constexpr int kM = 16, kN = 8, kK = 16;
  __device__ __forceinline__ static void run(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
    mma_m16n8k16_f64(d, a, b);  // sm_90 and newer; dmma_shape_for_current_device never picks it below
  }
};

// One thread's share of a stage's copies, A's 128 x kBlockK slice and B's kBlockK x 128 slice
// (A at the front of the stage, B after it), set up once per block: consecutive threads take
// consecutive chunks of a row, so the global reads coalesce along rows, and a thread's copies
// lie kThreads / (chunks a row) rows apart in one column. So the thread keeps a source
// pointer, a shared offset and a depth limit per operand, and a stage only moves the pointers
// along k: computed per copy and stage, the addresses and bounds had taken 325 of the 581
// instructions of an m16n8k16 stage (CUDA 13.0, sm_90a), issued by every warp between the
// barrier and its MMAs. Depths from k_end on, and rows or columns outside A or B, read as zero.
template <DmmaShape kShape, DmmaTileSize kSize, bool kVectorized>
struct StageCopier {
  using Layout = StageLayout<kShape, kSize>;
  using Tile = typename Layout::Tile;
  static constexpr int kChunk = kVectorized ? 2 : 1;  // doubles per copy
  static constexpr int kBytes = kChunk * static_cast<int>(sizeof(double));
  static constexpr int kAChunksPerRow = Tile::kBlockK / kChunk;
  static constexpr int kBChunksPerRow = Tile::kBlockN / kChunk;
  // 4 (vectorized) or 8 copies each for the large tile, 8 or 16 for the small one; 2 or 4 of A
  // and 16 or 32 of B for the skinny one (m16n8k16)
  static constexpr int kACopies = Tile::kBlockM * kAChunksPerRow / Tile::kThreads;
  static constexpr int kBCopies = Tile::kBlockK * kBChunksPerRow / Tile::kThreads;
  static constexpr int kARowStep = Tile::kThreads / kAChunksPerRow;  // rows between a thread's copies
  static constexpr int kBRowStep = Tile::kThreads / kBChunksPerRow;
  static_assert(kACopies * Tile::kThreads == Tile::kBlockM * kAChunksPerRow &&
                    kBCopies * Tile::kThreads == Tile::kBlockK * kBChunksPerRow &&
                    Tile::kThreads % kAChunksPerRow == 0 && Tile::kThreads % kBChunksPerRow == 0,
                "the copies must divide evenly among the threads, whole rows at a time");
  static_assert(kACopies <= 32, "one bit per copy of A");

  const double* a_source;       // A[m0 + row][k_begin + col] of the thread's first copy
  const double* b_source;       // B[k_begin + row][n0 + col]
  std::int64_t a_copy_step;     // elements of A between the thread's copies: kARowStep rows
  std::int64_t b_copy_step;     // and of B: kBRowStep rows
  int a_offset, b_offset;       // the first copies' places in a stage
  int a_depth_limit;            // stage depths below which the thread's chunk of A is inside k
  int b_depth_limit;            // and its first row of B (0 where its column is outside n)
  unsigned a_rows_inside;       // bit i: copy i's row of A is inside m

  __device__ __forceinline__ StageCopier(int m, int n, int k, int k_begin, int k_end, const double* a,
                                         const double* b, int m0, int n0) {
    const int tid = static_cast<int>(threadIdx.x);
    const int a_row = tid / kAChunksPerRow, a_col = tid % kAChunksPerRow * kChunk;
    const int b_row = tid / kBChunksPerRow, b_col = tid % kBChunksPerRow * kChunk;
    a_source = a + static_cast<std::int64_t>(m0 + a_row) * k + k_begin + a_col;
    b_source = b + static_cast<std::int64_t>(k_begin + b_row) * n + n0 + b_col;
    a_copy_step = static_cast<std::int64_t>(kARowStep) * k;
    b_copy_step = static_cast<std::int64_t>(kBRowStep) * n;
    a_offset = a_row * Layout::kLdA + a_col;
    b_offset = Layout::kAStageDoubles + b_row * Layout::kLdB + b_col;
    // With k_end even a chunk starting inside it ends inside it, so one test covers both doubles.
    a_depth_limit = k_end - k_begin - a_col;
    b_depth_limit = n0 + b_col < n ? k_end - k_begin - b_row : 0;
    a_rows_inside = 0;
#pragma unroll
    for (int i = 0; i < kACopies; ++i)
      if (m0 + a_row + i * kARowStep < m) a_rows_inside |= 1u << i;
  }

  // Starts the copies of stage s (depth s * kBlockK of the block's part of k) into `stage`;
  // a and b stand in as the sources of copies that read nothing.
  __device__ __forceinline__ void copy(double* stage, int s, int n, const double* a, const double* b) const {
    constexpr int kUnroll = kVectorized ? kACopies : 4;  // element-wise: see the header
    const int depth = s * Tile::kBlockK;
    const bool a_depth_inside = depth < a_depth_limit;
    const double* a_stage = a_source + depth;
    const double* b_stage = b_source + static_cast<std::int64_t>(depth) * n;
#pragma unroll (kUnroll)
    for (int i = 0; i < kACopies; ++i) {
      const bool inside = a_depth_inside && (a_rows_inside >> i & 1u);
      copy_async<kBytes>(stage + a_offset + i * kARowStep * Layout::kLdA, inside ? a_stage + i * a_copy_step : a,
                         inside);
    }
#pragma unroll (kUnroll)
    for (int i = 0; i < kBCopies; ++i) {
      const bool inside = depth + i * kBRowStep < b_depth_limit;
      copy_async<kBytes>(stage + b_offset + i * kBRowStep * Layout::kLdB, inside ? b_stage + i * b_copy_step : b,
                         inside);
    }
  }
};

template <DmmaShape kShape, DmmaTileSize kSize, bool kVectorized>
__global__ void __launch_bounds__(DmmaGemmTile<kShape, kSize>::kThreads, DmmaGemmTile<kShape, kSize>::kBlocksPerSm)
    gemm_dmma_kernel(int m, int n, int k, int split_k, const double* __restrict__ a, const double* __restrict__ b,
                     double* __restrict__ c) {
  GPB_DMMA_LAYOUT(kShape, kSize);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // no DMMA or cp.async before sm_80; launch_gemm_dmma's callers check the device
#else
  using Shape = Mma<kShape>;
  constexpr int kFragmentsM = Tile::kWarpM / Shape::kM;  // 8 (m8n8k4) or 4 (m16n8k16); 1/2 small, 1/4 skinny
  constexpr int kFragmentsN = Tile::kWarpN / Shape::kN;  // 4
  constexpr int kRowBlocks = Shape::kM / 8;              // A and C rows g + 8r
  constexpr int kColumnBlocks = Shape::kK / 4;           // A columns and B rows t + 4q
  constexpr int kARegisters = kRowBlocks * kColumnBlocks, kBRegisters = kColumnBlocks, kCRegisters = 2 * kRowBlocks;
  static_assert(Tile::kBlockK % Shape::kK == 0 && Tile::kWarpM % Shape::kM == 0 && Tile::kWarpN % Shape::kN == 0,
                "the MMA shape must tile the warp tile and the stage depth");
  static_assert(kARegisters * 32 == Shape::kM * Shape::kK && kBRegisters * 32 == Shape::kK * Shape::kN &&
                    kCRegisters * 32 == Shape::kM * Shape::kN,
                "a fragment spreads its matrix over the 32 lanes");
  extern __shared__ __align__(16) double stages[];

  const int m0 = static_cast<int>(blockIdx.y) * Tile::kBlockM, n0 = static_cast<int>(blockIdx.x) * Tile::kBlockN;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_row = warp / Tile::kWarpsN * Tile::kWarpM, warp_col = warp % Tile::kWarpsN * Tile::kWarpN;
  const int group = lane / 4, thread_in_group = lane % 4;  // g and t of the fragment layouts
  const bool has_output = m0 + warp_row < m && n0 + warp_col < n;
  const int k_begin = static_cast<int>(blockIdx.z) * split_k, k_end = min(k, k_begin + split_k);
  c += static_cast<std::int64_t>(blockIdx.z) * m * n;

  // This lane's first A element (row g, column t of the warp's first fragment) and first B
  // element (row t, column g), as offsets into a stage.
  const int a_offset = (warp_row + group) * kLdA + thread_in_group;
  const int b_offset = kAStageDoubles + thread_in_group * kLdB + warp_col + group;

  double acc[kFragmentsM][kFragmentsN][kCRegisters] = {};

  const int k_stages = (k_end - k_begin + Tile::kBlockK - 1) / Tile::kBlockK;
  const StageCopier<kShape, kSize, kVectorized> copier(m, n, k, k_begin, k_end, a, b, m0, n0);
  const auto copy = [&](int s, int buffer) { copier.copy(stages + buffer * kStageDoubles, s, n, a, b); };
  start_copy_pipeline<Tile::kStages>(k_stages, copy);
  for (int s = 0; s < k_stages; ++s) {
    const int buffer = advance_copy_pipeline<Tile::kStages>(s, k_stages, copy);
    if (!has_output) continue;

    const double* stage = stages + buffer * kStageDoubles;
#pragma unroll
    for (int kk = 0; kk < Tile::kBlockK; kk += Shape::kK) {
      // All of the warp's B fragments for this step, then one A fragment at a time: with
      // m16n8k16, 16 + 8 doubles of operands live beside the 64 accumulators.
      double b_fragments[kFragmentsN][kBRegisters];
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j)
#pragma unroll
        for (int q = 0; q < kColumnBlocks; ++q)  // b_q = B[t + 4q][g]
          b_fragments[j][q] = stage[b_offset + (kk + 4 * q) * kLdB + j * Shape::kN];
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i) {
        double a_fragment[kARegisters];
#pragma unroll
        for (int x = 0; x < kARegisters; ++x) {  // a_x = A[g + 8 (x % R)][t + 4 (x / R)], R row blocks
          const int r = x % kRowBlocks, q = x / kRowBlocks;
          a_fragment[x] = stage[a_offset + (i * Shape::kM + 8 * r) * kLdA + kk + 4 * q];
        }
#pragma unroll
        for (int j = 0; j < kFragmentsN; ++j) Shape::run(acc[i][j], a_fragment, b_fragments[j]);
      }
    }
  }

  // Lane (g, t) holds C[g + 8r][2t] and C[g + 8r][2t + 1] of each fragment, as c_2r, c_2r+1.
#pragma unroll
  for (int i = 0; i < kFragmentsM; ++i) {
#pragma unroll
    for (int r = 0; r < kRowBlocks; ++r) {
      const int row = m0 + warp_row + i * Shape::kM + 8 * r + group;
      if (row >= m) continue;
      double* c_row = c + static_cast<std::int64_t>(row) * n;
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j) {
        const int col = n0 + warp_col + j * Shape::kN + 2 * thread_in_group;
        const double first = acc[i][j][2 * r], second = acc[i][j][2 * r + 1];
        if constexpr (kVectorized) {
          // n even: a pair starting inside C ends inside it, 16-byte aligned.
          if (col < n) *reinterpret_cast<double2*>(c_row + col) = make_double2(first, second);
        } else {
          if (col < n) c_row[col] = first;
          if (col + 1 < n) c_row[col + 1] = second;
        }
      }
    }
  }
#endif
}

template <DmmaShape kShape, DmmaTileSize kSize>
void allow_shared_bytes() {
  constexpr int bytes = static_cast<int>(DmmaGemmTile<kShape, kSize>::kSharedBytes);
  GPB_CUDA_CHECK(cudaFuncSetAttribute(gemm_dmma_kernel<kShape, kSize, true>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  GPB_CUDA_CHECK(cudaFuncSetAttribute(gemm_dmma_kernel<kShape, kSize, false>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

template <DmmaShape kShape>
void allow_shared_bytes() {
  allow_shared_bytes<kShape, DmmaTileSize::large>();
  allow_shared_bytes<kShape, DmmaTileSize::small>();
  allow_shared_bytes<kShape, DmmaTileSize::skinny>();
  allow_shared_bytes<kShape, DmmaTileSize::medium>();
}

template <DmmaShape kShape, DmmaTileSize kSize>
void launch(int m, int n, int k, const double* a, const double* b, double* c, bool vectorized, int parts, int split_k,
            cudaStream_t stream) {
  using Tile = DmmaGemmTile<kShape, kSize>;
  for_each_row_slab(m, n, Tile::kBlockM, Tile::kBlockN, parts, "the DMMA GEMM", [&](int first, int rows, dim3 grid) {
    const double* slab_a = a + static_cast<std::int64_t>(first) * k;
    double* slab_c = c + static_cast<std::int64_t>(first) * n;
    if (vectorized)
      gemm_dmma_kernel<kShape, kSize, true>
          <<<grid, Tile::kThreads, Tile::kSharedBytes, stream>>>(rows, n, k, split_k, slab_a, b, slab_c);
    else
      gemm_dmma_kernel<kShape, kSize, false>
          <<<grid, Tile::kThreads, Tile::kSharedBytes, stream>>>(rows, n, k, split_k, slab_a, b, slab_c);
  });
}

template <DmmaShape kShape>
void launch(DmmaTileSize size, int m, int n, int k, const double* a, const double* b, double* c, bool vectorized,
            int parts, int split_k, cudaStream_t stream) {
  if (size == DmmaTileSize::small)
    launch<kShape, DmmaTileSize::small>(m, n, k, a, b, c, vectorized, parts, split_k, stream);
  else if (size == DmmaTileSize::skinny)
    launch<kShape, DmmaTileSize::skinny>(m, n, k, a, b, c, vectorized, parts, split_k, stream);
  else if (size == DmmaTileSize::medium)
    launch<kShape, DmmaTileSize::medium>(m, n, k, a, b, c, vectorized, parts, split_k, stream);
  else
    launch<kShape, DmmaTileSize::large>(m, n, k, a, b, c, vectorized, parts, split_k, stream);
}

}  // namespace

const char* dmma_shape_name(DmmaShape shape) {
  return shape == DmmaShape::m16n8k16 ? "m16n8k16" : "m8n8k4";
}

DmmaShape dmma_shape_for_current_device(int compute_capability, std::size_t shared_bytes_per_block) {
  if (compute_capability < 90 || shared_bytes_per_block < DmmaGemmTile<DmmaShape::m16n8k16>::kSharedBytes)
    return DmmaShape::m8n8k4;
  // The capability says the device has the shape; the kernel code loaded for it must have
  // been compiled with it too: ptxVersion is the virtual architecture of that code (90 for
  // the default build's sm_90a code, and for its compute_90 PTX compiled at load on newer
  // devices), below 90 where a build targets only older architectures.
  cudaFuncAttributes attributes{};
  GPB_CUDA_CHECK(cudaFuncGetAttributes(&attributes, gemm_dmma_kernel<DmmaShape::m16n8k16, DmmaTileSize::large, true>));
  return attributes.ptxVersion >= 90 ? DmmaShape::m16n8k16 : DmmaShape::m8n8k4;
}

void configure_gemm_dmma(DmmaShape shape) {
  if (shape == DmmaShape::m16n8k16)
    allow_shared_bytes<DmmaShape::m16n8k16>();
  else
    allow_shared_bytes<DmmaShape::m8n8k4>();
}

void launch_gemm_dmma(DmmaShape shape, DmmaTileSize size, int m, int n, int k, const double* a, const double* b,
                      double* c, bool vectorized, int parts, int split_k, cudaStream_t stream) {
  if (shape == DmmaShape::m16n8k16)
    launch<DmmaShape::m16n8k16>(size, m, n, k, a, b, c, vectorized, parts, split_k, stream);
  else
    launch<DmmaShape::m8n8k4>(size, m, n, k, a, b, c, vectorized, parts, split_k, stream);
  GPB_CHECK_LAUNCH();
}

}  // namespace gpb::kernels
