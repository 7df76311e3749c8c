// The 16-bit mma.sync step the tensor-core kernels share (gemm_mma.cu, gemm_narrow.cu):
// d (16 x 8, f32) += a (16 x 16) * b (16 x 8), m16n8k16, row-major A and column-major B
// fragments as the PTX ISA lays them out (sm_80 and newer), and ldmatrix, which reads them
// from shared memory.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gpb::kernels {

// The step per element type, and the rounding of two accumulators to a pair of T.
template <class T>
struct MmaOps;
template <>
struct MmaOps<__half> {
  using Pair = __half2;
  __device__ static void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
  __device__ static Pair round(float low, float high) { return __floats2half2_rn(low, high); }
};
template <>
struct MmaOps<__nv_bfloat16> {
  using Pair = __nv_bfloat162;
  __device__ static void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
  __device__ static Pair round(float low, float high) { return __floats2bfloat162_rn(low, high); }
};

// Four 8 x 8 matrices of 16-bit elements from shared memory, row addresses from lanes 8q ..
// 8q + 7 for matrix q; the "memory" clobber keeps the loads after the barrier that
// publishes the stage.
__device__ __forceinline__ void load_matrices(unsigned (&fragment)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(fragment[0]), "=r"(fragment[1]), "=r"(fragment[2]), "=r"(fragment[3])
               : "r"(address)
               : "memory");
}
__device__ __forceinline__ void load_matrices_transposed(unsigned (&fragment)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(fragment[0]), "=r"(fragment[1]), "=r"(fragment[2]), "=r"(fragment[3])
               : "r"(address)
               : "memory");
}


}  // namespace gpb::kernels
