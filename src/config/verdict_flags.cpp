#include "config/verdict_flags.hpp"

#include <CLI/CLI.hpp>

namespace gpb {

void add_verdict_flags(CLI::App& command, VerdictFlags& flags) {
  command
      .add_option("--alpha", flags.alpha,
                  "Significance level of the rank test (default 0.001): a change is a verdict only below it, after the "
                  "p-values are adjusted over the cases")
      ->type_name("P");
  command.add_option("--p-adjust", flags.p_adjust,
                     "How p-values are adjusted over the cases: bh (Benjamini-Hochberg, false discovery rate; default), "
                     "holm (family-wise error rate) or none");
  command.add_option("--inconclusive", flags.inconclusive,
                     "What an inconclusive case does: fail (exit " + std::to_string(kCompareExitInconclusive) +
                         ", default) or pass (exit 0)");
}

const std::vector<std::string>& verdict_flag_names() {
  static const std::vector<std::string> names{"--alpha", "--p-adjust", "--inconclusive"};
  return names;
}

void apply_verdict_flags(const VerdictFlags& flags, CompareOptions& options) {
  require_alpha(flags.alpha);  // before anything is measured
  options.alpha = flags.alpha;
  options.p_adjust = parse_p_adjust(flags.p_adjust);
  options.inconclusive = parse_inconclusive_policy(flags.inconclusive);
}

}  // namespace gpb
