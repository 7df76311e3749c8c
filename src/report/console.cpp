// The console report: a short context header, an aligned results table, a footer.
#include <algorithm>
#include <limits>
#include <sstream>

#include "report/report.hpp"
#include "report/report_model.hpp"
#include "report/telemetry_render.hpp"

namespace gpb {
namespace {

using report_model::Align;
using report_model::display_width;
using report_model::Table;

constexpr std::size_t kColumnGap = 2;
// A skipped or failed row's reason wraps within the measurement columns, but at no
// narrower than this, and is cut after a few lines; the full text is in the JSON report.
constexpr std::size_t kMinMessageWidth = 40;
constexpr std::size_t kMaxMessageLines = 3;
// Failures are listed in full below the table, wrapped to its width (or to a small terminal's).
constexpr std::size_t kMinFailureWidth = 80;

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte length of the first `columns` characters of text.
std::size_t prefix_bytes(const std::string& text, std::size_t columns) {
  std::size_t bytes = 0;
  for (std::size_t seen = 0; bytes < text.size(); ++bytes) {
    if (!is_utf8_continuation(text[bytes]) && seen++ == columns) break;
  }
  return bytes;
}

// Word-wraps text to `width` columns; beyond max_lines lines the last one ends in "...".
std::vector<std::string> wrap(const std::string& text, std::size_t width, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    while (display_width(word) > width) {  // longer than a line (a path, say): cut it
      const std::size_t cut = prefix_bytes(word, width);
      lines.push_back(word.substr(0, cut));
      word.erase(0, cut);
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  if (lines.size() > max_lines) {
    lines.resize(max_lines);
    std::string& last = lines.back();
    last.resize(prefix_bytes(last, width - 3));
    last += "...";
  }
  return lines;
}

std::string pad(const std::string& text, std::size_t width, Align align) {
  const std::string fill(width - std::min(width, display_width(text)), ' ');
  return align == Align::left ? text + fill : fill + text;
}

void append_line(std::ostringstream& out, std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}

// Lines after the first are indented by `indent` columns.
void append_wrapped(std::ostringstream& out, const std::string& first, std::size_t indent, const std::string& text,
                    std::size_t width, std::size_t max_lines) {
  const auto lines = wrap(text, width, max_lines);
  for (std::size_t i = 0; i < lines.size(); ++i) append_line(out, (i == 0 ? first : std::string(indent, ' ')) + lines[i]);
}

// Returns the table's width in columns.
std::size_t append_table(std::ostringstream& out, const Table& table) {
  std::vector<std::size_t> in_line;  // the columns drawn as columns
  for (std::size_t i = 0; i < table.columns.size(); ++i)
    if (!table.columns[i].below_row) in_line.push_back(i);
  std::vector<std::size_t> widths(table.columns.size(), 0);
  for (std::size_t i : in_line) widths[i] = display_width(table.columns[i].header);
  for (const auto& row : table.rows)
    for (std::size_t i : in_line)
      if (row.message.empty() || i < table.key_columns) widths[i] = std::max(widths[i], display_width(row.cells[i]));

  const auto span = [&](bool key) {
    std::size_t total = 0;
    for (std::size_t i : in_line)
      if ((i < table.key_columns) == key) total += widths[i] + kColumnGap;
    return total - kColumnGap;
  };
  const std::size_t measurement_indent = span(true) + kColumnGap;
  const std::size_t message_width = std::max(kMinMessageWidth, span(false));
  const std::string gap(kColumnGap, ' ');

  std::string header, rule;
  for (std::size_t i : in_line) {
    header += (i ? gap : "") + pad(table.columns[i].header, widths[i], table.columns[i].align);
    rule += (i ? gap : "") + std::string(widths[i], '-');
  }
  append_line(out, header);
  append_line(out, rule);

  for (const auto& row : table.rows) {
    std::string line;
    for (std::size_t i : in_line) {
      if (!row.message.empty() && i >= table.key_columns) break;
      line += (i ? gap : "") + pad(row.cells[i], widths[i], table.columns[i].align);
    }
    if (!row.message.empty()) {
      append_wrapped(out, line + gap, measurement_indent, row.message, message_width, kMaxMessageLines);
      continue;
    }
    append_line(out, line);
    for (std::size_t i = 0; i < table.columns.size(); ++i)
      if (table.columns[i].below_row && !row.cells[i].empty())
        append_line(out, std::string(measurement_indent, ' ') + table.columns[i].header + ": " + row.cells[i]);
  }
  return display_width(rule);
}

}  // namespace

std::string render_console(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  std::ostringstream out;
  const auto summary = report_model::summarize_context(context);
  for (const auto& fact : summary.facts) append_line(out, fact);
  for (const auto& note : summary.notes) append_line(out, "note: " + note);
  out << '\n';
  const std::size_t table_width = append_table(out, report_model::results_table(results, options));
  out << '\n';
  append_line(out, report_model::summary_line(results));
  const std::size_t failure_width = std::max(table_width, kMinFailureWidth) - 4;
  for (const auto& failure : report_model::failure_lines(results))
    append_wrapped(out, "  ", 4, "failed: " + failure, failure_width, std::numeric_limits<std::size_t>::max());
  const Table telemetry = report_model::telemetry_table(results);
  if (!telemetry.rows.empty()) {
    out << "\nGPU telemetry while measuring:\n";
    append_table(out, telemetry);
  }
  for (const auto& footnote : report_model::telemetry_footnotes(results))
    append_wrapped(out, "note: ", 6, footnote, failure_width, std::numeric_limits<std::size_t>::max());
  return out.str();
}

}  // namespace gpb
