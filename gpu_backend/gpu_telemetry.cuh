// Telemetry of a CUDA device through NVML: the sensors a GPU case reads while it measures,
// and the read-only management state the report's context records. The device is found by
// its PCI bus id, since CUDA ordinals and NVML indices differ (CUDA_VISIBLE_DEVICES, PCI
// order).
#pragma once

#include <memory>

#include "model/energy.hpp"
#include "model/telemetry.hpp"

namespace gpb::cuda {

// nullptr when NVML is unavailable or does not know the device.
std::unique_ptr<TelemetrySource> make_nvml_telemetry_source(int ordinal);

// The device's total-energy counter (nvmlDeviceGetTotalEnergyConsumption, millijoules since
// the driver loaded, Volta on), or why there is none.
EnergySource make_nvml_energy_source(int ordinal);

// available = false with the reason when NVML cannot be read for the device.
GpuManagement read_gpu_management(int ordinal);

}  // namespace gpb::cuda
