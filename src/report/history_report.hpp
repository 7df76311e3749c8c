// Renderings of the stored history: the list of runs, each case's trend (a console table,
// and an HTML page with one plot per case and machine), `history check`'s findings and the
// exports. Pure functions of what the store returned.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/history.hpp"
#include "model/record_format.hpp"
#include "report/report.hpp"

namespace gpb {

std::string format_change(double fraction);     // a change in level: "+20.2%"
std::string format_threshold(double fraction);  // "5%", "7.5%"

std::string render_runs_console(const std::vector<store::RunInfo>& runs);

// Per case and machine: every run's median and 95 % CI with its segment, the change points
// (their size and p-value), then the segments.
std::string render_histories_console(const std::vector<history::CaseHistory>& histories);

// One self-contained page (inline SVG, no script): per case and machine a plot of the median
// over runs with its 95 % CI band, each segment's median as a level and each change point as
// a marked line. Plots are <svg class="trend" data-case data-machine data-runs=N
// data-change-points=K>, runs <circle class="run" data-run-id data-label data-median>,
// change points <g class="change-point" data-index data-label data-change>.
std::string render_histories_html(const std::vector<history::CaseHistory>& histories, const std::string& source);

// `history check`: one line (console) or table row (Markdown) per case whose newest segment
// is slower, naming the run that starts it, then the verdict. Console or Markdown.
std::string render_history_check(const std::vector<history::CaseHistory>& histories, ReportFormat format,
                                 bool colour = false);

// One row per stored result with its run's columns (tags as "key=value;key=value").
std::string render_history_csv(const std::vector<store::RunInfo>& runs, const std::vector<store::StoredResult>& results);

// {"schema": "gpubench-history", "runs": [{"id", "timestamp", "ingested_at", "machine",
// "tags", "report": <the stored report, as gpubench run wrote it>}]}.
std::string render_history_json(const std::vector<std::pair<store::RunInfo, LoadedReport>>& runs);

}  // namespace gpb
