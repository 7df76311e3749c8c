#include "model/threshold.hpp"

#include "base/errors.hpp"
#include "base/text.hpp"

namespace gpb {

// Shown in percent: the command line takes percent, suites take fractions.
void require_threshold(double fraction, const std::string& what) {
  if (!(fraction > 0 && fraction < 1))
    throw UsageError(what + " must be above 0 % and below 100 % (in a suite, a fraction: 0.05 is 5 %), got " +
                     format_percent(fraction, "%g%%"));
}

double case_threshold(const std::map<std::string, double>& thresholds, Op op, const std::string& case_id,
                      std::optional<double> global_override) {
  if (const auto found = thresholds.find(case_id); found != thresholds.end()) return found->second;
  if (const auto found = thresholds.find(to_string(op)); found != thresholds.end()) return found->second;
  if (global_override) return *global_override;
  if (const auto found = thresholds.find("*"); found != thresholds.end()) return found->second;
  return kDefaultRegressionThreshold;
}

}  // namespace gpb
