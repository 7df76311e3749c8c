// The record format (schema "gpubench-report", docs/report-schema.json): the writer and its
// reader. Every raw sample is kept; doubles are written in the shortest form that reads back
// exactly, and non-finite values as null, so parse(render(x)) reproduces x.
#include "model/record_format.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>
#include <variant>

#include "base/input_file.hpp"
#include "base/json_input.hpp"

namespace gpb {
namespace {

using Json = nlohmann::ordered_json;  // keeps the schema's field order in the output

constexpr const char* kSchemaName = "gpubench-report";

// ---- writing ----

Json real(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json reals(const std::vector<double>& values) {
  Json array = Json::array();
  for (double value : values) array.push_back(real(value));
  return array;
}

// Settings keep their type: numbers as numbers, flags as booleans.
Json setting_json(const SettingValue& value) {
  return std::visit(
      [](const auto& held) -> Json {
        if constexpr (std::is_same_v<std::decay_t<decltype(held)>, double>)
          return real(held);
        else
          return Json(held);
      },
      value);
}

Json statistics_json(const Statistics& stats) {
  return {{"count", stats.count},
          {"min", real(stats.min)},
          {"max", real(stats.max)},
          {"mean", real(stats.mean)},
          {"median", real(stats.median)},
          {"stddev", real(stats.stddev)},
          {"rel_stddev", real(stats.rel_stddev)},
          {"p5", real(stats.p5)},
          {"p95", real(stats.p95)},
          {"q1", real(stats.q1)},
          {"q3", real(stats.q3)},
          {"median_ci_low", real(stats.median_ci_low)},
          {"median_ci_high", real(stats.median_ci_high)}};
}

Json optional_bool(const std::optional<bool>& value) { return value ? Json(*value) : Json(nullptr); }

Json management_json(const GpuManagement& management) {
  return {{"available", management.available},
          {"reason", management.reason},
          {"persistence_mode", optional_bool(management.persistence_mode)},
          {"applications_clocks_set", optional_bool(management.applications_clocks_set)},
          {"clock_limit_active", optional_bool(management.clock_limit_active)},
          {"clocks_locked", optional_bool(clocks_locked(management))},
          {"power_limit_w", real(management.power_limit_w)},
          {"max_sm_clock_mhz", real(management.max_sm_clock_mhz)},
          {"max_mem_clock_mhz", real(management.max_mem_clock_mhz)},
          {"ecc_enabled", optional_bool(management.ecc_enabled)},
          {"mig_enabled", optional_bool(management.mig_enabled)},
          {"energy_counter", optional_bool(management.energy_counter)}};
}

Json telemetry_json(const std::optional<TelemetrySummary>& telemetry) {
  if (!telemetry) return nullptr;
  const TelemetrySummary& t = *telemetry;
  return {{"readings", t.readings},
          {"period_s", real(t.period_s)},
          {"sm_clock_min_mhz", real(t.sm_clock_min_mhz)},
          {"sm_clock_median_mhz", real(t.sm_clock_median_mhz)},
          {"sm_clock_max_mhz", real(t.sm_clock_max_mhz)},
          {"sm_clock_limit_mhz", real(t.sm_clock_limit_mhz)},
          {"mem_clock_median_mhz", real(t.mem_clock_median_mhz)},
          {"power_mean_w", real(t.power_mean_w)},
          {"power_max_w", real(t.power_max_w)},
          {"temperature_max_c", real(t.temperature_max_c)},
          {"clock_events", t.clock_events},
          {"throttled_share", real(t.throttled_share)},
          {"throttle_threshold", real(t.throttle_threshold)},
          {"flagged_samples", t.flagged_samples},
          {"discarded_samples", t.discarded_samples},
          {"discarded_samples_s", reals(t.discarded_samples_s)},
          {"energy_j", real(t.energy_j)},
          {"energy_window_s", real(t.energy_window_s)},
          {"energy_per_op_j", real(t.energy_per_op_j)},
          {"gflops_per_j", real(t.gflops_per_j)},
          {"gb_per_j", real(t.gb_per_j)}};
}

Json soak_json(const std::optional<SoakSummary>& soak) {
  if (!soak) return nullptr;
  return {{"requested_s", real(soak->requested_s)}, {"seconds", real(soak->seconds)}, {"settled", optional_bool(soak->settled)}};
}

// Only the fields that describe the op's shape (those of its shape kind).
Json shape_json(Op op, const Shape& shape) {
  Json json = {{"label", shape.label(op)}};
  switch (shape_kind(op)) {
    case ShapeKind::elements:
      json["n"] = shape.n;
      break;
    case ShapeKind::dense_matrix:
      json["m"] = shape.m;
      json["n"] = shape.n;
      json["k"] = shape.k;
      break;
    case ShapeKind::sparse_matrix:
      json["rows"] = shape.rows;
      json["cols"] = shape.cols;
      json["nnz"] = shape.nnz;
      json["nnz_per_row"] = shape.nnz_per_row;
      json["pattern"] = to_string(shape.pattern);
      if (!shape.matrix_path.empty()) json["matrix_path"] = shape.matrix_path;
      break;
  }
  return json;
}

Json context_json(const Context& context) {
  Json gpus = Json::array();
  for (const auto& gpu : context.gpus) {
    gpus.push_back({{"ordinal", gpu.ordinal},
                    {"name", gpu.name},
                    {"compute_capability", gpu.compute_capability},
                    {"sm_count", gpu.sm_count},
                    {"sm_clock_mhz", real(gpu.sm_clock_mhz)},
                    {"mem_clock_mhz", real(gpu.mem_clock_mhz)},
                    {"memory_gib", real(gpu.memory_gib)},
                    {"bus_width_bits", gpu.bus_width_bits},
                    {"theoretical_bandwidth_gbps", real(gpu.theoretical_bandwidth_gbps)},
                    {"copy_gbps", real(gpu.copy_gbps)},
                    {"peak_fp32_gflops", real(gpu.peak_fp32_gflops)},
                    {"peak_fp64_gflops", real(gpu.peak_fp64_gflops)},
                    {"peak_tf32_gflops", real(gpu.peak_tf32_gflops)},
                    {"peak_fp16_gflops", real(gpu.peak_fp16_gflops)},
                    {"l2_mib", real(gpu.l2_mib)},
                    {"ecc", gpu.ecc},
                    {"driver_version", gpu.driver_version},
                    {"runtime_version", gpu.runtime_version},
                    {"nvml", management_json(gpu.nvml)}});
    if (!gpu.uuid.empty()) gpus.back()["uuid"] = gpu.uuid;
    if (!gpu.pci_bus_id.empty()) gpus.back()["pci_bus_id"] = gpu.pci_bus_id;
  }
  Json settings = Json::object();
  for (const auto& [key, value] : context.settings) settings[key] = setting_json(value);
  Json thresholds = Json::object();
  for (const auto& [key, value] : context.thresholds) thresholds[key] = real(value);
  Json json = {{"tool_version", context.tool_version},
          {"git_sha", context.git_sha},
          {"build_type", context.build_type},
          {"compiler", context.compiler},
          {"argv", context.argv},
          {"timestamp", context.timestamp},
          {"hostname", context.hostname},
          {"os", context.os},
          {"cpu_model", context.cpu_model},
          {"cpu_cores", context.cpu_cores},
          {"threads", context.threads},
          {"memory_gib", real(context.memory_gib)},
          {"cpu_copy_gbps", real(context.cpu_copy_gbps)},
          {"libraries", context.libraries},
          {"settings", settings},
          {"thresholds", thresholds},
          {"gpus", gpus},
          {"notes", context.notes}};
  if (!context.ranks.empty()) {
    Json ranks = Json::array();
    for (const auto& rank : context.ranks)
      ranks.push_back({{"rank", rank.rank},
                       {"local_rank", rank.local_rank},
                       {"world_size", rank.world_size},
                       {"launcher", rank.launcher},
                       {"host", rank.host},
                       {"node", rank.node},
                       {"devices", rank.devices},
                       {"device_schedule", rank.device_schedule}});
    json["ranks"] = std::move(ranks);
  }
  return json;
}

// speedup: the record's value in the speed-up column, where the document has one.
Json result_json(const ResultRecord& record, const std::optional<double>* speedup) {
  const CaseSpec& spec = record.spec;
  Json phases = Json::array();
  for (const auto& phase : record.phases)
    phases.push_back(
        {{"name", to_string(phase.kind)}, {"samples_s", reals(phase.samples_s)}, {"statistics", statistics_json(phase.stats)}});
  const Verification& verification = record.verification;
  const Roofline& roofline = record.roofline;
  Json json = {{"id", spec.id()},
               {"op", to_string(spec.op)},
               {"backend", spec.backend},
               {"device", to_string(record.device)},
               {"dtype", to_string(spec.dtype)},
               {"shape", shape_json(spec.op, spec.shape)},
               {"settings",
                {{"timing", to_string(spec.timing)},
                 {"l2", to_string(spec.l2)},
                 {"tf32", spec.tf32},
                 {"threads", spec.threads},
                 {"threads_used", record.threads_used},
                 {"seed", spec.seed},
                 {"warmup", record.warmup},
                 {"batch", record.batch},
                 {"timer", record.timer},
                 {"stop_reason", to_string(record.stop_reasons)},
                 {"measure_seconds", real(record.measure_seconds)},
                 {"timing_note", record.timing_note}}},
               {"status", to_string(record.status)},
               {"reason", record.reason},
               {"input_distribution", record.input_distribution},
               {"details", record.details},
               {"samples_s", reals(record.samples_s)},
               {"host_samples_s", reals(record.host_samples_s)},
               {"statistics", statistics_json(record.stats)},
               {"host_statistics", statistics_json(record.host_stats)},
               {"phases", phases},
               {"throughput",
                {{"bytes", real(record.bytes)}, {"flops", real(record.flops)}, {"gbps", real(record.gbps)}, {"gflops", real(record.gflops)}}},
               {"roofline",
                {{"bound", roofline.bound ? to_string(*roofline.bound) : ""},
                 {"ceiling_name", roofline.ceiling_name},
                 {"ceiling", real(roofline.ceiling)},
                 {"fraction", real(roofline.fraction)},
                 {"theoretical_ceiling", real(roofline.theoretical_ceiling)},
                 {"theoretical_fraction", real(roofline.theoretical_fraction)}}},
               {"verification",
                {{"checked", verification.checked},
                 {"passed", verification.passed},
                 {"entries_checked", verification.entries_checked},
                 {"max_error", real(verification.max_error)},
                 {"tolerance", real(verification.tolerance)},
                 {"method", verification.method}}},
               {"soak", soak_json(record.soak)},
               {"telemetry", telemetry_json(record.telemetry)}};
  // Only where it was forced, which only cuda spmv cases can be (config/plan.cpp).
  if (spec.spmv_kernel != SpmvKernelChoice::automatic) json["settings"]["spmv_kernel"] = to_string(spec.spmv_kernel);
  if (speedup) json["speedup"] = *speedup ? real(**speedup) : Json(nullptr);
  if (record.gpu.recorded())
    json["gpu"] = {{"ordinal", record.gpu.ordinal},
                   {"name", record.gpu.name},
                   {"uuid", record.gpu.uuid},
                   {"pci_bus_id", record.gpu.pci_bus_id}};
  if (record.rank >= 0) json["rank"] = record.rank;
  if (!record.host.empty()) json["host"] = record.host;
  return json;
}

// ---- reading ----

// Read documents need no key order: the plain json (std::map objects) never copies values
// while it is built, where ordered_json's vector of pairs copies whole subtrees as it grows.
using InputJson = nlohmann::json;

// A value inside the document, with the path that error messages name
// ("results[2].statistics.median").
class Node {
 public:
  Node(const InputJson& value, std::string path, const std::string& origin)
      : value_(value), path_(std::move(path)), origin_(origin) {}

  const InputJson& value() const { return value_; }

  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError(origin_ + ": " + (path_.empty() ? "" : path_ + ": ") + problem);
  }

  void expect(bool holds, const char* expected) const {
    if (!holds) fail(std::string("expected ") + expected + ", got " + value_.type_name());
  }

  std::optional<Node> member(const char* key) const {
    expect(value_.is_object(), "an object");
    const auto found = value_.find(key);
    if (found == value_.end()) return std::nullopt;
    return Node(*found, path_.empty() ? key : path_ + "." + key, origin_);
  }

  Node required(const char* key) const {
    auto found = member(key);
    if (!found) fail(std::string("missing field \"") + key + "\"");
    return *found;
  }

  Node element(std::size_t index) const { return Node(value_[index], path_ + "[" + std::to_string(index) + "]", origin_); }

 private:
  const InputJson& value_;
  std::string path_;
  const std::string& origin_;
};

void read(const Node& node, std::string& out);
void read(const Node& node, bool& out);
void read(const Node& node, double& out);
void read(const Node& node, SettingValue& out);
void read(const Node& node, Statistics& out);
void read(const Node& node, StopReasons& out);
void read(const Node& node, std::optional<Bound>& out);
void read(const Node& node, Phase& out);
void read(const Node& node, Verification& out);
void read(const Node& node, Roofline& out);
void read(const Node& node, GpuInfo& out);
void read(const Node& node, GpuManagement& out);
void read(const Node& node, TelemetrySummary& out);
void read(const Node& node, SoakSummary& out);
void read(const Node& node, Shape& out);
void read(const Node& node, GpuIdentity& out);
void read(const Node& node, RankInfo& out);
void read(const Node& node, ResultRecord& out);
void read(const Node& node, Context& out);

template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
void read(const Node& node, T& out) {
  const InputJson& value = node.value();
  node.expect(value.is_number_integer(), "an integer");
  const auto out_of_range = [&] { node.fail(value.dump() + " is out of range"); };
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) out_of_range();
    out = static_cast<T>(number);
  } else {
    const auto number = value.get<std::int64_t>();
    if constexpr (std::is_signed_v<T>) {
      if (number < std::numeric_limits<T>::min() || number > std::numeric_limits<T>::max()) out_of_range();
    } else {
      if (number < 0) out_of_range();
    }
    out = static_cast<T>(number);
  }
}

