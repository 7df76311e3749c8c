// The terminal's tables and wrapped text, shared by the results report, the speed-up
// summary and compare.
#include <algorithm>
#include <sstream>

#include "report/report_model.hpp"

namespace gpb::report_model {
namespace {

constexpr std::size_t kColumnGap = 2;
// A skipped or failed row's reason wraps within the measurement columns, but at no
// narrower than this, and is cut after a few lines; the full text is in the JSON report.
constexpr std::size_t kMinMessageWidth = 40;
constexpr std::size_t kMaxMessageLines = 3;

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

}  // namespace

void append_console_line(std::ostream& out, std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}

void append_wrapped(std::ostream& out, const std::string& first, std::size_t indent, const std::string& text, std::size_t width,
                    std::size_t max_lines) {
  const auto lines = wrap(text, width, max_lines);
  for (std::size_t i = 0; i < lines.size(); ++i)
    append_console_line(out, (i == 0 ? first : std::string(indent, ' ')) + lines[i]);
}

std::size_t append_console_table(std::ostream& out, const Table& table, const std::string& indent) {
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
  const std::size_t measurement_indent = indent.size() + span(true) + kColumnGap;
  const std::size_t message_width = std::max(kMinMessageWidth, span(false));
  const std::string gap(kColumnGap, ' ');

  std::string header, rule;
  for (std::size_t i : in_line) {
    header += (i ? gap : "") + pad(table.columns[i].header, widths[i], table.columns[i].align);
    rule += (i ? gap : "") + std::string(widths[i], '-');
  }
  append_console_line(out, indent + header);
  append_console_line(out, indent + rule);

  for (const auto& row : table.rows) {
    std::string line = indent;
    for (std::size_t i : in_line) {
      if (!row.message.empty() && i >= table.key_columns) break;
      line += (i ? gap : "") + pad(row.cells[i], widths[i], table.columns[i].align);
    }
    if (!row.message.empty()) {
      append_wrapped(out, line + gap, measurement_indent, row.message, message_width, kMaxMessageLines);
      continue;
    }
    append_console_line(out, line);
    for (std::size_t i = 0; i < table.columns.size(); ++i)
      if (table.columns[i].below_row && !row.cells[i].empty())
        append_console_line(out, std::string(measurement_indent, ' ') + table.columns[i].header + ": " + row.cells[i]);
  }
  return display_width(rule);
}

}  // namespace gpb::report_model
