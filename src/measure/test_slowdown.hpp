// GPUBENCH_TEST_SLOWDOWN=<factor> (a whole number, 1 to 100): a test-only knob that makes
// every op, on every backend, do its work `factor` times per timed launch: a real slowdown
// of known size whatever the machine's load, so that an A/B test can prove that compare
// (and history check) catch it. Unset: 1. The context records it (settings.test_slowdown and
// a note). UsageError for anything else.
#pragma once

namespace gpb {

int test_slowdown_factor();

}  // namespace gpb
