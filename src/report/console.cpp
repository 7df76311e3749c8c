// The console report: a short context header, an aligned results table, a footer.
#include <algorithm>
#include <limits>
#include <sstream>

#include "analysis/fleet.hpp"
#include "report/fleet_render.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"
#include "report/telemetry_render.hpp"

namespace gpb {
namespace {

using report_model::append_console_line;

// Failures are listed in full below the table, wrapped to its width (or to a small terminal's).
constexpr std::size_t kMinFailureWidth = 80;

}  // namespace

std::string render_console(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  std::ostringstream out;
  const auto summary = report_model::summarize_context(context);
  for (const auto& fact : summary.facts) append_console_line(out, fact);
  for (const auto& note : summary.notes) append_console_line(out, "note: " + note);
  out << '\n';
  const std::size_t table_width = report_model::append_console_table(out, report_model::results_table(results, options));
  out << '\n';
  append_console_line(out, report_model::summary_line(results));
  const std::size_t failure_width = std::max(table_width, kMinFailureWidth) - 4;
  for (const auto& failure : report_model::failure_lines(results))
    report_model::append_wrapped(out, "  ", 4, "failed: " + failure, failure_width, std::numeric_limits<std::size_t>::max());
  const report_model::Table telemetry = report_model::telemetry_table(results);
  if (!telemetry.rows.empty()) {
    out << "\nGPU telemetry while measuring:\n";
    report_model::append_console_table(out, telemetry);
  }
  for (const auto& footnote : report_model::telemetry_footnotes(results))
    report_model::append_wrapped(out, "note: ", 6, footnote, failure_width, std::numeric_limits<std::size_t>::max());
  const report_model::Table interference = report_model::cpu_telemetry_table(results);
  if (!interference.rows.empty()) {
    out << "\nCPU interference while measuring:\n";
    report_model::append_console_table(out, interference);
    report_model::append_wrapped(out, "note: ", 6, report_model::cpu_telemetry_footnote(results), failure_width,
                                 std::numeric_limits<std::size_t>::max());
  }
  const FleetView fleet = analyze_fleet(context, results, options.outlier_threshold);
  if (fleet.applies()) out << '\n' << render_fleet_console(fleet);
  return out.str();
}

std::string report_model::render_text_table(const Table& table) {
  std::ostringstream out;
  report_model::append_console_table(out, table);
  return out.str();
}

}  // namespace gpb
