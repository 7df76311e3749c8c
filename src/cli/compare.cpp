#include "cli/compare.hpp"

#include <iostream>

#include "analysis/history_baseline.hpp"
#include "config/run_config.hpp"
#include "report/compare_render.hpp"

namespace gpb {
namespace {

int report_comparison(const LoadedReport& baseline, const LoadedReport& current, const CompareOptions& options,
                      ReportFormat format, std::ostream& out, std::ostream& err, bool colour) {
  const Comparison comparison = compare_reports(baseline, current, options);
  const std::string rendered = render_comparison(comparison, format, colour);
  if (!comparison.machine_mismatch.empty())
    err << "gpubench: warning: comparing across machines, every verdict is cross-machine: "
        << comparison.machine_mismatch << "\n";
  for (const std::string& warning : comparison.warnings) err << "gpubench: warning: " << warning << "\n";
  out << rendered;
  return comparison.exit_code();
}

}  // namespace

int run_compare(const std::string& baseline_path, const std::string& current_path, const CompareOptions& options,
                ReportFormat format, std::ostream& out, std::ostream& err, bool colour) {
  const LoadedReport current = read_json_report(current_path);
  return report_comparison(Baseline::open(baseline_path).report_for(current.context, options.allow_interrupted), current, options, format, out, err,
                           colour);
}

int compare_with_baseline(const LoadedReport& baseline, const Context& context,
                          const std::vector<ResultRecord>& results, const CompareOptions& options, ReportFormat format,
                          std::ostream& out, std::ostream& err, bool colour) {
  return report_comparison(baseline, LoadedReport{context, results}, options, format, out, err, colour);
}

int command_compare(CompareCli cli, bool colour) {
  if (!cli.threshold.empty()) cli.options.threshold = parse_threshold_flag("--threshold", cli.threshold);
  cli.options.match_devices = parse_device_match(cli.match_devices);
  const ReportFormat format =
      parse_report_format(cli.format, {ReportFormat::console, ReportFormat::markdown, ReportFormat::json});
  return run_compare(cli.baseline, cli.current, cli.options, format, std::cout, std::cerr, colour);
}

}  // namespace gpb
