// compare: verdicts, exit codes, the machine guard and the renderers, on synthetic reports
// whose raw samples come from a seeded, portable generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "analysis/compare.hpp"
#include "base/atomic_file.hpp"
#include "cli/compare.hpp"
#include "model/csr.hpp"
#include "model/rank_statistics.hpp"
#include "model/record_format.hpp"
#include "model/statistics.hpp"
#include "report/compare_render.hpp"
#include "report/report.hpp"
#include "synthetic_samples.hpp"

namespace gpb {
namespace {

// ---- Synthetic measurements -----------------------------------------------------------------

using testing::measured;
using testing::Noise;
using testing::timing_samples;

// A case at 64M elements; matmul and spmv cases replace the shape.
CaseSpec case_spec(Op op, const std::string& backend, DType dtype = DType::f32) {
  CaseSpec spec;
  spec.op = op;
  spec.backend = backend;
  spec.dtype = dtype;
  spec.shape = elementwise_shape(64 << 20);
  return spec;
}

Context machine_context() {
  Context context;
  context.tool_version = "0.1.0";
  context.git_sha = "0123456789ab";
  context.build_type = "Release";
  context.timestamp = "2024-11-21T05:00:00Z";
  context.hostname = "ci-runner";
  context.cpu_model = "AMD EPYC 9654 96-Core Processor";
  context.cpu_cores = 16;
  context.threads = 16;
  GpuInfo gpu;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.driver_version = "550.54.15";
  gpu.runtime_version = "12.4";
  context.gpus.push_back(gpu);
  return context;
}

const std::vector<CaseSpec>& suite_cases() {
  static const std::vector<CaseSpec> cases = [] {
    std::vector<CaseSpec> specs{case_spec(Op::sin, "cuda"), case_spec(Op::sin, "eigen", DType::f64),
                                case_spec(Op::sqrt, "cuda"), case_spec(Op::sum, "cub")};
    CaseSpec matmul = case_spec(Op::matmul, "cublas");
    matmul.shape = matmul_shape(2048, 2048, 2048);
    CaseSpec spmv = case_spec(Op::spmv, "cusparse");
    spmv.shape = spmv_shape(1 << 20, 16, SpmvPattern::random);
    specs.push_back(matmul);
    specs.push_back(spmv);
    return specs;
  }();
  return cases;
}

// One report over suite_cases(); `scale` multiplies one case's median (by id).
LoadedReport suite_report(std::uint64_t seed, const Noise& noise, const std::string& scaled_id = "",
                          double scale = 1.0) {
  LoadedReport report{machine_context(), {}};
  std::uint64_t case_seed = seed;
  for (const CaseSpec& spec : suite_cases()) {
    const double median_s = 1e-3 * (spec.id() == scaled_id ? scale : 1.0);
    report.results.push_back(measured(spec, timing_samples(++case_seed, median_s, 40, noise)));
  }
  return report;
}

const Noise kTight{0.01, 0.2, 0.02};

const CaseComparison& find_case(const Comparison& comparison, const std::string& id) {
  for (const CaseComparison& c : comparison.cases)
    if (c.id == id) return c;
  throw std::runtime_error("no case " + id + " in the comparison");
}

const std::string kSinId = case_spec(Op::sin, "cuda").id();
const std::string kSqrtId = case_spec(Op::sqrt, "cuda").id();

// ---- Mann-Whitney U ---------------------------------------------------------------------------

TEST(MannWhitney, FullySeparatedSmallSamplesUseTheExactDistribution) {
  // p = 2 / C(n1 + n2, n1): only the two extreme arrangements are as extreme.
  const auto three = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(three.exact);
  EXPECT_DOUBLE_EQ(three.u, 0);
  EXPECT_NEAR(three.p_value, 0.1, 1e-12);
  EXPECT_NEAR(mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}).p_value, 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_u({8, 9, 10, 11, 12, 13, 14}, {1, 2, 3, 4, 5, 6, 7}).p_value, 2.0 / 3432, 1e-12);
}

TEST(MannWhitney, TextbookExampleMatchesR) {
  // R's ?wilcox.test (Hollander & Wolfe): W = 35, exact two-sided p = 0.2544.
  const auto result =
      mann_whitney_u({0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}, {1.15, 0.88, 0.90, 0.74, 1.21});
  EXPECT_TRUE(result.exact);
  EXPECT_DOUBLE_EQ(result.u, 35);
  EXPECT_NEAR(result.p_value, 0.2544122544122544, 1e-12);
}

TEST(MannWhitney, ExactDistributionHandlesTies) {
  // Enumerated by hand over all 126 subsets of the midranks: 14 are as extreme.
  const auto result = mann_whitney_u({1, 2, 2, 3}, {2, 3, 3, 4, 5});
  EXPECT_DOUBLE_EQ(result.u, 3);
  EXPECT_NEAR(result.p_value, 1.0 / 9, 1e-12);
}

TEST(MannWhitney, NormalApproximationWithTiesMatchesScipy) {
  // scipy.stats.mannwhitneyu(x, y, method="asymptotic", use_continuity=True)
  const auto tied = mann_whitney_u({1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8}, {3, 4, 4, 5, 5, 6, 6, 7, 8, 8, 9, 10, 11});
  EXPECT_FALSE(tied.exact);
  EXPECT_DOUBLE_EQ(tied.u, 32);
  EXPECT_NEAR(tied.p_value, 0.012730667797100994, 1e-12);

  std::vector<double> low, high;
  for (int i = 0; i < 20; ++i) {
    low.push_back(i);
    high.push_back(20 + i);
  }
  EXPECT_NEAR(mann_whitney_u(low, high).p_value, 6.795615128173358e-08, 1e-18);
}

