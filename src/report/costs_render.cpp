#include "report/costs_render.hpp"

#include <algorithm>
#include <cmath>

#include "base/text.hpp"

namespace gpb::report_model {
namespace {

std::string seconds_cell(double seconds) { return std::isfinite(seconds) && seconds >= 0 ? format_seconds(seconds) : "-"; }

// "12.3x": how many medians the first call took; "-" without a median.
std::string ratio_cell(double first_s, double median_s) {
  if (!(median_s > 0) || !std::isfinite(first_s)) return "-";
  return format_significant(first_s / median_s, 3) + "x";
}

}  // namespace

std::vector<std::string> one_time_lines(const Context& context) {
  std::vector<std::string> lines;
  if (!context.one_time_costs) return lines;
  const OneTimeCosts& costs = *context.one_time_costs;
  std::string context_line = "CUDA context creation on GPU " + std::to_string(costs.device) + ": ";
  context_line += costs.context_creation_s ? format_seconds(*costs.context_creation_s) : costs.context_note;
  lines.push_back(context_line);
  if (!costs.module_loading.empty())
    lines.push_back("module loading: " + costs.module_loading + " (CUDA_MODULE_LOADING " +
                    (costs.module_loading_env.empty() ? "unset" : "=" + costs.module_loading_env) + ")");
  for (const FirstUse& use : costs.first_uses)
    lines.push_back(use.backend + " first use: " + use.what + " " + format_seconds(use.seconds));
  return lines;
}

Table costs_table(const std::vector<ResultRecord>& results) {
  Table table;
  table.columns = {{"case", Align::left},         {"first call", Align::right},  {"x median", Align::right},
                   {"first (timer)", Align::right}, {"issue median", Align::right}, {"issue min-max", Align::right}};
  table.key_columns = 1;
  for (const auto& record : results) {
    if (!record.first_call) continue;
    const FirstCall& first = *record.first_call;
    std::string issue_median = "-", issue_range = "-";
    if (record.host_cost && record.host_cost->stats.count > 0) {
      const Statistics& stats = record.host_cost->stats;
      issue_median = seconds_cell(stats.median);
      issue_range = seconds_cell(stats.min) + "-" + seconds_cell(stats.max);
    }
    table.rows.push_back({{record.spec.id() + (first.first_of_backend ? " *" : ""), seconds_cell(first.host_s),
                           ratio_cell(first.host_s, record.stats.median), seconds_cell(first.timer_s), issue_median,
                           issue_range},
                          ""});
  }
  return table;
}

std::string costs_footnote(const std::vector<ResultRecord>& results) {
  if (std::none_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.first_call.has_value(); }))
    return {};
  return "first call: the case's first run in the process, before any warm-up, on the host's steady clock with the wait "
         "for it (x median: in medians of the steady state; first (timer): on the case's own timer); * marks the first "
         "case of its backend (on its GPU), which also paid the backend's first use. issue: the host's time to issue one op without "
         "waiting for it (GPU cases; - for CPU cases, whose work runs on the calling thread)";
}

}  // namespace gpb::report_model
