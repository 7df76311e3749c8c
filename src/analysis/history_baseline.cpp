#include "analysis/history_baseline.hpp"

#include <algorithm>
#include <map>

#include "store/database_url.hpp"
#include "store/result_store.hpp"

namespace gpb {
namespace {

// The pooled baseline described in history_baseline.hpp.
LoadedReport pooled_baseline(const store::HistoryBaselineSpec& spec, store::ResultStore& store, const Context& current,
                             bool allow_interrupted) {
  store::RunFilter filter;
  filter.tags = spec.tags;
  filter.machine = store::machine_of(current);
  filter.exact_machine = true;
  auto runs = store.runs(filter);
  // An interrupted run's missing cases are no evidence: left out unless asked for.
  const auto interrupted = std::count_if(runs.begin(), runs.end(), [](const store::RunInfo& run) { return run.interrupted; });
  if (!allow_interrupted)
    runs.erase(std::remove_if(runs.begin(), runs.end(), [](const store::RunInfo& run) { return run.interrupted; }), runs.end());
  const std::string left_out = interrupted > 0 && !allow_interrupted
                                   ? std::to_string(interrupted) + " interrupted run" + (interrupted == 1 ? "" : "s") +
                                         " left out (--allow-interrupted includes them)"
                                   : "";
  if (runs.empty()) {
    const std::string what = "database '" + spec.database.shown + "' holds no stored run on this machine (" +
                             filter.machine + ")" + (spec.tags.empty() ? "" : " with " + store::join_tags(spec.tags, ", "));
    // Runs that are there but were left out (interrupted) are a choice to make, not an empty history.
    if (!left_out.empty()) throw UsageError(what + "; " + left_out);
    throw NoHistoryError(what);
  }
  const store::RunInfo& newest = runs.back();

  struct Pooled {
    std::vector<double> medians;
    std::int64_t run_id = 0, result_index = 0;  // the newest record, the pooled record's template
  };
  std::map<std::string, Pooled> by_case;
  std::vector<std::pair<std::string, std::int64_t>> newest_cases;  // case id, result index in the newest run
  const auto results = store.results(runs);
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
  report.context = store.context(newest.id);
  std::size_t most_runs = 0;
  for (const auto& [case_id, result_index] : newest_cases) {
    const auto found = by_case.find(case_id);
    if (found == by_case.end()) {  // never measured: the newest record says why
      report.results.push_back(store.record(newest.id, result_index));
      continue;
    }
    Pooled& pooled = found->second;
    if (pooled.medians.size() > spec.last)
      pooled.medians.erase(pooled.medians.begin(), pooled.medians.end() - static_cast<std::ptrdiff_t>(spec.last));
    most_runs = std::max(most_runs, pooled.medians.size());
    ResultRecord record = store.record(pooled.run_id, pooled.result_index);
    record.samples_s = pooled.medians;
    record.host_samples_s.clear();
    record.phases.clear();
    finalize_record(record);
    report.results.push_back(std::move(record));
  }
  // compare names the baseline by its git SHA: here, the runs it pools.
  report.context.git_sha = "medians of up to " + std::to_string(most_runs) + " runs through " + newest.label() +
                           (left_out.empty() ? "" : "; " + left_out);
  report.context.notes.push_back("baseline from " + spec.database.shown + ": each case's medians over its last " +
                                 std::to_string(spec.last) + " runs on this machine" +
                                 (spec.tags.empty() ? "" : " with " + store::join_tags(spec.tags, ", ")));
  return report;
}

}  // namespace

Baseline Baseline::open(const std::string& baseline, bool history_may_be_missing) {
  Baseline opened;
  if (store::is_history_baseline(baseline)) {
    opened.history_ = store::parse_history_baseline(baseline);
    try {
      opened.store_ = store::ResultStore::open(opened.history_.database, store::OpenMode::read);
    } catch (const NoHistoryError&) {
      if (!history_may_be_missing) throw;
    }
  } else {
    opened.file_ = read_json_report(baseline);
  }
  return opened;
}

LoadedReport Baseline::report_for(const Context& current, bool allow_interrupted) const {
  if (file_) return *file_;
  // A history missing when opened may exist now; if not, opening says so.
  const auto store = store_ ? store_ : store::ResultStore::open(history_.database, store::OpenMode::read);
  return pooled_baseline(history_, *store, current, allow_interrupted);
}

}  // namespace gpb
