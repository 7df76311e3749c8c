#include "gpu_backend/nvml.hpp"

#include <dlfcn.h>

namespace gpb::nvml {
namespace {

constexpr int kSuccess = 0;              // NVML_SUCCESS
constexpr unsigned kFeatureEnabled = 1;  // NVML_FEATURE_ENABLED (nvmlEnableState_t)
constexpr unsigned kMigEnabled = 1;      // NVML_DEVICE_MIG_ENABLE
constexpr unsigned kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr unsigned kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT, in milliwatts
constexpr unsigned kScopeGpu = 0;             // the GPU alone (not the module, on Grace Hopper)

// A field's value as a number, by nvmlValueType_t; nullopt for a type nvml.h does not define.
std::optional<double> field_number(const FieldValue& field) {
  switch (field.value_type) {
    case 0:
      return field.value.d;
    case 1:
      return field.value.ui;
    case 2:
      return static_cast<double>(field.value.ul);
    case 3:
      return static_cast<double>(field.value.ull);
    case 4:
      return static_cast<double>(field.value.sll);
    case 5:
      return field.value.si;
    case 6:
      return field.value.us;
    default:
      return std::nullopt;
  }
}

// The value an NVML getter writes through its last argument, or nullopt where it fails. The
// call completes before the value is read (as function arguments, the two would be
// evaluated in either order).
template <class T, class Getter>
std::optional<T> read_if_ok(Getter getter) {
  T value{};
  if (getter(&value) != kSuccess) return std::nullopt;
  return value;
}

}  // namespace

template <class Function>
Function* Library::symbol(const char* name) {
  return reinterpret_cast<Function*>(dlsym(handle_, name));
}

Library::Library(const char* soname) {
  handle_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* error = dlerror();
    reason_ = std::string("cannot load ") + soname + (error ? std::string(": ") + error : std::string());
    return;
  }
  init_ = symbol<Status()>("nvmlInit_v2");
  shutdown_ = symbol<Status()>("nvmlShutdown");
  error_string_ = symbol<const char*(Status)>("nvmlErrorString");
  device_by_pci_bus_id_ = symbol<Status(const char*, Device*)>("nvmlDeviceGetHandleByPciBusId_v2");
  if (!init_ || !shutdown_ || !error_string_ || !device_by_pci_bus_id_) {
    reason_ = std::string(soname) + " lacks nvmlInit_v2, nvmlShutdown, nvmlErrorString or nvmlDeviceGetHandleByPciBusId_v2";
    return;
  }
  // Optional entry points: a query whose symbol is missing reads as not reported.
  clock_info_ = symbol<Status(Device, unsigned, unsigned*)>("nvmlDeviceGetClockInfo");
  max_clock_info_ = symbol<Status(Device, unsigned, unsigned*)>("nvmlDeviceGetMaxClockInfo");
  clock_ = symbol<Status(Device, unsigned, unsigned, unsigned*)>("nvmlDeviceGetClock");
  power_usage_ = symbol<Status(Device, unsigned*)>("nvmlDeviceGetPowerUsage");
  field_values_ = symbol<Status(Device, int, FieldValue*)>("nvmlDeviceGetFieldValues");
  enforced_power_limit_ = symbol<Status(Device, unsigned*)>("nvmlDeviceGetEnforcedPowerLimit");
  temperature_ = symbol<Status(Device, unsigned, unsigned*)>("nvmlDeviceGetTemperature");
  // Renamed in driver r535; older drivers have only the "throttle" name.
  clock_event_reasons_ = symbol<Status(Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksEventReasons");
  if (!clock_event_reasons_)
    clock_event_reasons_ = symbol<Status(Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
  total_energy_ = symbol<Status(Device, unsigned long long*)>("nvmlDeviceGetTotalEnergyConsumption");
  persistence_mode_ = symbol<Status(Device, unsigned*)>("nvmlDeviceGetPersistenceMode");
  ecc_mode_ = symbol<Status(Device, unsigned*, unsigned*)>("nvmlDeviceGetEccMode");
  mig_mode_ = symbol<Status(Device, unsigned*, unsigned*)>("nvmlDeviceGetMigMode");

  const Status status = init_();
  if (status != kSuccess) {
    reason_ = "nvmlInit_v2 failed: " + describe(status);
    return;
  }
  initialised_ = true;
}

Library::~Library() {
  if (initialised_) shutdown_();  // a failed shutdown at exit leaves nothing to act on
  if (handle_) dlclose(handle_);
}

Library& Library::instance() {
  static Library library;
  return library;
}

std::string Library::describe(Status status) const {
  const char* text = error_string_ ? error_string_(status) : nullptr;
  return (text ? std::string(text) : std::string("NVML error")) + " (" + std::to_string(status) + ")";
}

std::optional<Device> Library::device_by_pci_bus_id(const std::string& bus_id, std::string& why) const {
  if (!initialised_) {
    why = reason_;
    return std::nullopt;
  }
  Device device = nullptr;
  const Status status = device_by_pci_bus_id_(bus_id.c_str(), &device);
  if (status != kSuccess) {
    why = "NVML has no device at PCI bus " + bus_id + ": " + describe(status);
    return std::nullopt;
  }
  return device;
}

std::optional<unsigned> Library::clock_mhz(Device device, ClockType type) const {
  if (!clock_info_) return std::nullopt;
  return read_if_ok<unsigned>([&](unsigned* value) { return clock_info_(device, static_cast<unsigned>(type), value); });
}

std::optional<unsigned> Library::max_clock_mhz(Device device, ClockType type) const {
  if (!max_clock_info_) return std::nullopt;
  return read_if_ok<unsigned>([&](unsigned* value) { return max_clock_info_(device, static_cast<unsigned>(type), value); });
}

std::optional<unsigned> Library::clock_mhz(Device device, ClockType type, ClockId id) const {
  if (!clock_) return std::nullopt;
  return read_if_ok<unsigned>(
      [&](unsigned* value) { return clock_(device, static_cast<unsigned>(type), static_cast<unsigned>(id), value); });
}

std::optional<double> Library::power_w(Device device) const {
  unsigned milliwatts = 0;
  if (!power_usage_ || power_usage_(device, &milliwatts) != kSuccess) return std::nullopt;
  return milliwatts / 1e3;
}

std::optional<double> Library::instant_power_w(Device device) const {
  if (!field_values_) return std::nullopt;
  FieldValue field{};
  field.field_id = kFieldPowerInstant;
  field.scope_id = kScopeGpu;
  if (field_values_(device, 1, &field) != kSuccess || field.status != kSuccess) return std::nullopt;
  const std::optional<double> milliwatts = field_number(field);
  if (!milliwatts) return std::nullopt;
  return *milliwatts / 1e3;
}

std::optional<double> Library::power_limit_w(Device device) const {
  unsigned milliwatts = 0;
  if (!enforced_power_limit_ || enforced_power_limit_(device, &milliwatts) != kSuccess) return std::nullopt;
  return milliwatts / 1e3;
}

std::optional<unsigned> Library::temperature_c(Device device) const {
  if (!temperature_) return std::nullopt;
  return read_if_ok<unsigned>([&](unsigned* value) { return temperature_(device, kTemperatureGpu, value); });
}

std::optional<unsigned long long> Library::clock_event_reasons(Device device) const {
  if (!clock_event_reasons_) return std::nullopt;
  return read_if_ok<unsigned long long>([&](unsigned long long* value) { return clock_event_reasons_(device, value); });
}

std::optional<double> Library::total_energy_j(Device device) const {
  unsigned long long millijoules = 0;
  if (!total_energy_ || total_energy_(device, &millijoules) != kSuccess) return std::nullopt;
  return static_cast<double>(millijoules) / 1e3;
}

std::optional<bool> Library::persistence_mode(Device device) const {
  unsigned mode = 0;
  if (!persistence_mode_ || persistence_mode_(device, &mode) != kSuccess) return std::nullopt;
  return mode == kFeatureEnabled;
}

std::optional<bool> Library::ecc_enabled(Device device) const {
  unsigned current = 0, pending = 0;
  if (!ecc_mode_ || ecc_mode_(device, &current, &pending) != kSuccess) return std::nullopt;
  return current == kFeatureEnabled;
}

std::optional<bool> Library::mig_enabled(Device device) const {
  unsigned current = 0, pending = 0;
  if (!mig_mode_ || mig_mode_(device, &current, &pending) != kSuccess) return std::nullopt;
  return current == kMigEnabled;
}

}  // namespace gpb::nvml
