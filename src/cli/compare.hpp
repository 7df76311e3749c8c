// `gpubench compare`, and the comparison that `gpubench run --baseline` and `gpubench ab` end
// with: compare's verdicts rendered on out, its warnings on err, its exit code returned.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "config/verdict_flags.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"

namespace gpb {

// `gpubench compare`'s command line.
struct CompareCli {
  std::string baseline, current, format = "console", threshold, match_devices = "uuid";
  VerdictFlags verdict;
  CompareOptions options;
};

// `colour`: the console table colours its verdicts (stdout is a terminal, or --color always).
int command_compare(CompareCli cli, bool colour);

// `gpubench compare`: reads both JSON reports (a baseline "db:..." pools runs from the
// history instead, see analysis/history_baseline.hpp), writes the comparison to out and the
// warnings to err, and returns the exit code. UsageError (exit 2) propagates.
int run_compare(const std::string& baseline_path, const std::string& current_path, const CompareOptions& options,
                ReportFormat format, std::ostream& out, std::ostream& err, bool colour = false);

// Renders a comparison on out (coloured where colour) and its warnings on err (compare, run
// --baseline, ab); returns its exit code.
int print_comparison(const Comparison& comparison, ReportFormat format, std::ostream& out, std::ostream& err,
                     bool colour = false);

}  // namespace gpb
