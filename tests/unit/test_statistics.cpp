#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "model/statistics.hpp"

namespace gpb {
namespace {

TEST(Statistics, MatchesHandComputedValues) {
  const Statistics s = compute_statistics({4, 1, 3, 2, 5});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));  // sample stddev (n - 1)
  EXPECT_DOUBLE_EQ(s.rel_stddev, std::sqrt(2.5) / 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.p5, 1.2);   // numpy.percentile([1..5], 5) with linear interpolation
  EXPECT_DOUBLE_EQ(s.p95, 4.8);
}

TEST(Statistics, EvenCountMedianInterpolates) {
  EXPECT_DOUBLE_EQ(compute_statistics({1, 2, 3, 10}).median, 2.5);
}

TEST(Statistics, EmptyAndSingle) {
  EXPECT_EQ(compute_statistics({}).count, 0u);
  const Statistics one = compute_statistics({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
  EXPECT_TRUE(std::isinf(median_relative_halfwidth(one)));
}

TEST(Statistics, MedianConfidenceIntervalBracketsTheMedianAndShrinks) {
  std::vector<double> samples;
  for (int i = 0; i < 100; ++i) samples.push_back(100.0 + (i % 10));
  const Statistics s = compute_statistics(samples);
  EXPECT_LE(s.median_ci_low, s.median);
  EXPECT_GE(s.median_ci_high, s.median);
  // For n = 100 the order-statistic ranks are 40 and 61 (1-based), i.e. 103 and 106 here
  // once sorted (ten copies of each value 100..109).
  EXPECT_DOUBLE_EQ(s.median_ci_low, 103);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 106);
  std::vector<double> more;
  for (int i = 0; i < 10000; ++i) more.push_back(100.0 + (i % 10) * 0.001);
  EXPECT_LT(median_relative_halfwidth(compute_statistics(more)), median_relative_halfwidth(s));
}

TEST(StoppingRule, WaitsForMinimumSamplesAndTime) {
  StoppingRule rule;
  rule.min_samples = 5;
  rule.min_time_s = 1.0;
  rule.max_time_s = 10;
  const std::vector<double> tight(4, 1.0);
  EXPECT_EQ(should_stop(rule, tight, 5.0), std::nullopt);  // too few samples
  const std::vector<double> five(5, 1.0);
  EXPECT_EQ(should_stop(rule, five, 0.5), std::nullopt);   // too little time
  EXPECT_EQ(should_stop(rule, std::vector<double>(6, 1.0), 1.5), StopReason::converged);
}

TEST(StoppingRule, NoisySamplesRunToTheTimeBudget) {
  StoppingRule rule;
  rule.min_samples = 10;
  rule.max_noise = 0.005;
  rule.min_time_s = 0;
  rule.max_time_s = 2;
  std::vector<double> noisy;
  for (int i = 0; i < 10; ++i) noisy.push_back(i % 2 ? 1.0 : 2.0);
  EXPECT_EQ(should_stop(rule, noisy, 1.0), std::nullopt);
  EXPECT_EQ(should_stop(rule, noisy, 2.5), StopReason::max_time);
}

TEST(StoppingRule, TimeBudgetIsHardOnceThreeSamplesExist) {
  StoppingRule rule;
  rule.min_samples = 10;
  rule.max_time_s = 1;
  EXPECT_EQ(should_stop(rule, {5.0, 5.0}, 10), std::nullopt);
  EXPECT_EQ(should_stop(rule, {5.0, 5.0, 5.0}, 15), StopReason::max_time);
}

TEST(StoppingRule, SampleCap) {
  StoppingRule rule;
  rule.min_samples = 2;
  rule.max_samples = 3;
  rule.max_time_s = 100;
  EXPECT_EQ(should_stop(rule, {1.0, 3.0, 9.0}, 0), StopReason::max_samples);
}

}  // namespace
}  // namespace gpb
