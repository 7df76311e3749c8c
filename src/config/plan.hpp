// Turning options and suites into the list of cases to run: the plan that the runner
// (measure/runner.hpp) measures.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/run_options.hpp"
#include "measure/backend.hpp"
#include "measure/runner.hpp"
#include "model/result.hpp"
#include "model/types.hpp"

namespace gpb {

struct RunConfig;

// Default sizes when none are given: sin/sqrt/sum 16M elements, matmul 1024 (square),
// spmv 1M rows. With one op, --size is n for elementwise ops and sum, the square size for
// matmul and the row count for generated spmv (unless --rows is given); with several
// ops it is a footprint in elements (matmul n = sqrt(size), spmv rows = size/nnz_per_row).
// `runs`, when given, says whether a backend runs an op and dtype; the cases it refuses are
// left out.
// The sizes of that default, as help shows them: "sin, sqrt and sum 16M elements, matmul
// 1024 (square), spmv 1M rows".
std::string default_sizes_text();

std::vector<CaseSpec> expand_cases(const RunOptions& options, const std::vector<std::string>& backend_names,
                                   const std::function<bool(const std::string&, Op, DType)>& runs = {});

// The plan of a run: chooses the backends of every group and expands its cases. Backends
// named in a group or by --backend run every case (an unsupported one is a skipped row with
// its reason); with none named, every available backend that implements the op and dtype
// runs. Everything that can fail before measuring fails here, as a UsageError: more than
// kMaxCases cases (counted before they are built), a case asked for twice, nothing to run,
// every case skipped (nothing to measure), an unknown or unavailable named backend, GPU flags
// without GPU cases or GPUs to run them (--require-gpu, --device, --devices-serial), a
// generated matrix that cannot be built, inputs that do not fit in memory, an unreadable
// matrix file, an unknown --relative-to backend.
Plan build_plan(const RunConfig& config, std::vector<std::unique_ptr<Backend>>& backends);

// Refuses plans whose host inputs cannot fit in the memory this process may allocate (the
// machine's, or less under ulimit -v; UsageError naming the case), before anything runs.
void check_plan_fits_memory(const Plan& plan);

}  // namespace gpb
