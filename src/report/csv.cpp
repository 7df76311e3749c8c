// The CSV report: one flat row per record, RFC 4180 quoting, empty fields where a value
// does not apply, numbers in the shortest form that reads back exactly.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

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

std::string number(std::int64_t value) { return std::to_string(value); }

std::string boolean(bool value) { return value ? "true" : "false"; }

const Phase* find_phase(const ResultRecord& record, PhaseKind kind) {
  for (const auto& phase : record.phases)
    if (phase.kind == kind) return &phase;
  return nullptr;
}

// Collects one row's fields under their column names, so header and rows cannot drift apart.
class CsvRow {
 public:
  void add(std::string name, std::string value) {
    names_.push_back(std::move(name));
    values_.push_back(std::move(value));
  }
  // A field that is empty unless the condition holds.
  void add_if(bool applies, std::string name, std::string value) {
    add(std::move(name), applies ? std::move(value) : std::string());
  }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<std::string>& values() const { return values_; }

 private:
  std::vector<std::string> names_, values_;
};

CsvRow csv_row(const ResultRecord& record, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  const CaseSpec& spec = record.spec;
  const Shape& shape = spec.shape;
  const ShapeKind kind = shape_kind(spec.op);
  const bool elementwise = kind == ShapeKind::elements;
  const bool matmul = kind == ShapeKind::dense_matrix;
  const bool spmv = kind == ShapeKind::sparse_matrix;
  const bool measured = report_model::has_measurements(record);
  const bool host_measured = measured && record.host_stats.count > 0;
  const bool checked = record.verification.checked;
  const Statistics& stats = record.stats;

  CsvRow row;
  row.add("op", to_string(spec.op));
  row.add("backend", spec.backend);
  row.add("device", to_string(record.device));
  row.add("dtype", to_string(spec.dtype));
  row.add("shape", shape.label(spec.op));
  row.add_if(matmul, "m", number(shape.m));
  row.add_if(elementwise || matmul, "n", number(shape.n));
  row.add_if(matmul, "k", number(shape.k));
  row.add_if(spmv, "rows", number(shape.rows));
  row.add_if(spmv, "cols", number(shape.cols));
  row.add_if(spmv, "nnz", number(shape.nnz));
  row.add_if(spmv, "pattern", to_string(shape.pattern));
  row.add("timing", to_string(spec.timing));
  row.add("l2", to_string(spec.l2));
  row.add("tf32", boolean(spec.tf32));
  // Only in reports with a forced SpMV kernel, which other reports' readers never see.
  const bool kernel_forced = std::any_of(results.begin(), results.end(), [](const ResultRecord& r) {
    return r.spec.spmv_kernel != SpmvKernelChoice::automatic;
  });
  if (kernel_forced) row.add("spmv_kernel", to_string(spec.spmv_kernel));
  row.add("threads", number(std::int64_t{record.threads_used}));
  row.add("status", to_string(record.status));
  row.add("reason", record.reason);
  row.add_if(measured, "samples", number(static_cast<std::int64_t>(stats.count)));
  row.add_if(measured, "batch", number(record.batch));
  row.add_if(measured, "timer", record.timer);
  row.add_if(measured, "median_s", number(stats.median));
  row.add_if(measured, "mean_s", number(stats.mean));
  row.add_if(measured, "min_s", number(stats.min));
  row.add_if(measured, "max_s", number(stats.max));
  row.add_if(measured, "stddev_s", number(stats.stddev));
  row.add_if(measured, "rel_stddev", number(stats.rel_stddev));
  row.add_if(measured, "p5_s", number(stats.p5));
  row.add_if(measured, "p95_s", number(stats.p95));
  row.add_if(measured, "q1_s", number(stats.q1));
  row.add_if(measured, "q3_s", number(stats.q3));
  row.add_if(host_measured, "host_median_s", number(record.host_stats.median));
  row.add_if(measured, "gbps", number(record.gbps));
  row.add_if(measured, "gflops", number(record.gflops));
  const Roofline& roofline = record.roofline;
  row.add_if(measured, "roofline_bound", roofline.bound ? to_string(*roofline.bound) : "");
  row.add_if(roofline.ceiling > 0, "roofline_ceiling", number(roofline.ceiling));
  row.add_if(roofline.ceiling > 0, "roofline_fraction", number(roofline.fraction));
  row.add_if(roofline.theoretical_ceiling > 0, "theoretical_fraction", number(roofline.theoretical_fraction));
  row.add_if(checked, "verified", boolean(record.verification.passed));
  row.add_if(checked, "max_error", number(record.verification.max_error));
  row.add_if(checked, "tolerance", number(record.verification.tolerance));
  for (PhaseKind phase_kind : all_phase_kinds()) {
    const Phase* phase = find_phase(record, phase_kind);
    row.add_if(phase != nullptr, to_string(phase_kind) + "_median_s", phase ? number(phase->stats.median) : "");
  }
  row.add("timing_note", record.timing_note);
  // Telemetry: empty without it (CPU cases, no NVML) and where the device lacks a sensor.
  const std::optional<TelemetrySummary>& telemetry = record.telemetry;
  const auto sensor = [&](const char* name, double TelemetrySummary::*field) {
    row.add_if(telemetry.has_value(), name, telemetry ? number((*telemetry).*field) : "");
  };
  sensor("sm_clock_min_mhz", &TelemetrySummary::sm_clock_min_mhz);
  sensor("sm_clock_median_mhz", &TelemetrySummary::sm_clock_median_mhz);
  sensor("sm_clock_max_mhz", &TelemetrySummary::sm_clock_max_mhz);
  sensor("mem_clock_median_mhz", &TelemetrySummary::mem_clock_median_mhz);
  sensor("power_mean_w", &TelemetrySummary::power_mean_w);
  sensor("power_max_w", &TelemetrySummary::power_max_w);
  sensor("temperature_max_c", &TelemetrySummary::temperature_max_c);
  std::string clock_events;
  if (telemetry)
    for (const std::string& reason : telemetry->clock_events) clock_events += (clock_events.empty() ? "" : ";") + reason;
  row.add("clock_events", clock_events);
  sensor("throttled_share", &TelemetrySummary::throttled_share);
  sensor("throttle_threshold", &TelemetrySummary::throttle_threshold);
  row.add_if(telemetry.has_value(), "flagged_samples",
             telemetry ? number(static_cast<std::int64_t>(telemetry->flagged_samples)) : "");
  row.add_if(telemetry.has_value(), "discarded_samples",
             telemetry ? number(static_cast<std::int64_t>(telemetry->discarded_samples)) : "");
  sensor("energy_per_op_j", &TelemetrySummary::energy_per_op_j);
  sensor("gflops_per_j", &TelemetrySummary::gflops_per_j);
  sensor("gb_per_j", &TelemetrySummary::gb_per_j);
  row.add_if(record.soak.has_value(), "soak_s", record.soak ? number(record.soak->seconds) : "");
  row.add_if(record.soak && record.soak->settled, "soak_settled",
             record.soak && record.soak->settled ? boolean(*record.soak->settled) : "");
  if (options.relative_to) {
    const auto speedup = report_model::speedup(record, results, *options.relative_to);
    row.add_if(speedup.has_value(), "speedup", speedup ? number(*speedup) : "");
  }
  // Where each record ran, in reports whose records say it (GPU runs, merged reports).
  if (report_model::any_placed(results)) {
    row.add("host", record.host);
    row.add_if(record.rank >= 0, "rank", number(std::int64_t{record.rank}));
    row.add_if(record.gpu.recorded(), "gpu_ordinal", number(std::int64_t{record.gpu.ordinal}));
    row.add("gpu_name", record.gpu.name);
    row.add("gpu_uuid", record.gpu.uuid);
    row.add("gpu_pci_bus_id", record.gpu.pci_bus_id);
  }
  return row;
}

void append_line(std::ostringstream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << quoted(fields[i]);
  out << '\n';
}

}  // namespace

std::string render_csv(const Context& context, const std::vector<ResultRecord>& results, const ReportOptions& options) {
  std::ostringstream out;
  // The header comes from the same code as the rows; a record-less report still gets one.
  // An interrupted run's rows end in a column that only such reports have.
  auto header = csv_row(ResultRecord{}, results, options).names();
  if (context.interrupted) header.push_back("interrupted");
  append_line(out, header);
  for (const auto& record : results) {
    auto values = csv_row(record, results, options).values();
    if (context.interrupted) values.push_back("true");
    append_line(out, values);
  }
  return out.str();
}

std::string report_model::csv_field(const std::string& field) { return quoted(field); }
std::string report_model::csv_number(double value) { return number(value); }

}  // namespace gpb
