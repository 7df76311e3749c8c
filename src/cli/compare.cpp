#include "cli/compare.hpp"

#include <iostream>

#include "analysis/history_baseline.hpp"
#include "config/run_config.hpp"
#include "report/compare_render.hpp"

namespace gpb {

int print_comparison(const Comparison& comparison, ReportFormat format, std::ostream& out, std::ostream& err,
                     bool colour) {
  const std::string rendered = render_comparison(comparison, format, colour);
  if (!comparison.machine_mismatch.empty())
    err << "gpubench: warning: comparing across machines, every verdict is cross-machine: "
        << comparison.machine_mismatch << "\n";
  for (const std::string& warning : comparison.warnings) err << "gpubench: warning: " << warning << "\n";
  out << rendered;
  return comparison.exit_code();
}

int run_compare(const std::string& baseline_path, const std::string& current_path, const CompareOptions& options,
                ReportFormat format, std::ostream& out, std::ostream& err, bool colour) {
  const LoadedReport current = read_json_report(current_path);
  const LoadedReport baseline = Baseline::open(baseline_path).report_for(current.context, options.allow_interrupted);
  return print_comparison(compare_reports(baseline, current, options), format, out, err, colour);
}

int command_compare(CompareCli cli, bool colour) {
  if (!cli.threshold.empty()) cli.options.threshold = parse_threshold_flag("--threshold", cli.threshold);
  apply_verdict_flags(cli.verdict, cli.options);
  cli.options.match_devices = parse_device_match(cli.match_devices);
  const ReportFormat format = parse_report_format(cli.format, kComparisonFormats);
  return run_compare(cli.baseline, cli.current, cli.options, format, std::cout, std::cerr, colour);
}

}  // namespace gpb
