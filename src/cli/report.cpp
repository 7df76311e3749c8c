#include "cli/report.hpp"

#include <algorithm>
#include <iostream>
#include <optional>

#include "analysis/fleet.hpp"
#include "analysis/summary.hpp"
#include "base/atomic_file.hpp"
#include "cli/exit_codes.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"
#include "report/summary_render.hpp"

namespace gpb {

int command_report(const ReportCli& cli, bool colour) {
  const ReportFormat format = parse_report_format(cli.format);
  refuse_outputs_over_inputs({{"--html", cli.html}}, {{"the report", cli.path}});
  if (!cli.html.empty()) {
    require_html_path(cli.html, "--html");
    check_report_destination(cli.html);  // before the report is read and rendered
  }
  const LoadedReport report = read_json_report(cli.path);
  ReportOptions options;
  options.colour = colour;
  if (!cli.relative_to.empty()) {
    const bool present = std::any_of(report.results.begin(), report.results.end(),
                                     [&](const ResultRecord& record) { return record.spec.backend == cli.relative_to; });
    if (!present) {
      std::vector<std::string> backends;
      for (const ResultRecord& record : report.results)
        if (std::find(backends.begin(), backends.end(), record.spec.backend) == backends.end())
          backends.push_back(record.spec.backend);
      const std::string nearest = nearest_word(cli.relative_to, backends);
      throw UsageError("--relative-to " + cli.relative_to + ": no results of that backend in " + cli.path +
                       (backends.empty() ? " (it holds no results)"
                                         : " (" + (nearest.empty() ? "" : "did you mean " + nearest + "? ") +
                                               "its backends: " + join_words(backends, ", ") + ")"));
    }
    options.relative_to = cli.relative_to;
  }
  std::optional<FleetView> gate;
  if (cli.gate_on_outliers) {
    if (!(cli.fail_on_outlier_percent > 0)) throw UsageError("--fail-on-outlier must be a positive percentage");
    options.outlier_threshold = cli.fail_on_outlier_percent / 100.0;
    gate = analyze_fleet(report.context, report.results, options.outlier_threshold);
    if (!gate->applies())
      throw UsageError("--fail-on-outlier: " + cli.path + " holds one GPU's or rank's results; the fleet view needs several");
  }
  if (!cli.html.empty()) write_file_atomic(cli.html, render_html(report.context, report.results, options));
  // The console view adds the speed-up summary that the Markdown and JSON reports carry themselves.
  std::cout << render_report(format, report.context, report.results, options);
  if (format == ReportFormat::console)
    std::cout << '\n' << render_speedups_console(summarize_speedups(report.results));
  std::cout << std::flush;
  if (gate && (gate->outlier_count() > 0 || !gate->failures.empty())) return kExitOutlier;
  return kExitOk;
}

}  // namespace gpb
