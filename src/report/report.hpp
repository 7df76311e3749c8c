// Reporters: pure functions of (Context, Results). One per format, chosen by name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/text.hpp"
#include "model/result.hpp"

namespace gpb {

enum class ReportFormat { console, json, csv, markdown };

std::string to_string(ReportFormat format);
ReportFormat parse_report_format(std::string_view text);  // throws UsageError
// ".json" -> json, ".csv" -> csv, ".md"/".markdown" -> markdown, ".txt" -> console;
// anything else is a UsageError naming the path.
ReportFormat report_format_for_path(const std::string& path);

// A GPU slower than the fleet median by more than this fraction (with its spread above it)
// is an outlier in the fleet view (src/fleet.hpp).
inline constexpr double kDefaultOutlierThreshold = 0.05;

struct ReportOptions {
  // Adds a speed-up column against this backend for the same case (the same id but for
  // the backend), where that backend ran it.
  std::optional<std::string> relative_to;
  // The fleet view's outlier threshold, for reports that span several GPUs or ranks.
  double outlier_threshold = kDefaultOutlierThreshold;
};

std::string render_console(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
std::string render_json(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
std::string render_csv(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
std::string render_markdown(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
// A self-contained HTML page (inline SVG plots, nothing fetched): the context, the
// CPU-versus-GPU speed-up summary, plots per op/dtype and every result.
std::string render_html(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options = {});
std::string render_report(ReportFormat format, const Context& context, const std::vector<ResultRecord>& results,
                          const ReportOptions& options = {});

// A report read back from JSON (for compare and report). Throws UsageError with a
// one-line message on unreadable files, malformed JSON and schema version mismatches.
struct LoadedReport {
  Context context;
  std::vector<ResultRecord> results;
};
LoadedReport parse_json_report(const std::string& text, const std::string& origin);
LoadedReport read_json_report(const std::string& path);

// Writes content to path atomically: a temporary file beside it, then rename. A symbolic
// link is followed (its target is replaced, the link kept); an existing directory, device
// or fifo is refused. Throws UsageError naming the path when it cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

// Writes a set of files (one run's --out files) each as write_file_atomic does. Every
// temporary file is complete before the first rename, so a file that cannot be written
// replaces none; the renames happen under an advisory lock on the files' directories, so
// two runs writing the same set leave one run's set, never a mix.
struct OutputFile {
  std::string path;
  std::string content;
};
void write_files_atomic(const std::vector<OutputFile>& files);

// Throws the UsageError that writing to path would throw for what is there now: an existing
// directory, device or fifo (also behind symbolic links). For checking outputs before a run.
void check_report_destination(const std::string& path);

}  // namespace gpb
