#include "measure/host_interference.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>

#include "base/system.hpp"

namespace gpb {
namespace {

// The text of "/proc/self/task/<tid>/schedstat": nanoseconds on a CPU, nanoseconds waiting
// on a run queue, timeslices (the kernel's CONFIG_SCHED_INFO; absent without it). False
// where the text is not that.
bool parse_schedstat(const char* text, ThreadSchedule& out) {
  double cpu_ns = 0, wait_ns = 0;
  if (std::sscanf(text, "%lf %lf", &cpu_ns, &wait_ns) != 2) return false;
  out.cpu_s = cpu_ns * 1e-9;
  out.run_queue_wait_s = wait_ns * 1e-9;
  return true;
}

bool read_schedstat(const std::filesystem::path& task, ThreadSchedule& out) {
  std::ifstream file(task / "schedstat");
  std::string text;
  return std::getline(file, text) && parse_schedstat(text.c_str(), out);
}

// "se.nr_migrations   :   12" in "/proc/self/task/<tid>/sched" (the scheduler's debug
// view; absent on kernels built without it).
std::optional<std::int64_t> read_migrations(const std::filesystem::path& task) {
  std::ifstream file(task / "sched");
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind("se.nr_migrations", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) return std::nullopt;
    char* end = nullptr;
    const long long value = std::strtoll(line.c_str() + colon + 1, &end, 10);
    if (end == line.c_str() + colon + 1) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

}  // namespace

std::map<int, ThreadSchedule> read_thread_schedules() {
  namespace fs = std::filesystem;
  std::map<int, ThreadSchedule> threads;
  std::error_code error;
  for (fs::directory_iterator task("/proc/self/task", error), end; !error && task != end; task.increment(error)) {
    const std::string name = task->path().filename().string();
    char* parsed_end = nullptr;
    const long tid = std::strtol(name.c_str(), &parsed_end, 10);
    if (*parsed_end != '\0') continue;
    ThreadSchedule schedule;
    // A thread that ended since the listing has no files left: it did not run here.
    if (!read_schedstat(task->path(), schedule)) continue;
    schedule.migrations = read_migrations(task->path());
    threads[static_cast<int>(tid)] = schedule;
  }
  return threads;
}

std::int64_t process_involuntary_switches() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) throw std::system_error(errno, std::generic_category(), "getrusage");
  return usage.ru_nivcsw;
}

double one_minute_load_average() {
  double load = 0;
  return getloadavg(&load, 1) == 1 ? load : kNotReported;
}

ClockRange usable_core_clocks() {
  ClockRange range;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return range;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    std::ifstream file("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_cur_freq");
    double khz = 0;
    if (!(file >> khz) || !(khz > 0)) continue;
    // fmin and fmax take the number over a NaN (nothing read yet).
    range.min_mhz = std::fmin(range.min_mhz, khz / 1000);
    range.max_mhz = std::fmax(range.max_mhz, khz / 1000);
  }
  return range;
}

void fill_thread_deltas(const std::map<int, ThreadSchedule>& before, const std::map<int, ThreadSchedule>& after,
                        double wall_s, CpuTelemetry& out) {
  out.threads_obtained = 0;
  out.cpu_s = 0;
  out.run_queue_wait_s = 0;
  std::int64_t migrations = 0;
  bool migrations_known = true;
  for (const auto& [tid, now] : after) {
    const auto earlier = before.find(tid);
    // A thread started while measuring counted from zero.
    const ThreadSchedule start = earlier == before.end() ? ThreadSchedule{0, 0, std::int64_t{0}} : earlier->second;
    const double ran = now.cpu_s - start.cpu_s;
    out.cpu_s += ran;
    out.run_queue_wait_s += now.run_queue_wait_s - start.run_queue_wait_s;
    if (wall_s > 0 && ran >= kBusyThreadShare * wall_s) ++out.threads_obtained;
    if (now.migrations && start.migrations)
      migrations += *now.migrations - *start.migrations;
    else
      migrations_known = false;
  }
  out.migrations = migrations_known && !after.empty() ? std::optional(migrations) : std::nullopt;
  if (after.empty()) out.run_queue_wait_s = kNotReported;
}

