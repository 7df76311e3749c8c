#include "analysis/changepoint.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/random.hpp"
#include "model/types.hpp"

namespace gpb {
namespace {

// Evaluates the divergence of every split of one arrangement of a fixed multiset of values
// in O(n log n): a Fenwick tree over the distinct values gives each value's summed distance
// to the values before it, and its distance to all of them is fixed by the multiset.
class EnergyScan {
 public:
  explicit EnergyScan(const std::vector<double>& values) : distinct_(values) {
    std::sort(distinct_.begin(), distinct_.end());
    distinct_.erase(std::unique(distinct_.begin(), distinct_.end()), distinct_.end());
    std::vector<double> sorted(values);
    std::sort(sorted.begin(), sorted.end());
    // Distance of each distinct value to every value: below it, then above it.
    const double total = std::accumulate(sorted.begin(), sorted.end(), 0.0);
    double below_sum = 0;
    std::size_t below = 0;
    distance_to_all_.resize(distinct_.size());
    for (std::size_t d = 0; d < distinct_.size(); ++d) {
      while (below < sorted.size() && sorted[below] < distinct_[d]) below_sum += sorted[below++];
      const double v = distinct_[d];
      const double above_count = static_cast<double>(sorted.size() - below), above_sum = total - below_sum;
      distance_to_all_[d] = v * static_cast<double>(below) - below_sum + above_sum - v * above_count;
    }
    count_tree_.resize(distinct_.size() + 1);
    sum_tree_.resize(distinct_.size() + 1);
  }

  // values[i] as an index into the distinct values.
  std::vector<std::size_t> positions(const std::vector<double>& values) const {
    std::vector<std::size_t> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      out[i] = static_cast<std::size_t>(std::lower_bound(distinct_.begin(), distinct_.end(), values[i]) - distinct_.begin());
    return out;
  }

  Split best(const std::vector<std::size_t>& arrangement, std::size_t min_segment) {
    const std::size_t n = arrangement.size();
    Split split;
    if (n < 2 * min_segment) return split;
    std::fill(count_tree_.begin(), count_tree_.end(), 0.0);
    std::fill(sum_tree_.begin(), sum_tree_.end(), 0.0);
    // within_left[t]: sum of distances among the first t values; right_part[t]: distances
    // from value t to the values after it.
    within_left_.assign(n + 1, 0.0);
    right_part_.assign(n, 0.0);
    double sum_before = 0;
    for (std::size_t t = 0; t < n; ++t) {
      const std::size_t d = arrangement[t];
      const double v = distinct_[d];
      const double count_le = prefix(count_tree_, d), sum_le = prefix(sum_tree_, d);
      const double count_gt = static_cast<double>(t) - count_le, sum_gt = sum_before - sum_le;
      const double to_earlier = v * count_le - sum_le + sum_gt - v * count_gt;
      within_left_[t + 1] = within_left_[t] + to_earlier;
      right_part_[t] = distance_to_all_[d] - to_earlier;
      add(count_tree_, d, 1.0);
      add(sum_tree_, d, v);
      sum_before += v;
    }
    const double all_pairs = within_left_[n];
    double within_right = 0;  // sum over the values from tau on, built from the end
    for (std::size_t tau = n; tau-- > min_segment;) {
      within_right += right_part_[tau];
      if (n - tau < min_segment) continue;
      const double a = static_cast<double>(tau), b = static_cast<double>(n - tau);
      const double between = all_pairs - within_left_[tau] - within_right;
      const double divergence =
          a * b / (a + b) * (2 * between / (a * b) - 2 * within_left_[tau] / (a * (a - 1)) - 2 * within_right / (b * (b - 1)));
      if (split.index == 0 || divergence >= split.divergence) split = {tau, divergence};
    }
    return split;
  }

 private:
  static double prefix(const std::vector<double>& tree, std::size_t position) {
    double total = 0;
    for (std::size_t i = position + 1; i > 0; i -= i & (~i + 1)) total += tree[i];
    return total;
  }
  static void add(std::vector<double>& tree, std::size_t position, double value) {
    for (std::size_t i = position + 1; i < tree.size(); i += i & (~i + 1)) tree[i] += value;
  }

