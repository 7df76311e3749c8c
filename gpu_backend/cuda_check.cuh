// Error checks for cuBLAS and cuSPARSE calls, built like the CUDA runtime checks they sit
// beside (kernels/launch_check.cuh: GPB_CUDA_CHECK, GPB_CUDA_CHECK_NOTHROW, GPB_CHECK_LAUNCH).
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include "kernels/launch_check.cuh"

namespace gpb::cuda {

[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line);
// Print the failure to stderr; for destructors, which must not throw.
void report_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept;
void report_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) noexcept;

}  // namespace gpb::cuda

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
