// The verdict rule as properties, over a deterministic sweep of synthetic sample sets:
// slowdown factors from 1 (A/A) to 100x, noise from 0.2 % to 60 %, serial correlation and
// interruptions, 6 to 100 samples a side, several cases per comparison. Evidence decides:
// bounds clear of the threshold are never "same"; an A/A comparison finds slowdowns no more
// often than the error budget allows; the exit code follows the verdicts. And the p-value
// adjustments against R's p.adjust.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analysis/compare.hpp"
#include "model/rank_statistics.hpp"
#include "synthetic_samples.hpp"

namespace gpb {
namespace {

using testing::measured;
using testing::Noise;
using testing::timing_samples;

// ---- p-value adjustment -----------------------------------------------------------------------

void expect_values(const std::vector<double>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 1e-12) << "at " << i;
}

TEST(PAdjust, BenjaminiHochbergMatchesR) {
  // p.adjust(c(0.04, 0.001, 0.5, 0.02), "BH")
  expect_values(benjamini_hochberg({0.04, 0.001, 0.5, 0.02}), {0.04 * 4 / 3, 0.004, 0.5, 0.04});
  // p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "BH"): all 0.05
  expect_values(benjamini_hochberg({0.01, 0.02, 0.03, 0.04, 0.05}), {0.05, 0.05, 0.05, 0.05, 0.05});
  expect_values(benjamini_hochberg({0.9, 0.8}), {0.9, 0.9});
  EXPECT_TRUE(benjamini_hochberg({}).empty());
}

TEST(PAdjust, HolmMatchesR) {
  // p.adjust(c(0.04, 0.001, 0.5, 0.02), "holm")
  expect_values(holm({0.04, 0.001, 0.5, 0.02}), {0.08, 0.004, 0.5, 0.06});
  // p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm")
  expect_values(holm({0.01, 0.02, 0.03, 0.04, 0.05}), {0.05, 0.08, 0.09, 0.09, 0.09});
  expect_values(holm({0.6, 0.7}), {1.0, 1.0});
}

TEST(PAdjust, NeitherAdjustmentLowersAPValueAndHolmIsTheStricter) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    std::vector<double> p;
    SplitMix64 rng(seed);
    for (std::uint64_t i = 0; i < 1 + seed % 30; ++i) p.push_back(std::pow(unit_interval(rng.next()), 3));
    const auto bh = benjamini_hochberg(p), fwer = holm(p);
    for (std::size_t i = 0; i < p.size(); ++i) {
      EXPECT_GE(bh[i], p[i]);
      EXPECT_LE(bh[i], 1.0);
      EXPECT_GE(fwer[i], bh[i] - 1e-15);
      EXPECT_LE(fwer[i], 1.0);
    }
  }
}

// ---- The sweep --------------------------------------------------------------------------------

Context machine() {
  Context context;
  context.cpu_model = "synthetic CPU";
  return context;
}

CaseSpec spec_number(int index) {
  CaseSpec spec;
  spec.op = Op::sum;
  spec.backend = "eigen";
  spec.dtype = DType::f64;
  spec.shape = elementwise_shape(1024 * (index + 1));
  return spec;
}

struct Setting {
  double factor;
  Noise noise;
  std::size_t samples;
};

constexpr int kCasesPerComparison = 6;

// A comparison of kCasesPerComparison cases, the current side `factor` times the baseline.
Comparison compare_setting(const Setting& setting, std::uint64_t seed, const CompareOptions& options) {
  LoadedReport baseline{machine(), {}}, current{machine(), {}};
  for (int i = 0; i < kCasesPerComparison; ++i) {
    const std::uint64_t case_seed = seed * 1000 + static_cast<std::uint64_t>(i) * 2;
    baseline.results.push_back(measured(spec_number(i), timing_samples(case_seed, 1e-3, setting.samples, setting.noise)));
    current.results.push_back(
        measured(spec_number(i), timing_samples(case_seed + 1, 1e-3 * setting.factor, setting.samples, setting.noise)));
  }
  return compare_reports(baseline, current, options);
}

