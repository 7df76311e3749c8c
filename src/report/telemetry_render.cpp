#include "report/telemetry_render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpb::report_model {
namespace {

std::string mhz(double value) { return std::isfinite(value) ? format_significant(value, 4) : "-"; }

std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
  return text;
}

std::string clock_cell(const TelemetrySummary& t) {
  if (!std::isfinite(t.sm_clock_median_mhz)) return "-";
  return mhz(t.sm_clock_median_mhz) + " [" + mhz(t.sm_clock_min_mhz) + "-" + mhz(t.sm_clock_max_mhz) + "]";
}

std::string power_cell(const TelemetrySummary& t) {
  if (!std::isfinite(t.power_mean_w)) return "-";
  return format_significant(t.power_mean_w, 3) + "/" + format_significant(t.power_max_w, 3);
}

std::string instant_power_cell(const TelemetrySummary& t) {
  if (!std::isfinite(t.instant_power_median_w)) return "-";
  return format_significant(t.instant_power_median_w, 3) + "/" + format_significant(t.instant_power_max_w, 3);
}

// "48% power cap": the share of readings throttled and the throttling reasons seen, in
// short (the JSON report has NVML's names).
std::string throttled_cell(const TelemetrySummary& t) {
  static const std::pair<const char*, const char*> short_names[] = {
      {"sw_power_cap", "power cap"},     {"hw_slowdown", "hw slowdown"},  {"sync_boost", "sync boost"},
      {"sw_thermal_slowdown", "thermal"}, {"hw_thermal_slowdown", "hw thermal"}, {"hw_power_brake_slowdown", "power brake"}};
  std::string cell = percent(t.throttled_share);
  for (const auto& [name, short_name] : short_names)
    if (std::find(t.clock_events.begin(), t.clock_events.end(), name) != t.clock_events.end()) cell += std::string(" ") + short_name;
  return cell;
}

// "12/40": flagged samples of all samples taken (discarded ones included).
std::string flagged_cell(const ResultRecord& record) {
  const TelemetrySummary& t = *record.telemetry;
  return std::to_string(t.flagged_samples) + "/" + std::to_string(record.stats.count + t.discarded_samples);
}

std::string count_cell(std::size_t part, std::size_t whole) { return std::to_string(part) + "/" + std::to_string(whole); }

}  // namespace

Table cpu_telemetry_table(const std::vector<ResultRecord>& results) {
  Table table;
  table.columns = {{"case", Align::left},           {"load/cores", Align::right}, {"threads", Align::right},
                   {"waited", Align::right},         {"oversubscribed", Align::right}, {"migrations", Align::right},
                   {"MHz", Align::right},            {"interference", Align::left}};
  table.key_columns = 1;
  for (const auto& record : results) {
    if (!record.cpu_telemetry) continue;
    const CpuTelemetry& t = *record.cpu_telemetry;
    const std::string load = std::isfinite(t.load_average) ? format_significant(t.load_average, 2) : "-";
    const std::string clocks =
        std::isfinite(t.cpu_mhz_min) ? mhz(t.cpu_mhz_min) + "-" + mhz(t.cpu_mhz_max) : std::string("-");
    const std::string interfered = interference_summary(t, record.samples_s.size(), record.threads_used).empty() ? "" : "yes";
    table.rows.push_back({{record.spec.id(), load + "/" + std::to_string(t.cores),
                           count_cell(static_cast<std::size_t>(t.threads_obtained), static_cast<std::size_t>(record.threads_used)),
                           percent(run_queue_wait_share(t)), count_cell(t.oversubscribed_samples, record.samples_s.size()),
                           t.migrations ? std::to_string(*t.migrations) : "-", clocks, interfered},
                          ""});
  }
  return table;
}

