#include "model/cpu_telemetry.hpp"

#include <algorithm>
#include <cmath>

#include "base/text.hpp"

namespace gpb {

double run_queue_wait_share(const CpuTelemetry& telemetry) {
  const double runnable = telemetry.cpu_s + telemetry.run_queue_wait_s;
  if (!(runnable > 0)) return kNotReported;
  return telemetry.run_queue_wait_s / runnable;
}

CpuTelemetry merge_cpu_telemetry(const CpuTelemetry& first, const CpuTelemetry& second) {
  CpuTelemetry merged = first;
  // fmin and fmax take the known reading over an unknown one (NaN).
  merged.load_average = std::fmax(first.load_average, second.load_average);
  merged.threads_obtained = std::min(first.threads_obtained, second.threads_obtained);
  merged.cpu_s = first.cpu_s + second.cpu_s;
  merged.run_queue_wait_s = first.run_queue_wait_s + second.run_queue_wait_s;  // NaN unless both are known
  merged.involuntary_switches = first.involuntary_switches + second.involuntary_switches;
  merged.migrations = first.migrations && second.migrations ? std::optional(*first.migrations + *second.migrations)
                                                            : std::nullopt;
  merged.cpu_mhz_min = std::fmin(first.cpu_mhz_min, second.cpu_mhz_min);
  merged.cpu_mhz_max = std::fmax(first.cpu_mhz_max, second.cpu_mhz_max);
  merged.oversubscribed_samples = first.oversubscribed_samples + second.oversubscribed_samples;
  return merged;
}

std::string interference_summary(const CpuTelemetry& telemetry, std::size_t samples, int threads_used) {
  std::string text;
  const auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (samples > 0 && static_cast<double>(telemetry.oversubscribed_samples) >= kInterferenceShare * static_cast<double>(samples))
    add(std::to_string(telemetry.oversubscribed_samples) + "/" + std::to_string(samples) + " samples oversubscribed");
  const double waited = run_queue_wait_share(telemetry);
  if (waited >= kInterferenceShare) add("run-queue wait " + format_percent(waited, "%.0f%%"));
  if (telemetry.cores > 0 && telemetry.load_average > telemetry.cores)
    add("load " + format_significant(telemetry.load_average, 2) + " on " + std::to_string(telemetry.cores) +
        (telemetry.cores == 1 ? " core" : " cores"));
  // Fewer threads than asked is no interference by itself (a backend may use fewer for a
  // small input), but beside it, it says what the load cost.
  if (!text.empty() && threads_used > 0 && telemetry.threads_obtained > 0 && telemetry.threads_obtained < threads_used)
    add(std::to_string(telemetry.threads_obtained) + " of " + std::to_string(threads_used) + " threads ran");
  return text;
}

}  // namespace gpb
