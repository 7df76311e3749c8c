// What the console and Markdown reports show beside the results table: a table of the GPU
// telemetry of each case that has it (clocks, power, temperature, throttling, flagged
// samples; efficiency is the energy table's, energy_render.hpp), one of the CPU cases' host
// interference (load, threads obtained, run-queue wait, oversubscribed samples), and
// footnotes that explain them, the soak and cold timing notes.
// Internal to src/report/.
#pragma once

#include <string>
#include <vector>

#include "report/report_model.hpp"

namespace gpb::report_model {

// One row per record with telemetry; no rows when none has it.
Table telemetry_table(const std::vector<ResultRecord>& results);

// One row per record with CPU telemetry (host interference); no rows when none has it.
Table cpu_telemetry_table(const std::vector<ResultRecord>& results);
// Its legend; empty when no record has CPU telemetry.
std::string cpu_telemetry_footnote(const std::vector<ResultRecord>& results);

// The legend of telemetry_table, a line on soaking, and one on cold single launches near
// the timer's resolution; empty when none applies.
std::vector<std::string> telemetry_footnotes(const std::vector<ResultRecord>& results);

}  // namespace gpb::report_model
