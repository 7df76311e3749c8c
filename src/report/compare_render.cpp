#include "report/compare_render.hpp"

#include <algorithm>
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
  const int code = comparison.exit_code();
  const char* word = code == kCompareExitPass ? "PASS" : code == kCompareExitInconclusive ? "INCONCLUSIVE" : "FAIL";
  return std::string(word) + " (exit " + std::to_string(code) + ")";
}

std::string verdict_counts(const Comparison& comparison) {
  const VerdictCounts& n = comparison.counts;
  return std::to_string(comparison.cases.size()) + " cases: " + std::to_string(n.slower) + " slower, " +
         std::to_string(n.failed) + " failed, " + std::to_string(n.missing) + " missing" +
         (comparison.allow_missing && n.missing > 0 ? " (allowed)" : "") + ", " + std::to_string(n.inconclusive) +
         " inconclusive" +
         (comparison.inconclusive == InconclusivePolicy::pass && n.inconclusive > 0 ? " (passed)" : "") + ", " +
         std::to_string(n.faster) + " faster, " + std::to_string(n.same) + " same (" + std::to_string(n.noisy) +
         " noisy), " + std::to_string(n.new_cases) + " new";
}

// "alpha 0.001, p adjusted by Benjamini-Hochberg over 34 cases" (and the looks of a
// sequential re-measurement).
std::string test_rule(const Comparison& comparison) {
  std::size_t tested = 0;
  for (const CaseComparison& c : comparison.cases) tested += c.p_adjusted.has_value();
  std::string text = "alpha " + format_short(comparison.alpha);
  if (comparison.looks > 1)
    text += " spent over " + std::to_string(comparison.looks) + " looks (Hwang-Shih-DeCani, gamma " +
            format_short(kSpendingGamma) + "): " + format_short(comparison.alpha_this_look()) + " at look " +
            std::to_string(comparison.look);
  switch (comparison.p_adjust) {
    case PAdjust::bh: text += ", p adjusted by Benjamini-Hochberg"; break;
    case PAdjust::holm: text += ", p adjusted by Holm"; break;
    case PAdjust::none: text += ", p not adjusted"; break;
  }
  return text + " over " + std::to_string(tested) + (tested == 1 ? " case" : " cases");
}

bool any_rounds(const Comparison& comparison) {
  return std::any_of(comparison.cases.begin(), comparison.cases.end(), [](const CaseComparison& c) { return c.rounds > 0; });
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
  const bool plain = c.verdict == Verdict::same && !c.noisy && c.telemetry_difference.empty();
  return report_model::painted(c.label(), paint, colour && !plain);
}

std::string optional_short(const std::optional<double>& value) { return value ? format_short(*value) : "-"; }

