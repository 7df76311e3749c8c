#include "measure/telemetry_sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "base/interrupt.hpp"

namespace gpb {
namespace {

// A soak batch runs about this long between synchronisations: long enough that the host's
// gaps do not let the device cool, short enough to check for settling often.
constexpr double kSoakBatchS = 10e-3;
constexpr std::int64_t kMaxSoakBatch = 1 << 16;

}  // namespace

double telemetry_clock_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

TelemetrySampler::TelemetrySampler(TelemetrySource& source, double period_s) : source_(source), period_s_(period_s) {}

TelemetrySampler::~TelemetrySampler() {
  if (thread_.joinable()) stop();
}

void TelemetrySampler::take_reading() {
  // A reading stands for the middle of the time its queries took.
  const double before = telemetry_clock_now();
  TelemetryReading reading = source_.read();
  reading.time_s = (before + telemetry_clock_now()) / 2;
  const std::lock_guard<std::mutex> lock(mutex_);
  readings_.push_back(reading);
}

void TelemetrySampler::start() {
  energy_at_start_ = source_.energy_j();
  started_at_ = telemetry_clock_now();
  take_reading();
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void TelemetrySampler::loop() {
  auto next = std::chrono::steady_clock::now();
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(period_s_));
  for (;;) {
    next += period;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
    }
    take_reading();
    // After a stall (a loaded host), resume the period from now rather than catching up.
    next = std::max(next, std::chrono::steady_clock::now() - period);
  }
}

void TelemetrySampler::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  take_reading();
  stopped_at_ = telemetry_clock_now();
  const std::optional<double> energy_at_stop = source_.energy_j();
  if (energy_at_start_ && energy_at_stop) energy_delta_j_ = *energy_at_stop - *energy_at_start_;
}

std::vector<TelemetryReading> TelemetrySampler::readings() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return readings_;
}

bool TelemetrySampler::ran_throttled(double start_s, double end_s, double min_clock_mhz) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return gpb::ran_throttled(readings_, start_s, end_s, min_clock_mhz);
}

CaseTelemetry::CaseTelemetry(std::unique_ptr<TelemetrySource> source, const TelemetryOptions& options)
    : source_(std::move(source)), options_(options) {
  if (source_) max_sm_clock_mhz_ = source_->max_sm_clock_mhz();
}

SoakSummary CaseTelemetry::soak(const std::function<void()>& run_once, const std::function<void()>& synchronize) {
  SoakSummary summary;
  summary.requested_s = options_.soak_s;
  std::optional<TelemetrySampler> sampler;
  if (source_) {
    sampler.emplace(*source_, options_.period_s);
    sampler->start();
  }
  const double start = telemetry_clock_now();
  run_once();
  synchronize();
  const double once_s = telemetry_clock_now() - start;
  const auto batch = static_cast<std::int64_t>(
      std::clamp(std::ceil(kSoakBatchS / std::max(once_s, 1e-9)), 1.0, static_cast<double>(kMaxSoakBatch)));
  bool settled = false;
  double now = telemetry_clock_now();
  // An interrupt ends the soak early; the runner then drops the case as unfinished.
  while (now - start < options_.soak_s && !interrupt_requested()) {
    for (std::int64_t i = 0; i < batch; ++i) run_once();
    synchronize();
    now = telemetry_clock_now();
    if (sampler && soak_settled(sampler->readings(), now)) {
      settled = true;
      break;
    }
  }
  summary.seconds = now - start;
  if (sampler) {
    sampler->stop();
    summary.settled = settled;
  }
  return summary;
}

void CaseTelemetry::start_measuring() {
  if (!source_) return;
  sampler_ = std::make_unique<TelemetrySampler>(*source_, options_.period_s);
  sampler_->start();
}

bool CaseTelemetry::throttled(double start_s, double end_s) {
  if (!sampler_) return false;
  return sampler_->ran_throttled(start_s, end_s, options_.throttle_threshold * max_sm_clock_mhz_);
}

std::optional<TelemetrySummary> CaseTelemetry::finish(std::vector<TelemetryReading>& readings) {
  if (!sampler_) return std::nullopt;
  sampler_->stop();
  readings = sampler_->readings();
  TelemetrySummary summary = summarize_readings(readings, options_.period_s, max_sm_clock_mhz_, options_.throttle_threshold);
  if (const auto energy = sampler_->energy_delta_j()) {
    summary.energy_j = *energy;
    summary.energy_window_s = sampler_->window_s();
  }
  sampler_.reset();
  return summary;
}

}  // namespace gpb
