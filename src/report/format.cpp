// Format names, value formatting shared by the human-readable reports, and the
// dispatch from a format to its reporter.
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

double round_significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  const double scale = std::pow(10.0, digits - 1 - magnitude);
  return std::round(value * scale) / scale;
}

// Picks the first unit (smallest first) in which the value, rounded to three significant
// digits, stays below 1000, so 999.96 ns reads "1.00 us" rather than "1000 ns".
template <std::size_t N>
std::string format_in_units(double value, const char* const (&prefixes)[N], double step, const std::string& unit) {
  if (!std::isfinite(value)) return "-";
  double scaled = value;
  std::size_t index = 0;
  while (index + 1 < N && std::fabs(round_significant(scaled, 3)) >= 1000) {
    scaled /= step;
    ++index;
  }
  return report_model::format_significant(scaled, 3) + " " + prefixes[index] + unit;
}

}  // namespace

namespace report_model {

std::string format_significant(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  const double rounded = round_significant(value, digits);
  int decimals = 0;
  if (rounded != 0) {
    const double magnitude = std::floor(std::log10(std::fabs(value)));
    decimals = digits - 1 - static_cast<int>(magnitude);
    // Rounding can carry into the next decade (9.996 -> 10.0): one decimal fewer then.
    if (std::fabs(rounded) >= std::pow(10.0, magnitude + 1)) --decimals;
    decimals = std::max(decimals, 0);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, rounded);
  return text;
}

}  // namespace report_model

std::string to_string(ReportFormat format) {
  for (const auto& entry : kFormatNames)
    if (entry.format == format) return entry.name;
  return "?";
}

ReportFormat parse_report_format(std::string_view text) {
  std::string accepted;
  for (const auto& entry : kFormatNames) {
    if (text == entry.name) return entry.format;
    accepted += accepted.empty() ? "" : ", ";
    accepted += entry.name;
  }
  throw UsageError("unknown report format '" + std::string(text) + "' (expected one of: " + accepted + ")");
}

ReportFormat report_format_for_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
    std::string extension = path.substr(dot);
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& entry : kFormatExtensions)
      if (extension == entry.extension) return entry.format;
  }
  throw UsageError("cannot tell the report format of '" + path + "' from its extension (expected .json, .csv, .md, .markdown or .txt)");
}

std::string format_seconds(double seconds) {
  static const char* const kUnits[] = {"ns", "us", "ms", "s"};
  if (seconds == 0) return "0 s";
  return format_in_units(seconds * 1e9, kUnits, 1000, "");
}

std::string format_rate(double value, const char* unit) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T"};
  return format_in_units(value, kPrefixes, 1000, unit);
}

std::string format_percent(double fraction, const char* printf_format) {
  char text[32];
  std::snprintf(text, sizeof text, printf_format, fraction * 100);
  return text;
}

std::string format_short(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", value);
  return text;
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
