// Host interference telemetry as records and the pure rules over them: what the rest of the
// machine did to a CPU case's measuring threads while it measured -- the counterpart of a GPU
// case's clocks and throttle flags (model/telemetry.hpp). Read beside the timed region
// (measure/host_interference.hpp), never inside it; reporters and compare only read these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "model/telemetry.hpp"

namespace gpb {

struct CpuTelemetry {
  int cores = 0;                           // cores this process may run on (its affinity)
  double load_average = kNotReported;      // the highest 1-minute load average read at the start and end of measuring
  int threads_obtained = 0;                // threads of the process that ran at least kBusyThreadShare of the time
  double cpu_s = 0;                        // CPU time of all the process's threads while measuring
  double run_queue_wait_s = kNotReported;  // time they were runnable but waited for a CPU; NaN where unreadable
  std::int64_t involuntary_switches = 0;   // times the scheduler switched one of them out for other work
  std::optional<std::int64_t> migrations;  // moves of them between CPUs; nullopt where the kernel does not say
  double cpu_mhz_min = kNotReported, cpu_mhz_max = kNotReported;  // the usable cores' clocks; NaN where unreadable
  // Timing samples during which a measuring thread was switched out involuntarily: the
  // machine had more runnable work than cores, and the sample includes time not running.
  std::size_t oversubscribed_samples = 0;
};

// A thread counts as obtained when it ran this share of the measuring time.
inline constexpr double kBusyThreadShare = 0.05;
// A side counts as interfered with when this share of its samples ran oversubscribed, or its
// threads waited this share of their runnable time for a CPU.
inline constexpr double kInterferenceShare = 0.10;

// run_queue_wait_s / (cpu_s + run_queue_wait_s): the share of the time the threads wanted a
// CPU and had to wait for one. NaN where unknown.
double run_queue_wait_share(const CpuTelemetry& telemetry);

// One summary for two passes of a case: counts and times added up, the highest load and
// the widest clock range, the fewest threads obtained; migrations stay unknown unless both
// passes know them.
CpuTelemetry merge_cpu_telemetry(const CpuTelemetry& first, const CpuTelemetry& second);

// "" when a case of `samples` samples ran undisturbed: fewer than kInterferenceShare of them
// oversubscribed, its threads waiting less than that share of their runnable time, a load
// average within the cores. Otherwise what shows the interference, and the threads obtained
// where fewer than threads_used (0: not known) ran: "41/60 samples oversubscribed, run-queue
// wait 38%, load 6.1 on 2 cores, 1 of 2 threads ran".
std::string interference_summary(const CpuTelemetry& telemetry, std::size_t samples, int threads_used);

}  // namespace gpb