// The adjusted p-value column where p-values are adjusted, the rounds column where a
// sequential re-measurement pooled any.
report_model::Table comparison_table(const Comparison& comparison, bool colour) {
  const bool adjusted = comparison.p_adjust != PAdjust::none;
  const bool rounds = any_rounds(comparison);
  report_model::Table table;
  table.columns = {{"case", Align::left}, {"baseline", Align::right}, {"current", Align::right},
                   {"ratio [95% bounds]", Align::right}, {"p", Align::right}};
  if (adjusted) table.columns.push_back({"p adj", Align::right});
  table.columns.push_back({"threshold", Align::right});
  if (rounds) table.columns.push_back({"rounds", Align::right});
  table.columns.push_back({"verdict", Align::left});
  table.columns.push_back({"note", Align::left});
  table.key_columns = 1;
  for (const CaseComparison& c : comparison.cases) {
    report_model::Row row;
    row.cells = {c.device.empty() ? c.id : c.id + " on " + c.device, optional_seconds(c.baseline_median_s),
                 optional_seconds(c.current_median_s), format_ratio(c), optional_short(c.p_value)};
    if (adjusted) row.cells.push_back(optional_short(c.p_adjusted));
    row.cells.push_back(format_percent(c.threshold, "%g%%"));
    if (rounds) row.cells.push_back(std::to_string(c.rounds));
    row.cells.push_back(verdict_cell(c, colour));
    row.cells.push_back(c.note);
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string render_console_table(const Comparison& comparison, bool colour) {
  std::ostringstream out;
  report_model::append_console_table(out, comparison_table(comparison, colour));
  out << '\n' << test_rule(comparison) << '\n';
  if (const std::string advice = inconclusive_advice(comparison); !advice.empty()) out << "Next: " << advice << '\n';
  const auto paint = comparison.passed() ? report_model::Paint::success : report_model::Paint::failure;
  out << report_model::painted(outcome(comparison), paint, colour) << ": " << verdict_counts(comparison) << '\n';
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
  out << "### gpubench compare: " << outcome(comparison) << "\n\n" << verdict_counts(comparison) << "; "
      << test_rule(comparison) << ".\n\n";
  if (const std::string advice = inconclusive_advice(comparison); !advice.empty())
    out << "> **Next:** " << escape_markdown(advice) << "\n\n";
  out << "Baseline " << describe_origin(comparison.baseline) << "; current " << describe_origin(comparison.current) << ".\n\n";
  if (!comparison.machine_mismatch.empty())
    out << "> **Cross-machine comparison:** " << escape_markdown(comparison.machine_mismatch) << "\n\n";
  for (const std::string& warning : comparison.warnings) out << "> **Warning:** " << escape_markdown(warning) << "\n";
  if (!comparison.warnings.empty()) out << "\n";
  report_model::append_markdown_table(out, comparison_table(comparison, false));
  return out.str();
}

Json optional_json(const std::optional<double>& value) { return value ? Json(*value) : Json(); }

Json text_or_null(const std::string& text) { return text.empty() ? Json() : Json(text); }

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
                     {"clocks_power_differ", text_or_null(c.telemetry_difference)},
                     {"label", c.label()},
                     {"baseline_median_s", optional_json(c.baseline_median_s)},
                     {"current_median_s", optional_json(c.current_median_s)},
                     {"baseline_median_ci_s", interval_json(c.baseline_median_ci_s)},
                     {"current_median_ci_s", interval_json(c.current_median_ci_s)},
                     {"ratio", optional_json(c.ratio)},
                     {"ratio_bounds", interval_json(c.ratio_bounds)},
                     {"p_value", optional_json(c.p_value)},
                     {"p_adjusted", optional_json(c.p_adjusted)},
                     {"threshold", c.threshold},
                     {"rounds", c.rounds},
                     {"interference", text_or_null(c.interference)},
                     {"baseline_wait_share", optional_json(c.baseline_wait_share)},
                     {"current_wait_share", optional_json(c.current_wait_share)},
                     {"note", c.note},
                     {"next_step", text_or_null(c.next_step)}});
    if (!c.device.empty()) cases.back()["device"] = c.device;
  }
  const Json document = {
      {"schema_version", kReportSchemaVersion},
      {"exit_code", comparison.exit_code()},
      {"passed", comparison.passed()},
      {"alpha", comparison.alpha},
      {"looks", comparison.looks},
      {"look", comparison.look},
      {"alpha_this_look", comparison.alpha_this_look()},
      {"p_adjust", to_string(comparison.p_adjust)},
      {"inconclusive", to_string(comparison.inconclusive)},
      {"allow_missing", comparison.allow_missing},
      {"baseline", origin_json(comparison.baseline)},
      {"current", origin_json(comparison.current)},
      {"machine_mismatch", text_or_null(comparison.machine_mismatch)},
      {"warnings", comparison.warnings},
      {"summary",
       {{"cases", comparison.cases.size()},
        {"failed", n.failed},
        {"slower", n.slower},
        {"missing", n.missing},
        {"inconclusive", n.inconclusive},
        {"same", n.same},
        {"noisy", n.noisy},
        {"faster", n.faster},
        {"new", n.new_cases}}},
      {"next_step", text_or_null(inconclusive_advice(comparison))},
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
