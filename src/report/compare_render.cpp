#include "report/compare_render.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/report_model.hpp"

namespace gpb {
namespace {

// Keys in the order they were written: the summary before the cases, for people reading it.
using Json = nlohmann::ordered_json;
using report_model::Align;
using report_model::escape_markdown;

std::string outcome(const Comparison& comparison) {
  return std::string(comparison.passed() ? "PASS" : "FAIL") + " (exit " + std::to_string(comparison.exit_code()) + ")";
}

std::string verdict_counts(const Comparison& comparison) {
  const VerdictCounts& n = comparison.counts;
  return std::to_string(comparison.cases.size()) + " cases: " + std::to_string(n.slower) + " slower, " +
         std::to_string(n.failed) + " failed, " + std::to_string(n.missing) + " missing" +
         (comparison.allow_missing && n.missing > 0 ? " (allowed)" : "") + ", " + std::to_string(n.faster) +
         " faster, " + std::to_string(n.same) + " same (" + std::to_string(n.noisy) + " noisy), " +
         std::to_string(n.new_cases) + " new";
}

std::string format_ratio(const CaseComparison& c) {
  if (!c.ratio || !c.ratio_bounds) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.3f [%.3f, %.3f]", *c.ratio, c.ratio_bounds->low, c.ratio_bounds->high);
  return text;
}

std::string optional_seconds(const std::optional<double>& seconds) { return seconds ? format_seconds(*seconds) : "-"; }

// Regressions red, speed-ups green, a doubt (noise, another machine's clocks) yellow.
std::string verdict_cell(const CaseComparison& c, bool colour) {
  using report_model::Paint;
  const bool regressed = c.verdict == Verdict::slower || c.verdict == Verdict::failed || c.verdict == Verdict::missing;
  const Paint paint = regressed ? Paint::failure : c.verdict == Verdict::faster ? Paint::success : Paint::warning;
  const bool plain = !regressed && c.verdict != Verdict::faster && !c.noisy && c.telemetry_difference.empty();
  return report_model::painted(c.label(), paint, colour && !plain);
}

report_model::Table comparison_table(const Comparison& comparison, bool colour) {
  report_model::Table table;
  table.columns = {{"case", Align::left},
                   {"baseline", Align::right},
                   {"current", Align::right},
                   {"ratio [95% bounds]", Align::right},
                   {"p", Align::right},
                   {"threshold", Align::right},
                   {"verdict", Align::left},
                   {"note", Align::left}};
  table.key_columns = 1;
  for (const CaseComparison& c : comparison.cases) {
    report_model::Row row;
    row.cells = {c.device.empty() ? c.id : c.id + " on " + c.device, optional_seconds(c.baseline_median_s),
                 optional_seconds(c.current_median_s), format_ratio(c),
                 c.p_value ? format_short(*c.p_value) : "-", format_percent(c.threshold, "%g%%"), verdict_cell(c, colour),
                 c.note};
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string render_console_table(const Comparison& comparison, bool colour) {
  std::ostringstream out;
  report_model::append_console_table(out, comparison_table(comparison, colour));
  const auto paint = comparison.passed() ? report_model::Paint::success : report_model::Paint::failure;
  out << '\n' << report_model::painted(outcome(comparison), paint, colour) << ": " << verdict_counts(comparison) << '\n';
  return out.str();
}

std::string describe_origin(const ReportOrigin& origin) {
  std::string text = "`" + (origin.git_sha.empty() ? std::string("unknown") : origin.git_sha) + "`";
  if (!origin.timestamp.empty()) text += " " + escape_markdown(origin.timestamp);
  if (!origin.hostname.empty()) text += " on " + escape_markdown(origin.hostname);
  return text;
}

std::string render_markdown_table(const Comparison& comparison) {
  std::ostringstream out;
  out << "### gpubench compare: " << outcome(comparison) << "\n\n" << verdict_counts(comparison) << "\n\n";
  out << "Baseline " << describe_origin(comparison.baseline) << "; current " << describe_origin(comparison.current) << ".\n\n";
  if (!comparison.machine_mismatch.empty())
    out << "> **Cross-machine comparison:** " << escape_markdown(comparison.machine_mismatch) << "\n\n";
  for (const std::string& warning : comparison.warnings) out << "> **Warning:** " << escape_markdown(warning) << "\n";
  if (!comparison.warnings.empty()) out << "\n";
  report_model::append_markdown_table(out, comparison_table(comparison, false));
  return out.str();
}

Json optional_json(const std::optional<double>& value) { return value ? Json(*value) : Json(); }

Json interval_json(const std::optional<Interval>& interval) {
  return interval ? Json::array({interval->low, interval->high}) : Json();
}

Json origin_json(const ReportOrigin& origin) {
  return {{"git_sha", origin.git_sha}, {"timestamp", origin.timestamp}, {"hostname", origin.hostname}};
}

std::string render_json_document(const Comparison& comparison) {
  const VerdictCounts& n = comparison.counts;
  Json cases = Json::array();
  for (const CaseComparison& c : comparison.cases) {
    cases.push_back({{"id", c.id},
                     {"op", to_string(c.op)},
                     {"backend", c.backend},
                     {"verdict", to_string(c.verdict)},
                     {"noisy", c.noisy},
                     {"cross_machine", c.cross_machine},
                     {"clocks_power_differ", c.telemetry_difference.empty() ? Json() : Json(c.telemetry_difference)},
                     {"label", c.label()},
                     {"baseline_median_s", optional_json(c.baseline_median_s)},
                     {"current_median_s", optional_json(c.current_median_s)},
                     {"baseline_median_ci_s", interval_json(c.baseline_median_ci_s)},
                     {"current_median_ci_s", interval_json(c.current_median_ci_s)},
                     {"ratio", optional_json(c.ratio)},
                     {"ratio_bounds", interval_json(c.ratio_bounds)},
                     {"p_value", optional_json(c.p_value)},
                     {"threshold", c.threshold},
                     {"note", c.note}});
    if (!c.device.empty()) cases.back()["device"] = c.device;
  }
  const Json document = {
      {"schema_version", kReportSchemaVersion},
      {"exit_code", comparison.exit_code()},
      {"passed", comparison.passed()},
      {"alpha", comparison.alpha},
      {"allow_missing", comparison.allow_missing},
      {"baseline", origin_json(comparison.baseline)},
      {"current", origin_json(comparison.current)},
      {"machine_mismatch", comparison.machine_mismatch.empty() ? Json() : Json(comparison.machine_mismatch)},
      {"warnings", comparison.warnings},
      {"summary",
       {{"cases", comparison.cases.size()},
        {"failed", n.failed},
        {"slower", n.slower},
        {"missing", n.missing},
        {"same", n.same},
        {"noisy", n.noisy},
        {"faster", n.faster},
        {"new", n.new_cases}}},
      {"cases", cases}};
  return document.dump(2) + "\n";
}

}  // namespace

std::string render_comparison(const Comparison& comparison, ReportFormat format, bool colour) {
  if (format == ReportFormat::console) return render_console_table(comparison, colour);
  if (format == ReportFormat::markdown) return render_markdown_table(comparison);
  if (format == ReportFormat::json) return render_json_document(comparison);
  throw UsageError("compare writes console, markdown or json output, not " + to_string(format));
}

}  // namespace gpb
