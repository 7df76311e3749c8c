// The stored history as text: runs, case trends, check findings, CSV and JSON exports.
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/history_report.hpp"
#include "report/report_model.hpp"

namespace gpb {
namespace {

using report_model::Align;
using report_model::Column;
using report_model::Table;

std::string p_value(double p) {
  char text[32];
  std::snprintf(text, sizeof text, "p %.3g", p);
  return text;
}

std::string seconds_or_dash(double seconds) { return seconds > 0 ? format_seconds(seconds) : "-"; }

// "run06 (run 6, 2024-11-21T05:00:00Z)"
std::string describe_run(const store::RunInfo& run) {
  return run.label() + " (run " + std::to_string(run.id) + ", " + run.timestamp + ")";
}

std::string heading(const history::CaseHistory& history) {
  return history.case_id + " on " + history.machine + " (" + std::to_string(history.points.size()) + " runs, threshold " +
         format_threshold(history.threshold) + ")";
}

// "runs 3-7 (c1..c5): median 1.23 ms"
std::string describe_segment(const history::CaseHistory& history, const Segment& segment) {
  const auto& first = history.points[segment.begin].run;
  const auto& last = history.points[segment.end - 1].run;
  return "runs " + std::to_string(first.id) + "-" + std::to_string(last.id) + " (" + first.label() + ".." + last.label() +
         "): median " + format_seconds(segment.median);
}

std::string verdict_line(std::size_t histories, std::size_t regressions) {
  return std::string(regressions ? "FAIL (exit 1)" : "PASS (exit 0)") + ": " + std::to_string(regressions) + " of " +
         std::to_string(histories) + " case histories slower since a change point";
}

}  // namespace

std::string format_change(double fraction) { return format_percent(fraction, "%+.1f%%"); }
std::string format_threshold(double fraction) { return format_percent(fraction, "%g%%"); }

std::string render_runs_console(const std::vector<store::RunInfo>& runs) {
  Table table;
  table.columns = {{"run", Align::right},     {"timestamp", Align::left}, {"label", Align::left},
                   {"results", Align::right}, {"host", Align::left},      {"machine", Align::left},
                   {"tags", Align::left}};
  table.key_columns = 1;
  for (const auto& run : runs)
    table.rows.push_back({{std::to_string(run.id), run.timestamp, run.label(), std::to_string(run.results), run.hostname,
                           run.machine, store::join_tags(run.tags, " ")},
                          ""});
  return report_model::render_text_table(table) + "\n" + std::to_string(runs.size()) + " runs\n";
}

std::string render_histories_console(const std::vector<history::CaseHistory>& histories) {
  std::ostringstream out;
  for (const auto& history : histories) {
    out << heading(history) << "\n";
    if (history.points.empty()) {
      out << "  no run measured it (every stored result is skipped or failed)\n\n";
      continue;
    }
    Table table;
    table.columns = {{"run", Align::right},    {"label", Align::left},  {"timestamp", Align::left},
                     {"median", Align::right}, {"95% CI", Align::left}, {"segment", Align::right},
                     {"change", Align::left}};
    table.key_columns = 3;
    const auto& analysis = history.analysis;
    std::size_t segment = 0, next_change = 0;
    for (std::size_t i = 0; i < history.points.size(); ++i) {
      const auto& point = history.points[i];
      std::string change;
      if (next_change < analysis.change_points.size() && analysis.change_points[next_change].index == i) {
        const ChangePoint& found = analysis.change_points[next_change++];
        change = "<- " + format_change(found.change) + " (" + p_value(found.p_value) + ")";
        ++segment;
      }
      table.rows.push_back({{std::to_string(point.run.id), point.run.label(), point.run.timestamp, format_seconds(point.median_s),
                             seconds_or_dash(point.ci_low_s) + " .. " + seconds_or_dash(point.ci_high_s),
                             std::to_string(segment + 1), change},
                            ""});
    }
    out << report_model::render_text_table(table);
    out << "segments:\n";
    for (std::size_t i = 0; i < analysis.segments.size(); ++i) {
      out << "  " << i + 1 << ": " << describe_segment(history, analysis.segments[i]);
      if (i > 0) out << " (" << format_change(analysis.change_points[i - 1].change) << ")";
      out << "\n";
    }
    if (const auto regression = history::newest_regression(history))
      out << "newest segment slower by " << format_change(regression->change.change) << " (> " << format_threshold(history.threshold)
          << ") since " << describe_run(regression->first().run) << "\n";
    out << "\n";
  }
  return out.str();
}

std::string render_history_check(const std::vector<history::CaseHistory>& histories, ReportFormat format, bool colour) {
  std::vector<history::Regression> regressions;
  for (const auto& history : histories)
    if (const auto regression = history::newest_regression(history)) regressions.push_back(*regression);
  std::ostringstream out;
  if (format == ReportFormat::markdown) {
    out << "### gpubench history check: " << verdict_line(histories.size(), regressions.size()) << "\n\n";
    if (regressions.empty()) return out.str();
    Table table;
    table.columns = {{"case", Align::left},   {"machine", Align::left}, {"slower", Align::right}, {"threshold", Align::right},
                     {"since", Align::left},  {"before", Align::right}, {"after", Align::right}};
    table.key_columns = 2;
    for (const auto& r : regressions)
      table.rows.push_back({{r.history->case_id, r.history->machine, format_change(r.change.change),
                             format_threshold(r.history->threshold), describe_run(r.first().run),
                             format_seconds(r.before->median), format_seconds(r.after->median)},
                            ""});
    report_model::append_markdown_table(out, table);
    return out.str();
  }
  if (format != ReportFormat::console) throw UsageError("history check writes console or markdown output, not " + to_string(format));
  for (const auto& r : regressions)
    out << report_model::painted("slower:", report_model::Paint::failure, colour) << " " << r.history->case_id << " on " << r.history->machine << ": " << format_change(r.change.change) << " (threshold "
        << format_threshold(r.history->threshold) << ") since " << describe_run(r.first().run) << ": "
        << r.after->end - r.after->begin << " runs at " << format_seconds(r.after->median) << " after "
        << r.before->end - r.before->begin << " at " << format_seconds(r.before->median) << " (" << p_value(r.change.p_value)
        << ")\n";
  out << report_model::painted(verdict_line(histories.size(), regressions.size()),
                               regressions.empty() ? report_model::Paint::success : report_model::Paint::failure, colour)
      << "\n";
  return out.str();
}

std::string render_history_csv(const std::vector<store::RunInfo>& runs, const std::vector<store::StoredResult>& results) {
  using report_model::csv_field;
  using report_model::csv_number;
  std::map<std::int64_t, const store::RunInfo*> run_by_id;
  for (const auto& run : runs) run_by_id[run.id] = &run;
  std::ostringstream out;
  out << "run_id,run_timestamp,ingested_at,machine,hostname,git_sha,tags,case_id,op,backend,dtype,device,status,verified,"
         "samples,median_s,median_ci_low_s,median_ci_high_s\n";
  for (const auto& result : results) {
    const store::RunInfo& run = *run_by_id.at(result.run_id);
    out << run.id << ',' << csv_field(run.timestamp) << ',' << csv_field(run.ingested_at) << ',' << csv_field(run.machine) << ','
        << csv_field(run.hostname) << ',' << csv_field(run.git_sha) << ',' << csv_field(store::join_tags(run.tags, ";")) << ','
        << csv_field(result.case_id) << ',' << csv_field(result.op) << ',' << csv_field(result.backend) << ','
        << csv_field(result.dtype) << ',' << csv_field(result.device) << ',' << csv_field(result.status) << ','
        << (result.verified ? "true" : "false") << ',' << result.samples << ',' << csv_number(result.median_s) << ','
        << csv_number(result.median_ci_low_s) << ',' << csv_number(result.median_ci_high_s) << "\n";
  }
  return out.str();
}

std::string render_history_json(const std::vector<std::pair<store::RunInfo, LoadedReport>>& runs) {
  using Json = nlohmann::ordered_json;
  Json array = Json::array();
  for (const auto& [run, report] : runs) {
    Json tags = Json::object();
    for (const auto& [name, value] : run.tags) tags[name] = value;
    array.push_back({{"id", run.id},
                     {"timestamp", run.timestamp},
                     {"ingested_at", run.ingested_at},
                     {"machine", run.machine},
                     {"tags", tags},
                     {"report", Json::parse(render_json(report.context, report.results))}});
  }
  const Json document = {{"schema", kHistorySchemaName}, {"schema_version", 1}, {"runs", array}};
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gpb
