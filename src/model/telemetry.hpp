// GPU telemetry as records and the pure rules over them: what a device's sensors read
// while a case measured (SM and memory clocks, power, temperature, clock-event reasons,
// the energy counter), summarised into the case's record; which timing samples ran below
// the throttle threshold; when a soak has reached a steady state; whether two reports ran
// at different clocks or power. Measured beside the timed region (measure/telemetry_sampler.hpp),
// never inside it; reporters and compare only read these records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace gpb {

// A value a sensor did not report (the GPU lacks it, or NVML refused): null in JSON.
inline constexpr double kNotReported = std::numeric_limits<double>::quiet_NaN();

// Why the clocks are below their maximum: NVML's clock-event reason bits
// (nvmlClocksEventReason*, formerly "throttle reasons"), kept as NVML reports them.
namespace clock_event {
inline constexpr std::uint64_t gpu_idle = 0x1;
// Application clocks or clock limits a user set (nvidia-smi -ac/-lgc); NVML's older
// name for it is "user-defined clocks".
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;
// The reasons that hold the clocks below what the work would get otherwise: power and heat
// limits. Idling, a user's clock setting and the display clock are not throttling.
inline constexpr std::uint64_t throttling =
    sw_power_cap | hw_slowdown | sync_boost | sw_thermal_slowdown | hw_thermal_slowdown | hw_power_brake_slowdown;
}  // namespace clock_event

// "sw_power_cap", "hw_thermal_slowdown", ... for each bit set, in bit order; unknown bits
// as "0x200".
std::vector<std::string> clock_event_names(std::uint64_t reasons);

// One reading of a device's sensors. time_s is on the runner's steady clock (seconds).
struct TelemetryReading {
  double time_s = 0;
  double sm_clock_mhz = kNotReported;
  double mem_clock_mhz = kNotReported;
  double power_w = kNotReported;          // nvmlDeviceGetPowerUsage: a one-second average on newer GPUs
  double instant_power_w = kNotReported;  // NVML_FI_DEV_POWER_INSTANT where the driver has it
  double temperature_c = kNotReported;
  std::optional<std::uint64_t> clock_events;  // nullopt: the device does not report reasons
};

// A device's sensors as telemetry reads them: implemented over NVML by gpu_backend/
// (gpu_telemetry.cu), by fakes in tests. A GPU case hands one to the runner.
class TelemetrySource {
 public:
  virtual ~TelemetrySource() = default;
  // One reading of the sensors; the sampler sets its time.
  virtual TelemetryReading read() = 0;
  // The device's total-energy counter in joules; nullopt where it has none.
  virtual std::optional<double> energy_j() = 0;
  // The maximum SM clock in MHz, the throttle threshold's reference; NaN when unknown.
  virtual double max_sm_clock_mhz() = 0;
};

// What a case's record says about the device while it measured. Sensor figures are NaN
// (null in JSON) where the device did not report them.
struct TelemetrySummary {
  std::size_t readings = 0;   // sensor readings taken while measuring
  double period_s = 0;        // the sampling period
  double sm_clock_min_mhz = kNotReported, sm_clock_median_mhz = kNotReported, sm_clock_max_mhz = kNotReported;
  double sm_clock_limit_mhz = kNotReported;  // the device's maximum SM clock: the throttle threshold's reference
  double mem_clock_median_mhz = kNotReported;
  // From nvmlDeviceGetPowerUsage, which NVML documents as a one-second average on Ampere and
  // newer: it lags a short case and is never its power (EnergyMeasurement::power_w is).
  double power_mean_w = kNotReported, power_max_w = kNotReported;
  // NVML's instantaneous power (NVML_FI_DEV_POWER_INSTANT) over the readings; null where the
  // driver lacks it.
  double instant_power_median_w = kNotReported, instant_power_max_w = kNotReported;
  double temperature_max_c = kNotReported;
  std::vector<std::string> clock_events;     // every reason seen, decoded (clock_event_names)
  double throttled_share = kNotReported;     // share of readings with a throttling reason active

  // Throttle-aware sampling: timing samples that ran (in part) while a reading showed the
  // SM clock below throttle_threshold x sm_clock_limit_mhz.
  double throttle_threshold = 0;
  std::size_t flagged_samples = 0;
  std::size_t discarded_samples = 0;          // left out of the statistics (--discard-throttled)
  std::vector<double> discarded_samples_s;    // their values, kept for the record

