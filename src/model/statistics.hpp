// Summary statistics over raw samples, and the stopping rule built on them.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "model/result.hpp"

namespace gpb {

// Linear-interpolated quantile (type 7, as numpy's default) of sorted values, q in [0, 1].
double quantile_sorted(const std::vector<double>& sorted, double q);

Statistics compute_statistics(const std::vector<double>& samples);

// Relative half-width of the 95 % distribution-free confidence interval of the median
// ((hi - lo) / 2 / median); infinity when there are too few samples to bound it.
double median_relative_halfwidth(const Statistics& stats);

struct StoppingRule {
  std::size_t min_samples = 10;
  std::size_t max_samples = 100000;
  double max_noise = 0.005;   // target for median_relative_halfwidth
  double min_time_s = 0.05;   // measure at least this long
  double max_time_s = 2.0;    // and at most this long (a hard limit once 3 samples exist)
};

// Decides after each sample: why to stop, or nothing to go on; elapsed_s is the wall time
// spent measuring so far.
std::optional<StopReason> should_stop(const StoppingRule& rule, const std::vector<double>& samples, double elapsed_s);

}  // namespace gpb
