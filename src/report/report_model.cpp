#include "report/report_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <set>
#include <string_view>
#include <variant>

#include "analysis/device_match.hpp"
#include "base/terminal.hpp"
#include "model/op_table.hpp"
#include "model/statistics.hpp"

namespace gpb::report_model {
namespace {


bool same_place(const ResultRecord& a, const ResultRecord& b) {
  return a.rank == b.rank && a.host == b.host && (!a.gpu.recorded() || !b.gpu.recorded() || a.gpu.ordinal == b.gpu.ordinal);
}

// Table cells hold one line each.
std::string single_line(std::string text) {
  std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  return text;
}

// Two significant digits with a short exponent: "3.1e-3".
std::string format_error(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", value);
  std::string formatted = text;
  const auto e = formatted.find('e');
  if (e == std::string::npos) return formatted;  // nan, inf
  std::string exponent = formatted.substr(e + 1);
  const bool negative = exponent[0] == '-';
  exponent.erase(0, exponent.find_first_not_of("+-0"));
  return formatted.substr(0, e + 1) + (negative ? "-" : "") + (exponent.empty() ? "0" : exponent);
}

// A failure's error and tolerance are in the failure list under the table; keeping them
// out of the cell keeps the widest table (every optional column) within 120 columns.
std::string verification_cell(const Verification& verification, bool colour) {
  if (!verification.checked) return "-";
  return verification.passed ? "ok" : painted("FAIL", Paint::failure, colour);
}

std::string rate_cell(bool meaningful, double giga_per_second) {
  return meaningful && giga_per_second > 0 ? format_significant(giga_per_second, 3) : "-";
}

// Above this spread the samples are bimodal or scattered: their median stands for none of them.
constexpr double kWideSpread = 0.5;
// A memory-bound rate above twice the measured copy rate (a read-only op such as sum may pass
// the copy rate from DRAM, by less), or above the GPU's theoretical DRAM bandwidth, comes from
// data that sat in cache; a ratio against DRAM says nothing then.
constexpr double kInCacheFraction = 2.0;

// Half the interquartile range relative to the median: robust to the odd slow sample.
double relative_spread(const Statistics& stats) { return (stats.q3 - stats.q1) / 2 / stats.median; }

std::string spread_text(const Statistics& stats) { return "\u00b1" + format_significant(relative_spread(stats) * 100, 2) + "%"; }

std::string spread_cell(const Statistics& stats, bool doubtful) {
  if (stats.median <= 0) return "-";
  return spread_text(stats) + (doubtful ? "!" : "");
}

// The fraction of the record's ceiling as a percentage: whole percents from 10 % up,
// two significant digits below ("4.2%"); "in cache" far above a memory ceiling; "-" where no
// ceiling is known.
std::string percent_text(double fraction) {
  const double percent = fraction * 100;
  if (percent >= 10) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f%%", percent);
    return text;
  }
  return format_significant(percent, 2) + "%";
}

std::string roofline_cell(const Roofline& roofline) {
  if (roofline.l2_resident) return "L2-resident";
  if (!(roofline.fraction > 0)) return "-";
  if (roofline.bound == Bound::memory && (roofline.fraction > kInCacheFraction || roofline.theoretical_fraction > 1))
    return "in cache";
  std::string cell = percent_text(roofline.fraction);
  // Beside the fraction of the boost-clock peak, that of the peak at the clock held.
  if (roofline.fraction_at_held_clock && roofline.held_sm_clock_mhz)
    cell += " (" + percent_text(*roofline.fraction_at_held_clock) + " at " +
            format_significant(*roofline.held_sm_clock_mhz, 4) + " MHz)";
  return cell;
}

std::string samples_cell(const ResultRecord& record) {
  std::string cell = std::to_string(record.stats.count);
  if (record.batch > 1) cell += " x" + std::to_string(record.batch);
  return cell;
}

// "h2d 5.61 ms, op 61.3 us, d2h 2.10 us"; empty outside e2e mode.
std::string phases_cell(const ResultRecord& record) {
  std::string cell;
  for (const auto& phase : record.phases)
    cell += (cell.empty() ? "" : ", ") + to_string(phase.kind) + " " + format_seconds(phase.stats.median);
  return cell;
}

std::string speedup_cell(const ResultRecord& record, const std::vector<ResultRecord>& results, const std::string& reference) {
  const auto ratio = speedup(record, results, reference);
  if (!ratio) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", *ratio);
  return text;
}

// The run's noise rule, as the context records it.
std::optional<double> noise_rule(const Context& context) {
  const auto found = context.settings.find("max_noise");
  if (found == context.settings.end() || !std::holds_alternative<double>(found->second)) return std::nullopt;
  return std::get<double>(found->second);
}

// "case id: text", or "case id on GPU 1: text" when the report spans GPUs or ranks.
std::string case_line(const ResultRecord& record, bool placed, const std::string& text) {
  return record.spec.id() + (placed ? " on " + placement_label(record) : "") + ": " + text;
}

std::string plural(std::size_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

bool has_measurements(const ResultRecord& record) { return record.stats.count > 0; }

std::optional<double> speedup(const ResultRecord& record, const std::vector<ResultRecord>& results,
                              const std::string& reference_backend) {
  if (!has_measurements(record) || record.stats.median <= 0) return std::nullopt;
  for (const auto& reference : results) {
    if (reference.spec.backend == reference_backend && same_case_apart_from_backend(reference.spec, record.spec) &&
        same_place(reference, record) && has_measurements(reference))
      return reference.stats.median / record.stats.median;
  }
  return std::nullopt;
}

bool any_placed(const std::vector<ResultRecord>& results) {
  return std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.gpu.recorded() || r.rank >= 0; });
}

