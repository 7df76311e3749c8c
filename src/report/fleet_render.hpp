// Renderings of the fleet view (analysis/fleet.hpp): the console and Markdown sections, the JSON
// report's "fleet" value, and the table and findings the HTML page draws.
#pragma once

#include <string>
#include <vector>

#include "analysis/fleet.hpp"
#include "report/report_model.hpp"

namespace gpb {

// "Fleet: 8 GPUs on 2 hosts, 4 ranks. Outlier: slower than the fleet median by more than
// 5 % with its median's 95 % CI above it."
std::string fleet_heading(const FleetView& view);

// Per fleet case, a row with the fleet median (and its MAD), then one row per GPU: its
// median, the median's 95 % CI, its deviation from the fleet median, the robust score and
// "OUTLIER" where the rule holds.
report_model::Table fleet_table(const FleetView& view);

// The outliers, then the failures, one sentence each; or "no outliers".
std::vector<std::string> fleet_findings(const FleetView& view);

std::string render_fleet_console(const FleetView& view);
std::string render_fleet_markdown(const FleetView& view);

// The JSON report's "fleet" value, as JSON text: {threshold, units, cases, outliers, failures}.
std::string render_fleet_json(const FleetView& view);
// Its JSON Schema (JSON text), for the report's schema (report.hpp: render_report_schema).
std::string fleet_json_schema();

}  // namespace gpb
