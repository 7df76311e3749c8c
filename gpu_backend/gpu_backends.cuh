// What the GPU backends share as backends (their name and description from the one list in
// src/measure/gpu_backend_list.hpp, the device's availability), and their factories; gpu_backends.cu
// builds one of each list entry.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "measure/backend.hpp"
#include "gpu_backend/device.cuh"
#include "measure/gpu_backend_list.hpp"

namespace gpb::cuda {

class GpuBackend : public Backend {
 public:
  explicit GpuBackend(const GpuBackendEntry& entry) : entry_(entry) {}
  std::string name() const final { return entry_.name; }
  std::string description() const final { return entry_.description; }
  DeviceKind kind() const final { return DeviceKind::gpu; }
  // A device, and the backend's library where it has one (cuda_libraries.hpp).
  Availability availability() const final {
    const Availability device = device_availability();
    if (!device.available) return device;
    if (const auto error = library_load_error()) return {false, *error};
    return device;
  }

 protected:
  // Why the library the backend calls cannot be loaded (cublas, cusparse); nullopt for none.
  virtual std::optional<std::string> library_load_error() const { return std::nullopt; }

 private:
  const GpuBackendEntry& entry_;
};

std::unique_ptr<Backend> make_cuda_kernels_backend(const GpuBackendEntry& entry);
std::unique_ptr<Backend> make_cublas_backend(const GpuBackendEntry& entry);
std::unique_ptr<Backend> make_cub_backend(const GpuBackendEntry& entry);
std::unique_ptr<Backend> make_cusparse_backend(const GpuBackendEntry& entry);

}  // namespace gpb::cuda
