#include "model/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gpb {
namespace {

// Names in enum order.
const char* const kStopReasonNames[] = {"converged", "max_time", "max_samples"};

}  // namespace

std::string to_string(StopReason reason) { return kStopReasonNames[static_cast<std::size_t>(reason)]; }

const std::vector<StopReason>& all_stop_reasons() {
  static const std::vector<StopReason> reasons{StopReason::converged, StopReason::max_time, StopReason::max_samples};
  return reasons;
}

std::string to_string(const StopReasons& reasons) {
  std::string text;
  for (StopReason reason : all_stop_reasons())
    if (reasons.contains(reason)) text += (text.empty() ? "" : "+") + to_string(reason);
  return text;
}

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

namespace {

// Distribution-free 95 % confidence interval of the median from order statistics: the
// number of samples below the median is Binomial(n, 1/2), so ranks n/2 -+ 1.96 sqrt(n)/2
// bracket it (normal approximation, conservative rounding). Below 6 samples no pair of
// order statistics reaches 95 %, so the interval is the whole range.
void median_confidence_interval(const std::vector<double>& sorted, Statistics& stats) {
  const std::size_t n = sorted.size();
  if (n < 6) {
    stats.median_ci_low = sorted.front();
    stats.median_ci_high = sorted.back();
    return;
  }
  const double half_width = 1.959964 * std::sqrt(static_cast<double>(n)) / 2.0;
  const double centre = static_cast<double>(n) / 2.0;
  const auto low_rank = static_cast<std::ptrdiff_t>(std::floor(centre - half_width));       // 1-based
  const auto high_rank = static_cast<std::ptrdiff_t>(std::ceil(centre + half_width)) + 1;  // 1-based
  const auto clamp_rank = [n](std::ptrdiff_t rank) {
    return static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(rank, 1, static_cast<std::ptrdiff_t>(n)) - 1);
  };
  stats.median_ci_low = sorted[clamp_rank(low_rank)];
  stats.median_ci_high = sorted[clamp_rank(high_rank)];
}

}  // namespace

Statistics compute_statistics(const std::vector<double>& samples) {
  Statistics stats;
  stats.count = samples.size();
  if (samples.empty()) return stats;
  std::vector<double> sorted(samples);
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(sorted.size());
  stats.min = sorted.front();
  stats.max = sorted.back();
  stats.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  double squares = 0;
  for (double v : sorted) squares += (v - stats.mean) * (v - stats.mean);
  stats.stddev = sorted.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  stats.rel_stddev = stats.mean > 0 ? stats.stddev / stats.mean : 0.0;
  stats.median = quantile_sorted(sorted, 0.5);
  stats.p5 = quantile_sorted(sorted, 0.05);
  stats.p95 = quantile_sorted(sorted, 0.95);
  stats.q1 = quantile_sorted(sorted, 0.25);
  stats.q3 = quantile_sorted(sorted, 0.75);
  median_confidence_interval(sorted, stats);
  return stats;
}

double median_relative_halfwidth(const Statistics& stats) {
  if (stats.count < 6 || stats.median <= 0) return std::numeric_limits<double>::infinity();
  return (stats.median_ci_high - stats.median_ci_low) / 2.0 / stats.median;
}

std::optional<StopReason> should_stop(const StoppingRule& rule, const std::vector<double>& samples, double elapsed_s) {
  const std::size_t n = samples.size();
  if (n >= rule.max_samples) return StopReason::max_samples;
  // The noise check sorts the samples; doing it at every ~6 % growth step keeps long
  // runs of short samples linear-ish instead of quadratic.
  const bool checkpoint = n == rule.min_samples || n % std::max<std::size_t>(1, n / 16) == 0;
  const bool enough = n >= rule.min_samples && elapsed_s >= rule.min_time_s;
  if (enough && checkpoint && median_relative_halfwidth(compute_statistics(samples)) <= rule.max_noise)
    return StopReason::converged;
  // The time budget is a hard limit once a spread can be computed at all (3 samples), so
  // one slow case cannot hold a suite hostage; the report shows the sample count.
  if (elapsed_s >= rule.max_time_s && n >= std::min<std::size_t>(3, rule.min_samples)) return StopReason::max_time;
  return std::nullopt;
}

}  // namespace gpb
