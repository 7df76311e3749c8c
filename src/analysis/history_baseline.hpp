// A compare baseline from the results store: `--baseline db:URL[?branch=main&last=N]`.
//
// Each case's baseline is the medians of its last N runs on the current report's machine
// (among the runs carrying the given tags; N = 10 by default), one value per run, in place
// of one report's samples. Between two processes a case's median moves (memory placement,
// clocks, a neighbour's load) while the samples within each stay tight; pooling the samples
// of N runs would bury that movement under thousands of tight samples and give a narrow,
// overconfident baseline. N run medians are N draws of exactly that movement: their spread
// is the baseline's spread, so a current run inside the usual drift is `same`, and one
// beyond every recent run by more than the threshold is `slower`. (Fewer than 6 runs cannot
// bound a median: such a case is `same (noisy)` until the history is long enough.)
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "model/record_format.hpp"
#include "store/database_url.hpp"

namespace gpb {

namespace store {
class ResultStore;
}

// A compare baseline as given (`--baseline`, `compare BASELINE`), decided once: a report file,
// read when the baseline is opened, or a "db:" history, whose database is opened (and
// checked to hold a history) then and pooled for the current report's machine when compared.
class Baseline {
 public:
  // UsageError when the file cannot be read; NoHistoryError when the database does not exist
  // yet, is empty or holds no gpubench schema, unless `history_may_be_missing` (a run, which
  // measures and stores first): report_for says it then.
  static Baseline open(const std::string& baseline, bool history_may_be_missing = false);

  // The report to compare against: the file's, or the history pooled for `current`'s machine.
  // Stored runs of interrupted runs are left out unless allow_interrupted (the error when
  // nothing is left says how many it left out). NoHistoryError when the store holds no
  // history yet, or no run of that machine with the tags asked for.
  LoadedReport report_for(const Context& current, bool allow_interrupted) const;

  // The file's report, known before anything is measured; null for a history.
  const LoadedReport* file() const { return file_ ? &*file_ : nullptr; }

 private:
  std::optional<LoadedReport> file_;
  store::HistoryBaselineSpec history_;
  std::shared_ptr<store::ResultStore> store_;  // a history's database, open from the start
};

}  // namespace gpb
