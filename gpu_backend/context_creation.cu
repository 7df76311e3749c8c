// The CUDA context's creation, timed as the process's first calls that create it, and the
// driver's module loading mode. The driver API is reached through the runtime's entry-point
// lookup rather than linked, so that the program still starts without libcuda.so.1.
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/device.cuh"
#include "measure/one_time_costs.hpp"

namespace gpb {
namespace {

// The driver function of that name, at the CUDA 12.0 ABI; nullptr where the driver lacks it.
template <class Function>
Function* driver_function(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    static_cast<void>(cudaGetLastError());
    return nullptr;
  }
  return reinterpret_cast<Function*>(function);
}

// Whether the primary context of `ordinal` is active; nullopt where the driver cannot say.
std::optional<bool> primary_context_active(int ordinal) {
  using DeviceGet = CUresult(CUdevice*, int);
  using ContextState = CUresult(CUdevice, unsigned int*, int*);
  auto* device_get = driver_function<DeviceGet>("cuDeviceGet");
  auto* context_state = driver_function<ContextState>("cuDevicePrimaryCtxGetState");
  if (!device_get || !context_state) return std::nullopt;
  CUdevice device = 0;
  unsigned int flags = 0;
  int active = 0;
  if (device_get(&device, ordinal) != CUDA_SUCCESS || context_state(device, &flags, &active) != CUDA_SUCCESS)
    return std::nullopt;
  return active != 0;
}

// "lazy" or "eager"; "" where the driver cannot say.
std::string module_loading_mode() {
  using LoadingMode = CUresult(CUmoduleLoadingMode*);
  auto* loading_mode = driver_function<LoadingMode>("cuModuleGetLoadingMode");
  CUmoduleLoadingMode mode = CU_MODULE_EAGER_LOADING;
  if (!loading_mode || loading_mode(&mode) != CUDA_SUCCESS) return "";
  return mode == CU_MODULE_LAZY_LOADING ? "lazy" : "eager";
}

}  // namespace

OneTimeCosts measure_context_creation(int device) {
  OneTimeCosts costs;
  costs.device = device;
  if (const char* env = std::getenv("CUDA_MODULE_LOADING")) costs.module_loading_env = env;
  const Availability availability = cuda::device_availability();
  if (!availability.available) {
    costs.context_note = "not measured: " + availability.reason;
    return costs;
  }
  const std::string name = "device " + std::to_string(device);
  const std::optional<bool> active = primary_context_active(device);
  if (active && *active) {
    costs.context_note = "not measured: the primary context of " + name + " existed before the run measured it";
  } else {
    const auto start = std::chrono::steady_clock::now();
    cuda::select_device(device);
    GPB_CUDA_CHECK(cudaFree(nullptr));
    costs.context_creation_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    costs.context_note = "cudaSetDevice(" + std::to_string(device) + ") + cudaFree(0), the first calls that create " + name +
                         "'s primary context";
    if (!active)
      costs.context_note += "; the driver could not say whether it existed before (if it did, this is the calls alone)";
  }
  costs.module_loading = module_loading_mode();
  return costs;
}

}  // namespace gpb
