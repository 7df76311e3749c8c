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
};

inline constexpr GpuBackendEntry kGpuBackends[] = {
    {GpuBackendKind::cuda, "cuda",
     "gpubench's own CUDA kernels: vectorised elementwise, one-launch reduction, tiled GEMM, CSR "
     "vector/scalar/merge-path SpMV",
     true},
    {GpuBackendKind::cublas, "cublas", "cuBLAS GEMM (cublasGemmEx; TF32 tensor cores with --tf32)", false},
    {GpuBackendKind::cub, "cub",
     "CUB device-wide primitives: DeviceTransform, DeviceReduce::Sum, DeviceSegmentedReduce for CSR SpMV", false},
    {GpuBackendKind::cusparse, "cusparse", "cuSPARSE generic SpMV (CSR, 32-bit indices, CSR_ALG1)", false},
};

// Whether the backend of this name runs the SpMV kernel --spmv-kernel forces.
inline bool takes_spmv_kernel(const std::string& backend) {
  for (const GpuBackendEntry& entry : kGpuBackends)
    if (entry.takes_spmv_kernel && backend == entry.name) return true;
  return false;
}

}  // namespace gpb