  // Energy, from the device's total-energy counter (NaN where it has none): energy_j over
  // window_s is the board's average power while measuring; one op's energy is that power
  // times the median time per op.
  double energy_j = kNotReported;
  double energy_window_s = 0;
  double energy_per_op_j = kNotReported;
  double gflops_per_j = kNotReported, gb_per_j = kNotReported;
};

// A soak: the case run untimed until clocks and power settled, before it was measured.
struct SoakSummary {
  double requested_s = 0;           // --soak
  double seconds = 0;               // how long it ran
  std::optional<bool> settled;      // nullopt without telemetry to tell
};

// Read-only facts about a GPU's management settings, from NVML; nullopt fields are
// settings the device or driver does not report.
struct GpuManagement {
  bool available = false;            // NVML loaded and the device found in it
  std::string reason;                // why not, when not available
  std::optional<bool> persistence_mode;
  std::optional<bool> applications_clocks_set;   // application clock target differs from its default
  std::optional<bool> clock_limit_active;        // the "applications clocks setting" clock-event reason was active
  double power_limit_w = kNotReported;           // enforced power limit
  double max_sm_clock_mhz = kNotReported, max_mem_clock_mhz = kNotReported;
  std::optional<bool> ecc_enabled;
  std::optional<bool> mig_enabled;
  std::optional<bool> energy_counter;            // the device has a total-energy counter
};

// Whether the clocks were pinned (application clocks or a clock limit); nullopt when NVML
// could not tell.
std::optional<bool> clocks_locked(const GpuManagement& management);

// Default fraction of the maximum SM clock below which a timing sample is flagged.
inline constexpr double kDefaultThrottleThreshold = 0.9;

// Whether a timing sample taken over [start_s, end_s] ran while the SM clock was below
// min_clock_mhz: judged on the last reading at or before its start (the state it began in)
// and every reading up to its end. Readings are in time order; without a reading before
// end_s or a known clock it is not flagged.
bool ran_throttled(const std::vector<TelemetryReading>& readings, double start_s, double end_s, double min_clock_mhz);

// The sensor part of a summary over the readings taken while measuring.
TelemetrySummary summarize_readings(const std::vector<TelemetryReading>& readings, double period_s,
                                    double sm_clock_limit_mhz, double throttle_threshold);

// One summary for two passes of a case: the sensor part over all their readings, counts,
// discarded samples and energy added up (energy stays unknown unless both passes have it).
// Without readings (records read from reports, pooled by gpubench ab) the sensor part is
// pooled from the two summaries: the extremes of their extremes, reading-weighted means of
// their medians, means and throttled shares, and every clock-event reason either saw.
TelemetrySummary merge_telemetry(const TelemetrySummary& first, const TelemetrySummary& second,
                                 const std::vector<TelemetryReading>& readings);

// Energy per op and efficiency from the energy counter and the median time per op.
void apply_energy(TelemetrySummary& summary, double median_s, double flops, double bytes);

// Soak settling. The last window of readings is compared with the window that ended
// kSoakSpanS - kSoakWindowS earlier: settled when the SM clock medians differ by at most
// kSoakClockTolerance, the mean powers by at most kSoakPowerTolerance and the maximum
// temperatures by at most kSoakTemperatureToleranceC (sensors a device lacks are left out).
inline constexpr double kSoakWindowS = 1.0;
// Ten seconds: an H100 at its power cap warmed by 5 degrees over 30 s of DGEMM, too slowly
// for a 5 s span to see, and its clock moved 3 % with it.
inline constexpr double kSoakSpanS = 10.0;
inline constexpr double kSoakClockTolerance = 0.01;
inline constexpr double kSoakPowerTolerance = 0.02;
inline constexpr double kSoakTemperatureToleranceC = 1.0;
bool soak_settled(const std::vector<TelemetryReading>& readings, double now_s);

// How far two sides' telemetry may differ before compare says "clocks/power differ".
inline constexpr double kTelemetryDifferenceTolerance = 0.03;
// "" when the SM clock medians and the mean powers agree within the tolerance; otherwise
// what differs: "SM clock median 1755 vs 1980 MHz (-11.4%); mean power 690 vs 512 W (+34.8%)".
std::string telemetry_difference(const TelemetrySummary& baseline, const TelemetrySummary& current,
                                 double tolerance = kTelemetryDifferenceTolerance);

}  // namespace gpb
