#include "model/result.hpp"

#include <charconv>
#include <limits>
#include <type_traits>

namespace gpb {
namespace {

// Names in enum order.
const char* const kPhaseNames[] = {"h2d", "op", "d2h"};

// The id, or without the backend and its tags the case that every backend runs.
std::string identity(const CaseSpec& spec, bool with_backend) {
  std::string id = to_string(spec.op) + (with_backend ? "/" + spec.backend : "") + "/" + to_string(spec.dtype) + "/" +
                   spec.shape.label(spec.op);
  if (spec.timing != TimingMode::kernel) id += "/" + to_string(spec.timing);
  for (const auto& tag : spec.variant_tags()) id += "/" + tag;
  if (with_backend)
    for (const auto& tag : spec.backend_tags()) id += "/" + tag;
  return id;
}

}  // namespace

// Only the non-default settings, so the common case reads as plainly as possible.
std::vector<std::string> CaseSpec::variant_tags() const {
  std::vector<std::string> tags;
  if (tf32) tags.push_back("tf32");
  if (l2 == L2Mode::warm) tags.push_back("l2warm");
  if (data != InputData::uniform) tags.push_back(to_string(data));
  return tags;
}

std::vector<std::string> CaseSpec::backend_tags() const {
  std::vector<std::string> tags;
  if (spmv_kernel != SpmvKernelChoice::automatic) tags.push_back(to_string(spmv_kernel));
  return tags;
}

std::string CaseSpec::backend_label() const {
  std::string label = backend;
  for (const auto& tag : backend_tags()) label += "/" + tag;
  return label;
}

void finalize_record(ResultRecord& record) {
  record.stats = compute_statistics(record.samples_s);
  record.host_stats = compute_statistics(record.host_samples_s);
  for (auto& phase : record.phases) phase.stats = compute_statistics(phase.samples_s);
  if (record.host_cost) record.host_cost->stats = compute_statistics(record.host_cost->samples_s);
  if (record.stats.median > 0) {
    record.gbps = record.bytes / record.stats.median / 1e9;
    record.gflops = record.flops / record.stats.median / 1e9;
  }
  if (record.energy) finish_energy(*record.energy, record.flops, record.bytes);
  if (record.telemetry) {
    // The telemetry's energy figures are the energy measurement's where there is one (the
    // counter over a window long enough for it), else the counter over the measuring time.
    TelemetrySummary& t = *record.telemetry;
    if (record.energy && record.energy->measured()) {
      t.energy_per_op_j = record.energy->energy_per_op_j;
      t.gflops_per_j = record.energy->gflops_per_j;
      t.gb_per_j = record.energy->gb_per_j;
    } else {
      apply_energy(t, record.stats.median, record.flops, record.bytes);
    }
  }
}

std::string CaseSpec::id() const { return identity(*this, true); }

bool same_case_apart_from_backend(const CaseSpec& a, const CaseSpec& b) { return identity(a, false) == identity(b, false); }

std::string to_string(PhaseKind kind) { return kPhaseNames[static_cast<std::size_t>(kind)]; }

const std::vector<PhaseKind>& all_phase_kinds() {
  static const std::vector<PhaseKind> kinds{PhaseKind::h2d, PhaseKind::op, PhaseKind::d2h};
  return kinds;
}

std::string to_string(Status status) {
  switch (status) {
    case Status::ok:
      return "ok";
    case Status::skipped:
      return "skipped";
    case Status::failed:
      return "failed";
  }
  return "?";
}

SettingValue integer_setting(std::uint64_t value) {
  if (value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return static_cast<std::int64_t>(value);
  return value;
}

std::string to_string(const SettingValue& value) {
  return std::visit(
      [](const auto& held) -> std::string {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, bool>) {
          return held ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return held;
        } else {
          char text[32];
          const auto result = std::to_chars(text, text + sizeof text, held);
          return std::string(text, result.ptr);
        }
      },
      value);
}

}  // namespace gpb
