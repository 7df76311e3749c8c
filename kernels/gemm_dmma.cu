// Tiled f64 GEMM on the FP64 tensor cores: PTX mma.sync.aligned.m8n8k4.row.col.f64
// (DMMA, sm_80 and newer), fed by a cp.async pipeline.
//
// Each block of 256 threads (8 warps, 2 x 4) computes a 128 x 128 tile of C, walking k in
// stages of 16:
//   - Three shared-memory stages in flight: while the warps multiply stage s, the copies of
//     stages s + 1 and s + 2 are under way (cp.async, global to shared without passing
//     through registers), so global latency hides behind two stages of tensor-core work.
//     One barrier per stage: it publishes the stage just landed and retires the one the
//     next copy overwrites.
//   - Copies are 16 bytes (2 doubles) when n and k are even (every row then starts 16-byte
//     aligned), 8 bytes otherwise. Entries outside A or B are zero-filled by the copy
//     itself (cp.async with a source size of 0), so partial tiles add nothing.
//   - Each warp owns a 64 x 32 tile of C: 8 x 4 accumulator fragments of 8 x 8 (two
//     doubles per lane). Per 4-deep step it loads 8 A and 4 B fragments (one double per
//     lane each) and issues 32 MMAs of 512 flops: 3 KiB of shared-memory reads per warp,
//     so at the DMMA peak (256 flops per SM per clock) 48 of the 128 bytes per clock that
//     shared memory delivers.
//   - Fragment layouts (PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f64"), with
//     g = lane / 4 and t = lane % 4: A (8 x 4) a0 = A[g][t]; B (4 x 8) b0 = B[t][g];
//     C/D (8 x 8) c0, c1 = C[g][2t], C[g][2t + 1].
//   - Shared rows are padded to 20 (A: 16 + 4) and 132 (B: 128 + 4) doubles: the 16 lanes
//     of a half-warp then read 16 distinct 8-byte bank pairs in both fragment loads (A rows
//     g * 20 + t, B rows t * 132 + g, both distinct modulo 16), and every row still starts
//     16-byte aligned for the copies.
//   - Edges: stores outside C are skipped; with n even the two accumulators of a lane go
//     out as one 16-byte store.
// Correct for any m, n, k >= 1. What it leaves out: sm_90's larger f64 shapes
// (m16n8k4/k8/k16), swizzled instead of padded layouts, ldmatrix-style wide fragment loads;
// docs/kernel-notes.md has the design's floor and prediction.
#include "kernels/gemm_dmma.cuh"

#include <cstddef>
#include <cstdint>

#include "kernels/launch_check.cuh"

namespace gpb::kernels {
namespace {

using Tile = DmmaGemmTile;
constexpr int kLdA = Tile::kBlockK + Tile::kPad;  // A slice: 128 rows of 16 (+4)
constexpr int kLdB = Tile::kBlockN + Tile::kPad;  // B slice: 16 rows of 128 (+4)
constexpr int kAStageDoubles = Tile::kBlockM * kLdA;
constexpr int kBStageDoubles = Tile::kBlockK * kLdB;
constexpr int kStageDoubles = kAStageDoubles + kBStageDoubles;
static_assert(sizeof(double) * kStageDoubles * Tile::kStages == Tile::kSharedBytes, "the stages fill kSharedBytes");
constexpr int kFragmentsM = Tile::kWarpM / Tile::kMmaM;  // 8
constexpr int kFragmentsN = Tile::kWarpN / Tile::kMmaN;  // 4
static_assert(kLdA % 2 == 0 && kLdB % 2 == 0 && kStageDoubles % 2 == 0, "shared rows and stages must stay 16-byte aligned");
static_assert(kLdA % 16 == 4 && kLdB % 16 == 4, "the padding keeps the fragment loads free of bank conflicts");

__device__ __forceinline__ unsigned shared_address(const double* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// Copies kBytes (8 or 16) from global to shared memory asynchronously; when `inside` is
// false nothing is read (source size 0) and the destination is filled with zeros.
template <int kBytes>
__device__ __forceinline__ void copy_async(double* destination, const double* source, bool inside) {
  static_assert(kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes; these kernels use 8 and 16");
  const int source_bytes = inside ? kBytes : 0;
  if constexpr (kBytes == 16)  // .cg: through L2 only; each stage is read once from shared memory
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(destination)),
                 "l"(__cvta_generic_to_global(source)), "r"(source_bytes)
                 : "memory");
  else  // .cg takes 16 bytes only
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(shared_address(destination)),
                 "l"(__cvta_generic_to_global(source)), "r"(source_bytes)
                 : "memory");
}

__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most kPending of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wait_for_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// d (8 x 8, two doubles per lane) += a (8 x 4, one per lane) * b (4 x 8, one per lane).
__device__ __forceinline__ void mma_m8n8k4(double (&d)[2], double a, double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a), "d"(b));
}

