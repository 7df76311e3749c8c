// Sequential re-measurement on synthetic measurements: pooling rounds into records, a 3 %
// slowdown that one comparison leaves inconclusive settled as slower round by round (the
// current side alone, as run --resolve does, and both sides, as gpubench ab does), A/A pairs
// that never become a verdict, and the limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "analysis/resolve.hpp"
#include "synthetic_samples.hpp"

namespace gpb {
namespace {

using testing::measured;
using testing::Noise;
using testing::timing_samples;

CaseSpec spec_number(int index) {
  CaseSpec spec;
  spec.op = Op::sqrt;
  spec.backend = "eigen";
  spec.shape = elementwise_shape(4096 * (index + 1));
  return spec;
}

Context machine() {
  Context context;
  context.cpu_model = "synthetic CPU";
  return context;
}

// A side of a synthetic A/B: each case's samples around median_s x factor (the factor of
// the first `slow_cases` cases), `per_round` fresh ones on each measurement.
class SyntheticSide {
 public:
  SyntheticSide(std::uint64_t seed, int cases, double factor, int slow_cases, const Noise& noise, std::size_t per_round)
      : seed_(seed), cases_(cases), factor_(factor), slow_cases_(slow_cases), noise_(noise), per_round_(per_round) {}

  std::vector<ResultRecord> measure(const std::vector<std::string>& ids) {
    std::vector<ResultRecord> records;
    ++measurements_;
    for (int i = 0; i < cases_; ++i) {
      const CaseSpec spec = spec_number(i);
      if (!ids.empty() && std::find(ids.begin(), ids.end(), spec.id()) == ids.end()) continue;
      ++remeasured_[spec.id()];
      const double median = 1e-3 * (i < slow_cases_ ? factor_ : 1.0);
      records.push_back(measured(spec, timing_samples(seed_ * 7919 + static_cast<std::uint64_t>(measurements_) * 104729 +
                                                          static_cast<std::uint64_t>(i),
                                                      median, per_round_, noise_)));
    }
    return records;
  }
  LoadedReport first() { return {machine(), measure({})}; }
  int measured_times(const std::string& id) const { return remeasured_.count(id) ? remeasured_.at(id) : 0; }

 private:
  std::uint64_t seed_;
  int cases_;
  double factor_;
  int slow_cases_;
  Noise noise_;
  std::size_t per_round_;
  int measurements_ = 0;
  std::map<std::string, int> remeasured_;
};

const CaseComparison& find_case(const Comparison& comparison, const std::string& id) {
  for (const CaseComparison& c : comparison.cases)
    if (c.id == id) return c;
  throw std::runtime_error("no case " + id);
}

TEST(PoolRound, MergesSamplesOfTheSameCaseAndCountsTheRound) {
  std::vector<ResultRecord> records{measured(spec_number(0), {1, 2, 3}), measured(spec_number(1), {4, 5})};
  pool_round(records, {measured(spec_number(1), {6, 7, 8})}, 1);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].samples_s, (std::vector<double>{4, 5, 6, 7, 8}));
  EXPECT_EQ(records[1].stats.count, 5u);
  EXPECT_DOUBLE_EQ(records[1].stats.median, 6);
  EXPECT_EQ(records[1].resolve_rounds, 1);
  EXPECT_EQ(records[0].resolve_rounds, 0);
  // Each round's share of the samples, the first measurement its own round.
  EXPECT_EQ(records[1].round_sizes, (std::vector<std::size_t>{2, 3}));
  EXPECT_TRUE(records[0].round_sizes.empty());
  pool_round(records, {measured(spec_number(1), {9})}, 2);
  EXPECT_EQ(records[1].round_sizes, (std::vector<std::size_t>{2, 3, 1}));
  EXPECT_EQ(records[1].samples_s.size(), 6u);
  // A case the report lacked is added; another device's record of a case stays apart.
  ResultRecord on_gpu = measured(spec_number(0), {9});
  on_gpu.device = DeviceKind::gpu;
  on_gpu.gpu.ordinal = 1;
  on_gpu.gpu.uuid = "GPU-1";
  pool_round(records, {measured(spec_number(2), {10}), on_gpu}, 3);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].samples_s.size(), 3u);
  EXPECT_EQ(records[2].resolve_rounds, 3);
  EXPECT_EQ(records[3].gpu.uuid, "GPU-1");
}

TEST(PoolRound, AFailedRoundDecidesTheCase) {
  std::vector<ResultRecord> records{measured(spec_number(0), {1, 2, 3})};
  ResultRecord failed = measured(spec_number(0), {});
  failed.status = Status::failed;
  failed.reason = "out of memory";
  pool_round(records, {failed}, 1);
  EXPECT_EQ(records[0].status, Status::failed);
  EXPECT_EQ(records[0].reason, "out of memory");
}