  std::vector<double> distinct_, distance_to_all_;
  std::vector<double> count_tree_, sum_tree_, within_left_, right_part_;
};

// Outliers are clipped this many median absolute deviations from the median.
constexpr double kClipDeviations = 10;

double median_of(std::vector<double> values);

// Timings change by ratios, so the divergence is taken on logarithms; and a run many times
// slower than the rest (a machine that thrashed) is clipped to kClipDeviations MADs from the
// part's median, so that it weighs like an ordinary outlier and cannot hide a real shift.
std::vector<double> bounded_logarithms(const std::vector<double>& values, std::size_t begin, std::size_t end) {
  std::vector<double> logs;
  for (std::size_t i = begin; i < end; ++i) logs.push_back(std::log(values[i]));
  const double centre = median_of(logs);
  std::vector<double> deviations;
  for (const double value : logs) deviations.push_back(std::abs(value - centre));
  const double limit = kClipDeviations * median_of(deviations);
  if (limit > 0)
    for (double& value : logs) value = std::clamp(value, centre - limit, centre + limit);
  return logs;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The segment's median, except that of an even-sized segment's two middle values the one
// nearer `reference` counts: one outlier in a pair cannot carry the pair's level.
double level_towards(const std::vector<double>& values, const Segment& segment, double reference) {
  std::vector<double> part(values.begin() + static_cast<std::ptrdiff_t>(segment.begin),
                           values.begin() + static_cast<std::ptrdiff_t>(segment.end));
  std::sort(part.begin(), part.end());
  const std::size_t n = part.size();
  if (n % 2) return part[n / 2];
  const double low = part[n / 2 - 1], high = part[n / 2];
  return std::abs(low - reference) <= std::abs(high - reference) ? low : high;
}

double level_change(const std::vector<double>& values, const Segment& before, const Segment& after) {
  const double from = level_towards(values, before, after.median), to = level_towards(values, after, before.median);
  return from != 0 ? to / from - 1 : 0;
}

// Permutation p-value of a split of divergence `observed`: the share of random arrangements
// of the same values whose best split diverges at least as much (counting the observed one).
// Stops as soon as the split cannot pass alpha.
double permutation_p_value(const std::vector<double>& values, double observed, const ChangePointOptions& options,
                           std::uint64_t key) {
  EnergyScan scan(values);
  std::vector<std::size_t> arrangement = scan.positions(values);
  SplitMix64 rng(key);
  const double tolerance = 1e-9 * std::max(1.0, std::abs(observed));
  const double allowed = options.alpha * static_cast<double>(options.permutations + 1) - 1;
  std::size_t at_least = 0, done = 0;
  while (done < options.permutations) {
    for (std::size_t i = arrangement.size(); i > 1; --i)
      std::swap(arrangement[i - 1], arrangement[uniform_index(rng.next(), i)]);
    ++done;
    if (scan.best(arrangement, options.min_segment).divergence >= observed - tolerance) ++at_least;
    if (static_cast<double>(at_least) > allowed) break;
  }
  return static_cast<double>(at_least + 1) / static_cast<double>(done + 1);
}

void split_recursively(const std::vector<double>& values, std::size_t begin, std::size_t end,
                       const ChangePointOptions& options, std::vector<ChangePoint>& found) {
  if (end - begin < 2 * options.min_segment) return;
  const std::vector<double> part = bounded_logarithms(values, begin, end);
  EnergyScan scan(part);
  const Split split = scan.best(scan.positions(part), options.min_segment);
  if (split.index == 0 || !(split.divergence > 0)) return;
  const double p = permutation_p_value(part, split.divergence, options, derive_key(derive_key(options.seed, begin), end));
  if (p > options.alpha) return;
  found.push_back({begin + split.index, p, 0});
  split_recursively(values, begin, begin + split.index, options, found);
  split_recursively(values, begin + split.index, end, options, found);
}

std::vector<Segment> segments_between(const std::vector<double>& values, const std::vector<ChangePoint>& change_points) {
  std::vector<Segment> segments;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= change_points.size(); ++i) {
    const std::size_t end = i < change_points.size() ? change_points[i].index : values.size();
    segments.push_back({begin, end,
                        median_of(std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(begin),
                                                      values.begin() + static_cast<std::ptrdiff_t>(end)))});
    begin = end;
  }
  return segments;
}

}  // namespace

Split best_split(const std::vector<double>& values, std::size_t min_segment) {
  EnergyScan scan(values);
  return scan.best(scan.positions(values), std::max<std::size_t>(min_segment, 2));
}

ChangePointAnalysis detect_change_points(const std::vector<double>& values, const ChangePointOptions& options) {
  if (!(options.alpha > 0 && options.alpha < 1))
    throw UsageError("change-point significance must be between 0 and 1, got " + std::to_string(options.alpha));
  if (options.min_segment < 2) throw UsageError("change-point segments need at least 2 runs");
  if (static_cast<double>(options.permutations + 1) * options.alpha < 1)
    throw UsageError("too few permutations (" + std::to_string(options.permutations) + ") for significance " +
                     std::to_string(options.alpha));
  for (const double value : values)
    if (!(value > 0) || !std::isfinite(value))
      throw UsageError("change points are found in positive timings, got " + std::to_string(value));
  ChangePointAnalysis analysis;
  if (values.empty()) return analysis;
  split_recursively(values, 0, values.size(), options, analysis.change_points);
  std::sort(analysis.change_points.begin(), analysis.change_points.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });

  // Merge away the smallest level change until every one left reaches the minimum.
  for (;;) {
    analysis.segments = segments_between(values, analysis.change_points);
    for (std::size_t i = 0; i < analysis.change_points.size(); ++i)
      analysis.change_points[i].change = level_change(values, analysis.segments[i], analysis.segments[i + 1]);
    const auto weakest = std::min_element(
        analysis.change_points.begin(), analysis.change_points.end(),
        [](const ChangePoint& a, const ChangePoint& b) { return std::abs(a.change) < std::abs(b.change); });
    if (weakest == analysis.change_points.end() || std::abs(weakest->change) >= options.min_relative_change) break;
    analysis.change_points.erase(weakest);
  }
  return analysis;
}

}  // namespace gpb
