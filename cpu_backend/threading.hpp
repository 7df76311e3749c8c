// Worker-thread control for the CPU backends: one count applied to the threading layers
// every case uses (OpenMP loops, Eigen); the openblas backend applies it to OpenBLAS too
// (start_openblas_threads), so that no other case starts OpenBLAS's threads.
#pragma once

namespace gpb {

// The thread count for a request: 0 means every core this process may run on.
// Throws UsageError for a negative request.
int resolve_thread_count(int requested);

// Resolves the count and applies it to OpenMP and Eigen; returns it. Called from prepare,
// never in a timed region.
int apply_thread_count(int requested);

}  // namespace gpb
