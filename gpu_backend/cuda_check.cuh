// Error checks for cuBLAS and cuSPARSE calls, made like the CUDA runtime checks they sit
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

#define GPB_CUBLAS_CHECK(call) \
  GPB_CHECK_STATUS(cublasStatus_t, CUBLAS_STATUS_SUCCESS, ::gpb::cuda::throw_cublas_error, call, #call)
#define GPB_CUSPARSE_CHECK(call) \
  GPB_CHECK_STATUS(cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, ::gpb::cuda::throw_cusparse_error, call, #call)
#define GPB_CUBLAS_CHECK_NOTHROW(call) \
  GPB_CHECK_STATUS(cublasStatus_t, CUBLAS_STATUS_SUCCESS, ::gpb::cuda::report_cublas_error, call, #call)
#define GPB_CUSPARSE_CHECK_NOTHROW(call) \
  GPB_CHECK_STATUS(cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, ::gpb::cuda::report_cusparse_error, call, #call)
