// Facts about the machine this process runs on, each asked in one place.
#pragma once

#include <cstdint>
#include <string>

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

// Whether an address-space limit (RLIMIT_AS, `ulimit -v`) applies to this process.
bool address_space_is_limited();

// The part of address_space_headroom_bytes() that new threads' stacks may take: half, so
// that the data of the run has the other half.
std::uint64_t thread_share_of_headroom_bytes();

// How many of `wanted` threads fit the address-space limit (ulimit -v), `running` of them
// being there already: all of them without a limit, else those whose stacks fit the threads'
// share of what is left (an allocation that later finds no room fails on its own, as one
// line); at least 1.
int threads_that_fit(int wanted, int running);

// Under an address-space limit, starts OpenMP's threads for a team of `threads` now (an empty
// parallel region; libgomp keeps them for later regions of this thread), while the room they
// were counted against is still there: a region that started them later, after the run had
// mapped its data, could find none, and libgomp ends the process when it cannot start a
// thread. Without a limit it does nothing (threads start with the first region, as usual).
void start_openmp_threads(int threads);

// Makes the count of threads OpenMP's parallel regions use, until a case sets its own, the
// cores whose stacks fit (threads_that_fit), and starts them (start_openmp_threads). Returns
// the count.
int limit_openmp_threads_to_fit();

// The host memory this process may allocate: physical memory, or less where its address-space
// limit leaves less; 0 when the system does not say.
double allocatable_memory_bytes();

// The level-3 cache of the machine in bytes: each L3 instance the kernel lists under
// `cpu_root` (cpu*/cache/index*/, level 3) counted once (by the CPUs that share it); where it
// lists none, the C library's figure (sysconf, which on some AMD guests reports the host's
// L3 rather than the guest's); 0 when neither says.
std::int64_t level3_cache_bytes(const std::string& cpu_root = "/sys/devices/system/cpu");

}  // namespace gpb
