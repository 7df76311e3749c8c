// The Markdown report: GitHub-flavoured, sized for a CI job summary. Same table as the
// console, with a one-line context and the failures listed below it.
#include <sstream>

#include "report/report.hpp"
#include "report/report_model.hpp"
#include "report/summary_render.hpp"

namespace gpb {
namespace {

using report_model::Align;

// Backslash-escapes what GitHub would read as markup: '|' would split a table cell,
// '<' start an HTML tag, '*' and '_' emphasis.
std::string escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (std::string_view("\\`*_[]<>|").find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return escaped;
}

void append_row(std::ostringstream& out, const std::vector<std::string>& cells) {
  out << '|';
  for (const auto& cell : cells) out << ' ' << cell << " |";
  out << '\n';
}

}  // namespace

std::string render_markdown(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  std::ostringstream out;
  const auto summary = report_model::summarize_context(context);
  for (std::size_t i = 0; i < summary.facts.size(); ++i)
    out << (i == 0 ? "**" + escape(summary.facts[i]) + "**" : " \u00b7 " + escape(summary.facts[i]));
  out << '\n';
  for (const auto& note : summary.notes) out << "\n> note: " << escape(note) << '\n';
  out << '\n';

  const auto table = report_model::results_table(results, options);
  std::vector<std::string> headers, rule;
  for (const auto& column : table.columns) {
    headers.push_back(escape(column.header));
    rule.push_back(column.align == Align::left ? ":---" : "---:");
  }
  append_row(out, headers);
  append_row(out, rule);
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (const auto& cell : row.cells) cells.push_back(escape(cell));
    if (!row.message.empty()) cells[table.key_columns] = escape(row.message);
    append_row(out, cells);
  }

  out << '\n' << report_model::summary_line(results) << '\n';
  const auto failures = report_model::failure_lines(results);
  if (!failures.empty()) {
    out << "\nFailures:\n\n";
    for (const auto& failure : failures) out << "- " << escape(failure) << '\n';
  }
  const SpeedupSummary speedups = summarize_speedups(results);
  if (speedups.has_cpu_gpu_pair()) out << '\n' << render_speedups_markdown(speedups);
  return out.str();
}

}  // namespace gpb