bool spans_devices(const std::vector<ResultRecord>& results) {
  std::set<std::string> ids;
  for (const auto& record : results)
    if (!ids.insert(record.spec.id()).second) return true;
  return false;
}

namespace {

// Notes that differ only in the backend or GPU they name, one per backend or GPU ("backend cuda
// skipped: no CUDA device", "backend cublas skipped: no CUDA device"; "GPU 0 telemetry
// unavailable (...)", "GPU 1 ..."), become one that names them all, where the first stood:
// "backends cuda, cublas skipped: no CUDA device", "GPUs 0, 1 telemetry unavailable (...)".
// Exact repeats are dropped.
std::vector<std::string> merged_notes(const std::vector<std::string>& notes) {
  struct Family {
    std::string singular, plural, rest;  // "backend", "backends", " skipped: no CUDA device"
    std::vector<std::string> names;
  };
  std::vector<Family> families;  // in the order of their first note
  constexpr std::size_t kPlain = static_cast<std::size_t>(-1);
  std::vector<std::pair<std::string, std::size_t>> order;  // a plain note (kPlain), or a family's index
  std::set<std::string> seen;
  for (const auto& note : notes) {
    if (!seen.insert(note).second) continue;
    std::string singular, plural, name, rest;
    for (const auto& [prefix, many] : {std::pair<std::string, std::string>{"backend ", "backends"}, {"GPU ", "GPUs"}}) {
      if (note.rfind(prefix, 0) != 0) continue;
      const auto end = note.find(' ', prefix.size());
      if (end == std::string::npos || end == prefix.size()) break;
      singular = prefix.substr(0, prefix.size() - 1);
      plural = many;
      name = note.substr(prefix.size(), end - prefix.size());
      rest = note.substr(end);
      break;
    }
    // A GPU is named by its ordinal ("GPU backends unavailable: ..." and "GPU copy bandwidth
    // ..." name none), a backend by a word.
    const bool named = singular == "backend" ||
                       (singular == "GPU" && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }));
    if (singular.empty() || !named) {
      order.emplace_back(note, kPlain);
      continue;
    }
    auto family = std::find_if(families.begin(), families.end(),
                               [&](const Family& f) { return f.singular == singular && f.rest == rest; });
    if (family == families.end()) {
      families.push_back({singular, plural, rest, {}});
      order.emplace_back("", families.size() - 1);
      family = std::prev(families.end());
    }
    family->names.push_back(name);
  }
  std::vector<std::string> merged;
  for (const auto& [note, index] : order) {
    if (index == kPlain) {
      merged.push_back(note);
      continue;
    }
    const Family& family = families[index];
    std::string names;
    for (const auto& name : family.names) names += (names.empty() ? "" : ", ") + name;
    merged.push_back((family.names.size() == 1 ? family.singular : family.plural) + " " + names + family.rest);
  }
  return merged;
}

}  // namespace