TEST(MannWhitney, IdenticalSamplesGiveNoEvidence) {
  const std::vector<double> samples = timing_samples(7, 1e-3, 30, kTight);
  const auto result = mann_whitney_u(samples, samples);
  EXPECT_DOUBLE_EQ(result.u, 30.0 * 30.0 / 2);
  EXPECT_DOUBLE_EQ(result.p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(std::vector<double>(12, 1.0), std::vector<double>(12, 1.0)).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1.0, 2.0}).p_value, 1.0);
}

TEST(MannWhitney, SymmetricInItsArguments) {
  const std::vector<double> x = timing_samples(1, 1e-3, 25, kTight), y = timing_samples(2, 1.01e-3, 31, kTight);
  const auto forward = mann_whitney_u(x, y), backward = mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(forward.u + backward.u, 25.0 * 31.0);
  EXPECT_NEAR(forward.p_value, backward.p_value, 1e-15);
}

TEST(MannWhitney, SerialCorrelationWidensTheNormalApproximation) {
  std::vector<double> low, high;
  for (int i = 0; i < 20; ++i) {
    low.push_back(i);
    high.push_back(20 + i);
  }
  // Variance x4 halves z: (200 - 0.5) / sqrt(20 * 20 * 41 / 12) / 2.
  EXPECT_NEAR(mann_whitney_u(low, high, 4.0, 4.0).p_value, 0.006970582931899754, 1e-12);
}

TEST(SerialCorrelation, IndependentSamplesAreBarelyInflated) {
  EXPECT_LT(serial_variance_inflation(timing_samples(1, 1e-3, 200, {0.05, 0, 0})), 1.3);
  EXPECT_GT(serial_variance_inflation(timing_samples(3, 1e-3, 200, {0.05, 0.8, 0})), 5.0);
}

TEST(SerialCorrelation, DriftIsCappedAndTinySamplesAreLeftAlone) {
  std::vector<double> drifting;
  for (int i = 0; i < 50; ++i) drifting.push_back(1e-3 * (1 + 0.001 * i));
  EXPECT_DOUBLE_EQ(serial_variance_inflation(drifting), 19.0);
  EXPECT_DOUBLE_EQ(serial_variance_inflation(std::vector<double>(drifting.begin(), drifting.begin() + 9)), 1.0);
  EXPECT_DOUBLE_EQ(serial_variance_inflation(std::vector<double>(30, 1e-3)), 1.0);
}

// ---- Verdicts and exit codes ------------------------------------------------------------------

TEST(Compare, ReportAgainstItselfIsAllSame) {
  const LoadedReport report = suite_report(1, kTight);
  const Comparison comparison = compare_reports(report, report, {});
  EXPECT_EQ(comparison.exit_code(), 0);
  ASSERT_EQ(comparison.cases.size(), suite_cases().size());
  for (const CaseComparison& c : comparison.cases) {
    EXPECT_EQ(c.verdict, Verdict::same) << c.id;
    EXPECT_FALSE(c.noisy) << c.id << ": " << c.note;
    EXPECT_DOUBLE_EQ(*c.ratio, 1.0);
  }
  // Its one warning: the same run on both sides (Compare.TheSameRunTwiceIsSaid).
  ASSERT_EQ(comparison.warnings.size(), 1u);
  EXPECT_EQ(comparison.warnings.front().rfind("the baseline and the current report hold the same samples", 0), 0u);
}

TEST(Compare, InterruptedReportsAreRefusedUnlessAllowed) {
  const LoadedReport complete = suite_report(1, kTight);
  LoadedReport interrupted = complete;
  interrupted.context.interrupted = true;
  interrupted.results.pop_back();  // what an interrupt leaves: the later cases are missing
  using Sides = std::tuple<const LoadedReport*, const LoadedReport*, const char*>;
  for (const auto& [baseline, current, side] : {Sides{&interrupted, &complete, "baseline"}, Sides{&complete, &interrupted, "current"}}) {
    try {
      compare_reports(*baseline, *current, {});
      ADD_FAILURE() << "compared an interrupted " << side << " report";
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()), std::string("the ") + side +
                                               " report is of an interrupted run and holds only the cases finished before it "
                                               "(pass --allow-interrupted to compare them)");
    }
  }
  CompareOptions allowed;
  allowed.allow_interrupted = true;
  const Comparison comparison = compare_reports(complete, interrupted, allowed);
  EXPECT_EQ(comparison.counts.missing, 1u);
  EXPECT_EQ(comparison.counts.same, suite_cases().size() - 1);
}

TEST(Compare, TwentyPercentSlowdownWithTightSamplesFails) {
  const Comparison comparison = compare_reports(suite_report(1, kTight), suite_report(100, kTight, kSinId, 1.2), {});
  EXPECT_EQ(comparison.exit_code(), 1);
  EXPECT_EQ(comparison.counts.slower, 1u);
  const CaseComparison& sin = find_case(comparison, kSinId);
  EXPECT_EQ(sin.verdict, Verdict::slower);
  EXPECT_NEAR(*sin.ratio, 1.2, 0.02);
  EXPECT_LT(*sin.p_value, 1e-6);
  EXPECT_EQ(comparison.cases.front().id, kSinId);
  for (const CaseComparison& c : comparison.cases) {
    if (c.id != kSinId) {
      EXPECT_EQ(c.verdict, Verdict::same) << c.id;
    }
  }
}

// A GPU case's telemetry summary at the given SM clock and mean power.
TelemetrySummary telemetry_at(double sm_clock_mhz, double power_w) {
  TelemetrySummary telemetry;
  telemetry.sm_clock_median_mhz = sm_clock_mhz;
  telemetry.power_mean_w = power_w;
  return telemetry;
}

