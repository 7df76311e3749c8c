// The GPU side of the dtype table (src/dtype_table.hpp), which src/ cannot hold because it
// includes no CUDA header: for each host element type, the enums cuBLAS and cuSPARSE take for
// it. A new dtype adds its row here; the check below names a missing one.
#pragma once

#include <cublas_v2.h>
#include <library_types.h>

#include "dtype_table.hpp"

namespace gpb::cuda {

// data_type: the matrices' and vectors' elements; cublas_compute_type and
// cusparse_compute_type: what the libraries accumulate in (the dtype table's accumulation
// type); Scalar: the type of alpha and beta, which follows the compute type.
template <cudaDataType_t Data, cublasComputeType_t CublasCompute, cudaDataType_t CusparseCompute, class ScalarType>
struct CudaTypeRow {
  static constexpr cudaDataType_t data_type = Data;
  static constexpr cublasComputeType_t cublas_compute_type = CublasCompute;
  static constexpr cudaDataType_t cusparse_compute_type = CusparseCompute;
  using Scalar = ScalarType;
};

template <class T>
struct CudaTypes;
template <>
struct CudaTypes<float> : CudaTypeRow<CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, float> {};
template <>
struct CudaTypes<double> : CudaTypeRow<CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, double> {};

template <class... T>
constexpr bool every_type_has_cuda_types(TypeList<T...>) {
  return ((sizeof(CudaTypes<T>) > 0) && ...);
}
static_assert(every_type_has_cuda_types(HostElementTypes{}), "every dtype of src/dtype_table.hpp needs its CudaTypes");

}  // namespace gpb::cuda
