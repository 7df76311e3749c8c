// The runner: for each case, prepare (untimed), warm up, take samples until the
// stopping rule holds, verify, and fill in a ResultRecord.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "plan.hpp"
#include "result.hpp"
#include "statistics.hpp"

namespace gpb {

struct RunnerOptions {
  int warmup = 3;
  StoppingRule stopping;
  // Samples shorter than this are measured as batches of launches so that timer
  // resolution and launch overhead do not dominate; the batch size is recorded.
  double min_sample_s = 20e-6;
  int device = 0;              // CUDA device ordinal for GPU backends
  bool profile = false;        // profiler session: few warm-ups and samples, capture markers
  bool progress = false;       // progress lines on stderr
};

// Runs every case of the plan, in order, against the given backends.
// Problems are built once per (op, dtype, shape, seed) and shared by the backends.
std::vector<ResultRecord> run_plan(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends,
                                   const RunnerOptions& options);

// Runs one case on an already-built problem (used by run_plan and by tests).
ResultRecord run_case(const CaseSpec& spec, const Problem& problem, Backend& backend,
                      const RunnerOptions& options);

}  // namespace gpb
