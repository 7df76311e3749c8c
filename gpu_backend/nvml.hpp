// NVML, the management library the NVIDIA driver ships, loaded at run time (dlopen of
// libnvidia-ml.so.1) so that gpubench builds without its header and runs without the
// library: telemetry is then absent and the reason said once. Only the few entry points
// and constants used here are declared, from NVML's documented ABI (nvml.h). gpubench only
// reads: no setter is declared, so no setting can change. Every call's status is checked;
// a query NVML refuses (not supported, no permission) reads as "not reported".
#pragma once

#include <optional>
#include <string>

namespace gpb::nvml {

// nvmlDevice_t: an opaque handle.
using Device = struct nvmlDevice_st*;

// nvmlFieldValue_t, as nvml.h lays it out.
struct FieldValue {
  unsigned field_id;
  unsigned scope_id;
  long long timestamp_us;
  long long latency_us;
  int value_type;  // nvmlValueType_t
  int status;      // nvmlReturn_t of this field
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
};

// nvmlClockType_t and nvmlClockId_t values.
enum class ClockType : unsigned { graphics = 0, sm = 1, mem = 2 };
enum class ClockId : unsigned { current = 0, applications_target = 1, applications_default = 2 };

class Library {
 public:
  // Loads `soname` and initialises NVML; on failure available() is false and reason() says why.
  explicit Library(const char* soname = "libnvidia-ml.so.1");
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  // The process's NVML, loaded on first use.
  static Library& instance();

  bool available() const { return initialised_; }
  const std::string& reason() const { return reason_; }

  // The device at a PCI bus id ("0000:17:00.0"); nullopt, with the reason in `why`, when
  // NVML does not know it.
  std::optional<Device> device_by_pci_bus_id(const std::string& bus_id, std::string& why) const;

  std::optional<unsigned> clock_mhz(Device device, ClockType type) const;
  std::optional<unsigned> max_clock_mhz(Device device, ClockType type) const;
  std::optional<unsigned> clock_mhz(Device device, ClockType type, ClockId id) const;
  // nvmlDeviceGetPowerUsage: on Ampere (but GA100) and newer NVML documents it as the
  // average over one second, on older GPUs as the current draw.
  std::optional<double> power_w(Device device) const;
  // NVML_FI_DEV_POWER_INSTANT through nvmlDeviceGetFieldValues (drivers r535 on): the
  // current draw; nullopt where the driver lacks the field.
  std::optional<double> instant_power_w(Device device) const;
  std::optional<double> power_limit_w(Device device) const;      // enforced limit
  std::optional<unsigned> temperature_c(Device device) const;    // GPU die
  std::optional<unsigned long long> clock_event_reasons(Device device) const;
  std::optional<double> total_energy_j(Device device) const;     // since the driver loaded
  std::optional<bool> persistence_mode(Device device) const;
  std::optional<bool> ecc_enabled(Device device) const;          // current mode
  std::optional<bool> mig_enabled(Device device) const;          // current mode

 private:
  using Status = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
  template <class Function>
  Function* symbol(const char* name);
  std::string describe(Status status) const;

  void* handle_ = nullptr;
  bool initialised_ = false;
  std::string reason_;

  Status (*init_)() = nullptr;
  Status (*shutdown_)() = nullptr;
  const char* (*error_string_)(Status) = nullptr;
  Status (*device_by_pci_bus_id_)(const char*, Device*) = nullptr;
  Status (*clock_info_)(Device, unsigned, unsigned*) = nullptr;
  Status (*max_clock_info_)(Device, unsigned, unsigned*) = nullptr;
  Status (*clock_)(Device, unsigned, unsigned, unsigned*) = nullptr;
  Status (*power_usage_)(Device, unsigned*) = nullptr;
  Status (*field_values_)(Device, int, FieldValue*) = nullptr;
  Status (*enforced_power_limit_)(Device, unsigned*) = nullptr;
  Status (*temperature_)(Device, unsigned, unsigned*) = nullptr;
  Status (*clock_event_reasons_)(Device, unsigned long long*) = nullptr;
  Status (*total_energy_)(Device, unsigned long long*) = nullptr;
  Status (*persistence_mode_)(Device, unsigned*) = nullptr;
  Status (*ecc_mode_)(Device, unsigned*, unsigned*) = nullptr;
  Status (*mig_mode_)(Device, unsigned*, unsigned*) = nullptr;
};

}  // namespace gpb::nvml
