#include "gpu_backend/cuda_check.cuh"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace gpb::cuda {
namespace {

std::string where(const char* call, const char* file, int line) {
  return std::string(call) + " at " + file + ":" + std::to_string(line);
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // A failed runtime call also sets the thread's last error; reset it so the next
  // launch check does not report this failure a second time (sticky errors stay).
  static_cast<void>(cudaGetLastError());
  if (status == cudaErrorMemoryAllocation)
    throw std::runtime_error("out of device memory: " + where(call, file, line));
  throw std::runtime_error("CUDA error " + std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) +
                           ") in " + where(call, file, line));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_ALLOC_FAILED)
    throw std::runtime_error("out of device memory (cuBLAS workspace): " + where(call, file, line));
  throw std::runtime_error("cuBLAS error " + std::string(cublasGetStatusName(status)) + " (" +
                           cublasGetStatusString(status) + ") in " + where(call, file, line));
}

void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) {
  if (status == CUSPARSE_STATUS_ALLOC_FAILED)
    throw std::runtime_error("out of device memory (cuSPARSE): " + where(call, file, line));
  throw std::runtime_error("cuSPARSE error " + std::string(cusparseGetErrorName(status)) + " (" +
                           cusparseGetErrorString(status) + ") in " + where(call, file, line));
}

void report_cuda_error(cudaError_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: CUDA error %s (%s) in %s at %s:%d\n", cudaGetErrorName(status),
               cudaGetErrorString(status), call, file, line);
}

void report_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: cuBLAS error %s in %s at %s:%d\n", cublasGetStatusName(status), call, file, line);
}

void report_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: cuSPARSE error %s in %s at %s:%d\n", cusparseGetErrorName(status), call, file, line);
}

}  // namespace gpb::cuda
