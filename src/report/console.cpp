// The console report: a short context header, an aligned results table, a footer.
#include <algorithm>
#include <sstream>

#include "analysis/fleet.hpp"
#include "report/costs_render.hpp"
#include "report/fleet_render.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"
#include "report/energy_render.hpp"
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
  const std::size_t table_width = report_model::append_console_table(out, report_model::results_table(context, results, options));
  out << '\n';
  const auto failures = report_model::failure_lines(results);
  append_console_line(out, report_model::painted(report_model::summary_line(results), report_model::Paint::failure,
                                                 options.colour && !failures.empty()));
  const std::size_t failure_width = std::max(table_width, kMinFailureWidth) - 4;
  for (const auto& failure : failures)
    report_model::append_wrapped(out, "  ", 4, report_model::painted("failed:", report_model::Paint::failure, options.colour) + " " + failure,
                                 failure_width);
  for (const auto& doubt : report_model::doubt_lines(context, results))
    report_model::append_wrapped(out, "  ", 4, "! " + doubt, failure_width);
  const report_model::Table overhead = report_model::launch_overhead_table(results);
  if (!overhead.rows.empty()) {
    out << '\n' << report_model::kLaunchOverheadTitle << ":\n";
    report_model::append_console_table(out, overhead);
    report_model::append_wrapped(out, "note: ", 6, report_model::kLaunchOverheadNote, failure_width);
  }
  const report_model::Table telemetry = report_model::telemetry_table(results);
  if (!telemetry.rows.empty()) {
    out << "\nGPU telemetry while measuring:\n";
    report_model::append_console_table(out, telemetry);
  }
  for (const auto& footnote : report_model::telemetry_footnotes(results))
    report_model::append_wrapped(out, "note: ", 6, footnote, failure_width);
  const report_model::Table energy = report_model::energy_table(results);
  if (!energy.rows.empty()) {
    out << "\nEnergy per op (energy counters):\n";
    report_model::append_console_table(out, energy);
  }
  for (const auto& footnote : report_model::energy_footnotes(results))
    report_model::append_wrapped(out, "note: ", 6, footnote, failure_width);
  const report_model::Table interference = report_model::cpu_telemetry_table(results);
  if (!interference.rows.empty()) {
    out << "\nCPU interference while measuring:\n";
    report_model::append_console_table(out, interference);
    report_model::append_wrapped(out, "note: ", 6, report_model::cpu_telemetry_footnote(results), failure_width);
  }
  const auto one_time = report_model::one_time_lines(context);
  if (!one_time.empty()) {
    out << "\nOne-time costs:\n";
    for (const auto& line : one_time) report_model::append_wrapped(out, "  ", 4, line, failure_width);
  }
  const report_model::Table costs = report_model::costs_table(results);
  if (!costs.rows.empty()) {
    out << "\nFirst calls and host cost per call:\n";
    report_model::append_console_table(out, costs);
    report_model::append_wrapped(out, "note: ", 6, report_model::costs_footnote(results), failure_width);
  }
  const FleetView fleet = analyze_fleet(context, results, options.outlier_threshold);
  if (fleet.applies()) out << '\n' << render_fleet_console(fleet);
  return out.str();
}

std::string render_context_console(const Context& context) {
  constexpr std::size_t kNameWidth = 12, kWidth = 80;
  std::ostringstream out;
  const auto fact = [&](const std::string& name, const std::string& text) {
    if (text.empty()) return;
    std::string first = name;
    first.resize(kNameWidth, ' ');
    report_model::append_wrapped(out, first, kNameWidth, text, kWidth - kNameWidth);
  };
  const auto joined = [](const std::vector<std::string>& parts) {
    std::string text;
    for (const auto& part : parts)
      if (!part.empty()) text += (text.empty() ? "" : ", ") + part;
    return text;
  };
  fact("gpubench", joined({context.tool_version, context.git_sha.empty() ? "" : "git " + context.git_sha,
                           context.build_type.empty() ? "" : context.build_type + " build", context.compiler}));
  fact("host", joined({context.hostname, context.os}));
  fact("CPU", joined({context.cpu_model, context.cpu_cores > 0 ? std::to_string(context.cpu_cores) + " cores" : ""}));
  fact("memory", context.memory_gib > 0 ? format_significant(context.memory_gib, 3) + " GiB" : "");
  std::vector<std::string> libraries;
  for (const auto& [name, version] : context.libraries) libraries.push_back(name + " " + version);
  fact("libraries", joined(libraries));
  for (const auto& gpu : context.gpus) {
    const auto number = [](double value, const char* unit) { return value > 0 ? format_significant(value, 3) + unit : ""; };
    fact("GPU " + std::to_string(gpu.ordinal),
         joined({gpu.name, gpu.compute_capability.empty() ? "" : "compute " + gpu.compute_capability,
                 gpu.sm_count > 0 ? std::to_string(gpu.sm_count) + " SMs" : "", number(gpu.memory_gib, " GiB"),
                 number(gpu.l2_mib, " MiB L2"), number(gpu.theoretical_bandwidth_gbps, " GB/s peak"),
                 gpu.driver_version.empty() ? "" : "driver " + gpu.driver_version,
                 gpu.runtime_version.empty() ? "" : "CUDA runtime " + gpu.runtime_version, gpu.ecc ? "ECC on" : "ECC off",
                 gpu.uuid, gpu.pci_bus_id.empty() ? "" : "PCI " + gpu.pci_bus_id}));
  }
  for (const auto& note : report_model::summarize_context(context).notes) fact("note", note);
  return out.str();
}

std::string report_model::render_text_table(const Table& table) {
  std::ostringstream out;
  report_model::append_console_table(out, table);
  return out.str();
}

}  // namespace gpb
