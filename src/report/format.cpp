// Format names and the dispatch from a format to its reporter.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "report/report.hpp"
#include "report/report_model.hpp"

namespace gpb {
namespace {

struct FormatName {
  ReportFormat format;
  const char* name;
};
const FormatName kFormatNames[] = {
    {ReportFormat::console, "console"}, {ReportFormat::json, "json"}, {ReportFormat::csv, "csv"}, {ReportFormat::markdown, "markdown"}};

struct FormatExtension {
  const char* extension;
  ReportFormat format;
};
const FormatExtension kFormatExtensions[] = {{".json", ReportFormat::json},
                                             {".csv", ReportFormat::csv},
                                             {".md", ReportFormat::markdown},
                                             {".markdown", ReportFormat::markdown},
                                             {".txt", ReportFormat::console}};

}  // namespace

std::string to_string(ReportFormat format) {
  for (const auto& entry : kFormatNames)
    if (entry.format == format) return entry.name;
  return "?";
}

ReportFormat parse_report_format(std::string_view text, const std::vector<ReportFormat>& accepted) {
  std::vector<std::string> names;
  for (const auto& entry : kFormatNames) {
    if (std::find(accepted.begin(), accepted.end(), entry.format) == accepted.end()) continue;
    if (text == entry.name) return entry.format;
    names.push_back(entry.name);
  }
  std::string message = unknown_word_message("report format", std::string(text), names);
  // A page is not a stream: it is written to a file of its own.
  if (text == "html" || text == "htm")
    message += "; an HTML page is a file: gpubench report REPORT.json --html PAGE.html";
  else if (text == "md" &&
           std::find(accepted.begin(), accepted.end(), ReportFormat::markdown) != accepted.end())
    message += "; Markdown is 'markdown'";
  throw UsageError(message);
}

namespace {

// ".json" for "r.JSON", "" for "r" or "dir.d/r".
std::string lowered_extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string extension = path.substr(dot);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

bool html_extension(const std::string& path) {
  const std::string extension = lowered_extension(path);
  return extension == ".html" || extension == ".htm";
}

}  // namespace

void require_html_path(const std::string& path, const std::string& option) {
  // A page written under another format's name (--html r.json) would be taken for that format.
  if (!html_extension(path))
    throw UsageError(option + " '" + path + "': an HTML page is written to a .html (or .htm) file");
}

std::optional<ReportFormat> report_format_named_by(const std::string& path) {
  const std::string extension = lowered_extension(path);
  for (const auto& entry : kFormatExtensions)
    if (extension == entry.extension) return entry.format;
  return std::nullopt;
}

ReportFormat report_format_for_path(const std::string& path) {
  if (const auto format = report_format_named_by(path)) return *format;
  const bool html = html_extension(path);
  throw UsageError("cannot tell the report format of '" + path +
                   "' from its extension (expected .json, .csv, .md, .markdown or .txt)" +
                   (html ? std::string("; an HTML page comes from gpubench report REPORT.json --html PAGE.html") : ""));
}

std::string render_report(ReportFormat format, const Context& context, const std::vector<ResultRecord>& results,
                          const ReportOptions& options) {
  switch (format) {
    case ReportFormat::console:
      return render_console(context, results, options);
    case ReportFormat::json:
      return render_json(context, results, options);
    case ReportFormat::csv:
      return render_csv(context, results, options);
    case ReportFormat::markdown:
      return render_markdown(context, results, options);
  }
  throw UsageError("unknown report format");
}

}  // namespace gpb
