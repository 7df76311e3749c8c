// Error checks for CUDA runtime calls and kernel launches, after nvbench's: the macro keeps
// the stringified call, file and line, and the throw happens out of line so the check costs
// one compare at the call site. Destructors use the no-throw variant. Only the CUDA runtime:
// kernels/ depends on nothing above it, and gpu_backend/cuda_check.cuh builds on this.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace gpb::kernels {

// "call at file:line", the place a failure message names.
std::string call_site(const char* call, const char* file, int line);

// Throws std::runtime_error ("out of device memory: ..." for cudaErrorMemoryAllocation).
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
// Prints the failure to stderr; for destructors, which must not throw.
void report_cuda_error(cudaError_t status, const char* call, const char* file, int line) noexcept;

}  // namespace gpb::kernels

#define GPB_CUDA_CHECK(call)                                                                 \
  do {                                                                                       \
    const cudaError_t gpb_cuda_status = (call);                                              \
    if (gpb_cuda_status != cudaSuccess)                                                      \
      ::gpb::kernels::throw_cuda_error(gpb_cuda_status, #call, __FILE__, __LINE__);          \
  } while (false)

#define GPB_CUDA_CHECK_NOTHROW(call)                                                         \
  do {                                                                                       \
    const cudaError_t gpb_cuda_status = (call);                                              \
    if (gpb_cuda_status != cudaSuccess)                                                      \
      ::gpb::kernels::report_cuda_error(gpb_cuda_status, #call, __FILE__, __LINE__);         \
  } while (false)

// After every kernel launch: launch-configuration errors surface here, not at the next
// unrelated call.
#define GPB_CHECK_LAUNCH() GPB_CUDA_CHECK(cudaGetLastError())