std::string cpu_telemetry_footnote(const std::vector<ResultRecord>& results) {
  if (std::none_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.cpu_telemetry.has_value(); }))
    return {};
  return "load: the 1-minute load average (the highest read) over the cores this process may use; threads: threads that "
         "ran at least " + percent(kBusyThreadShare) + " of the measuring time, of those asked for; waited: the share of "
         "their runnable time spent waiting for a CPU; oversubscribed: samples during which a thread was switched out for "
         "other work, of all samples; migrations: moves of the threads between cores; MHz: the cores' clock range where "
         "readable; interference: " +
         percent(kInterferenceShare) + " or more of the samples oversubscribed or of the time waited, or a load above the "
         "cores (compare cites it)";
}

Table telemetry_table(const std::vector<ResultRecord>& results) {
  Table table;
  table.columns = {{"case", Align::left}};
  table.key_columns = 1;
  table.columns.insert(table.columns.end(), {{"SM MHz [min-max]", Align::right},
                                             {"1s-avg W", Align::right},
                                             {"inst. W", Align::right},
                                             {"max C", Align::right},
                                             {"throttled", Align::left},
                                             {"flagged", Align::right}});
  for (const auto& record : results) {
    if (!record.telemetry) continue;
    const TelemetrySummary& t = *record.telemetry;
    char temperature[16] = "-";
    if (std::isfinite(t.temperature_max_c)) std::snprintf(temperature, sizeof temperature, "%.0f", t.temperature_max_c);
    table.rows.push_back(
        {{record.spec.id(), clock_cell(t), power_cell(t), instant_power_cell(t), temperature, throttled_cell(t), flagged_cell(record)},
         ""});
  }
  return table;
}

std::vector<std::string> telemetry_footnotes(const std::vector<ResultRecord>& results) {
  std::vector<std::string> lines;
  const auto with_telemetry = std::find_if(results.begin(), results.end(), [](const ResultRecord& r) { return r.telemetry.has_value(); });
  if (with_telemetry != results.end()) {
    const TelemetrySummary& t = *with_telemetry->telemetry;
    std::size_t discarded = 0;
    for (const auto& record : results) discarded += record.telemetry ? record.telemetry->discarded_samples : 0;
    lines.push_back("throttled: share of sensor readings with a power or thermal limit holding the clocks; flagged: "
                    "samples taken while the SM clock was below " + format_significant(t.throttle_threshold, 2) +
                    " x its maximum (" + mhz(t.sm_clock_limit_mhz) + " MHz), of all samples" +
                    (discarded > 0 ? " (--discard-throttled left " + std::to_string(discarded) + " out of the statistics)" : "") +
                    "; 1s-avg W: mean/max of nvmlDeviceGetPowerUsage, a one-second average on Ampere and newer "
                    "GPUs, which lags a short case (the energy table has the case's power and efficiency); inst. W: "
                    "median/max of NVML's instantaneous power where the driver has it");
  }
  std::size_t soaked = 0, settled = 0;
  double longest = 0;
  for (const auto& record : results) {
    if (!record.soak) continue;
    ++soaked;
    settled += record.soak->settled.value_or(false);
    longest = std::max(longest, record.soak->seconds);
  }
  if (soaked > 0)
    lines.push_back("soak: " + std::to_string(soaked) + (soaked == 1 ? " case" : " cases") + " ran untimed first, up to " +
                    format_significant(longest, 2) + " s; " + std::to_string(settled) + " settled (clocks, power and "
                    "temperature steady) before measuring");
  const auto cold = static_cast<std::size_t>(
      std::count_if(results.begin(), results.end(), [](const ResultRecord& r) { return !r.timing_note.empty(); }));
  if (cold > 0)
    lines.push_back(std::to_string(cold) + (cold == 1 ? " case" : " cases") +
                    " timed single cold launches (L2 flushed before each) short enough that the timer's resolution and "
                    "the launch are a visible part of each sample; timing_note in the JSON report says how much");
  return lines;
}

}  // namespace gpb::report_model
