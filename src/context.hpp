// The system context that goes into every report.
#pragma once

#include <string>
#include <vector>

#include "result.hpp"

namespace gpb {

// Host facts (hostname, OS, CPU, memory, compiler, library versions, build info).
Context collect_context(const std::vector<std::string>& argv, int threads_used);

// Appends CPU library versions (Eigen, OpenBLAS); provided by cpu_backend/.
void append_cpu_context(Context& context);

// Appends GPU facts; provided by gpu_backend/ (or its stand-in, which adds nothing).
void append_gpu_context(Context& context);

}  // namespace gpb
