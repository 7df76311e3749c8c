// What the 16-bit tensor-core GEMM kernels (gemm_mma.cu, gemm_wgmma.cu) take.
#pragma once

namespace gpb::kernels {

// C (m x n) = A (m x k) B (k x n), row-major with leading dimensions lda and ldb in elements,
// multiples of 8 so that every row of A and B is whole 16-byte chunks (the host pads other
// shapes into such copies: gemm_padding.cuh; A's padding past k holds zeros, and n is then
// B's padded width). C's own width c_columns (at most n) and leading dimension ldc may be
// anything: where both are multiples of 8, C is stored in 16-byte chunks, else element by
// element. With parts > 1, k is split into parts of split_k (a multiple of the kernel's stage
// depth; the last may be shorter) and part p writes its f32 sums, unrounded, to partials +
// p * m * n (m x n, leading dimension n) for launch_add_partials; with one part the kernel
// writes C, rounded once to T, and split_k is at least k.
template <class T>
struct GemmOperands {
  int m = 0;
  int n = 0;
  int k = 0;
  int lda = 0;
  int ldb = 0;
  int ldc = 0;
  int c_columns = 0;
  const T* a = nullptr;
  const T* b = nullptr;
  T* c = nullptr;
  int parts = 1;
  int split_k = 0;
  float* partials = nullptr;
};

}  // namespace gpb::kernels
