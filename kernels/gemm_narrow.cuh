// The narrow GEMMs: C (m x n) = A (m x k) B (k x n), row-major, n of at most 64, on tensor
// cores (mma.sync m16n8k16: 16-bit elements with f32 sums, or f64). With n that narrow the
// product is bound by streaming A once; design notes in gemm_narrow.cu.
#pragma once

#include <cuda_runtime_api.h>

namespace gpb::kernels {

struct NarrowGemmTile {
  static constexpr int kWarps = 8;  // per block
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kRowsPerWarp = 16;                 // one mma.sync's rows
  static constexpr int kRows = kRowsPerWarp * kWarps;     // rows of A and C per block
  static constexpr int kChunk = 32;                       // depth a warp loads per step: 4 lanes x 8 elements
  static constexpr int kStageK = 256;                     // rows of B a shared-memory stage holds
  static constexpr int kMaxColumns = 64;
  static constexpr int kBlocksPerSm = 2;                  // its launch bounds' minimum
};

// T = __half or __nv_bfloat16. `columns` (8, 16, 32 or 64, at least n) is the width the
// kernel computes. `vectorized`: k a multiple of 8 and A 16-byte aligned, so that A's rows
// are read in 16-byte pieces (element by element otherwise). With parts > 1, k is split into
// parts of split_k (a multiple of kChunk, so that a part starts where a warp's step of A does
// and 16-byte aligned; the last may be shorter, and a part's last stage may be partial) and
// part p writes its f32 sums to partials + p * m * n (m x n) for launch_add_partials; with one part the kernel
// writes C, rounded once to T. Needs compute capability 8.0 or newer (below it the kernel
// traps): the caller checks.
template <class T>
void launch_gemm_narrow(int columns, bool vectorized, int m, int n, int k, const T* a, const T* b, T* c,
                        float* partials, int parts, int split_k, cudaStream_t stream);

// The narrow GEMM for f64 on the FP64 tensor cores (mma.sync m16n8k16 .f64, sm_90 and newer):
// the same streaming of A into registers, B staged transposed per kStageK rows; 8 or 16 columns.
// (It took 32 and 64 too, until the DMMA GEMM's 64 x 64 tile ran ahead of it at every shape
// tried from 17 columns: docs/kernel-notes.md, GEMM version 19.)
struct NarrowF64GemmTile {
  static constexpr int kWarps = 8;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kRowsPerWarp = 16;
  static constexpr int kRows = kRowsPerWarp * kWarps;
  static constexpr int kStep = 16;     // depth of one MMA: a lane loads 4 doubles of each of its two rows
  static constexpr int kStageK = 64;   // rows of B a shared-memory stage holds
  static constexpr int kMaxColumns = 16;
  static constexpr int kBlocksPerSm = 2;  // its launch bounds' minimum
};

// C (m x n) = A (m x k) B (k x n) in f64, n at most `columns` (8 or 16). `vectorized`:
// k even and A 16-byte aligned, so that A's rows are read 16 bytes at a time (element by element
// otherwise). With parts > 1, k is split into parts of split_k (a multiple of kStageK; the last
// may be shorter) and part p writes its product to c + p * m * n, a workspace of partials for
// launch_add_partials; with one part c is C. Needs compute capability 9.0 or newer and code
// compiled for it (below, the kernel traps): the caller checks.
void launch_gemm_narrow_f64(int columns, bool vectorized, int m, int n, int k, const double* a, const double* b,
                            double* c, int parts, int split_k, cudaStream_t stream);

}  // namespace gpb::kernels
