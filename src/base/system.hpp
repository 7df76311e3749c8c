// Facts about the machine this process runs on, each asked in one place.
#pragma once

namespace gpb {

// CPU cores this process may run on: its affinity mask (taskset, a cgroup cpuset), not
// every core the machine has. "0 threads" means this many everywhere. At least 1.
int usable_cores();

// Worker threads for a requested count: 0 means usable_cores(), anything else itself.
int worker_threads(int requested);

// The machine's physical memory in bytes; 0 when the system does not say.
double physical_memory_bytes();

}  // namespace gpb
