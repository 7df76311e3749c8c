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

#include <string>

#include "model/record_format.hpp"

namespace gpb {

// A baseline report: the JSON file at `baseline`, or a "db:" specification pooled for the
// machine of `current`. UsageError when it cannot be read or the store holds no runs of
// that machine.
LoadedReport read_baseline(const std::string& baseline, const Context& current);

// Checks before a run measures anything that its --baseline can be read: the file parses,
// or the database opens and holds a history.
void check_baseline_readable(const std::string& baseline);

}  // namespace gpb