template <class T>
void read(const Node& node, std::vector<T>& out) {
  node.expect(node.value().is_array(), "an array");
  out.assign(node.value().size(), T{});
  for (std::size_t i = 0; i < out.size(); ++i) read(node.element(i), out[i]);
}

// null reads as absent.
template <class T>
void read(const Node& node, std::optional<T>& out) {
  if (node.value().is_null()) {
    out.reset();
    return;
  }
  out.emplace();
  read(node, *out);
}

template <class T>
void read(const Node& node, std::map<std::string, T>& out) {
  node.expect(node.value().is_object(), "an object");
  out.clear();
  for (const auto& item : node.value().items()) read(node.required(item.key().c_str()), out[item.key()]);
}

// Fields other than a case's identity may be absent: they keep their defaults.
template <class T>
void read_member(const Node& object, const char* key, T& out) {
  if (const auto member = object.member(key)) read(*member, out);
}

// Enums are matched against their to_string names, so reading accepts exactly what writing produces.
template <class E>
E enum_named(const Node& node, const std::string& text, const std::vector<E>& values) {
  std::string accepted;
  for (E value : values) {
    if (to_string(value) == text) return value;
    accepted += (accepted.empty() ? "" : ", ") + to_string(value);
  }
  node.fail("unknown value '" + text + "' (expected one of: " + accepted + ")");
}