TEST(Compare, SlowdownAtLowerClocksSaysClocksDiffer) {
  LoadedReport baseline = suite_report(1, kTight);
  LoadedReport current = suite_report(100, kTight, kSinId, 1.2);
  for (auto& record : baseline.results) record.telemetry = telemetry_at(1980, 500);
  for (auto& record : current.results)
    record.telemetry = record.spec.id() == kSinId ? telemetry_at(1650, 700) : telemetry_at(1975, 505);
  const Comparison comparison = compare_reports(baseline, current, {});
  const CaseComparison& sin = find_case(comparison, kSinId);
  EXPECT_EQ(sin.verdict, Verdict::slower);  // the verdict stands, and the exit code with it
  EXPECT_EQ(comparison.exit_code(), 1);
  EXPECT_EQ(sin.telemetry_difference, "SM clock median 1980 vs 1650 MHz (-16.7%); mean power 500 vs 700 W (+40.0%)");
  EXPECT_EQ(sin.label(), "slower (clocks/power differ)");
  EXPECT_NE(sin.note.find("clocks/power differ: SM clock median 1980 vs 1650 MHz"), std::string::npos) << sin.note;
  for (const CaseComparison& c : comparison.cases) {
    if (c.id != kSinId) {
      EXPECT_EQ(c.telemetry_difference, "") << c.id;  // within 3 %
    }
  }
  const auto document = nlohmann::json::parse(render_comparison(comparison, ReportFormat::json));
  for (const auto& c : document.at("cases"))
    EXPECT_EQ(c.at("clocks_power_differ").is_null(), c.at("id") != kSinId) << c.dump();
}

TEST(Compare, OneSideWithoutTelemetryIsNotADifference) {
  LoadedReport baseline = suite_report(1, kTight);
  for (auto& record : baseline.results) record.telemetry = telemetry_at(1980, 500);
  const Comparison comparison = compare_reports(baseline, suite_report(2, kTight), {});
  for (const CaseComparison& c : comparison.cases) EXPECT_EQ(c.telemetry_difference, "") << c.id;
}

TEST(Compare, SlowdownBuriedInNoiseIsInconclusiveNeverAPass) {
  const Noise noisy{0.3, 0.2, 0.05};
  const Comparison comparison = compare_reports(suite_report(1, noisy), suite_report(100, noisy, kSinId, 1.2), {});
  const CaseComparison& sin = find_case(comparison, kSinId);
  EXPECT_EQ(sin.verdict, Verdict::inconclusive);
  EXPECT_FALSE(sin.noisy);
  EXPECT_EQ(sin.label(), "inconclusive");
  EXPECT_NE(sin.note.find("beyond the 5% threshold, not settled: its 95% bounds"), std::string::npos) << sin.note;
  EXPECT_NE(sin.note.find("baseline median CI +-"), std::string::npos) << sin.note;
  EXPECT_NE(sin.next_step.find("--resolve"), std::string::npos) << sin.next_step;
  // With 30 % noise the medians of the unchanged cases move beyond 5 % too; none is slower.
  EXPECT_GE(comparison.counts.inconclusive, 1u);
  EXPECT_EQ(comparison.counts.slower + comparison.counts.faster, 0u);
  EXPECT_EQ(comparison.exit_code(), kCompareExitInconclusive);
  EXPECT_FALSE(comparison.passed());
}

TEST(Compare, InconclusivePassesOnlyWhenTheUserSaysSo) {
  const Noise noisy{0.3, 0.2, 0.05};
  CompareOptions options;
  options.inconclusive = InconclusivePolicy::pass;
  const Comparison comparison = compare_reports(suite_report(1, noisy), suite_report(100, noisy, kSinId, 1.2), options);
  EXPECT_EQ(find_case(comparison, kSinId).verdict, Verdict::inconclusive);
  EXPECT_EQ(comparison.exit_code(), 0);
  EXPECT_TRUE(comparison.passed());
}

TEST(Compare, ARegressionOutranksAnInconclusiveCase) {
  const Noise noisy{0.3, 0.2, 0.05};
  LoadedReport baseline = suite_report(1, noisy);
  LoadedReport current = suite_report(100, noisy, kSinId, 1.2);
  for (std::size_t i = 0; i < current.results.size(); ++i)
    if (current.results[i].spec.id() == kSqrtId) {
      baseline.results[i] = measured(baseline.results[i].spec, timing_samples(7, 1e-3, 40, kTight));
      current.results[i] = measured(current.results[i].spec, timing_samples(8, 2e-3, 40, kTight));
    }
  for (const InconclusivePolicy policy : {InconclusivePolicy::fail, InconclusivePolicy::pass}) {
    CompareOptions options;
    options.inconclusive = policy;
    const Comparison comparison = compare_reports(baseline, current, options);
    EXPECT_EQ(find_case(comparison, kSqrtId).verdict, Verdict::slower);
    EXPECT_EQ(find_case(comparison, kSinId).verdict, Verdict::inconclusive);
    EXPECT_EQ(comparison.exit_code(), kCompareExitRegression);
  }
}

// The case of the report that brought the rule: one f64 sum on a loaded 2-core host, 82 to 694
// times slower at 95 % confidence, p = 0.0004, whose current side's median CI is +-72 %. Noise
// may never wave that through.
TEST(Compare, AClearSlowdownOnANoisySideIsSlower) {
  const CaseSpec spec = case_spec(Op::sum, "eigen", DType::f64);
  std::vector<double> loaded = timing_samples(21, 60e-3, 12, {0.8, 0, 0});
  const LoadedReport baseline{machine_context(), {measured(spec, timing_samples(22, 142e-6, 12, {0.02, 0, 0}))}};
  const LoadedReport current{machine_context(), {measured(spec, loaded)}};
  const Comparison comparison = compare_reports(baseline, current, {});
  const CaseComparison& sum = comparison.cases.at(0);
  EXPECT_GT(sum.ratio_bounds->low, 1.05);
  EXPECT_LT(*sum.p_value, 0.001);
  EXPECT_EQ(sum.verdict, Verdict::slower) << sum.note;
  EXPECT_EQ(sum.note.rfind("decided despite the noise: current median CI +-", 0), 0u) << sum.note;
  EXPECT_EQ(comparison.exit_code(), kCompareExitRegression);
}

