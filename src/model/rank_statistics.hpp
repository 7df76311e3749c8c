// Rank-based statistics for comparing two sets of timing samples. Ranks make them immune
// to the outliers (interruptions, page faults) that benchmark samples carry.
#pragma once

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
