#include "result.hpp"

namespace gpb {

namespace {

// Names in enum order.
const char* const kPhaseNames[] = {"h2d", "op", "d2h"};
const char* const kStopReasonNames[] = {"converged", "max_time", "max_samples"};

}  // namespace

std::vector<std::string> CaseSpec::variant_tags() const {
  // Only the non-default settings, so the common case reads as plainly as possible.
  std::vector<std::string> tags;
  if (tf32) tags.push_back("tf32");
  if (l2 == L2Mode::warm) tags.push_back("l2warm");
  if (spmv_kernel != SpmvKernelChoice::automatic) tags.push_back(to_string(spmv_kernel));
  return tags;
}

std::string CaseSpec::id() const {
  std::string id = to_string(op) + "/" + backend + "/" + to_string(dtype) + "/" + shape.label(op);
  if (timing == TimingMode::e2e) id += "/" + to_string(timing);
  for (const auto& tag : variant_tags()) id += "/" + tag;
  return id;
}

bool same_case_apart_from_backend(const CaseSpec& a, const CaseSpec& b) {
  CaseSpec b_on_a = b;
  b_on_a.backend = a.backend;
  return a.id() == b_on_a.id();
}

std::string to_string(PhaseKind kind) { return kPhaseNames[static_cast<std::size_t>(kind)]; }

const std::vector<PhaseKind>& all_phase_kinds() {
  static const std::vector<PhaseKind> kinds{PhaseKind::h2d, PhaseKind::op, PhaseKind::d2h};
  return kinds;
}

std::string to_string(StopReason reason) { return kStopReasonNames[static_cast<std::size_t>(reason)]; }

const std::vector<StopReason>& all_stop_reasons() {
  static const std::vector<StopReason> reasons{StopReason::converged, StopReason::max_time, StopReason::max_samples};
  return reasons;
}

std::string to_string(const StopReasons& reasons) {
  std::string text;
  for (StopReason reason : all_stop_reasons())
    if (reasons.contains(reason)) text += (text.empty() ? "" : "+") + to_string(reason);
  return text;
}

std::string to_string(RooflineBound bound) { return bound == RooflineBound::memory ? "memory" : "compute"; }

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

}  // namespace gpb
