#include "report/energy_render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/op_table.hpp"

namespace gpb::report_model {
namespace {

struct JouleUnit {
  double scale;
  const char* name;
};

// The unit that puts `joules` between 1 and 1000.
JouleUnit joule_unit(double joules) {
  static const JouleUnit units[] = {{1, "J"}, {1e-3, "mJ"}, {1e-6, "uJ"}, {1e-9, "nJ"}};
  for (const auto& unit : units)
    if (std::fabs(joules) >= unit.scale) return unit;
  return units[std::size(units) - 1];
}

std::string efficiency_cell(const ResultRecord& record) {
  const EnergyMeasurement& e = *record.energy;
  // Per flop where the op table shows a flop rate, else per byte (as the telemetry table).
  const bool flops = op_def(record.spec.op).shows_flop_rate;
  const double value = flops ? e.gflops_per_j : e.gb_per_j;
  if (!(value > 0) || !std::isfinite(value)) return "-";
  return format_significant(value, 3) + (flops ? " GFLOP/J" : " GB/J");
}

bool any_measured(const std::vector<ResultRecord>& results) {
  return std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.energy && r.energy->measured(); });
}

}  // namespace

std::string format_joules(double joules) {
  if (!std::isfinite(joules)) return "-";
  const JouleUnit unit = joule_unit(joules);
  return format_significant(joules / unit.scale, 3) + " " + unit.name;
}

std::string format_energy_per_op(double joules, double uncertainty_j) {
  if (!std::isfinite(joules)) return "-";
  const JouleUnit unit = joule_unit(joules);
  std::string text = format_significant(joules / unit.scale, 3);
  if (std::isfinite(uncertainty_j)) text += " \u00b1 " + format_significant(uncertainty_j / unit.scale, 2);
  return text + " " + unit.name;
}

Table energy_table(const std::vector<ResultRecord>& results) {
  Table table;
  table.columns = {{"case", Align::left},   {"J/op", Align::right},        {"W (counter)", Align::right},
                   {"window", Align::right}, {"untimed runs", Align::right}, {"efficiency", Align::right},
                   {"counter", Align::left}};
  table.key_columns = 1;
  // Without a single figure the reasons (energy_footnotes) say all there is.
  if (!any_measured(results)) return table;
  for (const auto& record : results) {
    if (!record.energy) continue;
    const EnergyMeasurement& e = *record.energy;
    if (!e.measured()) {
      table.rows.push_back({{record.spec.id(), "-", "-", "-", "-", "-", "none: see below"}, ""});
      continue;
    }
    char window[32];
    std::snprintf(window, sizeof window, "%.3g s", e.window_s);
    table.rows.push_back({{record.spec.id(), format_energy_per_op(e.energy_per_op_j, e.uncertainty_j),
                           format_significant(e.power_w, 3), window, e.extra_launches > 0 ? std::to_string(e.extra_launches) : "0",
                           efficiency_cell(record), e.counter},
                          ""});
  }
  return table;
}

std::vector<std::string> energy_footnotes(const std::vector<ResultRecord>& results) {
  std::vector<std::string> lines;
  if (any_measured(results))
    lines.push_back(
      "J/op: the energy counter's increase over a window of runs of the op, divided by the runs, +- the counter's update "
      "interval times the power over the window (a read at either end can be that stale); W (counter): that energy over "
      "the window, the case's power; window: at least 10 update intervals, lengthened where the timed samples were "
      "shorter by untimed runs after them; NVML's one-second average power is not the case's power");
  std::vector<std::string> reasons;
  for (const auto& record : results) {
    if (!record.energy || record.energy->measured()) continue;
    const std::string line = std::string(record.device == DeviceKind::cpu ? "CPU" : "GPU") + " energy: " + record.energy->reason;
    if (std::find(reasons.begin(), reasons.end(), line) == reasons.end()) reasons.push_back(line);
  }
  lines.insert(lines.end(), reasons.begin(), reasons.end());
  return lines;
}

}  // namespace gpb::report_model
