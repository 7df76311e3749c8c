// Dense C = A * B (row-major) for f64 on the FP64 tensor cores (DMMA, sm_80 and newer);
// design notes in gemm_dmma.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpb::kernels {

// The mma.sync shape the kernel issues: m8n8k4, the only f64 shape of sm_80 to sm_89, or
// m16n8k16 (sm_90 and newer), eight times the work per instruction.
enum class DmmaShape { m8n8k4, m16n8k16 };

// The block tile: large, 128 x 128 of C for 8 warps (2 x 4), one block an SM; medium, 128 x 64
// for 4 warps (2 x 2), two blocks an SM, the same 64 x 32 of C a warp (cuBLAS's DGEMM tiling on
// sm_90): where one block waits at its stage barrier the other's warps keep the DMMA units
// busy (on an H200 4096^3 in 2721 against 2818 us, 8192^3 21030 against 22380; 3000^3 1157
// against 1356 measured in another call); small, 64 x 64 for 4 warps (2 x 2), two blocks an SM, for products whose large
// tiles are fewer than the SMs and whose k is too short to split (1000 x 333 x 77: 24 large
// tiles, 96 small ones); or skinny, 16 x 128 for 4 warps (1 x 4), two blocks an SM, for C of at
// most 16 rows (16 x 8192 x 8192), where the others' rows would be padding and the product is
// bound by streaming B: one m16n8k16 row of fragments a warp. Each warp holds 64 x 32 (large,
// medium), 32 x 32 (small) or 16 x 32 (skinny) of C.
enum class DmmaTileSize { large, medium, small, skinny };

// The tiling, per shape and size. The stage depth is the shapes' one difference: m16n8k16
// takes 32-deep stages (207 KiB in three stages for the large tile: an sm_90 block may have
// 227), m8n8k4 16-deep ones (112 KiB, within the 163 KiB of an A100 block). On an H100 the
// 32-deep stages ran 4096 at 48.6 against 45.9 TFLOP/s; 4 or 5 stages of 16 changed nothing
// (docs/kernel-notes.md). The medium tile keeps two stages (106 KiB with m16n8k16, 58 KiB with
// m8n8k4), so that two of its blocks fit an SM: on an H200 three 16-deep stages ran 4096^3 in
// 2873 us against two 32-deep ones' 2721 (GEMM version 20). The small tile's stages take
// 105 KiB (m16n8k16) or 56 KiB (m8n8k4), the skinny tile's 112.5 or 57 KiB, so two of their
// blocks fit an SM (228 KiB on sm_90, 1 KiB of it reserved a block) wherever the large tile
// fits one.
// Shared-memory stages in flight (cp.async pipeline), the same for both shapes.
constexpr int dmma_tile_stages(DmmaTileSize size) { return size == DmmaTileSize::medium ? 2 : 3; }

template <DmmaShape kShape, DmmaTileSize kSize = DmmaTileSize::large>
struct DmmaGemmTile {
  static constexpr bool kSmall = kSize == DmmaTileSize::small;
  static constexpr bool kSkinny = kSize == DmmaTileSize::skinny;
  static constexpr bool kMedium = kSize == DmmaTileSize::medium;
  static constexpr int kBlockM = kSkinny ? 16 : kSmall ? 64 : 128;  // rows of C per block
  static constexpr int kBlockN = kSmall || kMedium ? 64 : 128;      // columns of C per block
  static constexpr int kBlockK = kShape == DmmaShape::m16n8k16 ? 32 : 16;  // depth of one shared-memory stage
  static constexpr int kStages = dmma_tile_stages(kSize);
  static constexpr int kWarpsM = kSkinny ? 1 : 2;    // warps along the rows of a block tile
  static constexpr int kWarpsN = kSmall || kMedium ? 2 : 4;  // and along its columns
  static constexpr int kWarpM = kBlockM / kWarpsM;  // 64 (large, medium), 32 (small) or 16 (skinny) rows of C per warp
  static constexpr int kWarpN = kBlockN / kWarpsN;  // 32 columns of C per warp
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kBlocksPerSm = kSize == DmmaTileSize::large ? 1 : 2;  // the launch bounds' minimum
  static constexpr int kPad = 4;  // doubles added to each shared row, against bank conflicts
  // Dynamic shared memory per block: kStages slices of A (kBlockM x (kBlockK + kPad)) and
  // B (kBlockK x (kBlockN + kPad)); more than some sm_8x/sm_12x parts allow.
  static constexpr std::size_t kSharedBytes =
      sizeof(double) * kStages * (kBlockM * (kBlockK + kPad) + kBlockK * (kBlockN + kPad));
};

// "m8n8k4" or "m16n8k16".
const char* dmma_shape_name(DmmaShape shape);

// The shape for the current device: m16n8k16 where its compute capability is 9.0 or more,
// the kernel code loaded for it was compiled for sm_90 or newer (the default build's sm_90a
// code, or its compute_90 PTX on newer devices) and a block may have that tile's shared memory
// (`shared_bytes_per_block`, the device's opt-in limit); m8n8k4 otherwise.
DmmaShape dmma_shape_for_current_device(int compute_capability, std::size_t shared_bytes_per_block);

// Lets the kernel use the dynamic shared memory its stages need (more than the default
// 48 KiB), every tile size, on the current device: once per device, before the first
// launch_gemm_dmma there.
void configure_gemm_dmma(DmmaShape shape);

// C (m x n) = A (m x k) * B (k x n), all row-major, any m, n, k >= 1, in f64 on the tensor
// cores, in blocks of the tile `size`. `vectorized` selects 16-byte global copies, legal only
// when n and k are even so that every row starts 16-byte aligned; otherwise the same tiling
// copies element-wise.
// With parts > 1, k is split into parts of split_k (a multiple of the tile's kBlockK; the
// last may be shorter) and part p's product goes to c + p * m * n, a workspace of partials
// for launch_add_partials; with one part, c is C and split_k at least k.
// Needs a device of compute capability 8.0 or newer that allows the shape's tile kSharedBytes of shared
// memory per block, and `shape` from dmma_shape_for_current_device: the caller checks
// (below sm_80, or m16n8k16 in code compiled for less than sm_90, the kernel traps).
void launch_gemm_dmma(DmmaShape shape, DmmaTileSize size, int m, int n, int k, const double* a, const double* b,
                      double* c, bool vectorized, int parts, int split_k, cudaStream_t stream);

}  // namespace gpb::kernels