template <class E>
void read_enum(const Node& node, E& out, const std::vector<E>& values) {
  std::string text;
  read(node, text);
  out = enum_named(node, text, values);
}

template <class E>
void read_enum_member(const Node& object, const char* key, E& out, const std::vector<E>& values) {
  if (const auto member = object.member(key)) read_enum(*member, out, values);
}

void read(const Node& node, std::string& out) {
  node.expect(node.value().is_string(), "a string");
  out = node.value().get<std::string>();
}

void read(const Node& node, bool& out) {
  node.expect(node.value().is_boolean(), "true or false");
  out = node.value().get<bool>();
}

void read(const Node& node, double& out) {
  node.expect(node.value().is_number() || node.value().is_null(), "a number");
  out = node.value().is_null() ? std::numeric_limits<double>::quiet_NaN() : node.value().get<double>();
}

void read(const Node& node, SettingValue& out) {
  const Json& value = node.value();
  if (value.is_boolean()) {
    out = value.get<bool>();
  } else if (value.is_number_unsigned()) {
    out = integer_setting(value.get<std::uint64_t>());
  } else if (value.is_number_integer()) {
    out = value.get<std::int64_t>();
  } else if (value.is_string()) {
    out = value.get<std::string>();
  } else {
    double number = 0;
    read(node, number);  // a real, or null for a value that was not finite
    out = number;
  }
}

