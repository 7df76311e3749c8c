// The f64 mma.sync step of sm_90 and newer the FP64 tensor-core kernels share (gemm_dmma.cu,
// gemm_narrow.cu): d (16 x 8) += a (16 x 16) * b (16 x 8), m16n8k16 .f64, row-major A and
// column-major B fragments as the PTX ISA lays them out ("Matrix Fragments for mma.m16n8k16
// with floating point type", .f64 rows; g = lane / 4, t = lane % 4):
//   a_i = A[g + 8 (i % 2)][t + 4 (i / 2)], i = 0..7;  b_i = B[t + 4 i][g], i = 0..3;
//   d_i = D[g + 8 (i / 2)][2 t + i % 2], i = 0..3.
#pragma once

namespace gpb::kernels {

__device__ __forceinline__ void mma_m16n8k16_f64(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // sm_90 and newer only; the callers check the device
#else
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
      "{%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
#endif
}

}  // namespace gpb::kernels
