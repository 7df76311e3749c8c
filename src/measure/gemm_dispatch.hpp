// How the cuda backend runs one matmul, C (m x n) = A (m x k) B (k x n): which kernel, which
// tile, into how many parts k is split, and which operands are first copied into padded
// buffers, chosen from the shape, the dtype and a few facts of the device. No CUDA here, so
// that the rule is tested on any machine (tests/unit/test_gemm_dispatch.cpp);
// gpu_backend/cuda_gemm.cu gathers the facts, runs the plan and puts its rule in the case's
// details.
//
// The rule, in order:
//   1. Matrix-vector shapes (matmul_is_matrix_vector: m or n at most 16) are memory-bound:
//      n <= 16 streams A's rows (matrix_vector), else m <= 16 streams B's rows (vector_matrix);
//      f64 on a device with DMMA m16n8k16 takes matrix_vector only up to n = 4 (rule 3), and
//      vector_matrix up to m = 4, or 16 where n <= 64 (f64_vector_matrix_max_rows): a wider B
//      from 5 rows runs the DMMA kernel's 16 x 128 tile (rule 3b), which streams B faster.
//      f16 and bf16 only up to 4: the kernels sum in f32 on the CUDA cores, and an H100
//      streaming 2-byte elements at its copy rate brings each SM 5.7 of them per clock, so 16
//      sums per element need 91 of its 128 FMAs per clock (measured: 0.37-0.43x cuBLAS at 16);
//      wider 16-bit ones run the short-k kernel (step 2) or the tensor-core tiles of step 3,
//      padding rows of C with zeros; except up to 8 rows where B is wider than 64 columns and
//      its rows are not whole 16-byte chunks (sixteen_bit_vector_matrix_max_rows): there the
//      tensor cores would first copy B padded, reading and writing B before reading it again.
//      matrix_vector reads B through shared tiles, except for 16-bit at n of 1 or 2 with
//      16-byte loads, where each lane reads its rows of B from L1
//      (matrix_vector_reads_b_directly). Split k's partials are added by the last block of
//      each piece to finish, in part order, not by a second kernel. vector_matrix takes A's
//      rows in groups, a block each, where B is L2-sized and the groups' blocks fill the
//      device with a short sum of parts (plan_matrix_vector).
//   2. Otherwise a short k, at most short_k_max_depth(dtype) (15 for f16 and bf16, 33 for
//      f32 and f64), runs the short-k kernel (kernels/gemm_short_k.cu): CUDA-core FMAs over
//      A and B tiles held whole in shared memory, one launch, no split, no padded copies.
//      Why there: each output costs k FMAs and its bytes of C written (A and B, m k + k n,
//      are read once and are fewer). At 3/4 of an H100's CUDA-core FMA rate (132 SMs x 128
//      f32 lanes, or 64 f64 lanes, x 1.98 GHz: 33.5 and 16.7 TFMA/s; 3/4: a thread's step of
//      k is 32 FMAs against 3 shared reads, f64 16 against 5, with the staging and the stores
//      around them) against writing C at the copy bandwidth (3 TB/s), the FMAs hide under
//      the write up to k = 0.75 x FMA rate x bytes of C's element / bandwidth: 33.4 for f32
//      (4 bytes) and f64 (8 bytes, half the FMA rate). For 2-byte C the kernel's measured rate
//      (0.42 of the peak, short_k_fma_fraction) puts that point at 9, but below one 16-deep
//      tensor-core step the tiled path pads k and copies A, and measured slower on narrow C:
//      16-bit takes k up to 15 (kSixteenBitShortKMaxDepth, with the H100 figures). Up
//      to there the kernel is bound by C, as any kernel must be, and the tiled kernels,
//      bound by the same write, cannot be faster: their tensor cores shorten only the FMAs,
//      which hide anyway, while they pad k to their step (wgmma 64 deep, after a padding
//      copy of A where k is not a multiple of 8; DMMA 32; SIMT 8 or 16) and leave SMs
//      without tiles on a small C (830 x 383: 14 wgmma tiles of 128 x 256 for 132 SMs).
//      Beyond it the CUDA-core FMAs grow past the write and the tensor cores win.
//      The block is 256 threads, each computing 32 outputs of 16-byte rows (f16/bf16 4 x 8,
//      f32 8 x 4, f64 8 x 2); its width, 32 to 32 x 16 bytes of C, is the one that pads C
//      least (ties: the wider, for longer runs of C's stores). C's rows are stored 16 bytes at
//      a time where n is a multiple of 16 bytes' elements, else element by element, and then
//      the width is first the one whose rows' stores take the fewest 32-byte sectors (a row of
//      threads stores as many neighbouring elements an instruction as it has threads).
//   3. Otherwise f16 and bf16 with n of at most 64 (narrow_sixteen_bit_takes: where wgmma runs
//      and n and k are multiples of 8, not a C of 33 to 64 rows, nor one of more than 1536 rows
//      with n past 32 and k of at most 4096), and f64 with n of 5
//      to 16 (narrow_f64_takes) where the device has DMMA m16n8k16 (sm_90 on), run the narrow
//      kernel (kernels/gemm_narrow.cu, sm_80 and newer): 8 warps of 16 rows of A each, A
//      streamed once from global memory into mma.sync m16n8k16 fragments, B staged in shared
//      memory (at 32 and 64 columns, B's rows 16-byte aligned, by a cp.async pipeline), f32
//      sums; bound by reading A (2 n flops per 2-byte element, 32 a byte at n = 16, which the
//      tensor cores hide under the copy rate). The tiles of step 3b are 256
//      columns wide: at n = 16 they multiplied 16 times the products needed, at about 290 TFLOP/s
//      (8192 x 16 x 8192 at 0.49x cuBLAS on an H100). k is split as for the matrix-vector kernels
//      (step 4, f64) or priced (16-bit, a k past one stage: split_narrow_priced), in parts of
//      whole 32-deep steps (16-bit). The f64 kernel is the same design on
//      DMMA m16n8k16 (kernels/gemm_narrow.cu; n/4 flops a byte of A, 16 at 64 columns, under the 67
//      TFLOP/s of an H100's FP64 tensor cores at its copy rate), where the 128 x 128 DMMA tiles
//      computed 4 to 8 times the products needed (1730 x 25 x 8081 at 0.46x cuBLAS on an H200) and
//      the matrix_vector kernel streamed 8192 x 16 x 8192 at 38 % of the copy rate (its 4 x 16 f64
//      sums a thread), so f64 there takes matrix_vector only up to 4 columns. From 17 columns the
//      DMMA kernel's 64 x 64 tile (rule 3b) ran ahead of the f64 narrow kernel.
//   3b. Otherwise the dtype's tiled kernel: f16/bf16 on wgmma (sm_90a) or mma.sync, f64 on
//      the FP64 tensor cores (DMMA) or the SIMT kernel, f32 on the SIMT kernel. The SIMT
//      kernel has four tiles, 128 x 128, 64 x 64, 128 x 32 and 32 x 128 (the last offered only
//      to a C of at most 32 rows, priced at the 128 x 32 tile's rates), each at
//      its own rate; each is priced with its best split of k (step 4), waves of blocks and
//      padded products counted, and the cheapest runs (the large one on a tie). The wgmma kernel
//      (128 x 256, or 64 x 256 with one consumer warpgroup) and the DMMA kernel (128 x 128,
//      128 x 64 at two blocks an SM where its tiles fill every block in flight (m16n8k16),
//      64 x 64 at two blocks an SM, or 16 x 128 at two blocks an SM for C of few rows, priced
//      at the rate it streams B) have several tiles each, priced the same way: a smaller one
//      runs where the larger leaves most SMs idle and k is too short for a split to pay, or
//      where the larger's rows would be mostly padding.
//   4. Enough independent work for every SM? When the output pieces (tiles, or a matrix-vector
//      kernel's row or column blocks) are fewer than the SMs (matrix-vector kernels: than their
//      blocks in flight), k may be split: each part's blocks write a partial of C to a
//      workspace, and a second kernel adds the partials in part order (the same bits on every
//      run). The matrix-vector kernels split into as many parts as fit one wave of blocks in
//      flight. The tiled kernels price each count of parts up to kSplitMaxWaves waves (the
//      steps of k a block walks at its kernel's rate per SM, waves of blocks counted, against a
//      second launch and the partials written and read) and take the cheapest, unsplit on a
//      tie: a long k splits into many parts, a short k over a few dozen tiles stays whole (its
//      partials would cost more than the steps they save), and tiles too many for two parts
//      in one wave split into parts that fill whole waves.
//   5. The 16-bit tensor-core kernels read whole 16-byte chunks of rows: where k or n is not a
//      multiple of 8, A (k) or B (n) goes through a copy padded to a multiple of 8 (with zeros),
//      made inside the timed op; C is then stored element by element. That path (its tiles, the
//      copies and the wgmma kernel's start, more where B is padded) is priced against the SIMT
//      tiles widened to f32, which read the 16-bit elements one at a time (no copies, one
//      launch, all of k, at least a load latency a stage), and the cheaper runs: the CUDA cores
//      for small products (830 x 383 x 16), the padded tensor cores elsewhere. The SIMT kernel
//      pads f32 and f64 (multiples of 4 and 2) where the copies price below its element-wise
//      variant (rule 3b).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "model/types.hpp"