// Starts the copies of A's 128 x 16 slice and B's 16 x 128 slice at depth k0 into one stage
// (A at the front, B after it); consecutive threads take consecutive chunks of a row, so
// the global reads coalesce along rows.
template <bool kVectorized>
__device__ __forceinline__ void copy_stage(double* stage, int m, int n, int k, const double* __restrict__ a,
                                           const double* __restrict__ b, int m0, int n0, int k0) {
  constexpr int kChunk = kVectorized ? 2 : 1;  // doubles per copy
  constexpr int kBytes = kChunk * static_cast<int>(sizeof(double));
  constexpr int kAChunksPerRow = Tile::kBlockK / kChunk;
  constexpr int kBChunksPerRow = Tile::kBlockN / kChunk;
  constexpr int kACopies = Tile::kBlockM * kAChunksPerRow / Tile::kThreads;  // 4 (vectorized) or 8
  constexpr int kBCopies = Tile::kBlockK * kBChunksPerRow / Tile::kThreads;  // 4 or 8
  static_assert(kACopies * Tile::kThreads == Tile::kBlockM * kAChunksPerRow &&
                    kBCopies * Tile::kThreads == Tile::kBlockK * kBChunksPerRow,
                "the copies must divide evenly among the threads");
  double* a_tile = stage;
  double* b_tile = stage + kAStageDoubles;
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int i = 0; i < kACopies; ++i) {
    const int index = tid + i * Tile::kThreads;
    const int row = index / kAChunksPerRow, col = index % kAChunksPerRow * kChunk;
    // With k even a chunk starting inside k ends inside it, so one test covers both doubles.
    const bool inside = m0 + row < m && k0 + col < k;
    const double* source = inside ? a + static_cast<std::int64_t>(m0 + row) * k + (k0 + col) : a;
    copy_async<kBytes>(a_tile + row * kLdA + col, source, inside);
  }
#pragma unroll
  for (int i = 0; i < kBCopies; ++i) {
    const int index = tid + i * Tile::kThreads;
    const int row = index / kBChunksPerRow, col = index % kBChunksPerRow * kChunk;
    const bool inside = k0 + row < k && n0 + col < n;
    const double* source = inside ? b + static_cast<std::int64_t>(k0 + row) * n + (n0 + col) : b;
    copy_async<kBytes>(b_tile + row * kLdB + col, source, inside);
  }
}

