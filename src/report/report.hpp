// Reporters: pure functions of (Context, Results). One per format, chosen by name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/fleet.hpp"
#include "base/text.hpp"
#include "model/result.hpp"

namespace gpb {

enum class ReportFormat { console, json, csv, markdown };

std::string to_string(ReportFormat format);
inline const std::vector<ReportFormat> kAllReportFormats = {ReportFormat::console, ReportFormat::json, ReportFormat::csv,
                                                          ReportFormat::markdown};
// One of the formats a command accepts; UsageError listing those (and the nearest) otherwise.
ReportFormat parse_report_format(std::string_view text, const std::vector<ReportFormat>& accepted = kAllReportFormats);
// ".json" -> json, ".csv" -> csv, ".md"/".markdown" -> markdown, ".txt" -> console;
// anything else is a UsageError naming the path.
ReportFormat report_format_for_path(const std::string& path);
// The format a path's extension names, or none (no extension, or another one).
std::optional<ReportFormat> report_format_named_by(const std::string& path);
// UsageError unless `path` ends in .html or .htm (any case), naming `option`.
void require_html_path(const std::string& path, const std::string& option);

struct ReportOptions {
  // Adds a speed-up column against this backend for the same case (the same id but for
  // the backend), where that backend ran it.
  std::optional<std::string> relative_to;
  // The fleet view's outlier threshold, for reports that span several GPUs or ranks.
  double outlier_threshold = kDefaultOutlierThreshold;
  // The console report colours failures (ANSI), for a terminal.
  bool colour = false;
};

std::string render_console(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
std::string render_json(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
std::string render_csv(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
// The JSON report's JSON Schema (docs/report-schema.json): the record format's, generated
// from its field list, with the sections render_json adds.
std::string render_report_schema();
std::string render_markdown(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
// A self-contained HTML page (inline SVG plots, nothing fetched): the context, the
// CPU-versus-GPU speed-up summary, plots per op/dtype and every result.
std::string render_html(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
// The context alone, for a terminal (`gpubench info`): the tool and its build, the host, CPU,
// memory, libraries, every GPU and the notes, wrapped within 80 columns.
std::string render_context_console(const Context& context);
std::string render_report(ReportFormat format, const Context& context, const std::vector<ResultRecord>& results,
                          const ReportOptions& options = {});

}  // namespace gpb
