#include "analysis/history.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/compare.hpp"
#include "analysis/history_baseline.hpp"
#include "model/statistics.hpp"
#include "store/database_url.hpp"

namespace gpb {
namespace history {

std::vector<CaseHistory> load_histories(store::ResultStore& store, const HistoryQuery& query) {
  const std::vector<store::RunInfo> runs = store.runs(query.runs);
  std::map<std::int64_t, const store::RunInfo*> run_by_id;
  for (const auto& run : runs) run_by_id[run.id] = &run;
  const std::set<std::string> wanted(query.cases.begin(), query.cases.end());

  std::map<std::pair<std::string, std::string>, CaseHistory> by_key;
  std::map<std::string, std::int64_t> newest_run_of_machine;
  std::set<std::string> seen_cases;
  const std::string only_case = query.cases.size() == 1 ? query.cases.front() : "";
  for (const store::StoredResult& result : store.results(runs, only_case)) {
    if (!wanted.empty() && wanted.count(result.case_id) == 0) continue;
    seen_cases.insert(result.case_id);
    const store::RunInfo& run = *run_by_id.at(result.run_id);
    newest_run_of_machine[run.machine] = run.id;  // results come in run order
    CaseHistory& history = by_key[{result.case_id, run.machine}];
    history.case_id = result.case_id;
    history.machine = run.machine;
    history.op = parse_op(result.op);
    if (!result.verified || !(result.median_s > 0)) continue;
    history.points.push_back({run, result.result_index, result.median_s, result.median_ci_low_s,
                              result.median_ci_high_s, result.samples});
  }
  for (const std::string& name : query.cases)
    if (seen_cases.count(name) == 0)
      throw UsageError("database '" + store.shown() + "' holds no run of case " + name +
                       (runs.empty() ? " (no run matches the filter)" : ""));

  std::map<std::string, Context> newest_context;
  for (const auto& [machine, run_id] : newest_run_of_machine) newest_context[machine] = store.context(run_id);

  std::vector<CaseHistory> histories;
  for (auto& [key, history] : by_key) {
    if (query.last > 0 && history.points.size() > query.last)
      history.points.erase(history.points.begin(),
                           history.points.end() - static_cast<std::ptrdiff_t>(query.last));
    history.threshold =
        case_threshold(newest_context.at(history.machine).thresholds, history.op, history.case_id, query.threshold);
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

namespace {

// The pooled baseline described in history_baseline.hpp.
LoadedReport pooled_baseline(const std::string& baseline, const Context& current) {
  const store::HistoryBaselineSpec spec = store::parse_history_baseline(baseline);
  const auto store = store::ResultStore::open(spec.database, store::OpenMode::read);
  store::RunFilter filter;
  filter.tags = spec.tags;
  filter.machine = store::machine_of(current);
  filter.exact_machine = true;
  const auto runs = store->runs(filter);
  if (runs.empty())
    throw UsageError("baseline '" + spec.database.shown + "': no stored run on this machine (" + filter.machine + ")" +
                     (spec.tags.empty() ? "" : " with " + store::join_tags(spec.tags, ", ")));
  const store::RunInfo& newest = runs.back();

  struct Pooled {
    std::vector<double> medians;
    std::int64_t run_id = 0, result_index = 0;  // the newest record, the pooled record's template
  };
  std::map<std::string, Pooled> by_case;
  std::vector<std::pair<std::string, std::int64_t>> newest_cases;  // case id, result index in the newest run
  const auto results = store->results(runs);
  for (const store::StoredResult& result : results)
    if (result.run_id == newest.id) newest_cases.emplace_back(result.case_id, result.result_index);
  for (const store::StoredResult& result : results) {
    if (!result.verified || !(result.median_s > 0)) continue;
    Pooled& pooled = by_case[result.case_id];
    pooled.medians.push_back(result.median_s);
    pooled.run_id = result.run_id;
    pooled.result_index = result.result_index;
  }

  LoadedReport report;
  report.context = store->context(newest.id);
  std::size_t most_runs = 0;
  for (const auto& [case_id, result_index] : newest_cases) {
    const auto found = by_case.find(case_id);
    if (found == by_case.end()) {  // never measured: the newest record says why
      report.results.push_back(store->record(newest.id, result_index));
      continue;
    }
    Pooled& pooled = found->second;
    if (pooled.medians.size() > spec.last)
      pooled.medians.erase(pooled.medians.begin(), pooled.medians.end() - static_cast<std::ptrdiff_t>(spec.last));
    most_runs = std::max(most_runs, pooled.medians.size());
    ResultRecord record = store->record(pooled.run_id, pooled.result_index);
    record.samples_s = pooled.medians;
    record.stats = compute_statistics(record.samples_s);
    record.host_samples_s.clear();
    record.host_stats = {};
    record.phases.clear();
    report.results.push_back(std::move(record));
  }
  // compare names the baseline by its git SHA: here, the runs it pools.
  report.context.git_sha = "medians of up to " + std::to_string(most_runs) + " runs through " + newest.label();
  report.context.notes.push_back("baseline from " + spec.database.shown + ": each case's medians over its last " +
                                 std::to_string(spec.last) + " runs on this machine" +
                                 (spec.tags.empty() ? "" : " with " + store::join_tags(spec.tags, ", ")));
  return report;
}

}  // namespace

LoadedReport read_baseline(const std::string& baseline, const Context& current) {
  return store::is_history_baseline(baseline) ? pooled_baseline(baseline, current) : read_json_report(baseline);
}

void check_baseline_readable(const std::string& baseline) {
  if (!store::is_history_baseline(baseline)) {
    read_json_report(baseline);
    return;
  }
  store::ResultStore::open(store::parse_history_baseline(baseline).database, store::OpenMode::read);
}

}  // namespace gpb
