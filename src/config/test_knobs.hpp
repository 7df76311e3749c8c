// The test knobs: environment variables that only gpubench's own tests set, each read once
// here and handed to the runner or the store as a hook, so that neither measures nor stores
// differently for it and no knob sits in a timed region.
//
// GPUBENCH_TEST_SLOWDOWN=<factor> (a whole number, 1 to 100): every op, on every backend,
// does its work `factor` times per run -- a real slowdown of known size whatever the
// machine's load, so that an A/B test can prove that compare (and history check) catch it.
// The context records it (settings.test_slowdown and a note).
//
// GPUBENCH_TEST_INGEST_PAUSE_FILE=<path>: halfway through storing a run's records (inside
// the store's transaction, where the kill-during-ingest and signal tests need it) or, with
// GPUBENCH_TEST_INGEST_PAUSE_AT=commit, just after the commit, the store creates that file,
// holding this process's id, and waits there (at most a minute) for a signal.
#pragma once

#include <functional>
#include <memory>

#include "measure/backend.hpp"
#include "model/result.hpp"
#include "store/result_store.hpp"

namespace gpb {

// GPUBENCH_TEST_SLOWDOWN, or 1 when it is unset; UsageError for anything but 1 to 100.
int test_slowdown_factor();

// The runner hook (RunnerHooks::wrap_prepared) of a slowdown factor above 1: each prepared
// case runs its op `factor` times per run().
std::function<std::unique_ptr<Prepared>(std::unique_ptr<Prepared>)> slowdown_hook(int factor);

// Says in the context that a run was slowed down: settings.test_slowdown and a note.
void record_slowdown(int factor, Context& context);

// The store's ingest pauses of GPUBENCH_TEST_INGEST_PAUSE_FILE and _AT; none when unset.
store::IngestPauses ingest_pauses();

}  // namespace gpb
