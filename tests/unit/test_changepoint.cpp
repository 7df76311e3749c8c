// Change-point detection: the E-Divisive statistic against a brute-force evaluation, a
// planted step found at its run, a single spike and A/A drift raising nothing, over many
// seeded histories.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/changepoint.hpp"
#include "base/random.hpp"
#include "model/types.hpp"

namespace gpb {
namespace {

constexpr double kPi = 3.14159265358979323846;

class Gaussian {
 public:
  explicit Gaussian(std::uint64_t seed) : rng_(seed) {}
  double next() {  // Box-Muller; 1 - u keeps the logarithm finite
    const double radius = std::sqrt(-2.0 * std::log(1.0 - unit_interval(rng_.next())));
    return radius * std::cos(2.0 * kPi * unit_interval(rng_.next()));
  }
  double uniform() { return unit_interval(rng_.next()); }

 private:
  SplitMix64 rng_;
};

// Run medians of a case whose level drifts between processes within about +-3 %: a random
// walk of 0.5 % steps kept within +-2 % (reflected), times 1 % noise per run.
std::vector<double> drifting_history(std::uint64_t seed, std::size_t runs, double base = 100e-6) {
  Gaussian gaussian(seed);
  std::vector<double> medians;
  double drift = 0;
  for (std::size_t i = 0; i < runs; ++i) {
    drift += 0.005 * gaussian.next();
    if (drift > 0.02) drift = 0.04 - drift;
    if (drift < -0.02) drift = -0.04 - drift;
    medians.push_back(base * (1 + drift) * (1 + 0.01 * gaussian.next()));
  }
  return medians;
}

// Independent levels per run, uniform within +-3 %.
std::vector<double> noisy_history(std::uint64_t seed, std::size_t runs, double base = 100e-6) {
  Gaussian gaussian(seed);
  std::vector<double> medians;
  for (std::size_t i = 0; i < runs; ++i) medians.push_back(base * (1 + 0.06 * (gaussian.uniform() - 0.5)));
  return medians;
}

// What `history check` uses: 5 % threshold as the minimum change.
ChangePointOptions gate_options() {
  ChangePointOptions options;
  options.min_relative_change = 0.05;
  return options;
}

double brute_force_divergence(const std::vector<double>& x, std::size_t tau) {
  const double a = static_cast<double>(tau), b = static_cast<double>(x.size() - tau);
  double between = 0, left = 0, right = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const double d = std::abs(x[i] - x[j]);
      if (j < tau)
        left += d;
      else if (i >= tau)
        right += d;
      else
        between += d;
    }
  return a * b / (a + b) * (2 * between / (a * b) - left / (a * (a - 1) / 2) - right / (b * (b - 1) / 2));
}

TEST(ChangePoint, BestSplitMatchesBruteForce) {
  Gaussian gaussian(7);
  for (std::size_t n : {4u, 5u, 9u, 30u, 61u}) {
    std::vector<double> values;
    for (std::size_t i = 0; i < n; ++i) values.push_back(std::round(gaussian.next() * 4) + (i > n / 3 ? 3 : 0));
    for (std::size_t min_segment : {2u, 3u}) {
      if (n < 2 * min_segment) continue;
      double best = -1e300;
      for (std::size_t tau = min_segment; tau + min_segment <= n; ++tau) best = std::max(best, brute_force_divergence(values, tau));
      const Split split = best_split(values, min_segment);
      EXPECT_NEAR(split.divergence, best, 1e-9 * std::abs(best)) << "n=" << n;
      EXPECT_NEAR(brute_force_divergence(values, split.index), best, 1e-9 * std::abs(best)) << "n=" << n;
    }
  }
  EXPECT_EQ(best_split({1.0, 2.0, 3.0}, 2).index, 0u);  // too short to split
}

TEST(ChangePoint, PlantedStepIsFoundAtItsRun) {
  constexpr std::size_t kStep = 20;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    for (auto history : {drifting_history(seed, 30), noisy_history(seed, 30)}) {
      for (std::size_t i = kStep; i < history.size(); ++i) history[i] *= 1.10;
      const ChangePointAnalysis analysis = detect_change_points(history, gate_options());
      ASSERT_EQ(analysis.change_points.size(), 1u) << "seed " << seed;
      EXPECT_EQ(analysis.change_points[0].index, kStep) << "seed " << seed;
      EXPECT_NEAR(analysis.change_points[0].change, 0.10, 0.045) << "seed " << seed;
      EXPECT_LE(analysis.change_points[0].p_value, 0.05);
      ASSERT_EQ(analysis.segments.size(), 2u);
      EXPECT_EQ(analysis.segments[1].begin, kStep);
      EXPECT_EQ(analysis.segments[1].end, 30u);
    }
  }
}