// Reports written before settings were typed hold every setting as a string, numbers as
// std::to_string wrote them ("2.000000"). The settings that are numbers or flags now are
// read as such, so that an old baseline compares with a new run without a warning for
// every setting. A text that does not parse stays text.
void read_legacy_settings(std::map<std::string, SettingValue>& settings) {
  static const std::set<std::string> integers = {"seed", "warmup", "min_samples", "max_samples", "repetitions"};
  static const std::set<std::string> reals = {"max_noise", "min_time_s", "max_time_s", "min_sample_s"};
  for (auto& [key, value] : settings) {
    const std::string* text = std::get_if<std::string>(&value);
    if (!text) continue;
    const char* first = text->data();
    const char* last = first + text->size();
    if (integers.count(key) != 0) {
      std::uint64_t number = 0;
      const auto parsed = std::from_chars(first, last, number);
      if (parsed.ec == std::errc() && parsed.ptr == last) value = integer_setting(number);
    } else if (reals.count(key) != 0) {
      double number = 0;
      const auto parsed = std::from_chars(first, last, number);
      if (parsed.ec == std::errc() && parsed.ptr == last) value = number;
    } else if (key == "profile" && (*text == "true" || *text == "false")) {
      value = *text == "true";
    }
  }
}

// Times are never negative: a negative one would give compare a negative ratio. null (a
// statistic without samples) reads as NaN.
void read_duration(const Node& node, double& out) {
  read(node, out);
  if (out < 0) node.fail("expected a duration in seconds, got " + node.value().dump());
}

