// Facts about the machine this process runs on, each asked in one place.
#pragma once

#include <cstdint>

namespace gpb {

// CPU cores this process may run on: its affinity mask (taskset, a cgroup cpuset), not
// every core the machine has. "0 threads" means this many everywhere. At least 1.
int usable_cores();

// Worker threads for a requested count: 0 means usable_cores(), anything else itself.
int worker_threads(int requested);

// The machine's physical memory in bytes; 0 when the system does not say.
double physical_memory_bytes();

// Address space this process may still map under its limit (RLIMIT_AS, `ulimit -v`): the
// limit less what it maps now; the largest std::uint64_t where there is no limit. Threads
// count in it (each maps its stack and a malloc arena), as allocations do.
std::uint64_t address_space_headroom_bytes();

// Address space a new thread maps for its stack (the process's default thread stack size,
// which follows `ulimit -s`), and a mebibyte for its guard page and thread-local data.
std::uint64_t thread_address_space_bytes();

// How many of `wanted` threads fit the address-space limit (ulimit -v), `running` of them
// being there already: all of them without a limit, else those whose stacks fit what is left
// (an allocation that later finds no room fails on its own, as one line); at least 1.
int threads_that_fit(int wanted, int running);

// Makes the count of threads OpenMP's parallel regions use, until a case sets its own, the
// cores whose stacks fit (threads_that_fit): OpenMP ends the process when it cannot start a
// thread. Returns the count.
int limit_openmp_threads_to_fit();

// The host memory this process may allocate: physical memory, or less where its address-space
// limit leaves less; 0 when the system does not say.
double allocatable_memory_bytes();

}  // namespace gpb
