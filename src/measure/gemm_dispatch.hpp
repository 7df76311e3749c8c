// How the cuda backend runs one matmul, C (m x n) = A (m x k) B (k x n): which kernel, which
// tile, into how many parts k is split, and which operands are first copied into padded
// buffers, chosen from the shape, the dtype and a few facts of the device. No CUDA here, so
// that the rule is tested on any machine (tests/unit/test_gemm_dispatch.cpp);
// gpu_backend/cuda_gemm.cu gathers the facts, runs the plan and puts its rule in the case's
// details.
//
// The rule, in order:
//   1. Matrix-vector shapes (matmul_is_matrix_vector: m or n at most 16) are memory-bound:
//      n <= 16 streams A's rows (matrix_vector), else m <= 16 streams B's rows (vector_matrix).
//      f16 and bf16 only up to 4: the kernels sum in f32 on the CUDA cores, and an H100
//      streaming 2-byte elements at its copy rate brings each SM 5.7 of them per clock, so 16
//      sums per element need 91 of its 128 FMAs per clock (measured: 0.37-0.43x cuBLAS at 16);
//      wider 16-bit ones run the tensor-core tiles of step 2, padding rows of C with zeros.
//   2. Otherwise the dtype's tiled kernel: f16/bf16 on wgmma (sm_90a) or mma.sync, f64 on
//      the FP64 tensor cores (DMMA) or the SIMT kernel, f32 on the SIMT kernel (its 64 x 64
//      tile where 128 x 128 tiles would number fewer than the SMs).
//   3. Enough independent work for every SM? When the output pieces (tiles, or a matrix-vector
//      kernel's row or column blocks) are fewer than the SMs (matrix-vector kernels: than their
//      blocks in flight), k may be split: each part's blocks write a partial of C to a
//      workspace, and a second kernel adds the partials in part order (the same bits on every
//      run). The matrix-vector kernels split into as many parts as fit one wave of blocks in
//      flight. The tiled kernels price each count of parts up to one wave (the steps of k a
//      block walks at its kernel's rate per SM, against a second launch and the partials
//      written and read) and take the cheapest, unsplit on a tie: a long k splits into many
//      parts, a short k over a few dozen tiles stays whole (its partials would cost more than
//      the steps they save).
//   4. The 16-bit tensor-core kernels read whole 16-byte chunks of rows: where k or n is not a
//      multiple of 8, A (k) or B (n) goes through a copy padded to a multiple of 8 (with zeros),
//      made inside the timed op; C is then stored element by element.
#pragma once

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
  // are compiled for, 1, 2, 4, 8 or 16 (f16, bf16: 1, 2 or 4), at least m or n.
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
// of columns, all m (up to 16) rows of A, and k's parts in multiples of 8 rows per warp;
// matrix_vector takes 32 rows of A (4 a warp) and walks k in tiles of B of 512 rows (256
// for f64's 8-byte sums), the multiple k's parts are made of.
inline constexpr GemmTile kSimtGemmTile{128, 128, 8};
inline constexpr GemmTile kSimtSmallGemmTile{64, 64, 16};
inline constexpr GemmTile kDmmaGemmTile{128, 128, 32};        // m16n8k16
inline constexpr GemmTile kDmmaShallowGemmTile{128, 128, 16};  // m8n8k4
inline constexpr GemmTile kWgmmaGemmTile{128, 256, 64};
inline constexpr GemmTile kMmaSyncGemmTile{128, 256, 32};
inline constexpr int kGemvWarps = 8;
inline constexpr int kVectorMatrixMaxRows = 16;
// The widest matrix-vector shape f16 and bf16 run on the matrix-vector kernels (rule 1).
inline constexpr int kSixteenBitVectorMaxSide = 4;
inline constexpr int kMatrixVectorRows = 4 * kGemvWarps;
inline constexpr int kMatrixVectorTileK = 512;
inline constexpr int kMatrixVectorWideTileK = 256;

// Throws std::invalid_argument for a non-positive dimension or a device without SMs, and
// std::runtime_error where no kernel of the dtype runs on the device (f16/bf16 without
// mma.sync).
GemmPlan plan_gemm(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, const GemmDevice& device);

}  // namespace gpb