int expected_exit_code(const Comparison& comparison) {
  bool regressed = false, inconclusive = false;
  for (const CaseComparison& c : comparison.cases) {
    regressed |= c.verdict == Verdict::slower || c.verdict == Verdict::failed || c.verdict == Verdict::missing;
    inconclusive |= c.verdict == Verdict::inconclusive;
  }
  if (regressed) return 1;
  return inconclusive && comparison.inconclusive == InconclusivePolicy::fail ? 4 : 0;
}

std::string describe(const Setting& setting, const CaseComparison& c) {
  char text[256];
  std::snprintf(text, sizeof text, "factor %g, noise %g, r %g, outliers %g, n %zu: %s ratio %.4f [%.4f, %.4f] p %.3g adj %.3g",
                setting.factor, setting.noise.relative, setting.noise.autocorrelation, setting.noise.outlier_rate,
                setting.samples, c.label().c_str(), *c.ratio, c.ratio_bounds->low, c.ratio_bounds->high, *c.p_value,
                *c.p_adjusted);
  return text + std::string(": ") + c.note;
}

std::vector<Setting> sweep() {
  std::vector<Setting> settings;
  for (double factor : {1.0, 1.01, 1.03, 1.05, 1.08, 1.2, 1.5, 2.0, 5.0, 10.0, 100.0})
    for (double noise : {0.002, 0.01, 0.05, 0.2, 0.6})
      for (std::size_t samples : {6u, 12u, 30u, 100u})
        for (const auto& [autocorrelation, outliers] : {std::pair{0.0, 0.0}, std::pair{0.5, 0.05}})
          settings.push_back({factor, {noise, autocorrelation, outliers}, samples});
  return settings;
}

TEST(CompareProperties, EvidenceDecidesOverTheWholeSweep) {
  const std::vector<Setting> settings = sweep();
  std::size_t checked = 0, slower = 0, inconclusive = 0;
  for (std::size_t index = 0; index < settings.size(); ++index) {
    const Setting& setting = settings[index];
    for (const InconclusivePolicy policy : {InconclusivePolicy::fail, InconclusivePolicy::pass}) {
      CompareOptions options;
      options.inconclusive = policy;
      const Comparison comparison = compare_setting(setting, index + 1, options);
      EXPECT_EQ(comparison.exit_code(), expected_exit_code(comparison));
      for (const CaseComparison& c : comparison.cases) {
        ++checked;
        const double t = c.threshold;
        const Interval bounds = *c.ratio_bounds;
        const bool clears = bounds.low > 1 + t || bounds.high < 1 - t;
        const bool significant = *c.p_adjusted < comparison.alpha_this_look();
        // Bounds wholly beyond the threshold are never "same"; with the test behind them they
        // are the verdict, noisy samples or not.
        if (clears) {
          EXPECT_NE(c.verdict, Verdict::same) << describe(setting, c);
        }
        if (clears && significant) {
          EXPECT_EQ(c.verdict, bounds.low > 1 + t ? Verdict::slower : Verdict::faster) << describe(setting, c);
        }
        // A verdict needs both; "same" needs the median within the threshold.
        if (c.verdict == Verdict::slower) {
          EXPECT_TRUE(bounds.low > 1 + t && significant) << describe(setting, c);
        }
        if (c.verdict == Verdict::faster) {
          EXPECT_TRUE(bounds.high < 1 - t && significant) << describe(setting, c);
        }
        if (c.verdict == Verdict::same) {
          EXPECT_LE(std::abs(*c.ratio - 1), t) << describe(setting, c);
        }
        if (c.verdict == Verdict::inconclusive) {
          EXPECT_GT(std::abs(*c.ratio - 1), t) << describe(setting, c);
          EXPECT_FALSE(c.next_step.empty()) << describe(setting, c);
        }
        EXPECT_GE(*c.p_adjusted, *c.p_value);
        // Never a faster verdict for a slowdown, nor a slower one without one.
        if (setting.factor > 1) {
          EXPECT_NE(c.verdict, Verdict::faster) << describe(setting, c);
        }
        if (setting.factor == 1.0) {
          EXPECT_NE(c.verdict, Verdict::slower) << describe(setting, c);
        }
        // Power: a large change over quiet enough samples is found.
        if (setting.factor >= 2 && setting.noise.relative <= 0.05 && setting.samples >= 30) {
          EXPECT_EQ(c.verdict, Verdict::slower) << describe(setting, c);
        }
        slower += c.verdict == Verdict::slower;
        inconclusive += c.verdict == Verdict::inconclusive;
      }
    }
  }
  EXPECT_EQ(checked, settings.size() * 2 * kCasesPerComparison);
  // The sweep reaches every verdict it should: not all slower, not all inconclusive.
  EXPECT_GT(slower, checked / 4);
  EXPECT_GT(inconclusive, checked / 20);
}

