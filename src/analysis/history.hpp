// Histories of cases over stored runs: each case on each machine, its usable run medians
// in run order, the change points found in them, and whether the newest runs form a
// slower segment (`gpubench history check`).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/changepoint.hpp"
#include "base/case_selection.hpp"
#include "store/result_store.hpp"

namespace gpb::history {

struct HistoryPoint {
  store::RunInfo run;
  std::int64_t result_index = 0;
  double median_s = 0, ci_low_s = 0, ci_high_s = 0;
  std::int64_t samples = 0;
  // GPUBENCH_TEST_SLOWDOWN's factor when the run was measured with it ("5", "1.03"; the
  // context's settings.test_slowdown), else "": a planted slowdown, not a measurement.
  std::string test_slowdown;
};

struct CaseHistory {
  std::string case_id, machine;
  Op op = Op::sin;
  double threshold = 0;              // from the newest run's suite, or --threshold
  std::vector<HistoryPoint> points;  // runs where the case ran and verified, oldest first
  ChangePointAnalysis analysis;      // indices into points
};

struct HistoryQuery {
  store::RunFilter runs;
  std::vector<std::string> cases;            // empty: every case
  std::size_t last = 0;                      // only the newest runs of each case; 0: all
  std::optional<double> threshold;           // replaces the suites' global threshold
  ChangePointOptions detection;              // min_relative_change is set per case to its threshold
};

// One history per case and machine, ordered by case id then machine. A case named in the
// query that the store does not hold (under the filter) is a UsageError.
std::vector<CaseHistory> load_histories(store::ResultStore& store, const HistoryQuery& query);

// UsageError for the first --case word of `selection` that picked nothing: the filter matched no
// run (`any_run` false), a pattern matched no stored case, or the stored case nearest an id.
// `stored`: the case ids of the runs selected.
void refuse_unmatched_cases(const CaseSelection& selection, const std::set<std::string>& stored, bool any_run,
                            const std::string& database);

// The newest segment, where it starts at a change point and is slower than the segment
// before by more than the case's threshold.
struct Regression {
  const CaseHistory* history = nullptr;
  ChangePoint change;
  const Segment* before = nullptr;
  const Segment* after = nullptr;
  const HistoryPoint& first() const { return history->points[change.index]; }
};
std::optional<Regression> newest_regression(const CaseHistory& history);

}  // namespace gpb::history