TEST(Compare, NoiseWithinTheThresholdIsSameNoisy) {
  const Noise noisy{0.3, 0.2, 0.05};
  const LoadedReport report = suite_report(1, noisy);
  LoadedReport again = report;
  for (ResultRecord& record : again.results) std::reverse(record.samples_s.begin(), record.samples_s.end());
  const Comparison comparison = compare_reports(report, again, {});
  for (const CaseComparison& c : comparison.cases) {
    EXPECT_EQ(c.label(), "same (noisy)") << c.id;
    EXPECT_NE(c.note.find("median CI +-"), std::string::npos) << c.note;
  }
  EXPECT_EQ(comparison.exit_code(), 0);
}

TEST(Compare, TwentyPercentSpeedupPasses) {
  const Comparison comparison = compare_reports(suite_report(1, kTight), suite_report(100, kTight, kSinId, 0.8), {});
  EXPECT_EQ(find_case(comparison, kSinId).verdict, Verdict::faster);
  EXPECT_EQ(comparison.counts.faster, 1u);
  EXPECT_EQ(comparison.exit_code(), 0);
}

TEST(Compare, SignificantChangeBelowThresholdIsSame) {
  const Noise very_tight{0.002, 0, 0};
  const Comparison comparison =
      compare_reports(suite_report(1, very_tight), suite_report(100, very_tight, kSinId, 1.03), {});
  const CaseComparison& sin = find_case(comparison, kSinId);
  EXPECT_LT(*sin.p_value, 1e-6);  // real, but too small to matter
  EXPECT_EQ(sin.verdict, Verdict::same);
  EXPECT_FALSE(sin.noisy);
  EXPECT_EQ(comparison.exit_code(), 0);
}

TEST(Compare, ChangeBeyondThresholdWithoutSignificanceIsInconclusive) {
  // Few samples: the median CI is bounded but no test at alpha = 0.001 can reject with 6 + 6.
  LoadedReport baseline{machine_context(),
                        {measured(case_spec(Op::sin, "cuda"), {1.00, 1.01, 0.99, 1.02, 0.98, 1.00})}};
  LoadedReport current{machine_context(), {measured(case_spec(Op::sin, "cuda"), {1.30, 1.31, 1.29, 1.32, 1.28, 1.30})}};
  CompareOptions options;
  options.threshold = 0.2;
  const Comparison comparison = compare_reports(baseline, current, options);
  const CaseComparison& sin = comparison.cases.at(0);
  EXPECT_EQ(sin.verdict, Verdict::inconclusive);
  EXPECT_GT(sin.ratio_bounds->low, 1.2);  // the bounds clear the threshold; the test cannot back them
  EXPECT_NE(sin.note.find("p = 0.0022 >= alpha 0.001"), std::string::npos) << sin.note;
}

// count values evenly spaced from first to last.
std::vector<double> evenly_spaced(double first, double last, int count) {
  std::vector<double> values;
  for (int i = 0; i < count; ++i) values.push_back(first + (last - first) * i / (count - 1));
  return values;
}

// Sorted values reordered smallest, largest, second smallest, ...: no serial correlation.
std::vector<double> alternating(std::vector<double> sorted) {
  std::vector<double> order;
  for (std::size_t low = 0, high = sorted.size(); low < high;) {
    order.push_back(sorted[low++]);
    if (low < high) order.push_back(sorted[--high]);
  }
  return order;
}