// A 3 % slowdown, 1 % noise, a 1 % threshold, 8 samples a side per round: one comparison cannot
// settle it; pooled rounds of both sides can.
TEST(Resolve, BothSidesResolveAThreePercentSlowdown) {
  const Noise noise{0.01, 0, 0};
  // A is the baseline; B's first case is 3 % slower.
  SyntheticSide baseline_side(1, 4, 1.0, 0, noise, 8), b(2, 4, 1.03, 1, noise, 8);
  LoadedReport baseline = baseline_side.first();
  LoadedReport current = b.first();
  CompareOptions options;
  options.threshold = 0.01;
  const std::string slow = spec_number(0).id();

  CompareOptions single = options;
  single.looks = resolve_looks({10, 1e9});
  EXPECT_EQ(find_case(compare_reports(baseline, current, single), slow).verdict, Verdict::inconclusive);

  std::vector<ResolveRound> rounds;
  const Comparison comparison = resolve_comparison(
      baseline, current, options, {10, 1e9}, [&](const std::vector<std::string>& ids) { return b.measure(ids); },
      [&](const std::vector<std::string>& ids) { return baseline_side.measure(ids); },
      [&](const ResolveRound& round) { rounds.push_back(round); });
  const CaseComparison& c = find_case(comparison, slow);
  EXPECT_EQ(c.verdict, Verdict::slower) << c.note;
  EXPECT_NEAR(*c.ratio, 1.03, 0.01);
  ASSERT_FALSE(rounds.empty());
  // The unchanged cases may take more rounds than the slow one: a noisy same whose bounds
  // still reach beyond the threshold is re-measured too.
  EXPECT_GE(c.rounds, 1);
  EXPECT_LE(c.rounds, rounds.back().round);
  EXPECT_EQ(comparison.looks, 11);
  // Only the cases a round named were measured again, on both sides alike.
  std::map<std::string, int> named;
  for (const ResolveRound& round : rounds)
    if (round.round > 0)
      for (const std::string& id : round.case_ids) ++named[id];
  for (int i = 0; i < 4; ++i) {
    const std::string id = spec_number(i).id();
    EXPECT_EQ(b.measured_times(id), 1 + named[id]) << id;
    EXPECT_EQ(baseline_side.measured_times(id), 1 + named[id]) << id;
  }
  EXPECT_EQ(b.measured_times(slow), 1 + c.rounds);
  const ResultRecord& pooled = *std::find_if(current.results.begin(), current.results.end(),
                                             [&](const ResultRecord& r) { return r.spec.id() == slow; });
  EXPECT_EQ(pooled.samples_s.size(), 8u * (1 + static_cast<std::size_t>(c.rounds)));
  EXPECT_EQ(pooled.resolve_rounds, c.rounds);
  EXPECT_EQ(pooled.round_sizes, std::vector<std::size_t>(1 + static_cast<std::size_t>(c.rounds), 8u));
  // The unchanged cases (1 % noise against a 1 % threshold) end same, or, where 11 looks of
  // pooled samples still leave the ratio's bounds reaching beyond the threshold, inconclusive
  // once the rounds are spent: never a verdict, never a same the evidence did not show.
  for (const CaseComparison& other : comparison.cases) {
    if (other.id == slow) continue;
    EXPECT_TRUE(other.verdict == Verdict::same || other.verdict == Verdict::inconclusive) << other.note;
    EXPECT_FALSE(unsettled_same(other)) << other.note;
    if (other.verdict == Verdict::inconclusive) {
      EXPECT_EQ(other.rounds, 10) << other.note;
      EXPECT_TRUE(other.ratio_bounds->low < 0.99 || other.ratio_bounds->high > 1.01) << other.note;
    }
  }
  EXPECT_EQ(comparison.exit_code(), kCompareExitRegression);
}

