// Rank-based statistics for comparing two sets of timing samples. Ranks make them immune
// to the outliers (interruptions, page faults) that benchmark samples carry.
#pragma once

#include <cstddef>
#include <vector>

namespace gpb {

struct MannWhitneyResult {
  double u = 0;        // U of the first sample: pairs (x, y) with x > y, a tie counting one half
  double p_value = 1;  // two-sided
  bool exact = false;  // exact permutation distribution, or the normal approximation
};

// Two-sided Mann-Whitney U (Wilcoxon rank-sum) test of x against y. Small samples (the
// smaller one under 10 values) use the exact permutation distribution of the midrank sum,
// which stays valid with ties; larger ones the normal approximation with tie and continuity
// corrections, its variance scaled by each sample's serial_variance_inflation (1: independent
// samples, the textbook test). An empty sample gives p = 1.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                 double x_variance_inflation = 1.0, double y_variance_inflation = 1.0);

// One stratum of a blocked comparison: the samples of x and of y taken in one round of an
// interleaved design (both sides measured back to back), and the serial_variance_inflation
// of each within the round (1: exchangeable within the round).
struct RankStratum {
  std::vector<double> x, y;
  double x_variance_inflation = 1.0, y_variance_inflation = 1.0;
};

struct StratifiedRankResult {
  double p_value = 1;        // two-sided
  double z = 0;              // positive where x tends to exceed y
  double effect = 0;         // the pooled P(x > y) - 1/2 (a tie counting one half)
  double within_inflation = 1;   // the within-round serial inflation the strata carried, weighted as the test weighs them
  double between_inflation = 1;  // the pooled variance over what it would be without the rounds' disagreement (1: none)
  std::size_t strata = 0;    // strata that had samples on both sides
};

// A stratified two-sided Wilcoxon rank-sum test over rounds (van Elteren's): each stratum
// ranks its own samples only, so a level that moved between rounds (clock, thermal or
// machine-state drift) falls on both sides alike and never counts as a difference. The
// strata's estimates of P(x > y) - 1/2 are pooled with inverse-variance weights (with equal
// within-stratum variances, van Elteren's 1 / (N + 1)), each variance the exact permutation
// variance with ties, scaled by the stratum's within-round serial inflation. Where three or
// more strata disagree beyond those variances (Cochran's Q above k - 1: a within-round
// correlation the rounds' few samples could not show, a run-level offset, another job slowing
// one stretch of time), their disagreement is added to every stratum's variance
// (DerSimonian-Laird), so that no round outweighs what the rounds' agreement supports. The
// normal approximation; strata with an empty side are left out; no stratum gives p = 1.
StratifiedRankResult stratified_rank_test(const std::vector<RankStratum>& strata);

// p-values adjusted for the number of tests they came from, in input order, each capped at
// 1 (R's p.adjust): a test rejects at level alpha when its adjusted p is below alpha.
// Benjamini-Hochberg's step-up adjustment controls the false discovery rate (the expected
// share of false rejections among the rejections): with m tests and p sorted ascending,
// q(i) = min over j >= i of m p(j) / j.
std::vector<double> benjamini_hochberg(const std::vector<double>& p_values);
// Holm's step-down adjustment controls the family-wise error rate (the chance of any false
// rejection): q(i) = max over j <= i of (m - j + 1) p(j), p sorted ascending.
std::vector<double> holm(const std::vector<double>& p_values);

// How much the serial correlation of samples taken one after another inflates the variance
// of their mean (or median) over independent ones: (1 + r) / (1 - r), with r the lag-1
// autocorrelation of their ranks, clamped to [0, 0.9] (so 1 to 19). The effective sample
// size is n divided by it. 1 for fewer than 10 samples, too few to estimate r.
double serial_variance_inflation(const std::vector<double>& samples);

}  // namespace gpb
