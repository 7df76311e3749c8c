#include "kernels/launch_check.cuh"

#include <cstdio>
#include <stdexcept>

namespace gpb::kernels {

std::string call_site(const char* call, const char* file, int line) {
  return std::string(call) + " at " + file + ":" + std::to_string(line);
}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // A failed runtime call also sets the thread's last error; reset it so the next
  // launch check does not report this failure a second time (sticky errors stay).
  static_cast<void>(cudaGetLastError());
  if (status == cudaErrorMemoryAllocation)
    throw std::runtime_error("out of device memory: " + call_site(call, file, line));
  throw std::runtime_error("CUDA error " + std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) +
                           ") in " + call_site(call, file, line));
}

void report_cuda_error(cudaError_t status, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "gpubench: CUDA error %s (%s) in %s at %s:%d\n", cudaGetErrorName(status),
               cudaGetErrorString(status), call, file, line);
}

}  // namespace gpb::kernels
