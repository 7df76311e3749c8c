// Summary statistics over raw samples, and the stopping rule built on them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpb {

struct Statistics {
  std::size_t count = 0;
  double min = 0, max = 0, mean = 0, median = 0, stddev = 0, rel_stddev = 0;
  double p5 = 0, p95 = 0, q1 = 0, q3 = 0;
  double median_ci_low = 0, median_ci_high = 0;  // 95 % distribution-free CI of the median
};

// Why sampling stopped (the stopping rule below).
enum class StopReason { converged, max_time, max_samples };  // statistics.cpp names them in this order
std::string to_string(StopReason reason);  // "converged", "max_time", "max_samples"
const std::vector<StopReason>& all_stop_reasons();

// The reasons sampling stopped for one case: one per pass, so several where passes
// (--repetitions) stopped differently; none where the case took no samples.
class StopReasons {
 public:
  StopReasons() = default;
  explicit StopReasons(StopReason reason) { add(reason); }
  void add(StopReason reason) { bits_ |= bit(reason); }
  void add(const StopReasons& other) { bits_ |= other.bits_; }
  bool contains(StopReason reason) const { return (bits_ & bit(reason)) != 0; }
  bool operator==(const StopReasons& other) const { return bits_ == other.bits_; }

 private:
  static unsigned bit(StopReason reason) { return 1u << static_cast<unsigned>(reason); }
  unsigned bits_ = 0;
};
// In StopReason order, joined by '+': "converged", "converged+max_time"; "" for none.
std::string to_string(const StopReasons& reasons);

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
