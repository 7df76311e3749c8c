// `gpubench compare`, and the comparison that `gpubench run --baseline` ends with: compare's
// verdicts rendered on out, its warnings on err, its exit code returned.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"

namespace gpb {

// `gpubench compare`'s command line.
struct CompareCli {
  std::string baseline, current, format = "console", threshold, match_devices = "uuid";
  CompareOptions options;
};

// `colour`: the console table colours its verdicts (stdout is a terminal, or --color always).
int command_compare(CompareCli cli, bool colour);

// `gpubench compare`: reads both JSON reports (a baseline "db:..." pools runs from the
// history instead, see analysis/history_baseline.hpp), writes the comparison to out and the
// warnings to err, and returns the exit code. UsageError (exit 2) propagates.
int run_compare(const std::string& baseline_path, const std::string& current_path, const CompareOptions& options,
                ReportFormat format, std::ostream& out, std::ostream& err, bool colour = false);

// `gpubench run --baseline`: compares results just measured against a baseline read before
// the run (or, from the history, after it).
int compare_with_baseline(const LoadedReport& baseline, const Context& context,
                          const std::vector<ResultRecord>& results, const CompareOptions& options, ReportFormat format,
                          std::ostream& out, std::ostream& err, bool colour = false);

}  // namespace gpb
