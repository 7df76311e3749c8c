#include "gpu_backend/gpu_telemetry.cuh"

#include <cuda_runtime_api.h>

#include <string>

#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/nvml.hpp"

namespace gpb::cuda {
namespace {

// NVML's handle for CUDA device `ordinal`; nullopt, with the reason in `why`, without one.
std::optional<nvml::Device> nvml_device(int ordinal, std::string& why) {
  const nvml::Library& library = nvml::Library::instance();
  if (!library.available()) {
    why = library.reason();
    return std::nullopt;
  }
  char bus_id[32] = {};  // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
  GPB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal));
  return library.device_by_pci_bus_id(bus_id, why);
}

template <class T>
double or_not_reported(const std::optional<T>& value) {
  return value ? static_cast<double>(*value) : kNotReported;
}

class NvmlTelemetrySource final : public TelemetrySource {
 public:
  explicit NvmlTelemetrySource(nvml::Device device) : library_(nvml::Library::instance()), device_(device) {}

  TelemetryReading read() override {
    TelemetryReading reading;
    reading.sm_clock_mhz = or_not_reported(library_.clock_mhz(device_, nvml::ClockType::sm));
    reading.mem_clock_mhz = or_not_reported(library_.clock_mhz(device_, nvml::ClockType::mem));
    reading.power_w = or_not_reported(library_.power_w(device_));
    reading.instant_power_w = or_not_reported(library_.instant_power_w(device_));
    reading.temperature_c = or_not_reported(library_.temperature_c(device_));
    if (const auto reasons = library_.clock_event_reasons(device_)) reading.clock_events = *reasons;
    return reading;
  }

  std::optional<double> energy_j() override { return library_.total_energy_j(device_); }

  double max_sm_clock_mhz() override { return or_not_reported(library_.max_clock_mhz(device_, nvml::ClockType::sm)); }

 private:
  const nvml::Library& library_;
  nvml::Device device_;
};

class NvmlEnergyCounter final : public EnergyCounter {
 public:
  NvmlEnergyCounter(nvml::Device device, std::string bus_id)
      : library_(nvml::Library::instance()), device_(device), bus_id_(std::move(bus_id)) {}
  std::string name() const override { return "nvml_total_energy"; }
  std::string key() const override { return "nvml:" + bus_id_; }
  std::optional<double> read_j() override { return library_.total_energy_j(device_); }
  double resolution_j() const override { return 1e-3; }

 private:
  const nvml::Library& library_;
  nvml::Device device_;
  std::string bus_id_;
};

}  // namespace

EnergySource make_nvml_energy_source(int ordinal) {
  EnergySource source;
  const auto device = nvml_device(ordinal, source.reason);
  if (!device) {
    source.reason = "no GPU energy counter: " + source.reason;
    return source;
  }
  if (!nvml::Library::instance().total_energy_j(*device)) {
    source.reason = "no GPU energy counter: NVML does not report nvmlDeviceGetTotalEnergyConsumption for this GPU";
    return source;
  }
  char bus_id[32] = {};  // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
  GPB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal));
  source.counter = std::make_unique<NvmlEnergyCounter>(*device, bus_id);
  return source;
}

std::unique_ptr<TelemetrySource> make_nvml_telemetry_source(int ordinal) {
  std::string why;
  const auto device = nvml_device(ordinal, why);
  if (!device) return nullptr;
  return std::make_unique<NvmlTelemetrySource>(*device);
}

GpuManagement read_gpu_management(int ordinal) {
  GpuManagement management;
  const auto device = nvml_device(ordinal, management.reason);
  if (!device) return management;
  const nvml::Library& library = nvml::Library::instance();
  management.available = true;
  management.persistence_mode = library.persistence_mode(*device);
  const auto target = library.clock_mhz(*device, nvml::ClockType::sm, nvml::ClockId::applications_target);
  const auto default_target = library.clock_mhz(*device, nvml::ClockType::sm, nvml::ClockId::applications_default);
  if (target && default_target) management.applications_clocks_set = *target != *default_target;
  if (const auto reasons = library.clock_event_reasons(*device))
    management.clock_limit_active = (*reasons & clock_event::applications_clocks_setting) != 0;
  management.power_limit_w = or_not_reported(library.power_limit_w(*device));
  management.max_sm_clock_mhz = or_not_reported(library.max_clock_mhz(*device, nvml::ClockType::sm));
  management.max_mem_clock_mhz = or_not_reported(library.max_clock_mhz(*device, nvml::ClockType::mem));
  management.ecc_enabled = library.ecc_enabled(*device);
  management.mig_enabled = library.mig_enabled(*device);
  management.energy_counter = library.total_energy_j(*device).has_value();
  return management;
}

}  // namespace gpb::cuda
