#include "cli/merge.hpp"

#include <iostream>
#include <set>

#include "analysis/fleet.hpp"
#include "base/atomic_file.hpp"
#include "cli/exit_codes.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"

namespace gpb {

int command_merge(const std::vector<std::string>& paths, const std::string& out) {
  if (paths.size() < 2) throw UsageError("merge needs at least two reports");
  if (report_format_named_by(out) != ReportFormat::json) throw UsageError("merge --out '" + out + "': the merged report is JSON (.json)");
  check_report_destination(out);
  std::vector<NamedFile> inputs;
  for (const auto& path : paths) inputs.push_back({"a report to merge", path});
  refuse_outputs_over_inputs({{"--out", out}}, inputs);
  std::vector<NamedReport> reports;
  for (const auto& path : paths) reports.push_back({path, read_json_report(path)});
  const LoadedReport merged = merge_reports(std::move(reports));
  write_file_atomic(out, render_json(merged.context, merged.results));
  std::set<std::string> hosts;
  for (const auto& rank : merged.context.ranks) hosts.insert(rank.host);
  std::cout << "merged " << paths.size() << " reports (" << merged.context.ranks.size() << " ranks on " << hosts.size()
            << " host" << (hosts.size() == 1 ? "" : "s") << ", " << merged.results.size() << " records) into " << out << "\n";
  if (const std::vector<int> missing = missing_ranks(merged.context); !missing.empty())
    std::cerr << "gpubench: warning: " << ranks_text(missing) << " of the run " << (missing.size() == 1 ? "is" : "are")
              << " missing: the merged report holds " << merged.context.ranks.size() << " of its "
              << merged.context.ranks.size() + missing.size() << " ranks\n";
  return kExitOk;
}

}  // namespace gpb
