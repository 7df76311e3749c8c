#include "analysis/history.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/text.hpp"
#include "model/threshold.hpp"

namespace gpb {
namespace history {

void refuse_unmatched_cases(const CaseSelection& selection, const std::set<std::string>& stored, bool any_run,
                            const std::string& database) {
  for (const std::string& name : selection.unmatched()) {
    const std::string head = "database '" + database + "' holds no run of ";
    const std::string listed = std::to_string(stored.size()) + " cases stored; gpubench history export lists them";
    if (!any_run) throw UsageError(head + "case " + name + " (no run matches the filter)");
    if (selection.is_pattern(name)) throw UsageError(head + "a case matching " + name + " (" + listed + ")");
    const std::string nearest = nearest_word(name, {stored.begin(), stored.end()});
    throw UsageError(head + "case " + name + " (" + (nearest.empty() ? listed : "did you mean " + nearest + "?") + ")");
  }
}

std::vector<CaseHistory> load_histories(store::ResultStore& store, const HistoryQuery& query) {
  const std::vector<store::RunInfo> runs = store.runs(query.runs);
  std::map<std::int64_t, const store::RunInfo*> run_by_id;
  for (const auto& run : runs) run_by_id[run.id] = &run;
  // One case asked for by its id: only its results are read. With a pattern among the cases,
  // every stored id is read first, so that an id holding a '*' stays that id.
  const bool any_pattern = std::any_of(query.cases.begin(), query.cases.end(), CaseSelection::looks_like_pattern);
  const std::string only_case = query.cases.size() == 1 && !any_pattern ? query.cases.front() : "";
  const std::vector<store::StoredResult> results = store.results(runs, only_case);
  std::set<std::string> stored;
  if (any_pattern)
    for (const store::StoredResult& result : results) stored.insert(result.case_id);
  CaseSelection selection(query.cases, stored);

  std::map<std::pair<std::string, std::string>, CaseHistory> by_key;
  std::map<std::string, std::int64_t> newest_run_of_machine;
  for (const store::StoredResult& result : results) {
    if (!selection.empty() && !selection.picks(result.case_id)) continue;
    const store::RunInfo& run = *run_by_id.at(result.run_id);
    newest_run_of_machine[run.machine] = run.id;  // results come in run order
    CaseHistory& history = by_key[{result.case_id, run.machine}];
    history.case_id = result.case_id;
    history.machine = run.machine;
    history.op = parse_recorded_op(result.op);
    if (!result.verified || !(result.median_s > 0)) continue;
    history.points.push_back({run, result.result_index, result.median_s, result.median_ci_low_s,
                              result.median_ci_high_s, result.samples, ""});
  }
  if (!selection.unmatched().empty()) {
    // The stored cases, to name the nearest: read only on this path when the query above read
    // one case's results.
    if (stored.empty())
      for (const store::StoredResult& result : store.results(runs, "")) stored.insert(result.case_id);
    refuse_unmatched_cases(selection, stored, !runs.empty(), store.shown());
  }

  std::map<std::string, Context> newest_context;
  for (const auto& [machine, run_id] : newest_run_of_machine) newest_context[machine] = store.context(run_id);

  std::vector<CaseHistory> histories;
  std::map<std::int64_t, std::string> slowdown_of_run;  // run id -> its test_slowdown setting, read once per run
  for (auto& [key, history] : by_key) {
    if (query.last > 0 && history.points.size() > query.last)
      history.points.erase(history.points.begin(),
                           history.points.end() - static_cast<std::ptrdiff_t>(query.last));
    history.threshold =
        case_threshold(newest_context.at(history.machine).thresholds, history.op, history.case_id, query.threshold);
    for (HistoryPoint& point : history.points) {
      auto known = slowdown_of_run.find(point.run.id);
      if (known == slowdown_of_run.end()) {
        const Context context = store.context(point.run.id);
        const auto setting = context.settings.find("test_slowdown");
        known = slowdown_of_run.emplace(point.run.id, setting == context.settings.end() ? "" : to_string(setting->second)).first;
      }
      point.test_slowdown = known->second;
    }
    std::vector<double> medians;
    for (const HistoryPoint& point : history.points) medians.push_back(point.median_s);
    ChangePointOptions detection = query.detection;
    detection.min_relative_change = history.threshold;
    history.analysis = detect_change_points(medians, detection);
    histories.push_back(std::move(history));
  }
  return histories;
}

std::optional<Regression> newest_regression(const CaseHistory& history) {
  const auto& analysis = history.analysis;
  if (analysis.change_points.empty()) return std::nullopt;
  const ChangePoint& last = analysis.change_points.back();
  if (!(last.change > history.threshold)) return std::nullopt;
  const std::size_t segments = analysis.segments.size();
  return Regression{&history, last, &analysis.segments[segments - 2], &analysis.segments[segments - 1]};
}

}  // namespace history
}  // namespace gpb
