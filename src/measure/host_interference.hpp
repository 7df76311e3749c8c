// Host interference telemetry beside a CPU case: what the rest of the machine did to the
// threads that do the work, read from the kernel's per-thread counters (getrusage, and
// /proc/self/task/*/schedstat and sched) at the start and end of measuring and between
// samples, never inside a timed region. The runner drives it as it drives the GPU's
// telemetry (measure/telemetry_sampler.hpp); model/cpu_telemetry.hpp holds what it records.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "model/cpu_telemetry.hpp"

namespace gpb {

// One thread's scheduler counters, in seconds and counts.
struct ThreadSchedule {
  double cpu_s = 0;
  double run_queue_wait_s = kNotReported;       // NaN where schedstat is unreadable
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

// One case's host interference, as the runner drives it. Inactive for a case whose work does
// not run on this process's threads (a GPU case): nothing is read, nothing is flagged and the
// summary is absent.
class HostInterference {
 public:
  explicit HostInterference(bool active) : active_(active) {}
  bool active() const { return active_; }

  void start_measuring();
  // Around each timing sample: whether a thread of the process was switched out
  // involuntarily between before_sample() and this call.
  void before_sample();
  bool sample_oversubscribed();
  // The summary over the measuring time; nullopt when inactive.
  std::optional<CpuTelemetry> finish(double measure_seconds);

 private:
  bool active_;
  CpuTelemetry telemetry_;
  std::map<int, ThreadSchedule> threads_at_start_;
  std::int64_t switches_at_start_ = 0, switches_before_sample_ = 0;
};

}  // namespace gpb
