// The GPU side of the dtype table (src/dtype_table.hpp), which src/ cannot hold because it
// includes no CUDA header: for each host element type, the enums cuBLAS and cuSPARSE take for
// it. A new dtype adds its specialisation here; the check below names a missing one.
#pragma once

#include <cublas_v2.h>
#include <library_types.h>

#include "dtype_table.hpp"

namespace gpb::cuda {

template <class T>
struct CudaTypes;

// data_type: the matrices' and vectors' elements; cublas_compute_type and
// cusparse_compute_type: what the libraries accumulate in (the dtype table's accumulation
// type); Scalar: the type of alpha and beta, which follows the compute type.
template <>
struct CudaTypes<float> {
  static constexpr cudaDataType_t data_type = CUDA_R_32F;
  static constexpr cublasComputeType_t cublas_compute_type = CUBLAS_COMPUTE_32F;
  static constexpr cudaDataType_t cusparse_compute_type = CUDA_R_32F;
  using Scalar = float;
};

template <>
struct CudaTypes<double> {
  static constexpr cudaDataType_t data_type = CUDA_R_64F;
  static constexpr cublasComputeType_t cublas_compute_type = CUBLAS_COMPUTE_64F;
  static constexpr cudaDataType_t cusparse_compute_type = CUDA_R_64F;
  using Scalar = double;
};

template <class... T>
constexpr bool every_type_has_cuda_types(TypeList<T...>) {
  return ((sizeof(CudaTypes<T>) > 0) && ...);
}
static_assert(every_type_has_cuda_types(HostElementTypes{}), "every dtype of src/dtype_table.hpp needs its CudaTypes");

}  // namespace gpb::cuda
