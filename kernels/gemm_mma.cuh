// Dense C = A * B (row-major) for 16-bit elements on tensor cores through PTX mma.sync
// (sm_80 and newer), for rows of whole 16-byte chunks; design notes in gemm_mma.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/gemm_operands.cuh"

namespace gpb::kernels {

struct MmaGemmTile {
  static constexpr int kBlockM = 128;  // rows of C per block
  static constexpr int kBlockN = 256;  // columns of C per block
  static constexpr int kBlockK = 32;   // depth of one shared-memory stage
  static constexpr int kStages = 4;    // shared-memory stages in flight (cp.async pipeline)
  static constexpr int kWarpsM = 2;    // warps along the rows of a block tile
  static constexpr int kWarpsN = 4;    // and along its columns
  static constexpr int kWarpM = kBlockM / kWarpsM;  // 64 rows of C per warp
  static constexpr int kWarpN = kBlockN / kWarpsN;  // 64 columns of C per warp
  static constexpr int kMmaM = 16;                  // the mma.sync shape: m16n8k16
  static constexpr int kMmaN = 8;
  static constexpr int kMmaK = 16;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  // Dynamic shared memory per block: kStages slices of A (kBlockM x kBlockK) and B
  // (kBlockK x kBlockN) of 16-bit elements, unpadded (the layout is swizzled); 96 KiB.
  static constexpr std::size_t kSharedBytes = 2 * kStages * (kBlockM * kBlockK + kBlockK * kBlockN);
};

// Lets the kernels use the dynamic shared memory their stages need (more than the default
// 48 KiB) on the current device: once per device, before the first launch_gemm_mma there.
void configure_gemm_mma();

// The product of `operands` (gemm_operands.cuh) for T = __half or __nv_bfloat16: products
// and sums in f32 on the tensor cores. Any m >= 1; all global accesses are 16-byte copies
// and stores, and split k's partials 8-byte stores. Needs a device of compute capability 8.0
// or newer that allows kSharedBytes of shared memory per block: the caller checks (below
// sm_80 the kernel traps).
template <class T>
void launch_gemm_mma(const GemmOperands<T>& operands, cudaStream_t stream);

}  // namespace gpb::kernels