void read_duration_member(const Node& object, const char* key, double& out) {
  if (const auto member = object.member(key)) read_duration(*member, out);
}

// Every raw sample is a measured time: null here would be a sample without a measurement.
void read_samples_member(const Node& object, const char* key, std::vector<double>& out) {
  const auto samples = object.member(key);
  if (!samples) return;
  samples->expect(samples->value().is_array(), "an array");
  out.assign(samples->value().size(), 0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Node sample = samples->element(i);
    sample.expect(sample.value().is_number(), "a sample time in seconds");
    read_duration(sample, out[i]);
  }
}

void read(const Node& node, Statistics& out) {
  read_member(node, "count", out.count);
  read_duration_member(node, "min", out.min);
  read_duration_member(node, "max", out.max);
  read_duration_member(node, "mean", out.mean);
  read_duration_member(node, "median", out.median);
  read_duration_member(node, "stddev", out.stddev);
  read_duration_member(node, "rel_stddev", out.rel_stddev);
  read_duration_member(node, "p5", out.p5);
  read_duration_member(node, "p95", out.p95);
  read_duration_member(node, "q1", out.q1);
  read_duration_member(node, "q3", out.q3);
  read_duration_member(node, "median_ci_low", out.median_ci_low);
  read_duration_member(node, "median_ci_high", out.median_ci_high);
}

// "converged+max_time"; "" for a case that took no samples.
void read(const Node& node, StopReasons& out) {
  std::string text;
  read(node, text);
  out = StopReasons();
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('+', start), text.size());
    out.add(enum_named(node, text.substr(start, end - start), all_stop_reasons()));
    start = end + 1;
  }
}

