// What the console and HTML reports show of what an op costs beyond its steady state: the
// run's one-time costs (the CUDA context's creation, module loading, each backend's first
// use), and per case the first call beside the median and the host's cost of issuing one op.
// Internal to src/report/.
#pragma once

#include <string>
#include <vector>

#include "report/report_model.hpp"

namespace gpb::report_model {

// One line per one-time cost of the run ("CUDA context creation on GPU 0: 212 ms", "cublas
// first use: handle creation (cublasCreate) 41.2 ms"); none for a run without GPU cases.
std::vector<std::string> one_time_lines(const Context& context);

// One row per record with a first call: the first call, its ratio to the median, and the
// host cost of issuing the op (median and range, GPU cases); no rows when none has them.
Table costs_table(const std::vector<ResultRecord>& results);
// Its legend; empty when the table has no rows.
std::string costs_footnote(const std::vector<ResultRecord>& results);

}  // namespace gpb::report_model
