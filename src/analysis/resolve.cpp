#include "analysis/resolve.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include "analysis/device_match.hpp"
#include "base/interrupt.hpp"
#include "measure/runner.hpp"

namespace gpb {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> inconclusive_ids(const Comparison& comparison) {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const CaseComparison& c : comparison.cases)
    if (c.verdict == Verdict::inconclusive && seen.insert(c.id).second) ids.push_back(c.id);
  return ids;
}

}  // namespace

void pool_round(std::vector<ResultRecord>& records, std::vector<ResultRecord> round_records, int round) {
  for (ResultRecord& fresh : round_records) {
    const std::string device = device_key(fresh, DeviceMatch::uuid);
    auto earlier = std::find_if(records.begin(), records.end(), [&](const ResultRecord& record) {
      return record.spec.id() == fresh.spec.id() && device_key(record, DeviceMatch::uuid) == device;
    });
    if (earlier == records.end()) {
      fresh.resolve_rounds = round;
      records.push_back(std::move(fresh));
      continue;
    }
    std::vector<ResultRecord> passes;
    passes.push_back(std::move(*earlier));
    passes.push_back(std::move(fresh));
    *earlier = merge_passes(std::move(passes));
    earlier->resolve_rounds = round;
  }
}

Comparison resolve_comparison(LoadedReport& baseline, LoadedReport& current, CompareOptions options,
                              const ResolveLimits& limits, const Remeasure& remeasure_current,
                              const Remeasure& remeasure_baseline, const std::function<void(const ResolveRound&)>& on_round) {
  options.looks = resolve_looks(limits);
  Comparison comparison = compare_reports(baseline, current, options);
  const auto start = Clock::now();
  for (int round = 1; round <= limits.max_rounds && !interrupt_requested(); ++round) {
    if (std::chrono::duration<double>(Clock::now() - start).count() >= limits.max_seconds) break;
    const std::vector<std::string> ids = inconclusive_ids(comparison);
    if (ids.empty()) break;
    const auto round_start = Clock::now();
    const bool baseline_first = round % 2 == 0;
    if (remeasure_baseline && baseline_first) pool_round(baseline.results, remeasure_baseline(ids), round);
    pool_round(current.results, remeasure_current(ids), round);
    if (remeasure_baseline && !baseline_first) pool_round(baseline.results, remeasure_baseline(ids), round);
    // A round cut short by a signal pooled what it finished; the comparison stands as it was.
    if (interrupt_requested()) break;
    comparison = compare_reports(baseline, current, options);
    if (on_round)
      on_round({round, ids, std::chrono::duration<double>(Clock::now() - round_start).count(), comparison.counts});
  }
  return comparison;
}

}  // namespace gpb
