// Error checks for CUDA runtime, cuBLAS and cuSPARSE calls, after nvbench's: the macro
// keeps the stringified call, file and line, and the throw happens out of line so the
// check costs one compare at the call site. Destructors use the no-throw variant.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

namespace gpb::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line);
// Print the failure to stderr; for destructors, which must not throw.
void report_cuda_error(cudaError_t status, const char* call, const char* file, int line) noexcept;
void report_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept;
void report_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) noexcept;

}  // namespace gpb::cuda

#define GPB_CUDA_CHECK(call)                                                                 \
  do {                                                                                       \
    const cudaError_t gpb_cuda_status = (call);                                              \
    if (gpb_cuda_status != cudaSuccess)                                                      \
      ::gpb::cuda::throw_cuda_error(gpb_cuda_status, #call, __FILE__, __LINE__);             \
  } while (false)

#define GPB_CUDA_CHECK_NOTHROW(call)                                                         \
  do {                                                                                       \
    const cudaError_t gpb_cuda_status = (call);                                              \
    if (gpb_cuda_status != cudaSuccess)                                                      \
      ::gpb::cuda::report_cuda_error(gpb_cuda_status, #call, __FILE__, __LINE__);            \
  } while (false)

// After every kernel launch: launch-configuration errors surface here, not at the next
// unrelated call.
#define GPB_CHECK_LAUNCH() GPB_CUDA_CHECK(cudaGetLastError())

#define GPB_CUBLAS_CHECK(call)                                                               \
  do {                                                                                       \
    const cublasStatus_t gpb_cublas_status = (call);                                         \
    if (gpb_cublas_status != CUBLAS_STATUS_SUCCESS)                                          \
      ::gpb::cuda::throw_cublas_error(gpb_cublas_status, #call, __FILE__, __LINE__);         \
  } while (false)

#define GPB_CUSPARSE_CHECK(call)                                                             \
  do {                                                                                       \
    const cusparseStatus_t gpb_cusparse_status = (call);                                     \
    if (gpb_cusparse_status != CUSPARSE_STATUS_SUCCESS)                                      \
      ::gpb::cuda::throw_cusparse_error(gpb_cusparse_status, #call, __FILE__, __LINE__);     \
  } while (false)

#define GPB_CUBLAS_CHECK_NOTHROW(call)                                                       \
  do {                                                                                       \
    const cublasStatus_t gpb_cublas_status = (call);                                         \
    if (gpb_cublas_status != CUBLAS_STATUS_SUCCESS)                                          \
      ::gpb::cuda::report_cublas_error(gpb_cublas_status, #call, __FILE__, __LINE__);        \
  } while (false)

#define GPB_CUSPARSE_CHECK_NOTHROW(call)                                                     \
  do {                                                                                       \
    const cusparseStatus_t gpb_cusparse_status = (call);                                     \
    if (gpb_cusparse_status != CUSPARSE_STATUS_SUCCESS)                                      \
      ::gpb::cuda::report_cusparse_error(gpb_cusparse_status, #call, __FILE__, __LINE__);    \
  } while (false)
