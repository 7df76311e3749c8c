// The A/B mode's sequential rule on a synthetic machine modelled on an H100 case that one
// comparison left inconclusive (sum/cuda/f32/64M under the test slowdown: ~0.4 ms samples,
// ~0.3 % noise within a round, 4 samples a side a round, 8 looks, a 1 % threshold): alpha
// spent over the looks (Hwang-Shih-DeCani, gamma -4), the rank test stratified by round, and
// re-measurement that a noisy `same` does not end. The machine's noise is AR(1) from sample to
// sample through both sides of a round, and its level drifts from round to round, as clocks
// and heat do. Every replicate is seeded.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analysis/resolve.hpp"
#include "base/random.hpp"
#include "model/rank_statistics.hpp"
#include "synthetic_samples.hpp"

namespace gpb {
namespace {

using testing::measured;

CaseSpec the_case() {
  CaseSpec spec;
  spec.op = Op::sum;
  spec.backend = "cuda";
  spec.dtype = DType::f32;
  spec.shape = elementwise_shape(std::int64_t{64} << 20);
  return spec;
}

Context machine() {
  Context context;
  context.cpu_model = "synthetic CPU";
  return context;
}

// ---- Alpha spending ----------------------------------------------------------------------------

TEST(AlphaSpending, SpendsLittleEarlyAndAllByTheLastLook) {
  for (const int looks : {1, 2, 5, 8, 10, 100}) {
    double spent = 0;
    for (int look = 1; look <= looks; ++look) {
      const double level = alpha_at_look(0.001, look, looks);
      EXPECT_GT(level, 0) << look << " of " << looks;
      // Hwang-Shih-DeCani with a negative gamma spends more at each later look.
      if (look > 1) {
        EXPECT_GT(level, alpha_at_look(0.001, look - 1, looks)) << look << " of " << looks;
      }
      spent += level;
      EXPECT_NEAR(alpha_spent(0.001, look, looks), spent, 1e-15);
    }
    EXPECT_NEAR(spent, 0.001, 1e-15) << looks;
  }
  EXPECT_DOUBLE_EQ(alpha_at_look(0.001, 1, 1), 0.001);  // one comparison: alpha itself
  EXPECT_DOUBLE_EQ(alpha_spent(0.05, 0, 8), 0);
  // alpha (e^(4t) - 1) / (e^4 - 1): 1.2 % of it at the first of 8 looks, 12 % by the half,
  // 40 % at the last.
  EXPECT_NEAR(alpha_at_look(1, 1, 8), std::expm1(0.5) / std::expm1(4), 1e-15);
  EXPECT_NEAR(alpha_at_look(1, 1, 8), 0.0121, 1e-4);
  EXPECT_NEAR(alpha_spent(1, 4, 8), 0.1192, 1e-4);
  EXPECT_NEAR(alpha_at_look(1, 8, 8), 0.4008, 1e-4);
  EXPECT_THROW(alpha_at_look(0.001, 0, 8), UsageError);
  EXPECT_THROW(alpha_at_look(0.001, 9, 8), UsageError);
  EXPECT_THROW(alpha_spent(0.001, 1, 0), UsageError);
}

// ---- The stratified rank test ------------------------------------------------------------------

TEST(StratifiedRankTest, OneStratumIsTheRankSumTest) {
  const std::vector<double> x{5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27};
  const std::vector<double> y{1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 18, 20};
  const StratifiedRankResult one = stratified_rank_test({{x, y, 1, 1}});
  EXPECT_EQ(one.strata, 1u);
  // U = 108 of 144; Var(U) = 12 * 12 * 25 / 12 = 300; z = (108 - 72) / sqrt(300).
  EXPECT_NEAR(one.effect, 108.0 / 144 - 0.5, 1e-12);
  EXPECT_NEAR(one.z, 36 / std::sqrt(300.0), 1e-12);
  EXPECT_NEAR(one.p_value, std::erfc(36 / std::sqrt(300.0) / std::sqrt(2.0)), 1e-12);
  // Within-round serial inflation scales the variance as the unblocked test does.
  const StratifiedRankResult inflated = stratified_rank_test({{x, y, 2, 2}});
  EXPECT_NEAR(inflated.z, one.z / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(inflated.within_inflation, 2, 1e-12);
  EXPECT_DOUBLE_EQ(stratified_rank_test({}).p_value, 1);
  EXPECT_DOUBLE_EQ(stratified_rank_test({{{}, y, 1, 1}}).p_value, 1);
}

TEST(StratifiedRankTest, ADriftBetweenRoundsIsNoEvidence) {
  // x is 1 % above y within every round, and the level of the rounds moves by 5 % from one to
  // the next: pooled, the drift swamps the difference; stratified, each round shows it.
  std::vector<RankStratum> strata;
  std::vector<double> pooled_x, pooled_y;
  for (int round = 0; round < 6; ++round) {
    RankStratum stratum;
    const double level = 1 + 0.05 * ((round * 7) % 6);
    for (int i = 0; i < 4; ++i) {
      stratum.y.push_back(level * (1 + 0.001 * i));
      stratum.x.push_back(level * 1.01 * (1 + 0.001 * ((i + 2) % 4)));
    }
    pooled_x.insert(pooled_x.end(), stratum.x.begin(), stratum.x.end());
    pooled_y.insert(pooled_y.end(), stratum.y.begin(), stratum.y.end());
    strata.push_back(stratum);
  }
  const StratifiedRankResult blocked = stratified_rank_test(strata);
  EXPECT_EQ(blocked.strata, 6u);
  EXPECT_NEAR(blocked.effect, 0.5, 1e-12);  // every x above every y of its round
  EXPECT_DOUBLE_EQ(blocked.between_inflation, 1);  // the rounds agree
  EXPECT_LT(blocked.p_value, 1e-5);
  EXPECT_GT(mann_whitney_u(pooled_x, pooled_y).p_value, 0.05);
  // The same drift with x equal to y in distribution: nothing found.
  for (RankStratum& stratum : strata)
    for (double& value : stratum.x) value /= 1.01;
  EXPECT_GT(stratified_rank_test(strata).p_value, 0.05);
}

TEST(StratifiedRankTest, RoundsThatDisagreeWidenTheVariance) {
  // Three rounds say x is higher, three say it is lower: beyond what their within-round
  // variance allows, so their disagreement is added to the pooled variance (DerSimonian-Laird).
  std::vector<RankStratum> strata;
  for (int round = 0; round < 6; ++round) {
    RankStratum stratum;
    for (int i = 0; i < 5; ++i) {
      stratum.y.push_back(10 + i);
      stratum.x.push_back(round % 2 ? 20 + i : i);
    }
    if (round == 5) stratum.x.back() = 12.5;  // not quite balanced
    strata.push_back(stratum);
  }
  const StratifiedRankResult test = stratified_rank_test(strata);
  EXPECT_GT(test.between_inflation, 5);
  EXPECT_GT(test.p_value, 0.5);
}

// ---- The synthetic machine ---------------------------------------------------------------------

struct MachineModel {
  double median_s = 0.4e-3;
  double noise = 0.003;            // standard deviation of log(time) within a round
  double autocorrelation = 0.5;    // AR(1), sample to sample, through both sides of a round
  double drift = 0.003;            // standard deviation of the level's step from round to round
  std::size_t per_round = 4;       // samples a side in each round after the first
  std::size_t first_round = 4;     // samples a side in the first
  double first_b_load = 1.0;       // another job slowing the machine while B's first samples run
};

// One machine both sides run on, round by round (each round: one side, then the other). Side
// B's samples are `factor` times A's.
class SyntheticMachine {
 public:
  SyntheticMachine(std::uint64_t seed, const MachineModel& model, double factor)
      : rng_(seed), model_(model), factor_(factor) {
    state_ = standard_normal();
  }

  ResultRecord measure(bool side_b) {
    const std::size_t count = measurements_ < 2 ? model_.first_round : model_.per_round;
    if (measurements_ > 0 && measurements_ % 2 == 0) level_ += model_.drift * standard_normal();  // a new round
    ++measurements_;
    const double innovation = std::sqrt(1 - model_.autocorrelation * model_.autocorrelation);
    std::vector<double> samples;
    for (std::size_t i = 0; i < count; ++i) {
      state_ = model_.autocorrelation * state_ + innovation * standard_normal();
      const double load = measurements_ == 2 ? model_.first_b_load : 1.0;  // B of the first round
      samples.push_back(model_.median_s * (side_b ? factor_ : 1.0) * load * std::exp(level_ + model_.noise * state_));
    }
    return measured(the_case(), std::move(samples));
  }

 private:
  double standard_normal() {
    constexpr double kPi = 3.14159265358979323846;
    const double radius = std::sqrt(-2.0 * std::log(1.0 - unit_interval(rng_.next())));
    return radius * std::cos(2.0 * kPi * unit_interval(rng_.next()));
  }

  SplitMix64 rng_;
  MachineModel model_;
  double factor_;
  double state_ = 0, level_ = 0;
  int measurements_ = 0;
};

struct AbOutcome {
  Verdict verdict = Verdict::same;
  bool noisy = false;
  int rounds = 0;  // rounds of re-measurement after the first comparison
  int looks = 0;
  std::string note;
};

// gpubench ab's sequence on the synthetic machine: A then B, compared; then up to `looks` - 1
// rounds of both sides in alternating order, as resolve_comparison runs them.
AbOutcome run_ab(std::uint64_t seed, const MachineModel& model, double factor, const CompareOptions& options,
                 int looks = 8) {
  SyntheticMachine machine_state(seed, model, factor);
  LoadedReport a{machine(), {machine_state.measure(false)}};
  LoadedReport b{machine(), {machine_state.measure(true)}};
  const Comparison comparison = resolve_comparison(
      a, b, options, {looks - 1, 1e9}, [&](const std::vector<std::string>&) { return std::vector<ResultRecord>{machine_state.measure(true)}; },
      [&](const std::vector<std::string>&) { return std::vector<ResultRecord>{machine_state.measure(false)}; });
  const CaseComparison& c = comparison.cases.at(0);
  return {c.verdict, c.noisy, c.rounds, comparison.looks, c.note};
}

CompareOptions gate(double threshold = 0.01, double alpha = 0.001) {
  CompareOptions options;
  options.threshold = threshold;
  options.alpha = alpha;
  options.min_rounds = kAbMinRounds;  // as gpubench ab sets it
  return options;
}

TEST(SequentialAb, AThreePercentChangeIsSlowerWithinEightLooks) {
  // 2.97 % more work, as the demo's sides (1.04 / 1.01).
  constexpr int kReplicates = 200;
  int slower = 0, rounds = 0;
  std::string example;
  for (int seed = 1; seed <= kReplicates; ++seed) {
    const AbOutcome outcome = run_ab(static_cast<std::uint64_t>(seed), MachineModel{}, 1.04 / 1.01, gate());
    EXPECT_EQ(outcome.looks, 8);
    EXPECT_NE(outcome.verdict, Verdict::faster) << "seed " << seed;
    EXPECT_NE(outcome.verdict, Verdict::same) << "seed " << seed << ": " << outcome.note;
    if (outcome.verdict == Verdict::slower) {
      ++slower;
      rounds += outcome.rounds;
    } else if (example.empty()) {
      example = "seed " + std::to_string(seed) + ": " + to_string(outcome.verdict) + ": " + outcome.note;
    }
  }
  EXPECT_GE(slower, kReplicates * 95 / 100) << example;
  // A round of 4 + 4 samples cannot say more than p = 0.029; the spending lets the fifth or
  // so look decide.
  const double mean_rounds = static_cast<double>(rounds) / std::max(slower, 1);
  EXPECT_LE(mean_rounds, 6.0);
  std::printf("3 %% change: %d of %d slower within 8 looks, after %.2f rounds on average\n", slower, kReplicates,
              mean_rounds);
}

// The largest number of false calls the error budget allows among `trials` trials that each
// make one with probability at most `rate`: the mean plus four standard deviations.
double allowed_calls(double rate, int trials) {
  const double n = trials;
  return rate * n + 4 * std::sqrt(rate * (1 - rate) * n);
}

TEST(SequentialAb, AnAaPairStaysWithinAlpha) {
  // At the gate's settings, never a verdict.
  for (int seed = 1; seed <= 200; ++seed) {
    const AbOutcome outcome = run_ab(static_cast<std::uint64_t>(seed) + 5000, MachineModel{}, 1.0, gate());
    EXPECT_TRUE(outcome.verdict == Verdict::same || outcome.verdict == Verdict::inconclusive)
        << "seed " << seed << ": " << to_string(outcome.verdict) << ": " << outcome.note;
  }
  // Where the error rate can be seen (alpha 0.05, a threshold of 0.01 % that the bounds clear
  // easily, so that the test alone decides), over many seeds: at most alpha's share, within
  // counting noise, with the machine's correlation and drift as modelled and without them.
  for (const double autocorrelation : {0.0, 0.5}) {
    MachineModel model;
    model.autocorrelation = autocorrelation;
    constexpr int kReplicates = 1500;
    constexpr double kAlpha = 0.05;
    int calls = 0;
    for (int seed = 1; seed <= kReplicates; ++seed) {
      const AbOutcome outcome = run_ab(static_cast<std::uint64_t>(seed) + 100000, model, 1.0, gate(0.0001, kAlpha));
      calls += outcome.verdict == Verdict::slower || outcome.verdict == Verdict::faster;
    }
    EXPECT_LE(calls, allowed_calls(kAlpha, kReplicates)) << "autocorrelation " << autocorrelation;
    std::printf("A/A, autocorrelation %.1f: %d of %d slower or faster at alpha %.2f\n", autocorrelation, calls,
                kReplicates, kAlpha);
  }
}

TEST(SequentialAb, AHundredfoldChangeDecidesOnceThreeRoundsAreIn) {
  // A first round as a default run gives a 0.4 ms case (at least 0.05 s: 125 samples; 100
  // here), its serial correlation discounted. With 4 a side no rank test can: p is at least
  // 2 / C(8, 4) = 0.029.
  MachineModel model;
  model.first_round = 100;
  for (int seed = 1; seed <= 50; ++seed) {
    const AbOutcome outcome = run_ab(static_cast<std::uint64_t>(seed) + 900, model, 100, gate());
    EXPECT_EQ(outcome.verdict, Verdict::slower) << "seed " << seed << ": " << outcome.note;
    EXPECT_EQ(outcome.rounds, kAbMinRounds - 1) << "seed " << seed << ": " << outcome.note;
  }
}

// An A/A pair where another job slowed the machine 2.4 times while B's first samples ran (a
// busy CI runner: the first look alone says p < 1e-40): one stretch of time of each side is
// no evidence, the rounds in alternating order that follow do not repeat it, and the pair is
// never slower.
TEST(SequentialAb, AMachineChangeBetweenTheFirstTwoStretchesIsNoVerdict) {
  MachineModel model;
  model.first_round = 100;
  model.first_b_load = 2.4;
  int inconclusive = 0;
  for (int seed = 1; seed <= 100; ++seed) {
    const AbOutcome outcome = run_ab(static_cast<std::uint64_t>(seed) + 30000, model, 1.0, gate());
    EXPECT_TRUE(outcome.verdict == Verdict::same || outcome.verdict == Verdict::inconclusive)
        << "seed " << seed << ": " << to_string(outcome.verdict) << ": " << outcome.note;
    inconclusive += outcome.verdict == Verdict::inconclusive;
  }
  // Without the rule of three rounds the first look decides: the sweep would fail above.
  CompareOptions one_round = gate();
  one_round.min_rounds = 1;
  EXPECT_EQ(run_ab(30001, model, 1.0, one_round).verdict, Verdict::slower);
  std::printf("A/A with a 2.4x load on B's first stretch: %d of 100 inconclusive, the rest same\n", inconclusive);
}

TEST(SequentialAb, ANoisyRealChangeIsNeverSame) {
  // 3 % more work on a machine whose noise (2 % to 6 % a sample) makes many looks a noisy
  // `same` or inconclusive: re-measured until decided or the looks run out, and never `same`.
  int slower = 0, inconclusive = 0;
  for (int seed = 1; seed <= 150; ++seed) {
    MachineModel model;
    model.noise = 0.02 + 0.02 * (seed % 3);
    model.drift = 0.01;
    const AbOutcome outcome = run_ab(static_cast<std::uint64_t>(seed) + 7000, model, 1.03, gate());
    EXPECT_NE(outcome.verdict, Verdict::same) << "seed " << seed << ": " << outcome.note;
    EXPECT_NE(outcome.verdict, Verdict::faster) << "seed " << seed << ": " << outcome.note;
    slower += outcome.verdict == Verdict::slower;
    inconclusive += outcome.verdict == Verdict::inconclusive;
  }
  // Both endings occur: the sweep is not trivially one of them.
  EXPECT_GT(inconclusive, 0);
  std::printf("noisy 3 %% change: %d slower, %d inconclusive of 150\n", slower, inconclusive);
}

TEST(SequentialAb, ANoisySameKeepsTheRoundsGoingAndEndsInconclusive) {
  // One noisy look whose median stayed within the threshold while its bounds reach beyond:
  // before, the rounds stopped there as `same (noisy)`.
  MachineModel model;
  model.noise = 0.05;
  model.drift = 0;
  int unsettled = 0;
  for (int seed = 1; seed <= 40; ++seed) {
    SyntheticMachine machine_state(static_cast<std::uint64_t>(seed) + 300, model, 1.0);
    LoadedReport a{machine(), {machine_state.measure(false)}};
    LoadedReport b{machine(), {machine_state.measure(true)}};
    CompareOptions first = gate();
    first.looks = 3;
    const CaseComparison look = compare_reports(a, b, first).cases.at(0);
    if (!unsettled_same(look)) continue;
    ++unsettled;
    int calls = 0;
    const auto remeasure = [&](bool side_b) {
      return [&, side_b](const std::vector<std::string>&) {
        ++calls;
        return std::vector<ResultRecord>{machine_state.measure(side_b)};
      };
    };
    const Comparison comparison = resolve_comparison(a, b, gate(), {2, 1e9}, remeasure(true), remeasure(false));
    const CaseComparison& c = comparison.cases.at(0);
    EXPECT_GE(calls, 2) << "seed " << seed;  // at least one round of both sides
    EXPECT_FALSE(unsettled_same(c)) << "seed " << seed << ": " << c.note;
    if (unsettled_same(c) || c.verdict == Verdict::inconclusive) {
      EXPECT_EQ(c.verdict, Verdict::inconclusive) << "seed " << seed << ": " << c.note;
      EXPECT_EQ(comparison.counts.inconclusive, 1u);
      EXPECT_EQ(comparison.exit_code(), kCompareExitInconclusive);
      EXPECT_FALSE(c.next_step.empty());
    }
  }
  EXPECT_GT(unsettled, 5);
}

}  // namespace
}  // namespace gpb