// gpubench ab says round 0's counts: it takes them from the first comparison rather than
// comparing the first round's reports once more. on_round hears of every look once, round 0
// (every case, nothing measured here) first, with the counts of one plain comparison at look 1.
TEST(Resolve, OnRoundHearsTheFirstComparisonOnceAsRoundZero) {
  const Noise noise{0.01, 0, 0};
  SyntheticSide a(11, 3, 1.0, 0, noise, 8), b(12, 3, 1.03, 1, noise, 8);
  LoadedReport baseline = a.first(), current = b.first();
  CompareOptions options;
  options.threshold = 0.01;
  const ResolveLimits limits{6, 1e9};
  CompareOptions first_look = options;
  first_look.looks = resolve_looks(limits);
  const Comparison plain = compare_reports(baseline, current, first_look);
  ASSERT_GT(plain.counts.inconclusive, 0u);  // some round runs after it

  std::vector<ResolveRound> rounds;
  const Comparison comparison = resolve_comparison(
      baseline, current, options, limits, [&](const std::vector<std::string>& ids) { return b.measure(ids); },
      [&](const std::vector<std::string>& ids) { return a.measure(ids); },
      [&](const ResolveRound& round) { rounds.push_back(round); });
  ASSERT_GE(rounds.size(), 2u);
  EXPECT_EQ(rounds[0].round, 0);
  std::vector<std::string> compared = rounds[0].case_ids;  // in the comparison's order, regressions first
  std::sort(compared.begin(), compared.end());
  std::vector<std::string> all{spec_number(0).id(), spec_number(1).id(), spec_number(2).id()};
  std::sort(all.begin(), all.end());
  EXPECT_EQ(compared, all);
  EXPECT_EQ(rounds[0].seconds, 0);
  EXPECT_EQ(rounds[0].counts.slower, plain.counts.slower);
  EXPECT_EQ(rounds[0].counts.faster, plain.counts.faster);
  EXPECT_EQ(rounds[0].counts.same, plain.counts.same);
  EXPECT_EQ(rounds[0].counts.inconclusive, plain.counts.inconclusive);
  for (std::size_t i = 0; i < rounds.size(); ++i) EXPECT_EQ(rounds[i].round, static_cast<int>(i));
  const int last_round = rounds.back().round;
  EXPECT_EQ(comparison.look, last_round + 1);
}

TEST(Resolve, TheCurrentSideAloneResolvesAgainstAFixedBaseline) {
  // As run --baseline --resolve: the baseline file keeps its samples, 40 of them.
  const Noise noise{0.01, 0, 0};
  SyntheticSide baseline_side(3, 2, 1.0, 0, noise, 40), current_side(4, 2, 1.03, 1, noise, 3);
  LoadedReport baseline = baseline_side.first();
  LoadedReport current = current_side.first();
  CompareOptions options;
  options.threshold = 0.01;
  const Comparison comparison = resolve_comparison(baseline, current, options, {8, 1e9},
                                                   [&](const std::vector<std::string>& ids) { return current_side.measure(ids); });
  const CaseComparison c = find_case(comparison, spec_number(0).id());
  EXPECT_EQ(c.verdict, Verdict::slower) << c.note;
  EXPECT_GT(c.rounds, 0);
  EXPECT_EQ(baseline.results.front().samples_s.size(), 40u);
  EXPECT_EQ(baseline_side.measured_times(spec_number(0).id()), 1);
}

TEST(Resolve, AaPairsNeverBecomeAVerdict) {
  std::size_t verdicts = 0, cases = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Noise noise{seed % 2 ? 0.02 : 0.2, seed % 3 ? 0.0 : 0.5, seed % 4 ? 0.0 : 0.05};
    SyntheticSide a(100 + seed, 5, 1.0, 0, noise, 10), b(200 + seed, 5, 1.0, 0, noise, 10);
    LoadedReport baseline = a.first();
    LoadedReport current = b.first();
    const Comparison comparison =
        resolve_comparison(baseline, current, {}, {6, 1e9}, [&](const std::vector<std::string>& ids) { return b.measure(ids); },
                           [&](const std::vector<std::string>& ids) { return a.measure(ids); });
    verdicts += comparison.counts.slower + comparison.counts.faster;
    cases += comparison.cases.size();
    EXPECT_NE(comparison.exit_code(), kCompareExitRegression) << "seed " << seed;
  }
  EXPECT_EQ(cases, 200u);
  EXPECT_EQ(verdicts, 0u);
}

TEST(Resolve, StopsAtItsLimits) {
  const Noise noisy{0.3, 0, 0};
  SyntheticSide a(5, 3, 1.0, 0, noisy, 6), b(6, 3, 1.3, 3, noisy, 6);
  LoadedReport baseline = a.first(), current = b.first();
  int calls = 0;
  const auto remeasure = [&](const std::vector<std::string>& ids) {
    ++calls;
    return b.measure(ids);
  };
  // No time: the first comparison only.
  Comparison comparison = resolve_comparison(baseline, current, {}, {5, 0}, remeasure);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(comparison.looks, 6);
  // At most two rounds (the case is undecided after the first comparison: some round runs).
  comparison = resolve_comparison(baseline, current, {}, {2, 1e9}, remeasure);
  EXPECT_GE(calls, 1);
  EXPECT_LE(calls, 2);
  for (const CaseComparison& c : comparison.cases) EXPECT_LE(c.rounds, 2);
  // No rounds allowed: a plain comparison.
  calls = 0;
  comparison = resolve_comparison(baseline, current, {}, {0, 1e9}, remeasure);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(comparison.looks, 1);
}

}  // namespace
}  // namespace gpb
