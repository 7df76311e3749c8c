// `gpubench report`: re-renders a JSON report, with the CPU-versus-GPU summary and an HTML
// page; exit 1 with --fail-on-outlier when a GPU is an outlier of the fleet view.
#pragma once

#include <string>

namespace gpb {

struct ReportCli {
  std::string path, html, format = "console", relative_to;
  double fail_on_outlier_percent = 0;
  bool gate_on_outliers = false;  // --fail-on-outlier given
};

// `colour`: the console report colours failures (stdout is a terminal, or --color always).
int command_report(const ReportCli& cli, bool colour);

}  // namespace gpb
