#include "gpu_backend/device.cuh"

#include <stdexcept>
#include <string>

#include "gpu_backend/cuda_check.cuh"

namespace gpb::cuda {

Availability device_availability() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    if (status == cudaErrorNoDevice) return {false, "no CUDA device"};
    return {false, std::string("no usable CUDA device: ") + cudaGetErrorString(status)};
  }
  if (count == 0) return {false, "no CUDA device"};
  return {};
}

void select_device(int ordinal) {
  int count = 0;
  GPB_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (ordinal < 0 || ordinal >= count)
    throw std::runtime_error("invalid CUDA device ordinal " + std::to_string(ordinal) + ": this machine has " +
                             std::to_string(count) + " device" + (count == 1 ? "" : "s") +
                             (count > 0 ? " (ordinals 0.." + std::to_string(count - 1) + ")" : ""));
  GPB_CUDA_CHECK(cudaSetDevice(ordinal));
}

DeviceLimits device_limits(int ordinal) {
  DeviceLimits limits;
  limits.ordinal = ordinal;
  int l2_bytes = 0, major = 0, minor = 0, shared_optin = 0;
  GPB_CUDA_CHECK(cudaDeviceGetAttribute(&limits.sm_count, cudaDevAttrMultiProcessorCount, ordinal));
  GPB_CUDA_CHECK(cudaDeviceGetAttribute(&limits.threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, ordinal));
  GPB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, ordinal));
  GPB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal));
  GPB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal));
  GPB_CUDA_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
  limits.l2_bytes = static_cast<std::size_t>(l2_bytes);
  limits.compute_capability = 10 * major + minor;
  limits.shared_bytes_per_block_optin = static_cast<std::size_t>(shared_optin);
  return limits;
}

}  // namespace gpb::cuda
