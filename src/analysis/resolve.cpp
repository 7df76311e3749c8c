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

// The cases not yet decided: inconclusive, or a noisy same whose bounds still reach beyond
// the threshold (unsettled_same).
std::vector<std::string> undecided_ids(const Comparison& comparison) {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const CaseComparison& c : comparison.cases)
    if ((c.verdict == Verdict::inconclusive || unsettled_same(c)) && seen.insert(c.id).second) ids.push_back(c.id);
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
    std::vector<std::size_t> round_sizes = earlier->round_sizes;
    if (round_sizes.empty()) round_sizes.push_back(earlier->samples_s.size());
    round_sizes.push_back(fresh.samples_s.size());
    std::vector<ResultRecord> passes;
    passes.push_back(std::move(*earlier));
    passes.push_back(std::move(fresh));
    *earlier = merge_passes(std::move(passes));
    earlier->resolve_rounds = round;
    earlier->round_sizes = std::move(round_sizes);
  }
}

Comparison resolve_comparison(LoadedReport& baseline, LoadedReport& current, CompareOptions options,
                              const ResolveLimits& limits, const Remeasure& remeasure_current,
                              const Remeasure& remeasure_baseline, const std::function<void(const ResolveRound&)>& on_round) {
  options.looks = resolve_looks(limits);
  options.look = 1;
  const auto start = Clock::now();
  Comparison comparison = compare_reports(baseline, current, options);
  if (on_round) {
    std::vector<std::string> compared;
    std::set<std::string> seen;
    for (const CaseComparison& c : comparison.cases)
      if (seen.insert(c.id).second) compared.push_back(c.id);
    on_round({0, std::move(compared), 0.0, comparison.counts});
  }
  int rounds = 0;
  for (int round = 1; round <= limits.max_rounds && !interrupt_requested(); ++round) {
    if (std::chrono::duration<double>(Clock::now() - start).count() >= limits.max_seconds) break;
    const std::vector<std::string> ids = undecided_ids(comparison);
    if (ids.empty()) break;
    const auto round_start = Clock::now();
    const bool baseline_first = round % 2 == 0;
    if (remeasure_baseline && baseline_first) pool_round(baseline.results, remeasure_baseline(ids), round);
    pool_round(current.results, remeasure_current(ids), round);
    if (remeasure_baseline && !baseline_first) pool_round(baseline.results, remeasure_baseline(ids), round);
    // A round cut short by a signal pooled what it finished; the comparison stands as it was.
    if (interrupt_requested()) break;
    options.look = round + 1;
    comparison = compare_reports(baseline, current, options);
    rounds = round;
    if (on_round)
      on_round({round, ids, std::chrono::duration<double>(Clock::now() - round_start).count(), comparison.counts});
  }
  // The budget is spent (or every case decided): a noisy same that never showed it stayed
  // within the threshold is inconclusive, not same.
  if (limits.max_rounds > 0) settle_unsettled_same(comparison, rounds);
  return comparison;
}

}  // namespace gpb
