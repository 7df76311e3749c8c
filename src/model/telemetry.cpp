#include "model/telemetry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/statistics.hpp"

namespace gpb {
namespace {

// The values of one sensor that the device reported, in reading order.
std::vector<double> reported(const std::vector<TelemetryReading>& readings, double TelemetryReading::*sensor) {
  std::vector<double> values;
  for (const auto& reading : readings)
    if (std::isfinite(reading.*sensor)) values.push_back(reading.*sensor);
  return values;
}

double median_of(std::vector<double> values) {
  if (values.empty()) return kNotReported;
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, 0.5);
}

double mean_of(const std::vector<double>& values) {
  if (values.empty()) return kNotReported;
  double total = 0;
  for (double value : values) total += value;
  return total / static_cast<double>(values.size());
}

double max_of(const std::vector<double>& values) {
  return values.empty() ? kNotReported : *std::max_element(values.begin(), values.end());
}

double min_of(const std::vector<double>& values) {
  return values.empty() ? kNotReported : *std::min_element(values.begin(), values.end());
}

std::vector<TelemetryReading> in_window(const std::vector<TelemetryReading>& readings, double begin_s, double end_s) {
  std::vector<TelemetryReading> window;
  for (const auto& reading : readings)
    if (reading.time_s > begin_s && reading.time_s <= end_s) window.push_back(reading);
  return window;
}

// |a / b - 1| > tolerance; false where either side is unknown.
bool differs(double a, double b, double tolerance) {
  return std::isfinite(a) && std::isfinite(b) && b > 0 && std::abs(a / b - 1) > tolerance;
}

}  // namespace

std::vector<std::string> clock_event_names(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> names[] = {
      {clock_event::gpu_idle, "gpu_idle"},
      {clock_event::applications_clocks_setting, "applications_clocks_setting"},
      {clock_event::sw_power_cap, "sw_power_cap"},
      {clock_event::hw_slowdown, "hw_slowdown"},
      {clock_event::sync_boost, "sync_boost"},
      {clock_event::sw_thermal_slowdown, "sw_thermal_slowdown"},
      {clock_event::hw_thermal_slowdown, "hw_thermal_slowdown"},
      {clock_event::hw_power_brake_slowdown, "hw_power_brake_slowdown"},
      {clock_event::display_clock_setting, "display_clock_setting"},
  };
  std::vector<std::string> decoded;
  for (const auto& [bit, name] : names)
    if (reasons & bit) decoded.push_back(name);
  for (int shift = 0; shift < 64; ++shift) {
    const std::uint64_t bit = std::uint64_t{1} << shift;
    const bool known = std::any_of(std::begin(names), std::end(names), [bit](const auto& entry) { return entry.first == bit; });
    if ((reasons & bit) && !known) {
      char text[24];
      std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(bit));
      decoded.push_back(text);
    }
  }
  return decoded;
}

std::optional<bool> clocks_locked(const GpuManagement& management) {
  if (management.applications_clocks_set.value_or(false) || management.clock_limit_active.value_or(false)) return true;
  if (!management.applications_clocks_set && !management.clock_limit_active) return std::nullopt;
  return false;
}

bool ran_throttled(const std::vector<TelemetryReading>& readings, double start_s, double end_s, double min_clock_mhz) {
  if (!std::isfinite(min_clock_mhz)) return false;
  // The state the sample began in is the last reading at or before its start.
  auto first = std::upper_bound(readings.begin(), readings.end(), start_s,
                                [](double time, const TelemetryReading& reading) { return time < reading.time_s; });
  if (first != readings.begin()) --first;
  for (auto it = first; it != readings.end() && it->time_s <= end_s; ++it)
    if (std::isfinite(it->sm_clock_mhz) && it->sm_clock_mhz < min_clock_mhz) return true;
  return false;
}

