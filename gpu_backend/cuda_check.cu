#include "gpu_backend/cuda_check.cuh"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "gpu_backend/cuda_libraries.hpp"

namespace gpb::cuda {

using kernels::call_site;

namespace {

// A status's name and description from the library that returned it (loaded by then: the
// status came from a call through it); the number otherwise.
std::string cublas_status_text(cublasStatus_t status) {
  if (!cublas_loaded()) return "status " + std::to_string(static_cast<int>(status));
  return std::string(cublas().status_name(status)) + " (" + cublas().status_string(status) + ")";
}

std::string cusparse_status_text(cusparseStatus_t status) {
  if (!cusparse_loaded()) return "status " + std::to_string(static_cast<int>(status));
  return std::string(cusparse().error_name(status)) + " (" + cusparse().error_string(status) + ")";
}

}  // namespace

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_ALLOC_FAILED)
    throw std::runtime_error("out of device memory (cuBLAS workspace): " + call_site(call, file, line));
  throw std::runtime_error("cuBLAS error " + cublas_status_text(status) + " in " + call_site(call, file, line));
}

void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) {
  if (status == CUSPARSE_STATUS_ALLOC_FAILED)
    throw std::runtime_error("out of device memory (cuSPARSE): " + call_site(call, file, line));
  throw std::runtime_error("cuSPARSE error " + cusparse_status_text(status) + " in " + call_site(call, file, line));
}

void report_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: cuBLAS error %s in %s at %s:%d\n", cublas_status_text(status).c_str(), call, file,
               line);
}

void report_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: cuSPARSE error %s in %s at %s:%d\n", cusparse_status_text(status).c_str(), call,
               file, line);
}

}  // namespace gpb::cuda
