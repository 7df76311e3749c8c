// The GPU backends, listed once: gpu_backend/ builds each of them, and a build without the
// CUDA toolkit lists each as unavailable (gpu_unavailable.cpp), so `list`, plans and
// reports name the same backends in either build.
#pragma once

#include <string>

namespace gpb {

enum class GpuBackendKind { cuda, cublas, cub, cusparse };

struct GpuBackendEntry {
  GpuBackendKind kind;
  const char* name;
  const char* description;
  // Runs the SpMV kernel that --spmv-kernel forces (CaseSpec::spmv_kernel); other
  // backends choose their own algorithm and ignore it.
  bool takes_spmv_kernel;
  // Runs f32 matmul on TF32 tensor cores when --tf32 asks (CaseSpec::tf32): only such cases
  // carry the tag and are held to the TF32 peak. gpubench's own GEMM has no TF32 path.
  bool takes_tf32;
};

inline constexpr GpuBackendEntry kGpuBackends[] = {
    {GpuBackendKind::cuda, "cuda",
     "gpubench's own CUDA kernels: vectorised elementwise, one-launch reduction, tiled GEMM (f32 on the "
     "CUDA cores; f64 on the FP64 tensor cores, DMMA, from sm_80; f16/bf16 on the tensor cores with f32 "
     "accumulation: wgmma with TMA on sm_90, mma.sync from sm_80, WMMA otherwise), CSR "
     "vector/scalar/merge-path SpMV; f16/bf16 elementwise ops computed in f32",
     true, false},
    {GpuBackendKind::cublas, "cublas", "cuBLAS GEMM (cublasGemmEx; TF32 tensor cores with --tf32)", false, true},
    {GpuBackendKind::cub, "cub",
     "CUB device-wide primitives: DeviceTransform, DeviceReduce::Sum, DeviceSegmentedReduce for CSR SpMV", false, false},
    {GpuBackendKind::cusparse, "cusparse", "cuSPARSE generic SpMV (CSR, 32-bit indices, CSR_ALG1)", false, false},
};

// Whether the backend of this name runs the SpMV kernel --spmv-kernel forces.
inline bool takes_spmv_kernel(const std::string& backend) {
  for (const GpuBackendEntry& entry : kGpuBackends)
    if (entry.takes_spmv_kernel && backend == entry.name) return true;
  return false;
}

// Whether the backend of this name has an L2 cache that --l2 flushes or keeps warm: every GPU
// backend (their cases flush through GpuPrepared); the CPU backends have no L2 mode.
inline bool has_l2_mode(const std::string& backend) {
  for (const GpuBackendEntry& entry : kGpuBackends)
    if (backend == entry.name) return true;
  return false;
}

// Whether the backend of this name has a TF32 path for f32 matmul.
inline bool takes_tf32(const std::string& backend) {
  for (const GpuBackendEntry& entry : kGpuBackends)
    if (entry.takes_tf32 && backend == entry.name) return true;
  return false;
}

}  // namespace gpb
