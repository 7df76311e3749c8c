#include "cli/info.hpp"

#include <iostream>

#include "base/system.hpp"
#include "cli/exit_codes.hpp"
#include "measure/context.hpp"
#include "report/report.hpp"

namespace gpb {

int command_info(const std::string& format_name, const std::vector<std::string>& argv) {
  const ReportFormat format = parse_report_format(format_name, {ReportFormat::console, ReportFormat::json});
  const Context context = collect_context(argv, usable_cores());
  std::cout << (format == ReportFormat::json ? render_report(format, context, {}) : render_context_console(context)) << std::flush;
  return kExitOk;
}

}  // namespace gpb
