// What the GPU backends share as backends (their name and description from the one list in
// src/measure/gpu_backend_list.hpp, the device's availability), and their factories; gpu_backends.cu
// builds one of each list entry.
#pragma once

#include <memory>
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
  // A device; the library backends also need their library loaded (cuda_libraries.hpp).
  Availability availability() const override { return device_availability(); }

 private:
  const GpuBackendEntry& entry_;
};

std::unique_ptr<Backend> make_cuda_kernels_backend(const GpuBackendEntry& entry);
std::unique_ptr<Backend> make_cublas_backend(const GpuBackendEntry& entry);
std::unique_ptr<Backend> make_cub_backend(const GpuBackendEntry& entry);
std::unique_ptr<Backend> make_cusparse_backend(const GpuBackendEntry& entry);

}  // namespace gpb::cuda
