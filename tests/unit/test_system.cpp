// Machine facts asked in one place: usable cores follow the CPU affinity mask.
#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

#include "base/system.hpp"

namespace gpb {
namespace {

TEST(System, UsableCoresFollowTheAffinityMask) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  EXPECT_EQ(usable_cores(), CPU_COUNT(&mask));
  int first = 0;
  while (!CPU_ISSET(first, &mask)) ++first;
  // A thread pinned to one CPU, as `taskset -c N` pins a process: one usable core there.
  int pinned_cores = 0;
  std::thread pinned([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0) pinned_cores = usable_cores();
  });
  pinned.join();
  EXPECT_EQ(pinned_cores, 1);
}

TEST(System, ZeroThreadsMeansEveryUsableCore) {
  EXPECT_EQ(worker_threads(0), usable_cores());
  EXPECT_EQ(worker_threads(3), 3);
}

TEST(System, PhysicalMemoryIsKnownHere) { EXPECT_GT(physical_memory_bytes(), 1 << 20); }

}  // namespace
}  // namespace gpb
