// Sequential re-measurement: settling the cases a comparison left inconclusive by measuring
// them again and pooling the new samples with the old, round by round, until every case is
// decided at the chosen error rate or the rounds or the time run out. `run --baseline
// --resolve N` re-measures the current side (the baseline is a file); `gpubench ab`
// re-measures both sides, in turn. Each comparison along the way is a look at growing
// samples, so alpha is spent over the looks the limits allow (CompareOptions::looks and
// look, compare.hpp's alpha_at_look): the whole sequence keeps the error rate of one
// comparison. A case is re-measured while it is inconclusive or a noisy same whose ratio
// bounds still reach beyond the threshold (unsettled_same); such a same left when the budget
// is spent is called inconclusive. pool_round records each round's share of the samples
// (ResultRecord::round_sizes), so that where both sides were re-measured in the same rounds
// compare stratifies its rank test by round.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "model/record_format.hpp"

namespace gpb {

struct ResolveLimits {
  int max_rounds = 0;  // rounds of re-measurement after the first comparison
  double max_seconds = std::numeric_limits<double>::infinity();  // no round starts after this much time
};

// The looks a sequential re-measurement within these limits may take: the first comparison
// and one after each round.
inline int resolve_looks(const ResolveLimits& limits) { return limits.max_rounds + 1; }

// Measures the cases with these ids on one side again: this round's records, one per case
// and device, to pool with the earlier ones.
using Remeasure = std::function<std::vector<ResultRecord>(const std::vector<std::string>& case_ids)>;

struct ResolveRound {
  int round = 0;                      // 0 (the first comparison), 1, 2, ...
  std::vector<std::string> case_ids;  // the cases re-measured (round 0: every case compared)
  double seconds = 0;                 // how long the round took (round 0: 0, nothing was measured here)
  VerdictCounts counts;               // after pooling its samples
};

// Compares with options.looks = resolve_looks(limits) at look 1, then runs up to max_rounds
// rounds, round r comparing at look r + 1: each re-measures the undecided cases (inconclusive
// or unsettled_same; on the baseline side too where
// remeasure_baseline is given: after the current side in odd rounds, before it in even ones,
// so that a drift of the machine falls on both sides alike), pools the new records into the
// reports (pool_round) and compares again. Stops once no case is undecided, the rounds or
// the time are used up, or SIGINT/SIGTERM asks (base/interrupt.hpp). on_round, where given,
// hears of each look once: round 0, the first comparison, then each round of re-measurement
// (a caller that wants the first comparison's counts takes them there rather than comparing
// the reports again). Returns the last comparison, where max_rounds > 0 with its unsettled
// same cases called inconclusive (settle_unsettled_same).
Comparison resolve_comparison(LoadedReport& baseline, LoadedReport& current, CompareOptions options,
                              const ResolveLimits& limits, const Remeasure& remeasure_current,
                              const Remeasure& remeasure_baseline = {},
                              const std::function<void(const ResolveRound&)>& on_round = {});

// Pools a round's records into a report's: each merged (measure/runner.hpp's merge_passes)
// with the record of the same case and device, its resolve_rounds set to `round` and the
// round's sample count appended to its round_sizes (the earlier samples one round where it
// had none); a record of a case the report lacks is added.
void pool_round(std::vector<ResultRecord>& records, std::vector<ResultRecord> round_records, int round);

}  // namespace gpb
