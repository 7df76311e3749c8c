// Worker-thread control for the CPU backends: one count applied to every threading layer
// they use (OpenMP loops, Eigen, OpenBLAS).
#pragma once

namespace gpb {

// The thread count for a request: 0 means every core this process may run on.
// Throws UsageError for a negative request.
int resolve_thread_count(int requested);

// Resolves the count and applies it to OpenMP, Eigen and OpenBLAS; returns it. Called from
// prepare, never in a timed region: OpenBLAS may start or resize its thread pool here.
int apply_thread_count(int requested);

}  // namespace gpb