// The largest number of false discoveries the error budget allows among `trials` trials
// that each make one at most with probability `rate`: the mean plus four standard deviations.
double allowed_discoveries(double rate, std::size_t trials) {
  const double n = static_cast<double>(trials);
  return rate * n + 4 * std::sqrt(rate * (1 - rate) * n);
}

TEST(CompareProperties, AaComparisonsStayWithinTheErrorBudget) {
  // Alpha 0.05 and a threshold of 0.1 % make the budget the binding limit: at 0.001 and 5 %
  // an A/A comparison is never slower or faster at all (the sweep above).
  for (const PAdjust adjust : {PAdjust::bh, PAdjust::holm, PAdjust::none}) {
    CompareOptions options;
    options.alpha = 0.05;
    options.threshold = 0.001;
    options.p_adjust = adjust;
    std::size_t families = 0, families_with_discovery = 0, cases = 0, discoveries = 0;
    std::uint64_t seed = 7;
    for (double noise : {0.002, 0.01, 0.05, 0.2})
      for (std::size_t samples : {10u, 30u, 100u})
        for (const auto& [autocorrelation, outliers] : {std::pair{0.0, 0.0}, std::pair{0.5, 0.05}})
          for (int repeat = 0; repeat < 25; ++repeat) {
            const Comparison comparison = compare_setting({1.0, {noise, autocorrelation, outliers}, samples}, ++seed, options);
            ++families;
            const std::size_t found = comparison.counts.slower + comparison.counts.faster;
            families_with_discovery += found > 0;
            discoveries += found;
            cases += comparison.cases.size();
            EXPECT_EQ(comparison.exit_code() == kCompareExitRegression, comparison.counts.slower > 0);
          }
    // Under the complete null the false discovery rate is the chance of any discovery: BH and
    // Holm keep a family's at alpha; unadjusted, each case's is alpha.
    if (adjust == PAdjust::none) {
      EXPECT_LE(static_cast<double>(discoveries), allowed_discoveries(options.alpha, cases)) << to_string(adjust);
    }
    else
      EXPECT_LE(static_cast<double>(families_with_discovery), allowed_discoveries(options.alpha, families))
          << to_string(adjust);
  }
}