TEST(ChangePoint, RunsManyTimesSlowerDoNotHideAStep) {
  // A machine that thrashed through two runs: 50 times the usual time, one on each side.
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    auto history = noisy_history(seed, 30);
    for (std::size_t i = 20; i < history.size(); ++i) history[i] *= 1.10;
    history[5] *= 50;
    history[25] *= 50;
    const ChangePointAnalysis analysis = detect_change_points(history, gate_options());
    ASSERT_EQ(analysis.change_points.size(), 1u) << "seed " << seed;
    EXPECT_EQ(analysis.change_points[0].index, 20u) << "seed " << seed;
  }
}

TEST(ChangePoint, StepOfTwoNewestRunsIsFound) {
  // The gate's latency: one slow run could be a spike, the second one makes a segment.
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    auto history = noisy_history(seed, 30);
    history[28] *= 1.10;
    const auto one_slow = std::vector<double>(history.begin(), history.end() - 1);
    EXPECT_TRUE(detect_change_points(one_slow, gate_options()).change_points.empty()) << "seed " << seed;
    history[29] *= 1.10;
    const ChangePointAnalysis analysis = detect_change_points(history, gate_options());
    ASSERT_EQ(analysis.change_points.size(), 1u) << "seed " << seed;
    EXPECT_EQ(analysis.change_points[0].index, 28u) << "seed " << seed;
  }
}

TEST(ChangePoint, SingleSpikeRaisesNothing) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    for (std::size_t spike : {0u, 1u, 20u, 28u, 29u}) {
      for (auto history : {drifting_history(seed, 30), noisy_history(seed, 30)}) {
        history[spike] *= seed % 2 ? 1.30 : 50.0;
        const ChangePointAnalysis analysis = detect_change_points(history, gate_options());
        EXPECT_TRUE(analysis.change_points.empty())
            << "seed " << seed << ", spike at " << spike << ": change at " << analysis.change_points[0].index;
      }
    }
  }
}

TEST(ChangePoint, AaHistoriesWithDriftRaiseNothing) {
  std::size_t significant_without_minimum = 0, total = 0;
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    for (const auto& history : {drifting_history(seed, 30), noisy_history(seed, 30)}) {
      const ChangePointAnalysis analysis = detect_change_points(history, gate_options());
      EXPECT_TRUE(analysis.change_points.empty())
          << "seed " << seed << ": change at " << analysis.change_points[0].index << " of "
          << analysis.change_points[0].change;
      ChangePointOptions any_size;
      significant_without_minimum += detect_change_points(history, any_size).change_points.empty() ? 0 : 1;
      ++total;
    }
  }
  // Without the minimum change, splits are still rare: the permutation test holds its level
  // on exchangeable histories, and drift is what the rest are.
  EXPECT_LT(static_cast<double>(significant_without_minimum) / static_cast<double>(total), 0.5);
}

TEST(ChangePoint, CreepBeyondTheMinimumIsReported) {
  // A steady creep of 20 % over 30 runs is reported as steps of the minimum or more. (A
  // slower creep can split into steps each under the minimum and go unreported, as in Otava.)
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto history = noisy_history(seed, 30);
    for (std::size_t i = 0; i < history.size(); ++i) history[i] *= 1 + 0.20 * static_cast<double>(i) / 29;
    const ChangePointAnalysis analysis = detect_change_points(history, gate_options());
    ASSERT_FALSE(analysis.change_points.empty()) << "seed " << seed;
    for (const ChangePoint& change : analysis.change_points) EXPECT_GE(change.change, 0.05) << "seed " << seed;
  }
}

TEST(ChangePoint, DeterministicAndValidated) {
  auto history = noisy_history(3, 40);
  for (std::size_t i = 25; i < 40; ++i) history[i] *= 0.8;
  const auto first = detect_change_points(history);
  const auto second = detect_change_points(history);
  ASSERT_EQ(first.change_points.size(), second.change_points.size());
  for (std::size_t i = 0; i < first.change_points.size(); ++i) {
    EXPECT_EQ(first.change_points[i].index, second.change_points[i].index);
    EXPECT_EQ(first.change_points[i].p_value, second.change_points[i].p_value);
  }
  ASSERT_FALSE(first.change_points.empty());
  EXPECT_EQ(first.change_points.back().index, 25u);
  EXPECT_LT(first.change_points.back().change, -0.15);  // faster: a negative change

  EXPECT_TRUE(detect_change_points({}).segments.empty());
  EXPECT_EQ(detect_change_points({1.0}).segments.size(), 1u);
  EXPECT_THROW(detect_change_points({1.0, 0.0, 2.0}), UsageError);
  EXPECT_THROW(detect_change_points({1.0, std::nan(""), 2.0}), UsageError);
  ChangePointOptions bad;
  bad.alpha = 0;
  EXPECT_THROW(detect_change_points(history, bad), UsageError);
  bad = {};
  bad.min_segment = 1;
  EXPECT_THROW(detect_change_points(history, bad), UsageError);
  bad = {};
  bad.permutations = 5;
  EXPECT_THROW(detect_change_points(history, bad), UsageError);
}

}  // namespace
}  // namespace gpb
