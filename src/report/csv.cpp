// The CSV report: one flat row per record, RFC 4180 quoting, empty fields where a value
// does not apply, numbers in the shortest form that reads back exactly. Each column is a
// field of the record format, named by its path there (model/record_format.hpp): the
// values, their types and where a field applies come from the one field list.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "model/record_format.hpp"
#include "report/report.hpp"
#include "report/report_model.hpp"

namespace gpb {
namespace {

std::string quoted(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string number(double value) {
  if (!std::isfinite(value)) return "";
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

// A record value as a cell: "" where absent; a list joined by ';'.
std::string cell(const RecordValue& value) {
  return std::visit(
      [](const auto& held) -> std::string {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<T, bool>) {
          return held ? "true" : "false";
        } else if constexpr (std::is_same_v<T, double>) {
          return number(held);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return held;
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          std::string joined;
          for (const auto& item : held) joined += (joined.empty() ? "" : ";") + item;
          return joined;
        } else {
          return std::to_string(held);
        }
      },
      value);
}

// Which rows hold a column's value. Most hold it where the record format writes the field;
// columns of measurements stay empty for a record without any (a skipped case: n/a, not
// zero); a few hold every record's value, even where the document leaves it out.
enum class Shown { where_written, every_record, measured, host_measured, checked, ceiling_known, theoretical_ceiling_known };

bool shown(Shown rule, const ResultRecord& record) {
  switch (rule) {
    case Shown::where_written:
    case Shown::every_record:
      return true;
    case Shown::measured:
      return report_model::has_measurements(record);
    case Shown::host_measured:
      return report_model::has_measurements(record) && record.host_stats.count > 0;
    case Shown::checked:
      return record.verification.checked;
    case Shown::ceiling_known:
      return record.roofline.ceiling > 0;
    case Shown::theoretical_ceiling_known:
      return record.roofline.theoretical_ceiling > 0;
  }
  return false;
}

struct Column {
  const char* name;
  const char* field;  // its path in the record format
  Shown rule = Shown::where_written;
};

// The columns of every report, in order.
const Column kColumns[] = {
    {"id", "id"},
    {"op", "op"},
    {"backend", "backend"},
    {"device", "device"},
    {"dtype", "dtype"},
    {"shape", "shape.label"},
    {"m", "shape.m"},
    {"n", "shape.n"},
    {"k", "shape.k"},
    {"rows", "shape.rows"},
    {"cols", "shape.cols"},
    {"nnz", "shape.nnz"},
    {"pattern", "shape.pattern"},
    {"timing", "settings.timing"},
    {"l2", "settings.l2"},
    {"tf32", "settings.tf32"},
};
// Only in reports with a forced SpMV kernel, which other reports' readers never see; its
// rows name each case's choice, "auto" included.
const Column kSpmvKernelColumn = {"spmv_kernel", "settings.spmv_kernel", Shown::every_record};
const Column kMeasurementColumns[] = {
    {"threads", "settings.threads_used"},
    {"status", "status"},
    {"reason", "reason"},
    {"samples", "statistics.count", Shown::measured},
    {"batch", "settings.batch", Shown::measured},
    {"timer", "settings.timer", Shown::measured},
    {"stop_reason", "settings.stop_reason", Shown::measured},
    {"median_s", "statistics.median", Shown::measured},
    {"mean_s", "statistics.mean", Shown::measured},
    {"min_s", "statistics.min", Shown::measured},
    {"max_s", "statistics.max", Shown::measured},
    {"stddev_s", "statistics.stddev", Shown::measured},
    {"rel_stddev", "statistics.rel_stddev", Shown::measured},
    {"p5_s", "statistics.p5", Shown::measured},
    {"p95_s", "statistics.p95", Shown::measured},
    {"q1_s", "statistics.q1", Shown::measured},
    {"q3_s", "statistics.q3", Shown::measured},
    {"host_median_s", "host_statistics.median", Shown::host_measured},
    {"gbps", "throughput.gbps", Shown::measured},
    {"gflops", "throughput.gflops", Shown::measured},
    {"roofline_bound", "roofline.bound", Shown::measured},
    {"roofline_ceiling", "roofline.ceiling", Shown::ceiling_known},
    {"roofline_fraction", "roofline.fraction", Shown::ceiling_known},
    {"theoretical_fraction", "roofline.theoretical_fraction", Shown::theoretical_ceiling_known},
    {"verified", "verification.passed", Shown::checked},
    {"max_error", "verification.max_error", Shown::checked},
    {"tolerance", "verification.tolerance", Shown::checked},
    {"h2d_median_s", "phases.h2d.statistics.median"},
    {"op_median_s", "phases.op.statistics.median"},
    {"d2h_median_s", "phases.d2h.statistics.median"},
    {"timing_note", "settings.timing_note"},
    {"data", "settings.data", Shown::every_record},
    // One-time and per-call costs: empty where not measured (host cost: CPU cases).
    {"first_call_s", "first_call.host_s"},
    {"first_call_timer_s", "first_call.timer_s"},
    {"first_of_backend", "first_call.first_of_backend"},
    {"host_cost_median_s", "host_cost.statistics.median"},
    {"host_cost_min_s", "host_cost.statistics.min"},
    {"host_cost_max_s", "host_cost.statistics.max"},
    {"host_cost_q1_s", "host_cost.statistics.q1"},
    {"host_cost_q3_s", "host_cost.statistics.q3"},
    // Telemetry: empty without it (CPU cases, no NVML) and where the device lacks a sensor.
    {"sm_clock_min_mhz", "telemetry.sm_clock_min_mhz"},
    {"sm_clock_median_mhz", "telemetry.sm_clock_median_mhz"},
    {"sm_clock_max_mhz", "telemetry.sm_clock_max_mhz"},
    {"mem_clock_median_mhz", "telemetry.mem_clock_median_mhz"},
    {"power_mean_w", "telemetry.power_mean_w"},
    {"power_max_w", "telemetry.power_max_w"},
    {"instant_power_median_w", "telemetry.instant_power_median_w"},
    {"instant_power_max_w", "telemetry.instant_power_max_w"},
    {"temperature_max_c", "telemetry.temperature_max_c"},
    {"clock_events", "telemetry.clock_events"},
    {"throttled_share", "telemetry.throttled_share"},
    {"throttle_threshold", "telemetry.throttle_threshold"},
    {"flagged_samples", "telemetry.flagged_samples"},
    {"discarded_samples", "telemetry.discarded_samples"},
    {"energy_per_op_j", "telemetry.energy_per_op_j"},
    {"gflops_per_j", "telemetry.gflops_per_j"},
    {"gb_per_j", "telemetry.gb_per_j"},
    // CPU telemetry (host interference): empty for GPU cases and where the kernel does not say.
    {"load_average", "cpu_telemetry.load_average"},
    {"threads_obtained", "cpu_telemetry.threads_obtained"},
    {"cpu_s", "cpu_telemetry.cpu_s"},
    {"run_queue_wait_s", "cpu_telemetry.run_queue_wait_s"},
    {"involuntary_switches", "cpu_telemetry.involuntary_switches"},
    {"migrations", "cpu_telemetry.migrations"},
    {"oversubscribed_samples", "cpu_telemetry.oversubscribed_samples"},
    {"cpu_mhz_min", "cpu_telemetry.cpu_mhz_min"},
    {"cpu_mhz_max", "cpu_telemetry.cpu_mhz_max"},
    {"soak_s", "soak.seconds"},
    {"soak_settled", "soak.settled"},
    // Energy from the device's counter (GPU and CPU): empty where the case did not measure;
    // energy_reason says why a measured case has no figure.
    {"energy_counter", "energy.counter"},
    {"energy_reason", "energy.reason"},
    {"energy_op_j", "energy.energy_per_op_j"},
    {"energy_op_uncertainty_j", "energy.uncertainty_j"},
    {"energy_power_w", "energy.power_w"},
    {"energy_window_s", "energy.window_s"},
    {"energy_launches", "energy.launches"},
    {"energy_extra_launches", "energy.extra_launches"},
    {"energy_update_interval_s", "energy.update_interval_s"},
    {"energy_gflops_per_j", "energy.gflops_per_j"},
    {"energy_gb_per_j", "energy.gb_per_j"},
};
// Only in reports where some record has them: the fraction of the peak at the SM clock held
// (compute-bound GPU cases with telemetry), and the L2-resident mark (--l2 warm cases that fit).
const Column kHeldClockColumns[] = {
    {"held_sm_clock_mhz", "roofline.held_sm_clock_mhz"},
    {"fraction_at_held_clock", "roofline.fraction_at_held_clock"},
};
const Column kL2ResidentColumn = {"l2_resident", "roofline.l2_resident", Shown::every_record};
// Where each record ran, in reports whose records say it (GPU runs, merged reports).
const Column kPlacementColumns[] = {
    {"host", "host"},
    {"rank", "rank"},
    {"gpu_ordinal", "gpu.ordinal"},
    {"gpu_name", "gpu.name"},
    {"gpu_uuid", "gpu.uuid"},
    {"gpu_pci_bus_id", "gpu.pci_bus_id"},
};

void append_line(std::ostringstream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << quoted(fields[i]);
  out << '\n';
}

}  // namespace

std::string render_csv(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  std::vector<Column> columns(std::begin(kColumns), std::end(kColumns));
  const bool kernel_forced = std::any_of(results.begin(), results.end(), [](const ResultRecord& r) {
    return r.spec.spmv_kernel != SpmvKernelChoice::automatic;
  });
  if (kernel_forced) columns.push_back(kSpmvKernelColumn);
  columns.insert(columns.end(), std::begin(kMeasurementColumns), std::end(kMeasurementColumns));
  if (std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.roofline.fraction_at_held_clock.has_value(); }))
    columns.insert(columns.end(), std::begin(kHeldClockColumns), std::end(kHeldClockColumns));
  if (std::any_of(results.begin(), results.end(), [](const ResultRecord& r) { return r.roofline.l2_resident; }))
    columns.push_back(kL2ResidentColumn);
  const std::size_t record_columns = columns.size();
  if (report_model::any_placed(results)) columns.insert(columns.end(), std::begin(kPlacementColumns), std::end(kPlacementColumns));

  // The header is the columns'; a record-less report still gets one. The speed-up column
  // (against --relative-to) sits between the record's columns and where it ran, and an
  // interrupted run's rows end in a column that only such reports have.
  std::vector<std::string> header;
  for (const Column& column : columns) header.push_back(column.name);
  if (options.relative_to) header.insert(header.begin() + static_cast<std::ptrdiff_t>(record_columns), "speedup");
  if (context.interrupted) header.push_back("interrupted");
  std::ostringstream out;
  append_line(out, header);
  for (const auto& record : results) {
    std::vector<std::string> values;
    for (const Column& column : columns)
      values.push_back(shown(column.rule, record) ? cell(record_value(record, column.field, column.rule == Shown::every_record))
                                                  : "");
    if (options.relative_to) {
      const auto speedup = report_model::speedup(record, results, *options.relative_to);
      values.insert(values.begin() + static_cast<std::ptrdiff_t>(record_columns), speedup ? number(*speedup) : "");
    }
    if (context.interrupted) values.emplace_back("true");
    append_line(out, values);
  }
  return out.str();
}

std::string report_model::csv_field(const std::string& field) { return quoted(field); }
std::string report_model::csv_number(double value) { return number(value); }

}  // namespace gpb
