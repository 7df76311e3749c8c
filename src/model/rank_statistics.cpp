#include "model/rank_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>

namespace gpb {
namespace {

// The exact distribution costs about 2 k^2 N^2 steps (k: smaller sample, N: both), so it is
// kept to the small samples where the normal approximation is poor.
constexpr std::size_t kExactBelowSmallerSample = 10;
constexpr std::size_t kExactMaxTotal = 200;

constexpr std::size_t kMinSamplesForAutocorrelation = 10;
constexpr double kMaxAutocorrelation = 0.9;

// Fewer strata than this cannot tell their disagreement from chance well enough to widen
// the pooled variance by it.
constexpr std::size_t kMinStrataForDispersion = 3;

// Midranks of the pooled values, doubled so that ties (half ranks) stay integers.
struct PooledRanks {
  std::vector<std::int64_t> doubled_ranks;  // in pooled order: x first, then y
  double tie_term = 0;                      // sum over tie groups of t^3 - t
};

PooledRanks rank_pooled(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> pooled(x);
  pooled.insert(pooled.end(), y.begin(), y.end());
  std::vector<std::size_t> order(pooled.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pooled[a] < pooled[b]; });

  PooledRanks ranks;
  ranks.doubled_ranks.resize(pooled.size());
  for (std::size_t first = 0; first < order.size();) {
    std::size_t end = first + 1;
    while (end < order.size() && pooled[order[end]] == pooled[order[first]]) ++end;
    // Positions first..end-1 hold ranks first+1..end; their mean doubled is first+1+end.
    const auto doubled = static_cast<std::int64_t>(first + 1 + end);
    for (std::size_t i = first; i < end; ++i) ranks.doubled_ranks[order[i]] = doubled;
    const auto group = static_cast<double>(end - first);
    ranks.tie_term += group * group * group - group;
    first = end;
  }
  return ranks;
}

// P(|S - E[S]| >= |observed - E[S]|) where S is the doubled rank sum of a random subset of
// `subset_size` of the pooled doubled ranks: counts subsets by sum, one score at a time.
double exact_two_sided_p(const std::vector<std::int64_t>& doubled_ranks, std::size_t subset_size,
                         std::int64_t observed_doubled_sum) {
  std::vector<std::int64_t> descending(doubled_ranks);
  std::sort(descending.rbegin(), descending.rend());
  const std::int64_t max_sum = std::accumulate(
      descending.begin(), descending.begin() + static_cast<std::ptrdiff_t>(subset_size), std::int64_t{0});
  const auto width = static_cast<std::size_t>(max_sum) + 1;

  // subsets[k * width + s]: number of k-subsets of the scores seen so far with doubled sum s.
  // Doubles hold these counts (up to C(200, 9) ~ 1e16) with ample relative precision.
  std::vector<double> subsets((subset_size + 1) * width, 0.0);
  subsets[0] = 1;
  std::size_t seen = 0;
  for (const std::int64_t score : doubled_ranks) {
    ++seen;
    const auto step = static_cast<std::size_t>(score);
    for (std::size_t k = std::min(seen, subset_size); k >= 1; --k) {
      double* row = &subsets[k * width];
      const double* previous = &subsets[(k - 1) * width];
      for (std::size_t s = width; s-- > step;) row[s] += previous[s - step];
    }
  }

  const auto pooled_size = static_cast<std::int64_t>(doubled_ranks.size());
  // The doubled mean rank sum, k (N + 1), is an integer too, so the comparison below is exact.
  const std::int64_t doubled_mean = static_cast<std::int64_t>(subset_size) * (pooled_size + 1);
  const std::int64_t observed_distance = std::abs(observed_doubled_sum - doubled_mean);
  const double* sums = &subsets[subset_size * width];
  double total = 0, extreme = 0;
  for (std::size_t s = 0; s < width; ++s) {
    total += sums[s];
    if (std::abs(static_cast<std::int64_t>(s) - doubled_mean) >= observed_distance) extreme += sums[s];
  }
  return std::min(1.0, extreme / total);
}

// The variance of U is a sum of one term per sample (its mean rank's variance, Hajek's
// projection); serial correlation inflates each term by its sample's factor.
double normal_two_sided_p(double u, double n_x, double n_y, double tie_term, double x_inflation, double y_inflation) {
  const double pooled = n_x + n_y;
  const double inflation = (n_y * x_inflation + n_x * y_inflation) / pooled;
  const double variance = n_x * n_y / 12.0 * ((pooled + 1) - tie_term / (pooled * (pooled - 1))) * inflation;
  if (variance <= 0) return 1.0;  // every value tied: no evidence either way
  const double z = std::max(0.0, std::abs(u - n_x * n_y / 2.0) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

// Positions of the p-values in ascending order (ties in input order).
std::vector<std::size_t> ascending_order(const std::vector<double>& p_values) {
  std::vector<std::size_t> order(p_values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  return order;
}

}  // namespace

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                 double x_variance_inflation, double y_variance_inflation) {
  MannWhitneyResult result;
  if (x.empty() || y.empty()) return result;

  const PooledRanks ranks = rank_pooled(x, y);
  const auto x_ranks_end = ranks.doubled_ranks.begin() + static_cast<std::ptrdiff_t>(x.size());
  const std::int64_t x_doubled_sum = std::accumulate(ranks.doubled_ranks.begin(), x_ranks_end, std::int64_t{0});
  const auto n_x = static_cast<double>(x.size());
  const auto n_y = static_cast<double>(y.size());
  result.u = static_cast<double>(x_doubled_sum) / 2.0 - n_x * (n_x + 1) / 2.0;

  const std::size_t smaller = std::min(x.size(), y.size());
  result.exact = smaller < kExactBelowSmallerSample && x.size() + y.size() <= kExactMaxTotal;
  if (!result.exact) {
    result.p_value = normal_two_sided_p(result.u, n_x, n_y, ranks.tie_term, x_variance_inflation, y_variance_inflation);
    return result;
  }
  // The two-sided p is the same for either sample's rank sum; the smaller one is cheaper.
  if (x.size() == smaller) {
    result.p_value = exact_two_sided_p(ranks.doubled_ranks, smaller, x_doubled_sum);
  } else {
    const std::int64_t y_doubled_sum = std::accumulate(x_ranks_end, ranks.doubled_ranks.end(), std::int64_t{0});
    result.p_value = exact_two_sided_p(ranks.doubled_ranks, smaller, y_doubled_sum);
  }
  return result;
}

StratifiedRankResult stratified_rank_test(const std::vector<RankStratum>& strata) {
  StratifiedRankResult result;
  struct Estimate {
    double effect, variance, inflation;
  };
  std::vector<Estimate> estimates;
  for (const RankStratum& stratum : strata) {
    if (stratum.x.empty() || stratum.y.empty()) continue;
    const PooledRanks ranks = rank_pooled(stratum.x, stratum.y);
    const auto n_x = static_cast<double>(stratum.x.size());
    const auto n_y = static_cast<double>(stratum.y.size());
    const double pooled = n_x + n_y;
    const std::int64_t x_doubled_sum = std::accumulate(
        ranks.doubled_ranks.begin(), ranks.doubled_ranks.begin() + static_cast<std::ptrdiff_t>(stratum.x.size()),
        std::int64_t{0});
    const double u = static_cast<double>(x_doubled_sum) / 2.0 - n_x * (n_x + 1) / 2.0;
    const double tie_factor = pooled > 1 ? (pooled + 1) - ranks.tie_term / (pooled * (pooled - 1)) : 0;
    const double inflation = (n_y * stratum.x_variance_inflation + n_x * stratum.y_variance_inflation) / pooled;
    // Var(U) / (n_x n_y)^2: the variance of the stratum's estimate of P(x > y) - 1/2.
    const double variance = tie_factor / (12.0 * n_x * n_y) * inflation;
    if (variance <= 0) continue;  // every value of the stratum tied: it says nothing either way
    estimates.push_back({u / (n_x * n_y) - 0.5, variance, inflation});
  }
  result.strata = estimates.size();
  if (estimates.empty()) return result;
  double weight_sum = 0, weighted_effect = 0, weighted_inflation = 0, squared_weights = 0;
  for (const Estimate& e : estimates) {
    weight_sum += 1 / e.variance;
    squared_weights += 1 / (e.variance * e.variance);
    weighted_effect += e.effect / e.variance;
    weighted_inflation += e.inflation / e.variance;
  }
  result.effect = weighted_effect / weight_sum;
  result.within_inflation = weighted_inflation / weight_sum;
  double variance = 1 / weight_sum;
  if (estimates.size() >= kMinStrataForDispersion) {
    // Rounds that disagree beyond their own noise: the round is the unit that replicates the
    // comparison, so its disagreement is added to every round's variance (DerSimonian and
    // Laird's between-round variance from Cochran's Q). A round of many samples then weighs
    // no more than the others say it should: one stretch of time that another job slowed
    // cannot carry the verdict alone.
    double q = 0;
    for (const Estimate& e : estimates) q += (e.effect - result.effect) * (e.effect - result.effect) / e.variance;
    const double between = std::max(0.0, (q - static_cast<double>(estimates.size() - 1)) /
                                             (weight_sum - squared_weights / weight_sum));
    if (between > 0) {
      double random_weight_sum = 0, random_effect = 0;
      for (const Estimate& e : estimates) {
        random_weight_sum += 1 / (e.variance + between);
        random_effect += e.effect / (e.variance + between);
      }
      result.effect = random_effect / random_weight_sum;
      result.between_inflation = weight_sum / random_weight_sum;
      variance = 1 / random_weight_sum;
    }
  }
  result.z = result.effect / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(std::abs(result.z) / std::sqrt(2.0)));
  return result;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p_values) {
  const std::vector<std::size_t> order = ascending_order(p_values);
  const auto tests = static_cast<double>(p_values.size());
  std::vector<double> adjusted(p_values.size());
  double running_min = 1.0;
  for (std::size_t rank = order.size(); rank-- > 0;) {
    // m / j first: exactly 1 for the largest p, and at least 1, so no p is adjusted downwards.
    running_min = std::min(running_min, p_values[order[rank]] * (tests / static_cast<double>(rank + 1)));
    adjusted[order[rank]] = running_min;
  }
  return adjusted;
}

std::vector<double> holm(const std::vector<double>& p_values) {
  const std::vector<std::size_t> order = ascending_order(p_values);
  const std::size_t tests = p_values.size();
  std::vector<double> adjusted(tests);
  double running_max = 0.0;
  for (std::size_t rank = 0; rank < tests; ++rank) {
    running_max = std::max(running_max, std::min(1.0, p_values[order[rank]] * static_cast<double>(tests - rank)));
    adjusted[order[rank]] = running_max;
  }
  return adjusted;
}

double serial_variance_inflation(const std::vector<double>& samples) {
  if (samples.size() < kMinSamplesForAutocorrelation) return 1.0;
  const std::vector<std::int64_t> doubled_ranks = rank_pooled(samples, {}).doubled_ranks;
  const double mean = static_cast<double>(samples.size() + 1);  // of the doubled ranks
  double lagged = 0, spread = 0;
  for (std::size_t i = 0; i < doubled_ranks.size(); ++i) {
    const double deviation = static_cast<double>(doubled_ranks[i]) - mean;
    spread += deviation * deviation;
    if (i + 1 < doubled_ranks.size()) lagged += deviation * (static_cast<double>(doubled_ranks[i + 1]) - mean);
  }
  if (spread <= 0) return 1.0;  // all equal
  const double autocorrelation = std::clamp(lagged / spread, 0.0, kMaxAutocorrelation);
  return (1 + autocorrelation) / (1 - autocorrelation);
}

}  // namespace gpb
