// Machine facts asked in one place: usable cores follow the CPU affinity mask;
// OpenMP's threads fit an address-space limit.
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
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
  while (!CPU_ISSET(first, &mask))
    ++first;
  // A thread pinned to one CPU, as `taskset -c N` pins a process: one usable
  // core there.
  int pinned_cores = 0;
  std::thread pinned([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0)
      pinned_cores = usable_cores();
  });
  pinned.join();
  EXPECT_EQ(pinned_cores, 1);
}

TEST(System, ZeroThreadsMeansEveryUsableCore) {
  EXPECT_EQ(worker_threads(0), usable_cores());
  EXPECT_EQ(worker_threads(3), 3);
}

TEST(System, PhysicalMemoryIsKnownHere) {
  EXPECT_GT(physical_memory_bytes(), 1 << 20);
}

#if defined(__SANITIZE_ADDRESS__)
#define GPUBENCH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUBENCH_ASAN 1
#endif
#endif

#ifndef GPUBENCH_ASAN
// Under a limit leaving 256 MiB, with more cores than 128 MiB of stacks (8 MiB
// each) can serve: the threads OpenMP is given, a map of everything else, then
// a parallel region that must get all of them. Exits 0 when it does. (Not in
// ASan builds, whose test below skips.)
[[noreturn]] void fill_an_address_space_limit_then_start_a_parallel_region() {
  const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
  std::uint64_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0)
    _exit(10);
  limit.rlim_cur = pages * page + (std::uint64_t{256} << 20);
  if (setrlimit(RLIMIT_AS, &limit) != 0)
    _exit(11);
  omp_set_num_threads(64);
  const int threads = limit_openmp_threads_to_fit();
  if (threads < 2 || threads >= 64)
    _exit(12);
  // The run's data takes everything the limit leaves.
  while (mmap(nullptr, std::size_t{1} << 20, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
  }
  int team = 0;
#pragma omp parallel reduction(+ : team)
  team += 1;
  _exit(team == threads ? 0 : 13);
}
#endif

// Under `ulimit -v`, on a machine of more cores than the limit leaves stacks
// for: the threads are counted against half of the room and started at once, so
// that a parallel region after the run has mapped all the rest starts none
// (libgomp would end the process with "Thread creation failed", exit 1). Run in
// a fresh process of its own (the limit stays there).
TEST(SystemDeathTest,
     OpenMpThreadsAreStartedWhileTheAddressSpaceLimitLeavesRoom) {
#ifdef GPUBENCH_ASAN
  GTEST_SKIP() << "ASan maps terabytes of shadow memory and allocates beside "
                  "every mapping: the release build checks this";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fill_an_address_space_limit_then_start_a_parallel_region(),
              ::testing::ExitedWithCode(0), "");
#endif
}

// The L3 is read from the kernel's cache list, each instance once: glibc's sysconf reports the
// host's L3 on some AMD guests (256 MiB on a 2-core guest whose kernel lists one 32 MiB L3), which
// made the copy ceiling's buffers eight times the size they need to be.
TEST(System, Level3CacheCountsEachInstanceOnce) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("gpubench-l3-" + std::to_string(getpid()));
  fs::remove_all(root);
  const auto cache = [&](const std::string& cpu, int index, const std::string& level, const std::string& size,
                         const std::string& shared) {
    const fs::path dir = root / cpu / "cache" / ("index" + std::to_string(index));
    fs::create_directories(dir);
    std::ofstream(dir / "level") << level << "\n";
    std::ofstream(dir / "size") << size << "\n";
    std::ofstream(dir / "shared_cpu_list") << shared << "\n";
  };
  // Two CPUs sharing one 32 MiB L3, with their own L1 and L2.
  for (const std::string cpu : {"cpu0", "cpu1"}) {
    cache(cpu, 0, "1", "32K", cpu.substr(3));
    cache(cpu, 2, "2", "512K", cpu.substr(3));
    cache(cpu, 3, "3", "32768K", "0-1");
  }
  fs::create_directories(root / "cpufreq");  // not a CPU
  EXPECT_EQ(level3_cache_bytes(root.string()), std::int64_t{32} << 20);
  // A second instance on two more CPUs (another CCX or socket): both count.
  for (const std::string cpu : {"cpu2", "cpu3"}) cache(cpu, 3, "3", "32M", "2-3");
  EXPECT_EQ(level3_cache_bytes(root.string()), std::int64_t{64} << 20);
  fs::remove_all(root);
  // Nothing listed: the C library's figure, or 0.
  EXPECT_EQ(level3_cache_bytes(root.string()), std::max<std::int64_t>(sysconf(_SC_LEVEL3_CACHE_SIZE), 0));
  // This machine: at least the first CPU's L3 where the kernel lists one.
  std::ifstream level("/sys/devices/system/cpu/cpu0/cache/index3/level");
  std::string text;
  if (level >> text && text == "3") {
    EXPECT_GT(level3_cache_bytes(), 0);
  }
}

}  // namespace
}  // namespace gpb