// "" for a record without measurements.
void read(const Node& node, std::optional<Bound>& out) {
  std::string text;
  read(node, text);
  out.reset();
  if (!text.empty()) out = enum_named<Bound>(node, text, {Bound::memory, Bound::compute});
}

void read(const Node& node, Phase& out) {
  read_enum(node.required("name"), out.kind, all_phase_kinds());
  read_samples_member(node, "samples_s", out.samples_s);
  read_member(node, "statistics", out.stats);
}

void read(const Node& node, Verification& out) {
  read_member(node, "checked", out.checked);
  read_member(node, "passed", out.passed);
  read_member(node, "entries_checked", out.entries_checked);
  read_member(node, "max_error", out.max_error);
  read_member(node, "tolerance", out.tolerance);
  read_member(node, "method", out.method);
}

void read(const Node& node, Roofline& out) {
  read_member(node, "bound", out.bound);
  read_member(node, "ceiling_name", out.ceiling_name);
  read_member(node, "ceiling", out.ceiling);
  read_member(node, "fraction", out.fraction);
  read_member(node, "theoretical_ceiling", out.theoretical_ceiling);
  read_member(node, "theoretical_fraction", out.theoretical_fraction);
}

void read(const Node& node, GpuInfo& out) {
  read_member(node, "ordinal", out.ordinal);
  read_member(node, "name", out.name);
  read_member(node, "compute_capability", out.compute_capability);
  read_member(node, "sm_count", out.sm_count);
  read_member(node, "sm_clock_mhz", out.sm_clock_mhz);
  read_member(node, "mem_clock_mhz", out.mem_clock_mhz);
  read_member(node, "memory_gib", out.memory_gib);
  read_member(node, "bus_width_bits", out.bus_width_bits);
  read_member(node, "theoretical_bandwidth_gbps", out.theoretical_bandwidth_gbps);
  read_member(node, "copy_gbps", out.copy_gbps);
  read_member(node, "peak_fp32_gflops", out.peak_fp32_gflops);
  read_member(node, "peak_fp64_gflops", out.peak_fp64_gflops);
  read_member(node, "peak_tf32_gflops", out.peak_tf32_gflops);
  read_member(node, "peak_fp16_gflops", out.peak_fp16_gflops);
  read_member(node, "l2_mib", out.l2_mib);
  read_member(node, "ecc", out.ecc);
  read_member(node, "driver_version", out.driver_version);
  read_member(node, "runtime_version", out.runtime_version);
  read_member(node, "uuid", out.uuid);
  read_member(node, "pci_bus_id", out.pci_bus_id);
  read_member(node, "nvml", out.nvml);
}

// "clocks_locked" is derived, so it is not read back.
void read(const Node& node, GpuManagement& out) {
  read_member(node, "available", out.available);
  read_member(node, "reason", out.reason);
  read_member(node, "persistence_mode", out.persistence_mode);
  read_member(node, "applications_clocks_set", out.applications_clocks_set);
  read_member(node, "clock_limit_active", out.clock_limit_active);
  read_member(node, "power_limit_w", out.power_limit_w);
  read_member(node, "max_sm_clock_mhz", out.max_sm_clock_mhz);
  read_member(node, "max_mem_clock_mhz", out.max_mem_clock_mhz);
  read_member(node, "ecc_enabled", out.ecc_enabled);
  read_member(node, "mig_enabled", out.mig_enabled);
  read_member(node, "energy_counter", out.energy_counter);
}