namespace gpb {

enum class GemmKernel {
  vector_matrix,  // m <= 16 < n: a few rows of A times B, B streamed by rows
  matrix_vector,  // n <= 16: A times a few columns of B, A streamed by rows
  simt,           // f32, and f64 without FP64 tensor cores: CUDA-core FMA
  dmma,           // f64 on the FP64 tensor cores (mma.sync)
  wgmma,          // f16, bf16 on sm_90a: TMA and wgmma
  mma_sync,       // f16, bf16 on sm_80 and newer
  short_k,        // k at most short_k_max_depth: CUDA-core FMA, bound by writing C
  narrow,         // f16, bf16 (n <= kNarrowMaxColumns) and f64 (narrow_f64_takes): mma.sync, bound by reading A
};

// The kernel's name as details give it: "vector_matrix_gemv", "dmma_gemm", ...
const char* gemm_kernel_name(GemmKernel kernel);

// What the dispatch needs to know of the device: its SM count, and for each optional kernel
// why it cannot run there (nothing when it can).
struct GemmDevice {
  int sm_count = 0;
  std::optional<std::string> no_wgmma;  // then f16/bf16 run mma.sync
  std::optional<std::string> no_mma;    // and without either, no tensor-core kernel: prepare refuses
  std::optional<std::string> no_dmma;   // then f64 runs the SIMT kernel
  bool dmma_m16n8k16 = false;           // the DMMA kernel's shape there (32-deep stages; m8n8k4: 16)
};

// A kernel's unit of work: a block's rows and columns of C and the depth of k it takes per
// step (the granule k's parts are rounded to).
struct GemmTile {
  int m = 0;
  int n = 0;
  int k = 0;
};

struct GemmPlan {
  GemmKernel kernel = GemmKernel::simt;
  GemmTile tile;
  int blocks_per_sm = 1;         // the kernel's blocks in flight per SM
  std::int64_t pieces = 0;       // independent pieces of C: the grid without a split of k
  int splits = 1;                // parts of k
  std::int64_t split_k = 0;      // k per part, a multiple of tile.k (the last part may be shorter)
  int cluster_m = 1;             // wgmma: row tiles per cluster (2: they share B's tiles)
  // Matrix-vector kernels: the rows of A (vector_matrix) or columns of B (matrix_vector) they
  // are compiled for, 1, 2, 4, 8 or 16 (f16, bf16: 1, 2 or 4), at least n, and at least m but
  // where vector_matrix takes A's rows in groups of this many; the narrow kernel: its columns,
  // 8, 16, 32 or 64, at least n.
  int vector_width = 0;
  // 16-byte global accesses: rows of the streamed operands start 16-byte aligned.
  bool vectorized = false;
  // Padded copies of A and B for the 16-bit tensor-core kernels, and the leading dimensions
  // (elements) the main kernel reads them with; n_kernel is the width of C it computes (B's
  // padded width where B is padded, and of split k's partials), of which it stores n.
  bool stage_a = false;
  bool stage_b = false;
  std::int64_t lda = 0;
  std::int64_t ldb = 0;
  std::int64_t n_kernel = 0;
  std::string fallback;  // why a faster kernel of the dtype does not run here (empty when none)
  std::string rule;      // the rule and this shape's numbers, for details
};

// The kernels' tiles (kernels/*.cuh hold them too; gpu_backend/cuda_gemm.cu checks that they
// agree). Matrix-vector kernels run 8 warps a block: vector_matrix takes 32 lanes x 16 bytes
// of columns, all m (up to 16) rows of A or a group of them (GemmPlan::vector_width), and k's
// parts in multiples of 8 rows per warp;
// matrix_vector takes 32 rows of A (4 a warp) and walks k in tiles of B of 512 rows (256
// for f64's 8-byte sums), the multiple k's parts are made of.
inline constexpr GemmTile kSimtGemmTile{128, 128, 16};
inline constexpr GemmTile kSimtSmallGemmTile{64, 64, 16};
inline constexpr GemmTile kSimtSlimGemmTile{128, 32, 16};
inline constexpr GemmTile kSimtWideGemmTile{32, 128, 16};  // C of at most 32 rows only
inline constexpr int kSimtThreads = 256;      // a block of the two above
inline constexpr int kSimtSlimThreads = 128;  // of the slim and the wide tile
// The SIMT kernel's blocks an SM needs in flight for a tile of `threads` (its launch bounds'
// minimum): 16 warps for f32, 8 for f64, whose register tile takes about twice the registers.
constexpr int simt_blocks_per_sm(std::size_t element_bytes, int threads) {
  return (element_bytes == 4 ? 16 : 8) * 32 / threads;
}
inline constexpr GemmTile kDmmaGemmTile{128, 128, 32};        // m16n8k16
inline constexpr GemmTile kDmmaShallowGemmTile{128, 128, 16};  // m8n8k4
// The DMMA kernel's medium tile (4 warps of the large tile's 64 x 32, two blocks an SM; m16n8k16
// only), ahead of the large one on squares (kernel-notes.md, GEMM version 20).
inline constexpr GemmTile kDmmaMediumGemmTile{128, 64, 32};
inline constexpr GemmTile kDmmaShallowMediumGemmTile{128, 64, 16};
inline constexpr int kDmmaMediumBlocksPerSm = 2;
// The DMMA kernel's small tile (4 warps, two blocks an SM), for products of few large tiles.
inline constexpr GemmTile kDmmaSmallGemmTile{64, 64, 32};
inline constexpr GemmTile kDmmaShallowSmallGemmTile{64, 64, 16};
inline constexpr int kDmmaSmallBlocksPerSm = 2;
// Its skinny tile (4 warps of 16 x 32, two blocks an SM), for C of few rows: it streams B.
inline constexpr GemmTile kDmmaSkinnyGemmTile{16, 128, 32};
inline constexpr GemmTile kDmmaShallowSkinnyGemmTile{16, 128, 16};
inline constexpr int kDmmaSkinnyBlocksPerSm = 2;
inline constexpr GemmTile kWgmmaGemmTile{128, 256, 64};
// The wgmma kernel's tile of one consumer warpgroup (still one block an SM), for products
// whose 128 x 256 tiles leave most SMs idle.
inline constexpr GemmTile kWgmmaHalfGemmTile{64, 256, 64};
// The wgmma kernel's tiles 128 columns wide (m64n128k16), two consumer warpgroups and one:
// for C at most 128 columns wide, half of whose 256-wide tiles' products would be padding.
inline constexpr GemmTile kWgmmaNarrowGemmTile{128, 128, 64};
inline constexpr GemmTile kWgmmaNarrowHalfGemmTile{64, 128, 64};
inline constexpr GemmTile kMmaSyncGemmTile{128, 256, 32};
// The narrow kernel's block: 128 rows of A (16 a warp), stages of 256 rows of B; its width
// (8, 16, 32 or 64 columns, at least n) is GemmPlan::vector_width. k splits into parts of whole
// 32-deep steps (a warp's loads of A), not whole stages: a part's last stage may be partial. In
// stages, a short k left few parts (16-bit 785 x 62 x 1005: 7 row blocks in 2 parts of 512, 14
// blocks for 132 SMs, 26.8 us on an H200 against cuBLAS's 12.9).
inline constexpr GemmTile kNarrowGemmTile{128, 64, 256};
inline constexpr int kNarrowSplitStep = 32;
inline constexpr int kNarrowMaxColumns = 64;
// The 16-bit tensor-core kernels' 16-byte chunks, in elements: rows of A (k) or B (n) not whole
// chunks are copied padded before those kernels run (rule 5).
inline constexpr std::int64_t kTensorChunk = 8;
// Where 16-bit takes it: n <= 64, except a C of 33 to 64 rows whose n and k are multiples of 8
// on a device with wgmma, which runs the wgmma tiles (unpadded): there at most half the narrow
// kernel's 8 warps have rows, and on an H200 64 x 64 x 1048576 took 119.9 us on it against 97.9
// on the wgmma 64 x 128 tile in 132 parts (cuBLAS 79.4); 64 x 32 x 1048576 tied (94.5, 93.4).
// With more rows the narrow kernel was ahead (128 x 64 x 1048576 160.9 against 175.9, 256 x 64 x
// 262144 76.0 against 92.5, 96 x 48 x 200000 50.9 against 49.3); fewer than 33 were not measured.
// Nor does it take a C of more than kNarrowWgmmaMinRows rows, n of 33 to 64 and k of at most
// kNarrowWgmmaMaxDepth (n and k multiples of 8) on such a device: the narrow kernel's blocks walk k
// step by step, bound by their loads' latency, while the wgmma tiles stream A by TMA; on an H100
// (kernel-notes.md, GEMM version 25) the wgmma tiles were ahead at every such shape measured, 1.12
// to 1.72x (16384 x 64 x 1024 17.4 us against 29.9, 5360 x 64 x 536 10.4 against 14.6, 2000 x 64 x
// 704 8.3 against 12.0, 4096 x 64 x 4096 24.8 against 29.9, 12000 x 40 x 512 11.6 against 13.7; 11
// shapes). Outside it the narrow kernel was ahead or even: 7000 x 40 x 7000 (56.4 against 64.1),
// 1000 x 40 x 1000, 785 x 48 x 1008, 400 x 56 x 2048 (1.11-1.19x), 1500 x 56 x 1500 and 8192 x 56 x
// 8192 (even), and at 32 columns or fewer (65536 x 32 x 512, 5000 x 16 x 3000, 40000 x 24 x 96,
// 16384 x 8 x 4096: 1.07-1.64x).
inline constexpr std::int64_t kNarrowWgmmaMinRows = 1536;
inline constexpr std::int64_t kNarrowWgmmaMaxDepth = 4096;
constexpr bool narrow_wgmma_rows(std::int64_t m, std::int64_t n, std::int64_t k) {
  return n > 32 && m > kNarrowWgmmaMinRows && k <= kNarrowWgmmaMaxDepth;
}
constexpr bool narrow_sixteen_bit_takes(std::int64_t m, std::int64_t n, std::int64_t k, bool wgmma) {
  return n <= kNarrowMaxColumns &&
         !(wgmma && n % kTensorChunk == 0 && k % kTensorChunk == 0 &&
           ((m > 32 && m <= 64) || narrow_wgmma_rows(m, n, k)));
}
inline constexpr int kNarrowBlocksPerSm = 2;  // its launch bounds
// The f64 narrow kernel (DMMA m16n8k16): blocks of 128 rows, stages of 64 rows of B, 8 or 16
// columns, two blocks an SM (its launch bounds). f64 takes it for n of 5 to 16, any m. It took
// up to 64 columns while the DMMA tiles were 128 x 128 (kernel-notes.md, GEMM version 17: ahead
// of them from 40 to 64 columns, 8192 x 64 x 8192 279 against 346 us); the DMMA kernel's 64 x 64
// tile (GEMM version 19) ran ahead of it at every shape tried from 17 columns on an H200, each
// with its own split (8192 x 24 x 8192 157.5 against 165.0 us, 8192 x 32 x 8192 157.3 against
// 170.6, 8192 x 64 x 8192 212 against 279, 64 x 64 x 1048576 308 against 443, 300 x 64 x 20000
// 41.3 against 51.7, 2000 x 48 x 2000 24.0 against 29.5, 3000 x 60 x 5000 63.4 against 76.2);
// at 16 they tied (8192 x 16 x 8192 156.3 against 155.0).
inline constexpr GemmTile kNarrowF64GemmTile{128, 16, 64};
inline constexpr int kNarrowF64MaxColumns = 16;
inline constexpr int kNarrowF64BlocksPerSm = 2;
constexpr bool narrow_f64_takes(std::int64_t n) { return n <= kNarrowF64MaxColumns; }
// The tiled kernels' split of k (rule 4) takes at most this many waves of blocks in flight.
inline constexpr int kSplitMaxWaves = 4;
inline constexpr int kGemvWarps = 8;
inline constexpr int kVectorMatrixMaxRows = 16;
// f64 on a device with DMMA m16n8k16 takes vector_matrix up to 4 rows, or up to 16 where B is at
// most 64 columns: from 5 rows the DMMA kernel's 16 x 128 tile streamed a wide B faster (on an
// H200: 16 x 8192 x 8192 134.9 against 257.5 us, 8 x 8192 x 8192 140.7 against 160.8, 16 x 490 x
// 3416 17.9 against 35.0; 4 rows 141.7 against 132.7), and at 28 columns it was behind (13 x 28 x
// 10117 26.5 against 24.4), its 128 columns mostly padding.
inline constexpr int kF64VectorMatrixMaxRows = 4;
inline constexpr int kF64VectorMatrixNarrowB = 64;
constexpr std::int64_t f64_vector_matrix_max_rows(std::int64_t n) {
  return n <= kF64VectorMatrixNarrowB ? kVectorMatrixMaxRows : kF64VectorMatrixMaxRows;
}
// The widest matrix-vector shape f16 and bf16 run on the matrix-vector kernels (rule 1).
inline constexpr int kSixteenBitVectorMaxSide = 4;
// 16-bit vector_matrix up to 8 rows where B is wider than the narrow kernel's 64 columns and
// its rows are not whole 16-byte chunks (n not a multiple of 8): there the tensor-core tiles
// first copy B padded (a read and a write of B before the kernel reads it again, at 6 x 10660
// x 3458 priced 52 of the plan's 66 us, 0.50x cuBLAS on an H100), where vector_matrix reads B
// once, with 8 f32 sums per element streamed (46 of an SM's 128 FMAs a clock at the copy rate).
inline constexpr int kSixteenBitUnalignedVectorMatrixRows = 8;
constexpr std::int64_t sixteen_bit_vector_matrix_max_rows(std::int64_t n) {
  return n > kNarrowMaxColumns && n % kTensorChunk != 0 ? kSixteenBitUnalignedVectorMatrixRows
                                                        : kSixteenBitVectorMaxSide;
}
inline constexpr int kMatrixVectorRows = 4 * kGemvWarps;
// The rows of B a matrix_vector tile holds (kernels/gemv.cuh, GemvTile::kTileK): 256 for f64,
// 512 for f32 and for 16-bit loaded element by element, 2048 for 16-bit with 16-byte loads.
constexpr int matrix_vector_tile_k(std::size_t element_bytes, bool vectorized) {
  return element_bytes == 8 ? 256 : element_bytes == 4 || !vectorized ? 512 : 2048;
}
// Where matrix_vector reads B itself rather than through the shared tile (GemvTile::reads_b_directly):
// 16-bit elements with 16-byte loads and n of 1 or 2.
constexpr bool matrix_vector_reads_b_directly(std::size_t element_bytes, bool vectorized, std::int64_t n) {
  return element_bytes == 2 && vectorized && (n == 1 || n == 2);
}

// The short-k threshold's figures (rule 2): an H100's measured copy bandwidth (2.98 TB/s), its
// CUDA-core FMA rate (132 SMs x 128 f32 FMAs a clock x 1.98 GHz; f64 half of it) and the
// fraction of it the kernel is taken to reach.
inline constexpr double kShortKCopyBytesPerSecond = 3.0e12;
inline constexpr double kCudaCoreF32FmaPerSecond = 132.0 * 128 * 1.98e9;
inline constexpr double kCudaCoreF64FmaPerSecond = kCudaCoreF32FmaPerSecond / 2;
// The CUDA cores' FMA rate for elements of `element_bytes`: f64's lanes, or f32's (16-bit
// elements are widened to f32).
constexpr double cuda_core_fma_per_second(std::size_t element_bytes) {
  return element_bytes == 8 ? kCudaCoreF64FmaPerSecond : kCudaCoreF32FmaPerSecond;
}
inline constexpr double kShortKFmaFraction = 0.75;
// 16-bit elements: about the kernel's marginal rate measured on an H100 (its f16 time at
// 4096 x 4096 rose from 14.7 us at k = 1 to 30.2 us at 13 and 33.6 us at 16: 1.2-1.3 us per
// unit of k, 13-14 TFMA/s, 0.40-0.42 of the f32 lanes' peak; every element of a step is
// widened from 16 bits). The rule text's FMA time uses it.
inline constexpr double kShortKSixteenBitFmaFraction = 0.42;
constexpr double short_k_fma_fraction(std::size_t element_bytes) {
  return element_bytes == 2 ? kShortKSixteenBitFmaFraction : kShortKFmaFraction;
}
// 16-bit k below one 16-deep step of the tensor cores runs the short-k kernel, although at the
// measured rate its FMAs outgrow the write of 2-byte C from k = 9: below 16 the wgmma tiles pad
// k to their 64-deep stage, after a padding copy of A where k is not a multiple of 8, and
// their 128 x 256 tiles leave a narrow C's SMs idle. Measured on an H100, cuBLAS time over
// cuda time: k = 13 on the short-k kernel 0.71-1.31x (12527 x 257, 649 x 5382, 4096 x 4096),
// on the wgmma tiles 0.30-1.41x; k = 16 on the wgmma tiles 1.07-1.24x (4096 and 8192
// squares), on the short-k kernel 0.50-0.83x.
inline constexpr int kSixteenBitShortKMaxDepth = 15;
// The short-k kernel's block (kernels/gemm_short_k.cuh holds it too): 256 threads of 32 sums,
// rows of 16 bytes of C a thread; columns of threads across a block, powers of two from
// 32 / (elements in 16 bytes) (a block 32 columns wide) to 32.
inline constexpr int kShortKThreads = 256;
inline constexpr int kShortKMaxColumnThreads = 32;
// The rows of C a thread of the short-k kernel computes for an element of `element_bytes`.
constexpr int short_k_thread_rows(std::size_t element_bytes) { return element_bytes == 2 ? 4 : 8; }

// The deepest k the short-k kernel takes for elements of `element_bytes` (rule 2): 15 for f16
// and bf16 (below one tensor-core step, kSixteenBitShortKMaxDepth), 33 for f32 and for f64 (8
// bytes, at half the FMA rate). The cast rounds the positive quotient down.
constexpr int short_k_max_depth(std::size_t element_bytes) {
  if (element_bytes == 2) return kSixteenBitShortKMaxDepth;
  return static_cast<int>(kShortKFmaFraction * cuda_core_fma_per_second(element_bytes) *
                          static_cast<double>(element_bytes) / kShortKCopyBytesPerSecond);
}
static_assert(short_k_max_depth(2) == 15 && short_k_max_depth(4) == 33 && short_k_max_depth(8) == 33,
              "the thresholds rule 2 states");
int short_k_max_depth(DType dtype);

// Throws std::invalid_argument for a non-positive dimension or a device without SMs, and
// std::runtime_error where no kernel of the dtype runs on the device (f16/bf16 without
// mma.sync).
GemmPlan plan_gemm(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, const GemmDevice& device);

}  // namespace gpb
