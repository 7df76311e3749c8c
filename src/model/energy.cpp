#include "model/energy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpb {

double min_energy_window_s(double update_interval_s) {
  return std::isfinite(update_interval_s) && update_interval_s > 0 ? kEnergyWindowIntervals * update_interval_s : 0;
}

std::int64_t extra_launches_for(double window_s, double per_launch_s, double min_window_s) {
  if (!(window_s < min_window_s)) return 0;
  // A launch time too small to know still runs one launch per nanosecond of the gap at most.
  const double needed = std::ceil((min_window_s - window_s) / std::max(per_launch_s, 1e-9));
  return static_cast<std::int64_t>(std::clamp(needed, 1.0, static_cast<double>(kMaxEnergyLaunches)));
}

std::uint64_t rapl_increase_uj(std::uint64_t before, std::uint64_t after, std::uint64_t max_range_uj) {
  if (after >= before) return after - before;
  // Wrapped: from `before` up to the range's end, then from 0 to `after`.
  return max_range_uj - before + after;
}

double launch_rate_uncertainty(const EnergyMeasurement& energy) {
  const std::int64_t timed = energy.launches - energy.extra_launches;
  if (!energy.includes_timed_samples || energy.extra_launches <= 0 || timed <= 0 || !(energy.extra_s > 0) ||
      !(energy.window_s > 0) || !std::isfinite(energy.power_w))
    return 0;
  const double window_per_op_s = energy.window_s / static_cast<double>(energy.launches);
  const double repeat_per_op_s = energy.extra_s / static_cast<double>(energy.extra_launches);
  return energy.power_w * std::fabs(window_per_op_s - repeat_per_op_s);
}

void finish_energy(EnergyMeasurement& energy, double flops, double bytes) {
  energy.power_w = energy.energy_per_op_j = energy.uncertainty_j = energy.launch_rate_uncertainty_j = energy.gflops_per_j =
      energy.gb_per_j = kNotReported;
  if (!energy.reason.empty()) return;
  // A counter that did not move over the window says nothing: no figure rather than 0 J.
  if (!(energy.energy_j > 0) || !(energy.window_s > 0) || energy.launches <= 0) {
    char text[96];
    std::snprintf(text, sizeof text, "the counter did not increase over the %.3g s window", energy.window_s);
    energy.reason = text;
    return;
  }
  const auto launches = static_cast<double>(energy.launches);
  energy.power_w = energy.energy_j / energy.window_s;
  energy.energy_per_op_j = energy.energy_j / launches;
  const double interval = std::isfinite(energy.update_interval_s) ? energy.update_interval_s : 0;
  const double resolution = std::isfinite(energy.resolution_j) ? energy.resolution_j : 0;
  const auto windows = static_cast<double>(std::max<std::size_t>(energy.windows, 1));
  double uncertainty = windows * (energy.power_w * interval + 2 * resolution) / launches;
  const auto& per_window = energy.window_energy_per_op_j;
  if (per_window.size() > 1) {
    const auto [low, high] = std::minmax_element(per_window.begin(), per_window.end());
    uncertainty = std::max(uncertainty, (*high - *low) / 2);
  }
  energy.launch_rate_uncertainty_j = launch_rate_uncertainty(energy);
  energy.uncertainty_j = uncertainty + energy.launch_rate_uncertainty_j;
  energy.gflops_per_j = flops / energy.energy_per_op_j / 1e9;
  energy.gb_per_j = bytes / energy.energy_per_op_j / 1e9;
}

EnergyMeasurement merge_energy(const EnergyMeasurement& first, const EnergyMeasurement& second, double flops, double bytes) {
  if (!first.reason.empty()) return first;
  if (!second.reason.empty()) return second;
  EnergyMeasurement merged = first;
  merged.windows = first.windows + second.windows;
  merged.window_s = first.window_s + second.window_s;
  merged.energy_j = first.energy_j + second.energy_j;
  merged.launches = first.launches + second.launches;
  merged.extra_launches = first.extra_launches + second.extra_launches;
  merged.extra_s = first.extra_s + second.extra_s;
  merged.includes_timed_samples = first.includes_timed_samples && second.includes_timed_samples;
  merged.update_interval_s = std::fmax(first.update_interval_s, second.update_interval_s);
  merged.min_window_s = std::fmax(first.min_window_s, second.min_window_s);
  merged.window_energy_per_op_j.insert(merged.window_energy_per_op_j.end(), second.window_energy_per_op_j.begin(),
                                       second.window_energy_per_op_j.end());
  finish_energy(merged, flops, bytes);
  return merged;
}

}  // namespace gpb