std::vector<double> concatenated(std::initializer_list<std::vector<double>> parts) {
  std::vector<double> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

TEST(Compare, SignificantChangeWithBoundsWithinTheThresholdIsInconclusive) {
  // The current run's slow tail makes the test significant, but the middles, where the
  // medians live, overlap.
  const CaseSpec spec = case_spec(Op::sin, "cuda");
  const LoadedReport baseline{
      machine_context(),
      {measured(spec, alternating(concatenated({evenly_spaced(0.955, 0.959, 12), evenly_spaced(0.96, 1.04, 16),
                                                evenly_spaced(1.041, 1.05, 12)})))}};
  const LoadedReport current{
      machine_context(),
      {measured(spec, alternating(concatenated({evenly_spaced(1.03, 1.034, 12), evenly_spaced(1.035, 1.115, 16),
                                                evenly_spaced(1.5, 2.0, 12)})))}};
  const CaseComparison sin = compare_reports(baseline, current, {}).cases.at(0);
  EXPECT_NEAR(*sin.ratio, 1.075, 1e-12);
  EXPECT_LT(*sin.p_value, 1e-6);
  EXPECT_EQ(sin.verdict, Verdict::inconclusive);
  EXPECT_EQ(sin.note.rfind("median +7.5% beyond the 5% threshold, not settled: its 95% bounds [0.9", 0), 0u) << sin.note;
  EXPECT_NE(sin.note.find("] reach within the threshold"), std::string::npos) << sin.note;
}

TEST(Compare, InterferenceDoesNotOverruleClearEvidence) {
  // Measured on a loaded 2-core host: most samples wait for the CPU, a few run undisturbed.
  // The median CI is tight, and the evidence decides; the note says the side was disturbed.
  const CaseSpec spec = case_spec(Op::sqrt, "eigen");
  std::vector<double> loaded = timing_samples(11, 16e-3, 60, {0.005, 0, 0});
  for (std::size_t i = 0; i < loaded.size(); i += 8) loaded[i] = 3e-3;
  const LoadedReport baseline{machine_context(), {measured(spec, timing_samples(12, 20e-3, 60, {0.005, 0, 0}))}};
  const LoadedReport current{machine_context(), {measured(spec, loaded)}};
  const CaseComparison result = compare_reports(baseline, current, {}).cases.at(0);
  EXPECT_EQ(result.label(), "faster");
  EXPECT_NE(result.note.find("decided despite the noise: current interference: p5 81"), std::string::npos) << result.note;
}

TEST(Compare, InterferenceWithinTheThresholdIsSameNoisy) {
  const CaseSpec spec = case_spec(Op::sqrt, "eigen");
  std::vector<double> loaded = timing_samples(11, 20e-3, 60, {0.005, 0, 0});
  for (std::size_t i = 0; i < loaded.size(); i += 8) loaded[i] = 3e-3;
  const LoadedReport baseline{machine_context(), {measured(spec, timing_samples(12, 20e-3, 60, {0.005, 0, 0}))}};
  const LoadedReport current{machine_context(), {measured(spec, loaded)}};
  const CaseComparison result = compare_reports(baseline, current, {}).cases.at(0);
  EXPECT_EQ(result.label(), "same (noisy)");
  EXPECT_NE(result.note.find("current interference: p5 8"), std::string::npos) << result.note;
}

TEST(Compare, SerialCorrelationDiscountsTheEvidence) {
  // The same two sets of values: taken in an independent-looking order they show a
  // slowdown; taken as a slow drift (sorted) they are worth far fewer samples.
  const CaseSpec spec = case_spec(Op::sin, "cuda");
  const std::vector<double> base_values = evenly_spaced(0.99, 1.01, 12);
  const std::vector<double> cur_values = evenly_spaced(1.09, 1.11, 12);
  const auto verdict_for = [&](const std::vector<double>& base, const std::vector<double>& cur) {
    return compare_reports(LoadedReport{machine_context(), {measured(spec, base)}},
                           LoadedReport{machine_context(), {measured(spec, cur)}}, {})
        .cases.at(0);
  };
  EXPECT_EQ(verdict_for(alternating(base_values), alternating(cur_values)).verdict, Verdict::slower);
  const CaseComparison drifting = verdict_for(base_values, cur_values);
  EXPECT_EQ(drifting.label(), "inconclusive");
  EXPECT_NE(drifting.note.find("effective n 2 of 12 in the baseline"), std::string::npos) << drifting.note;
}

TEST(Compare, RecomputesFromRawSamplesNotStoredStatistics) {
  const LoadedReport baseline = suite_report(1, kTight);
  LoadedReport current = suite_report(100, kTight, kSinId, 1.2);
  for (ResultRecord& record : current.results) record.stats = baseline.results.front().stats;
  EXPECT_EQ(find_case(compare_reports(baseline, current, {}), kSinId).verdict, Verdict::slower);
}

TEST(Compare, PerOpAndPerCaseThresholdsAreRespected) {
  const std::string sum_id = case_spec(Op::sum, "cub").id();
  LoadedReport baseline = suite_report(1, kTight);
  LoadedReport current = suite_report(100, kTight);
  for (ResultRecord& record : current.results)
    if (record.spec.id() == kSinId || record.spec.id() == kSqrtId || record.spec.id() == sum_id)
      record = measured(record.spec, timing_samples(200, 1.2e-3, 40, kTight));
  current.context.thresholds = {{"*", 0.05}, {"sin", 0.25}, {sum_id, 0.3}};

  const Comparison by_suite = compare_reports(baseline, current, {});
  EXPECT_EQ(find_case(by_suite, kSinId).verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(find_case(by_suite, kSinId).threshold, 0.25);
  EXPECT_EQ(find_case(by_suite, kSqrtId).verdict, Verdict::slower);
  EXPECT_DOUBLE_EQ(find_case(by_suite, kSqrtId).threshold, 0.05);
  EXPECT_EQ(find_case(by_suite, sum_id).verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(find_case(by_suite, sum_id).threshold, 0.3);

  // --threshold replaces only the global one; the op's and the case's own still win.
  current.context.thresholds = {{"*", 0.05}, {"sin", 0.1}, {sum_id, 0.1}};
  CompareOptions options;
  options.threshold = 0.25;
  const Comparison by_cli = compare_reports(baseline, current, options);
  EXPECT_EQ(find_case(by_cli, kSinId).verdict, Verdict::slower);
  EXPECT_EQ(find_case(by_cli, sum_id).verdict, Verdict::slower);
  EXPECT_EQ(find_case(by_cli, kSqrtId).verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(find_case(by_cli, kSqrtId).threshold, 0.25);
}

TEST(Compare, BaselineThresholdsFillInWhatTheCurrentSuiteLacks) {
  LoadedReport baseline = suite_report(1, kTight);
  baseline.context.thresholds = {{"sin", 0.25}};
  LoadedReport current = suite_report(100, kTight, kSinId, 1.2);
  EXPECT_DOUBLE_EQ(find_case(compare_reports(baseline, current, {}), kSinId).threshold, 0.25);
  current.context.thresholds = {{"sin", 0.1}};
  EXPECT_DOUBLE_EQ(find_case(compare_reports(baseline, current, {}), kSinId).threshold, 0.1);
}

TEST(Compare, MissingCaseFailsUnlessAllowed) {
  const LoadedReport baseline = suite_report(1, kTight);
  LoadedReport current = suite_report(100, kTight);
  current.results.erase(current.results.begin());
  const Comparison strict = compare_reports(baseline, current, {});
  EXPECT_EQ(find_case(strict, kSinId).verdict, Verdict::missing);
  EXPECT_EQ(strict.exit_code(), 1);

  CompareOptions options;
  options.allow_missing = true;
  const Comparison lenient = compare_reports(baseline, current, options);
  EXPECT_EQ(lenient.counts.missing, 1u);
  EXPECT_EQ(lenient.exit_code(), 0);
}

TEST(Compare, NewCasePasses) {
  LoadedReport baseline = suite_report(1, kTight);
  baseline.results.erase(baseline.results.begin());
  const Comparison comparison = compare_reports(baseline, suite_report(100, kTight), {});
  EXPECT_EQ(find_case(comparison, kSinId).verdict, Verdict::new_case);
  EXPECT_EQ(to_string(Verdict::new_case), "new");
  EXPECT_EQ(comparison.exit_code(), 0);
}

TEST(Compare, FailedVerificationOrStatusFails) {
  const LoadedReport baseline = suite_report(1, kTight);
  const auto with_first_case = [&](const std::function<void(ResultRecord&)>& change) {
    LoadedReport current = suite_report(100, kTight);
    change(current.results.front());
    return compare_reports(baseline, current, {});
  };
  const Comparison wrong = with_first_case([](ResultRecord& r) {
    r.verification.passed = false;
    r.verification.max_error = 3.5;
    r.verification.tolerance = 1.0;
  });
  EXPECT_EQ(find_case(wrong, kSinId).verdict, Verdict::failed);
  EXPECT_NE(find_case(wrong, kSinId).note.find("verification failed"), std::string::npos);
  EXPECT_EQ(wrong.exit_code(), 1);

  const Comparison crashed = with_first_case([](ResultRecord& r) {
    r.status = Status::failed;
    r.reason = "out of device memory";
  });
  EXPECT_EQ(find_case(crashed, kSinId).verdict, Verdict::failed);
  EXPECT_EQ(find_case(crashed, kSinId).note, "failed: out of device memory");
  EXPECT_EQ(crashed.exit_code(), 1);

  const Comparison skipped = with_first_case([](ResultRecord& r) {
    r.status = Status::skipped;
    r.reason = "no CUDA device";
  });
  EXPECT_EQ(find_case(skipped, kSinId).verdict, Verdict::failed);
  EXPECT_EQ(skipped.exit_code(), 1);
}

TEST(Compare, CaseSkippedOnBothSidesOrNeverMeasuredDoesNotFail) {
  // e.g. an op a backend does not support: skipped in every report, nothing was lost.
  LoadedReport baseline = suite_report(1, kTight);
  LoadedReport current = suite_report(100, kTight);
  for (LoadedReport* report : {&baseline, &current}) {
    report->results.front().status = Status::skipped;
    report->results.front().reason = "eigen has no sin";
  }
  // A case that failed in the baseline and runs now has nothing to compare against.
  baseline.results.back().status = Status::failed;
  const Comparison comparison = compare_reports(baseline, current, {});
  EXPECT_EQ(find_case(comparison, kSinId).verdict, Verdict::same);
  EXPECT_EQ(find_case(comparison, kSinId).note, "skipped: eigen has no sin");
  EXPECT_FALSE(find_case(comparison, kSinId).ratio.has_value());
  EXPECT_EQ(find_case(comparison, current.results.back().spec.id()).verdict, Verdict::new_case);
  EXPECT_EQ(comparison.exit_code(), 0);
}

// A comparison that measured no case on both sides still decides on what is missing or new,
// and says that it weighed nothing; one case weighed is enough to be silent.
TEST(Compare, NothingComparedIsSaid) {
  const auto nothing_compared = [](const Comparison& comparison) {
    return std::count_if(comparison.warnings.begin(), comparison.warnings.end(),
                         [](const std::string& w) { return w.rfind("nothing compared: ", 0) == 0; });
  };
  const LoadedReport full = suite_report(1, kTight);
  LoadedReport empty = suite_report(1, kTight);
  empty.results.clear();
  const Comparison all_new = compare_reports(empty, full, {});
  EXPECT_EQ(all_new.exit_code(), 0);
  ASSERT_EQ(nothing_compared(all_new), 1);
  EXPECT_NE(std::find(all_new.warnings.begin(), all_new.warnings.end(),
                      "nothing compared: no case was measured in both reports (" + std::to_string(full.results.size()) +
                          " only in the current one, 0 only in the baseline, 0 skipped or unmeasured in both)"),
            all_new.warnings.end());
  const Comparison all_missing = compare_reports(full, empty, {});
  EXPECT_EQ(all_missing.exit_code(), 1);
  EXPECT_EQ(nothing_compared(all_missing), 1);
  EXPECT_EQ(nothing_compared(compare_reports(empty, empty, {})), 1);
  // Skipped on both sides: no case weighed.
  LoadedReport skipped = suite_report(1, kTight);
  for (ResultRecord& r : skipped.results) r.status = Status::skipped;
  EXPECT_EQ(nothing_compared(compare_reports(skipped, skipped, {})), 1);
  // One case measured on both sides, the rest skipped: weighed, nothing to say.
  LoadedReport one = skipped;
  one.results.front() = full.results.front();
  EXPECT_EQ(nothing_compared(compare_reports(one, one, {})), 0);
  EXPECT_EQ(nothing_compared(compare_reports(full, suite_report(100, kTight), {})), 0);
}

// The same samples on both sides in every case measured on both: one run weighed against itself
// (the same file twice), said; one case that differs, or a case measured on one side only, is
// no such sign.
TEST(Compare, TheSameRunTwiceIsSaid) {
  const auto same_run = [](const Comparison& comparison) {
    return std::count_if(comparison.warnings.begin(), comparison.warnings.end(), [](const std::string& w) {
      return w.rfind("the baseline and the current report hold the same samples in every case", 0) == 0;
    });
  };
  const LoadedReport report = suite_report(1, kTight);
  EXPECT_EQ(same_run(compare_reports(report, report, {})), 1);
  EXPECT_EQ(same_run(compare_reports(report, suite_report(2, kTight), {})), 0);
  LoadedReport one_differs = report;
  one_differs.results.back().samples_s.front() *= 1.0 + 1e-9;
  EXPECT_EQ(same_run(compare_reports(report, one_differs, {})), 0);
  // A case only in one report, and skipped ones, do not count against it.
  LoadedReport extra = report;
  extra.results.pop_back();
  extra.results.front().status = Status::skipped;
  extra.results.front().samples_s.clear();
  EXPECT_EQ(same_run(compare_reports(report, extra, {})), 1);
  LoadedReport empty = report;
  empty.results.clear();
  EXPECT_EQ(same_run(compare_reports(empty, empty, {})), 0);
}

TEST(Compare, DuplicateCaseIsAnInputError) {
  const LoadedReport baseline = suite_report(1, kTight);
  LoadedReport current = suite_report(100, kTight);
  current.results.push_back(current.results.front());
  EXPECT_THROW(compare_reports(baseline, current, {}), UsageError);
}

TEST(Compare, ThresholdOrAlphaOutsideUnitIntervalIsAnInputError) {
  const LoadedReport report = suite_report(1, kTight);
  CompareOptions percent_by_mistake;
  percent_by_mistake.threshold = 5;
  EXPECT_THROW(compare_reports(report, report, percent_by_mistake), UsageError);
  CompareOptions bad_alpha;
  bad_alpha.alpha = 0;
  EXPECT_THROW(compare_reports(report, report, bad_alpha), UsageError);
  LoadedReport bad_suite = report;
  bad_suite.context.thresholds["spmv"] = -0.1;
  EXPECT_THROW(compare_reports(report, bad_suite, {}), UsageError);
}

// ---- Machine guard ----------------------------------------------------------------------------

TEST(CompareMachineGuard, DifferentGpuModelIsRefusedUnlessAllowed) {
  const LoadedReport baseline = suite_report(1, kTight);
  LoadedReport current = suite_report(100, kTight, kSinId, 1.2);
  current.context.gpus.front().name = "NVIDIA A100-SXM4-80GB";
  try {
    compare_reports(baseline, current, {});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("different GPU model"), std::string::npos) << message;
    EXPECT_NE(message.find("NVIDIA A100-SXM4-80GB"), std::string::npos) << message;
    EXPECT_NE(message.find("--allow-machine-mismatch"), std::string::npos) << message;
  }

  CompareOptions options;
  options.allow_machine_mismatch = true;
  const Comparison comparison = compare_reports(baseline, current, options);
  EXPECT_FALSE(comparison.machine_mismatch.empty());
  for (const CaseComparison& c : comparison.cases) EXPECT_TRUE(c.cross_machine) << c.id;
  EXPECT_EQ(find_case(comparison, kSinId).label(), "slower (cross-machine)");
  EXPECT_EQ(comparison.exit_code(), 1);
}

TEST(CompareMachineGuard, LosingTheGpuIsADifferentMachine) {
  LoadedReport current = suite_report(100, kTight);
  current.context.gpus.clear();
  EXPECT_THROW(compare_reports(suite_report(1, kTight), current, {}), UsageError);
}

TEST(CompareMachineGuard, DifferentCpuModelIsRefused) {
  LoadedReport current = suite_report(100, kTight);
  current.context.cpu_model = "Intel(R) Xeon(R) Platinum 8480+";
  EXPECT_THROW(compare_reports(suite_report(1, kTight), current, {}), UsageError);
}

TEST(CompareMachineGuard, SmallerDifferencesAreWarningsOnly) {
  LoadedReport current = suite_report(100, kTight);
  current.context.gpus.front().driver_version = "555.42.02";
  current.context.tool_version = "0.2.0";
  current.context.threads = 8;
  current.context.libraries["openblas"] = "0.3.26";
  const Comparison comparison = compare_reports(suite_report(1, kTight), current, {});
  EXPECT_TRUE(comparison.machine_mismatch.empty());
  ASSERT_EQ(comparison.warnings.size(), 4u);
  EXPECT_EQ(comparison.warnings[0], "different GPU driver: baseline '550.54.15', current '555.42.02'");
  EXPECT_EQ(comparison.warnings[1], "different CPU threads: baseline '16', current '8'");
  EXPECT_EQ(comparison.warnings[2], "different tool version: baseline '0.1.0', current '0.2.0'");
  EXPECT_EQ(comparison.warnings[3], "different library openblas: baseline (none), current '0.3.26'");
  EXPECT_EQ(comparison.exit_code(), 0);
  for (const CaseComparison& c : comparison.cases) EXPECT_FALSE(c.cross_machine);
}

// ---- Rendering --------------------------------------------------------------------------------

Comparison mixed_comparison() {
  LoadedReport baseline = suite_report(1, kTight);
  LoadedReport current = suite_report(100, kTight);
  current.results[0] = measured(current.results[0].spec, timing_samples(300, 1.2e-3, 40, kTight));  // sin: slower
  current.results[2] = measured(current.results[2].spec, timing_samples(301, 0.7e-3, 40, kTight));  // sqrt: faster
  current.results[3].status = Status::failed;                                                       // sum: failed
  current.results[3].reason = "cub error";
  current.results.pop_back();  // spmv: missing
  current.context.gpus.front().driver_version = "555.42.02";
  return compare_reports(baseline, current, {});
}

std::size_t position_of(const std::string& text, const std::string& what) {
  const std::size_t position = text.find(what);
  EXPECT_NE(position, std::string::npos) << what << " not in:\n" << text;
  return position;
}

TEST(CompareRender, ConsoleListsRegressionsFirstAndEndsWithTheSummary) {
  const std::string text = render_comparison(mixed_comparison(), ReportFormat::console);
  const std::size_t failed = position_of(text, "sum/cub/f32/67108864");
  const std::size_t slower = position_of(text, kSinId);
  const std::size_t missing = position_of(text, "spmv/cusparse/f32/1048576x1048576/16/random");
  const std::size_t faster = position_of(text, kSqrtId);
  const std::size_t same = position_of(text, "matmul/cublas/f32/2048x2048x2048");
  EXPECT_LT(position_of(text, "verdict"), failed);
  EXPECT_LT(failed, slower);
  EXPECT_LT(slower, missing);
  EXPECT_LT(missing, faster);
  EXPECT_LT(faster, same);
  const std::string summary =
      "alpha 0.001, p adjusted by Benjamini-Hochberg over 4 cases\n"
      "FAIL (exit 1): 6 cases: 1 slower, 1 failed, 1 missing, 0 inconclusive, 1 faster, 2 same (0 noisy), 0 new\n";
  EXPECT_EQ(text.substr(text.size() - summary.size()), summary) << text;
  EXPECT_EQ(text.find("driver"), std::string::npos) << "warnings belong on stderr";
  // Drawn like the results table: the header, then a rule under each column.
  const std::size_t rule_start = text.find('\n') + 1;
  const std::string rule = text.substr(rule_start, text.find('\n', rule_start) - rule_start);
  EXPECT_EQ(rule.rfind("----", 0), 0u) << text;
  EXPECT_EQ(rule.find_first_not_of("- "), std::string::npos) << text;
}

TEST(CompareRender, MarkdownCarriesVerdictsAndWarnings) {
  const std::string text = render_comparison(mixed_comparison(), ReportFormat::markdown);
  EXPECT_EQ(text.rfind("### gpubench compare: FAIL (exit 1)\n\n6 cases: 1 slower, 1 failed, 1 missing", 0), 0u) << text;
  EXPECT_NE(text.find("> **Warning:** different GPU driver"), std::string::npos);
  EXPECT_NE(text.find("| case | baseline | current |"), std::string::npos);
  EXPECT_NE(text.find("| :--- | ---: | ---: |"), std::string::npos);
  for (const char* verdict : {"| failed |", "| slower |", "| missing |", "| faster |", "| same |"})
    EXPECT_NE(text.find(verdict), std::string::npos) << verdict;
  EXPECT_LT(position_of(text, kSinId), position_of(text, kSqrtId));
}

TEST(CompareRender, JsonCarriesVerdictsNumbersAndTheExitCode) {
  const auto document = nlohmann::json::parse(render_comparison(mixed_comparison(), ReportFormat::json));
  EXPECT_EQ(document.at("exit_code"), 1);
  EXPECT_EQ(document.at("passed"), false);
  EXPECT_EQ(document.at("summary").at("slower"), 1);
  EXPECT_EQ(document.at("summary").at("cases"), 6);
  EXPECT_EQ(document.at("warnings").size(), 1u);
  EXPECT_TRUE(document.at("machine_mismatch").is_null());
  const auto& cases = document.at("cases");
  EXPECT_EQ(cases.at(0).at("verdict"), "failed");
  EXPECT_TRUE(cases.at(0).at("ratio").is_null());
  const auto& slower = cases.at(1);
  EXPECT_EQ(slower.at("id"), kSinId);
  EXPECT_EQ(slower.at("verdict"), "slower");
  EXPECT_NEAR(slower.at("ratio").get<double>(), 1.2, 0.02);
  EXPECT_LT(slower.at("p_value").get<double>(), 0.001);
  EXPECT_EQ(slower.at("ratio_bounds").size(), 2u);
  EXPECT_EQ(slower.at("threshold"), 0.05);
}

TEST(CompareRender, CsvIsRefused) {
  EXPECT_THROW(render_comparison(mixed_comparison(), ReportFormat::csv), UsageError);
}

// ---- The CLI entry points, through real files -------------------------------------------------

std::string write_report(const std::string& name, const LoadedReport& report) {
  const std::string path = ::testing::TempDir() + name;
  write_file_atomic(path, render_json(report.context, report.results));
  return path;
}

TEST(CompareEntryPoints, RunCompareReadsReportsAndWarnsOnStderr) {
  LoadedReport current = suite_report(100, kTight, kSinId, 1.2);
  current.context.gpus.front().driver_version = "555.42.02";
  const std::string baseline_path = write_report("compare_baseline.json", suite_report(1, kTight));
  const std::string current_path = write_report("compare_current.json", current);
  std::ostringstream out, err;
  EXPECT_EQ(run_compare(baseline_path, current_path, {}, ReportFormat::markdown, out, err), 1);
  EXPECT_NE(out.str().find("| slower |"), std::string::npos) << out.str();
  EXPECT_EQ(err.str(), "gpubench: warning: different GPU driver: baseline '550.54.15', current '555.42.02'\n");

  std::ostringstream run_out, run_err;
  EXPECT_EQ(print_comparison(compare_reports(read_json_report(baseline_path), current, {}), ReportFormat::console, run_out,
                             run_err),
            1);
  std::ostringstream expected_out, expected_err;
  run_compare(baseline_path, current_path, {}, ReportFormat::console, expected_out, expected_err);
  EXPECT_EQ(run_out.str(), expected_out.str());
  EXPECT_THROW(
      run_compare(baseline_path, ::testing::TempDir() + "no_such_report.json", {}, ReportFormat::console, out, err),
      UsageError);
}

// ---- False alarms -----------------------------------------------------------------------------

TEST(CompareFalseAlarms, TwoHundredAaPairsGiveNoVerdict) {
  // Same distribution on both sides, from quiet to very noisy, autocorrelated, with interruptions.
  const double noise_levels[] = {0.005, 0.02, 0.05, 0.1, 0.3};
  std::size_t decided = 0;
  for (std::uint64_t pair = 0; pair < 200; ++pair) {
    const Noise noise{noise_levels[pair % 5], 0.3, 0.05};
    const std::size_t count = 20 + 10 * (pair / 5 % 4);
    const CaseSpec spec = case_spec(Op::sin, "cuda");
    const LoadedReport baseline{machine_context(),
                                {measured(spec, timing_samples(1000 + 2 * pair, 1e-3, count, noise))}};
    const LoadedReport current{machine_context(),
                               {measured(spec, timing_samples(1001 + 2 * pair, 1e-3, count, noise))}};
    const Comparison comparison = compare_reports(baseline, current, {});
    decided += comparison.counts.slower + comparison.counts.faster;
    EXPECT_NE(comparison.exit_code(), kCompareExitRegression) << "pair " << pair << ": " << comparison.cases.front().note;
  }
  EXPECT_EQ(decided, 0u);
}

}  // namespace
}  // namespace gpb
