// Reading a case's energy counter beside its timed samples (model/energy.hpp has the rules).
// The counter's update interval is detected once per counter and process, by reading it until
// it has changed several times. The window covers the timed samples where they ran back to
// back; where it is shorter than kEnergyWindowIntervals update intervals, the op is repeated
// untimed (the same run the warm-up makes, on the same stream, then synchronised) until it is
// long enough. Nothing here runs inside a timed sample.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "model/energy.hpp"

namespace gpb {

// The meter's notion of time: the steady clock and a sleep in real use, a scripted clock in tests.
struct EnergyClock {
  std::function<double()> now;
  std::function<void(double)> sleep;
};
EnergyClock steady_energy_clock();

// The longest update interval seen over three changes of the counter, polled every
// kEnergyPollS; nullopt when it did not change three times within max_wait_s or a read failed.
inline constexpr double kEnergyPollS = 0.5e-3;
inline constexpr double kEnergyIntervalWaitS = 2.0;
std::optional<double> detect_update_interval(EnergyCounter& counter, const EnergyClock& clock,
                                             double max_wait_s = kEnergyIntervalWaitS);

class EnergyMeter {
 public:
  explicit EnergyMeter(EnergySource source, EnergyClock clock = steady_energy_clock());
  bool active() const { return source_.counter != nullptr; }

  // Opens the window before the first timed sample (where the samples run back to back).
  void begin();
  // Closes the window after the last timed sample (all work synchronised): timed_launches
  // runs of the op ran inside it since begin() (none when begin() was not called: the window
  // then opens here). Repeats run_once (launches_per_run launches of the op each: a CUDA
  // graph's), then synchronize, until the window is long enough; per_launch_s (the median)
  // sizes the repeats. Without a counter: the reason alone.
  EnergyMeasurement finish(std::int64_t timed_launches, double per_launch_s, const std::function<void()>& run_once,
                           const std::function<void()>& synchronize, std::int64_t launches_per_run = 1);

 private:
  // The counter's update interval, detected on first use of its key in this process.
  std::optional<double> update_interval();

  EnergySource source_;
  EnergyClock clock_;
  bool begun_ = false;
  double start_s_ = 0;
  std::optional<double> start_j_;
  std::string failure_;  // why the window has no figure, found in begin()
};

}  // namespace gpb