template <bool kVectorized>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    gemm_dmma_kernel(int m, int n, int k, const double* __restrict__ a, const double* __restrict__ b,
                     double* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // no DMMA or cp.async before sm_80; launch_gemm_dmma's callers check the device
#else
  extern __shared__ __align__(16) double stages[];

  const int m0 = static_cast<int>(blockIdx.y) * Tile::kBlockM, n0 = static_cast<int>(blockIdx.x) * Tile::kBlockN;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warp_row = warp / Tile::kWarpsN * Tile::kWarpM, warp_col = warp % Tile::kWarpsN * Tile::kWarpN;
  const int group = lane / 4, thread_in_group = lane % 4;  // g and t of the fragment layouts

  // This lane's first A element (row g, column t of the warp's first fragment) and first B
  // element (row t, column g), as offsets into a stage.
  const int a_offset = (warp_row + group) * kLdA + thread_in_group;
  const int b_offset = kAStageDoubles + thread_in_group * kLdB + warp_col + group;

  double acc[kFragmentsM][kFragmentsN][2] = {};

  const int k_stages = (k + Tile::kBlockK - 1) / Tile::kBlockK;
  // Prologue: the first kStages - 1 stages in flight. Every iteration commits a group, empty
  // or not, so that "stage s has landed" is always "at most kStages - 2 groups pending".
#pragma unroll
  for (int s = 0; s < Tile::kStages - 1; ++s) {
    if (s < k_stages)
      copy_stage<kVectorized>(stages + s * kStageDoubles, m, n, k, a, b, m0, n0, s * Tile::kBlockK);
    commit_copies();
  }

  for (int s = 0; s < k_stages; ++s) {
    wait_for_copies<Tile::kStages - 2>();
    // Every thread's copies of stage s are now visible to all, and every warp is done with
    // stage s - 1, whose buffer the copy below overwrites.
    __syncthreads();
    const int ahead = s + Tile::kStages - 1;
    if (ahead < k_stages)
      copy_stage<kVectorized>(stages + (ahead % Tile::kStages) * kStageDoubles, m, n, k, a, b, m0, n0,
                              ahead * Tile::kBlockK);
    commit_copies();

    const double* stage = stages + (s % Tile::kStages) * kStageDoubles;
#pragma unroll
    for (int kk = 0; kk < Tile::kBlockK; kk += Tile::kMmaK) {
      double a_fragments[kFragmentsM];
      double b_fragments[kFragmentsN];
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i) a_fragments[i] = stage[a_offset + i * Tile::kMmaM * kLdA + kk];
#pragma unroll
      for (int j = 0; j < kFragmentsN; ++j) b_fragments[j] = stage[b_offset + kk * kLdB + j * Tile::kMmaN];
#pragma unroll
      for (int i = 0; i < kFragmentsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragmentsN; ++j) mma_m8n8k4(acc[i][j], a_fragments[i], b_fragments[j]);
    }
  }

  // Lane (g, t) holds C[g][2t] and C[g][2t + 1] of each fragment.
#pragma unroll
  for (int i = 0; i < kFragmentsM; ++i) {
    const int row = m0 + warp_row + i * Tile::kMmaM + group;
    if (row >= m) continue;
    double* c_row = c + static_cast<std::int64_t>(row) * n;
#pragma unroll
    for (int j = 0; j < kFragmentsN; ++j) {
      const int col = n0 + warp_col + j * Tile::kMmaN + 2 * thread_in_group;
      if constexpr (kVectorized) {
        // n even: a pair starting inside C ends inside it, 16-byte aligned.
        if (col < n) *reinterpret_cast<double2*>(c_row + col) = make_double2(acc[i][j][0], acc[i][j][1]);
      } else {
        if (col < n) c_row[col] = acc[i][j][0];
        if (col + 1 < n) c_row[col + 1] = acc[i][j][1];
      }
    }
  }
#endif
}

}  // namespace

void configure_gemm_dmma() {
  GPB_CUDA_CHECK(cudaFuncSetAttribute(gemm_dmma_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(Tile::kSharedBytes)));
  GPB_CUDA_CHECK(cudaFuncSetAttribute(gemm_dmma_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(Tile::kSharedBytes)));
}

void launch_gemm_dmma(int m, int n, int k, const double* a, const double* b, double* c, bool vectorized,
                      cudaStream_t stream) {
  const dim3 grid((n + Tile::kBlockN - 1) / Tile::kBlockN, (m + Tile::kBlockM - 1) / Tile::kBlockM);
  if (vectorized)
    gemm_dmma_kernel<true><<<grid, Tile::kThreads, Tile::kSharedBytes, stream>>>(m, n, k, a, b, c);
  else
    gemm_dmma_kernel<false><<<grid, Tile::kThreads, Tile::kSharedBytes, stream>>>(m, n, k, a, b, c);
  GPB_CHECK_LAUNCH();
}

}  // namespace gpb::kernels
