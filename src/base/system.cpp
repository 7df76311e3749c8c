#include "base/system.hpp"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <limits>
#include <thread>

namespace gpb {

int usable_cores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) return std::max(1, CPU_COUNT(&mask));
  // More CPUs than a cpu_set_t holds (over 1024): the mask cannot be read that way, and
  // such a machine's cores are all online ones as far as a benchmark can tell.
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int worker_threads(int requested) { return requested == 0 ? usable_cores() : requested; }

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<double>(pages) * static_cast<double>(page_size);
}

std::uint64_t address_space_headroom_bytes() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::numeric_limits<std::uint64_t>::max();
  // The first field of statm: the pages mapped now.
  std::uint64_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const std::uint64_t mapped = pages * static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
  return limit.rlim_cur > mapped ? limit.rlim_cur - mapped : 0;
}

std::uint64_t thread_address_space_bytes() {
  pthread_attr_t attributes;
  std::size_t stack = std::size_t{8} << 20;
  if (pthread_getattr_default_np(&attributes) == 0) {
    std::size_t size = 0;
    if (pthread_attr_getstacksize(&attributes, &size) == 0 && size > 0) stack = size;
    pthread_attr_destroy(&attributes);
  }
  return static_cast<std::uint64_t>(stack) + (std::uint64_t{1} << 20);
}

bool address_space_is_limited() {
  rlimit limit{};
  return getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
}

std::uint64_t thread_share_of_headroom_bytes() { return address_space_headroom_bytes() / 2; }

int threads_that_fit(int wanted, int running) {
  if (wanted <= running || !address_space_is_limited()) return std::max(wanted, 1);
  const std::uint64_t more = thread_share_of_headroom_bytes() / thread_address_space_bytes();
  const std::uint64_t fit = static_cast<std::uint64_t>(std::max(running, 1)) + more;
  return static_cast<int>(std::min<std::uint64_t>(fit, static_cast<std::uint64_t>(wanted)));
}

void start_openmp_threads(int threads) {
  if (!address_space_is_limited()) return;
  // A region that only counts its team (an empty one is compiled away): libgomp keeps its
  // threads for the regions that follow from this thread, which then start none of their
  // own as long as they ask for no more.
  int team = 0;
#pragma omp parallel num_threads(threads) reduction(+ : team)
  team += 1;
  (void)team;
}

int limit_openmp_threads_to_fit() {
  const int threads = threads_that_fit(omp_get_max_threads(), 1);
  omp_set_num_threads(threads);
  start_openmp_threads(threads);
  return threads;
}

double allocatable_memory_bytes() {
  return std::min(physical_memory_bytes(), static_cast<double>(address_space_headroom_bytes()));
}

namespace {

// "32768K", "32M", "1048576" (sysfs cache sizes) in bytes; 0 where unreadable.
std::int64_t cache_size_bytes(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) ++digits;
  if (digits == 0 || digits > 15) return 0;
  const std::int64_t value = std::stoll(text.substr(0, digits));
  const char unit = digits < text.size() ? static_cast<char>(std::toupper(static_cast<unsigned char>(text[digits]))) : ' ';
  const std::int64_t scale = unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : unit == 'G' ? 1024 * 1024 * 1024 : 1;
  return value * scale;
}

std::string first_line(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

}  // namespace

std::int64_t level3_cache_bytes(const std::string& cpu_root) {
  namespace fs = std::filesystem;
  std::map<std::string, std::int64_t> instances;  // shared_cpu_list -> size
  std::error_code error;
  for (fs::directory_iterator cpu(cpu_root, error), end; !error && cpu != end; cpu.increment(error)) {
    const std::string name = cpu->path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 ||
        std::isdigit(static_cast<unsigned char>(name[3])) == 0)
      continue;
    std::error_code inner;
    for (fs::directory_iterator index(cpu->path() / "cache", inner), last; !inner && index != last;
         index.increment(inner)) {
      if (index->path().filename().string().compare(0, 5, "index") != 0) continue;
      if (first_line(index->path() / "level") != "3") continue;
      const std::int64_t bytes = cache_size_bytes(first_line(index->path() / "size"));
      const std::string shared = first_line(index->path() / "shared_cpu_list");
      if (bytes > 0) instances[shared.empty() ? name : shared] = bytes;
    }
  }
  std::int64_t total = 0;
  for (const auto& [shared, bytes] : instances) total += bytes;
  if (total > 0) return total;
  return std::max<std::int64_t>(sysconf(_SC_LEVEL3_CACHE_SIZE), 0);
}

}  // namespace gpb
