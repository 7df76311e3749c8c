#include "config/test_knobs.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "base/errors.hpp"
#include "base/interrupt.hpp"

namespace gpb {
namespace {

// A prepared case that runs its op as SlowdownRuns says per run(); everything else is the
// case's own.
class RepeatedRuns final : public Prepared {
 public:
  RepeatedRuns(std::unique_ptr<Prepared> inner, const TestSlowdown& slowdown) : inner_(std::move(inner)), runs_(slowdown) {}
  void run() override {
    for (int i = runs_.next(); i > 0; --i) inner_->run();
  }
  bool has_transfers() const override { return inner_->has_transfers(); }
  void upload() override { inner_->upload(); }
  void download() override { inner_->download(); }
  void flush_cache() override { inner_->flush_cache(); }
  bool has_cache_flush() const override { return inner_->has_cache_flush(); }
  std::unique_ptr<TelemetrySource> telemetry_source() override { return inner_->telemetry_source(); }
  EnergySource energy_source() override { return inner_->energy_source(); }
  bool runs_on_host_threads() const override { return inner_->runs_on_host_threads(); }
  void synchronize() override { inner_->synchronize(); }
  std::unique_ptr<SampleTimer> make_timer() override { return inner_->make_timer(); }
  HostArray result() override { return inner_->result(); }
  double unit_roundoff_override() const override { return inner_->unit_roundoff_override(); }
  std::string details() const override { return inner_->details(); }

 private:
  std::unique_ptr<Prepared> inner_;
  SlowdownRuns runs_;
};

}  // namespace

std::string TestSlowdown::text() const {
  char text[16];
  std::snprintf(text, sizeof text, "%g", hundredths / 100.0);
  return text;
}

TestSlowdown parse_test_slowdown(const char* text) {
  TestSlowdown knob;
  if (text == nullptr || *text == '\0') return knob;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  const double hundredths = std::round(value * 100);
  if (*end != '\0' || !(value >= 1 && value <= 100) || std::abs(value * 100 - hundredths) > 1e-6)
    throw UsageError("GPUBENCH_TEST_SLOWDOWN must be a number from 1 to 100 with at most two decimals (5, 1.03), not '" +
                     std::string(text) + "'");
  knob.hundredths = static_cast<int>(hundredths);
  return knob;
}

TestSlowdown test_slowdown() { return parse_test_slowdown(std::getenv("GPUBENCH_TEST_SLOWDOWN")); }

int SlowdownRuns::next() {
  carried_ += fraction_;
  if (carried_ < 100) return whole_;
  carried_ -= 100;
  return whole_ + 1;
}

std::function<std::unique_ptr<Prepared>(std::unique_ptr<Prepared>)> slowdown_hook(const TestSlowdown& slowdown) {
  if (!slowdown.active()) return {};
  return [slowdown](std::unique_ptr<Prepared> prepared) -> std::unique_ptr<Prepared> {
    return std::make_unique<RepeatedRuns>(std::move(prepared), slowdown);
  };
}

void record_slowdown(const TestSlowdown& slowdown, Context& context) {
  if (!slowdown.active()) return;
  context.settings["test_slowdown"] = slowdown.text();
  context.notes.push_back("GPUBENCH_TEST_SLOWDOWN=" + slowdown.text() + ": every op does its work " + slowdown.text() +
                          " times per launch" +
                          (slowdown.fractional() ? ", timed in batches of a multiple of 100 launches" : "") +
                          " (a test knob, not a measurement)");
}

store::IngestPauses ingest_pauses() {
  const char* marker = std::getenv("GPUBENCH_TEST_INGEST_PAUSE_FILE");
  if (marker == nullptr || *marker == '\0') return {};
  const char* at = std::getenv("GPUBENCH_TEST_INGEST_PAUSE_AT");
  // Waits for a signal: SIGKILL ends it, and SIGINT or SIGTERM let the store go on to say
  // what the signal did.
  const auto pause = [path = std::string(marker)] {
    std::ofstream(path) << getpid() << "\n";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!interrupt_requested() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  };
  store::IngestPauses pauses;
  (at != nullptr && std::string(at) == "commit" ? pauses.committed : pauses.halfway) = pause;
  return pauses;
}

}  // namespace gpb
