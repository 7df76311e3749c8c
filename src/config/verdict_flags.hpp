// The flags that choose how a comparison decides, shared by `gpubench compare`, `run
// --baseline` and `gpubench ab`: the rank test's level, the adjustment of p-values over the
// cases, and what an inconclusive case does to the exit code.
#pragma once

#include <string>
#include <vector>

#include "analysis/compare.hpp"

namespace CLI {
class App;
}

namespace gpb {

struct VerdictFlags {
  double alpha = kDefaultSignificanceLevel;
  std::string p_adjust = to_string(PAdjust::bh);
  std::string inconclusive = to_string(InconclusivePolicy::fail);
};

// Adds --alpha, --p-adjust and --inconclusive to a command, bound to `flags`.
void add_verdict_flags(CLI::App& command, VerdictFlags& flags);

// The flags' names, for the rules of a command that takes them only in some uses.
const std::vector<std::string>& verdict_flag_names();

// The flags into compare's options; UsageError on a value they do not take.
void apply_verdict_flags(const VerdictFlags& flags, CompareOptions& options);

}  // namespace gpb
