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

// The block tile, by its consumer warpgroups (64 rows of C each) and its width kColumns, the n
// of each consumer's wgmma m64nNk16:
//   WgmmaGemmTile           128 x 256, two consumers: the default.
//   WgmmaHalfGemmTile        64 x 256, one consumer: for products whose 128 x 256 tiles leave
//                           most SMs idle (1024^3 has 32 of them for 132 SMs, 64 of these).
//   WgmmaNarrowGemmTile     128 x 128, two consumers: for C at most 128 columns wide, where
//                           half of every 256-wide tile's products would be padding
//                           (16384 x 128 x 1024: 128 of these, each all real columns).
//   WgmmaNarrowHalfGemmTile  64 x 128, one consumer: both of the above (few rows of tiles of C
//                           at most 128 wide).
// (Narrow here is the tile's width; the narrow kernel of gemm_narrow.cuh, for n up to 64, is
// another kernel.) Every tile runs one block an SM: the launch bounds of the 384-thread block
// give each thread 168 registers, 43 008 a 256-thread block, so two of the smaller blocks'
// 105 KiB of shared memory would fit but not their registers.
template <int kConsumerGroups, int kColumns = 256>
struct WgmmaGemmTileOf {
  static_assert((kConsumerGroups == 1 || kConsumerGroups == 2) && (kColumns == 256 || kColumns == 128),
                "one or two consumer warpgroups, tiles 256 or 128 columns wide");
  static constexpr int kConsumers = kConsumerGroups;  // warpgroups that multiply; one more loads (TMA)
  static constexpr int kBlockM = 64 * kConsumers;     // rows of C per block (64 per consumer warpgroup)
  static constexpr int kBlockN = kColumns;           // columns of C per block: the N of each 16-deep step's wgmma
  static constexpr int kBlockK = 64;     // depth of one stage: 128 bytes of 16-bit elements, the swizzle's span
  // Shared-memory stages in the producer/consumer ring, for every tile. The 128-wide tiles'
  // stages are smaller (32 or 24 KiB), and six would fit, but four already keep 96 or 72 KiB
  // of copies in flight an SM (three stages while the consumers read the fourth): over 132
  // SMs 9-12 MiB, several times the 3.35 TB/s x ~1 us (about 3.4 MB) an H100's DRAM needs in
  // flight, and C of at most 128 columns is bound by reading A (128 flops a byte of A, an H100
  // has about 295 a byte of DRAM bandwidth). More stages wait for a bench that shows a gain.
  static constexpr int kStages = 4;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr std::size_t kAStageBytes = 2 * kBlockM * kBlockK;  // A's box: 16 or 8 KiB
  // A stage: A's box and B's 64 x kBlockN (32 KiB 256 wide, 16 KiB 128 wide): 48 KiB
  // (128 x 256), 40 (64 x 256), 32 (128 x 128) or 24 (64 x 128).
  static constexpr std::size_t kStageBytes = kAStageBytes + 2 * kBlockK * kBlockN;
  // Each consumer rounds its 64 x kBlockN tile of C in two halves of 64 x kBlockN / 2 through
  // shared memory, so that the stores to C are whole 16-byte chunks of rows: 16 KiB each (8
  // for the 128-wide tiles).
  static constexpr std::size_t kEpilogueBytes = 2 * 64 * (kBlockN / 2);
  // Dynamic shared memory: the stages, the consumers' epilogue tiles, the stages' two
  // barriers each, and 1 KiB to align the stages to the 1024 bytes the 128-byte swizzle
  // repeats over, of the 227 KiB an sm_90 block may have: 128 x 256 4 x 48 + 2 x 16 + 1 = 225
  // KiB (and 64 bytes of barriers), 64 x 256 4 x 40 + 16 + 1 = 177, 128 x 128 4 x 32 + 2 x 8 +
  // 1 = 145, 64 x 128 4 x 24 + 8 + 1 = 105.
  static constexpr std::size_t kSharedBytes =
      kStages * kStageBytes + kConsumers * kEpilogueBytes + 2 * kStages * 8 + 1024;
};
using WgmmaGemmTile = WgmmaGemmTileOf<2>;
using WgmmaHalfGemmTile = WgmmaGemmTileOf<1>;
using WgmmaNarrowGemmTile = WgmmaGemmTileOf<2, 128>;
using WgmmaNarrowHalfGemmTile = WgmmaGemmTileOf<1, 128>;

// Whether the kernel code loaded for the current device has the wgmma kernel (compiled for
// sm_90a: the architecture-specific features are not in sm_90 or compute_90 code). Runs a
// one-thread probe kernel the first time per device; the caller checks the compute
// capability (9.0) and the shared memory first.
bool wgmma_gemm_compiled_in();

// How many clusters of the kernel fit on the device at once (its persistent grid), for each
// tile and clusters of one block and of two.
struct WgmmaGrid {
  // The tiles in the order of `counts`: 128 x 256, 64 x 256, 128 x 128, 64 x 128.
  static constexpr int kTiles = 4;
  // counts[tile_index(consumers, block_n)][cluster_m - 1].
  int counts[kTiles][2] = {};
  // The index of the tile of `consumers` warpgroups (1 or 2) and block_n columns (256 or
  // 128); throws std::invalid_argument for any other.
  static int tile_index(int consumers, int block_n);
  // The clusters of that tile and cluster_m blocks (1 or 2); throws std::invalid_argument
  // for any other.
  int clusters(int consumers, int block_n, int cluster_m) const;
};

// The TMA descriptors (CUtensorMap, 128 bytes each) of A and B as a launch encoded them, and
// what for: the operands' addresses and shapes and the tile's rows (A's box). One a case: the
// encoding is host work on every call otherwise.
struct WgmmaMaps {
  unsigned char a[128] = {};  // copied in and out with memcpy
  unsigned char b[128] = {};
  const void* a_base = nullptr;
  const void* b_base = nullptr;
  int m = 0, n = 0, k = 0, lda = 0, ldb = 0, block_m = 0;
  bool encoded = false;
};

// Lets the kernels use their shared memory on the current device and counts their clusters:
// before the first launch there.
WgmmaGrid configure_gemm_wgmma();

// The product of `operands` (gemm_operands.cuh) for T = __half or __nv_bfloat16: products and
// sums in f32 on the tensor cores; A, B and C 16-byte aligned. consumers and block_n pick the
// tile: consumers 2 (128 rows) or 1 (64 rows), block_n 256 or 128 columns. cluster_m: 2 (row
// tiles in pairs sharing B's tiles) or 1 (for C of one row tile). Any other value throws
// std::invalid_argument. Needs what wgmma_gemm_compiled_in says, and `grid` from
// configure_gemm_wgmma on the current device.
//
// after_copies: the launch follows launch_padded_copies of its operands on the same stream. It
// is then a programmatic dependent launch: its blocks start and set up while the copies run,
// and wait for them to finish before their first load (16-bit 1000 x 333 x 77 on an H200:
// copies and product 9.0 to 8.0 us, graph-timed).
// maps, where given, keeps the operands' TMA descriptors from one launch to the next: they
// are encoded again only where the operands or the tile's rows differ from the last launch's.
template <class T>
void launch_gemm_wgmma(const GemmOperands<T>& operands, int consumers, int block_n, int cluster_m,
                       const WgmmaGrid& grid, cudaStream_t stream, bool after_copies = false,
                       WgmmaMaps* maps = nullptr);

}  // namespace gpb::kernels
