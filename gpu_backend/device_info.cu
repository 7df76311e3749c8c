// GPU facts for the report context: every device's properties, and the versions of the
// CUDA libraries this build links.
#include <cuda/version>

#include <cstdio>
#include <string>

#include "measure/context.hpp"
#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/cuda_libraries.hpp"
#include "gpu_backend/device.cuh"
#include "gpu_backend/gpu_telemetry.cuh"

namespace gpb {
namespace {

// The loaded library's own version; where it cannot be loaded, why (its backend is then
// unavailable for the same reason).
template <class GetProperty>
std::string library_version_text(const std::optional<std::string>& load_error, GetProperty get_property) {
  if (load_error) return "not loaded: " + *load_error;
  int major = 0, minor = 0, patch = 0;
  get_property(MAJOR_VERSION, &major);
  get_property(MINOR_VERSION, &minor);
  get_property(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// "GPU-" and the 16 bytes as 8-4-4-4-12 hex digits, as nvidia-smi and NVML print it.
std::string uuid_text(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    text += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) text += '-';
  }
  return text;
}

int attribute(cudaDeviceAttr which, int ordinal) {
  int value = 0;
  GPB_CUDA_CHECK(cudaDeviceGetAttribute(&value, which, ordinal));
  return value;
}

GpuInfo describe_device(int ordinal, const std::string& driver, const std::string& runtime) {
  cudaDeviceProp properties{};
  GPB_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal));
  GpuInfo info;
  info.ordinal = ordinal;
  info.name = properties.name;
  info.compute_capability = std::to_string(properties.major) + "." + std::to_string(properties.minor);
  info.sm_count = attribute(cudaDevAttrMultiProcessorCount, ordinal);
  // cudaDeviceProp's clock fields are gone in CUDA 13; the attributes remain (kHz).
  info.sm_clock_mhz = attribute(cudaDevAttrClockRate, ordinal) / 1e3;
  info.mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, ordinal) / 1e3;
  info.memory_gib = static_cast<double>(properties.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  info.bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  // Double data rate: two transfers per memory clock over the bus width in bytes.
  info.theoretical_bandwidth_gbps = 2.0 * info.mem_clock_mhz * 1e6 * (info.bus_width_bits / 8.0) / 1e9;
  info.l2_mib = attribute(cudaDevAttrL2CacheSize, ordinal) / (1024.0 * 1024.0);
  info.ecc = attribute(cudaDevAttrEccEnabled, ordinal) != 0;
  info.driver_version = driver;
  info.runtime_version = runtime;
  info.uuid = uuid_text(properties.uuid);
  char bus_id[32];
  std::snprintf(bus_id, sizeof bus_id, "%04x:%02x:%02x.0", properties.pciDomainID, properties.pciBusID, properties.pciDeviceID);
  info.pci_bus_id = bus_id;
  info.nvml = cuda::read_gpu_management(ordinal);
  return info;
}

}  // namespace

void append_gpu_context(Context& context) {
  int runtime = 0;
  GPB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const std::string runtime_text = cuda::cuda_version_text(runtime);
  context.libraries["cuda_runtime"] = runtime_text;
  // Loading the libraries here: a run's report names their versions.
  context.libraries["cublas"] =
      library_version_text(cuda::cublas_load_error(), [](libraryPropertyType type, int* value) {
        GPB_CUBLAS_CHECK(cuda::cublas().get_property(type, value));
      });
  context.libraries["cusparse"] =
      library_version_text(cuda::cusparse_load_error(), [](libraryPropertyType type, int* value) {
        GPB_CUSPARSE_CHECK(cuda::cusparse().get_property(type, value));
      });
  context.libraries["cccl"] = std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
                              std::to_string(CCCL_PATCH_VERSION);

  const Availability availability = cuda::device_availability();
  if (!availability.available) {
    context.notes.push_back("GPU backends unavailable: " + availability.reason);
    return;
  }
  int driver = 0;
  GPB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  int count = 0;
  GPB_CUDA_CHECK(cudaGetDeviceCount(&count));
  for (int ordinal = 0; ordinal < count; ++ordinal)
    context.gpus.push_back(describe_device(ordinal, "CUDA " + cuda::cuda_version_text(driver), runtime_text));
}

int visible_gpu_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess) return count;
  static_cast<void>(cudaGetLastError());  // no driver or no device: none visible, and the GPU backends say why
  return 0;
}

}  // namespace gpb
