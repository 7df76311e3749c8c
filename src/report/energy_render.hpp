// What the reports show of each case's energy (model/energy.hpp): joules per op with their
// uncertainty, the case's power (the counter over the window), the window and the untimed
// repeats that lengthened it, efficiency, and for a case without a figure the reason.
// Internal to src/report/.
#pragma once

#include <string>
#include <vector>

#include "report/report_model.hpp"

namespace gpb::report_model {

// "1.23 mJ", "45.6 uJ", "2.1 J"; "-" when not finite.
std::string format_joules(double joules);
// "1.23 +- 0.05 mJ" (the uncertainty in the figure's unit); "-" without a figure.
std::string format_energy_per_op(double joules, double uncertainty_j);

// One row per record with an energy measurement or a reason; no rows when none has a figure.
Table energy_table(const std::vector<ResultRecord>& results);

// Its legend (where some record has a figure), and one line per distinct reason a device
// had no figure.
std::vector<std::string> energy_footnotes(const std::vector<ResultRecord>& results);

}  // namespace gpb::report_model