void read(const Node& node, TelemetrySummary& out) {
  read_member(node, "readings", out.readings);
  read_member(node, "period_s", out.period_s);
  read_member(node, "sm_clock_min_mhz", out.sm_clock_min_mhz);
  read_member(node, "sm_clock_median_mhz", out.sm_clock_median_mhz);
  read_member(node, "sm_clock_max_mhz", out.sm_clock_max_mhz);
  read_member(node, "sm_clock_limit_mhz", out.sm_clock_limit_mhz);
  read_member(node, "mem_clock_median_mhz", out.mem_clock_median_mhz);
  read_member(node, "power_mean_w", out.power_mean_w);
  read_member(node, "power_max_w", out.power_max_w);
  read_member(node, "temperature_max_c", out.temperature_max_c);
  read_member(node, "clock_events", out.clock_events);
  read_member(node, "throttled_share", out.throttled_share);
  read_member(node, "throttle_threshold", out.throttle_threshold);
  read_member(node, "flagged_samples", out.flagged_samples);
  read_member(node, "discarded_samples", out.discarded_samples);
  read_member(node, "discarded_samples_s", out.discarded_samples_s);
  read_member(node, "energy_j", out.energy_j);
  read_member(node, "energy_window_s", out.energy_window_s);
  read_member(node, "energy_per_op_j", out.energy_per_op_j);
  read_member(node, "gflops_per_j", out.gflops_per_j);
  read_member(node, "gb_per_j", out.gb_per_j);
}

void read(const Node& node, SoakSummary& out) {
  read_member(node, "requested_s", out.requested_s);
  read_member(node, "seconds", out.seconds);
  read_member(node, "settled", out.settled);
}

void read(const Node& node, GpuIdentity& out) {
  read(node.required("ordinal"), out.ordinal);
  read_member(node, "name", out.name);
  read_member(node, "uuid", out.uuid);
  read_member(node, "pci_bus_id", out.pci_bus_id);
}

void read(const Node& node, RankInfo& out) {
  read(node.required("rank"), out.rank);
  read_member(node, "local_rank", out.local_rank);
  read_member(node, "world_size", out.world_size);
  read_member(node, "launcher", out.launcher);
  read_member(node, "host", out.host);
  read_member(node, "node", out.node);
  read_member(node, "devices", out.devices);
  read_member(node, "device_schedule", out.device_schedule);
}

// "label" is derived from the other fields, so it is not read back.
void read(const Node& node, Shape& out) {
  read_member(node, "n", out.n);
  read_member(node, "m", out.m);
  read_member(node, "k", out.k);
  read_member(node, "rows", out.rows);
  read_member(node, "cols", out.cols);
  read_member(node, "nnz", out.nnz);
  read_member(node, "nnz_per_row", out.nnz_per_row);
  std::vector<SpmvPattern> patterns = generated_patterns();
  patterns.push_back(SpmvPattern::file);
  read_enum_member(node, "pattern", out.pattern, patterns);
  read_member(node, "matrix_path", out.matrix_path);
}

// "id" and "speedup" are derived, so they are not read back.
void read(const Node& node, ResultRecord& out) {
  CaseSpec& spec = out.spec;
  read_enum(node.required("op"), spec.op, all_ops());
  read(node.required("backend"), spec.backend);
  read_enum(node.required("device"), out.device, {DeviceKind::cpu, DeviceKind::gpu});
  read_enum(node.required("dtype"), spec.dtype, all_dtypes());
  read(node.required("shape"), spec.shape);
  read_enum(node.required("status"), out.status, {Status::ok, Status::skipped, Status::failed});
  if (const auto settings = node.member("settings")) {
    read_enum_member(*settings, "timing", spec.timing, {TimingMode::kernel, TimingMode::e2e});
    read_enum_member(*settings, "l2", spec.l2, {L2Mode::flush, L2Mode::warm});
    read_member(*settings, "tf32", spec.tf32);
    read_enum_member(*settings, "spmv_kernel", spec.spmv_kernel,
                     {SpmvKernelChoice::automatic, SpmvKernelChoice::row_split, SpmvKernelChoice::merge_path});
    read_member(*settings, "threads", spec.threads);
    read_member(*settings, "threads_used", out.threads_used);
    read_member(*settings, "seed", spec.seed);
    read_member(*settings, "warmup", out.warmup);
    read_member(*settings, "batch", out.batch);
    read_member(*settings, "timer", out.timer);
    read_member(*settings, "stop_reason", out.stop_reasons);
    read_duration_member(*settings, "measure_seconds", out.measure_seconds);
    read_member(*settings, "timing_note", out.timing_note);
  }
  read_member(node, "reason", out.reason);
  read_member(node, "input_distribution", out.input_distribution);
  read_member(node, "details", out.details);
  read_samples_member(node, "samples_s", out.samples_s);
  read_samples_member(node, "host_samples_s", out.host_samples_s);
  read_member(node, "statistics", out.stats);
  read_member(node, "host_statistics", out.host_stats);
  read_member(node, "phases", out.phases);
  if (const auto throughput = node.member("throughput")) {
    read_member(*throughput, "bytes", out.bytes);
    read_member(*throughput, "flops", out.flops);
    read_member(*throughput, "gbps", out.gbps);
    read_member(*throughput, "gflops", out.gflops);
  }
  read_member(node, "roofline", out.roofline);
  read_member(node, "verification", out.verification);
  read_member(node, "gpu", out.gpu);
  read_member(node, "rank", out.rank);
  read_member(node, "host", out.host);
  read_member(node, "soak", out.soak);
  read_member(node, "telemetry", out.telemetry);
}

