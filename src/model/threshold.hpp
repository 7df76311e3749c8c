// Regression thresholds, fractions of a case's median: the one rule for their range and the
// one rule for which of a report's thresholds judges a case. Suites and flags (config/),
// compare and the stored history (analysis/) all hold thresholds to these.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "model/types.hpp"

namespace gpb {

inline constexpr double kDefaultRegressionThreshold = 0.05;

// A threshold is above 0 and below 1 (finite); UsageError names `what` and shows the value
// in percent.
void require_threshold(double fraction, const std::string& what);

// The threshold a case is judged against: the most specific of thresholds (case id, op
// name), then global_override (compare's --threshold), then the global "*", then
// kDefaultRegressionThreshold.
double case_threshold(const std::map<std::string, double>& thresholds, Op op, const std::string& case_id,
                      std::optional<double> global_override);

}  // namespace gpb
