#include "measure/energy_meter.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

namespace gpb {
namespace {

// Repeats come in rounds, each sized from the time left: a first estimate off by a warm
// cache or a clock change is corrected by the next round.
constexpr int kMaxExtensionRounds = 8;

// Update intervals by counter key, detected once per process.
std::mutex interval_mutex;
std::map<std::string, std::optional<double>>& detected_intervals() {
  static std::map<std::string, std::optional<double>> intervals;
  return intervals;
}

}  // namespace

EnergyClock steady_energy_clock() {
  return {[] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); },
          [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }};
}

std::optional<double> detect_update_interval(EnergyCounter& counter, const EnergyClock& clock, double max_wait_s) {
  constexpr int kChanges = 4;  // three whole intervals between four changes
  const double start = clock.now();
  std::optional<double> last = counter.read_j();
  if (!last) return std::nullopt;
  double changed_at[kChanges] = {};
  int changes = 0;
  while (changes < kChanges) {
    if (clock.now() - start > max_wait_s) return std::nullopt;
    clock.sleep(kEnergyPollS);
    const std::optional<double> value = counter.read_j();
    if (!value) return std::nullopt;
    if (*value != *last) {
      changed_at[changes++] = clock.now();
      last = value;
    }
  }
  // The first change ends an interval that began before the polling did: only the whole ones count.
  double longest = 0;
  for (int i = 1; i < kChanges; ++i) longest = std::max(longest, changed_at[i] - changed_at[i - 1]);
  return longest;
}

EnergyMeter::EnergyMeter(EnergySource source, EnergyClock clock) : source_(std::move(source)), clock_(std::move(clock)) {}

std::optional<double> EnergyMeter::update_interval() {
  const std::string key = source_.counter->key();
  {
    const std::lock_guard<std::mutex> lock(interval_mutex);
    const auto found = detected_intervals().find(key);
    if (found != detected_intervals().end()) return found->second;
  }
  const std::optional<double> interval = detect_update_interval(*source_.counter, clock_);
  const std::lock_guard<std::mutex> lock(interval_mutex);
  detected_intervals()[key] = interval;
  return interval;
}

void EnergyMeter::begin() {
  if (!active()) return;
  // Detected before the window opens: the polling takes a few intervals.
  if (!update_interval()) {
    failure_ = "the counter did not change 4 times within " + std::to_string(static_cast<int>(kEnergyIntervalWaitS)) +
               " s, so its update interval is unknown";
    return;
  }
  start_j_ = source_.counter->read_j();
  start_s_ = clock_.now();
  begun_ = true;
}

EnergyMeasurement EnergyMeter::finish(std::int64_t timed_launches, double per_launch_s, const std::function<void()>& run_once,
                                      const std::function<void()>& synchronize, std::int64_t launches_per_run) {
  EnergyMeasurement energy;
  if (!active()) {
    energy.reason = source_.reason.empty() ? "no energy counter" : source_.reason;
    return energy;
  }
  EnergyCounter& counter = *source_.counter;
  energy.counter = counter.name();
  energy.resolution_j = counter.resolution_j();
  if (!begun_ && failure_.empty()) {
    energy.includes_timed_samples = false;
    timed_launches = 0;
    begin();
  } else if (!begun_) {
    energy.includes_timed_samples = false;
  }
  if (!failure_.empty()) {
    energy.reason = failure_;
    return energy;
  }
  energy.update_interval_s = *update_interval();
  energy.min_window_s = min_energy_window_s(energy.update_interval_s);
  energy.launches = timed_launches;
  const double extension_start = clock_.now();
  double window = extension_start - start_s_;
  launches_per_run = std::max<std::int64_t>(launches_per_run, 1);
  for (int round = 0; round < kMaxExtensionRounds; ++round) {
    const std::int64_t runs =
        std::min(extra_launches_for(window, per_launch_s * static_cast<double>(launches_per_run), energy.min_window_s),
                 (kMaxEnergyLaunches - energy.extra_launches) / launches_per_run);
    if (runs <= 0) break;
    for (std::int64_t i = 0; i < runs; ++i) run_once();
    synchronize();
    energy.extra_launches += runs * launches_per_run;
    window = clock_.now() - start_s_;
  }
  const std::optional<double> end_j = counter.read_j();
  const double end_s = clock_.now();
  energy.extra_s = energy.extra_launches > 0 ? end_s - extension_start : 0;
  energy.launches += energy.extra_launches;
  energy.window_s = end_s - start_s_;
  energy.windows = 1;
  if (!start_j_ || !end_j) {
    energy.reason = "the counter could not be read";
    return energy;
  }
  energy.energy_j = *end_j - *start_j_;
  if (energy.launches > 0) energy.window_energy_per_op_j = {energy.energy_j / static_cast<double>(energy.launches)};
  return energy;
}

}  // namespace gpb
