// What the reporters share beyond report.hpp: case speed-ups, the
// context summary and the results table that the console and Markdown reports both draw.
// Internal to src/report/.
#pragma once

#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/text.hpp"
#include "report/report.hpp"

namespace gpb::report_model {

// A record has measurements when it took samples (a failed verification still did).
bool has_measurements(const ResultRecord& record);

// How many times faster `record` ran than `reference_backend` on the same case (its id but
// for the backend) in the same place (rank, host, and GPU where both ran on one): reference
// median / this median. nullopt when either did not measure it.
std::optional<double> speedup(const ResultRecord& record, const std::vector<ResultRecord>& results,
                              const std::string& reference_backend);

// Some record says where it ran: a GPU identity (GPU runs) or a rank (merged reports).
bool any_placed(const std::vector<ResultRecord>& results);

// Some case has several records: the report spans GPUs or ranks, and a case id alone no
// longer names a row.
bool spans_devices(const std::vector<ResultRecord>& results);

struct ContextSummary {
  std::vector<std::string> facts;  // tool and host, CPU, one per GPU
  // The context's notes, each on one line; notes that differ only in the backend or GPU they
  // name are one note naming them all ("backends cuda, cublas skipped: no CUDA device").
  std::vector<std::string> notes;
};
ContextSummary summarize_context(const Context& context);

// "8 cases: 5 ok, 1 skipped, 2 failed; 1 verification failure"
std::string summary_line(const std::vector<ResultRecord>& results);

// One "case id: reason" per failed case or failed verification ("case id on GPU 1: reason"
// when the report spans GPUs or ranks).
std::vector<std::string> failure_lines(const std::vector<ResultRecord>& results);

enum class Align { left, right };

struct Column {
  std::string header;
  Align align;
  // Wide and mostly empty (e2e phases): a terminal shows it on a line under its row.
  bool below_row = false;
};

struct Row {
  std::vector<std::string> cells;  // one per column; the measurement cells are empty when message is set
  std::string message;             // "skipped: <reason>" in place of the measurement columns
};

struct Table {
  std::vector<Column> columns;
  std::size_t key_columns = 0;  // the leading columns that name the case; a message spans the rest
  std::vector<Row> rows;
};

// Terminal columns taken by UTF-8 text without wide characters ("±" is one); ANSI colour
// sequences take none.
std::size_t display_width(const std::string& text);

// What a colour says on the terminal: a failure or regression, a doubt, a pass.
enum class Paint { failure, warning, success };
// The text in that colour (ANSI) when `colour`, else as it is.
std::string painted(const std::string& text, Paint paint, bool colour);

// A line for the terminal, without trailing blanks.
void append_console_line(std::ostream& out, std::string line);

// Text word-wrapped to `width` columns: the first line after `first`, the others indented
// by `indent` columns; beyond max_lines lines (all of them by default) the last one ends in "...".
void append_wrapped(std::ostream& out, const std::string& first, std::size_t indent, const std::string& text, std::size_t width,
                    std::size_t max_lines = std::numeric_limits<std::size_t>::max());

// An aligned table for the terminal, every line after `indent`: the header, a rule, then
// the rows. A row's message wraps within the measurement columns; a below_row column's
// cell goes on a line of its own under the row. Returns the table's width in columns.
std::size_t append_console_table(std::ostream& out, const Table& table, const std::string& indent = "");

// Backslash-escapes what GitHub would read as markup: '|' would split a table cell,
// '<' start an HTML tag, '*' and '_' emphasis.
std::string escape_markdown(const std::string& text);

// A GitHub table: header, alignment rule, then the rows, every cell escaped; a row's
// message takes the place of its first measurement cell.
void append_markdown_table(std::ostream& out, const Table& table);

// The console report's table layout: aligned columns under a header and a rule; a row's
// message wraps in place of its measurement cells.
std::string render_text_table(const Table& table);

// A CSV field, quoted as RFC 4180 asks where needed; a number in the shortest form that
// reads back exactly ("" when not finite).
std::string csv_field(const std::string& field);
std::string csv_number(double value);

// Why a measured record's figures may mislead, or "" when nothing says so: a spread (half the
// interquartile range) above half the median, as bimodal or scattered samples give; or
// sampling that stopped on --max-time or --max-samples in every pass with the median's CI
// still wider than the run's noise rule (`max_noise`, when the report records it).
std::string doubt(const ResultRecord& record, std::optional<double> max_noise);

// One "case id: why" per record with a doubt, for the lines under the results table.
std::vector<std::string> doubt_lines(const Context& context, const std::vector<ResultRecord>& results);

// One row per record, named by its case id (and where it ran, when the report spans GPUs or
// ranks); the optional columns (speed-up, e2e phases) only when some record needs them. A
// doubtful record's spread is marked "!"; a memory-bound rate far above the measured copy
// rate the %peak is against reads "in cache".
Table results_table(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options);

// Kernel against graph timing (--timing kernel,graph): one row per case measured both ways
// in the same place, with the two medians, their difference (the launch overhead each op
// pays in kernel timing) and their ratio. Empty without such pairs.
Table launch_overhead_table(const std::vector<ResultRecord>& results);
inline constexpr const char* kLaunchOverheadTitle = "Kernel vs graph timing (launch overhead per op)";
inline constexpr const char* kLaunchOverheadNote =
    "kernel: launches enqueued one by one; graph: the same launches replayed from a CUDA graph, without a host "
    "launch per op. kernel - graph is what each launch costs beyond the op's own time.";

}  // namespace gpb::report_model
