// The GPU side of the dtype table (src/model/dtype_table.hpp), which src/ cannot hold because it
// includes no CUDA header: for each host element type, the enums cuBLAS and cuSPARSE take for
// it and the device type kernels/ computes on. A new dtype adds its row here; the check below
// names a missing one.
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <library_types.h>

#include <type_traits>

#include "model/dtype_table.hpp"

namespace gpb::cuda {

// data_type: the matrices' and vectors' elements; cublas_compute_type and
// cusparse_compute_type: what the libraries accumulate in (the dtype table's accumulation
// type); Scalar: the type of alpha and beta, which follows the compute type; Device: the
// element type kernels/ takes (the 16-bit formats' bits, src/base/half_float.hpp, read as the CUDA
// types, which hold the same bits).
template <cudaDataType_t Data, cublasComputeType_t CublasCompute, cudaDataType_t CusparseCompute, class ScalarType,
          class DeviceElement>
struct CudaTypeRow {
  static constexpr cudaDataType_t data_type = Data;
  static constexpr cublasComputeType_t cublas_compute_type = CublasCompute;
  static constexpr cudaDataType_t cusparse_compute_type = CusparseCompute;
  using Scalar = ScalarType;
  using Device = DeviceElement;
};

template <class T>
struct CudaTypes;
template <>
struct CudaTypes<float> : CudaTypeRow<CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, float, float> {};
template <>
struct CudaTypes<double> : CudaTypeRow<CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, double, double> {};
// f32 accumulation: cublasGemmEx on tensor cores, and cusparseSpMV's mixed-precision CSR case
// (A, x and y in 16 bits, computeType CUDA_R_32F).
template <>
struct CudaTypes<Float16> : CudaTypeRow<CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, float, __half> {};
template <>
struct CudaTypes<BFloat16> : CudaTypeRow<CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, float, __nv_bfloat16> {};

template <class T>
using DeviceType = typename CudaTypes<T>::Device;

// Whether T is a storage format that is computed in its wider accumulation type (f16, bf16).
template <class T>
inline constexpr bool kComputedWider = !std::is_same_v<Accumulation<T>, T>;

template <class... T>
constexpr bool every_type_has_cuda_types(TypeList<T...>) {
  return ((sizeof(CudaTypes<T>) > 0 && sizeof(DeviceType<T>) == sizeof(T)) && ...);
}
static_assert(every_type_has_cuda_types(HostElementTypes{}), "every dtype of src/model/dtype_table.hpp needs its CudaTypes");

}  // namespace gpb::cuda
