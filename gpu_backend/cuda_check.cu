#include "gpu_backend/cuda_check.cuh"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace gpb::cuda {

using kernels::call_site;

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_ALLOC_FAILED)
    throw std::runtime_error("out of device memory (cuBLAS workspace): " + call_site(call, file, line));
  throw std::runtime_error("cuBLAS error " + std::string(cublasGetStatusName(status)) + " (" +
                           cublasGetStatusString(status) + ") in " + call_site(call, file, line));
}

void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) {
  if (status == CUSPARSE_STATUS_ALLOC_FAILED)
    throw std::runtime_error("out of device memory (cuSPARSE): " + call_site(call, file, line));
  throw std::runtime_error("cuSPARSE error " + std::string(cusparseGetErrorName(status)) + " (" +
                           cusparseGetErrorString(status) + ") in " + call_site(call, file, line));
}

void report_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: cuBLAS error %s in %s at %s:%d\n", cublasGetStatusName(status), call, file, line);
}

void report_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: cuSPARSE error %s in %s at %s:%d\n", cusparseGetErrorName(status), call, file, line);
}

}  // namespace gpb::cuda