TelemetrySummary summarize_readings(const std::vector<TelemetryReading>& readings, double period_s,
                                    double sm_clock_limit_mhz, double throttle_threshold) {
  TelemetrySummary summary;
  summary.readings = readings.size();
  summary.period_s = period_s;
  summary.sm_clock_limit_mhz = sm_clock_limit_mhz;
  summary.throttle_threshold = throttle_threshold;
  const auto sm_clocks = reported(readings, &TelemetryReading::sm_clock_mhz);
  summary.sm_clock_min_mhz = min_of(sm_clocks);
  summary.sm_clock_median_mhz = median_of(sm_clocks);
  summary.sm_clock_max_mhz = max_of(sm_clocks);
  summary.mem_clock_median_mhz = median_of(reported(readings, &TelemetryReading::mem_clock_mhz));
  const auto powers = reported(readings, &TelemetryReading::power_w);
  summary.power_mean_w = mean_of(powers);
  summary.power_max_w = max_of(powers);
  const auto instant = reported(readings, &TelemetryReading::instant_power_w);
  summary.instant_power_median_w = median_of(instant);
  summary.instant_power_max_w = max_of(instant);
  summary.temperature_max_c = max_of(reported(readings, &TelemetryReading::temperature_c));

  std::uint64_t seen = 0;
  std::size_t with_reasons = 0, throttled = 0;
  for (const auto& reading : readings) {
    if (!reading.clock_events) continue;
    ++with_reasons;
    seen |= *reading.clock_events;
    throttled += (*reading.clock_events & clock_event::throttling) != 0;
  }
  summary.clock_events = clock_event_names(seen);
  if (with_reasons > 0) summary.throttled_share = static_cast<double>(throttled) / static_cast<double>(with_reasons);
  return summary;
}

namespace {

// The mean of two values weighted by their reading counts; a value not reported (NaN)
// leaves the other.
double weighted(double a, std::size_t a_readings, double b, std::size_t b_readings) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  const auto total = static_cast<double>(a_readings + b_readings);
  return total > 0 ? (a * static_cast<double>(a_readings) + b * static_cast<double>(b_readings)) / total : a;
}

// The sensor part of two summaries whose readings are not at hand (records read from
// reports): the extremes of their extremes, and reading-weighted means of their medians,
// means and shares.
TelemetrySummary pooled_sensors(const TelemetrySummary& first, const TelemetrySummary& second) {
  TelemetrySummary pooled = first;
  const std::size_t a = first.readings, b = second.readings;
  pooled.readings = a + b;
  pooled.sm_clock_min_mhz = std::fmin(first.sm_clock_min_mhz, second.sm_clock_min_mhz);
  pooled.sm_clock_median_mhz = weighted(first.sm_clock_median_mhz, a, second.sm_clock_median_mhz, b);
  pooled.sm_clock_max_mhz = std::fmax(first.sm_clock_max_mhz, second.sm_clock_max_mhz);
  pooled.mem_clock_median_mhz = weighted(first.mem_clock_median_mhz, a, second.mem_clock_median_mhz, b);
  pooled.power_mean_w = weighted(first.power_mean_w, a, second.power_mean_w, b);
  pooled.power_max_w = std::fmax(first.power_max_w, second.power_max_w);
  pooled.instant_power_median_w = weighted(first.instant_power_median_w, a, second.instant_power_median_w, b);
  pooled.instant_power_max_w = std::fmax(first.instant_power_max_w, second.instant_power_max_w);
  pooled.temperature_max_c = std::fmax(first.temperature_max_c, second.temperature_max_c);
  for (const std::string& reason : second.clock_events)
    if (std::find(pooled.clock_events.begin(), pooled.clock_events.end(), reason) == pooled.clock_events.end())
      pooled.clock_events.push_back(reason);
  pooled.throttled_share = weighted(first.throttled_share, a, second.throttled_share, b);
  return pooled;
}

}  // namespace

