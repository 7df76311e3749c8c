// Dense C = A * B (row-major) for 16-bit elements on sm_90's tensor cores through wgmma and
// TMA: warp-specialized and persistent, in clusters of two blocks that share B's tiles (or of
// one, where C has one row tile); design notes in gemm_wgmma.cu. For rows of whole 16-byte
// chunks on a device of compute capability 9.0 running code compiled for sm_90a (the default
// build's `90a-real` target).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/gemm_operands.cuh"

namespace gpb::kernels {

// The block tile, by its consumer warpgroups: two (128 x 256 of C, the default) or one
// (64 x 256, for products whose 128 x 256 tiles leave most SMs idle: 1024^3 has 32 of them for
// 132 SMs, 64 of the single consumer's). Either way one block an SM.
template <int kConsumerGroups>
struct WgmmaGemmTileOf {
  static constexpr int kConsumers = kConsumerGroups;  // warpgroups that multiply; one more loads (TMA)
  static constexpr int kBlockM = 64 * kConsumers;     // rows of C per block (64 per consumer warpgroup)
  static constexpr int kBlockN = 256;    // columns of C per block: one wgmma m64n256k16 per 16-deep step
  static constexpr int kBlockK = 64;     // depth of one stage: 128 bytes of 16-bit elements, the swizzle's span
  static constexpr int kStages = 4;      // shared-memory stages in the producer/consumer ring
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr std::size_t kAStageBytes = 2 * kBlockM * kBlockK;               // A's box: 16 or 8 KiB
  static constexpr std::size_t kStageBytes = kAStageBytes + 2 * kBlockK * kBlockN;  // 48 or 40 KiB
  // Each consumer rounds its 64 x 256 tile of C in two halves of 64 x 128 through shared
  // memory, so that the stores to C are whole 16-byte chunks of rows: 16 KiB each.
  static constexpr std::size_t kEpilogueBytes = 2 * 64 * (kBlockN / 2);
  // Dynamic shared memory: the stages, the consumers' epilogue tiles, the stages' two
  // barriers each, and 1 KiB to align the stages to the 1024 bytes the 128-byte swizzle
  // repeats over; 225 KiB (two consumers) or 177 KiB (one) of the 227 an sm_90 block may have.
  static constexpr std::size_t kSharedBytes =
      kStages * kStageBytes + kConsumers * kEpilogueBytes + 2 * kStages * 8 + 1024;
};
using WgmmaGemmTile = WgmmaGemmTileOf<2>;
using WgmmaHalfGemmTile = WgmmaGemmTileOf<1>;

// Whether the kernel code loaded for the current device has the wgmma kernel (compiled for
// sm_90a: the architecture-specific features are not in sm_90 or compute_90 code). Runs a
// one-thread probe kernel the first time per device; the caller checks the compute
// capability (9.0) and the shared memory first.
bool wgmma_gemm_compiled_in();

// How many clusters of the kernel fit on the device at once (its persistent grid), for
// clusters of two blocks and of one, of each tile.
struct WgmmaGrid {
  int pairs = 0;
  int singles = 0;
  int half_pairs = 0;    // the 64 x 256 tile's
  int half_singles = 0;
  int clusters(int consumers, int cluster_m) const {
    return consumers == 1 ? (cluster_m == 2 ? half_pairs : half_singles) : (cluster_m == 2 ? pairs : singles);
  }
};

// Lets the kernels use their shared memory on the current device and counts their clusters:
// before the first launch there.
WgmmaGrid configure_gemm_wgmma();

// The product of `operands` (gemm_operands.cuh) for T = __half or __nv_bfloat16: products and
// sums in f32 on the tensor cores; A, B and C 16-byte aligned. consumers: 2 (the 128 x 256
// tile) or 1 (the 64 x 256 tile). cluster_m: 2 (row tiles in pairs sharing B's tiles) or 1 (for
// C of one row tile). Needs what wgmma_gemm_compiled_in says, and `grid` from
// configure_gemm_wgmma on the current device.
template <class T>
void launch_gemm_wgmma(const GemmOperands<T>& operands, int consumers, int cluster_m, const WgmmaGrid& grid,
                       cudaStream_t stream);

}  // namespace gpb::kernels
