// Worker-thread control for the CPU backends: one count applied to the threading layers
// every case uses (OpenMP loops, Eigen); the openblas backend applies it to OpenBLAS too
// (start_openblas_threads), so that no other case starts OpenBLAS's threads. And how
// OpenMP's idle threads wait.
#pragma once

#include <string>

namespace gpb {

// The thread count for a request: 0 means every core this process may run on.
// Throws UsageError for a negative request.
int resolve_thread_count(int requested);

// Resolves the count and applies it to OpenMP and Eigen; returns it. Called from prepare,
// never in a timed region.
int apply_thread_count(int requested);

// How OpenMP's threads wait between and at the end of parallel regions, as the OpenMP
// runtime read it when the program started: "passive" (gpubench's default: they sleep),
// "active" (they spin), "unset" (libgomp's default: spin for about 3 ms, then sleep), with
// ", GOMP_SPINCOUNT=N" where that is set. Spinning burns the time slice that a descheduled
// partner thread needs on a machine whose cores are all busy: a 1M f64 sum on two threads of
// a 2-core VM went from 0.1 ms to 8-40 ms under load. So unless OMP_WAIT_POLICY or
// GOMP_SPINCOUNT is set in the environment, the program restarts itself before anything runs
// with OMP_WAIT_POLICY=passive (threading.cpp says how); where that fails, the text says why.
// docs/ci.md, "CPU threads under load", has the measurements.
std::string openmp_wait_policy();

// Restarts the program image with OMP_WAIT_POLICY=passive unless the environment sets
// OMP_WAIT_POLICY or GOMP_SPINCOUNT (threading.cpp says why this way). Called from an
// executable's .preinit_array (program_start.cpp), which a shared object such as the
// Python module cannot have: a process that loads the core as a library keeps its
// environment's policy, and openmp_wait_policy() says which.
void start_with_passive_waiting(int argc, char** argv, char** environment);

}  // namespace gpb
