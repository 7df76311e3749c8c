// The system context that goes into every report.
#pragma once

#include <string>
#include <vector>

#include "model/result.hpp"

namespace gpb {

// Now, as ISO 8601 UTC to the second: "2024-11-21T05:00:00Z".
std::string utc_timestamp();

// Host facts (hostname, OS, CPU, memory, compiler, library versions, build info).
Context collect_context(const std::vector<std::string>& argv, int threads_used);

// Appends CPU library versions (Eigen, OpenBLAS); provided by cpu_backend/.
void append_cpu_context(Context& context);

// Appends GPU facts; provided by gpu_backend/ (or its stand-in, which adds nothing).
void append_gpu_context(Context& context);

// How many CUDA devices this process sees: 0 without one and in a build without CUDA.
// Provided by gpu_backend/ (or its stand-in).
int visible_gpu_count();

// Roofline ceilings, measured once per run outside any timed case (well under a second).
// The host's copy bandwidth with `threads` OpenMP threads over buffers well beyond the
// last-level cache, in GB/s counting bytes read + written; 0 (not measured) when the memory
// this process may allocate cannot hold such buffers within an eighth of it, or they cannot
// be allocated. Provided by cpu_backend/.
double measure_cpu_copy_gbps(int threads);
// Fills the theoretical peaks of every GPU in context.gpus and measures the copy bandwidth
// of device `device` (a note says why when it cannot). Provided by gpu_backend/ (or its
// stand-in, which does nothing).
void measure_gpu_ceilings(Context& context, int device);

// What a run on the GPUs `devices` says once about each one's telemetry: that it is
// unavailable and why, or that the clocks are not locked (boost clocks then follow power and
// temperature).
std::vector<std::string> telemetry_notes(const Context& context, const std::vector<int>& devices);

}  // namespace gpb