ContextSummary summarize_context(const Context& context) {
  ContextSummary summary;
  std::string title = "gpubench " + context.tool_version;
  if (!context.git_sha.empty()) title += " (git " + context.git_sha + ")";
  if (!context.hostname.empty()) title += " on " + context.hostname;
  if (!context.timestamp.empty()) title += ", " + context.timestamp;
  summary.facts.push_back(title);

  std::string cpu = "CPU: " + (context.cpu_model.empty() ? std::string("unknown") : context.cpu_model);
  if (context.cpu_cores > 0) cpu += ", " + plural(static_cast<std::size_t>(context.cpu_cores), "core");
  if (context.threads > 0) cpu += ", " + plural(static_cast<std::size_t>(context.threads), "thread");
  if (context.cpu_copy_gbps > 0) cpu += ", " + format_rate(context.cpu_copy_gbps * 1e9, "B/s") + " measured copy";
  summary.facts.push_back(cpu);

  for (const auto& gpu : context.gpus) {
    std::vector<std::string> traits;
    if (!gpu.compute_capability.empty()) traits.push_back("compute " + gpu.compute_capability);
    if (gpu.sm_count > 0) traits.push_back(std::to_string(gpu.sm_count) + " SMs");
    if (gpu.theoretical_bandwidth_gbps > 0) traits.push_back(format_rate(gpu.theoretical_bandwidth_gbps * 1e9, "B/s") + " peak");
    if (gpu.copy_gbps > 0) traits.push_back(format_rate(gpu.copy_gbps * 1e9, "B/s") + " measured copy");
    std::string line = "GPU " + std::to_string(gpu.ordinal) + ": " + gpu.name;
    for (std::size_t i = 0; i < traits.size(); ++i) line += (i == 0 ? " (" : ", ") + traits[i];
    if (!traits.empty()) line += ")";
    summary.facts.push_back(line);
  }
  std::vector<std::string> notes;
  for (const auto& note : context.notes) notes.push_back(single_line(note));
  summary.notes = merged_notes(notes);
  return summary;
}

std::string summary_line(const std::vector<ResultRecord>& results) {
  std::size_t ok = 0, skipped = 0, failed = 0, verification_failures = 0;
  for (const auto& record : results) {
    ok += record.status == Status::ok;
    skipped += record.status == Status::skipped;
    failed += record.status == Status::failed;
    verification_failures += record.verification.checked && !record.verification.passed;
  }
  return plural(results.size(), "case") + ": " + std::to_string(ok) + " ok, " + std::to_string(skipped) + " skipped, " +
         std::to_string(failed) + " failed; " + plural(verification_failures, "verification failure");
}

std::vector<std::string> failure_lines(const std::vector<ResultRecord>& results) {
  std::vector<std::string> lines;
  const bool placed = spans_devices(results);
  for (const auto& record : results) {
    const Verification& verification = record.verification;
    const bool verification_failed = verification.checked && !verification.passed;
    if (record.status != Status::failed && !verification_failed) continue;
    std::string reason = record.reason;
    if (reason.empty())
      reason = verification_failed ? "verification failed: max error " + format_error(verification.max_error) + " > tolerance " +
                                         format_error(verification.tolerance)
                                   : "failed";
    lines.push_back(case_line(record, placed, single_line(reason)));
  }
  return lines;
}

std::string doubt(const ResultRecord& record, std::optional<double> max_noise) {
  const Statistics& stats = record.stats;
  if (!has_measurements(record) || stats.median <= 0) return "";
  if (relative_spread(stats) > kWideSpread)
    return "spread " + spread_text(stats) + ": the samples are bimodal or scattered, so the median may stand for none of them";
  const double halfwidth = median_relative_halfwidth(stats);
  if (max_noise && !record.stop_reasons.contains(StopReason::converged) && !(record.stop_reasons == StopReasons()) &&
      halfwidth > *max_noise)
    return "sampling stopped at " + to_string(record.stop_reasons) + " before the noise rule was met: the median's CI is " +
           (std::isfinite(halfwidth) ? "\u00b1" + format_significant(halfwidth * 100, 2) + "%" : "unbounded (under 6 samples)") +
           ", the rule " + format_percent(*max_noise, "%g%%") + " (max_noise)";
  return "";
}

std::vector<std::string> doubt_lines(const Context& context, const std::vector<ResultRecord>& results) {
  std::vector<std::string> lines;
  const auto max_noise = noise_rule(context);
  const bool placed = spans_devices(results);
  for (const auto& record : results) {
    const std::string why = doubt(record, max_noise);
    if (!why.empty()) lines.push_back(case_line(record, placed, why));
  }
  return lines;
}

