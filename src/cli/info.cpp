#include "cli/info.hpp"

#include <iostream>

#include "base/system.hpp"
#include "cli/exit_codes.hpp"
#include "measure/context.hpp"
#include "report/report.hpp"

namespace gpb {

int command_info(const std::string& format_name, const std::vector<std::string>& argv) {
  const ReportFormat format = parse_report_format(format_name);
  if (format != ReportFormat::console && format != ReportFormat::json) throw UsageError("info --format takes console or json");
  std::cout << render_report(format, collect_context(argv, usable_cores()), {}) << std::flush;
  return kExitOk;
}

}  // namespace gpb
