// Host interference telemetry beside a CPU case: what the rest of the machine did to the
// threads that do the work, read from the kernel's per-thread counters (getrusage, and
// /proc/self/task/*/schedstat and sched) at the start and end of measuring and between
// samples, never inside a timed region. The runner drives it as it drives the GPU's
// telemetry (measure/telemetry_sampler.hpp); model/cpu_telemetry.hpp holds what it records.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "model/cpu_telemetry.hpp"

namespace gpb {

// One thread's scheduler counters at one reading, in seconds and counts.
struct ThreadSchedule {
  double cpu_s = 0;
  double run_queue_wait_s = kNotReported;       // NaN where schedstat is unreadable (the thread ended)
  std::optional<std::int64_t> migrations;       // where /proc/.../sched names se.nr_migrations
};

// The process's threads by id, as the kernel reports them now.
std::map<int, ThreadSchedule> read_thread_schedules();

// Involuntary context switches of every thread of this process so far (getrusage).
std::int64_t process_involuntary_switches();

// The 1-minute load average; NaN where the system does not say.
double one_minute_load_average();

// The lowest and highest current clock (MHz) over the cores this process may run on, from
// cpufreq; NaN where it is not readable (most virtual machines).
struct ClockRange {
  double min_mhz = kNotReported, max_mhz = kNotReported;
};
ClockRange usable_core_clocks();

// The counters between two readings of the threads: threads that ran at least
// kBusyThreadShare of wall_s, CPU and run-queue time added up over every thread, migrations
// (unknown if any thread's are).
void fill_thread_deltas(const std::map<int, ThreadSchedule>& before, const std::map<int, ThreadSchedule>& after,
                        double wall_s, CpuTelemetry& out);

// How long a sample of `wall_s` was held up waiting for a CPU, from two readings of the
// threads' counters `window_s` apart (the readings bracket the sample): the longest
// run-queue wait between them of the op's threads -- the measuring thread (index
// `measuring`, which runs the op or its share of it; a thread's CPU time is only brought up
// to date when it is switched out, so a short sample's reading may not show that it ran),
// and any other that ran at least kBusyThreadShare of wall_s (a thread that barely ran,
// such as one that woke once, did not hold the op up) -- less the time the window holds
// beyond the sample, where part of that wait may have fallen (the scheduler often preempts
// at the readings' own system calls), and at most wall_s (the kernel credits a wait when the
// thread is switched back in, so a reading may hold wait from before the window). So it never
// counts more than the sample waited. The threads are the same, in the same order, in both
// readings; 0 where none waited.
double sample_run_queue_wait(const std::vector<ThreadSchedule>& before, const std::vector<ThreadSchedule>& after,
                             std::size_t measuring, double wall_s, double window_s);

// One case's host interference, as the runner drives it. Inactive for a case whose work does
// not run on this process's threads (a GPU case): nothing is read, nothing is flagged and the
// summary is absent.
class HostInterference {
 public:
  explicit HostInterference(bool active) : active_(active) {}
  bool active() const { return active_; }

  // Opens the counters of every thread the process has now (the op's threads have started
  // in the warm-up); a thread started later is not read per sample.
  void start_measuring();
  // Around each timing sample of `wall_s` seconds: whether a thread of the process was
  // switched out involuntarily between before_sample() and this call, and how long the
  // sample waited for a CPU (sample_run_queue_wait; NaN where the kernel does not say).
  void before_sample();
  struct Sample {
    bool oversubscribed = false;
    double run_queue_wait_s = kNotReported;
  };
  Sample finish_sample(double wall_s);
  // The summary over the measuring time; nullopt when inactive.
  std::optional<CpuTelemetry> finish(double measure_seconds);

 private:
  bool active_;
  CpuTelemetry telemetry_;
  std::map<int, ThreadSchedule> threads_at_start_;
  std::int64_t switches_at_start_ = 0, switches_before_sample_ = 0;
  // Each thread's /proc/self/task/<tid>/schedstat, open for the measuring time, and the
  // reading before the current sample.
  class CounterFile {
   public:
    explicit CounterFile(int fd) : fd_(fd) {}
    CounterFile(CounterFile&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    CounterFile(const CounterFile&) = delete;
    CounterFile& operator=(const CounterFile&) = delete;
    CounterFile& operator=(CounterFile&&) = delete;
    ~CounterFile();
    ThreadSchedule read() const;  // cpu_s and run_queue_wait_s; the wait NaN where unreadable

   private:
    int fd_;
  };
  std::vector<CounterFile> counter_files_;
  // The calling thread's index among counter_files_; kNoThread where its counters are unreadable.
  static constexpr std::size_t kNoThread = std::numeric_limits<std::size_t>::max();
  std::size_t measuring_thread_ = kNoThread;
  std::vector<ThreadSchedule> before_sample_counters_, after_sample_counters_;
  std::chrono::steady_clock::time_point window_start_;
};

}  // namespace gpb