void read(const Node& node, Context& out) {
  read_member(node, "tool_version", out.tool_version);
  read_member(node, "git_sha", out.git_sha);
  read_member(node, "build_type", out.build_type);
  read_member(node, "compiler", out.compiler);
  read_member(node, "argv", out.argv);
  read_member(node, "timestamp", out.timestamp);
  read_member(node, "hostname", out.hostname);
  read_member(node, "os", out.os);
  read_member(node, "cpu_model", out.cpu_model);
  read_member(node, "cpu_cores", out.cpu_cores);
  read_member(node, "threads", out.threads);
  read_member(node, "memory_gib", out.memory_gib);
  read_member(node, "cpu_copy_gbps", out.cpu_copy_gbps);
  read_member(node, "libraries", out.libraries);
  read_member(node, "settings", out.settings);
  read_legacy_settings(out.settings);
  read_member(node, "thresholds", out.thresholds);
  read_member(node, "gpus", out.gpus);
  read_member(node, "notes", out.notes);
  read_member(node, "ranks", out.ranks);
}

}  // namespace

std::string render_records_json(const Context& context, const std::vector<ResultRecord>& results,
                                const RecordAdditions& additions) {
  Json report = {{"schema", kSchemaName}, {"schema_version", kReportSchemaVersion}};
  if (context.interrupted) report["interrupted"] = true;
  if (additions.relative_to) report["relative_to"] = *additions.relative_to;
  report["context"] = context_json(context);
  Json records = Json::array();
  for (std::size_t i = 0; i < results.size(); ++i)
    records.push_back(result_json(results[i], additions.relative_to ? &additions.speedups.at(i) : nullptr));
  report["results"] = std::move(records);
  // Derived from the results, so parse_json_report does not read them back.
  for (const auto& [name, json_text] : additions.sections) report[name] = Json::parse(json_text);
  // Invalid UTF-8 (say, from a system error message) becomes U+FFFD instead of an exception.
  return report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

LoadedReport parse_json_report(const std::string& text, const std::string& origin) {
  const InputJson document = parse_json_input(text, origin);
  const Node root(document, "", origin);
  if (!document.is_object() || !document.contains("schema"))
    root.fail(std::string("not a gpubench report (no \"schema\": \"") + kSchemaName + "\" field)");
  std::string schema;
  read(root.required("schema"), schema);
  if (schema != kSchemaName) root.fail("not a gpubench report (schema is '" + schema + "', expected '" + kSchemaName + "')");
  int version = 0;
  read(root.required("schema_version"), version);
  if (version != kReportSchemaVersion)
    root.fail("schema version " + std::to_string(version) + " is not supported (this gpubench reads version " +
              std::to_string(kReportSchemaVersion) + ")");

  LoadedReport report;
  read(root.required("context"), report.context);
  report.context.schema_version = version;
  read_member(root, "interrupted", report.context.interrupted);
  read(root.required("results"), report.results);
  return report;
}

LoadedReport read_json_report(const std::string& path) {
  return parse_json_report(read_input_file(path, kMaxReportBytes, "report"), path);
}

}  // namespace gpb
