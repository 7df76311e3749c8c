// The test knobs: environment variables that only gpubench's own tests set, each read once
// here and handed to the runner or the store as a hook, so that neither measures nor stores
// differently for it and no knob sits in a timed region.
//
// GPUBENCH_TEST_SLOWDOWN=<factor>: every op, on every backend, does its work `factor` times
// per launch -- a real slowdown of known size whatever the machine's load, so that an A/B
// test can prove that compare (and history check) catch it. The factor is a number from 1 to
// 100 with at most two decimals: "5", or "1.03" for a 3 % slowdown. A fraction is real work
// too: every launch runs the op its whole number of times, and one launch in so many runs it
// once more (3 in 100 for 1.03); so that each sample carries exactly the fraction, a
// fractional factor times samples in batches of a multiple of 100 launches, in every timing
// mode (single cold launches and end-to-end samples included). The context records it
// (settings.test_slowdown and a note).
//
// GPUBENCH_TEST_INGEST_PAUSE_FILE=<path>: halfway through storing a run's records (inside
// the store's transaction, where the kill-during-ingest and signal tests need it) or, with
// GPUBENCH_TEST_INGEST_PAUSE_AT=commit, just after the commit, the store creates that file,
// holding this process's id, and waits there (at most a minute) for a signal.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "measure/backend.hpp"
#include "model/result.hpp"
#include "store/result_store.hpp"

namespace gpb {

struct TestSlowdown {
  int hundredths = 100;  // the factor x 100

  bool active() const { return hundredths != 100; }
  bool fractional() const { return hundredths % 100 != 0; }
  std::string text() const;  // "5", "1.03"
  // RunnerHooks::batch_multiple: 100 for a fractional factor, else 1.
  std::int64_t batch_multiple() const { return fractional() ? 100 : 1; }
};

// The knob's text as a factor: none (nullptr or empty) is 1; UsageError for anything else
// than a number from 1 to 100 with at most two decimals.
TestSlowdown parse_test_slowdown(const char* text);

// GPUBENCH_TEST_SLOWDOWN as this process's environment sets it.
TestSlowdown test_slowdown();

// Runs of the op for each launch in turn: the factor's whole part every launch, and one run
// more whenever the fractions carried so far add up to a whole. Over any 100 consecutive
// launches that is exactly 100 x factor runs.
class SlowdownRuns {
 public:
  explicit SlowdownRuns(const TestSlowdown& slowdown) : whole_(slowdown.hundredths / 100), fraction_(slowdown.hundredths % 100) {}
  int next();

 private:
  int whole_, fraction_, carried_ = 0;
};

// The runner hook (RunnerHooks::wrap_prepared) of an active slowdown: each prepared case runs
// its op as SlowdownRuns says per run(). Empty for a factor of 1.
std::function<std::unique_ptr<Prepared>(std::unique_ptr<Prepared>)> slowdown_hook(const TestSlowdown& slowdown);

// Says in the context that a run was slowed down: settings.test_slowdown and a note.
void record_slowdown(const TestSlowdown& slowdown, Context& context);

// The store's ingest pauses of GPUBENCH_TEST_INGEST_PAUSE_FILE and _AT; none when unset.
store::IngestPauses ingest_pauses();

}  // namespace gpb
