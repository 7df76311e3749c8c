// Renderings of compare's verdicts (analysis/compare.hpp): the console table, Markdown for job
// summaries and JSON. Like the reporters, they only read the records.
#pragma once

#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "report/report.hpp"

namespace gpb {

// The formats a comparison renders in: what compare's and ab's --format take.
inline const std::vector<ReportFormat> kComparisonFormats = {ReportFormat::console, ReportFormat::markdown,
                                                             ReportFormat::json};

// Console table (sorted, with a summary line), Markdown (for job summaries) or JSON.
// CSV is a UsageError. Warnings appear in Markdown and JSON; the console leaves them to stderr,
// and colours the verdicts and the outcome when `colour`.
std::string render_comparison(const Comparison& comparison, ReportFormat format, bool colour = false);

}  // namespace gpb