Table launch_overhead_table(const std::vector<ResultRecord>& results) {
  Table table;
  table.columns = {{"case", Align::left}};
  const bool show_placement = spans_devices(results);
  if (show_placement) table.columns.push_back({"where", Align::left});
  table.key_columns = table.columns.size();
  table.columns.insert(table.columns.end(), {{"kernel", Align::right},
                                             {"graph", Align::right},
                                             {"kernel - graph", Align::right},
                                             {"kernel / graph", Align::right}});
  for (const auto& graph : results) {
    if (graph.spec.timing != TimingMode::graph || !has_measurements(graph) || !(graph.stats.median > 0)) continue;
    CaseSpec kernel_spec = graph.spec;
    kernel_spec.timing = TimingMode::kernel;
    const std::string kernel_id = kernel_spec.id();
    const auto kernel = std::find_if(results.begin(), results.end(), [&](const ResultRecord& r) {
      return r.spec.id() == kernel_id && same_place(r, graph) && has_measurements(r) && r.stats.median > 0;
    });
    if (kernel == results.end()) continue;
    Row row;
    row.cells = {kernel_id};
    if (show_placement) row.cells.push_back(placement_label(graph));
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2fx", kernel->stats.median / graph.stats.median);
    const double difference = kernel->stats.median - graph.stats.median;
    row.cells.insert(row.cells.end(), {format_seconds(kernel->stats.median), format_seconds(graph.stats.median),
                                       (difference < 0 ? "-" : "") + format_seconds(std::abs(difference)), ratio});
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table results_table(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  const auto max_noise = noise_rule(context);
  const bool show_phases = std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return !r.phases.empty(); });

  Table table;
  // The case id names op, backend, dtype, shape and any non-default timing, TF32 or L2
  // mode, exactly as compare and the NVTX ranges do.
  table.columns = {{"case", Align::left}};
  const bool show_placement = spans_devices(results);
  if (show_placement) table.columns.push_back({"where", Align::left});
  table.key_columns = table.columns.size();
  table.columns.insert(table.columns.end(), {{"median", Align::right},
                                             {"spread", Align::right},
                                             {"samples", Align::right},
                                             {"GB/s", Align::right},
                                             {"GFLOP/s", Align::right},
                                             {"%peak", Align::right}});
  if (options.relative_to) table.columns.push_back({"vs " + *options.relative_to, Align::right});
  table.columns.push_back({"verify", Align::left});
  if (show_phases) table.columns.push_back({"e2e phases", Align::left, true});

  for (const auto& record : results) {
    const OpDef& op = op_def(record.spec.op);
    Row row;
    row.cells = {record.spec.id()};
    if (show_placement) row.cells.push_back(placement_label(record));
    if (has_measurements(record)) {
      row.cells.insert(row.cells.end(), {format_seconds(record.stats.median),
                                         spread_cell(record.stats, !doubt(record, max_noise).empty()), samples_cell(record),
                                         rate_cell(op.shows_bandwidth || record.roofline.bound == Bound::memory, record.gbps), rate_cell(op.shows_flop_rate, record.gflops),
                                         roofline_cell(record.roofline)});
      if (options.relative_to) row.cells.push_back(speedup_cell(record, results, *options.relative_to));
      row.cells.push_back(verification_cell(record.verification, options.colour));
      if (show_phases) row.cells.push_back(phases_cell(record));
    } else {
      row.cells.resize(table.columns.size());
      row.message = single_line(to_string(record.status) + (record.reason.empty() ? "" : ": " + record.reason));
      if (record.status == Status::failed) row.message = painted(row.message, Paint::failure, options.colour);
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {  // a colour: ESC [ ... m
      const auto end = text.find('m', i);
      if (end != std::string::npos) {
        i = end;
        continue;
      }
    }
    width += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
  }
  return width;
}

std::string painted(const std::string& text, Paint paint, bool colour) {
  if (!colour || text.empty()) return text;
  const std::string_view code = paint == Paint::failure   ? terminal_colour::failure
                                : paint == Paint::warning ? terminal_colour::warning
                                                          : terminal_colour::success;
  return std::string(code) + text + std::string(terminal_colour::reset);
}

std::string escape_markdown(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (std::string_view("\\`*_[]<>|").find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return escaped;
}

void append_markdown_table(std::ostream& out, const Table& table) {
  const auto append_row = [&out](const std::vector<std::string>& cells) {
    out << '|';
    for (const auto& cell : cells) out << ' ' << cell << " |";
    out << '\n';
  };
  std::vector<std::string> headers, rule;
  for (const auto& column : table.columns) {
    headers.push_back(escape_markdown(column.header));
    rule.push_back(column.align == Align::left ? ":---" : "---:");
  }
  append_row(headers);
  append_row(rule);
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (const auto& cell : row.cells) cells.push_back(escape_markdown(cell));
    if (!row.message.empty()) cells[table.key_columns] = escape_markdown(row.message);
    append_row(cells);
  }
}

}  // namespace gpb::report_model