double sample_run_queue_wait(const std::vector<ThreadSchedule>& before, const std::vector<ThreadSchedule>& after,
                             std::size_t measuring, double wall_s, double window_s) {
  double longest = 0;
  for (std::size_t i = 0; i < before.size() && i < after.size(); ++i) {
    const double ran = after[i].cpu_s - before[i].cpu_s;
    const double waited = after[i].run_queue_wait_s - before[i].run_queue_wait_s;
    // A thread unread at either end (its wait NaN) fails the comparison: it is left out.
    if ((i == measuring || ran >= kBusyThreadShare * wall_s) && waited > longest) longest = waited;
  }
  // At most the sample's wall: the kernel adds a wait to a thread's counter when the thread is
  // next switched in, so a thread that had waited since before the window (a busy second
  // thread sharing the core) may show more wait inside it than the window lasted.
  const double waited = std::max(0.0, longest - std::max(0.0, window_s - wall_s));
  return wall_s > 0 ? std::min(waited, wall_s) : waited;
}

HostInterference::CounterFile::~CounterFile() {
  if (fd_ >= 0) ::close(fd_);
}

ThreadSchedule HostInterference::CounterFile::read() const {
  // procfs makes the text afresh at each read from offset 0: one pread per reading.
  char text[128];
  const ssize_t length = ::pread(fd_, text, sizeof text - 1, 0);
  ThreadSchedule schedule;
  if (length <= 0) return schedule;
  text[length] = '\0';
  parse_schedstat(text, schedule);  // unparsed: the wait stays unknown
  return schedule;
}

void HostInterference::start_measuring() {
  if (!active_) return;
  telemetry_ = CpuTelemetry{};
  telemetry_.cores = usable_cores();
  telemetry_.load_average = one_minute_load_average();
  const ClockRange clocks = usable_core_clocks();
  telemetry_.cpu_mhz_min = clocks.min_mhz;
  telemetry_.cpu_mhz_max = clocks.max_mhz;
  threads_at_start_ = read_thread_schedules();
  counter_files_.clear();
  measuring_thread_ = kNoThread;
  const auto self = static_cast<int>(::syscall(SYS_gettid));
  for (const auto& [tid, schedule] : threads_at_start_) {
    if (std::isnan(schedule.run_queue_wait_s)) continue;
    const std::string path = "/proc/self/task/" + std::to_string(tid) + "/schedstat";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    if (tid == self) measuring_thread_ = counter_files_.size();
    counter_files_.emplace_back(fd);
  }
  before_sample_counters_.resize(counter_files_.size());
  after_sample_counters_.resize(counter_files_.size());
  switches_at_start_ = process_involuntary_switches();
}

void HostInterference::before_sample() {
  if (!active_) return;
  switches_before_sample_ = process_involuntary_switches();
  // The window the counters span starts before their first reading: a wait at one of the
  // readings' system calls (where the scheduler often preempts) falls inside it.
  window_start_ = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < counter_files_.size(); ++i) before_sample_counters_[i] = counter_files_[i].read();
}

HostInterference::Sample HostInterference::finish_sample(double wall_s) {
  if (!active_) return {};
  Sample sample;
  if (!counter_files_.empty()) {
    for (std::size_t i = 0; i < counter_files_.size(); ++i) after_sample_counters_[i] = counter_files_[i].read();
    const double window_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - window_start_).count();
    sample.run_queue_wait_s =
        sample_run_queue_wait(before_sample_counters_, after_sample_counters_, measuring_thread_, wall_s, window_s);
  }  // else no schedstat: the wait is not known
  sample.oversubscribed = process_involuntary_switches() > switches_before_sample_;
  if (sample.oversubscribed) ++telemetry_.oversubscribed_samples;
  return sample;
}

std::optional<CpuTelemetry> HostInterference::finish(double measure_seconds) {
  if (!active_) return std::nullopt;
  telemetry_.involuntary_switches = process_involuntary_switches() - switches_at_start_;
  telemetry_.load_average = std::fmax(telemetry_.load_average, one_minute_load_average());
  const ClockRange clocks = usable_core_clocks();
  telemetry_.cpu_mhz_min = std::fmin(telemetry_.cpu_mhz_min, clocks.min_mhz);
  telemetry_.cpu_mhz_max = std::fmax(telemetry_.cpu_mhz_max, clocks.max_mhz);
  fill_thread_deltas(threads_at_start_, read_thread_schedules(), measure_seconds, telemetry_);
  counter_files_.clear();
  return telemetry_;
}

}  // namespace gpb
