// What the console and Markdown reports show beside the results table: a table of the GPU
// telemetry of each case that has it (clocks, power, temperature, throttling, flagged
// samples, efficiency), and footnotes that explain it, the soak and cold timing notes.
// Internal to src/report/.
#pragma once

#include <string>
#include <vector>

#include "report/report_model.hpp"

namespace gpb::report_model {

// One row per record with telemetry; no rows when none has it.
Table telemetry_table(const std::vector<ResultRecord>& results);

// The legend of telemetry_table, a line on soaking, and one on cold single launches near
// the timer's resolution; empty when none applies.
std::vector<std::string> telemetry_footnotes(const std::vector<ResultRecord>& results);

}  // namespace gpb::report_model
