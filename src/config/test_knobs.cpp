#include "config/test_knobs.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "base/errors.hpp"
#include "base/interrupt.hpp"

namespace gpb {
namespace {

// A prepared case that runs its op `factor` times per run(); everything else is the case's own.
class RepeatedRuns final : public Prepared {
 public:
  RepeatedRuns(std::unique_ptr<Prepared> inner, int factor) : inner_(std::move(inner)), factor_(factor) {}
  void run() override {
    for (int i = 0; i < factor_; ++i) inner_->run();
  }
  bool has_transfers() const override { return inner_->has_transfers(); }
  void upload() override { inner_->upload(); }
  void download() override { inner_->download(); }
  void flush_cache() override { inner_->flush_cache(); }
  bool has_cache_flush() const override { return inner_->has_cache_flush(); }
  std::unique_ptr<TelemetrySource> telemetry_source() override { return inner_->telemetry_source(); }
  void synchronize() override { inner_->synchronize(); }
  std::unique_ptr<SampleTimer> make_timer() override { return inner_->make_timer(); }
  HostArray result() override { return inner_->result(); }
  double unit_roundoff_override() const override { return inner_->unit_roundoff_override(); }
  std::string details() const override { return inner_->details(); }

 private:
  std::unique_ptr<Prepared> inner_;
  int factor_;
};

}  // namespace

int test_slowdown_factor() {
  const char* text = std::getenv("GPUBENCH_TEST_SLOWDOWN");
  if (text == nullptr || *text == '\0') return 1;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1 || value > 100)
    throw UsageError("GPUBENCH_TEST_SLOWDOWN must be a whole number from 1 to 100, not '" + std::string(text) + "'");
  return static_cast<int>(value);
}

std::function<std::unique_ptr<Prepared>(std::unique_ptr<Prepared>)> slowdown_hook(int factor) {
  if (factor <= 1) return {};
  return [factor](std::unique_ptr<Prepared> prepared) -> std::unique_ptr<Prepared> {
    return std::make_unique<RepeatedRuns>(std::move(prepared), factor);
  };
}

void record_slowdown(int factor, Context& context) {
  if (factor <= 1) return;
  context.settings["test_slowdown"] = std::to_string(factor);
  context.notes.push_back("GPUBENCH_TEST_SLOWDOWN=" + std::to_string(factor) + ": every op does its work " +
                          std::to_string(factor) + " times per launch (a test knob, not a measurement)");
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