TEST(CompareProperties, TheAdjustmentIsOverTheComparisonsCases) {
  // One case 20 % slower on 10 + 10 clean samples (p about 2e-4) among 19 unchanged ones:
  // unadjusted it is slower; adjusted over 20 cases its p is about 20 times larger, beyond
  // alpha, and the case is left inconclusive with both p-values reported.
  LoadedReport baseline{machine(), {}}, current{machine(), {}};
  for (int i = 0; i < 20; ++i) {
    std::vector<double> base, cur;
    for (int k = 0; k < 10; ++k) {
      base.push_back(1e-3 * (1 + 0.001 * ((k * 7) % 10)));
      cur.push_back(1e-3 * (i == 0 ? 1.2 : 1.0) * (1 + 0.001 * ((k * 3) % 10)));
    }
    baseline.results.push_back(measured(spec_number(i), base));
    current.results.push_back(measured(spec_number(i), cur));
  }
  CompareOptions unadjusted;
  unadjusted.p_adjust = PAdjust::none;
  const Comparison per_case = compare_reports(baseline, current, unadjusted);
  const CaseComparison& alone = per_case.cases.front();
  ASSERT_EQ(alone.id, spec_number(0).id());
  EXPECT_EQ(alone.verdict, Verdict::slower);
  EXPECT_LT(*alone.p_value, 0.001);
  EXPECT_DOUBLE_EQ(*alone.p_adjusted, *alone.p_value);

  for (const PAdjust adjust : {PAdjust::bh, PAdjust::holm}) {
    CompareOptions options;
    options.p_adjust = adjust;
    const Comparison family = compare_reports(baseline, current, options);
    const CaseComparison& c = family.cases.front();
    EXPECT_EQ(c.id, spec_number(0).id());
    EXPECT_EQ(c.verdict, Verdict::inconclusive) << to_string(adjust);
    EXPECT_DOUBLE_EQ(*c.p_value, *alone.p_value);
    EXPECT_NEAR(*c.p_adjusted, 20 * *c.p_value, 1e-12);
    EXPECT_NE(c.note.find("(adjusted "), std::string::npos) << c.note;
    EXPECT_EQ(family.exit_code(), kCompareExitInconclusive);
  }
}

TEST(CompareProperties, LooksSpendAlpha) {
  // p about 2e-4 decides at one look and at the last of ten (which tests at 3.4e-4 of the
  // 0.001), not at the first of ten (9.2e-6).
  std::vector<double> base, cur;
  for (int k = 0; k < 10; ++k) {
    base.push_back(1e-3 * (1 + 0.001 * ((k * 7) % 10)));
    cur.push_back(1.2e-3 * (1 + 0.001 * ((k * 3) % 10)));
  }
  const LoadedReport baseline{machine(), {measured(spec_number(0), base)}};
  const LoadedReport current{machine(), {measured(spec_number(0), cur)}};
  CompareOptions options;
  EXPECT_EQ(compare_reports(baseline, current, options).cases.at(0).verdict, Verdict::slower);
  options.looks = 10;
  const Comparison first = compare_reports(baseline, current, options);
  EXPECT_NEAR(first.alpha_this_look(), 0.001 * std::expm1(0.4) / std::expm1(4), 1e-15);
  EXPECT_GT(*first.cases.at(0).p_value, first.alpha_this_look());
  EXPECT_EQ(first.cases.at(0).verdict, Verdict::inconclusive);
  options.look = 10;
  const Comparison last = compare_reports(baseline, current, options);
  EXPECT_NEAR(last.alpha_this_look(), 0.001 * (1 - std::expm1(3.6) / std::expm1(4)), 1e-15);
  EXPECT_LT(*last.cases.at(0).p_value, last.alpha_this_look());
  EXPECT_EQ(last.cases.at(0).verdict, Verdict::slower);
  options.look = 11;
  EXPECT_THROW(compare_reports(baseline, current, options), UsageError);
  options.look = 0;
  EXPECT_THROW(compare_reports(baseline, current, options), UsageError);
  options.look = 1;
  options.looks = 0;
  EXPECT_THROW(compare_reports(baseline, current, options), UsageError);
}

TEST(CompareProperties, TheFlagsParseTheirWordsOnly) {
  EXPECT_EQ(parse_p_adjust("bh"), PAdjust::bh);
  EXPECT_EQ(parse_p_adjust("holm"), PAdjust::holm);
  EXPECT_EQ(parse_p_adjust("none"), PAdjust::none);
  EXPECT_THROW(parse_p_adjust("BH"), UsageError);
  EXPECT_THROW(parse_p_adjust("fdr"), UsageError);
  EXPECT_EQ(parse_inconclusive_policy("fail"), InconclusivePolicy::fail);
  EXPECT_EQ(parse_inconclusive_policy("pass"), InconclusivePolicy::pass);
  EXPECT_THROW(parse_inconclusive_policy("ignore"), UsageError);
}

}  // namespace
}  // namespace gpb
