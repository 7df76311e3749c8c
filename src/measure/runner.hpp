// The runner: for each case, prepare (untimed), warm up, take samples until the stopping
// rule holds, verify, and fill in a ResultRecord. How samples are taken is a strategy,
// chosen once per case (runner.cpp): single cold launches from an evicted L2, batches of
// launches, or end to end with the transfers, as nvbench splits measure_cold and
// measure_hot.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "measure/backend.hpp"
#include "measure/telemetry_sampler.hpp"
#include "model/result.hpp"
#include "model/statistics.hpp"

namespace gpb {

// The cases of a run, in the order they run (config/plan.hpp builds it).
struct Plan {
  std::vector<CaseSpec> cases;
  std::vector<std::string> notes;  // e.g. "backend cuda skipped: no CUDA device", once each
  // Regression thresholds from a suite (compare uses them): "*", op name or case id.
  std::map<std::string, double> thresholds;
};

// Whether a case of the plan runs on a backend of that kind.
bool plan_uses(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends, DeviceKind kind);

// What the runner tells whoever watches a run: its start, each case as it starts, and its
// end. The runner formats nothing; the command line's progress line is one observer
// (cli/progress.*).
struct CaseStart {
  const CaseSpec& spec;
  std::size_t done = 0;   // case runs finished so far, over every pass
  std::size_t total = 0;  // case runs in the whole run: cases times passes
  int pass = 0;           // 0-based
  int passes = 1;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void run_started() = 0;
  virtual void case_started(const CaseStart& start) = 0;
  virtual void run_finished() = 0;
};

// Where a caller steps into a run, each outside the timed regions: the runner calls them
// between cases or while preparing one, never while it times anything.
struct RunnerHooks {
  // Called before every case of every pass, once its inputs exist: where processes or
  // device workers that start each case together wait for each other. Empty: no wait.
  std::function<void()> before_case;
  // Builds a case's inputs; empty: make_problem. Device workers running one plan share them.
  std::function<std::shared_ptr<const Problem>(const CaseSpec&)> problem_source;
  // Replaces each prepared case before it is measured, say by one that does its work
  // several times per run (the command line's test slowdown). Empty: the case as prepared.
  std::function<std::unique_ptr<Prepared>(std::unique_ptr<Prepared>)> wrap_prepared;
  // Every sample times a multiple of this many launches, in every timing mode (1: as the
  // mode chooses). A fractional test slowdown needs 100, so that each sample carries its
  // fraction exactly.
  std::int64_t batch_multiple = 1;
};

struct RunnerOptions {
  int warmup = 3;
  StoppingRule stopping;
  // Samples shorter than this are measured as batches of launches so that timer
  // resolution and launch overhead do not dominate; the batch size is recorded.
  double min_sample_s = 20e-6;
  int device = 0;              // CUDA device ordinal for GPU backends
  // Passes over the whole plan. Samples taken in one stretch share the machine's state
  // of that moment (memory placement, a neighbour's load); several passes, each with an
  // equal share of the stopping budget and fresh allocations, let that variation show
  // in a case's spread instead of shifting its median between runs.
  int repetitions = 1;
  bool profile = false;        // profiler session: few warm-ups and samples, capture markers
  // Energy per op from the device's counter; false (--no-energy): each record's energy says
  // it was not measured, and no case is lengthened to the counter's window.
  bool energy = true;
  TelemetryOptions telemetry;  // sampling period, throttle threshold and discarding, soak
  RunObserver* observer = nullptr;  // told of each case as it starts; may be null
  RunnerHooks hooks;
};

// Runs every case of the plan, in order, against the given backends.
// Problems are built once per (op, dtype, shape, seed) and shared by the backends.
// After SIGINT/SIGTERM (base/interrupt.hpp) it stops after the current sample and returns the
// cases that finished a pass, with the samples of the passes they finished; the case
// that was running is left out.
std::vector<ResultRecord> run_plan(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends,
                                   const RunnerOptions& options);

// Cases with the same key run on the same inputs: (op, dtype, shape, seed, data).
std::string inputs_key(const CaseSpec& spec);

// Merges the records of one case from several passes: samples concatenated, statistics
// and throughput recomputed; a failed or skipped pass decides the case.
ResultRecord merge_passes(std::vector<ResultRecord> passes);

// Runs one case on an already-built problem (used by run_plan and by tests).
ResultRecord run_case(const CaseSpec& spec, const Problem& problem, Backend& backend,
                      const RunnerOptions& options);

}  // namespace gpb