TelemetrySummary merge_telemetry(const TelemetrySummary& first, const TelemetrySummary& second,
                                 const std::vector<TelemetryReading>& readings) {
  TelemetrySummary merged = readings.empty() ? pooled_sensors(first, second)
                                             : summarize_readings(readings, first.period_s, first.sm_clock_limit_mhz,
                                                                  first.throttle_threshold);
  merged.flagged_samples = first.flagged_samples + second.flagged_samples;
  merged.discarded_samples = first.discarded_samples + second.discarded_samples;
  merged.discarded_samples_s = first.discarded_samples_s;
  merged.discarded_samples_s.insert(merged.discarded_samples_s.end(), second.discarded_samples_s.begin(),
                                    second.discarded_samples_s.end());
  merged.energy_j = first.energy_j + second.energy_j;  // NaN unless both are known
  merged.energy_window_s = std::isfinite(merged.energy_j) ? first.energy_window_s + second.energy_window_s : 0;
  return merged;
}

void apply_energy(TelemetrySummary& summary, double median_s, double flops, double bytes) {
  summary.energy_per_op_j = summary.gflops_per_j = summary.gb_per_j = kNotReported;
  // A counter that did not move over the window says nothing (too short a window for its
  // update interval): no figure rather than zero joules.
  if (!(summary.energy_j > 0) || !(summary.energy_window_s > 0) || !(median_s > 0)) return;
  const double average_power_w = summary.energy_j / summary.energy_window_s;
  summary.energy_per_op_j = average_power_w * median_s;
  summary.gflops_per_j = flops / summary.energy_per_op_j / 1e9;
  summary.gb_per_j = bytes / summary.energy_per_op_j / 1e9;
}

bool soak_settled(const std::vector<TelemetryReading>& readings, double now_s) {
  if (readings.empty() || now_s - readings.front().time_s < kSoakSpanS) return false;
  const auto late = in_window(readings, now_s - kSoakWindowS, now_s);
  const auto early = in_window(readings, now_s - kSoakSpanS, now_s - kSoakSpanS + kSoakWindowS);
  if (late.empty() || early.empty()) return false;
  const auto clock_late = median_of(reported(late, &TelemetryReading::sm_clock_mhz));
  const auto clock_early = median_of(reported(early, &TelemetryReading::sm_clock_mhz));
  const auto power_late = mean_of(reported(late, &TelemetryReading::power_w));
  const auto power_early = mean_of(reported(early, &TelemetryReading::power_w));
  const auto temperature_late = max_of(reported(late, &TelemetryReading::temperature_c));
  const auto temperature_early = max_of(reported(early, &TelemetryReading::temperature_c));
  // A device that reports none of the three gives nothing to judge by.
  if (!std::isfinite(clock_late) && !std::isfinite(power_late) && !std::isfinite(temperature_late)) return false;
  if (differs(clock_late, clock_early, kSoakClockTolerance)) return false;
  if (differs(power_late, power_early, kSoakPowerTolerance)) return false;
  if (std::isfinite(temperature_late) && std::isfinite(temperature_early) &&
      std::abs(temperature_late - temperature_early) > kSoakTemperatureToleranceC)
    return false;
  return true;
}

std::string telemetry_difference(const TelemetrySummary& baseline, const TelemetrySummary& current, double tolerance) {
  std::string text;
  const auto describe = [&](const char* what, double base, double cur, const char* unit) {
    if (!differs(cur, base, tolerance)) return;
    char part[128];
    std::snprintf(part, sizeof part, "%s %.0f vs %.0f %s (%+.1f%%)", what, base, cur, unit, (cur / base - 1) * 100);
    text += (text.empty() ? "" : "; ") + std::string(part);
  };
  describe("SM clock median", baseline.sm_clock_median_mhz, current.sm_clock_median_mhz, "MHz");
  describe("mean power", baseline.power_mean_w, current.power_mean_w, "W");
  return text;
}

}  // namespace gpb
