#include "gpu_backend/device.cuh"

#include <stdexcept>
#include <string>

#include "gpu_backend/cuda_check.cuh"

namespace gpb::cuda {

namespace {

// What is missing, from what cudaGetDeviceCount returned and the versions of the driver
// (0: none installed) and of this build's runtime. Without libcuda.so.1 the runtime answers
// "driver version is insufficient"; the driver version tells the two apart.
std::string unavailability_reason(cudaError_t status, int driver_version, int runtime_version) {
  if (driver_version <= 0) return "no NVIDIA driver (libcuda.so.1 is not installed)";
  const std::string driver = "CUDA " + cuda_version_text(driver_version);
  if (status == cudaErrorInsufficientDriver || driver_version < runtime_version)
    return "the NVIDIA driver is too old: it supports " + driver + ", this build needs CUDA " +
           cuda_version_text(runtime_version);
  if (status == cudaSuccess || status == cudaErrorNoDevice)
    return "no CUDA device (the NVIDIA driver, " + driver + ", sees no GPU)";
  return std::string("no usable CUDA device: ") + cudaGetErrorString(status) + " (NVIDIA driver " + driver + ")";
}

}  // namespace

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

Availability device_availability() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return {};
  static_cast<void>(cudaGetLastError());
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  static_cast<void>(cudaGetLastError());
  return {false, unavailability_reason(status, driver, runtime)};
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
