// Taking telemetry beside a case: a sampler thread that reads a TelemetrySource at a
// fixed period, and the per-case driver the runner calls around its measure phase: soak
// first, then sample while measuring, flag throttled timing samples, summarise. Nothing
// here runs inside a timed region: readings are taken on their own thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "model/telemetry.hpp"

namespace gpb {

// Seconds on the steady clock: the time base of readings and of the runner's samples.
double telemetry_clock_now();

// Reads a source every period_s on its own thread between start() and stop(). The first
// and the last reading are taken on the calling thread, so a window has at least two.
class TelemetrySampler {
 public:
  TelemetrySampler(TelemetrySource& source, double period_s);
  ~TelemetrySampler();
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  void start();
  void stop();
  std::vector<TelemetryReading> readings() const;  // a copy; safe while sampling
  // ran_throttled over the readings so far, without copying them (called once per sample).
  bool ran_throttled(double start_s, double end_s, double min_clock_mhz) const;
  // The energy counter's increase from start() to stop(), over window_s(); nullopt
  // without a counter.
  std::optional<double> energy_delta_j() const { return energy_delta_j_; }
  double window_s() const { return stopped_at_ - started_at_; }

 private:
  void take_reading();
  void loop();

  TelemetrySource& source_;
  double period_s_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<TelemetryReading> readings_;
  std::thread thread_;
  double started_at_ = 0, stopped_at_ = 0;
  std::optional<double> energy_at_start_, energy_delta_j_;
};

struct TelemetryOptions {
  double period_s = 0.01;  // 10 ms: well below a typical sample's 2 s budget, far above NVML's cost
  double throttle_threshold = kDefaultThrottleThreshold;
  bool discard_throttled = false;
  double soak_s = 0;  // 0: no soak
};

// One case's telemetry, as the runner drives it. Without a source (a CPU case, or no NVML)
// it is inactive: nothing is flagged and the summary is absent, but a soak still runs
// (for its whole time, its settling unknown).
class CaseTelemetry {
 public:
  CaseTelemetry(std::unique_ptr<TelemetrySource> source, const TelemetryOptions& options);
  bool active() const { return source_ != nullptr; }

  // Runs the case untimed, in batches of about 10 ms each followed by `synchronize`, until
  // the readings settle (soak_settled) or options.soak_s is up.
  SoakSummary soak(const std::function<void()>& run_once, const std::function<void()>& synchronize);

  void start_measuring();
  // Whether a timing sample over [start_s, end_s] ran below the throttle threshold, on the
  // readings taken so far.
  bool throttled(double start_s, double end_s);
  // Stops sampling. The summary's sensor part and energy window; the readings go to
  // `readings` (for merging passes). nullopt when inactive.
  std::optional<TelemetrySummary> finish(std::vector<TelemetryReading>& readings);

 private:
  std::unique_ptr<TelemetrySource> source_;
  TelemetryOptions options_;
  double max_sm_clock_mhz_ = kNotReported;
  std::unique_ptr<TelemetrySampler> sampler_;
};

}  // namespace gpb
