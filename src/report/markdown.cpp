// The Markdown report: GitHub-flavoured, sized for a CI job summary. Same table as the
// console, with a one-line context and the failures listed below it.
#include <sstream>

#include "analysis/fleet.hpp"
#include "report/costs_render.hpp"
#include "report/fleet_render.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"
#include "report/summary_render.hpp"
#include "report/energy_render.hpp"
#include "report/telemetry_render.hpp"

namespace gpb {

using report_model::escape_markdown;

std::string render_markdown(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  std::ostringstream out;
  const auto summary = report_model::summarize_context(context);
  for (std::size_t i = 0; i < summary.facts.size(); ++i)
    out << (i == 0 ? "**" + escape_markdown(summary.facts[i]) + "**" : " \u00b7 " + escape_markdown(summary.facts[i]));
  out << '\n';
  for (const auto& note : summary.notes) out << "\n> note: " << escape_markdown(note) << '\n';
  out << '\n';

  report_model::append_markdown_table(out, report_model::results_table(context, results, options));

  out << '\n' << report_model::summary_line(results) << '\n';
  const auto failures = report_model::failure_lines(results);
  if (!failures.empty()) {
    out << "\nFailures:\n\n";
    for (const auto& failure : failures) out << "- " << escape_markdown(failure) << '\n';
  }
  const auto doubts = report_model::doubt_lines(context, results);
  if (!doubts.empty()) {
    out << "\nFigures to doubt (! in the spread column):\n\n";
    for (const auto& doubt : doubts) out << "- ! " << escape_markdown(doubt) << '\n';
  }
  const report_model::Table overhead = report_model::launch_overhead_table(results);
  if (!overhead.rows.empty()) {
    out << '\n' << report_model::kLaunchOverheadTitle << ":\n\n";
    report_model::append_markdown_table(out, overhead);
    out << "\n> note: " << escape_markdown(report_model::kLaunchOverheadNote) << '\n';
  }
  const report_model::Table telemetry = report_model::telemetry_table(results);
  if (!telemetry.rows.empty()) {
    out << "\nGPU telemetry while measuring:\n\n";
    report_model::append_markdown_table(out, telemetry);
  }
  const auto footnotes = report_model::telemetry_footnotes(results);
  if (!footnotes.empty()) out << '\n';
  for (const auto& footnote : footnotes) out << "> note: " << escape_markdown(footnote) << '\n';
  const report_model::Table energy = report_model::energy_table(results);
  if (!energy.rows.empty()) {
    out << "\nEnergy per op (energy counters):\n\n";
    report_model::append_markdown_table(out, energy);
    out << '\n';
    for (const auto& footnote : report_model::energy_footnotes(results)) out << "> note: " << escape_markdown(footnote) << '\n';
  }
  const report_model::Table interference = report_model::cpu_telemetry_table(results);
  if (!interference.rows.empty()) {
    out << "\nCPU interference while measuring:\n\n";
    report_model::append_markdown_table(out, interference);
    out << "\n> note: " << escape_markdown(report_model::cpu_telemetry_footnote(results)) << '\n';
  }
  const auto one_time = report_model::one_time_lines(context);
  if (!one_time.empty()) {
    out << "\nOne-time costs:\n\n";
    for (const auto& line : one_time) out << "- " << escape_markdown(line) << '\n';
  }
  const report_model::Table costs = report_model::costs_table(results);
  if (!costs.rows.empty()) {
    out << "\nFirst calls and host cost per call:\n\n";
    report_model::append_markdown_table(out, costs);
    out << "\n> note: " << escape_markdown(report_model::costs_footnote(results)) << '\n';
  }
  const SpeedupSummary speedups = summarize_speedups(results);
  if (speedups.has_cpu_gpu_pair()) out << '\n' << render_speedups_markdown(speedups);
  const FleetView fleet = analyze_fleet(context, results, options.outlier_threshold);
  if (fleet.applies()) out << '\n' << render_fleet_markdown(fleet);
  return out.str();
}

}  // namespace gpb
